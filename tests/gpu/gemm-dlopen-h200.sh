#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench-gemm loads cuBLASLt when a GPU case first needs it (runners/gemm/gemm_blaslt.c, lt_load) instead of linking
# it. On a lent H200, one source built twice: as committed ("lazy") and linked with -lcublasLt as well ("linked":
# the library loaded at every start, as before); then in one call (1) each runner's start without a case (--config
# of a file that does not exist), 20 times, its CPU time and page faults; (2) the llama70b GEMM cases (bf16, fp8;
# tn) of manifests/h200-cublaslt-toolkit.yaml with each, in the order lazy linked linked lazy, the figures side by
# side and `bench compare` of the lazy runs against the linked ones, and which libcublasLt each run's records loaded.
# Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout: sh tests/gpu/gemm-dlopen-h200.sh
# $OUT gets dlopen-summary.txt.
set -eu
FINAL=${OUT:-gpu-out}
mkdir -p "$FINAL"
W=$(mktemp -d)
here=$(pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here"
BENCH="$here/.carry/bench/bench"
CU=/usr/local/cuda
S=$FINAL/dlopen-summary.txt
: >"$S"
say() { echo "$@" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv | tee -a "$S"
for v in lazy linked; do
	rm -rf "build/gpu-$v"
	if [ "$v" = linked ]; then
		# (--no-as-needed: the linker would drop a library nothing references by symbol)
		set -- "GPU_LIBS=-L$CU/lib64 -Wl,--enable-new-dtags,-rpath,$CU/lib64 -Wl,--no-as-needed -lcublasLt -Wl,--as-needed -lcudart -lstdc++ -ldl"
	else
		set --
	fi
	make "BUILD=build/gpu-$v" "build/gpu-$v/runners/bench-gemm" HAVE_CBLAS=0 \
		NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
		JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" "$@" >"$W/build-$v.log" 2>&1 ||
		{ tail -30 "$W/build-$v.log"; exit 1; }
	say "$v: NEEDED $(readelf -d "build/gpu-$v/runners/bench-gemm" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
done

# (1) the start: CPU time and page faults of 20 starts, each runner, alternated
python3 - "$here/build/gpu-lazy/runners/bench-gemm" "$here/build/gpu-linked/runners/bench-gemm" <<'PY' | tee -a "$S"
import resource, subprocess, sys
tot = {p: [0.0, 0] for p in sys.argv[1:]}
for i in range(20):
    for p in (sys.argv[1:] if i % 2 == 0 else sys.argv[:0:-1]):
        a = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([p, "--config", "/nonexistent"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        tot[p][0] += (b.ru_utime + b.ru_stime) - (a.ru_utime + a.ru_stime)
        tot[p][1] += b.ru_minflt - a.ru_minflt
for p, (cpu, flt) in tot.items():
    print(f"start without a case, mean of 20: {p.split('/')[-3]}: {cpu / 20 * 1000:.1f} ms CPU, {flt / 20:.0f} page faults")
PY

# (2) the cases: lazy linked linked lazy
cp manifests/h200-cublaslt-toolkit.yaml "$W/m.yaml"
"$BENCH" lock "$W/m.yaml" >/dev/null 2>"$W/lock.err" || { cat "$W/lock.err"; exit 1; }
i=0
for v in lazy linked linked lazy; do
	i=$((i + 1))
	t0=$(date +%s)
	BENCH_RUNNERS="$here/build/gpu-$v/runners" "$BENCH" run -q -s gemm --no-pack -o "$W/runs-$v" "$W/m.yaml" \
		>"$W/run$i.out" 2>"$W/run$i.err" || { say "run $i ($v) failed"; tail -5 "$W/run$i.err" | tee -a "$S"; }
	say "run $i: $v, $(($(date +%s) - t0)) s"
done
python3 - "$W" <<'PY' | tee -a "$S"
import glob, json, os, sys
w = sys.argv[1]
rows = {}
for v in ("lazy", "linked"):
    for d in sorted(glob.glob(os.path.join(w, f"runs-{v}", "*/"))):
        lib = None
        for line in open(os.path.join(d, "results", "gemm.jsonl")):
            r = json.loads(line)
            rows.setdefault(r["case"], {}).setdefault(v, []).append(r.get("value") if r["status"] == "ok" else r["status"])
            lt = [l for l in r.get("loaded", []) if l["soname"].startswith("libcublasLt")]
            lib = lt[0] if lt else lib
        print(f"{v} {os.path.basename(d.rstrip('/'))}: loaded", lib and (lib["path"], lib.get("version"), (lib.get("sha256") or "")[:16]))
print(f"{'case':48s} {'lazy (TFLOP/s)':>22s} {'linked (TFLOP/s)':>22s}")
for c, s in rows.items():
    f = lambda xs: " ".join(f"{x:.1f}" if isinstance(x, float) else str(x) for x in xs)
    print(f"{c:48s} {f(s.get('lazy', [])):>22s} {f(s.get('linked', [])):>22s}")
PY
"$BENCH" compare "$W"/runs-lazy/*/ --vs "$W"/runs-linked/*/ 2>&1 | head -40 | tee -a "$S" || true
