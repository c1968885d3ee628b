#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# early: (the ROCm image, debootstrap of sid and its install, on a fresh machine: long work on one core)
# The HIP runners, compiled for real: in a Debian unstable container with Debian's ROCm packages (setup:
# tests/setup/rocm.sh), `make runners BENCH_HIP=1` for gfx942 and gfx950 with warnings as errors; the three runners
# linked against libamdhip64, hipBLASLt (bench-gemm) and RCCL (bench-coll); then what needs no AMD GPU: --help, a
# bad argument (exit 2 and the usage line), a missing config, bench's own plan of a ROCm manifest run through each
# runner (one record per planned case, the keys and params carried over), and the clean "no AMD GPU visible"
# failure of every GPU case (status failed, exit 0, as the runner contract has it); the image's libamd_smi exports
# every amdsmi_* entry point runners/common/telemetry_amdsmi.c loads (throttle status included). The compile transcript
# (compiler version, every command, the libraries each runner needs) is kept in $BENCH_HIP_TRANSCRIPT when set.
. "$(dirname "$0")/lib.sh"
if ! command -v podman >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
	echo "ok 1 # SKIP no podman, and not root to install it"
	finish
	exit
fi
IMG=$(sh tests/setup/rocm.sh 2>"$T/setup.err") || { not_ok "ROCm image setup failed"; show "$T/setup.err"; finish; exit 1; }
ok "ROCm build image $IMG"
NAME=bench-t1400-$$
trap 'podman rm -f "$NAME" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# the plan of a ROCm manifest, made by this bench: the runners' config
mkdir -p "$T/io"
cat >"$T/rocm.yaml" <<'EOF'
bench: 1
name: t1400-rocm
target: {vendor: rocm, gpu: mi300x, nodes: 1, gpus_per_node: 2}
stack: {base: "localhost/debian-rocm:unstable"}
suites:
  gemm: {backends: [blaslt], dtypes: [bf16, fp16, fp8e4m3, fp8e5m2], shapes: [[256, 256, 256]], tune: 2}
  membw: {ops: [copy], bytes: 16MiB}
  collectives: {backend: rccl, ops: [all_reduce], dtype: bf16, min_bytes: 1MiB, max_bytes: 1MiB}
EOF
expect 0 "bench plan of a ROCm manifest" "$BENCH" plan --json "$T/rocm.yaml"
cp "$T/out" "$T/io/plan.json"

# the tree as a clean clone holds it (tracked files with their edits), without a host build/
git ls-files -z | tar --null -T - -cf "$T/io/src.tar" 2>"$T/err" || { not_ok "tar the tree"; show "$T/err"; }
cat >"$T/io/inside.sh" <<'EOF'
set -u
mkdir -p /b && tar -C /b -xf /io/src.tar
{
	echo "## hipcc --version"; hipcc --version
	echo "## make -C /b runners BENCH_HIP=1 HIP_ARCH='gfx942 gfx950'"
	make -C /b runners BENCH_HIP=1 HIP_ARCH='gfx942 gfx950' 2>&1; echo "make exit $?"
	for r in bench-gemm bench-membw bench-coll; do echo "## readelf -d $r (NEEDED)"; readelf -d /b/build/runners/$r | grep NEEDED; done
} >/io/compile.log 2>&1
# the entry points the amd-smi telemetry backend loads must be the library's: its exported names
for l in /usr/lib/*/libamd_smi.so.[0-9]*; do
	echo "## nm -D $l"
	nm -D --defined-only "$l" | awk '{print $3}' | sed 's/@.*//' | grep '^amdsmi_'
	break
done >/io/amdsmi-syms.txt 2>&1
R=/b/build/runners
# runner outputs: NAME.out, NAME.err, NAME.rc
run() { n=$1; shift; "$@" >/io/$n.out 2>/io/$n.err; echo $? >/io/$n.rc; }
run gemm-help $R/bench-gemm --help
run membw-help $R/bench-membw --help
run coll-help $R/bench-coll --help
run gemm-bad $R/bench-gemm --frobnicate
run coll-noconfig $R/bench-coll
run gemm-badjson $R/bench-gemm --config /io/src.tar
run gemm $R/bench-gemm --config /io/plan.json
run membw $R/bench-membw --config /io/plan.json
run coll $R/bench-coll --config=/io/plan.json
EOF
podman run --name "$NAME" --network none -v "$T/io:/io" "$IMG" sh /io/inside.sh >"$T/podman.log" 2>&1 ||
	{ not_ok "podman run"; show "$T/podman.log"; }
[ -n "${BENCH_HIP_TRANSCRIPT:-}" ] && cp "$T/io/compile.log" "$BENCH_HIP_TRANSCRIPT"
if grep -q '^make exit 0$' "$T/io/compile.log"; then ok "make runners BENCH_HIP=1 for gfx942 and gfx950 (-Werror)"; else
	not_ok "make runners BENCH_HIP=1"
	grep -v '^#' "$T/io/compile.log" | tail -n 30 | sed 's/^/#   /'
fi
grep -q -- '--offload-arch=gfx942 --offload-arch=gfx950' "$T/io/compile.log" && grep -q -- '-DBENCH_HIP' "$T/io/compile.log" &&
	ok "the kernels compiled by hipcc for both targets, the host code with BENCH_HIP" || not_ok "compile lines"
grep -q 'runners/common/telemetry_amdsmi.c' "$T/io/compile.log" &&
	ok "the amd-smi telemetry backend compiled into the HIP runners (-Werror)" || not_ok "telemetry_amdsmi.c not compiled"
missing=
for n in $(grep -o '"amdsmi_[a-z_]*"' runners/common/telemetry_amdsmi.c | tr -d '"' | sort -u); do
	grep -qx "$n" "$T/io/amdsmi-syms.txt" || missing="$missing $n"
done
if grep -q '^## nm -D' "$T/io/amdsmi-syms.txt" && [ -z "$missing" ]; then
	ok "the image's libamd_smi exports every entry point the telemetry backend loads ($(head -1 "$T/io/amdsmi-syms.txt" | cut -c10-))"
else
	not_ok "libamd_smi lacks:${missing:- (no library found)}"
	show "$T/io/amdsmi-syms.txt"
fi
# needs LIB RUNNER...: each runner's dynamic section names LIB
needs() {
	lib=$1
	shift
	for r in "$@"; do
		if awk -v r="$r" '/^## readelf/ { on = ($4 == r) } on' "$T/io/compile.log" | grep -q "Shared library: \[$lib"; then
			ok "$r needs $lib"
		else not_ok "$r does not need $lib"; fi
	done
}
needs libamdhip64.so bench-gemm bench-membw bench-coll
needs libhipblaslt.so bench-gemm
needs librccl.so bench-coll

for r in gemm membw coll; do
	[ "$(cat "$T/io/$r-help.rc")" = 0 ] && grep -q "^usage: bench-$r --config CASES.json" "$T/io/$r-help.out" &&
		ok "bench-$r --help: usage, exit 0" || { not_ok "bench-$r --help"; show "$T/io/$r-help.err"; }
done
[ "$(cat "$T/io/gemm-bad.rc")" = 2 ] && grep -qF "error: unknown argument '--frobnicate'" "$T/io/gemm-bad.err" &&
	grep -q '^usage: bench-gemm' "$T/io/gemm-bad.err" && ok "a bad argument: exit 2 with the usage" ||
	{ not_ok "bad argument"; show "$T/io/gemm-bad.err"; }
[ "$(cat "$T/io/coll-noconfig.rc")" = 2 ] && grep -qF "error: missing --config CASES.json" "$T/io/coll-noconfig.err" &&
	ok "no config: exit 2" || { not_ok "no config"; show "$T/io/coll-noconfig.err"; }
[ "$(cat "$T/io/gemm-badjson.rc")" = 1 ] && grep -q "^error: /io/src.tar:" "$T/io/gemm-badjson.err" &&
	ok "a config that is not JSON: exit 1, its place named" || { not_ok "bad JSON"; show "$T/io/gemm-badjson.err"; }

# the plan -> runner contract without a GPU: every planned case of the runner's suite answered once, in order,
# with its params; GPU cases fail cleanly with why, and the runner still exits 0
for r in gemm membw coll; do
	[ "$(cat "$T/io/$r.rc")" = 0 ] && ok "bench-$r on the plan: exit 0" || { not_ok "bench-$r exit $(cat "$T/io/$r.rc")"; show "$T/io/$r.err"; }
done
if python3 - "$T/io" <<'PY' 2>"$T/err"; then ok "one record per planned case, params carried; GPU cases: no AMD GPU visible"; else not_ok "records"; show "$T/err"; fi
import json, os, sys
io = sys.argv[1]
plan = json.load(open(os.path.join(io, "plan.json")))
for runner, suite in (("gemm", "gemm"), ("membw", "membw"), ("coll", "collectives")):
    want = [c for c in plan["cases"] if c["suite"] == suite]
    assert want, suite
    recs = [json.loads(l) for l in open(os.path.join(io, runner + ".out"))]
    assert [r["case"] for r in recs] == [c["case"] for c in want], (runner, [r["case"] for r in recs])
    for r, c in zip(recs, want):
        assert r["schema"] == "bench.result/v1" and r["suite"] == suite and r["params"] == c["params"], r
        if runner == "membw":  # no GPU: measured on the CPU, and the record says why
            assert r["status"] == "ok", r
            continue
        assert r["status"] == "failed" and r["error"].startswith("no AMD GPU visible ("), r
    if runner == "membw":
        d = recs[0]["extra"]["device"]
        assert d["vendor"] == "cpu" and d["why_cpu"].startswith("no AMD GPU visible ("), d
PY
finish
