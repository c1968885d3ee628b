#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench reproduce BUNDLE: a bundle re-run on this machine (3 rounds by default) and judged case by case against the
# original within this machine's run-to-run spread.
#  - the same stack again gives `reproduced` for every case (the fake runner's noisy mode, seeded), and with one round
#    the older rule (the ratio's bootstrap CI against 1 +/- threshold);
#  - the real CPU quickstart, reproduced here: no case it measured is faster or slower (reproduced, or inconclusive
#    where the band is wider than --max-band), each verdict the documented rule applied to the printed numbers (this
#    2-core machine's runs swing by 2x and more: the band says so);
#  - a reproduction 10% slower gives `slower` for every case and exit 9;
#  - a machine whose runs swing by 2x: every case inconclusive with the reason, exit 10 (a band of [0.1, 10] that
#    holds the original confirms nothing);
#  - a tampered bundle exits 8 and nothing is run or written;
#  - a bundle made on another GPU model says `not reproducible here`, naming the model, and runs nothing (exit 6);
#  - a host bundle made on another CPU with another BLAS runs all the same and names both facts;
#  - the new bundles verify; the last holds reproduce.json, and its statement names the original's sha256 and the
#    earlier rounds' bundles as materials.
. "$(dirname "$0")/lib.sh"
fake_gemm
FAKE=$T/fake
shapes=$(python3 -c 'print(", ".join("[%d, 64, 64]" % (64 + 8 * i) for i in range(12)))')
printf 'bench: 1\nname: repro\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [%s]}\n' \
	"$shapes" >"$T/repro.yaml"
# a quiet machine: 0.5% run-to-run, 1% within a run, 10 samples; the seeds make every run the same every time
export FAKE_MODE=noisy FAKE_SEQ="$T/seq" FAKE_RUN_SD=0.005 FAKE_WITHIN_SD=0.01 FAKE_N=10 FAKE_SEED=7

expect 0 "lock the manifest (no components: offline)" "$BENCH" lock "$T/repro.yaml"
BENCH_RUNNERS=$FAKE expect 0 "the original: a --locked run, packed" "$BENCH" run -q --locked -o "$T/orig" "$T/repro.yaml"
ORIG=$(ls "$T"/orig/repro-*.bench.tar.gz)
OSHA=$(sha256sum "$ORIG" | cut -d' ' -f1)

# 1. the same stack again: reproduced, every case
BENCH_RUNNERS=$FAKE expect 0 "reproduce on the same machine and stack: exit 0" "$BENCH" reproduce --yes -q -o "$T/new" "$ORIG"
cp "$T/out" "$T/same.txt"
n=$(grep -c ' reproduced$' "$T/same.txt")
[ "$n" = 12 ] && ok "every one of the 12 cases reproduced" || { not_ok "reproduced: $n of 12"; show "$T/same.txt"; }
expect_out "12 reproduced, 0 faster, 0 slower, 0 inconclusive, 0 not comparable"
[ "$(ls "$T"/new/repro-*.bench.tar.gz | wc -l)" = 3 ] && ok "three rounds, three bundles" || { not_ok "rounds"; ls "$T/new" | sed 's/^/#   /'; }
NEW=$(tail -n 2 "$T/same.txt" | head -n 1)
[ -z "$(ls -A "$T/new" | grep '^\.reproduce')" ] && ok "the work directory is removed" || not_ok "a .reproduce work directory is left"

# 5. the new bundle: verifies, holds reproduce.json and the original's lock, names the original and the earlier
# rounds as materials; every verdict is the band rule applied to its numbers
expect 0 "the new bundle verifies" "$BENCH" verify "$NEW"
python3 - "$NEW" "$ORIG" "$OSHA" "$T/repro.lock.json" <<'PY' >"$T/m.txt" 2>&1 && ok "statement: resolvedDependencies name bench-bundle:$(basename "$ORIG") and both earlier rounds with their sha256; reproduce.json and the lock in the bundle; ratios inside their bands" || { not_ok "the material"; show "$T/m.txt"; }
import base64, hashlib, json, math, os, sys, tarfile
new, orig, sha, lock = sys.argv[1:]
env = json.loads(open(new + ".intoto.jsonl").read())
st = json.loads(base64.b64decode(env["payload"]))
deps = st["predicate"]["buildDefinition"]["resolvedDependencies"]
want = {"uri": "bench-bundle:" + os.path.basename(orig), "digest": {"sha256": sha}}
assert want in deps, deps
run = os.path.basename(new)[:-len(".bench.tar.gz")]
with tarfile.open(new) as t:
    rep = json.load(t.extractfile(run + "/reproduce.json"))
    assert t.extractfile(run + "/manifest.lock.json").read() == open(lock, "rb").read()
assert rep["schema"] == "bench.reproduce/v1" and rep["original"]["sha256"] == sha, rep["original"]
assert rep["original"]["bundle"] == os.path.basename(orig) and rep["run"] == run and rep["rounds"] == 3
assert len(rep["earlier_rounds"]) == 2, rep["earlier_rounds"]
for r in rep["earlier_rounds"]:
    p = os.path.join(os.path.dirname(new), r["bundle"])
    assert hashlib.sha256(open(p, "rb").read()).hexdigest() == r["sha256"], r
    assert {"uri": "bench-bundle:" + r["bundle"], "digest": {"sha256": r["sha256"]}} in deps, (r, deps)
assert rep["counts"]["reproduced"] == 12 and len(rep["cases"]) == 12
assert rep["stack_differs"] == [] and rep["not_reproducible"] == [] and rep["reproducible"] is True, rep["stack_differs"]
for c in rep["cases"]:
    lo, hi = c["band"]
    assert c["verdict"] == "reproduced" and c["runs"] == 3 and lo <= c["ratio"] <= hi, c
    assert lo <= 1 / (1 + c["threshold"]) + 1e-12 and hi >= 1 + c["threshold"] - 1e-12, c  # never narrower
    assert 0 < c["noise_cv"] < 0.05 and 0 < c["suite_noise_cv"] < 0.05, c
PY

# 1c. one round: the ratio's bootstrap CI against 1 +/- threshold (no spread to measure)
BENCH_RUNNERS=$FAKE expect 0 "--rounds 1: reproduced" "$BENCH" reproduce --yes -q --json --rounds 1 -o "$T/one" "$ORIG"
python3 - "$T/out" <<'PY' && ok "--rounds 1: one bundle, every verdict by the CI rule" || { not_ok "--rounds 1"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rounds"] == 1 and d["earlier_rounds"] == [] and d["counts"]["reproduced"] == 12, d["counts"]
for c in d["cases"]:
    lo, hi = c["ci95"]
    assert "band" not in c and lo <= 1 + c["threshold"] and hi >= 1 - c["threshold"] and c["verdict"] == "reproduced", c
PY
[ "$(ls "$T"/one/repro-*.bench.tar.gz | wc -l)" = 1 ] && ok "--rounds 1: one bundle" || not_ok "--rounds 1 bundles"

# 2. the same bundle reproduced by a runner 10% slower: slower, every case, exit 9
BENCH_RUNNERS=$FAKE FAKE_SLOWDOWN=0.10 expect 9 "a reproduction 10% slower: exit 9" "$BENCH" reproduce --yes -q -o "$T/slow" "$ORIG"
n=$(grep -c ' slower$' "$T/out")
[ "$n" = 12 ] && ok "every one of the 12 cases slower" || { not_ok "slower: $n of 12"; show "$T/out"; }
expect_out "0 reproduced, 0 faster, 12 slower, 0 inconclusive, 0 not comparable"
BENCH_RUNNERS=$FAKE FAKE_SLOWDOWN=0.10 expect 0 "--threshold 0.2 takes 10% as noise: reproduced, exit 0" \
	"$BENCH" reproduce --yes -q --threshold 0.2 -o "$T/slow" "$ORIG"
expect_out "12 reproduced, 0 faster, 0 slower"

# 2b. a machine whose runs swing by 2x (issue 30: `read/64MiB 1.828 band [0.103, 9.75] reproduced`, exit 0): the
# original lies inside every band, and the bands say nothing. Inconclusive, with the reason, exit 10; a --max-band
# as wide as the bands reproduces them again
BENCH_RUNNERS=$FAKE FAKE_RUN_SD=0.5 expect 10 "a reproduction on a machine that swings 2x: exit 10" \
	"$BENCH" reproduce --yes -q --json -o "$T/noisy" "$ORIG"
python3 - "$T/out" <<'PY' >"$T/noisy.txt" && ok "$(cat "$T/noisy.txt")" || { not_ok "noisy reproduction"; show "$T/noisy.txt"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["max_band"] == 0.10, d["max_band"]
inc = [c for c in d["cases"] if c["verdict"] == "inconclusive"]
for c in d["cases"]:
    lo, hi = c["band"]
    inside = lo <= c["ratio"] <= hi
    within = lo >= 1 / 1.1 - 1e-12 and hi <= 1.1 + 1e-12
    want = "reproduced" if inside and within else "inconclusive" if inside else "slower" if c["ratio"] < lo else "faster"
    assert c["verdict"] == want, c
    assert c["verdict"] != "reproduced" or hi / lo < 1.1 ** 2 + 1e-9, c
assert inc and all("band wider than 1 +/- 10%: the runs here spread too much to tell" == c["why"] for c in inc), inc
assert d["counts"]["inconclusive"] == len(inc) and not d["counts"]["slower"], d["counts"]
print("every case inside a band wider than 1 +/- 10%% is inconclusive (%d of %d), with the reason; exit 10" % (len(inc), len(d["cases"])))
PY
BENCH_RUNNERS=$FAKE FAKE_RUN_SD=0.5 expect 10 "the same as text" "$BENCH" reproduce --yes -q -o "$T/noisy" "$ORIG"
expect_out " inconclusive: band wider than 1 +/- 10%: the runs here spread too much to tell"
expect_out "0 reproduced, 0 faster, 0 slower, 12 inconclusive, 0 not comparable"
# 3 rounds of a machine whose runs move 50% leave the run effect 2 degrees of freedom (issue 32): even --max-band 10
# is narrower than the bands, and the verdict says how many rounds would do
BENCH_RUNNERS=$FAKE FAKE_RUN_SD=0.5 expect 10 "--max-band 10: still inconclusive at 3 rounds, exit 10" \
	"$BENCH" reproduce --yes -q --max-band 10 -o "$T/noisy" "$ORIG"
expect_out "rounds would narrow it to that"
expect_out "0 reproduced, 0 faster, 0 slower, 12 inconclusive"
expect 2 "--max-band 0 is a usage error" "$BENCH" reproduce --max-band 0 "$ORIG"

# 3. a tampered bundle (its own name, so the envelope names it: only the flipped byte is wrong): exit 8, nothing
# run, nothing written
mkdir "$T/tampered"
cp "$ORIG" "$ORIG.intoto.jsonl" "$T/tampered/"
TAMP=$T/tampered/$(basename "$ORIG")
expect 0 "the untouched copy verifies" "$BENCH" verify "$TAMP"
python3 - "$TAMP" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x01
open(p, "wb").write(b)
PY
BENCH_RUNNERS=$FAKE refused "a tampered bundle" "verification failed" "$BENCH" reproduce --yes -q -o "$T/tamp" "$TAMP"
expect_err "nothing was run"
if grep -q "envelope signs" "$T/err"; then not_ok "refused for its name, not its bytes"; show "$T/err"; else ok "refused for its bytes"; fi
[ ! -e "$T/tamp" ] && ok "no run directory, no work directory: $T/tamp was never created" || { not_ok "something was written"; ls -la "$T/tamp" | sed 's/^/#   /'; }

# 4. a bundle made on another GPU model: its run directory says NVIDIA Planted X1, packed with this test's key
printf 'bench: 1\nname: gpuorig\ntarget: {vendor: cuda, gpu: h200}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [bf16], shapes: [[256, 256, 256], [512, 512, 512]]}\n' >"$T/gpu.yaml"
BENCH_RUNNERS=$FAKE expect 0 "a cuda-target run (fake runner)" "$BENCH" run -q --no-pack -o "$T/gpu" "$T/gpu.yaml"
G=$(ls -d "$T"/gpu/gpuorig-*)
python3 - "$G/env/environment.json" <<'PY'
import json, sys
p = sys.argv[1]
e = json.load(open(p))
e["gpus"] = [{"index": 0, "name": "NVIDIA Planted X1", "driver": "570.124.06", "memory_mib": 143771}]
json.dump(e, open(p, "w"), indent=2)
PY
expect 0 "pack the planted-GPU run with this test's key" "$BENCH" pack "$G"
BENCH_RUNNERS=$FAKE expect 6 "another GPU model: exit 6" "$BENCH" reproduce --yes -o "$T/gpunew" "$G.bench.tar.gz"
n=$(grep -c 'not reproducible here (gpu model: NVIDIA Planted X1 vs ' "$T/out")
[ "$n" = 2 ] && ok "both cases: not reproducible here (gpu model: NVIDIA Planted X1 vs ...)" || { not_ok "not reproducible: $n of 2"; show "$T/out"; }
expect_out "2 not reproducible here: nothing was run"
[ -z "$(ls -A "$T/gpunew")" ] && ok "nothing run: no run directory in $T/gpunew" || { not_ok "a run directory was made"; ls -A "$T/gpunew" | sed 's/^/#   /'; }
BENCH_RUNNERS=$FAKE expect 6 "--json: the same verdicts as JSON" "$BENCH" reproduce --yes -q --json -o "$T/gpunew" "$G.bench.tar.gz"
python3 - "$T/out" <<'PY' && ok "json: reproducible false, the differing facts with both values" || { not_ok "json"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reproducible"] is False and d["run"] is None and d["counts"]["not reproducible here"] == 2
w = {x["what"]: x for x in d["not_reproducible"]}
assert w["gpu model"]["original"] == "NVIDIA Planted X1" and w["gpu model"]["here"] != "NVIDIA Planted X1", w
assert "gpu count" not in w or w["gpu count"]["original"] == 1, w
assert all(c["verdict"] == "not reproducible here" and "gpu model: NVIDIA Planted X1 vs" in c["why"] for c in d["cases"])
PY

# 4b. a host bundle from another CPU and BLAS: run all the same, the facts that differ named
BENCH_RUNNERS=$FAKE expect 0 "a cpu-target run to re-sign as made elsewhere" "$BENCH" run -q --no-pack -o "$T/else" "$T/repro.yaml"
E=$(ls -d "$T"/else/repro-*)
python3 - "$E/env/environment.json" <<'PY'
import json, sys
p = sys.argv[1]
e = json.load(open(p))
e["host"]["cpu_model"] = "Planted CPU 9000"
e.setdefault("runners", {}).setdefault("gemm", {})["blas"] = "PlantedBLAS 1.0"
json.dump(e, open(p, "w"), indent=2)
PY
expect 0 "pack it with this test's key" "$BENCH" pack "$E"
BENCH_RUNNERS=$FAKE expect 0 "reproduce a bundle of another CPU: run anyway, exit 0" "$BENCH" reproduce --yes -q -o "$T/elsenew" "$E.bench.tar.gz"
expect_out "host.cpu_model: "
expect_out ", Planted CPU 9000 in the original"
expect_out "runners.gemm.blas: none here, PlantedBLAS 1.0 in the original"
expect_out "12 reproduced"
[ -n "$(ls "$T"/elsenew/repro-*.bench.tar.gz 2>/dev/null)" ] && ok "the reproduction ran and was packed" || not_ok "no new bundle"

# the command table, its help and the man page
expect 0 "bench help lists reproduce" "$BENCH" help
expect_out "  reproduce "
expect 0 "reproduce -h" "$BENCH" reproduce -h
expect_out "usage: bench reproduce"
grep -q '^\.BI "reproduce ' "$(dirname "$0")/../../docs/bench.1" && ok "docs/bench.1 documents reproduce" || not_ok "docs/bench.1 lacks reproduce"

# 1b. the real CPU quickstart (gemm cblas, membw, MPI collectives, training), as the README runs it, reproduced here:
# no case it measured is faster or slower (each is reproduced, or inconclusive where this machine's band is wider
# than --max-band), and every verdict is the rule applied to the printed numbers.
# This 2-core machine has transients: measured on it, about 1 quickstart in 8 holds one case 1.2x-3.8x off its usual
# figure for the few seconds it runs (its samples uniformly slow, not one outlier), and three back-to-back rounds here
# cannot know that; the reproduction then says `faster`, which is true of that original. So the check makes a new
# original when a reproduction calls a case faster or slower, up to three (each earlier attempt's verdicts are printed;
# three in a row at 1 in 8 is 1 in 500); every verdict must follow the rule every time, and a rule or a pipeline that
# is wrong fails all three.
unset FAKE_MODE FAKE_SEQ FAKE_RUN_SD FAKE_WITHIN_SD FAKE_N FAKE_SEED
cat >"$T/quick.py" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
assert d["reproducible"] is True and d["rounds"] == 3 and len(d["cases"]) >= 19, d
measured = [c for c in d["cases"] if c["verdict"] != "not comparable"]
for c in d["cases"]:
    if c["verdict"] == "not comparable":  # a case the original did not measure (FSDP2 on an old torch): said why
        assert c["original"] is None and "in the original" in c["why"], c
        continue
    lo, hi = c["band"]
    t = c["threshold"]
    y = max(d["max_band"], t)
    assert lo <= 1 / (1 + t) + 1e-12 and hi >= 1 + t - 1e-12, c
    within = lo >= 1 / (1 + y) - 1e-12 and hi <= 1 + y + 1e-12
    want = "slower" if c["ratio"] < lo else "faster" if c["ratio"] > hi else "reproduced" if within else "inconclusive"
    assert c["verdict"] == want, c
assert {c["suite"] for c in measured} == {"gemm", "membw", "collectives", "training"}, measured
assert rc == (9 if d["counts"]["slower"] else 10 if d["counts"]["inconclusive"] else 0), (rc, d["counts"])
off = [(c["suite"], c["case"], round(c["ratio"], 3), [round(x, 3) for x in c["band"]]) for c in measured
       if c["verdict"] in ("faster", "slower")]
if off:
    print("faster or slower: %s" % off)
    sys.exit(3)
cv = sorted(c["noise_cv"] for c in measured)
print("%d measured cases of %d: %d reproduced, %d inconclusive (band wider than 1 +/- %.0f%%), exit %d; run-to-run CV here "
      "%.0f%%..%.0f%% (median %.0f%%)" % (len(measured), len(d["cases"]), d["counts"]["reproduced"],
      d["counts"]["inconclusive"], 100 * d["max_band"], rc, 100 * cv[0], 100 * cv[-1], 100 * cv[len(cv) // 2]))
PY
if [ -x "${BENCH_RUNNERS:-}/bench-gemm" ] && [ -x "${BENCH_RUNNERS:-}/bench-membw" ]; then
	"$BENCH" run -q --no-pack -o "$T/warm" "$BENCH_DATA/manifests/quickstart.yaml" >/dev/null 2>&1 # the machine warm first
	for attempt in 1 2 3; do
		expect 0 "a quickstart bundle made with the real runners (attempt $attempt)" "$BENCH" run -q -o "$T/cpu$attempt" "$BENCH_DATA/manifests/quickstart.yaml"
		CPU=$(ls "$T"/cpu$attempt/quickstart-*.bench.tar.gz)
		"$BENCH" reproduce --yes -q --json -o "$T/cpunew$attempt" "$CPU" >"$T/cpu.json" 2>"$T/err"
		rc=$?
		python3 "$T/quick.py" "$T/cpu.json" "$rc" >"$T/cpu.txt" 2>&1
		qrc=$?
		[ "$qrc" = 3 ] && [ "$attempt" != 3 ] && { echo "# attempt $attempt: $(cat "$T/cpu.txt")"; continue; }
		break
	done
	[ "$qrc" = 0 ] && ok "real quickstart (attempt $attempt): $(cat "$T/cpu.txt")" || { not_ok "real quickstart (attempt $attempt)"; show "$T/cpu.txt"; show "$T/err"; }
else
	echo "# the CPU runners are not built (make runners): the real-runner reproduction is skipped"
fi

expect 2 "no bundle: usage error" "$BENCH" reproduce
expect_err "no bundle given"
expect 2 "--threshold out of range" "$BENCH" reproduce --threshold 1.5 "$ORIG"
expect 2 "--rounds 0" "$BENCH" reproduce --rounds 0 "$ORIG"
expect_err "--rounds takes a whole number from 1 to 100"
finish
