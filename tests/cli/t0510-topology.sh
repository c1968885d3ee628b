#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# collectives topology (backend mpi, under mpirun, oversubscribed): send_recv as nccl-tests' sendrecv_perf on 2 and
# 4 ranks with its data check (and a planted wrong value caught), pairs: all (the p2p matrix, one record per ordered
# pair and measure), group_sizes (the ops on groups of consecutive ranks), the manifest errors, the report's heat map.
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS to the runners directory}
mpi_env
[ -n "$MPIRUN" ] || { not_ok "mpirun is not installed"; finish; exit 1; }

manifest() { # file ranks suite-body (placements: out-of-place unless the body names them)
	case $3 in *placements:*) pl="" ;; *) pl="placements: [out-of-place], " ;; esac
	cat >"$1" <<Y
bench: 1
name: topo$2
target: {vendor: cpu, gpus_per_node: $2}
runtime: {engine: host}
suites:
  collectives: {backend: mpi, dtype: fp32, warmup_iters: 1, iters: 4, $pl$3}
Y
}

# ---- send_recv ------------------------------------------------------------------------------------------------
for n in 2 4; do
	manifest "$T/sr$n.yaml" "$n" "ops: [send_recv], min_bytes: 4KiB, max_bytes: 256KiB, factor: 8, sizes: [1001]"
	"$BENCH" plan --json "$T/sr$n.yaml" >"$T/sr$n.json"
	expect 0 "mpirun -np $n bench-coll: send_recv" "$MPIRUN" $MPIOPTS -np "$n" "$R/bench-coll" --config "$T/sr$n.json"
	if python3 - "$T/out" "$n" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
n = int(sys.argv[2])
assert len(recs) == 4, len(recs)  # 4 KiB, 32 KiB, 256 KiB and 1001 B
for r in recs:
    e = r["extra"]
    assert r["status"] == "ok" and r["params"]["op"] == "send_recv", r
    assert e["wrong"] == 0 and e["check"] == "ok" and e["nranks"] == n
    # nccl-tests sendrecv: S = the whole buffer (whole elements), bus factor 1, busbw = algbw
    assert e["bytes"] == r["params"]["bytes"] // 4 * 4 and e["bus_factor"] == 1.0, e
    assert abs(e["algbw_gbps"] - e["bytes"] / (e["time_us"] * 1e-6) / 1e9) < 1e-6 * e["algbw_gbps"]
    assert e["busbw_mean_gbps"] == e["algbw_gbps"]
    assert r["case"] == "send_recv/fp32/%s/out-of-place/r%dn1" % (r["case"].split("/")[2], n)
PY
	then ok "$n ranks: send_recv records, factor 1, data checked"; else not_ok "$n ranks send_recv records"; show "$T/out"; fi
done
BENCH_FAULT=coll-wrong expect 0 "send_recv with a planted wrong value" "$MPIRUN" $MPIOPTS -x BENCH_FAULT -np 4 "$R/bench-coll" --config "$T/sr4.json"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r) == 4 and all(x["status"] == "failed" and x["extra"]["wrong"] == 1 for x in r)' "$T/out" &&
	ok "send_recv: the data check catches the wrong value" || { not_ok "send_recv fault not caught"; show "$T/out"; }
manifest "$T/sri.yaml" 2 "ops: [send_recv], min_bytes: 4KiB, max_bytes: 4KiB, placements: [in-place]"
"$BENCH" plan --json "$T/sri.yaml" >"$T/sri.json"
expect 0 "send_recv in place" "$MPIRUN" $MPIOPTS -np 2 "$R/bench-coll" --config "$T/sri.json"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r) == 1 and r[0]["status"] == "skipped" and "no in-place form" in r[0]["error"], r' "$T/out" && ok "send_recv in place is skipped with the reason" || { not_ok "in-place send_recv"; show "$T/out"; }

# ---- pairs: all -------------------------------------------------------------------------------------------------
manifest "$T/p3.yaml" 3 "ops: [all_reduce], min_bytes: 64KiB, max_bytes: 64KiB, pairs: all"
"$BENCH" plan --json "$T/p3.yaml" >"$T/p3.json"
expect 0 "mpirun -np 3 bench-coll: pairs all" "$MPIRUN" $MPIOPTS -np 3 "$R/bench-coll" --config "$T/p3.json"
if python3 - "$T/out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
p2p = [r for r in recs if r["params"]["op"] == "p2p"]
assert len(recs) == 13 and len(p2p) == 12, (len(recs), len(p2p))  # 1 all_reduce + 6 pairs x (bandwidth, latency)
want = {(i, j) for i in range(3) for j in range(3) if i != j}
for m, size, label in (("bandwidth", 65536, "64KiB"), ("latency", 8, "8B")):
    rs = [r for r in p2p if r["params"]["measure"] == m]
    assert {(r["params"]["src"], r["params"]["dst"]) for r in rs} == want and len(rs) == 6, rs
    for r in rs:
        p, e = r["params"], r["extra"]
        assert r["status"] == "ok" and e["wrong"] == 0 and e["bus_factor"] == 1.0 and p["bytes"] == size, r
        assert r["case"] == "p2p/fp32/%s/%d-%d/r3n1" % (label, p["src"], p["dst"]), r["case"]
        assert (e["src"], e["dst"]) == (p["src"], p["dst"]) and e["latency_us"] > 0
        # the latency is the median of the samples (the receiver's time per message)
        s = sorted(r["samples_ms"])
        assert abs(e["latency_us"] - (s[1] + s[2]) / 2 * 1e3) <= 1e-6 * e["latency_us"], (e["latency_us"], s)
PY
then ok "pairs: all on 3 ranks: 6 ordered pairs at each size, src/dst right, data checked"; else not_ok "pairs records"; show "$T/out"; fi
BENCH_FAULT=coll-wrong expect 0 "pairs with a planted wrong value" "$MPIRUN" $MPIOPTS -x BENCH_FAULT -np 3 "$R/bench-coll" --config "$T/p3.json"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r) == 13 and all(x["status"] == "failed" and x["extra"]["wrong"] == 1 for x in r)' "$T/out" &&
	ok "pairs: the receiver's check catches the wrong value in every pair" || { not_ok "pairs fault not caught"; show "$T/out"; }

# ---- group_sizes ------------------------------------------------------------------------------------------------
manifest "$T/g4.yaml" 4 "ops: [all_reduce, all_gather, send_recv, broadcast], min_bytes: 4KiB, max_bytes: 4KiB, root: 1, group_sizes: [2, 4]"
"$BENCH" plan --json "$T/g4.yaml" >"$T/g4.json"
expect 0 "mpirun -np 4 bench-coll: group_sizes [2, 4]" "$MPIRUN" $MPIOPTS -np 4 "$R/bench-coll" --config "$T/g4.json"
if python3 - "$T/out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 12, len(recs)  # 4 ops x (group 0 of 2, group 1 of 2, the whole 4)
factor2 = {"all_reduce": 1.0, "all_gather": 0.5, "send_recv": 1.0, "broadcast": 1.0}
for op in factor2:
    base = "%s/fp32/4KiB/out-of-place/r4n1" % op
    by = {r["case"]: r for r in recs if r["params"]["op"] == op}
    assert set(by) == {base, base + "/g2.0", base + "/g2.1"}, sorted(by)
    for k in (0, 1):
        r = by["%s/g2.%d" % (base, k)]
        p, e = r["params"], r["extra"]
        # the data check's expected values are those of 2 ranks: it passes only on the group's communicator
        assert r["status"] == "ok" and e["wrong"] == 0 and p["group_size"] == 2 and p["group"] == k, r
        assert e["group_ranks"] == [2 * k, 2 * k + 1] and e["bus_factor"] == factor2[op], e
    assert "group_size" not in by[base]["params"] and by[base]["status"] == "ok"
PY
then ok "group_sizes [2, 4] on 4 ranks: both groups of 2 and the whole, each checked"; else not_ok "group records"; show "$T/out"; fi
BENCH_FAULT=coll-wrong expect 0 "groups with a planted wrong value" "$MPIRUN" $MPIOPTS -x BENCH_FAULT -np 4 "$R/bench-coll" --config "$T/g4.json"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r) == 12 and all(x["status"] == "failed" for x in r)' "$T/out" &&
	ok "groups: the check fails every group's case" || { not_ok "groups fault"; show "$T/out"; }
# a plan for 4 ranks started on 2: the runner skips the groups that do not fit, with the reason
expect 0 "a 4-rank group plan on 2 MPI ranks" "$MPIRUN" $MPIOPTS -np 2 "$R/bench-coll" --config "$T/g4.json"
python3 -c 'import json,sys; r={x["case"]: x for x in map(json.loads, open(sys.argv[1]))}; x=r["all_reduce/fp32/4KiB/out-of-place/r4n1/g2.1"]; assert x["status"] == "skipped" and "does not fit 2 ranks" in x["error"], x' "$T/out" && ok "group 1 of 2 on 2 ranks: skipped, does not fit" || { not_ok "runner-level group skip"; show "$T/out"; }

# ---- manifest errors --------------------------------------------------------------------------------------------
manifest "$T/e1.yaml" 4 "ops: [all_reduce],
                group_sizes: [2, 3, 8]"
expect 3 "group sizes that do not divide the ranks are refused" "$BENCH" validate "$T/e1.yaml"
expect_err "e1.yaml:7:"
expect_err "group size 3 does not divide the run's 4 rank(s)"
expect_err "group size 8 does not divide the run's 4 rank(s)"
manifest "$T/e2.yaml" 1 "ops: [all_reduce], pairs: all"
expect 3 "pairs: all on one GPU is refused" "$BENCH" validate "$T/e2.yaml"
expect_err "'pairs: all' needs at least 2 GPUs per node"
manifest "$T/e3.yaml" 4 "ops: [broadcast], root: 3, group_sizes: [2]"
expect 3 "a broadcast root outside the groups is refused" "$BENCH" validate "$T/e3.yaml"
expect_err "'root' is 3 but 'group_sizes' has groups of 2 rank(s)"
manifest "$T/e4.yaml" 4 "ops: [all_reduce], pairs: some"
expect 3 "pairs takes none or all" "$BENCH" validate "$T/e4.yaml"

# ---- bench run and the report's heat map ------------------------------------------------------------------------
expect 0 "bench run with pairs: all (mpi, 3 ranks)" "$BENCH" run -q -o "$T/runs" "$T/p3.yaml"
D=$(head -n 1 "$T/out")
expect 0 "report of the run" "$BENCH" report -o "$T/rep" "$D"
if python3 - "$T/rep/index.html" "$D/results/collectives.jsonl" <<'PY'
import json, re, sys
h = open(sys.argv[1]).read()
recs = [json.loads(l) for l in open(sys.argv[2])]
for m, unit in (("bandwidth", "GB/s"), ("latency", "us")):
    svg = h[h.index('id="p2p-%s-0"' % m):]
    svg = svg[:svg.index("</svg>")]
    cells = re.findall(r'<rect class="p2p-cell"[^>]*><title>(\d) &#8594; (\d): ([0-9.e+-]+) ([^<]+)</title>', svg)
    assert len(cells) == 6, cells
    want = {}
    for r in recs:
        p = r["params"]
        if p["op"] == "p2p" and p["measure"] == m:
            want[(p["src"], p["dst"])] = r["value"] if m == "bandwidth" else r["extra"]["latency_us"]
    for i, j, v, u in cells:
        assert u == unit and abs(float(v) - want[(int(i), int(j))]) <= 1e-3 * want[(int(i), int(j))], (i, j, v, want)
    assert svg.count("<text") >= 6 + 6 + 1  # a value in each cell, the rank labels, the caption
PY
then ok "report: the p2p heat maps (bandwidth and latency), one cell per pair with its value"; else not_ok "report heat map"; fi
python3 - "$T/rep/index.html" <<'PY' && ok "report: the pairs are not drawn as a collectives line nor tabled as an op" || not_ok "report: p2p or groups in the collectives chart/tables"
import re, sys
h = open(sys.argv[1]).read()
caps = re.findall(r'<table class="nccl"[^>]*><caption>(.*?)</caption>', h)
assert caps and not [c for c in caps if "p2p" in c], caps
assert not re.search(r'<title>[^<]*p2p[^<]*</title>', h.split('id="chart-collectives"', 1)[1].split("</svg>", 1)[0])
PY
expect 0 "show the run's bundle" "$BENCH" show "$D.bench.tar.gz"
grep -q "^p2p, \|p2p, [0-9]* rank" "$T/out" && { not_ok "show: the pairs tabled as a collective sweep"; show "$T/out"; } ||
	ok "show: the pairs are not tabled as a collective sweep"
grep -q '<script' "$T/rep/index.html" && not_ok "the report has a script" || ok "the report has no script"
finish
