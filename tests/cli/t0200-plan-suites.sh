#!/bin/sh
# bench plan and bench suites: exact output held by golden files, --suite filtering, JSON well-formed.
. "$(dirname "$0")/lib.sh"

expect 0 "plan --json quickstart" "$BENCH" plan --json manifests/quickstart.yaml
expect_same "plan --json quickstart matches tests/golden/plan-quickstart.json" tests/golden/plan-quickstart.json "$T/out"
expect 0 "plan h200-host" "$BENCH" plan manifests/h200-host.yaml
expect_same "plan h200-host matches tests/golden/plan-h200-host.txt" tests/golden/plan-h200-host.txt "$T/out"
expect 0 "suites --json" "$BENCH" suites --json
expect_same "suites --json matches tests/golden/suites.json" tests/golden/suites.json "$T/out"
expect 0 "suites" "$BENCH" suites
expect_same "suites matches tests/golden/suites.txt" tests/golden/suites.txt "$T/out"

# the same plan twice is the same bytes
"$BENCH" plan --json manifests/cuda-stable.yaml >"$T/a"
"$BENCH" plan --json manifests/cuda-stable.yaml >"$T/b"
expect_same "plan output is deterministic" "$T/a" "$T/b"

# every example's plan: keys unique, suite counts add up, every case names a registered suite
for f in manifests/*.yaml; do
	"$BENCH" plan --json "$f" >"$T/p.json"
	if python3 - "$T/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = [(c["suite"], c["case"]) for c in d["cases"]]
assert len(keys) == len(set(keys)), "duplicate case keys"
assert sum(d["suites"].values()) == len(d["cases"])
assert set(d["suites"]) <= {"gemm", "membw", "collectives", "attention", "training"}
assert d["schema"] == "bench.plan/v1" and d["ranks"] >= 1
PY
	then ok "plan of $f is consistent"; else not_ok "plan of $f is consistent"; fi
done

# gemm tunableop: a twin case per torch backend case, none for blaslt; refused without a torch backend
cat >"$T/tun.yaml" <<'Y'
bench: 1
name: tun
target: {vendor: cuda, gpu: h200}
runtime: {engine: host}
suites:
  gemm: {backends: [blaslt, torch-linear], dtypes: [bf16], shapes: [[256, 512, 128]], tunableop: true}
Y
expect 0 "plan with tunableop" "$BENCH" plan "$T/tun.yaml"
grep -v '^#' "$T/out" | awk '{print $2}' >"$T/keys"
printf '%s\n' blaslt/bf16/tn/256x512x128/heuristic torch-linear/bf16/tn/256x512x128/default \
	torch-linear/bf16/tn/256x512x128/tunableop | cmp -s - "$T/keys" &&
	ok "tunableop: the torch case and its tunableop twin, blaslt unchanged" || { not_ok "tunableop keys"; show "$T/keys"; }
sed -i 's/blaslt, torch-linear/blaslt/' "$T/tun.yaml"
expect 3 "tunableop without a torch backend" "$BENCH" validate "$T/tun.yaml"
expect_err "tun.yaml:6:84: error: 'tunableop' is PyTorch's: it needs a torch backend (torch-matmul, torch-linear or torch-scaled-mm)"

expect 0 "plan --suite filters" "$BENCH" plan --suite membw manifests/quickstart.yaml
expect_out "# quickstart: 3 cases; membw 3"
if grep -q '^gemm' "$T/out"; then not_ok "--suite membw left gemm cases"; else ok "--suite membw drops other suites"; fi
expect 2 "plan --suite with an unknown suite" "$BENCH" plan --suite gem manifests/quickstart.yaml
expect_err "unknown suite 'gem' in --suite"
expect 3 "plan of an invalid manifest prints its problems" "$BENCH" plan tests/vectors/manifest-invalid/016-vendor-typo.yaml
expect_err "016-vendor-typo.yaml:3:18: error: 'vendor' must be one of cuda, rocm, cpu; got 'cdua' (did you mean 'cuda'?)"
expect 0 "suites gemm shows one suite" "$BENCH" suites gemm
expect_out "gemm — "
if grep -q '^membw' "$T/out"; then not_ok "suites gemm printed membw"; else ok "suites gemm prints only gemm"; fi
expect 2 "suites with an unknown name suggests" "$BENCH" suites colectives
expect_err "unknown suite 'colectives' (did you mean 'collectives'?)"

# bench suites documents every parameter the validator accepts: each one, set to its default, validates
"$BENCH" suites --json >"$T/s.json"
python3 - "$T/s.json" "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2]
for s in d["suites"]:
    for p in s["params"]:
        with open(f"{out}/p-{s['name']}-{p['name']}.yaml", "w") as f:
            f.write("bench: 1\nname: p\ntarget: {vendor: cuda}\nruntime: {engine: host}\n")
            f.write(f"suites:\n  {s['name']}:\n    {p['name']}: {p['default']}\n")
PY
n=0
for f in "$T"/p-*.yaml; do
	n=$((n + 1))
	expect 0 "documented default validates: $(basename "$f")" "$BENCH" validate -q "$f"
done
[ "$n" -ge 40 ] && ok "bench suites documents $n parameters" || not_ok "only $n parameters documented"

# docs/manifest-format.md carries the current parameter reference
"$BENCH" suites >"$T/suites.txt"
missing=0
while IFS= read -r line; do grep -qxF -- "$line" docs/manifest-format.md || missing=$((missing + 1)); done <"$T/suites.txt"
[ "$missing" = 0 ] && ok "docs/manifest-format.md holds every line of 'bench suites'" ||
	not_ok "docs/manifest-format.md lacks $missing lines of 'bench suites' (regenerate its Parameters block)"

finish
