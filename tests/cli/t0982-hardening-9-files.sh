#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the ninth review, r31x (rows 4 and 30, B1 and B4): bench verify refuses a member whose path has a
# component over 255 bytes (NAME_MAX: GNU tar and Python cannot extract it, so the standard-tools check of a bundle
# bench called verified failed), in the middle or at the end of the name, counted in bytes (a UTF-8 name of 128
# characters is 256 bytes), and accepts 255 bytes; bench pack never writes such a name. bench run --resume refuses a
# run directory holding a hard link (a file with a second name, perhaps outside the run directory, which the resumed
# run appended to), whatever the file, leaving the file behind and what was measured as they were; pack refuses one.
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

# --- 3. run --resume: a hard link anywhere in the run directory is refused, nothing written through it ---------------
fake_gemm
cat >"$T/m.yaml" <<Y
bench: 1
name: h9
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [128, 128, 128]]}
Y
BENCH_RUNNERS=$T/fake FAKE_MODE=ok "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml" >"$T/out" 2>"$T/err" ||
	{ not_ok "setup: a run to resume (--no-pack)"; show "$T/err"; }
BASE=$(ls -d "$T"/runs/h9-*[0-9a-f] | head -n 1)

# fresh NAME: a copy of the run, interrupted after its first case: that case's record kept (measured), the second
# case's gone (measured again on --resume); $T/kept: the results file as it is then
fresh() {
	D="$T/r/$1"
	rm -rf "$D"
	mkdir -p "$T/r"
	cp -a "$BASE" "$D"
	head -n 1 "$BASE/results/gemm.jsonl" >"$D/results/gemm.jsonl"
	cp "$D/results/gemm.jsonl" "$T/kept"
	"$PY" - "$D/status.json" <<'P'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["state"] = "interrupted"
s["cases"][1]["status"] = "interrupted"
json.dump(s, open(p, "w"))
P
}

# every file a resumed run writes (appends to, rewrites or replaces), and its own bookkeeping
files=$(cd "$BASE" && find . -type f | sed 's|^\./||' | sort)
for f in $files .bench-reserve; do
	fresh "link-$(echo "$f" | tr '/.' '__')"
	[ -e "$D/$f" ] || printf 'left over\n' >"$D/$f"
	mkdir -p "$T/outside"
	cp "$D/$f" "$T/outside/victim"
	cp "$T/outside/victim" "$T/victim.orig"
	ln -f "$T/outside/victim" "$D/$f"
	BENCH_RUNNERS=$T/fake FAKE_MODE=ok timeout -k 5 60 "$BENCH" run -q --no-pack --resume "$D" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -qF "cannot resume '$D': '$D/$f' is a hard link (2 names" "$T/err" &&
		[ "$(wc -l <"$T/err")" = 1 ]; then
		ok "--resume with $f a hard link: exit 1, named"
	else
		not_ok "--resume with $f a hard link (exit $rc; wanted 1 and: '$D/$f' is a hard link (2 names)"
		show "$T/err"
	fi
	cmp -s "$T/victim.orig" "$T/outside/victim" && ok "$f: the file's other name, outside the run, unchanged" ||
		not_ok "$f: the file outside the run changed ($(wc -c <"$T/outside/victim") bytes)"
	cmp -s "$T/kept" "$D/results/gemm.jsonl" && ok "$f: results/gemm.jsonl as it was (the measured record kept)" ||
		not_ok "$f: results/gemm.jsonl changed"
	rm -f "$T/outside/victim"
done

# .bench-lock is bench's own, written anew (a rename) once the directory is locked, before the check: never through
fresh lock-link
mkdir -p "$T/outside"
printf 'left over\n' >"$T/outside/victim"
ln -f "$T/outside/victim" "$D/.bench-lock"
expect 0 "--resume with .bench-lock a hard link: the lock file made anew, the run resumed" \
	env BENCH_RUNNERS="$T/fake" FAKE_MODE=ok timeout -k 5 60 "$BENCH" run -q --no-pack --resume "$D"
[ "$(cat "$T/outside/victim")" = "left over" ] && ok ".bench-lock: the file's other name unchanged" ||
	not_ok ".bench-lock: the file outside the run changed"
rm -f "$T/outside/victim"

# the link broken (the file copied to a name of its own): the run resumes, the measured case is not measured again
fresh unlinked
mkdir -p "$T/outside"
cp "$D/logs/gemm.log" "$T/outside/victim"
cp "$T/outside/victim" "$T/victim.orig"
ln -f "$T/outside/victim" "$D/logs/gemm.log"
cp "$D/logs/gemm.log" "$D/logs/gemm.log.copy" && mv "$D/logs/gemm.log.copy" "$D/logs/gemm.log"
expect 0 "--resume once the log is a file of its own" \
	env BENCH_RUNNERS="$T/fake" FAKE_MODE=ok timeout -k 5 60 "$BENCH" run -q --no-pack --resume "$D"
[ "$(wc -l <"$D/results/gemm.jsonl")" = 2 ] && [ "$(head -n 1 "$D/results/gemm.jsonl")" = "$(cat "$T/kept")" ] &&
	ok "the measured record stands, the other case measured" || { not_ok "the records after --resume"; show "$D/results/gemm.jsonl"; }
cmp -s "$T/victim.orig" "$T/outside/victim" && ok "the former other name of the log unchanged" ||
	not_ok "the former other name of the log changed"
grep -q '"state": "complete"' "$D/status.json" && ok "the run is complete" || not_ok "the run is not complete"

# pack refuses a hard link too (it could pack a file from outside the run)
rm -f "$T/outside/victim"
ln "$D/logs/gemm.log" "$T/outside/victim"
expect 1 "pack a run directory holding a hard link: refused" "$BENCH" pack "$D"
expect_err "'$D/logs/gemm.log' is a hard link (2 names)"
[ -e "$D.bench.tar.gz" ] && not_ok "a bundle was written" || ok "no bundle written"

finish
