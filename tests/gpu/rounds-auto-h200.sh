#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 32 item 8 on one H200: `bench run --rounds auto --detect 3%` (about 5 to 6 minutes of GPU time). Carry
# .carry (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/rounds-auto-h200.sh
# Three sets of interleaved runs, GEMM blaslt bf16 tn, six shapes (two of manifests/h200-host.yaml's llama70b shapes
# and four long-K shapes where cuBLASLt splits K), warmup 30ms, rep 100ms:
#   (1) A/A: the same manifest twice, --rounds auto --detect 3% --max-rounds 10 --max-time 80s;
#   (2) A/B: B is A with a 1 KiB BLAS workspace (no room for split-K partials: the long-K shapes run slower, by
#       about 7% for 1024x1024x65536 and 1.5% for 2048x2048x32768 in the runs of docs/results/data/
#       2026-12-01-h200-splitk; the llama70b shapes should not move), same options as (1);
#   (3) the change measured independently: A and B alternately for a fixed 8 rounds, compared at alpha 0.01.
# It prints each set's rounds, stop reason and verdicts, then per case the independent ratio beside the auto A/B's,
# and writes everything into $OUT/rounds-auto.tar.gz (summary.txt, the three sets' run directories with their
# rounds.json, their signed bundles, compare outputs in text and json, logs, signing.pub.pem, gpu.txt).
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
here=$(pwd)
W="$OUT/rounds-auto"
rm -rf "$W"
mkdir -p "$W"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# BENCH, BENCH_RUNNERS and NO_BUILD=1 (runners already there) only to try the script elsewhere
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="${BENCH_RUNNERS:-$here/build/runners}"
BENCH=${BENCH:-"$here/.carry/bench/bench"}
if [ ! -x "$BENCH" ]; then
	echo "no $BENCH: run tests/gpu/prepare-carry.sh here and carry .carry" >&2
	exit 2
fi
pack() {
	tar -C "$OUT" -czf "$OUT/rounds-auto.tar.gz" rounds-auto
	echo "== $(date -u +%T) $OUT/rounds-auto.tar.gz"
}
echo "== $(date -u +%T) GPU" | tee "$W/summary.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv |
	tee "$W/gpu.txt"
echo "== $(date -u +%T) building bench-gemm (this checkout's sources)"
t0=$(date +%s)
if [ "${NO_BUILD:-0}" != 1 ] && ! make build/runners/bench-gemm HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$W/build.log" 2>&1; then
	tail -30 "$W/build.log"
	pack
	exit 1
fi
echo "bench-gemm built in $(( $(date +%s) - t0 )) s"
shapes='[[16384, 8192, 1280], [8192, 8192, 8192], [1024, 1024, 65536], [1024, 1024, 32768], [2048, 1024, 65536], [2048, 2048, 32768]]'
for m in a b; do
	ws=
	[ $m = b ] && ws=', workspace: 1KiB'
	cat >"$W/$m.yaml" <<Y
bench: 1
name: rauto-$m
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
stack:
  env: {NCCL_NVLS_ENABLE: "0", TORCH_SYMM_MEM_DISABLE_MULTICAST: "1", NVSHMEM_DISABLE_NVLS: "1"}
runtime: {engine: host, launcher: local, timeout: 10m}
suites:
  gemm: {backends: [blaslt], dtypes: [bf16], layouts: [tn], shapes: $shapes, warmup: 30ms, rep: 100ms$ws}
Y
done
# one set: name, bench run options...; its runs under $W/name, stdout and stderr beside
set_run() {
	name=$1
	shift
	echo "== $(date -u +%T) ($name) bench run $*" | tee -a "$W/summary.txt"
	t0=$(date +%s)
	rc=0
	"$BENCH" run -o "$W/$name" "$@" >"$W/$name.out" 2>"$W/$name.err" || rc=$?
	echo "($name) exit $rc in $(( $(date +%s) - t0 )) s" | tee -a "$W/summary.txt"
	grep -E "^bench: (look|rounds auto)|^  .* vs |^verdicts|error" "$W/$name.err" | tee -a "$W/summary.txt"
}
# the runs of a set, its stacks' directories in order (compare groups them by their interleave set)
runs_of() { ls -d "$W/$1"/rauto-*/ 2>/dev/null | sed 's:/$::' | sort; }
set_run aa --rounds auto --detect 3% --max-rounds 10 --max-time 80s "$W/a.yaml" "$W/a.yaml"
set_run ab --rounds auto --detect 3% --max-rounds 10 --max-time 80s "$W/a.yaml" "$W/b.yaml"
set_run fixed --rounds 8 "$W/a.yaml" "$W/b.yaml"
for s in aa ab fixed; do
	# shellcheck disable=SC2046 # the run list splits on purpose
	"$BENCH" compare --format json $(runs_of $s) >"$W/compare-$s.json" 2>"$W/compare-$s.err"
	# shellcheck disable=SC2046
	"$BENCH" compare $(runs_of $s) >"$W/compare-$s.txt" 2>&1
done
cp "$BENCH_HOME/signing.pub.pem" "$W/" 2>/dev/null || echo "no signing.pub.pem under $BENCH_HOME"
echo "== $(date -u +%T) tables" | tee -a "$W/summary.txt"
python3 - "$W" <<'PY' | tee -a "$W/summary.txt"
import glob, json, os, sys
w = sys.argv[1]
def load(p):
    try:
        return json.load(open(p))
    except Exception as e:
        return None
for s in ("aa", "ab"):
    rj = sorted(glob.glob(os.path.join(w, s, "rauto-*", "rounds.json")))
    if not rj:
        print("(%s) no rounds.json" % s)
        continue
    r = load(rj[0])
    same = all(open(p).read() == open(rj[0]).read() for p in rj)
    print("(%s) rounds %d, stop: %s (%s); design: level %.4g = alpha %g / %d looks; rounds.json in %d runs, %s" % (
        s, r["rounds"], r["stop"]["reason"], r["stop"]["why"], r["design"]["level"], r["design"]["alpha"],
        r["design"]["looks"], len(rj), "identical" if same else "DIFFERENT"))
    for lk in r["looks"]:
        print("   look %d after round %d (%.0f s): largest 97.5%%-power change %s, %d of %d cases above 3%%: %s" % (
            lk["look"], lk["round"], lk["elapsed_s"],
            "%.2f%%" % (100 * lk["resolvable_975"]) if lk["resolvable_975"] is not None else "n/a",
            lk["cases_above_target"], lk["cases_compared"], lk["decision"]))
    v = r.get("verdicts") or {}
    for line in v.get("summary", []):
        print("   verdicts (level %.4g): %s" % (v["level"], line))
print()
fx, ab = load(os.path.join(w, "compare-fixed.json")), load(os.path.join(w, "compare-ab.json"))
print("per case: the change measured independently (fixed 8 rounds, alpha %s) beside the auto A/B (alpha %s)" % (
    fx and fx.get("alpha"), ab and ab.get("alpha")))
print("%-40s %8s %17s %10s | %8s %17s %10s" % ("case", "fixed", "95% CI", "verdict", "auto", "95% CI", "verdict"))
def row(d):
    out = {}
    for c in (d or {}).get("cases", []):
        o = c["others"][0]
        out[c["case"]] = o
    return out
F, A = row(fx), row(ab)
for k in sorted(set(F) | set(A)):
    f, a = F.get(k, {}), A.get(k, {})
    fmt = lambda o: ("%8.4f" % o["ratio"] if "ratio" in o else "%8s" % "-",
                     "[%.4f, %.4f]" % tuple(o["ci95"]) if "ci95" in o else "-", o.get("verdict", "-"))
    print("%-40s %8s %17s %10s | %8s %17s %10s" % ((k,) + fmt(f) + fmt(a)))
for s in ("aa", "ab", "fixed"):
    d = load(os.path.join(w, "compare-%s.json" % s))
    if d:
        print("(%s) bench compare: alpha %s, counts %s, power_975 %s" % (s, d.get("alpha"), d.get("counts"),
              (d.get("resolution") or {}).get("power_975")))
PY
for b in "$W"/*/*.bench.tar.gz; do
	[ -f "$b" ] || continue
	if ! "$BENCH" verify -k "$W/signing.pub.pem" "$b" >>"$W/verify.txt" 2>&1; then
		echo "verify $(basename "$b"): FAILED" | tee -a "$W/summary.txt"
	fi
	tar -tzf "$b" | grep -q '/rounds.json$' && echo "$(basename "$b")" >>"$W/bundles-with-rounds.txt"
done
echo "bundles verified: $(ls "$W"/*/*.bench.tar.gz 2>/dev/null | wc -l) (failures above if any); with rounds.json: $(wc -l <"$W/bundles-with-rounds.txt" 2>/dev/null || echo 0)" |
	tee -a "$W/summary.txt"
pack
