#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Findings (docs/findings.md) at the end of bench run and in summary.json: a fake runner plants telemetry that
# says the board was power-capped on one case; that case, and only it, is named with its numbers. The rules
# themselves are unit-tested (tests/unit/test_findings.c).
. "$(dirname "$0")/lib.sh"
fake_gemm
cat >"$T/m.yaml" <<'Y'
bench: 1
name: findings
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], shapes: [[64, 64, 64], [128, 128, 128]]}
Y
FAKE_EXTRA='{"128x128x128": {"telemetry": {"available": true, "throttle_reasons": ["sw_power_cap"], "sm_clock_mhz": {"min": 1500, "median": 1590, "max": 1620}, "power_w_median": 699.5}}}' \
	BENCH_RUNNERS=$T/fake expect 0 "a run whose records show a power-capped case" "$BENCH" run -o "$T/runs" "$T/m.yaml"
expect_err "findings (docs/findings.md):"
expect_err "  throttled                  cblas/fp32/tn/128x128x128/default: throttled during the timed window: sw_power_cap (SM clock median 1590 MHz)"
n=$(grep -c "^  throttled " "$T/err")
[ "$n" = 1 ] && ok "only the planted case is named" || not_ok "$n throttled findings"
D=$(head -n 1 "$T/out")
B=$(sed -n 2p "$T/out")
python3 - "$D/summary.json" <<'PY' && ok "summary.json carries the finding with its numbers" || not_ok "summary.json findings"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["id"] == "throttled" and f[0]["case"] == "cblas/fp32/tn/128x128x128/default", f
assert f[0]["numbers"]["throttle_reasons"] == ["sw_power_cap"] and f[0]["numbers"]["power_w_median"] == 699.5, f
PY
# bench show prints them from the signed summary; compare prints each run's
expect 0 "show the bundle" "$BENCH" show "$B"
expect_out "findings (docs/findings.md):"
expect_out "  throttled                  cblas/fp32/tn/128x128x128/default: throttled during the timed window: sw_power_cap (SM clock median 1590 MHz)"
: no findings section at all, an empty list in summary.json
BENCH_RUNNERS=$T/fake expect 0 "the same run without it" "$BENCH" run --no-pack -o "$T/runs2" "$T/m.yaml"
grep -q "findings (docs" "$T/err" && not_ok "a findings section without findings" || ok "no findings: nothing printed"
D=$(head -n 1 "$T/out")
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["findings"] == []' "$D/summary.json" &&
	ok "summary.json: findings []" || not_ok "summary.json findings not empty"
expect 0 "compare the two runs" "$BENCH" compare "$B" "$D"
expect_out "findings of $(basename "$B" .bench.tar.gz) (docs/findings.md):"
n=$(grep -c "^  throttled " "$T/out")
[ "$n" = 1 ] && ok "compare: the planted finding of the first run, none of the second" || { not_ok "compare findings ($n)"; show "$T/out"; }
expect 0 "compare --format json" "$BENCH" compare --format json "$B" "$D"
python3 -c 'import json,sys; f = json.load(open(sys.argv[1]))["findings"]; assert len(f) == 1 and f[0]["findings"][0]["id"] == "throttled", f' "$T/out" &&
	ok "compare json: findings per run" || not_ok "compare json findings"
# the report: the run's findings under its heading, the run without any has none
expect 0 "report of both runs" "$BENCH" report -o "$T/rep" "$B" "$D"
python3 - "$T/rep/index.html" <<'PY' && ok "report: the finding in run 0's section with its id, case and numbers; none in run 1's" || { not_ok "report findings"; show "$T/rep/index.html"; }
import re, sys
h = open(sys.argv[1]).read()
runs = re.findall(r'<section class="run" id="run-(\d)">(.*?)</section>', h, re.S)
assert [r[0] for r in runs] == ["0", "1"], [r[0] for r in runs]
f = re.findall(r'<details open class="findings" id="findings-0"><summary>1 finding \(docs/findings.md\)</summary><ul>(.*?)</ul>', runs[0][1], re.S)
assert len(f) == 1 and '<code class="finding-id">throttled</code> gemm <code>cblas/fp32/tn/128x128x128/default</code>: throttled during the timed window: sw_power_cap (SM clock median 1590 MHz)' in f[0], f
assert 'class="findings"' not in runs[1][1]
PY
finish
