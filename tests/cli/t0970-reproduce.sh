#!/bin/sh
# bench reproduce BUNDLE: a bundle re-run on this machine and judged case by case against the original.
#  - the same stack again gives `reproduced` for every case (deterministic: the fake runner's noisy mode, seeded);
#  - real CPU runners (gemm cblas, membw): every case gets the verdict the documented rule gives its numbers;
#  - a reproduction 10% slower gives `slower` for every case and exit 9;
#  - a tampered bundle exits 8 and nothing is run or written;
#  - a bundle made on another GPU model says `not reproducible here`, naming the model, and runs nothing (exit 6);
#  - a host bundle made on another CPU with another BLAS runs all the same and names both facts;
#  - the new bundle verifies, holds reproduce.json, and its statement names the original's sha256 as a material.
# Why the fake runner for "reproduced everywhere": this CI machine has 2 cores shared with other jobs; the real
# runners' medians swing by 2x and more between two runs a minute apart (measured: ratios 0.5 to 5.9 on gemm cblas
# 512^3 under a load of 4-5), and a single run's bootstrap CI knows nothing of run-to-run noise, so asserting
# `reproduced` on them would test the machine's load, not bench. The real runners' test asserts instead that the
# verdicts follow the rule from the printed numbers, and the exit status follows the verdicts.
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
BENCH_RUNNERS=$FAKE expect 0 "reproduce on the same machine and stack: exit 0" "$BENCH" reproduce -q -o "$T/new" "$ORIG"
cp "$T/out" "$T/same.txt"
n=$(grep -c ' reproduced$' "$T/same.txt")
[ "$n" = 12 ] && ok "every one of the 12 cases reproduced" || { not_ok "reproduced: $n of 12"; show "$T/same.txt"; }
expect_out "12 reproduced, 0 faster, 0 slower, 0 not comparable"
NEW=$(ls "$T"/new/repro-*.bench.tar.gz)
[ -z "$(ls -A "$T/new" | grep '^\.reproduce')" ] && ok "the work directory is removed" || not_ok "a .reproduce work directory is left"

# 5. the new bundle: verifies, holds reproduce.json and the original's lock, names the original as a material
expect 0 "the new bundle verifies" "$BENCH" verify "$NEW"
python3 - "$NEW" "$ORIG" "$OSHA" "$T/repro.lock.json" <<'PY' >"$T/m.txt" 2>&1 && ok "statement: resolvedDependencies name bench-bundle:$(basename "$ORIG") with its sha256; reproduce.json and the lock in the bundle" || { not_ok "the material"; show "$T/m.txt"; }
import base64, json, os, sys, tarfile
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
assert rep["original"]["bundle"] == os.path.basename(orig) and rep["run"] == run
assert rep["counts"]["reproduced"] == 12 and len(rep["cases"]) == 12
assert rep["stack_differs"] == [] and rep["not_reproducible"] == [] and rep["reproducible"] is True, rep["stack_differs"]
assert all(c["verdict"] == "reproduced" and c["ci95"][0] <= 1 + c["threshold"] and c["ci95"][1] >= 1 - c["threshold"]
           for c in rep["cases"])
PY

# 2. the same bundle reproduced by a runner 10% slower: slower, every case, exit 9
BENCH_RUNNERS=$FAKE FAKE_SLOWDOWN=0.10 expect 9 "a reproduction 10% slower: exit 9" "$BENCH" reproduce -q -o "$T/slow" "$ORIG"
n=$(grep -c ' slower$' "$T/out")
[ "$n" = 12 ] && ok "every one of the 12 cases slower" || { not_ok "slower: $n of 12"; show "$T/out"; }
expect_out "0 reproduced, 0 faster, 12 slower, 0 not comparable"
BENCH_RUNNERS=$FAKE FAKE_SLOWDOWN=0.10 expect 0 "--threshold 0.2 takes 10% as noise: reproduced, exit 0" \
	"$BENCH" reproduce -q --threshold 0.2 -o "$T/slow" "$ORIG"
expect_out "12 reproduced, 0 faster, 0 slower"

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
BENCH_RUNNERS=$FAKE refused "a tampered bundle" "verification failed" "$BENCH" reproduce -q -o "$T/tamp" "$TAMP"
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
BENCH_RUNNERS=$FAKE expect 6 "another GPU model: exit 6" "$BENCH" reproduce -o "$T/gpunew" "$G.bench.tar.gz"
n=$(grep -c 'not reproducible here (gpu model: NVIDIA Planted X1 vs ' "$T/out")
[ "$n" = 2 ] && ok "both cases: not reproducible here (gpu model: NVIDIA Planted X1 vs ...)" || { not_ok "not reproducible: $n of 2"; show "$T/out"; }
expect_out "2 not reproducible here: nothing was run"
[ -z "$(ls -A "$T/gpunew")" ] && ok "nothing run: no run directory in $T/gpunew" || { not_ok "a run directory was made"; ls -A "$T/gpunew" | sed 's/^/#   /'; }
BENCH_RUNNERS=$FAKE expect 6 "--json: the same verdicts as JSON" "$BENCH" reproduce -q --json -o "$T/gpunew" "$G.bench.tar.gz"
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
BENCH_RUNNERS=$FAKE expect 0 "reproduce a bundle of another CPU: run anyway, exit 0" "$BENCH" reproduce -q -o "$T/elsenew" "$E.bench.tar.gz"
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

# 1b. real CPU runners (gemm cblas, membw): each verdict is the rule applied to the printed ratio and CI
unset FAKE_MODE FAKE_SEQ FAKE_RUN_SD FAKE_WITHIN_SD FAKE_N FAKE_SEED
if [ -x "${BENCH_RUNNERS:-}/bench-gemm" ] && [ -x "${BENCH_RUNNERS:-}/bench-membw" ]; then
	cat >"$T/cpu.yaml" <<'EOF'
bench: 1
name: cpurepro
target: {vendor: cpu, gpu: cpu, nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local, timeout: 2m}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[256, 256, 256], [512, 512, 512]], warmup: 10ms, rep: 300ms}
  membw: {ops: [copy, read], bytes: 16MiB, warmup: 10ms, rep: 300ms}
EOF
	expect 0 "a CPU bundle made with the real runners" "$BENCH" run -q -o "$T/cpu" "$T/cpu.yaml"
	CPU=$(ls "$T"/cpu/cpurepro-*.bench.tar.gz)
	"$BENCH" reproduce -q --json -o "$T/cpunew" "$CPU" >"$T/cpu.json" 2>"$T/err"
	rc=$?
	python3 - "$T/cpu.json" "$rc" <<'PY' >"$T/cpu.txt" 2>&1 && ok "real runners: $(cat "$T/cpu.txt")" || { not_ok "real runners"; show "$T/cpu.txt"; show "$T/err"; }
import json, sys
d = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
assert d["reproducible"] is True and len(d["cases"]) == 4, d
for c in d["cases"]:
    if "ci95" not in c:  # a loaded machine can leave a case with one sample: no interval, said so
        assert c["verdict"] == "not comparable" and "too few samples" in c["why"], c
        continue
    lo, hi = c["ci95"]
    t = c["threshold"]
    want = "slower" if hi < 1 - t else "faster" if lo > 1 + t else "reproduced"
    assert c["verdict"] == want, c
assert rc == (9 if d["counts"]["slower"] else 0), (rc, d["counts"])
print("every verdict follows its CI (%s), exit %d" % (", ".join("%s %s %s" % (
    c["case"].split("/")[-2] if c["suite"] == "gemm" else c["case"],
    "%.2f [%.2f, %.2f]" % (c["ratio"], c["ci95"][0], c["ci95"][1]) if "ci95" in c else "-", c["verdict"])
    for c in d["cases"]), rc))
PY
else
	echo "# the CPU runners are not built (make runners): the real-runner reproduction is skipped"
fi

expect 2 "no bundle: usage error" "$BENCH" reproduce
expect_err "no bundle given"
expect 2 "--threshold out of range" "$BENCH" reproduce --threshold 1.5 "$ORIG"
finish
