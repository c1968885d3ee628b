#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the eleventh review, r31z (row 6, B2): bench verify refuses a bundle holding two names that differ
# only in ASCII letters' case (logs/A.log and logs/a.log, directories Logs/ and logs/ given or implied, README and
# readme at the top): on macOS's default file system and on Windows they are one file, the second extracted
# overwriting the first. Names that differ otherwise (a.log, b.log) verify; bench pack refuses such a run directory.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# --- 1. verify: names equal once case is folded are refused, naming both; others accepted ---------------------------
for v in "case logs/A.log logs/a.log" "case-dir Logs logs" "case-dirent Logs logs" "case-top README readme"; do
	set -- $v
	f=$("$PY" tests/bundle/hostile.py "tar-$1" "$T" "$BENCH_HOME")
	refused "tar-$1: names that differ only in case" "refused archive entries 'hostile-tar-$1/$2' and 'hostile-tar-$1/$3': names that differ only in case: one file on macOS and Windows" "$BENCH" verify "$f"
	[ "$(wc -l <"$T/err")" = 1 ] && ok "tar-$1: one line" || { not_ok "tar-$1: one line"; show "$T/err"; }
	refused "tar-$1: show --no-verify refuses it too" "names that differ only in case" "$BENCH" show --no-verify "$f"
done
f=$("$PY" tests/bundle/hostile.py tar-case-ok "$T" "$BENCH_HOME")
expect 0 "logs/a.log and logs/b.log verify" "$BENCH" verify "$f"

# --- 2. pack: a run directory holding two such names is refused, naming both; no bundle written ----------------------
P="$T/p/h11-20261202T000000Z-abcdef"
mkdir -p "$P/logs"
echo '{"schema":"bench.status/v1","run":"h11","state":"complete","started":"2026-12-02T00:00:00Z","finished":"2026-12-02T00:00:01Z","cases":[]}' >"$P/status.json"
printf 'bench: 1\nname: h11\ntarget: {vendor: cpu}\nsuites: {membw: null}\n' >"$P/manifest.yaml"
echo a >"$P/logs/a.log"
echo b >"$P/logs/b.log"
expect 0 "pack a run directory holding logs/a.log and logs/b.log" "$BENCH" pack "$P"
expect 0 "... and the bundle verifies" "$BENCH" verify "$P.bench.tar.gz"
rm -f "$P.bench.tar.gz" "$P.bench.tar.gz.intoto.jsonl"
if (echo A >"$P/logs/A.log") 2>/dev/null && [ "$(cat "$P/logs/a.log")" = a ]; then
	expect 1 "pack a run directory holding logs/A.log and logs/a.log: refused" "$BENCH" pack "$P"
	expect_err "'$P/logs/A.log' and '$P/logs/a.log': names that differ only in case: one file on macOS and Windows"
	[ -e "$P.bench.tar.gz" ] && not_ok "a bundle was written" || ok "no bundle written"
	rm -f "$P/logs/A.log"
	mkdir -p "$P/Logs"
	echo x >"$P/Logs/x"
	expect 1 "pack a run directory holding directories Logs/ and logs/: refused" "$BENCH" pack "$P"
	expect_err "'$P/Logs/' and '$P/logs/': names that differ only in case"
	[ -e "$P.bench.tar.gz" ] && not_ok "a bundle was written" || ok "no bundle written"
else
	ok "this file system folds case itself (pack cannot meet two such names here)"
fi

finish
