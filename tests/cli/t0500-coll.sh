#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench-coll, backend mpi, under mpirun with 2 and 4 ranks (as root, oversubscribed): every op, dtype and
# placement; the data check passes, and catches a planted wrong element; records follow the schema and say why
# they carry no telemetry and no energy (host buffers).
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS to the runners directory}
mpi_env
[ -n "$MPIRUN" ] || { not_ok "mpirun is not installed"; finish; exit 1; }

check_records() { # file nranks expected-count
	python3 - "$@" <<'PY'
import json, sys
path, n, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recs = [json.loads(l) for l in open(path)]
assert len(recs) == want, (len(recs), want)
factor = {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n,
          "all_to_all": (n - 1) / n, "broadcast": 1.0}
for r in recs:
    assert r["schema"] == "bench.result/v1" and r["suite"] == "collectives", r
    assert r["status"] == "ok", (r["case"], r["error"])
    e = r["extra"]
    assert e["nranks"] == n and e["wrong"] == 0 and e["check"] == "ok", e
    op = r["params"]["op"]
    assert abs(e["bus_factor"] - factor[op]) < 1e-12
    # nccl-tests' figures: algbw = S / time_us, busbw = algbw x factor
    assert abs(e["algbw_gbps"] - e["bytes"] / (e["time_us"] * 1e-6) / 1e9) < 1e-6 * e["algbw_gbps"]
    assert abs(e["busbw_mean_gbps"] - e["algbw_gbps"] * factor[op]) <= 1e-7 * max(1e-9, e["busbw_mean_gbps"])
    assert r["value"] == r["stats"]["median"] and len(r["samples_ms"]) == r["params"]["iters"]
    assert e["in_place"] == (r["params"]["placement"] == "in-place")
    assert e.get("call") == ("MPI_Alltoall" if op == "all_to_all" else None), e.get("call")
    # no telemetry on the CPU: the record says so, and so its energy does
    assert e["telemetry"] == {"available": False, "why": "no telemetry on the CPU (backend mpi: host buffers)"}, e.get("telemetry")
    assert e["energy"] == {"available": False, "why": e["telemetry"]["why"]}, e.get("energy")
print("ok")
PY
}

for n in 2 4; do
	cat >"$T/m$n.yaml" <<Y
bench: 1
name: coll$n
target: {vendor: cpu, gpus_per_node: $n}
runtime: {engine: host}
suites:
  collectives: {backend: mpi, ops: [all_reduce, all_gather, reduce_scatter, all_to_all, broadcast],
                min_bytes: 4KiB, max_bytes: 256KiB, factor: 8, sizes: [1000], dtype: fp32, warmup_iters: 1, iters: 4, root: 1}
Y
	"$BENCH" plan --json "$T/m$n.yaml" >"$T/c$n.json"
	expect 0 "mpirun -np $n bench-coll: every op, fp32, both placements" "$MPIRUN" $MPIOPTS -np "$n" "$R/bench-coll" --config "$T/c$n.json"
	cp "$T/out" "$T/r$n.jsonl"
	[ "$(check_records "$T/r$n.jsonl" "$n" 40)" = ok ] && ok "$n ranks: 40 records, data check passed, schema and formulas hold" || not_ok "$n ranks records"
done
for dt in bf16 fp16; do
	sed "s/dtype: fp32/dtype: $dt/" "$T/m4.yaml" >"$T/m-$dt.yaml"
	"$BENCH" plan --json "$T/m-$dt.yaml" >"$T/c-$dt.json"
	expect 0 "mpirun -np 4, $dt sums through the user reduction" "$MPIRUN" $MPIOPTS -np 4 "$R/bench-coll" --config "$T/c-$dt.json"
	cp "$T/out" "$T/r-$dt.jsonl"
	[ "$(check_records "$T/r-$dt.jsonl" 4 40)" = ok ] && ok "$dt: data check exact" || not_ok "$dt records"
done

# samples: the timed loop cut into batches (7 iterations, 3 samples: 3 + 3 + 1), clocks read between batches only
sed "s/iters: 4, root: 1}/iters: 7, samples: 3, root: 1}/; s/ops: \[[a-z_, ]*\]/ops: [all_reduce]/" "$T/m2.yaml" >"$T/ms.yaml"
"$BENCH" plan --json "$T/ms.yaml" >"$T/cs.json"
expect 0 "mpirun -np 2, 7 iterations in 3 samples" "$MPIRUN" $MPIOPTS -np 2 "$R/bench-coll" --config "$T/cs.json"
if python3 - "$T/out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 8, len(recs)  # 4 sizes x 2 placements
for r in recs:
    s, e = r["samples_ms"], r["extra"]
    assert r["status"] == "ok" and len(s) == 3 and e["iters_per_sample"] == 3 and r["stats"]["n"] == 3, r
    # each sample is its batch's mean iteration time: weighted by batch length they sum to the loop
    loop = (s[0] * 3 + s[1] * 3 + s[2] * 1) / 7 * 1e3
    assert abs(loop - e["time_us"]) <= 1e-6 * e["time_us"], (loop, e["time_us"])
PY
then ok "samples are batch means that add up to nccl-tests' loop time"; else not_ok "samples"; show "$T/out"; fi

BENCH_FAULT=coll-wrong expect 0 "a planted wrong element still ends the runner cleanly" "$MPIRUN" $MPIOPTS -x BENCH_FAULT -np 2 "$R/bench-coll" --config "$T/c2.json"
if python3 - "$T/out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs and all(r["status"] == "failed" and r["extra"]["wrong"] == 1 and "data check" in r["error"] for r in recs)
PY
then ok "the data check catches one wrong element in every case"; else not_ok "planted fault not caught"; show "$T/out"; fi

# through bench run: launcher local starts mpirun -np 2 for backend mpi
expect 0 "bench run with collectives (mpi, 2 ranks)" "$BENCH" run -q -o "$T/runs" "$T/m2.yaml"
D=$(head -n 1 "$T/out")
grep -q -- "-np 2" "$D/logs/collectives.log" && ok "the runner was started with mpirun -np 2" || not_ok "no mpirun in log"
BENCH_FAULT=coll-wrong expect 7 "bench run exits 7 when the data check fails" "$BENCH" run -q -o "$T/runs" "$T/m2.yaml"

# the collectives as nccl-tests tables: at the end of bench run (stderr) and in bench show, every figure as its record has it
TC=$(dirname "$0")/terminal_check.py
expect 0 "bench run with its summary (collectives, 2 ranks)" "$BENCH" run -o "$T/runs3" "$T/m2.yaml"
D3=$(head -n 1 "$T/out")
expect_err "#       size         count      type      time   algbw   busbw #wrong      time   algbw   busbw #wrong"
n=$(python3 "$TC" coll "$T/err" "$D3"/results/collectives.jsonl 2>"$T/tc") &&
	ok "bench run: the nccl-tests tables hold each of the $n records' size, count, time, algbw, busbw, #wrong" ||
	{ not_ok "bench run: nccl-tests tables"; show "$T/tc"; }
for op in all_reduce all_gather reduce_scatter all_to_all broadcast; do
	grep -q "^# $op, 2 ranks on 1 node$" "$T/err" && ok "bench run: a table for $op" || not_ok "bench run: no table for $op"
done
expect 0 "bench show of that bundle" "$BENCH" show "$(sed -n 2p "$T/out")"
n=$(python3 "$TC" coll "$T/out" "$D3"/results/collectives.jsonl 2>"$T/tc") &&
	ok "bench show: the nccl-tests tables hold each of the $n records' figures" || { not_ok "bench show: nccl-tests tables"; show "$T/tc"; }
n=$(python3 "$TC" summary "$T/out" "$D3"/results/collectives.jsonl 2>"$T/tc") &&
	ok "bench show: each of the $n cases with its scaled value, n and cv" || { not_ok "bench show: case table"; show "$T/tc"; }
BENCH_FAULT=coll-wrong expect 7 "a run whose data check fails, with its summary" "$BENCH" run -o "$T/runs4" "$T/m2.yaml"
D4=$(head -n 1 "$T/out")
n=$(python3 "$TC" coll "$T/err" "$D4"/results/collectives.jsonl 2>"$T/tc") &&
	grep -Eq '^ +[0-9]+ +[0-9]+ +fp32 +- +- +- +[1-9][0-9]* +- +- +- +[1-9][0-9]*$' "$T/err" &&
	ok "a failed data check: no figures, the wrong count of each of the $n records" || { not_ok "wrong-count rows"; show "$T/tc"; show "$T/err"; }
# one rank moves no data (busbw 0, an in-place no-op at absurd algbw): refused at validate, placed at the suite
sed "s/gpus_per_node: 2/gpus_per_node: 1/; s/, broadcast\]/]/; s/, root: 1}/}/" "$T/m2.yaml" >"$T/m1.yaml"
expect 3 "collectives on one rank: refused by validate" "$BENCH" validate "$T/m1.yaml"
expect_err "$T/m1.yaml:6:3: error: collectives need at least 2 ranks, the target has 1"
[ "$(grep -c error "$T/err")" = 1 ] && ok "... and that is its only problem" || { not_ok "m1.yaml has other problems"; show "$T/err"; }
expect 3 "... and by run, before any run directory" "$BENCH" run -q -o "$T/r1" "$T/m1.yaml"
[ -e "$T/r1" ] && not_ok "a run directory was made for a refused manifest" || ok "no run directory for a one-rank collectives manifest"
finish
