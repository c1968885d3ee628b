#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# validate is n log n in the cases (issue 31): 50,000 GEMM shapes (a ~780 KB manifest) validate well inside a
# bound the quadratic duplicate checks took minutes past (46 s and more); duplicates are still found, each later
# entry refused at its position; a manifest that plans more than 100,000 cases is refused at the suite (file:line:col).
. "$(dirname "$0")/lib.sh"
gen() { # out shapes dtypes [extra]
	python3 - "$@" <<'PY'
import sys
out, n, dtypes = sys.argv[1], int(sys.argv[2]), sys.argv[3]
extra = sys.argv[4] if len(sys.argv) > 4 else ""
sh = ["[%d, %d, %d]" % (8 * (1 + i // 900), 8 * (1 + (i // 30) % 30), 8 * (1 + i % 30)) for i in range(n)]
open(out, "w").write("bench: 1\nname: big\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm:\n"
                     "    dtypes: [%s]\n    shapes: [%s%s]\n" % (dtypes, ", ".join(sh), extra))
PY
}
gen "$T/50k.yaml" 50000 fp32
expect 0 "50,000 shapes validate within 30 s" timeout 30 "$BENCH" validate "$T/50k.yaml"
expect_out "ok (big, 50000 cases)"
expect 0 "bench plan of 50,000 shapes within 30 s" timeout 30 "$BENCH" plan --json "$T/50k.yaml"
# duplicates among 50,000: each later entry refused at its own position, in list order
gen "$T/dup.yaml" 50000 "fp32, bf16, fp32" ", [8, 8, 8], [8, 8, 16], [8, 8, 8]"
expect 3 "duplicates among 50,000 shapes: exit 3, within 30 s" timeout 30 "$BENCH" validate "$T/dup.yaml"
[ "$(grep -c "'shapes' lists 8x8x8 twice" "$T/err")" = 2 ] && ok "8x8x8 listed three times: two errors" || { not_ok "8x8x8 errors"; show "$T/err"; }
expect_err "'shapes' lists 8x8x16 twice"
expect_err "dup.yaml:7:26: error: 'dtypes' lists 'fp32' twice"
# the cap: 3 dtypes x 40,000 shapes = 120,000 cases
gen "$T/cap.yaml" 40000 "fp32, bf16, fp16"
expect 3 "120,000 cases: refused (exit 3)" timeout 30 "$BENCH" validate "$T/cap.yaml"
expect_err "cap.yaml:6:3: error: suite 'gemm' takes the plan past 100000 cases"
expect_err "a manifest may plan at most 100000: split it into several manifests"
expect 3 "run refuses it too, nothing run" "$BENCH" run --dry-run "$T/cap.yaml"
expect_err "cap.yaml:6:3: error: suite 'gemm' takes the plan past 100000 cases"
expect 3 "validate --json: the error positioned" "$BENCH" validate --json "$T/cap.yaml"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))[0]["errors"][0]; sys.exit(0 if (e["line"], e["col"]) == (6, 3) else 1)' "$T/out" &&
	ok "--json: line 6, col 3" || { not_ok "--json position"; show "$T/out"; }
finish
