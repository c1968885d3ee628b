/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envcap.h — what the run ran on: host, OS, CPU, memory, GPUs (nvidia-smi, else amd-smi or rocm-smi with
 * rocminfo), toolkit versions and the environment variables that steer GPU stacks (secrets redacted). Raw tool
 * outputs go to env/raw/.
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

/* The redaction policy (docs/architecture.md, "Secrets"). A name is secret when it is on the deny list
 * ($BENCH_ENV_REDACT), else not when it is on the allow list ($BENCH_ENV_KEEP) or is PWD/OLDPWD (the shell's
 * directories), else when it contains, case-insensitively, one of TOKEN SECRET PASSWORD PASSWD PASS PASSPHRASE
 * PWD AUTH COOKIE PRIVATE CERT SESSION API KEY CREDENTIAL CRED SIGNATURE SALT. Lists are comma-separated
 * shell patterns (fnmatch, case-sensitive). Returns 1 when secret. */
int envcap_is_secret(const char *name);
/* value with the userinfo of every URL in it replaced ("https://u:p@h/" -> "https://<redacted>@h/"); a new
 * string. */
char *envcap_redact_url(const char *value);
/* value with every credential in it replaced by <redacted>: URL userinfo (envcap_redact_url()), a credential
 * without a scheme (user:password@host[:port]), and the value of every KEY=VALUE, KEY: VALUE or "KEY": "VALUE"
 * inside it whose KEY envcap_is_secret() names (JSON or a query string in a captured variable); a new string. */
char *envcap_redact_value(const char *value);
/* The texts to scrub from logs: every value (and every line of a multi-line value) of at least
 * ENVCAP_SCRUB_MIN bytes of a secret variable of env (NAME=VALUE entries, NULL-terminated), added to out. */
#define ENVCAP_SCRUB_MIN 8
struct strvec;
void envcap_secret_values(struct strvec *out, char *const *env);
/* text with each of values replaced by <redacted>, the value of every NAME=VALUE line of a secret NAME too,
 * and URL userinfo removed; appended to out. */
struct strbuf;
void envcap_scrub_text(struct strbuf *out, const char *text, size_t len, const struct strvec *values);
/* Scrubs the file at path in place (a temporary file renamed over it; removed on failure). 0 or BENCH_E_IO.
 * Text is scrubbed by byte ranges: a NUL byte is kept, never the end of a line. A binary file (a NUL byte among
 * its first 8000; logs and JSON are always text) is scrubbed byte-exactly: each secret value, token shape and
 * JSON Web Token in it overwritten by as many '*' bytes, its length kept; one larger than
 * ENVCAP_SCRUB_BINARY_MAX is left as it is (no bundle member may be that large: pack refuses it by name). */
#define ENVCAP_SCRUB_BINARY_MAX ((size_t)256 << 20)
int envcap_scrub_file(const char *path, const struct strvec *values);
/* Every regular file of the run directory dir (recursively, links not followed; .bench-lock, *.tmp, and at its
 * top manifest.yaml, manifest.lock.json and inputs/ left as they are: the run's inputs, signed by their digests)
 * scrubbed with envcap_scrub_file(); a file that cannot be scrubbed is removed, with a warning on stderr, rather
 * than packed with a secret in it. Used by bench run before it packs, and by bench pack. */
void envcap_scrub_dir(const char *dir, const struct strvec *values);

#endif
