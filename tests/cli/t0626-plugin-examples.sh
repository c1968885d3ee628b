#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The plug-in examples (examples/plugins/): what runs without a GPU (tests/torch/test_plugin_examples.py, TAP: the
# attention example's blockwise backward against autograd), and their manifests validating and planning with the
# plug-in names in the case keys.
. "$(dirname "$0")/lib.sh"
PY=
for c in ${BENCH_PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$c" >/dev/null 2>&1 && "$c" -c "import torch" 2>/dev/null; then PY=$c; break; fi
done
[ -n "$PY" ] || { not_ok "no python3 with torch (install python3-torch)"; finish; exit 1; }

"$PY" tests/torch/test_plugin_examples.py >"$T/py.tap" 2>"$T/py.err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok "*) ok "python: ${line#ok * - }" ;;
	"not ok "*) not_ok "python: ${line#not ok * - }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$T/py.tap"
[ "$rc" = 0 ] && ok "tests/torch/test_plugin_examples.py exited 0" || { not_ok "tests/torch/test_plugin_examples.py exited $rc"; show "$T/py.err"; }

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
