#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Energy and cost (docs/manifest-format.md, "Energy and cost"): a fake runner plants telemetry (power) and a
# training-style tokens_per_s; its records get extra.energy from runners/torch/energy.py (the runners' own code),
# and bench show, compare and report price every case from the manifest's pricing. Every expected figure is
# computed here from the records, not written down.
. "$(dirname "$0")/lib.sh"
fake_gemm
manifest() { # name [pricing line]
	cat >"$T/$1.yaml" <<Y
bench: 1
name: $1
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], shapes: [[64, 64, 64], [128, 128, 128]]}
${2:-}
Y
}
manifest priced 'pricing: {usd_per_gpu_hour: 3.5, source: "test list price, 2026-01"}'
manifest unpriced
manifest cheap 'pricing: {usd_per_gpu_hour: 2.0}'
export FAKE_EXTRA='{"128x128x128": {"telemetry": {"available": true, "samples": 40, "power_w_median": 400.0, "energy_j": 2.0}}, "64x64x64": {"tokens_per_s": 1500.0, "world_size": 2, "telemetry": {"available": false, "why": "telemetry unavailable: planted"}}}'
FAKE_SAMPLES=0.8,1.0,1.3,1.1 BENCH_RUNNERS=$T/fake expect 0 "a priced run" "$BENCH" run -q -o "$T/runs" "$T/priced.yaml"
A=$(head -n 1 "$T/out")
AB=$(sed -n 2p "$T/out")
BENCH_RUNNERS=$T/fake FAKE_SCALE=0.5 expect 0 "a run without pricing" "$BENCH" run -q -o "$T/runs" "$T/unpriced.yaml"
U=$(head -n 1 "$T/out")
UB=$(sed -n 2p "$T/out")
# half the price, half the speed: 2.0 / 0.5x rate costs more per PFLOP/s than 3.5 / 1x
BENCH_RUNNERS=$T/fake FAKE_SCALE=2 expect 0 "a cheaper but slower run" "$BENCH" run -q -o "$T/runs" "$T/cheap.yaml"
C=$(head -n 1 "$T/out")
CB=$(sed -n 2p "$T/out")

# the energy of a record: joules = the energy counter over the timed window / the timed calls, the estimate (power x
# median time of one call) beside it; TFLOP/J = the work of one call / its joules
python3 - "$A/results/gemm.jsonl" <<'PY' && ok "records: joules and TFLOP/J from the telemetry, or why not" || not_ok "records' extra.energy"
import json, statistics, sys
recs = {r["case"]: r for r in map(json.loads, open(sys.argv[1]))}
r = recs["cblas/fp32/tn/128x128x128/default"]
e, p = r["extra"]["energy"], r["extra"]["telemetry"]["power_w_median"]
t = statistics.median(r["samples_ms"])
assert e["available"] is True and e["method"] == "counter" and abs(e["joules"] - 2.0 / len(r["samples_ms"])) < 1e-12, e
assert abs(e["joules_estimate"] - p * t / 1e3) < 1e-12 and e["calls"] == len(r["samples_ms"]), e
assert abs(r["value"] * t / 1e3 / e["joules"] - e["tflop_per_joule"]) < 1e-3 * e["tflop_per_joule"], e  # work / energy
e = recs["cblas/fp32/tn/64x64x64/default"]["extra"]["energy"]
assert e == {"available": False, "why": "telemetry unavailable: planted"}, e
PY

# bench show: the price with its source, each case's figures from its record
expect 0 "show the priced bundle" "$BENCH" show "$AB"
expect_out "pricing   USD 3.5 per GPU-hour (source: test list price, 2026-01), from the run's manifest"
python3 - "$A/results/gemm.jsonl" "$T/out" <<'PY' && ok "show: USD/h per PFLOP/s, USD per M tokens, J and TFLOP/J as the records give" || not_ok "show's figures"
import json, sys
recs = {r["case"]: r for r in map(json.loads, open(sys.argv[1]))}
out = open(sys.argv[2]).read()
r = recs["cblas/fp32/tn/128x128x128/default"]
e = r["extra"]["energy"]
want = "USD %.4g/h per PFLOP/s, %.4g J/call, %.4g TFLOP/J" % (3.5 / (r["value"] / 1000), e["joules"], e["tflop_per_joule"])
assert want in out, (want, out)
r = recs["cblas/fp32/tn/64x64x64/default"]
want = "USD %.4g/h per PFLOP/s, USD %.4g per M tokens; no energy: telemetry unavailable: planted" % (
    3.5 / (r["value"] / 1000), 3.5 * 2 / (1500.0 * 2 * 3600) * 1e6)
assert want in out, (want, out)
PY
expect 0 "show --json" "$BENCH" show --json "$AB"
python3 - "$A/results/gemm.jsonl" "$T/out" <<'PY' && ok "show --json: pricing and cost per case" || not_ok "show --json cost"
import json, sys
recs = {r["case"]: r for r in map(json.loads, open(sys.argv[1]))}
j = json.load(open(sys.argv[2]))
assert j["pricing"] == {"usd_per_gpu_hour": 3.5, "source": "test list price, 2026-01"}, j["pricing"]
cost = {c["case"]: c for c in j["cost"]}
for k, r in recs.items():
    assert abs(cost[k]["usd_per_hour_per_pflops"] - 3.5 * 1000 / r["value"]) < 1e-9 * cost[k]["usd_per_hour_per_pflops"], cost[k]
assert abs(cost["cblas/fp32/tn/64x64x64/default"]["usd_per_million_tokens"] - 3.5 / (1500 * 3600) * 1e6) < 1e-12
assert cost["cblas/fp32/tn/64x64x64/default"]["gpus"] == 2
PY
expect 0 "show a bundle without pricing" "$BENCH" show "$UB"
expect_out "pricing   none in the run's manifest: no cost figures"
grep -Eq "USD [0-9.e+-]+(/h per PFLOP/s| per M tokens| per GPU-hour)" "$T/out" && not_ok "a cost figure without pricing" || ok "no pricing: no USD figure"
expect_out "J/call" # energy still shown: it does not depend on a price

# bench compare: figures per side, sides ranked cheapest first per case
expect 0 "compare --format json" "$BENCH" compare --format json "$AB" "$UB" "$CB"
python3 - "$T/out" "$A" "$C" <<'PY' && ok "compare --format json: per-side pricing and cost, ranked cheapest first" || not_ok "compare json cost"
import json, os, sys
j = json.load(open(sys.argv[1]))
def recs(d):
    return {r["case"]: r for r in map(json.loads, open(os.path.join(d, "results/gemm.jsonl")))}
a, c = recs(sys.argv[2]), recs(sys.argv[3])
assert j["sides"][0]["pricing"]["usd_per_gpu_hour"] == 3.5 and j["sides"][1].get("pricing") is None
assert j["sides"][2]["pricing"] == {"usd_per_gpu_hour": 2.0, "source": None}, j["sides"][2]
rows = {r["case"]: r for r in j["cases"]}
k = "cblas/fp32/tn/128x128x128/default"
assert abs(rows[k]["baseline"]["cost"]["usd_per_hour_per_pflops"] - 3.5e3 / a[k]["value"]) < 1e-9
others = {o["label"]: o for o in rows[k]["others"]}
assert all("usd_per_hour_per_pflops" not in (o.get("cost") or {}) for l, o in others.items() if l.startswith("unpriced"))
rank = {r["case"]: r for r in j["cost_rank"]}
want = sorted([(3.5e3 / a[k]["value"], j["sides"][0]["label"]), (2.0e3 / c[k]["value"], j["sides"][2]["label"])])
got = [(s["value"], s["label"]) for s in rank[k]["sides"]]
assert rank[k]["by"] == "usd_per_hour_per_pflops" and [l for _, l in got] == [l for _, l in want], (got, want)
assert all(abs(g[0] - w[0]) < 1e-9 * w[0] for g, w in zip(got, want))
assert want[0][1] == j["sides"][0]["label"]  # the dearer GPU-hour is the cheaper PFLOP/s here
k = "cblas/fp32/tn/64x64x64/default"
assert rank[k]["by"] == "usd_per_million_tokens", rank[k]
PY
expect 0 "compare, text" "$BENCH" compare "$AB" "$UB" "$CB"
expect_out "pricing, from each run's manifest:"
expect_out "$(basename "$U"): none in its manifest: no cost figures"
expect_out "cost per case, cheapest first"
expect_out "energy per timed call"

# bench report: the figure on the page
expect 0 "report" "$BENCH" report -o "$T/site" "$AB" "$UB"
python3 - "$T/site/index.html" "$A/results/gemm.jsonl" <<'PY' && ok "report: the pricing and USD/h per PFLOP/s of each case" || not_ok "report cost"
import json, sys
html = open(sys.argv[1]).read()
recs = {r["case"]: r for r in map(json.loads, open(sys.argv[2]))}
assert '<h2 id="cost">Energy and cost</h2>' in html
assert "USD 3.5 per GPU-hour (source: test list price, 2026-01)" in html
for r in recs.values():
    cell = '<td class="num" data-k="usd_per_hour_per_pflops">%.4g</td>' % (3.5e3 / r["value"])
    assert cell in html, cell
PY
finish
