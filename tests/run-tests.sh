#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every unit test binary given as an argument and every tests/cli/t*.sh, all speaking TAP, and ends
# with the line "N passed, N failed". Exit status 1 when anything failed (a crash counts as a failure).
# Environment: BENCH (the binary under test), BENCH_DATA (the source tree).
set -u
cd "$(dirname "$0")/.." || exit 1
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # name, exit status; reads TAP from $log
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $1 exited with status $2 without reporting a failure (crash?)"
		f=1
	fi
	grep '^not ok ' "$log" | sed "s|^|$1: |"
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-44s %4d passed, %d failed\n' "$1" "$p" "$f"
}

for bin in "$@"; do
	CMOCKA_MESSAGE_OUTPUT=TAP "$bin" >"$log" 2>&1
	count "$(basename "$bin")" $?
done
for t in tests/cli/t[0-9]*.sh; do
	sh "$t" >"$log" 2>&1
	count "$(basename "$t")" $?
done
[ -n "${VERBOSE:-}" ] && cat "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
