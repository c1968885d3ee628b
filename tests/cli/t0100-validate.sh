#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench validate: the example manifests are valid; every invalid vector gives exactly its expected messages
# (file:line:col: error: ...) and exit 3; the 1 MiB limit; several files in one call; --json.
. "$(dirname "$0")/lib.sh"

for f in manifests/*.yaml tests/vectors/manifest-valid/*.yaml; do
	expect 0 "valid: $f" "$BENCH" validate "$f"
	expect_out "$f: ok"
done

for f in tests/vectors/manifest-invalid/*.yaml; do
	exp=${f%.yaml}.expected
	"$BENCH" validate "$f" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 3 ] && cmp -s "$exp" "$T/err" && [ ! -s "$T/out" ]; then ok "invalid: $f"; else
		not_ok "invalid: $f (exit $rc)"
		diff -u "$exp" "$T/err" | sed 's/^/#   /'
	fi
done

# the size limit: a file just over 1 MiB is refused before parsing, one just under is parsed
big=$T/big.yaml
{ printf 'bench: 1\nname: big\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites: {membw: {}}\ndescription: "'
  head -c 1048576 /dev/zero | tr '\0' x; printf '"\n'; } >"$big"
expect 3 "a manifest over 1 MiB is refused" "$BENCH" validate "$big"
expect_err "$big:1:1: error: manifest is larger than the 1 MiB limit"
{ printf 'bench: 1\nname: big\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites: {membw: {}}\ndescription: "'
  head -c 1048000 /dev/zero | tr '\0' x; printf '"\n'; } >"$big"
expect 0 "a manifest just under 1 MiB is accepted" "$BENCH" validate "$big"

# depth: 32 levels are fine, 33 are not
deep() { printf 'bench: 1\nname: d\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites: {membw: {}}\nstack: {env: '
	 i=2; while [ $i -lt "$1" ]; do printf '{a: '; i=$((i + 1)); done; printf '1'
	 i=2; while [ $i -lt "$1" ]; do printf '}'; i=$((i + 1)); done; printf '}\n'; }
deep 32 >"$T/d32.yaml"
expect 3 "32 levels parse (and then fail validation on env, not depth)" "$BENCH" validate "$T/d32.yaml"
expect_err "env 'a' must be a string"
deep 33 >"$T/d33.yaml"
expect 3 "33 levels are refused" "$BENCH" validate "$T/d33.yaml"
expect_err "nesting deeper than 32 levels"

# several files: every file reported, the worst exit status kept
expect 3 "valid and invalid together" "$BENCH" validate manifests/quickstart.yaml tests/vectors/manifest-invalid/016-vendor-typo.yaml tests/vectors/manifest-invalid/030-unknown-suite.yaml
expect_out "manifests/quickstart.yaml: ok"
expect_err "016-vendor-typo.yaml:3:18: error:"
expect_err "030-unknown-suite.yaml:6:3: error:"
expect 0 "-q prints nothing for valid files" "$BENCH" validate -q manifests/quickstart.yaml
expect_no_out

expect 3 "--json reports problems on stdout" "$BENCH" validate --json tests/vectors/manifest-invalid/072-many-errors.yaml manifests/quickstart.yaml
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["valid"] for x in d] == [False, True], d
e = d[0]["errors"]
assert len(e) == 4 and e[0] == {"line": 2, "col": 7, "message": e[0]["message"]}, e
assert d[1]["cases"] == 20 and d[1]["errors"] == []
PY
then ok "--json content"; else not_ok "--json content"; show "$T/out"; fi

# --- map sizes bounded, duplicate keys found in n log n ------------------------------------------------------------
# elapsed_ms CMD...: runs CMD (output to $T/out, $T/err), sets rc and ms
elapsed_ms() {
	t0=$(date +%s%N)
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}
python3 - "$T" <<'PY'
import sys
d = sys.argv[1]
hdr = "bench: 1\nname: big\ntarget: {vendor: cpu}\nruntime: {engine: host, launcher: local}\nstack:\n  env: {"
tail = "}\nsuites:\n  membw: {ops: [copy], bytes: 1MiB}\n"
# 95k env keys in 1 MB (issue 19's reproduction: minutes to validate when duplicates were looked for pairwise)
open(d + "/big-env.yaml", "w").write(hdr + ", ".join(f"K{i}: v" for i in range(95000)) + tail)
# the limit itself: 4096 keys, the last a duplicate of the first
open(d + "/max-env.yaml", "w").write(hdr + ", ".join(f"K{i}: v" for i in range(4095)) + ", K0: again" + tail)
PY
elapsed_ms "$BENCH" validate "$T/big-env.yaml"
if [ "$rc" = 3 ] && grep -qF "big-env.yaml:6:39859: error: a mapping holds at most 4096 keys; this is one too many" "$T/err"
then ok "95k env keys: refused at the 4097th key with the limit"; else not_ok "95k env keys (exit $rc)"; show "$T/err"; fi
[ "$ms" -lt $((1000 * SLOW)) ] && ok "... in under $SLOW s (${ms} ms)" || not_ok "95k env keys took ${ms} ms"
elapsed_ms "$BENCH" validate "$T/max-env.yaml"
if [ "$rc" = 3 ] && grep -qF "error: duplicate key 'K0' in 'env' (first at line 6)" "$T/err" &&
	[ "$(grep -c error: "$T/err")" = 1 ]
then ok "4096 env keys are read; the one duplicate among them is found"; else not_ok "4096 env keys (exit $rc)"; show "$T/err"; fi
[ "$ms" -lt $((1000 * SLOW)) ] && ok "... in under $SLOW s (${ms} ms)" || not_ok "4096 env keys took ${ms} ms"
finish
