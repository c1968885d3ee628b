/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lock_drift.h — what moved between a lock on disk and the same manifest locked again (bench lock --check): each
 * component whose pin changed (a nightly's date, a pip closure package by package, a host prefix library by
 * library, else the whole pin), the wheel target, the base image and the plug-ins, one "bench: moved: ..." line
 * each.
 *
 * Ownership: lock_drift_print() only reads the two locks and writes its lines to the stream it is given.
 */
#ifndef BENCH_LOCK_DRIFT_H
#define BENCH_LOCK_DRIFT_H

#include <stdio.h>

#include <jansson.h>

/* Prints to report what moved from old to now (two bench.lock/v1 objects of one manifest) and returns how many
 * locked references moved (0: every one is where it was). */
int lock_drift_print(FILE *report, json_t *old, json_t *now);

#endif
