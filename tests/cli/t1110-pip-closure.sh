#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# serial: podman (image builds one at a time: CPU-heavy, and t1100/t1120 clean up the untagged images since their start)
# pip stacks end to end with podman (setup: tests/setup/podman.sh): a dated torch nightly and its pytorch-triton
# from a loopback index shaped like PyTorch's (tests/cli/wheelindex.py) locked for the base's interpreter (the
# local Debian 12 base: the cpu vendor's wheel target, Python 3.11), the image built from the lock (the build
# reaches the loopback index through the host's network), and every package of the closure imported in it at its
# locked version; the packages whose markers do not apply to the target are not there.
. "$(dirname "$0")/lib.sh"
BASE=$(sh tests/setup/podman.sh 2>"$T/setup.err") || { not_ok "podman setup failed"; show "$T/setup.err"; finish; exit 1; }
ok "podman set up, base image $BASE"
# its image builds' apt finds the host's downloaded .debs (tests/setup/podman.sh, build-conf)
CONTAINERS_CONF=$(sh tests/setup/podman.sh build-conf) && export CONTAINERS_CONF

python3 tests/cli/wheelindex.py "$T/idx" || { not_ok "wheelindex.py"; finish; exit 1; }
serve_dir "$T/idx" whl/nightly/simple/torch/
N="http://127.0.0.1:$port/whl/nightly/simple"
cat >"$T/pip.yaml" <<Y
bench: 1
name: pip-closure
channel: nightly
target: {vendor: cpu, gpus_per_node: 1}
stack:
  base: "$BASE"
  components:
    - {name: torch, pip: nightly, date: 2026-11-29, index: "$N"}
    - {name: pytorch-triton, pip: nightly, date: 2026-11-29, index: "$N"}
runtime: {engine: podman}
suites: {membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 5ms}}
Y
expect 0 "lock torch's nightly and its triton for the base's Python 3.11" "$BENCH" lock "$T/pip.yaml"
expect_err "bench: lock: wheels for python 3.11 (cp311, abi cp311), manylinux_2_36_x86_64, accelerator cpu"
expect_err "bench: lock: torch: pip nightly of 2026-11-29 -> 2.12.0.dev20261129+cpu (torch-2.12.0.dev20261129+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
expect_err "bench: lock: pytorch-triton: pinned by torch's requirement -> 3.5.0+gitabc123"
expect_err "bench: lock: torch: 5 packages: chain-a==1.1 chain-b==2.0 chain-c==3.1 pytorch-triton==3.5.0+gitabc123 torch==2.12.0.dev20261129+cpu"
expect 0 "build the image from the lock" "$BENCH" build --json "$T/pip.yaml"
PIMG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["image"])' "$T/out")
expect 0 "every package of the closure imports in the image" podman run --rm "$PIMG" python3 -c \
	"import torch, chain_a, chain_b, chain_c, pytorch_triton as t; print(torch.__version__, torch.TAG, chain_a.__version__, chain_b.__version__, chain_c.__version__, t.__version__, t.TAG)"
sed "s/^/# import: /" "$T/out"
expect_out "2.12.0.dev20261129+cpu cp311-cp311-manylinux_2_28_x86_64 1.1 2.0 3.1 3.5.0+gitabc123 cp311-cp311-manylinux_2_28_x86_64"
expect 0 "the packages whose markers do not apply are absent" podman run --rm "$PIMG" python3 -c \
	"import importlib.util as u; print([m for m in ('arm_only', 'old_py', 'opt_extra', 'py312_only', 'nvidia_stub') if u.find_spec(m)])"
expect_out "[]"
kill "$srv" 2>/dev/null
[ -n "$PIMG" ] && podman rmi -f "$PIMG" >/dev/null 2>&1
finish
