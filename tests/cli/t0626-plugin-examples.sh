#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The plug-in examples (examples/plugins/): what runs without a GPU (tests/torch/test_plugin_examples.py, TAP: the
# attention example's blockwise backward against autograd), and their manifests validating and planning with the
# plug-in names in the case keys.
. "$(dirname "$0")/lib.sh"
need_torch_python

python_tap tests/torch/test_plugin_examples.py

if ! "$BENCH" suites gemm | grep -q "plug-in {plugin: NAME"; then  # the plug-in machinery is a separate branch
	ok "# SKIP this bench has no plug-in entries (docs/plugins.md): manifests not validated"
	finish
	exit 0
fi
expect 0 "bench validate: the examples' manifests" "$BENCH" validate examples/plugins/h200-builtin.yaml examples/plugins/h200-plugins.yaml
expect 0 "bench plan: the plug-in manifest" "$BENCH" plan examples/plugins/h200-plugins.yaml
grep -q "triton-gemm/bf16/tn/16384x8192x1280/default" "$T/out" && grep -q "triton-fa/bf16/causal/1x16384x16x128/bwd" "$T/out" &&
	ok "the plug-in names are in the case keys" || { not_ok "plug-in case keys"; show "$T/out"; }
finish
