/* SPDX-License-Identifier: Apache-2.0 */
/*
 * units.h — sizes ("2GiB", "1MB", 4096) and durations ("500ms", "30s", "10m", "2h") as the manifest writes
 * them, and their canonical spellings for case keys; and the monotonic clock bench times its own waits with.
 *
 * Ownership: parsers write to caller-provided out-parameters and, on failure, a one-line reason into the
 * caller's buffer; formatters write into the caller's buffer. Nothing is allocated.
 */
#ifndef BENCH_UNITS_H
#define BENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC now, in seconds: for timeouts and elapsed times, never for a date */
double units_now_s(void);

#define UNITS_SIZE_MAX ((uint64_t)1 << 50) /* 1 PiB: anything larger is a typo */

/* Parses "N" (bytes), "N<unit>" or "N.F<unit>" with unit B, KiB, MiB, GiB, TiB, KB, MB, GB, TB. The value
 * must be a whole number of bytes. Returns 0, or -1 with why[] set. */
int units_parse_size(uint64_t *out, const char *s, char *why, size_t whylen);
/* Parses "N<unit>" with unit ns, us, ms, s, m, h (a bare number is refused: the unit is ambiguous). */
int units_parse_duration(uint64_t *out_ns, const char *s, char *why, size_t whylen);
/* Exact short form: "2GiB", "1536KiB", "1000B" (largest binary unit that divides exactly). */
void units_format_size(char *buf, size_t len, uint64_t bytes);
/* Exact short form of a duration: "30ms", "2h", "1500us". */
void units_format_duration(char *buf, size_t len, uint64_t ns);
/* A measured value for a person to read: its unit re-prefixed (SI, powers of 1000) so that the figure lies in
 * [1, 1000), with 3 significant digits: (0.001167, "TFLOP/s") -> "1.17 GFLOP/s", (0.0186, "TB/s") -> "18.6 GB/s",
 * (0.25, "ms") -> "250 us". Units it knows: [k|M|G|T|P]FLOP/s, [k|M|G|T|P]B/s, [n|u|m]s; any other unit is kept
 * as written, the value with 4 significant digits. A value that is not finite is written "-". Machine outputs
 * (JSON, CSV) keep the raw number and the unit as recorded; this is for text only. */
void units_format_scaled(char *buf, size_t len, double value, const char *unit);

#endif
