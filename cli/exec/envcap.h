/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envcap.h — what the run ran on: host, OS, CPU, memory, GPUs (nvidia-smi, else amd-smi or rocm-smi with
 * rocminfo), toolkit versions and the environment variables that steer GPU stacks (secrets redacted:
 * core/scrub.h). Raw tool outputs go to env/raw/.
 *
 * Ownership: envcap_collect() returns a new jansson object (caller decrefs); files are written under dir.
 */
#ifndef BENCH_ENVCAP_H
#define BENCH_ENVCAP_H

#include <jansson.h>

/* Captures into dir/env/environment.json and dir/env/raw/. Never fails the run: what cannot be read is
 * recorded as missing. */
json_t *envcap_collect(const char *run_dir);
/* The parsers of the ROCm tools' outputs (NUL-terminated texts; NULL for a tool that gave none). Each GPU is
 * {index, name, gfx_target, vbios, driver, memory_mib, power_limit_w, pci_bus_id, links: [{peer, type, status, hops,
 * weight}] (XGMI and PCIe links to the other GPUs) or null, ...}; a field the tool does not report is null.
 * envcap_parse_amdsmi: `amd-smi static --json`, `amd-smi metric --json` (max clocks), `amd-smi topology --json`;
 * a new array, or NULL when the static output lists no GPU. envcap_parse_rocmsmi: `rocm-smi --showproductname
 * --showvbios --showdriverversion --showmeminfo vram --showclocks --showmaxpower --showbus --json` and
 * `rocm-smi --showtopo --json` (clocks of the moment: sclk_mhz, mclk_mhz); likewise. envcap_parse_rocminfo:
 * `rocminfo`; {runtime_version, agents: [{gfx_target, name, uuid, compute_units, max_clock_mhz, node}]}, the GPU
 * agents only. */
json_t *envcap_parse_amdsmi(const char *static_json, const char *metric_json, const char *topology_json);
json_t *envcap_parse_rocmsmi(const char *json, const char *topo_json);
json_t *envcap_parse_rocminfo(const char *text);
/* GPU clocks, power and temperature now, written to dir/env/raw/gpu-<tag>.csv (nothing without a GPU tool). */
void envcap_gpu_snapshot(const char *run_dir, const char *tag);
/* Writes `python3 -m pip list` to dir/env/raw/pip-list.txt. */
void envcap_pip_list(const char *run_dir, const char *python);
/* The Python program that prints `pip list --format=freeze`'s lines from importlib.metadata (a python3 without
 * pip), used on the host and inside images. */
extern const char envcap_py_distributions[];
/* 1 when name is one of the prefixes that steer GPU stacks; 2 when its value must be redacted as well. */
int envcap_var_class(const char *name);

#endif
