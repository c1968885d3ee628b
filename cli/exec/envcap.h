/*
 * envcap.h — what the run ran on: host, OS, CPU, memory, GPUs (nvidia-smi or rocm-smi), toolkit versions and
 * the environment variables that steer GPU stacks (secrets redacted). Raw tool outputs go to env/raw/.
 *
 * Ownership: envcap_collect() returns a new jansson object (caller decrefs); files are written under dir.
 */
#ifndef BENCH_ENVCAP_H
#define BENCH_ENVCAP_H

#include <jansson.h>

/* Captures into dir/env/environment.json and dir/env/raw/. Never fails the run: what cannot be read is
 * recorded as missing. */
json_t *envcap_collect(const char *run_dir);
/* GPU clocks, power and temperature now, written to dir/env/raw/gpu-<tag>.csv (nothing without a GPU tool). */
void envcap_gpu_snapshot(const char *run_dir, const char *tag);
/* Writes `python3 -m pip list` to dir/env/raw/pip-list.txt. */
void envcap_pip_list(const char *run_dir, const char *python);
/* 1 when name is one of the prefixes that steer GPU stacks; 2 when its value must be redacted. */
int envcap_var_class(const char *name);

#endif
