/* SPDX-License-Identifier: Apache-2.0 */
/*
 * terminal.h — the tables a person reads on a terminal, from result records: each case's spread (n, CV) and the
 * collectives in nccl-tests' layout. Values here are for reading (units_format_scaled); JSON outputs keep the raw
 * numbers.
 *
 * Ownership: every function only reads the records it is given; terminal_record_index() and
 * terminal_records_of_members() return new JSON values the caller decrefs.
 */
#ifndef BENCH_TERMINAL_H
#define BENCH_TERMINAL_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The records of a bundle's results/<suite>.jsonl members (bundle_read_members' object: name -> text), in the
 * order of the suite registry: a new array. */
json_t *terminal_records_of_members(json_t *members);
/* An object "<suite>/<case>" -> record (the last record of a case wins, as with --resume). */
json_t *terminal_record_index(json_t *records);
/* The record of suite/case in an index, or NULL. */
json_t *terminal_record_of(json_t *index, const char *suite, const char *cs);
/* A record's spread as two table cells: n (stats.n) and CV in percent (stats.cv); "-" where the record has none. */
void terminal_spread(char *n, size_t nlen, char *cv, size_t cvlen, json_t *rec);
/* A collectives record's figures in nccl-tests' terms, of the median sample (the statistic of its headline, of
 * show, the report and the findings): busbw = the headline value, algbw = busbw / extra.bus_factor, time (us) =
 * extra.bytes / algbw (records without them: params.bytes, and the factor busbw_mean_gbps / algbw_gbps). nccl-tests'
 * own mean time stays in the record (extra.time_us, extra.busbw_mean_gbps) and
 * is not printed beside it. -1 (NANs) when the record did not measure. */
int terminal_coll_median(double *time_us, double *algbw, double *busbw, json_t *rec);
/* Every collectives record with extra.bytes as nccl-tests prints it (a case that did not measure: dashes, and
 * its wrong count when the data check had one): one table per op and rank count, a row per
 * size and type, out-of-place and in-place side by side: size (B), count (elements), type, time (us), algbw
 * (GB/s), busbw (GB/s) (terminal_coll_median()), #wrong. Prints nothing when there is no such record. */
void terminal_print_coll(FILE *fp, json_t *records);

#endif
