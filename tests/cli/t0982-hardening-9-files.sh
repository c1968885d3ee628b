#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the ninth review, r31x (rows 4 and 30, B1 and B4): bench verify refuses a member whose path has a
# component over 255 bytes (NAME_MAX: GNU tar and Python cannot extract it, so the standard-tools check of a bundle
# bench called verified failed), in the middle or at the end of the name, counted in bytes (a UTF-8 name of 128
# characters is 256 bytes), and accepts 255 bytes; bench pack never writes such a name. bench run --resume refuses a
# run directory holding a hard link (a file with a second name, perhaps outside the run directory, which the resumed
# run appended to), whatever the file, leaving the file behind and what was measured as they were.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# --- 1. verify: a path component over 255 bytes is refused, 255 bytes accepted -------------------------------------
for v in mid end utf8; do
	f=$("$PY" tests/bundle/hostile.py "longcomp-$v" "$T" "$BENCH_HOME")
	refused "longcomp-$v: a component over 255 bytes" "refused archive entry 'hostile-longcomp-$v/logs/" "$BENCH" verify "$f"
	grep -qF "': a path component longer than 255 bytes (NAME_MAX: GNU tar and Python cannot extract it)" "$T/err" &&
		[ "$(wc -l <"$T/err")" = 1 ] && ok "longcomp-$v: one line naming the member and why" ||
		{ not_ok "longcomp-$v: the message"; show "$T/err"; }
	refused "longcomp-$v: a component over 255 bytes, show --no-verify" "a path component longer than 255 bytes" \
		"$BENCH" show --no-verify "$f"
	mkdir -p "$T/x-$v"
	tar -xzf "$f" -C "$T/x-$v" >/dev/null 2>&1 && not_ok "GNU tar extracts longcomp-$v: the refusal is not needed" ||
		ok "GNU tar cannot extract longcomp-$v either"
done
for v in 255 utf8-255; do
	f=$("$PY" tests/bundle/hostile.py "longcomp-$v" "$T" "$BENCH_HOME")
	expect 0 "a component of exactly 255 bytes ($v) verifies" "$BENCH" verify "$f"
	mkdir -p "$T/x-$v"
	tar -xzf "$f" -C "$T/x-$v" >"$T/err" 2>&1 && ok "GNU tar extracts longcomp-$v" ||
		{ not_ok "GNU tar cannot extract longcomp-$v"; show "$T/err"; }
done

# --- 2. pack: a name of 255 bytes packs and verifies; one of 256 is refused (when the file system holds it at all) ----
P="$T/p/h9-20261202T000000Z-abcdef"
mkdir -p "$P/logs"
echo '{"schema":"bench.status/v1","run":"h9","state":"complete","started":"2026-12-02T00:00:00Z","finished":"2026-12-02T00:00:01Z","cases":[]}' >"$P/status.json"
printf 'bench: 1\nname: h9\ntarget: {vendor: cpu}\nsuites: {membw: null}\n' >"$P/manifest.yaml"
n255=$(printf '%0255d' 0 | tr 0 a)
u255=$("$PY" -c 'print("\u65e5" * 85)')
echo x >"$P/logs/$n255"
echo x >"$P/logs/$u255"
expect 0 "pack a run directory holding names of 255 bytes (ASCII and UTF-8)" "$BENCH" pack "$P"
expect 0 "... and the bundle verifies" "$BENCH" verify "$P.bench.tar.gz"
rm -f "$P.bench.tar.gz" "$P.bench.tar.gz.intoto.jsonl"
if (: >"$P/logs/${n255}a") 2>/dev/null; then
	expect 1 "pack a file named with 256 bytes: refused" "$BENCH" pack "$P"
	expect_err "a name of 256 bytes, over the 255 a path component of a bundle may have"
	[ -e "$P.bench.tar.gz" ] && not_ok "a bundle was written" || ok "no bundle written"
else
	ok "this file system refuses a 256-byte name itself (pack cannot meet one here)"
fi

finish
