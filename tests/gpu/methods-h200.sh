#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 32's measurement methods on one H200, with bench itself (about 3 to 4 minutes of GPU time). Carry .carry
# (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/methods-h200.sh
# One run of: gemm blaslt bf16 and fp8e4m3, tn, the llama70b shapes, tune 8 (each shape: the heuristic's case and
# the tune8 case); membw copy of 2 GiB. It prints, and leaves in $OUT/summary.txt:
#   (a) per tune8 case: the screen's choice, the confirmation's paired gain with its 95% interval, the heuristic's and
#       the winner's pooled TFLOP/s of the same confirmation, the tuned figure and whether it is >= the heuristic's;
#   (b) per case: the steady warm-up's time per call against the timed loop's (both flushes included: the same loop);
#   (c) per case: energy per call from the energy counter beside the power x time estimate.
# Under $OUT: runs.tar.gz (the run directory and its signed bundle), signing.pub.pem (bench verify -k
# signing.pub.pem BUNDLE), summary.txt, gpu.txt, run.out, run.err, build.log.
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
here=$(pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
if [ ! -x "$BENCH" ]; then
	echo "no $BENCH: run tests/gpu/prepare-carry.sh here and carry .carry" >&2
	exit 2
fi
echo "== $(date -u +%T) GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv |
	tee "$OUT/gpu.txt"
echo "== $(date -u +%T) building bench-gemm and bench-membw (this checkout's sources)"
t0=$(date +%s)
if ! make build/runners/bench-gemm build/runners/bench-membw HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/build.log" 2>&1; then
	tail -30 "$OUT/build.log"
	exit 1
fi
echo "runners built in $(( $(date +%s) - t0 )) s"
M="$OUT/methods.yaml"
cat >"$M" <<'Y'
bench: 1
name: h200-methods
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
stack:
  env: {NCCL_NVLS_ENABLE: "0", TORCH_SYMM_MEM_DISABLE_MULTICAST: "1", NVSHMEM_DISABLE_NVLS: "1"}
runtime: {engine: host, launcher: local, timeout: 20m}
suites:
  gemm: {backends: [blaslt], dtypes: [bf16, fp8e4m3], layouts: [tn], shapes: llama70b, tune: 8}
  membw: {ops: [copy], bytes: 2GiB}
Y
echo "== $(date -u +%T) bench run (20 gemm cases, 1 membw case; progress on stderr below)"
t0=$(date +%s)
rc=0
"$BENCH" run -o "$OUT/runs" "$M" >"$OUT/run.out" 2>"$OUT/run.err" || rc=$?
echo "bench run: exit $rc in $(( $(date +%s) - t0 )) s"
grep -E "error|failed|skipped" "$OUT/run.err" | head -20
D=$(ls -d "$OUT"/runs/h200-methods-*/ 2>/dev/null | head -n 1)
if [ -z "$D" ]; then
	echo "no run directory" >&2
	tail -30 "$OUT/run.err"
	exit 1
fi
cp "$BENCH_HOME/signing.pub.pem" "$OUT/" 2>/dev/null || echo "no signing.pub.pem under $BENCH_HOME"
for b in "$OUT"/runs/*.bench.tar.gz; do
	[ -f "$b" ] || continue
	"$BENCH" verify -k "$OUT/signing.pub.pem" "$b" >"$OUT/verify.txt" 2>&1 && echo "verify $(basename "$b"): ok" ||
		echo "verify $(basename "$b"): FAILED (see verify.txt)"
done
echo "== $(date -u +%T) tables"
python3 - "$D" <<'PY' | tee "$OUT/summary.txt"
import json, os, sys
d = sys.argv[1]
recs = []
for suite in ("gemm", "membw"):
    p = os.path.join(d, "results", suite + ".jsonl")
    if os.path.exists(p):
        recs += [json.loads(l) for l in open(p)]
by = {r["case"]: r for r in recs}
print("(a) tune 8: the screen chooses; the confirmation (heuristic vs winner, ABBA blocks) measures")
print("%-36s %6s %6s %9s %9s %8s %17s %9s %9s %s" % ("case", "screen", "chosen", "heur", "winner", "gain%", "95% interval",
      "tuned", "heurcase", "tuned>=heur"))
bad = 0
for r in recs:
    if not r["case"].endswith("/tune8"):
        continue
    base = r["case"].rsplit("/", 1)[0]
    h = by.get(base + "/heuristic", {})
    if r["status"] != "ok":
        print("%-36s %s: %s" % (base, r["status"], r.get("error")))
        bad += 1
        continue
    t = r["extra"].get("tune", {})
    c = t.get("confirm", {})
    if c.get("done"):
        ok = r["value"] >= c["heuristic_tflops"] * (1 - 1e-9)
        bad += not ok
        print("%-36s %6s %6s %9.1f %9.1f %+8.2f [%+6.2f, %+6.2f] %9.1f %9.1f %s" % (base, t.get("screen_best"),
              c["chosen"], c["heuristic_tflops"], c["winner_tflops"], c["gain_pct"], c["gain_ci95_pct"][0],
              c["gain_ci95_pct"][1], r["value"], h.get("value") or 0, "yes" if ok else "NO"))
        print("%-36s pairs %d x %d calls, per-pair gain %%: %s" % ("", c["pairs"], c["block_calls"],
              " ".join("%+.2f" % g for g in c["pair_gain_pct"])))
    else:
        print("%-36s %6s %6s %9s %9s %8s %17s %9.1f %9.1f %s" % (base, t.get("screen_best"), "heur", "-", "-", "-",
              c.get("why", "-")[:17], r["value"], h.get("value") or 0, "n/a (heuristic's first)"))
print("tuned figures below their confirmation's heuristic: %d" % bad)
print()
print("(b) the steady warm-up runs the timed loop: ms per call, flushes included (warm-up's last burst vs the timed loop)")
print("%-44s %10s %10s %7s %6s %8s" % ("case", "warmup", "timed", "ratio", "steady", "flushMiB"))
for r in recs:
    tm = r.get("extra", {}).get("timing", {})
    w, t = tm.get("warmup_per_call_ms"), tm.get("timed_per_call_ms")
    fb = r.get("extra", {}).get("flush_bytes")
    print("%-44s %10s %10s %7s %6s %8s" % (r["case"], "%.4f" % w if w else "-", "%.4f" % t if t else "-",
          "%.3f" % (w / t) if w and t else "-", tm.get("steady_reached"), "%.0f" % (fb / 2**20) if fb else "-"))
print()
print("(c) energy per call: the energy counter over the timed loop / calls, beside median power x median time")
print("%-44s %8s %11s %11s %7s %9s %7s %8s" % ("case", "method", "J counter", "J estimate", "ratio", "window_ms",
      "calls", "W med"))
for r in recs:
    e = r.get("extra", {}).get("energy", {})
    if not e.get("available"):
        print("%-44s unavailable: %s" % (r["case"], e.get("why")))
        continue
    jc, je = e.get("joules_counter"), e.get("joules_estimate")
    print("%-44s %8s %11s %11.5f %7s %9.0f %7s %8.0f" % (r["case"], e["method"], "%.5f" % jc if jc else "-", je,
          "%.3f" % (jc / je) if jc and je else "-", e.get("window_ms") or 0, e.get("calls", "-"), e["power_w"]))
PY
tar -C "$OUT" -czf "$OUT/runs.tar.gz" runs methods.yaml
rm -rf "$OUT/runs"
echo "== $(date -u +%T) done: $OUT/summary.txt, $OUT/runs.tar.gz, $OUT/signing.pub.pem"
exit $rc
