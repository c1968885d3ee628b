#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Env profiles and variants (issue 20): the ROCm base presets no tuning flag; a manifest includes the seed's flags
# by name (images/profiles/rocm-seed-tuning.yaml); one manifest measures several env variants side by side, each a
# stack of its own (<name>+<variant>: its own runs, plan, environment and bundle) that `bench compare` compares.
# And the ROCm environment capture: amd-smi, rocm-smi and rocminfo outputs recorded from their documented formats
# (tests/fixtures/rocm), served by stand-ins on PATH (no AMD GPU here), parsed by the real capture.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
FIX=$(cd "$(dirname "$0")/../fixtures/rocm" && pwd)
DATA=${BENCH_DATA:-$(cd "$(dirname "$0")/../.." && pwd)}

# --- the ROCm base presets none of the seed's flags; the profile holds them ---------------------------------------
if ! grep -qE 'TORCH_BLAS_PREFER_HIPBLASLT|HIP_FORCE_DEV_KERNARG|NCCL_MIN_NCHANNELS|GPU_MAX_HW_QUEUES' "$DATA/images/bases/rocm.yaml" &&
	python3 - "$DATA/images/profiles/rocm-seed-tuning.yaml" <<'PY'
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
want = {"HIP_FORCE_DEV_KERNARG": "1", "NCCL_MIN_NCHANNELS": "112", "TORCH_NCCL_HIGH_PRIORITY": "1",
        "GPU_MAX_HW_QUEUES": "2", "TORCH_BLAS_PREFER_HIPBLASLT": "1"}
assert all(p["env"].get(k) == v for k, v in want.items()), p["env"]
assert p["vendor"] == "rocm" and p["description"]
PY
then ok "images/bases/rocm.yaml presets no seed flag; rocm-seed-tuning holds them"; else not_ok "rocm base or profile"; fi

# --- validation: an unknown profile is placed and a near name suggested --------------------------------------------
cat >"$T/bad.yaml" <<'Y'
bench: 1
name: bad
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env_profiles: [rocm-seed-tunning]
variants:
  - name: default
  - {name: tuned, env_profiles: [nope]}
suites:
  membw: {}
Y
expect 3 "validate refuses unknown env profiles" "$BENCH" validate "$T/bad.yaml"
expect_err "$T/bad.yaml:6:18: error: unknown env profile 'rocm-seed-tunning' (did you mean 'rocm-seed-tuning'?)"
expect_err "$T/bad.yaml:9:34: error: unknown env profile 'nope'; images/profiles has rocm-seed-tuning"

# --- two variants, measured side by side ------------------------------------------------------------------------
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
cat >"$T/v.yaml" <<'Y'
bench: 1
name: vt
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env: {OMP_NUM_THREADS: "1"}
variants:
  - name: default
  - name: tuned
    env_profiles: [rocm-seed-tuning]
    env: {NCCL_MIN_NCHANNELS: "64", FAKE_SLOWDOWN: "-0.2"}
suites:
  gemm: {dtypes: [fp32], shapes: [[16, 16, 16], [32, 16, 16], [48, 16, 16], [64, 16, 16]]}
Y
expect 0 "validate: a manifest with variants" "$BENCH" validate "$T/v.yaml"
expect 0 "plan names one stack per variant" "$BENCH" plan "$T/v.yaml"
expect_out "# stacks: vt+default vt+tuned"
expect 0 "plan --json" "$BENCH" plan --json "$T/v.yaml"
python3 - "$T/out" <<'PY' && ok "plan --json: each variant's stack and merged env" || not_ok "plan --json variants"
import json, sys
p = json.load(open(sys.argv[1]))
d, t = p["variants"]
assert (d["stack"], t["stack"]) == ("vt+default", "vt+tuned"), p["variants"]
assert d["env"] == {"OMP_NUM_THREADS": "1"} and d["env_profiles"] == []
assert t["env_profiles"] == ["rocm-seed-tuning"] and t["env"]["HIP_FORCE_DEV_KERNARG"] == "1"
assert t["env"]["NCCL_MIN_NCHANNELS"] == "64" and t["env"]["OMP_NUM_THREADS"] == "1"
PY
expect 0 "--dry-run shows every variant" "$BENCH" run --dry-run "$T/v.yaml"
[ "$(grep -c '/bench-gemm --config' "$T/out")" = 2 ] && ok "--dry-run: one runner command per variant" || { not_ok "--dry-run variants"; show "$T/out"; }

# a container engine: the variants share the manifest's image, the tuned one's variables handed to each runner
expect 0 "--dry-run of manifests/rocm-env-variants.yaml (engine podman)" "$BENCH" run --dry-run "$DATA/manifests/rocm-env-variants.yaml"
if [ "$(grep -c '^# rocm-env-variants+default: ' "$T/out")" = 1 ] && [ "$(grep -c '^# rocm-env-variants+seed-tuned: ' "$T/out")" = 1 ] &&
	[ "$(grep -c -- '-e TORCH_BLAS_PREFER_HIPBLASLT' "$T/out")" = 2 ] && ! sed -n '/+default:/,/+seed-tuned:/p' "$T/out" | grep -q -- '-e HIP_FORCE_DEV_KERNARG'
then ok "podman: the seed-tuned variant's runners get the profile's variables, the default's none"; else not_ok "podman variants"; show "$T/out"; fi

# the tuned variant's env reaches its runner: FAKE_SLOWDOWN=-0.2 makes the fake runner's samples 20% shorter
RUNNERS0=${BENCH_RUNNERS:-} # the runners under test (make asan: build/asan/runners), back after the fake ones
export BENCH_RUNNERS="$T/fake" FAKE_MODE=noisy FAKE_SEQ="$T/seq" FAKE_RUN_SD=0.02 FAKE_WITHIN_SD=0.01 FAKE_N=10 FAKE_SEED=7
expect 0 "bench run of a manifest with two variants, three rounds" "$BENCH" run -q -o "$T/runs" --rounds 3 "$T/v.yaml"
DEF=$(ls -d "$T"/runs/vt+default-* | grep -v '\.bench\.' | sort)
TUN=$(ls -d "$T"/runs/vt+tuned-* | grep -v '\.bench\.' | sort)
[ "$(echo "$DEF" | wc -l)" = 3 ] && [ "$(echo "$TUN" | wc -l)" = 3 ] && [ "$(ls "$T"/runs/*.bench.tar.gz | wc -l)" = 6 ] &&
	ok "three runs and three bundles per variant, named <name>+<variant>" || { not_ok "runs per variant"; ls "$T/runs" | sed 's/^/#   /'; }
# shellcheck disable=SC2086 # the run lists split on purpose
if python3 - $DEF -- $TUN <<'PY'
import json, sys
a = sys.argv[1:]
dflt, tuned = a[:a.index("--")], a[a.index("--") + 1:]
seed = {"HIP_FORCE_DEV_KERNARG": "1", "TORCH_NCCL_HIGH_PRIORITY": "1", "GPU_MAX_HW_QUEUES": "2", "TORCH_BLAS_PREFER_HIPBLASLT": "1"}
groups, rounds = set(), set()
for d, variant in [(x, "default") for x in dflt] + [(x, "tuned") for x in tuned]:
    env = json.load(open(f"{d}/env/environment.json"))
    plan = json.load(open(f"{d}/plan.json"))
    st = json.load(open(f"{d}/status.json"))
    assert plan["name"] == "vt+" + variant and plan["variant"] == variant, plan
    assert env["bench"]["variant"] == variant, env["bench"]
    assert st["state"] == "complete" and st["interleave"]["stacks"] == 2, st
    groups.add(st["interleave"]["group"])
    rounds.add((variant, st["interleave"]["round"]))
    assert env["env"]["OMP_NUM_THREADS"] == "1"
    if variant == "tuned":
        assert env["bench"]["env_profiles"] == ["rocm-seed-tuning"]
        assert all(env["env"].get(k) == v for k, v in seed.items()), env["env"]
        assert env["env"]["NCCL_MIN_NCHANNELS"] == "64"  # the variant's own value over its profile's 112
    else:
        assert env["bench"]["env_profiles"] == [] and not any(k in env["env"] for k in seed), env["env"]
assert len(groups) == 1 and len(rounds) == 6, (groups, rounds)  # one interleaved set: each variant once a round
PY
then ok "each run records its variant, its env profiles and its env (the profile's flags only in the tuned runs)"; else not_ok "variant records"; fi
# shellcheck disable=SC2086
expect 0 "bench compare: the default runs against the tuned runs" "$BENCH" compare --format json $DEF --vs $TUN
python3 - "$T/out" <<'PY' && ok "compare: the tuned stack is faster in every case, its env differences listed" || { not_ok "compare variants"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["nruns"] for s in d["sides"]] == [3, 3], d["sides"]
assert d["sides"][0]["label"].startswith("vt+default") and d["sides"][1]["label"].startswith("vt+tuned"), d["sides"]
v = [c["others"][0] for c in d["cases"]]
assert len(v) == 4 and all(o["verdict"] == "faster" and o["ratio"] > 1.15 for o in v), v
PY
B1=$(echo "$DEF" | head -n 1) B2=$(echo "$TUN" | head -n 1)
expect 0 "bench compare of two variant bundles" "$BENCH" compare "$B1.bench.tar.gz" "$B2.bench.tar.gz"
expect_out 'env.HIP_FORCE_DEV_KERNARG'
expect 0 "a variant's bundle verifies" "$BENCH" verify "$B2.bench.tar.gz"
expect 0 "--resume of a variant's run keeps its variant" "$BENCH" run -q --resume "$B2"
unset BENCH_RUNNERS FAKE_MODE FAKE_SEQ FAKE_RUN_SD FAKE_WITHIN_SD FAKE_N FAKE_SEED
[ -n "$RUNNERS0" ] && export BENCH_RUNNERS="$RUNNERS0"

# --- ROCm environment capture from the tools' outputs -------------------------------------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
	echo "# nvidia-smi on this machine: the ROCm capture is not reached; skipping it"
else
	mkdir -p "$T/amd" "$T/rsmi" "$T/none"
	cat >"$T/amd/amd-smi" <<SH
#!/bin/sh
case "\$1" in static) cat "$FIX/amd-smi-static.json" ;; metric) cat "$FIX/amd-smi-metric.json" ;;
topology) cat "$FIX/amd-smi-topology.json" ;; *) exit 2 ;; esac
SH
	cat >"$T/rsmi/rocm-smi" <<SH
#!/bin/sh
case "\$*" in *--showtopo*) cat "$FIX/rocm-smi-topo.json" ;; *--showproductname*--json*) cat "$FIX/rocm-smi.json" ;; *) exit 2 ;; esac
SH
	printf '#!/bin/sh\ncat "%s/rocminfo.txt"\n' "$FIX" >"$T/amd/rocminfo"
	cp "$T/amd/rocminfo" "$T/rsmi/rocminfo"
	chmod +x "$T/amd/amd-smi" "$T/amd/rocminfo" "$T/rsmi/rocm-smi" "$T/rsmi/rocminfo"
	cat >"$T/c.yaml" <<'Y'
bench: 1
name: cap
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env: {PYTORCH_TUNABLEOP_ENABLED: "1", MIOPEN_FIND_MODE: "FAST", AMD_LOG_LEVEL: "0", RCCL_MSCCL_ENABLE: "0"}
suites:
  membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 5ms}
Y
	for kind in amd rsmi none; do
		PATH="$T/$kind:$PATH" expect 0 "a run with $kind GPU tools" "$BENCH" run -q --no-pack -o "$T/cap-$kind" "$T/c.yaml"
	done
	if python3 - "$(ls -d "$T"/cap-amd/cap-*)" <<'PY'
import json, os, sys
d = sys.argv[1]
e = json.load(open(f"{d}/env/environment.json"))
assert e["gpu_tool"] == "amd-smi" and len(e["gpus"]) == 2, e.get("gpu_tool")
g = e["gpus"][0]
assert (g["name"], g["gfx_target"], g["vbios"], g["driver"]) == ("AMD Instinct MI300X", "gfx942", "022.040.003.043.000001", "6.10.5"), g
assert (g["memory_mib"], g["power_limit_w"], g["max_sm_mhz"], g["max_mem_mhz"]) == (196592, 750, 2100, 1300), g
assert [(l["peer"], l["type"], l["status"]) for l in g["links"]] == [(1, "XGMI", "ENABLED")], g["links"]
assert e["gpus"][1]["links"][0]["status"] == "DISABLED"
assert e["gpu_tools"]["amd-smi"] and e["gpu_tools"]["rocminfo"] and not e["gpu_tools"]["rocm-smi"], e["gpu_tools"]
assert [a["gfx_target"] for a in e["rocminfo"]["agents"]] == ["gfx942", "gfx942"], e["rocminfo"]
for f in ("amd-smi-static.json", "amd-smi-metric.json", "amd-smi-topology.json", "rocminfo.txt"):
    assert os.path.getsize(f"{d}/env/raw/{f}") > 0, f
for k, v in {"PYTORCH_TUNABLEOP_ENABLED": "1", "MIOPEN_FIND_MODE": "FAST", "AMD_LOG_LEVEL": "0", "RCCL_MSCCL_ENABLE": "0"}.items():
    assert e["env"].get(k) == v, (k, e["env"])
PY
	then ok "amd-smi: name, gfx target, VBIOS, driver, memory, clocks, power cap, XGMI state; rocminfo agents; ROCm variables"; else not_ok "amd-smi capture"; fi
	if python3 - "$(ls -d "$T"/cap-rsmi/cap-*)" <<'PY'
import json, sys
e = json.load(open(f"{sys.argv[1]}/env/environment.json"))
assert e["gpu_tool"] == "rocm-smi" and len(e["gpus"]) == 2, e.get("gpu_tool")
g = e["gpus"][1]
assert (g["name"], g["gfx_target"], g["vbios"], g["driver"], g["power_limit_w"]) == ("AMD Instinct MI300X", "gfx942", "113-M3000100-102", "6.10.5", 700), g
assert g["links"][0]["type"] == "XGMI" and g["links"][0]["peer"] == 0, g
assert e["gpu_tools"]["amd-smi"] is False and e["gpu_tools"]["rocm-smi"] is True
PY
	then ok "rocm-smi --json when there is no amd-smi"; else not_ok "rocm-smi capture"; fi
	if python3 - "$(ls -d "$T"/cap-none/cap-*)" <<'PY'
import json, sys
e = json.load(open(f"{sys.argv[1]}/env/environment.json"))
assert e["gpu_tool"] is None and e["gpus"] == [] and "rocminfo" not in e, e
assert e["gpu_tools"] == {"nvidia-smi": False, "amd-smi": False, "rocm-smi": False, "rocminfo": False}, e["gpu_tools"]
PY
	then ok "no GPU tool: recorded as absent, the run still complete"; else not_ok "absent tools"; fi
fi
finish
