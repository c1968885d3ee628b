#!/bin/sh
# Topology on a two-GPU H200 host (not run by `make test`): bench's collectives with send_recv, pairs: all and
# group_sizes [1, 2] (tests/gpu/h200x2-topology.yaml: a thread per GPU; -mpirun.yaml: one rank per GPU when the
# machine has MPI), beside nccl-tests' sendrecv_perf built from a carried source tree (NCCL_TESTS, default
# .carry/nccl-tests; never committed) when there is one. Prints the send_recv busbw of both side by side, the p2p
# matrix and the group records' status, and writes the report. Results in $OUT.
#   [NCCL_TESTS=/path/to/nccl-tests] [OUT=gpu-out] BENCH=./bench sh tests/gpu/topology-h200x2.sh
set -u
OUT=${OUT:-gpu-out}
BENCH=${BENCH:-./bench}
NT=${NCCL_TESTS:-.carry/nccl-tests}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUT"
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
make -j16 bench >/tmp/bench-build.log 2>&1 || { tail -20 /tmp/bench-build.log; exit 1; }
make runners NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/runners-build.log 2>&1 || { tail -20 /tmp/runners-build.log; exit 1; }
ARGS="-b 16M -e 4G -f 4 -w 5 -n 100 -d bfloat16 -c 1"
if [ -f "$NT/Makefile" ]; then
	if make -j16 -C "$NT" MPI=0 CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} NCCL_HOME=${NCCL_HOME:-/usr} \
		NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/nt-build.log 2>&1; then
		"$NT/build/sendrecv_perf" $ARGS -g 2 >"$OUT/nccl-tests-sendrecv.txt" 2>&1
	else
		echo "nccl-tests did not build:"; tail -5 /tmp/nt-build.log
	fi
else
	echo "no nccl-tests source at $NT: bench's side alone"
fi
rm -rf /tmp/topo-runs
"$BENCH" run -o /tmp/topo-runs tests/gpu/h200x2-topology.yaml >"$OUT/bench-run.txt" 2>&1
echo "bench run (a thread per GPU): exit $?"
if command -v mpirun >/dev/null; then
	"$BENCH" run -o /tmp/topo-runs tests/gpu/h200x2-topology-mpirun.yaml >"$OUT/bench-run-mpirun.txt" 2>&1
	echo "bench run (mpirun -np 2): exit $?"
fi
for d in /tmp/topo-runs/*/; do
	cp "$d/results/collectives.jsonl" "$OUT/$(basename "$d").jsonl"
done
"$BENCH" report -o "$OUT/report" /tmp/topo-runs/*/ >"$OUT/report.txt" 2>&1
python3 - "$OUT" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
nt = {}
p = os.path.join(out, "nccl-tests-sendrecv.txt")
if os.path.exists(p):
    for line in open(p):
        f = line.split()
        # size count type redop root | out-of-place: time algbw busbw #wrong | in-place ...
        if len(f) >= 9 and re.fullmatch(r"\d+", f[0]):
            nt[int(f[0])] = (float(f[7]), f[8])
for path in sorted(glob.glob(os.path.join(out, "h200x2-topology*.jsonl"))):
    recs = [json.loads(l) for l in open(path)]
    print("#", os.path.basename(path), len(recs), "records,",
          sum(r["status"] == "ok" for r in recs), "ok")
    for r in recs:
        p, e = r["params"], r.get("extra") or {}
        if r["status"] != "ok":
            print("  %-50s %s: %s" % (r["case"], r["status"], r.get("error")))
        elif p["op"] == "send_recv" and "group_size" not in p:
            ref = nt.get(e["bytes"])
            print("  %-50s busbw %7.2f GB/s  nccl-tests %s  wrong %d" % (
                r["case"], r["value"], "%.2f (#wrong %s)" % ref if ref else "-", e["wrong"]))
        elif p["op"] == "p2p":
            print("  %-50s %d->%d busbw %7.2f GB/s  latency %.2f us" % (r["case"], e["src"], e["dst"], r["value"], e["latency_us"]))
        elif "group_size" in p:
            print("  %-50s ranks %s busbw %7.2f GB/s  wrong %d" % (r["case"], e["group_ranks"], r["value"], e["wrong"]))
PY
grep -c 'class="p2p-cell"' "$OUT/report/index.html" | sed 's/^/heat-map cells in the report: /'
