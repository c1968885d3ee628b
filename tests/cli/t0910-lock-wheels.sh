#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench lock of pip components against a loopback index shaped like PyTorch's (tests/cli/wheelindex.py): the
# version chosen for the wheel target (the base's Python, ABI, platform and accelerator; stack.wheel_target
# overrides it), '%2B' and '+local' read as PEP 440 says, the target's accelerator build among several, dated
# nightlies and 'latest'; the whole closure by pip's resolver with Requires-Dist markers evaluated for the target;
# a nightly companion pinned to what torch requires; the exact files chosen; the same bytes twice; --check naming
# the package that moved; conflicts between closures; a python without pip; the recipe installing the union of the
# closures once each; a base pinned by digest locked without asking podman or a registry.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
python3 "$HERE/wheelindex.py" "$T/idx" || { not_ok "wheelindex.py"; finish; exit 1; }
serve_dir "$T/idx" whl/simple/torch/
S="http://127.0.0.1:$port/whl/simple"
N="http://127.0.0.1:$port/whl/nightly/simple"
DIGEST=sha256:$(printf base | sha256sum | cut -c1-64)

# manifest NAME VENDOR COMPONENTS... [-- STACK-LINES]: $T/NAME.yaml, a podman stack on a base pinned by digest
manifest() {
	name=$1 vendor=$2
	shift 2
	{ printf 'bench: 1\nname: %s\nchannel: nightly\ntarget: {vendor: %s}\nruntime: {engine: podman}\n' "$name" "$vendor"
	  printf 'stack:\n  base: "registry.invalid/base@%s"\n' "$DIGEST"
	  [ -n "${WT:-}" ] && printf '  wheel_target: %s\n' "$WT"
	  printf '  components:\n'
	  for c in "$@"; do printf '    - %s\n' "$c"; done
	  printf 'suites: {membw: {}}\n'; } >"$T/$name.yaml"
}

# closure LOCK COMPONENT "name==version ..." FILE: the component's packages are exactly these, each sha256 that of
# the file the index serves, and its own wheel is FILE
closure() {
	if python3 - "$@" "$T/idx" <<'PY'
import hashlib, json, os, sys, urllib.parse
lock, comp, want, file, idx = sys.argv[1:]
c = json.load(open(lock))["components"][comp]
got = " ".join(f'{p["name"]}=={p["version"]}' for p in c["packages"])
assert got == want, f"closure {got!r}, wanted {want!r}"
for p in c["packages"]:
    path = urllib.parse.urlsplit(p["url"]).path
    assert hashlib.sha256(open(idx + urllib.parse.unquote(path), "rb").read()).hexdigest() == p["sha256"], p
assert urllib.parse.unquote(c["url"].rsplit("/", 1)[1]) == file, c["url"]
assert [p for p in c["packages"] if p["url"] == c["url"] and p["sha256"] == c["sha256"]], c
PY
	then ok "$2: $4; closure $3"; else not_ok "$2: closure or file"; fi
}

# stable on CUDA (Python 3.12, glibc 2.39): "2.11.0" is 2.11.0+cu130, the cp312 x86_64 wheel; the markers for
# the target: py312-only (python_version >= 3.12: the target's, not this machine's 3.11) in, arm-only, old-py and
# the extra out; chain-a -> chain-b -> chain-c; the base's digest taken from its reference
manifest cuda-stable cuda "{name: torch, pip: \"2.11.0\", index: \"$S\"}"
# podman and skopeo that fail if asked: a base given by digest needs neither
mkdir -p "$T/nopodman"
printf '#!/bin/sh\necho "asked: $0 $*" >>"%s/asked"\nexit 1\n' "$T" >"$T/nopodman/podman"
cp "$T/nopodman/podman" "$T/nopodman/skopeo"
chmod +x "$T/nopodman/podman" "$T/nopodman/skopeo"
SOURCE_DATE_EPOCH=1764460800 PATH="$T/nopodman:$PATH" expect 0 "lock cuda-stable" "$BENCH" lock "$T/cuda-stable.yaml"
expect_err "bench: lock: wheels for python 3.12 (cp312, abi cp312), manylinux_2_39_x86_64, accelerator cu130"
expect_err "bench: lock: torch: pip 2.11.0 -> 2.11.0+cu130 (torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl, sha256 "
expect_err "bench: lock: base registry.invalid/base@$DIGEST -> $DIGEST (pinned by digest in the manifest)"
[ ! -e "$T/asked" ] && ok "neither podman nor skopeo was asked for the digest" || { not_ok "asked"; show "$T/asked"; }
closure "$T/cuda-stable.lock.json" torch \
	"chain-a==1.1 chain-b==2.0 chain-c==3.1 nvidia-stub==13.0.1 py312-only==1.0 torch==2.11.0+cu130" \
	"torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
python3 - "$T/cuda-stable.lock.json" "$DIGEST" <<'PY' && ok "the lock records the wheel target and the base digest" || not_ok "wheel_target / base"
import json, sys
l = json.load(open(sys.argv[1]))
assert l["wheel_target"] == {"python": "3.12", "abi": "cp312", "platform": "manylinux_2_39_x86_64", "accelerator": "cu130"}, l
assert l["base"]["digest"] == sys.argv[2] == l["base_digest"], l["base"]
PY
SOURCE_DATE_EPOCH=1764460800 expect 0 "lock cuda-stable again" "$BENCH" lock -q -o "$T/again.lock.json" "$T/cuda-stable.yaml"
expect_same "two locks, the same bytes" "$T/cuda-stable.lock.json" "$T/again.lock.json"

# ROCm, the local label written %2B as in PyTorch's hrefs; latest on the stable index
manifest rocm-stable rocm "{name: torch, pip: \"2.11.0%2Brocm7.1\", index: \"$S\"}"
expect 0 "lock '2.11.0%2Brocm7.1'" "$BENCH" lock "$T/rocm-stable.yaml"
closure "$T/rocm-stable.lock.json" torch "chain-a==1.1 chain-b==2.0 chain-c==3.1 py312-only==1.0 torch==2.11.0+rocm7.1" \
	"torch-2.11.0+rocm7.1-cp312-cp312-manylinux_2_28_x86_64.whl"
manifest latest-stable cuda "{name: torch, pip: latest, index: \"$S\"}"
expect 0 "lock latest on the release index" "$BENCH" lock "$T/latest-stable.yaml"
expect_err "bench: lock: torch: pip latest -> 2.11.0+cu130 ("

# nightly by date, as manifests/cuda-nightly.yaml has it: torch of 2026-11-29 (its cp312 x86_64 wheel, not the
# last one listed, cp314 aarch64), pytorch-triton (versioned by a commit) pinned to what that torch requires
manifest cuda-nightly cuda "{name: torch, pip: nightly, date: 2026-11-29, index: \"$N\"}" \
	"{name: pytorch-triton, pip: nightly, date: 2026-11-29, index: \"$N\"}"
expect 0 "lock a dated nightly with its triton" "$BENCH" lock "$T/cuda-nightly.yaml"
expect_err "bench: lock: torch: pip nightly of 2026-11-29 -> 2.12.0.dev20261129+cu130 (torch-2.12.0.dev20261129+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
expect_err "bench: lock: pytorch-triton: pinned by torch's requirement -> 3.5.0+gitabc123 (pytorch_triton-3.5.0+gitabc123-cp312-cp312-manylinux_2_28_x86_64.whl"
closure "$T/cuda-nightly.lock.json" torch \
	"chain-a==1.1 chain-b==2.0 chain-c==3.1 nvidia-stub==13.0.1 py312-only==1.0 pytorch-triton==3.5.0+gitabc123 torch==2.12.0.dev20261129+cu130" \
	"torch-2.12.0.dev20261129+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
closure "$T/cuda-nightly.lock.json" pytorch-triton "pytorch-triton==3.5.0+gitabc123" \
	"pytorch_triton-3.5.0+gitabc123-cp312-cp312-manylinux_2_28_x86_64.whl"
grep -q '"pinned_by": "torch"' "$T/cuda-nightly.lock.json" && ok "the companion's entry says who pinned it" || not_ok "pinned_by"
manifest latest-nightly rocm "{name: torch, pip: latest, index: \"$N\"}"
expect 0 "lock latest on the nightly index (ROCm)" "$BENCH" lock "$T/latest-nightly.yaml"
closure "$T/latest-nightly.lock.json" torch \
	"chain-a==1.1 chain-b==2.0 chain-c==3.1 py312-only==1.0 pytorch-triton-rocm==3.5.0+gitdef456 torch==2.12.0.dev20261130+rocm7.1" \
	"torch-2.12.0.dev20261130+rocm7.1-cp312-cp312-manylinux_2_28_x86_64.whl"

# the manifest's wheel target: CPU builds for Python 3.11 on aarch64 (arm-only in, py312-only out, and torch's
# pytorch-triton requirement, for x86_64 only, out)
WT='{python: "3.11", platform: manylinux_2_28_aarch64}' manifest arm cpu "{name: torch, pip: nightly, date: 2026-11-28, index: \"$N\"}"
expect 0 "lock for stack.wheel_target (aarch64, Python 3.11)" "$BENCH" lock "$T/arm.yaml"
expect_err "bench: lock: wheels for python 3.11 (cp311, abi cp311), manylinux_2_28_aarch64, accelerator cpu"
closure "$T/arm.lock.json" torch "arm-only==1.0 chain-a==1.1 chain-b==2.0 chain-c==3.1 torch==2.12.0.dev20261128+cpu" \
	"torch-2.12.0.dev20261128+cpu-cp311-cp311-manylinux_2_28_aarch64.whl"
WT='{python: "3.x", abi: "CP311", platform: manylinux2014_x86_64, acclerator: cpu}' manifest badwt cpu "{name: torch, pip: latest, index: \"$N\"}"
expect 3 "a wheel target that is not one" "$BENCH" validate "$T/badwt.yaml"
expect_err "badwt.yaml:8:26: error: 'python' in 'stack.wheel_target' must be a version such as \"3.12\", got '3.x'"
expect_err "badwt.yaml:8:38: error: 'abi' in 'stack.wheel_target' must be an ABI tag such as cp312, got 'CP311'"
expect_err "'platform' in 'stack.wheel_target' must be a platform tag manylinux_2_<glibc minor>_<arch>"
expect_err "unknown key 'acclerator' in 'stack.wheel_target' (did you mean 'accelerator'?)"

# no build for the target's accelerator: the builds there are named
WT='{accelerator: cu999}' manifest noaccel cuda "{name: torch, pip: \"2.11.0\", index: \"$S\"}"
expect 4 "a version with no build for the target" "$BENCH" lock "$T/noaccel.yaml"
expect_err "no wheel of torch 2.11.0 for cp312 cp312 manylinux_2_39_x86_64 (accelerator cu999) on $S/torch/ (it has 2.11.0+cpu, 2.11.0+cu130, 2.11.0+rocm7.1)"
# two closures that pin one package differently
manifest conflict cuda "{name: torch, pip: \"2.11.0\", index: \"$S\"}" "{name: chain-c, pip: \"3.0\", index: \"$S\"}"
expect 4 "a component that contradicts another's closure" "$BENCH" lock "$T/conflict.yaml"
expect_err "pip components 'torch' and 'chain-c' need different builds of chain-c: 3.1 and 3.0"
# a python3 without pip
mkdir -p "$T/nopip"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$(python3 -c 'import sys; print(sys.executable)')" >"$T/nopip/python3"
chmod +x "$T/nopip/python3"
PATH="$T/nopip:$PATH" expect 1 "python3 without pip" "$BENCH" lock -o "$T/nopip.lock.json" "$T/cuda-stable.yaml"
expect_err "has no pip; locking pip component 'torch' needs pip 22.2 or newer (pip's resolver gives the closure): install python3-pip"

# the recipe installs the union of the closures, each package once, in name order, by URL and hash
expect 0 "recipe of the nightly lock" "$BENCH" recipe "$T/cuda-nightly.yaml"
python3 - "$T/out" <<'PY' && ok "recipe: 7 packages once each (pytorch-triton in both closures), sorted, --no-deps --require-hashes" || { not_ok "recipe pip line"; show "$T/out"; }
import json, sys
runs = [json.loads(l[4:]) for l in open(sys.argv[1]) if l.startswith("RUN ") and "bench-requirements" in l]
assert len(runs) == 1 and "--no-deps --require-hashes" in runs[0][2], runs
reqs = runs[0][4:]
names = [r.split(" @ ")[0] for r in reqs]
assert names == ["chain-a", "chain-b", "chain-c", "nvidia-stub", "py312-only", "pytorch-triton", "torch"], names
assert all(" --hash=sha256:" in r and "%2B" not in r.split(" @ ")[0] for r in reqs), reqs
PY
python3 - "$T/cuda-nightly.lock.json" "$T/old.lock.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
del l["components"]["torch"]["packages"]
json.dump(l, open(sys.argv[2], "w"))
PY
expect 3 "a lock without the closure" "$BENCH" recipe --lock "$T/old.lock.json" "$T/cuda-nightly.yaml"
expect_err "the lock has no package closure for pip component 'torch'"

# a run under that lock: its bundle's provenance lists every package of the closure by wheel URL and sha256
# (a host stack installs its closure on this machine: the foreign aarch64 target is refused by pip, exit 5; the
# same component for this machine's own python3 and platform, the default wheel target of engine host, runs)
sed -e 's/engine: podman/engine: host/' -e 's/^suites: .*/suites: {membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 5ms}}/' \
	"$T/arm.yaml" >"$T/armforeign.yaml"
expect 0 "lock a host stack for a foreign target" "$BENCH" lock -q "$T/armforeign.yaml"
expect 5 "its environment cannot be made here" "$BENCH" run -q --locked -o "$T/runs-foreign" "$T/armforeign.yaml"
expect_err "is not a supported wheel on this platform"
sed -e '/wheel_target:/d' "$T/armforeign.yaml" >"$T/armhost.yaml"
expect 0 "lock a host stack of the same component for this machine" "$BENCH" lock "$T/armhost.yaml"
expect 0 "run it --locked" "$BENCH" run -q --locked -o "$T/runs" "$T/armhost.yaml"
B=$(sed -n 2p "$T/out")
python3 - "$B.intoto.jsonl" "$T/armhost.lock.json" <<'PY' && ok "provenance: torch and each package of its closure, once, by URL and sha256" || not_ok "closure in resolvedDependencies"
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
deps = st["predicate"]["buildDefinition"]["resolvedDependencies"]
lock = json.load(open(sys.argv[2]))["components"]["torch"]
want = {(p["name"], p["url"], p["sha256"]) for p in lock["packages"]}
got = {(d["name"], d["uri"], d["digest"]["sha256"]) for d in deps if "uri" in d}
assert got == want and len(deps) == len(want), (got, want)
PY

# drift: a new chain-c on the index moves torch's closure; --check names the package
expect 0 "--check before the index moves" "$BENCH" lock --check "$T/cuda-stable.yaml"
python3 - "$T/idx/whl/simple" "$HERE" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from wheelindex import page, wheel
wheel(sys.argv[1], "chain-c", "3.2", ("py3", "none", "any"))
page(sys.argv[1])
PY
expect 4 "--check after chain-c 3.2 appeared" "$BENCH" lock --check "$T/cuda-stable.yaml"
expect_err "bench: moved: torch: chain-c 3.1 -> 3.2"
expect_err "1 locked reference moved"
kill "$srv" 2>/dev/null
finish
