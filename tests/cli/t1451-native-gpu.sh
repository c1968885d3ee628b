#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Native GEMM plug-ins on bench-gemm's GPU path (docs/plugins.md, "gemm (native)"), what a machine without a GPU can
# hold: a GPU target plans the plug-in's cases with plugin_device gpu (a CPU target does not); `make` builds
# bench-gemm with -DBENCH_GPU_GEMM and -Werror where nvcc is found, and the runners under test have that path; a case
# on the GPU path runs in bench-gemm executed afresh (one case), whose record comes back: a library that does not
# load, a crash and a hang fail their own case with their reason, and the case after them is measured; without a GPU
# the plug-in's case fails for the reason blaslt's does. The kernel itself runs on the H200 only
# (tests/gpu/native-plugin-h200.sh).
. "$(dirname "$0")/lib.sh"
# a plug-in that crashes must end its runner by the signal, as it does without a sanitizer (make asan: ASan's own
# handler would report the SIGSEGV and exit 1)
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0"
RUNNERS=${BENCH_RUNNERS:-${BENCH_DATA:-.}/build/runners}
CC=$(command -v cc || command -v gcc || true)
NVCC=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; } || true)
M="$T/m"
mkdir -p "$M/plugins" "$T/tmp"
: >"$M/plugins/libcg.so"
for v in cuda cpu; do
	cat >"$M/$v.yaml" <<Y
bench: 1
name: native-$v
target: {vendor: $v, gpu: $([ $v = cuda ] && echo h200 || echo cpu), nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local}
suites:
  gemm: {backends: [$([ $v = cuda ] && echo blaslt || echo cblas), {plugin: cg, native: plugins/libcg.so}], dtypes: [bf16], layouts: [tn], shapes: [[64, 64, 64]]}
Y
done
expect 0 "plan of a GPU target" "$BENCH" plan --json "$M/cuda.yaml"
if python3 -c 'import json,sys; c = {x["case"]: x["params"] for x in json.load(open(sys.argv[1]))["cases"]}
sys.exit(not (c["cg/bf16/tn/64x64x64/default"].get("plugin_device") == "gpu" and
              "plugin_device" not in c["blaslt/bf16/tn/64x64x64/heuristic"]))' "$T/out"; then
	ok "a GPU target's native plug-in case runs on the GPU path (plugin_device gpu)"
else
	not_ok "no plugin_device gpu in the GPU target's plan"; show "$T/out"
fi
expect 0 "plan of a CPU target" "$BENCH" plan --json "$M/cpu.yaml"
if grep -q plugin_device "$T/out"; then not_ok "a CPU target's plan has plugin_device"; else ok "a CPU target's plug-in stays on the host path"; fi

# ---- the build: the GPU path compiled with -Werror where nvcc is found -------------------------------------------
if [ -z "$NVCC" ]; then
	ok "# SKIP no nvcc here: bench-gemm has no GPU path to build"
	ok "# SKIP no nvcc here"
else
	make -s -n -B -C "${BENCH_DATA:-.}" BUILD="$T/build" "$T/build/runners/bench-gemm" 2>&1 |
		sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >"$T/make.txt"
	if grep -- "-o $T/build/runners/bench-gemm" "$T/make.txt" | grep -- -Werror | grep -- -DBENCH_GPU_GEMM |
		grep -q gemm_native.c; then
		ok "make builds bench-gemm with -DBENCH_GPU_GEMM, gemm_native.c and -Werror (nvcc: $NVCC)"
	else
		not_ok "make's bench-gemm line lacks -DBENCH_GPU_GEMM or -Werror"; show "$T/make.txt"
	fi
	printf '{"cases":[{"suite":"gemm","case":"b","params":{"backend":"blaslt","dtype":"bf16","layout":"tn","m":8,"n":8,"k":8}}]}\n' >"$T/b.json"
	"$RUNNERS/bench-gemm" --config "$T/b.json" >"$T/b.out" 2>/dev/null
	if grep -q "built without a GPU toolkit" "$T/b.out"; then
		not_ok "the bench-gemm under test ($RUNNERS) was built without its GPU path though nvcc is here"
	else
		ok "the bench-gemm under test has its GPU path"
	fi
fi

# ---- bench-gemm's GPU path for a native plug-in, without a GPU ----------------------------------------------------
if [ -z "$CC" ]; then
	ok "# SKIP no C compiler for the test plug-ins"
	finish
	exit $?
fi
mkdir -p "$T/inputs"
cat >"$T/p.c" <<'C'
#include <signal.h>
#include <unistd.h>
#include "plugin.h"
#ifdef CRASH
__attribute__((constructor)) static void crash(void) { raise(SIGSEGV); }
#endif
#ifdef HANG
__attribute__((constructor)) static void hang(void) { sleep(60); }
#endif
int bench_gemm_plugin(const struct bench_gemm_args *x) { return x->device == BENCH_GEMM_HOST ? 5 : 0; }
C
$CC -O1 -shared -fPIC -I"${BENCH_DATA:-.}/runners/gemm" -o "$T/inputs/libok.so" "$T/p.c" &&
$CC -O1 -shared -fPIC -DCRASH -I"${BENCH_DATA:-.}/runners/gemm" -o "$T/inputs/libcrash.so" "$T/p.c" &&
$CC -O1 -shared -fPIC -DHANG -I"${BENCH_DATA:-.}/runners/gemm" -o "$T/inputs/libhang.so" "$T/p.c" ||
	not_ok "the test plug-ins do not build"
c() { # NAME LIB [TIMEOUT_S]: a case of native plug-in NAME on the GPU path (60 s: a loaded machine starts slowly)
	printf '{"suite":"gemm","case":"%s","params":{"backend":"%s","dtype":"bf16","layout":"tn","m":8,"n":8,"k":8,"rep_ms":5,"warmup_ms":1,"plugin_device":"gpu","plugin":{"name":"%s","kind":"native","path":"%s","timeout_s":%s}}}' "$1" "$1" "$1" "$2" "${3:-60}"
}
printf '{"inputs":"%s","plugin_sha256":{"ok":"00ff"},"cases":[%s,%s,%s,%s,%s,{"suite":"gemm","case":"blaslt","params":{"backend":"blaslt","dtype":"bf16","layout":"tn","m":8,"n":8,"k":8,"rep_ms":5,"warmup_ms":1}}]}\n' \
	"$T/inputs" "$(c ok libok.so)" "$(c missing libmissing.so)" "$(c crash libcrash.so)" "$(c hang libhang.so 2)" \
	"$(c ok2 libok.so)" >"$T/cases.json"
TMPDIR="$T/tmp" "$RUNNERS/bench-gemm" --config "$T/cases.json" >"$T/recs.jsonl" 2>"$T/recs.err"
rc=$?
[ "$rc" = 0 ] && ok "bench-gemm went through every case (exit 0)" || { not_ok "bench-gemm exit $rc"; show "$T/recs.err"; }
python3 - "$T/recs.jsonl" "$T/inputs" >"$T/verdict" <<'PY'
import json, sys
recs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    recs[r["case"]] = r
def say(good, what):
    print(("ok " if good else "not ok ") + what)
print("ok six records, one per case" if len(recs) == 6 else "not ok %d records" % len(recs))
bl, ok = recs.get("blaslt", {}), recs.get("ok", {})
if "without a GPU toolkit" in (ok.get("error") or ""):
    say(ok.get("status") == "skipped", "a bench-gemm without its GPU path skips the GPU path's plug-in case")
    for k in ("missing", "crash", "hang", "ok2"):
        say(recs.get(k, {}).get("status") == "skipped", "%s skipped likewise" % k)
    sys.exit(0)
pl = ok.get("extra", {}).get("plugin", {})
say(pl.get("device") == "gpu" and pl.get("sha256") == "00ff" and pl.get("file") == sys.argv[2] + "/libok.so",
    "the child's record names the plug-in, its copy, its digest and device gpu: %s" % pl)
if bl.get("status") == "ok":  # a GPU here: the plug-in (device CUDA, returns 0 without writing C) must fail the check
    say(ok.get("status") == "failed" and ok.get("extra", {}).get("check") == "wrong",
        "on a GPU, a plug-in that leaves C alone fails the check: %s" % ok.get("error"))
else:
    say(ok.get("status") == "failed" and ok.get("error") == bl.get("error"),
        "without a GPU the plug-in's case fails for blaslt's reason: %s | %s" % (ok.get("error"), bl.get("error")))
m = recs.get("missing", {})
say(m.get("status") == "failed" and (m.get("error") or "").startswith("plug-in 'missing' does not load: "),
    "a library that does not load: %s" % m.get("error"))
cr = recs.get("crash", {})
say(cr.get("status") == "failed" and cr.get("error") == "plug-in 'crash' crashed: signal 11 (Segmentation fault)",
    "a crash fails its own case: %s" % cr.get("error"))
h = recs.get("hang", {})
say(h.get("status") == "failed" and (h.get("error") or "").startswith("plug-in 'hang' did not finish within 2s (its timeout)"),
    "a hang is killed at its timeout: %s" % h.get("error"))
o2 = recs.get("ok2", {})
say(o2.get("status") == ok.get("status") and o2.get("error") == ok.get("error"), "the case after them runs as the first did")
PY
while read -r v rest; do
	case "$v" in ok) ok "$rest" ;; *) not_ok "${rest#ok }" ;; esac
done <"$T/verdict"
[ -s "$T/verdict" ] || not_ok "no verdict"
if [ -z "$(ls "$T/tmp")" ]; then ok "no one-case cases file left behind"; else not_ok "left in TMPDIR: $(ls "$T/tmp")"; fi
finish
