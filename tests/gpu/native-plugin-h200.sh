#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 35 item 1 on one H200: a native GEMM plug-in on bench-gemm's GPU path (docs/plugins.md, "gemm (native)"),
# measured beside cuBLASLt like its cases: examples/plugins/cuda_gemm (a tiled CUDA kernel, fp32 accumulate) built
# here with the machine's nvcc, then
#   (1) bench run of backends [blaslt, {plugin: cudagemm, native: libcudagemm.so}], bf16, layouts tn and nn, shapes
#       4096^3 and 8192x8192x1024, burst, warmup 30ms, rep 100ms: every case must be ok with check ok (exit 0);
#   (2) bench run of the -DWRONG twin (skips the first K tile), bf16 tn 4096^3: its case must fail the check
#       (check wrong, exit 7).
# Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/native-plugin-h200.sh
# Writes $OUT/native-plugin.tar.gz (manifests, locks, run directories with results/gemm.jsonl, logs, gpu.txt,
# summary.txt) and prints the summary (per case: status, TFLOP/s, check, max error, device). About 60-100 s: the
# bench-gemm and plug-in builds (nvcc) about half of it; bench runs bounded by timeouts (100 s, 40 s).
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
here=$(pwd)
W="$OUT/native-plugin"
rm -rf "$W"
mkdir -p "$W/m"
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="${BENCH_RUNNERS:-$here/build/runners}"
BENCH=${BENCH:-"$here/.carry/bench/bench"}
[ -x "$BENCH" ] || BENCH="$here/bench"
NVCC=$(command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
pack() {
	tar -C "$OUT" -czf "$OUT/native-plugin.tar.gz" native-plugin
	echo "== $(date -u +%T) wrote $OUT/native-plugin.tar.gz"
}
t_start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv |
	tee "$W/gpu.txt"
if [ ! -x "$BENCH" ] || [ -z "$NVCC" ]; then
	echo "no bench ($BENCH) or no nvcc: run tests/gpu/prepare-carry.sh here and carry .carry" | tee "$W/summary.txt"
	pack
	exit 2
fi
echo "== $(date -u +%T) building bench-gemm (GPU path) and the plug-in with $NVCC"
rm -f build/runners/bench-gemm # never a runner left from an older tree
make build/runners/bench-gemm HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$W/build-gemm.log" 2>&1 &
b1=$!
make -j2 -C examples/plugins/cuda_gemm -B NVCC="$NVCC" ARCH=sm_90 all >"$W/build-plugin.log" 2>&1
rc2=$?
wait $b1
rc1=$?
if [ $rc1 != 0 ] || [ $rc2 != 0 ]; then
	echo "build failed (bench-gemm $rc1, plug-in $rc2):"
	tail -20 "$W/build-gemm.log" "$W/build-plugin.log"
	pack
	exit 1
fi
grep -q -- -DBENCH_GPU_GEMM "$W/build-gemm.log" && echo "bench-gemm built with -DBENCH_GPU_GEMM" ||
	echo "WARNING: bench-gemm built without -DBENCH_GPU_GEMM (the GPU path)"
echo "builds: $(( $(date +%s) - t_start )) s"
cp examples/plugins/cuda_gemm/libcudagemm.so examples/plugins/cuda_gemm/libcudagemm-wrong.so "$W/m/"
sha256sum "$W/m/"*.so >"$W/m/sha256.txt"
cat >"$W/m/ok.yaml" <<'Y'
bench: 1
name: native-plugin
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local, timeout: 5m}
suites:
  gemm: {backends: [blaslt, {plugin: cudagemm, native: libcudagemm.so, timeout: 60s}], dtypes: [bf16], layouts: [tn, nn],
         shapes: [[4096, 4096, 4096], [8192, 8192, 1024]], mode: burst, warmup: 30ms, rep: 100ms}
Y
cat >"$W/m/wrong.yaml" <<'Y'
bench: 1
name: native-plugin-wrong
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local, timeout: 5m}
suites:
  gemm: {backends: [{plugin: cudagemm-wrong, native: libcudagemm-wrong.so, timeout: 60s}], dtypes: [bf16], layouts: [tn],
         shapes: [[4096, 4096, 4096]], mode: burst, warmup: 30ms, rep: 100ms}
Y
for m in ok wrong; do "$BENCH" lock "$W/m/$m.yaml" >>"$W/lock.txt" 2>&1 || echo "lock $m failed" >>"$W/lock.txt"; done
"$BENCH" plan --json "$W/m/ok.yaml" >"$W/plan-ok.json" 2>&1
echo "== $(date -u +%T) (1) bench run: blaslt and cudagemm"
t0=$(date +%s)
timeout 100 "$BENCH" run -v -o "$W/runs-ok" "$W/m/ok.yaml" >"$W/run-ok.out" 2>"$W/run-ok.err"
rc_ok=$?
echo "(1) exit $rc_ok in $(( $(date +%s) - t0 )) s (want 0)" | tee "$W/exits.txt"
echo "== $(date -u +%T) (2) bench run: cudagemm-wrong"
t0=$(date +%s)
timeout 40 "$BENCH" run -v -o "$W/runs-wrong" "$W/m/wrong.yaml" >"$W/run-wrong.out" 2>"$W/run-wrong.err"
rc_wrong=$?
echo "(2) exit $rc_wrong in $(( $(date +%s) - t0 )) s (want 7)" | tee -a "$W/exits.txt"
python3 - "$W" "$rc_ok" "$rc_wrong" <<'PY' | tee "$W/summary.txt"
import glob, json, sys
w, rc_ok, rc_wrong = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
verdict = []
def rows(tag):
    out = []
    for path in sorted(glob.glob(f"{w}/runs-{tag}/*/results/gemm.jsonl")):
        for line in open(path):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out
for tag in ("ok", "wrong"):
    rs = rows(tag)
    print(f"== run {tag}: {len(rs)} records")
    print(f"{'case':44} {'status':8} {'TFLOP/s':>8} {'check':6} {'max_rel_err':>11} {'tol':>8} {'device':>6} {'J/call':>9}  error")
    for r in rs:
        x = r.get("extra", {})
        v = r.get("value")
        dev = (x.get("plugin") or {}).get("device", "-" if x.get("plugin") else "lt")
        ej = (x.get("energy") or {}).get("joules")  # per call
        print(f"{r['case']:44} {r.get('status',''):8} {v if v is None else round(v, 1)!s:>8} {x.get('check','-'):6} "
              f"{x.get('max_rel_err', float('nan')):11.3g} {x.get('check_tolerance', float('nan')):8.2g} {dev:>6} "
              f"{ej if ej is None else round(ej, 3)!s:>9}  {(r.get('error') or '')[:90]}")
    if tag == "ok":
        plug = [r for r in rs if r["case"].startswith("cudagemm/")]
        verdict.append(("every case ok, check ok; exit 0", rc_ok == 0 and len(rs) == 8 and
                        all(r.get("status") == "ok" and r.get("extra", {}).get("check") == "ok" for r in rs)))
        verdict.append(("the plug-in's records ran on the GPU (extra.plugin.device gpu, extra.device vendor cuda)",
                        len(plug) == 4 and all((r.get("extra", {}).get("plugin") or {}).get("device") == "gpu" and
                                               (r.get("extra", {}).get("device") or {}).get("vendor") == "cuda" for r in plug)))
        for r in plug:
            b = next((q for q in rs if q["case"] == "blaslt/" + r["case"].split("/", 1)[1].replace("/default", "/heuristic")), None)
            if b and b.get("value") and r.get("value"):
                print(f"   {r['case']}: {r['value'] / b['value'] * 100:.1f}% of cuBLASLt")
    else:
        verdict.append(("the wrong plug-in fails its check (check wrong; exit 7)", rc_wrong == 7 and len(rs) == 1 and
                        rs[0].get("status") == "failed" and rs[0].get("extra", {}).get("check") == "wrong"))
print("== verdict")
for what, good in verdict:
    print(("PASS " if good else "FAIL ") + what)
PY
echo "total: $(( $(date +%s) - t_start )) s" | tee -a "$W/summary.txt"
pack
