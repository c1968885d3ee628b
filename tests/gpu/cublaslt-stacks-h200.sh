#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 29's one-H200 bar: the machine's two cuBLASLt builds — the CUDA toolkit's and the one PyTorch's wheel carries
# (nvidia-cublas) — as two host stacks (manifests/h200-cublaslt-toolkit.yaml, h200-cublaslt-wheel.yaml), with an A/A
# control (the toolkit's again, as a third stack): bench run --rounds 3 of the llama70b GEMM suite (bf16 and fp8,
# tn), interleaved ABC/CBA/ABC, then bench compare: the toolkit vs the wheel, and the toolkit vs itself.
# Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout: sh tests/gpu/cublaslt-stacks-h200.sh
# ROUNDS=N overrides the rounds. $OUT gets summary.txt (what is printed) and all.tar.gz (runs, manifests, locks,
# compare outputs in text and JSON).
set -eu
FINAL=${OUT:-gpu-out}
OUT=$(mktemp -d)
ROUNDS=${ROUNDS:-3}
mkdir -p "$FINAL"
here=$(pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv | tee "$OUT/gpu.txt"
rm -f build/runners/bench-gemm # never a runner left from an older tree
if :; then
	make build/runners/bench-gemm HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
		JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
		JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log"; exit 1; }
fi
readelf -d build/runners/bench-gemm | grep -E 'RPATH|RUNPATH' | tee "$OUT/runpath.txt"
# the two cuBLASLt: where each is, its size, sha256 and version
TK=/usr/local/cuda
# the wheel's: nvidia/cublas/lib (CUDA 12 wheels) or nvidia/cu13/lib (CUDA 13 wheels); the prefix is lib's parent
SP=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
WH=$(dirname "$(dirname "$(find "$SP/nvidia" -name 'libcublasLt.so*' | head -n 1)")")
echo "the wheel's cuBLASLt prefix: $WH"
{ for f in "$TK"/lib64/libcublasLt.so.* "$TK"/lib/libcublasLt.so.* "$WH"/lib/libcublasLt.so.*; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	echo "$f $(stat -c %s "$f") $(sha256sum "$f" | cut -c1-16)"
  done
  python3 -m pip list 2>/dev/null | grep -iE '^(nvidia-cublas|torch) '
  nvcc --version | tail -2; } | tee "$OUT/libs.txt"
M="$OUT/manifests"
mkdir -p "$M"
cp manifests/h200-cublaslt-toolkit.yaml "$M/toolkit.yaml"
sed "s|path: /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13,|path: $WH,|" manifests/h200-cublaslt-wheel.yaml >"$M/wheel.yaml"
sed 's/name: h200-cublaslt-toolkit/name: h200-cublaslt-toolkit-aa/' manifests/h200-cublaslt-toolkit.yaml >"$M/toolkit-aa.yaml"
for m in toolkit wheel toolkit-aa; do "$BENCH" lock "$M/$m.yaml" 2>>"$OUT/lock.err" >/dev/null; done
cat "$OUT/lock.err"
t0=$(date +%s)
set +e
"$BENCH" run -o "$OUT/runs" --rounds "$ROUNDS" "$M/toolkit.yaml" "$M/wheel.yaml" "$M/toolkit-aa.yaml" >"$OUT/run.out" 2>"$OUT/run.err"
rc=$?
set -e
echo "bench run --rounds $ROUNDS: exit $rc in $(( $(date +%s) - t0 )) s"
grep -E "error|failed|skipped|warning" "$OUT/run.err" | head -20 || true
cd "$OUT"
A=$(ls -d runs/h200-cublaslt-toolkit-2*/) B=$(ls -d runs/h200-cublaslt-wheel-*/) C=$(ls -d runs/h200-cublaslt-toolkit-aa-*/)
"$BENCH" compare $A --vs $B >compare-wheel.txt 2>&1 || true
"$BENCH" compare -f json $A --vs $B >compare-wheel.json 2>/dev/null || true
"$BENCH" compare $A --vs $C >compare-aa.txt 2>&1 || true
"$BENCH" compare -f json $A --vs $C >compare-aa.json 2>/dev/null || true
cat compare-wheel.txt | head -40
grep -E "gemm " compare-aa.txt | head -12
python3 - <<'PY' | tee per-round.txt
import glob, json
for d in sorted(glob.glob("runs/*/")):
    st = json.load(open(d + "status.json"))
    il = st.get("interleave", {})
    lib = None
    for line in open(d + "results/gemm.jsonl"):
        r = json.loads(line)
        lt = [l for l in r.get("loaded", []) if l["soname"].startswith("libcublasLt")]
        if lt:
            lib = lt[0]
        print(d.split("/")[1][:40], il.get("round"), il.get("position"), r["case"], r["status"], round(r.get("value") or 0, 1))
    print("  loaded:", lib and (lib["path"], lib.get("version"), (lib.get("sha256") or "")[:16], lib.get("component")))
PY
cp "$BENCH_HOME/signing.pub.pem" "$OUT/" 2>/dev/null || true # the bundles verify with it: bench verify -k signing.pub.pem
cd "$OUT" && tar czf "$FINAL/all.tar.gz" .
