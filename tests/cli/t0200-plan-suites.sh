#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
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
assert set(d["suites"]) <= {"gemm", "membw", "collectives", "attention", "ssm", "training"}
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

# gemm fp8e5m2 (e5m2 gradient x e4m3 weight): blaslt cases like fp8e4m3's, torch-scaled-mm cases for both fp8
# dtypes and none for bf16; CBLAS alone refuses it on a GPU target, torch-scaled-mm needs an fp8 dtype
cat >"$T/f8.yaml" <<'Y'
bench: 1
name: f8
target: {vendor: cuda, gpu: h200}
runtime: {engine: host}
suites:
  gemm: {backends: [blaslt, torch-scaled-mm], dtypes: [bf16, fp8e4m3, fp8e5m2], shapes: [[256, 512, 128]]}
Y
expect 0 "plan with fp8e5m2" "$BENCH" plan "$T/f8.yaml"
grep -v '^#' "$T/out" | awk '{print $2}' >"$T/keys"
printf '%s\n' blaslt/bf16/tn/256x512x128/heuristic blaslt/fp8e4m3/tn/256x512x128/heuristic \
	blaslt/fp8e5m2/tn/256x512x128/heuristic torch-scaled-mm/fp8e4m3/tn/256x512x128/default \
	torch-scaled-mm/fp8e5m2/tn/256x512x128/default | cmp -s - "$T/keys" &&
	ok "fp8e5m2: blaslt and torch-scaled-mm cases, scaled-mm only for fp8" || { not_ok "fp8e5m2 keys"; show "$T/keys"; }
sed -i 's/backends: \[blaslt, torch-scaled-mm\], dtypes: \[bf16, fp8e4m3, fp8e5m2\]/backends: [cblas], dtypes: [fp8e5m2]/' "$T/f8.yaml"
expect 3 "fp8e5m2 with cblas alone" "$BENCH" validate "$T/f8.yaml"
expect_err "f8.yaml:6:37: error: dtype 'fp8e5m2' has no CBLAS implementation; use backend 'blaslt'"
sed -i 's/backends: \[cblas\], dtypes: \[fp8e5m2\]/backends: [torch-scaled-mm], dtypes: [bf16]/' "$T/f8.yaml"
expect 3 "torch-scaled-mm without an fp8 dtype" "$BENCH" validate "$T/f8.yaml"
expect_err "f8.yaml:6:20: error: backend 'torch-scaled-mm' measures fp8 only; add 'fp8e4m3' or 'fp8e5m2' to 'dtypes'"

# ssm: keys shaped like attention's (chunk, and groups when not 1, in place of the mask), batch = tokens / seq_len
cat >"$T/ssm.yaml" <<'Y'
bench: 1
name: ssm
target: {vendor: cuda, gpu: h200}
runtime: {engine: host}
suites:
  ssm: {seq_lens: [2048, 8192], passes: [fwd, bwd]}
  attention: {impl: [sdpa-flash], seq_lens: [2048], passes: [fwd]}
Y
expect 0 "plan an ssm suite with its defaults" "$BENCH" plan "$T/ssm.yaml"
grep -v '^#' "$T/out" | awk '{print $1 " " $2}' >"$T/keys"
printf '%s\n' "attention sdpa-flash/bf16/causal/8x2048x16x128/fwd" \
	"ssm torch/bf16/chunk256/8x2048x80x64x128/fwd" "ssm torch/bf16/chunk256/8x2048x80x64x128/bwd" \
	"ssm torch/bf16/chunk256/2x8192x80x64x128/fwd" "ssm torch/bf16/chunk256/2x8192x80x64x128/bwd" \
	"ssm mamba_ssm/bf16/chunk256/8x2048x80x64x128/fwd" "ssm mamba_ssm/bf16/chunk256/8x2048x80x64x128/bwd" \
	"ssm mamba_ssm/bf16/chunk256/2x8192x80x64x128/fwd" "ssm mamba_ssm/bf16/chunk256/2x8192x80x64x128/bwd" |
	cmp -s - "$T/keys" && ok "ssm keys: impl/dtype/chunkQ/BxLxHxPxN/pass, Mamba2-2.7B defaults, after attention" ||
	{ not_ok "ssm keys"; show "$T/keys"; }
"$BENCH" plan --json "$T/ssm.yaml" >"$T/ssm.json"
if python3 - "$T/ssm.json" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cases"] if c["suite"] == "ssm"]
assert c[2]["case"] == "torch/bf16/chunk256/2x8192x80x64x128/fwd", c[2]
assert c[2]["params"] == {"impl": "torch", "batch": 2, "seq_len": 8192, "pass": "fwd", "heads": 80, "head_dim": 64,
                          "state": 128, "chunk": 256, "groups": 1, "tokens": 16384, "dtype": "bf16", "mode": "steady",
                          "warmup_ms": 30.0, "rep_ms": 200.0}, c[2]["params"]
PY
then ok "ssm case params: batch, seq_len, pass and every scalar parameter"; else not_ok "ssm case params"; fi
sed -i 's/seq_lens: \[2048, 8192\], passes/seq_lens: [512], chunk: 128, groups: 8, heads: 16, impl: [torch], passes/' "$T/ssm.yaml"
expect 0 "plan ssm with groups" "$BENCH" plan "$T/ssm.yaml"
expect_out "torch/bf16/chunk128-g8/32x512x16x64x128/bwd"
cat >"$T/ssm-bad.yaml" <<'Y'
bench: 1
name: ssmbad
target: {vendor: cuda, gpu: h200}
runtime: {engine: host}
suites:
  ssm:
    seq_lens: [2048, 1000]
    groups: 3
    tokens: 6144
Y
expect 3 "ssm: cross-field and enum errors" "$BENCH" validate "$T/ssm-bad.yaml"
expect_err "ssm-bad.yaml:7:15: error: every seq_len must be a multiple of 'chunk' (256); 1000 is not"
expect_err "ssm-bad.yaml:8:13: error: 'heads' (80) must be a multiple of 'groups' (3)"
expect_err "ssm-bad.yaml:9:13: error: 'tokens' (6144) must be a multiple of every seq_len; 1000 is not a divisor"
printf '    impl: [torch, mamba-ssm]\n' >>"$T/ssm-bad.yaml"
expect 3 "ssm: an impl that is not one" "$BENCH" validate "$T/ssm-bad.yaml"
expect_err "ssm-bad.yaml:10:19: error: 'impl' entry 2 must be one of torch, mamba_ssm; got 'mamba-ssm' (did you mean 'mamba_ssm'?)"
sed -i -e 's/1000/4096/' -e 's/groups: 3/groups: 5/' -e 's/mamba-ssm/mamba_ssm/' "$T/ssm-bad.yaml"
expect 3 "ssm: 5 groups of 80 heads pass, tokens 6144 still fails for 4096" "$BENCH" validate "$T/ssm-bad.yaml"
expect_err "ssm-bad.yaml:9:13: error: 'tokens' (6144) must be a multiple of every seq_len; 4096 is not a divisor"
[ "$(grep -c 'error:' "$T/err")" = 1 ] && ok "ssm: that error alone" || { not_ok "ssm: more errors than the tokens one"; show "$T/err"; }
sed -i -e 's/tokens: 6144/tokens: 8192/' -e 's/groups: 5/groups: 4\n    chunk: 3/' "$T/ssm-bad.yaml"
expect 3 "ssm: a chunk that does not divide the seq_lens" "$BENCH" validate "$T/ssm-bad.yaml"
expect_err "ssm-bad.yaml:7:15: error: every seq_len must be a multiple of 'chunk' (3); 2048 is not"
sed -i 's/chunk: 3/chunk: 64/' "$T/ssm-bad.yaml"
expect 0 "ssm: a valid chunk, groups and tokens" "$BENCH" validate -q "$T/ssm-bad.yaml"

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
            f.write("bench: 1\nname: p\ntarget: {vendor: cuda, gpus_per_node: 8}\nruntime: {engine: host}\n")
            f.write(f"suites:\n  {s['name']}:\n    {p['name']}: {p['default']}\n")
PY
n=0
for f in "$T"/p-*.yaml; do
	n=$((n + 1))
	expect 0 "documented default validates: $(basename "$f")" "$BENCH" validate -q "$f"
done
[ "$n" -ge 40 ] && ok "bench suites documents $n parameters" || not_ok "only $n parameters documented"

# training keys: the head in fp8 and the zipf data are part of a case's name (compare never matches them with others)
printf 'bench: 1\nname: k\ntarget: {vendor: cuda, gpu: h200}\nruntime: {engine: host}\nsuites:\n  training: {layers: 4, precision: [bf16, fp8], fp8_head: true, data: zipf, lr: 3e-5, scaling: true}\n' >"$T/keys.yaml"
expect 0 "plan of training with fp8_head, data zipf, lr, scaling" "$BENCH" plan --json "$T/keys.yaml"
python3 - "$T/out" <<'PY' && ok "training keys: bf16 plain, fp8+head, /zipf; params lr 3e-05, scaling true" || not_ok "training keys"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
keys = [c["case"] for c in cases]
assert keys == ["llama3-8b/L4/bf16/s4096/mb1/fsdp/compile/zipf", "llama3-8b/L4/fp8+head/s4096/mb1/fsdp/compile/zipf"], keys
assert all(c["params"]["lr"] == 3e-5 and c["params"]["scaling"] is True and c["params"]["data"] == "zipf" for c in cases)
PY

# docs/manifest-format.md carries the current parameter reference
"$BENCH" suites >"$T/suites.txt"
missing=0
while IFS= read -r line; do grep -qxF -- "$line" docs/manifest-format.md || missing=$((missing + 1)); done <"$T/suites.txt"
[ "$missing" = 0 ] && ok "docs/manifest-format.md holds every line of 'bench suites'" ||
	not_ok "docs/manifest-format.md lacks $missing lines of 'bench suites' (regenerate its Parameters block)"

finish
