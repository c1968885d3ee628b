#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# validate is n log n in the cases (issue 31): 50,000 GEMM shapes (a ~780 KB manifest) validate well inside a
# bound the quadratic duplicate checks took minutes past (46 s and more); duplicates are still found, each later
# entry refused at its position; a manifest that plans more than 100,000 cases is refused at the suite (file:line:col).
# A plan no bundle could hold is refused before anything runs: 50,000 GEMM cases take 26 MiB as plan.json, past the
# 16 MiB a bundle's plan.json may hold (bench run measured them all, then could not pack); 20,000 still fit.
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
expect 3 "50,000 shapes planned within $((30 * SLOW)) s, refused: plan.json past a bundle's limit" timeout $((30 * SLOW)) "$BENCH" validate "$T/50k.yaml"
expect_err "50k.yaml:1:1: error: the plan of 50000 cases takes 26.0 MiB as plan.json, more than the 16 MiB a bundle's plan.json may hold: split it into several manifests"
expect 3 "bench plan of 50,000 shapes within $((30 * SLOW)) s: refused too" timeout $((30 * SLOW)) "$BENCH" plan --json "$T/50k.yaml"
expect_err "more than the 16 MiB a bundle's plan.json may hold"
mkdir "$T/norunners"
expect 3 "bench run of it: refused before anything runs" env BENCH_RUNNERS="$T/norunners" "$BENCH" run -q -o "$T/runs" "$T/50k.yaml"
expect_err "50k.yaml:1:1: error: the plan of 50000 cases takes 26.0 MiB as plan.json"
[ ! -e "$T/runs" ] && ok "no run directory made" || { not_ok "a run directory was made"; ls -R "$T/runs" | head; }
gen "$T/20k.yaml" 20000 fp32
expect 0 "20,000 shapes (10.4 MiB of plan.json) validate" "$BENCH" validate "$T/20k.yaml"
expect_out "ok (big, 20000 cases)"
# duplicates among 50,000: each later entry refused at its own position, in list order
gen "$T/dup.yaml" 50000 "fp32, bf16, fp32" ", [8, 8, 8], [8, 8, 16], [8, 8, 8]"
expect 3 "duplicates among 50,000 shapes: exit 3, within $((30 * SLOW)) s" timeout $((30 * SLOW)) "$BENCH" validate "$T/dup.yaml"
[ "$(grep -c "'shapes' lists 8x8x8 twice" "$T/err")" = 2 ] && ok "8x8x8 listed three times: two errors" || { not_ok "8x8x8 errors"; show "$T/err"; }
expect_err "'shapes' lists 8x8x16 twice"
expect_err "dup.yaml:7:26: error: 'dtypes' lists 'fp32' twice"
# the cap: 3 dtypes x 40,000 shapes = 120,000 cases
gen "$T/cap.yaml" 40000 "fp32, bf16, fp16"
expect 3 "120,000 cases: refused (exit 3)" timeout $((30 * SLOW)) "$BENCH" validate "$T/cap.yaml"
expect_err "cap.yaml:6:3: error: suite 'gemm' takes the plan past 100000 cases"
expect_err "a manifest may plan at most 100000: split it into several manifests"
expect 3 "run refuses it too, nothing run" "$BENCH" run --dry-run "$T/cap.yaml"
expect_err "cap.yaml:6:3: error: suite 'gemm' takes the plan past 100000 cases"
expect 3 "validate --json: the error positioned" "$BENCH" validate --json "$T/cap.yaml"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))[0]["errors"][0]; sys.exit(0 if (e["line"], e["col"]) == (6, 3) else 1)' "$T/out" &&
	ok "--json: line 6, col 3" || { not_ok "--json position"; show "$T/out"; }
# the cap counts cases x variants (review B6): each variant runs every case
gen "$T/v2.yaml" 30000 "fp32, bf16"
printf 'variants: [{name: a}, {name: b}]\n' >>"$T/v2.yaml"
expect 3 "2 variants x 60,000 cases: refused" timeout $((30 * SLOW)) "$BENCH" validate "$T/v2.yaml"
expect_err "v2.yaml:6:3: error: suite 'gemm' takes the plan past 100000 cases (120000 and more: 60000 cases x 2 variants)"
gen "$T/v2ok.yaml" 25000 "fp32, bf16"
printf 'variants: [{name: a}, {name: b}]\n' >>"$T/v2ok.yaml"
expect 3 "2 variants x 50,000 cases: within the cap, refused only for plan.json's size" timeout $((30 * SLOW)) "$BENCH" validate "$T/v2ok.yaml"
expect_err "v2ok.yaml:1:1: error: the plan of 50000 cases takes"
python3 -c 'import sys; print("variants:"); [print("  - {name: v%d}" % i) for i in range(200)]' >"$T/vars"
gen "$T/v200.yaml" 2500 fp32
cat "$T/vars" >>"$T/v200.yaml"
expect 3 "200 variants x 2,500 cases (500,000): refused" timeout $((30 * SLOW)) "$BENCH" validate "$T/v200.yaml"
expect_err "suite 'gemm' takes the plan past 100000 cases (500000 and more: 2500 cases x 200 variants)"
# the variants themselves are capped (each is a stack measured in full), before anything is planned
python3 -c 'import sys; print("variants:"); [print("  - {name: v%d}" % i) for i in range(20000)]' >"$T/vars"
gen "$T/v20k.yaml" 25 fp32
cat "$T/vars" >>"$T/v20k.yaml"
expect 3 "20,000 variants: refused" timeout $((30 * SLOW)) "$BENCH" validate "$T/v20k.yaml"
expect_err "'variants' lists 20000 variants; a manifest may have at most 256"
# one env_matrix list of 100,000 values (review B5): refused at the 64-cell limit at once, not scanned for repeats
# value by value (that was quadratic: 40,000 values took 2.7 s of CPU, 100,000 over a minute)
python3 -c '
print("bench: 1\nname: big\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm:\n    env_matrix:\n"
      "      A: [" + ",".join("\"%d\"" % i for i in range(100000)) + "]\n      B: [x, y]")' >"$T/em.yaml"
/usr/bin/time -f '%U' -o "$T/time" "$BENCH" validate "$T/em.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 3 ] && python3 -c "import sys; sys.exit(float(sys.argv[1]) >= 2)" "$(tail -n 1 "$T/time")" &&
	ok "100,000 env_matrix values: exit 3 in $(tail -n 1 "$T/time") s of CPU" || { not_ok "100,000 env_matrix values: exit $rc, $(tail -n 1 "$T/time") s"; show "$T/err"; }
expect_err "'env_matrix' in suite 'gemm' expands to at least 100000 cells; the limit is 64"
# cases x env cells past the cap is counted, not generated (review 31r2 B11: 100,000 cases x 64 cells took 4x the
# CPU of 2 cells, as every cell's cases were built before being dropped): 64 cells cost about what 2 cells cost
python3 - "$T" <<'PY'
import sys
for cells in (2, 64):
    a = min(8, cells); b = cells // a
    open("%s/cells%d.yaml" % (sys.argv[1], cells), "w").write(
        "bench: 1\nname: big\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm:\n    dtypes: [fp32]\n"
        "    layouts: [tn, nn]\n    shapes: [%s]\n    env_matrix:\n      A: [%s]\n      B: [%s]\n" % (
            ",".join("[%d,%d,9]" % (i % 300 + 1, i // 300 + 1) for i in range(50000)),
            ",".join('"%d"' % i for i in range(a)), ",".join('"%d"' % i for i in range(b))))
PY
for c in 2 64; do
	/usr/bin/time -f '%U' -o "$T/time$c" "$BENCH" validate "$T/cells$c.yaml" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 3 ] && ok "100,000 cases x $c cells: refused (exit 3)" || { not_ok "100,000 cases x $c cells: exit $rc"; show "$T/err"; }
done
expect_err "(6400000 and more)"
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(b > 2 * a + 0.5)" "$(tail -n 1 "$T/time2")" "$(tail -n 1 "$T/time64")" &&
	ok "64 cells: $(tail -n 1 "$T/time64") s of CPU, 2 cells: $(tail -n 1 "$T/time2") s" ||
	not_ok "64 cells cost $(tail -n 1 "$T/time64") s of CPU against $(tail -n 1 "$T/time2") s for 2"
# collectives 'sizes' over the cap is refused at its line, never cut (review r31z row 67: 400 sizes, 319 planned)
for n in 257 400 20000; do
	python3 -c "import sys; open(sys.argv[1], 'w').write('bench: 1\nname: big\ntarget: {vendor: cpu, gpus_per_node: 2}\nruntime: {engine: host}\nsuites:\n  collectives:\n    backend: mpi\n    ops: [all_reduce]\n    placements: [out-of-place]\n    min_bytes: 1MiB\n    max_bytes: 1MiB\n    sizes: [%s]\n' % ','.join('%dB' % (1000 + i) for i in range(int(sys.argv[2]))))" "$T/cs.yaml" $n
	expect 3 "collectives with $n extra sizes: refused" "$BENCH" validate "$T/cs.yaml"
	expect_err "cs.yaml:12:"
	expect_err "'sizes' lists $n sizes; at most 256"
	expect 3 "plan of it: refused too" "$BENCH" plan "$T/cs.yaml"
done
python3 -c "import sys; open(sys.argv[1], 'w').write('bench: 1\nname: big\ntarget: {vendor: cpu, gpus_per_node: 2}\nruntime: {engine: host}\nsuites:\n  collectives:\n    backend: mpi\n    ops: [all_reduce]\n    placements: [out-of-place]\n    min_bytes: 1MiB\n    max_bytes: 1MiB\n    sizes: [%s]\n' % ','.join('%dB' % (1000 + i) for i in range(256)))" "$T/cs.yaml"
expect 0 "collectives with 256 extra sizes: planned" "$BENCH" plan "$T/cs.yaml"
[ "$(grep -c all_reduce "$T/out")" = 257 ] && ok "every one of the 256 sizes and the sweep's 1MiB planned" ||
	{ not_ok "planned $(grep -c all_reduce "$T/out") cases, wanted 257"; show "$T/out"; }
grep -q "all_reduce/fp32/1255B/" "$T/out" && ok "the last listed size is planned" || not_ok "1255B not planned"
finish
