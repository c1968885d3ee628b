#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 36's bar: all_reduce under env_matrix NCCL_ALGO [Ring, Tree] x NCCL_PROTO [LL, Simple], each record with
# the algorithm and protocol NCCL says it ran (extra.ccl_effective), and one cell NCCL overrides flagged
# env-not-effective (NCCL_MIN_NCHANNELS=112: NCCL limits it to its 64 channels).
#   2+ GPUs: bench run of tests/gpu/h200x2-ccl-effective.yaml (the matrix) and of a copy whose stack asks for 112
#            channels (the override); every record's effective algorithm/protocol is checked against the cell
#            (equal, or not_effective names the variable), and summary.json's findings against not_effective.
#   1 GPU:   bench refuses a one-rank collective, so bench-coll (built here) runs the same cells and sizes as
#            one-rank cases files, as bench would hand them to it. NCCL runs a one-rank communicator as a local
#            copy and prints no TUNING line: every record must say so (collectives_why "not reported (one
#            rank)", NCCL_ALGO and NCCL_PROTO under not_judged) and none may list them as not effective; the
#            override cell must still list NCCL_MIN_NCHANNELS (the channel count is printed at init).
# Under 3 minutes. Writes $OUT/nccl-envmatrix.tar.gz (runs/ or records/, ccl-logs/, cases-*.json, checks.txt,
# summary.txt, runner-build.log, nvidia-smi.txt) and prints the summary; exits 1 when a check fails.
# Carry .carry (tests/gpu/prepare-carry.sh).  Run: sh tests/gpu/nccl-envmatrix-h200.sh
set -eu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W="$OUT/nccl-envmatrix"
rm -rf "$W"
mkdir -p "$W/ccl-logs"
here=$(pwd)
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BENCH="$here/.carry/bench/bench"
M=tests/gpu/h200x2-ccl-effective.yaml
nvidia-smi -L >"$W/nvidia-smi.txt" 2>&1 || true
nvidia-smi topo -m >>"$W/nvidia-smi.txt" 2>&1 || true
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
echo "GPUs: $NGPU" | tee "$W/summary.txt"
rm -f build/runners/bench-coll
make build/runners/bench-coll HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$W/runner-build.log" 2>&1 || {
	tail -30 "$W/runner-build.log"
	(cd "$OUT" && tar czf nccl-envmatrix.tar.gz nccl-envmatrix)
	exit 1
}
set +e
if [ "${NGPU:-0}" -ge 2 ]; then
	mode=bench
	# the override: the same suite at one size, the stack asking for more channels than NCCL has
	sed -e 's/name: h200x2-ccl-effective/name: h200x2-ccl-override/' \
		-e 's/env: {NCCL_NVLS_ENABLE: "0",/env: {NCCL_MIN_NCHANNELS: "112", NCCL_NVLS_ENABLE: "0",/' \
		-e 's/min_bytes: 8B/min_bytes: 1MiB/' -e 's/max_bytes: 256MiB/max_bytes: 1MiB/' \
		-e '/env_matrix:/,$d' "$M" >"$W/override.yaml"
	"$BENCH" run -q -o "$W/runs" "$M" >"$W/run-matrix.out" 2>&1
	echo "bench run (matrix): exit $?" | tee -a "$W/summary.txt"
	"$BENCH" run -q -o "$W/runs" "$W/override.yaml" >"$W/run-override.out" 2>&1
	echo "bench run (override): exit $?" | tee -a "$W/summary.txt"
	for d in "$W"/runs/*/; do
		"$BENCH" show "$d" >"$d/../$(basename "$d").show.txt" 2>&1
		cp "$d"/logs/*.ccl*.log "$W/ccl-logs/" 2>/dev/null
	done
else
	mode=runner
	mkdir -p "$W/records"
	cases() { # log-prefix
		printf '{"schema": "bench.cases/v1", "suite": "collectives", "ranks": 1, "ccl_log": "%s", "cases": [' "$1"
		sep=
		for b in 8 128 2048 32768 524288 8388608 134217728; do
			printf '%s\n {"suite": "collectives", "case": "all_reduce/bf16/%sB/out-of-place/r1n1", "params": {"backend": "nccl", "op": "all_reduce", "dtype": "bf16", "bytes": %s, "placement": "out-of-place", "warmup_iters": 5, "iters": 100}}' "$sep" "$b" "$b"
			sep=,
		done
		printf ']}\n'
	}
	cell() { # name VAR=VALUE...
		n=$1
		shift
		cases "$W/ccl-logs/$n.ccl" >"$W/cases-$n.json"
		env "$@" build/runners/bench-coll --config "$W/cases-$n.json" >"$W/records/$n.jsonl" 2>"$W/records/$n.err"
		echo "bench-coll $n: exit $?" | tee -a "$W/summary.txt"
	}
	for a in Ring Tree; do
		for p in LL Simple; do
			cell "algo-$a-proto-$p" NCCL_ALGO=$a NCCL_PROTO=$p
		done
	done
	cell override-minch-112 NCCL_ALGO=Tree NCCL_PROTO=LL NCCL_MIN_NCHANNELS=112
fi
python3 - "$W" "$mode" >"$W/checks.txt" 2>&1 <<'PY'
import glob, json, os, sys
w, mode = sys.argv[1], sys.argv[2]
fails = []
def norm(s): return "".join(ch for ch in (s or "").lower() if ch.isalnum())
def records():
    if mode == "bench":
        for run in sorted(glob.glob(w + "/runs/*/")):
            summ = json.load(open(run + "summary.json")) if os.path.exists(run + "summary.json") else {}
            for f in glob.glob(run + "results/collectives.jsonl"):
                for l in open(f):
                    yield os.path.basename(run.rstrip("/")), json.loads(l), summ
    else:
        for f in sorted(glob.glob(w + "/records/*.jsonl")):
            for l in open(f):
                yield os.path.basename(f)[:-6], json.loads(l), None
n = 0
for src, r, summ in records():
    n += 1
    e = r.get("extra", {}).get("ccl_effective", {})
    env = dict(r.get("params", {}).get("env") or {})
    if mode == "runner":  # the cell's variables are the process's, named in the file
        parts = src.split("-")
        if src.startswith("algo-"): env = {"NCCL_ALGO": parts[1], "NCCL_PROTO": parts[3]}
        else: env = {"NCCL_ALGO": "Tree", "NCCL_PROTO": "LL", "NCCL_MIN_NCHANNELS": "112"}
    elif "override" in src:
        env["NCCL_MIN_NCHANNELS"] = "112"
    ne = {m["variable"]: m for m in e.get("not_effective", [])}
    nj = {m["variable"]: m for m in e.get("not_judged", [])}
    ran = [(c.get("algorithm"), c.get("protocol"), c.get("channels"), c.get("calls")) for c in e.get("collectives", [])]
    print(f"{src:34s} {r['case']:48s} {r['status']:7s} v{e.get('version')} nranks={e.get('nranks')} ch={(e.get('channels') or {}).get('coll')}"
          f" | ran {ran or e.get('collectives_why')} | not_effective {sorted(ne)} | not_judged {sorted(nj)}")
    if r["status"] != "ok":
        fails.append(f"{src} {r['case']}: status {r['status']}: {r.get('error') or r.get('why') or ''}")
        continue
    if e.get("captured") is not True: fails.append(f"{src} {r['case']}: log not captured: {e.get('why')}")
    if mode == "runner":
        if ran: fails.append(f"{src} {r['case']}: one rank, yet TUNING lines were parsed")
        if not (e.get("collectives_why") or "").startswith("not reported (one rank)"):
            fails.append(f"{src} {r['case']}: collectives_why is {e.get('collectives_why')!r}")
        for v in ("NCCL_ALGO", "NCCL_PROTO"):
            if v in ne: fails.append(f"{src} {r['case']}: {v} claimed not effective without a TUNING line")
            if v not in nj or not nj[v]["why"].startswith("not reported (one rank)"):
                fails.append(f"{src} {r['case']}: {v} not listed as not judged (one rank)")
    else:
        if not ran: fails.append(f"{src} {r['case']}: no TUNING line for the case")
        for var, k in (("NCCL_ALGO", 0), ("NCCL_PROTO", 1)):
            if var not in env: continue
            ok = all(norm(x[k]) == norm(env[var]) for x in ran)
            if not ok and var not in ne:
                fails.append(f"{src} {r['case']}: asked {var}={env[var]}, ran {ran}, not flagged")
            if ok and var in ne:
                fails.append(f"{src} {r['case']}: {var} flagged though it ran as asked")
        if summ is not None:
            fired = {f["numbers"]["variable"] for f in summ.get("findings", [])
                     if f.get("id") == "env-not-effective" and f.get("case") == r["case"]}
            if fired != set(ne): fails.append(f"{src} {r['case']}: findings {sorted(fired)} != not_effective {sorted(ne)}")
    if "NCCL_MIN_NCHANNELS" in env and "NCCL_MIN_NCHANNELS" not in ne:
        fails.append(f"{src} {r['case']}: NCCL_MIN_NCHANNELS=112 with {(e.get('channels') or {}).get('coll')} coll channels, not flagged")
print(f"{n} records ({mode}); {len(fails)} failed checks")
for f in fails: print("FAIL", f)
sys.exit(1 if fails or n == 0 else 0)
PY
rc=$?
cat "$W/checks.txt"
if [ "$mode" = bench ]; then grep -h "env-not-effective" "$W"/runs/*.show.txt >>"$W/summary.txt"; fi
tail -1 "$W/checks.txt" >>"$W/summary.txt"
grep '^FAIL' "$W/checks.txt" | head -20 >>"$W/summary.txt"
echo "== summary"
cat "$W/summary.txt"
(cd "$OUT" && tar czf nccl-envmatrix.tar.gz nccl-envmatrix) && rm -rf "$W"
ls -la "$OUT/nccl-envmatrix.tar.gz"
exit $rc
