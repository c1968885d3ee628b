#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the twelfth review, r31N (row 13, B1): a reader that ignores pax headers (POSIX has it extract an
# 'x' header as a regular file) reads the ustar names alone, never the pax path. bench verify accepted a canonical
# pax path=RUN/logs/gemm.log over the ustar name ../../../tmp/evil or /etc/evil (exit 0), which such a reader writes
# outside the directory. Now the ustar name under a pax path must be what bench (libarchive's pax writer) writes
# there, the path or its shortening; the pax header itself is named as libarchive names it and carries the entry's
# mode and no owner; the name and prefix fields hold nothing after their NUL (nor the link, user and group names,
# already refused). Every bundle bench writes still verifies, long and non-ASCII names included. And after the
# thirteenth review, r31O (row 16): a pax 'size' must equal the ustar size field, which a pax-unaware reader steps by.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# --- 1. the ustar name under a canonical pax path: refused unless bench's, naming the entry -------------------------
for v in "dotdot ../../../tmp/evil" "abs /etc/evil" "prefixdotdot ../../../tmp/evil" \
	"other hostile-tar-ustar-other/status.json" "empty "; do
	set -- $v
	f=$("$PY" tests/bundle/hostile.py "tar-ustar-$1" "$T" "$BENCH_HOME")
	refused "tar-ustar-$1: the ustar name '${2:-}' under pax path=RUN/logs/gemm.log" \
		"refused archive entry 'hostile-tar-ustar-$1/logs/gemm.log': its ustar name '${2:-}' is not what bench writes with its pax path" \
		"$BENCH" verify "$f"
	[ "$(wc -l <"$T/err")" = 1 ] && ok "tar-ustar-$1: one line" || { not_ok "tar-ustar-$1: one line"; show "$T/err"; }
	refused "tar-ustar-$1: show --no-verify refuses it too" "is not what bench writes with its pax path" \
		"$BENCH" show --no-verify "$f"
	refused "tar-ustar-$1: compare --allow-unverified refuses it too" "is not what bench writes with its pax path" \
		"$BENCH" compare --allow-unverified "$f" "$f"
done
# what a pax-unaware reader would do with the first: the ustar name is the one the review found
f=$("$PY" tests/bundle/hostile.py tar-ustar-dotdot "$T" "$BENCH_HOME")
"$PY" - "$f" <<'PY' && ok "tar-ustar-dotdot: its ustar name field is ../../../tmp/evil (what a pax-unaware reader writes)" ||
import gzip, sys
raw = gzip.open(sys.argv[1]).read()
off, names = 0, []
while raw[off:off + 512] != b"\0" * 512:
    h = raw[off:off + 512]
    names.append(h[0:100].rstrip(b"\0"))
    off += 512 + (int(h[124:136].rstrip(b"\0 "), 8) + 511) // 512 * 512
sys.exit(0 if b"../../../tmp/evil" in names else 1)
PY
	not_ok "tar-ustar-dotdot: the ustar name is not ../../../tmp/evil"
# Python's tarfile writes a long pax path's ustar name cut at 100 bytes: not bench's, refused
f=$("$PY" tests/bundle/hostile.py tar-ustar-python "$T" "$BENCH_HOME")
refused "tar-ustar-python: Python's ustar name for a long pax path" "is not what bench writes with its pax path" \
	"$BENCH" verify "$f"

# --- 2. bytes after a name's NUL (the name field, the prefix field, the link, user and group names) -----------------
f=$("$PY" tests/bundle/hostile.py tar-ustar-nuljunk "$T" "$BENCH_HOME")
refused "tar-ustar-nuljunk: the pax path, then NUL and ../../../tmp/evil in the ustar name field" \
	"refused archive entry 'hostile-tar-ustar-nuljunk/logs/gemm.log': bytes after the end of its name in the ustar name field" \
	"$BENCH" verify "$f"
f=$("$PY" tests/bundle/hostile.py tar-namejunk "$T" "$BENCH_HOME")
refused "tar-namejunk: RUN/b.json, NUL, ../../../etc/passwd in the name field (no pax header)" \
	"refused archive entry 'hostile-tar-namejunk/b.json': bytes after the end of its name in the ustar name field (bench writes zeros there)" \
	"$BENCH" verify "$f"
refused "tar-namejunk: show --no-verify refuses it too" "bytes after the end of its name" "$BENCH" show --no-verify "$f"
f=$("$PY" tests/bundle/hostile.py tar-prefixjunk "$T" "$BENCH_HOME")
refused "tar-prefixjunk: RUN, NUL, ../../evil in the prefix field" \
	"refused archive entry 'hostile-tar-prefixjunk/b.json': bytes after the end of the ustar prefix field's text" \
	"$BENCH" verify "$f"
for v in "linknamejunk a link name on a regular file" "unamejunk a user or group name" "gnamejunk a user or group name"; do
	set -- $v
	w=$1
	shift
	f=$("$PY" tests/bundle/hostile.py "tar-$w" "$T" "$BENCH_HOME")
	refused "tar-$w: a NUL, then bytes" "refused archive entry 'hostile-tar-$w/b.json': $*" "$BENCH" verify "$f"
done

# --- 3. the pax header's own name and fields (a pax-unaware reader extracts it as a file) ---------------------------
for v in "dotdot ../../../tmp/evil" "abs /etc/evil"; do
	set -- $v
	f=$("$PY" tests/bundle/hostile.py "tar-xname-$1" "$T" "$BENCH_HOME")
	refused "tar-xname-$1: the pax header named $2" "its pax extended header is named '$2', not as bench names it" \
		"$BENCH" verify "$f"
	grep -qF "refused archive entry 'hostile-tar-xname-$1/logs/aaaa" "$T/err" && ok "tar-xname-$1: names the entry" ||
		{ not_ok "tar-xname-$1: names the entry"; show "$T/err"; }
done
for v in xmode xowner; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	refused "tar-$v: the pax header's mode 04755 or owner 1000 'root'" \
		"its pax extended header has an owner, a user, group or link name, or a mode other than the entry's" \
		"$BENCH" verify "$f"
done
# a pax linkpath (with a ustar link name on a file, or on a symbolic link): bench writes neither
for v in xlinkpath-file xlinkpath-sym; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	refused "tar-$v: a pax linkpath and a ustar link name" "with the key 'linkpath'" "$BENCH" verify "$f"
done

# --- 4. accepted: the names bench writes ---------------------------------------------------------------------------
for v in ok long-ok long-old utf8-ok dir-ok; do
	f=$("$PY" tests/bundle/hostile.py "tar-ustar-$v" "$T" "$BENCH_HOME")
	expect 0 "tar-ustar-$v: libarchive's ustar name under the pax path verifies" "$BENCH" verify "$f"
done
for v in xmtime-ok xmtime-okfrac; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	expect 0 "tar-$v: a pax mtime, its header named as libarchive names it, verifies" "$BENCH" verify "$f"
done
# a run packed by bench with names that need pax: long ASCII names, UTF-8 names whose shortening cuts a character,
# directories whose path is over 259 bytes (refused before: the message's copy of the path lost its '/'), deep ones
P="$T/p/h12-20261202T000000Z-abcdef"
mkdir -p "$P/logs"
echo '{"schema":"bench.status/v1","run":"h12","state":"complete","started":"2026-12-02T00:00:00Z","finished":"2026-12-02T00:00:01Z","cases":[]}' >"$P/status.json"
printf 'bench: 1\nname: h12\ntarget: {vendor: cpu}\nsuites: {membw: null}\n' >"$P/manifest.yaml"
"$PY" - "$P" <<'PY' || not_ok "the run's names could not be made here"
import os, sys
P = sys.argv[1]
for n in ["logs/" + "n" * 150 + ".log", "logs/caf\u00e9.log", "logs/" + "\u65e5" * 85, "logs/x" + "\u00e9" * 127,
          "logs/" + "a" * 100 + "/" + "b" * 100 + "/" + "c" * 100 + "/f.log", "logs/" + "d" * 200 + "/" + "e" * 30 + "/g.log",
          "logs/" + "/".join(["k" * 50] * 12) + "/end.log", "logs/" + "/".join(["\u00e9" * 40] * 6) + "/\u00e9nd.log",
          "logs/" + "m" * 153 + "/" + "o" * 99, "logs/" + "s" * 98 + ".log"]:
    os.makedirs(os.path.join(P, os.path.dirname(n)), exist_ok=True)
    open(os.path.join(P, n), "w").write("x\n")
os.makedirs(os.path.join(P, "logs", "L" * 120, "M" * 120))
os.makedirs(os.path.join(P, "logs", "\u00e9" * 60))
PY
expect 0 "pack a run with names that need pax headers" "$BENCH" pack "$P"
expect 0 "... and its bundle verifies" "$BENCH" verify "$P.bench.tar.gz"
"$PY" - "$P.bench.tar.gz" h12-20261202T000000Z-abcdef <<'PY' >"$T/pax.out" 2>&1 &&
import gzip, sys
raw, run = gzip.open(sys.argv[1]).read(), sys.argv[2].encode()
off, n, x = 0, 0, 0
while raw[off:off + 512] != b"\0" * 512:
    h = raw[off:off + 512]
    name, prefix = h[0:100].split(b"\0")[0], h[345:500].split(b"\0")[0]
    u = prefix + b"/" + name if prefix else name
    parts = u.rstrip(b"/").split(b"/")
    assert u.startswith(run + b"/") or u == run + b"/", u
    assert b".." not in parts and b"." not in parts and b"" not in parts, u
    n += 1
    x += h[156:157] == b"x"
    off += 512 + (int(h[124:136].rstrip(b"\0 "), 8) + 511) // 512 * 512
assert x >= 10, x
print(f"{n} headers, {x} pax headers")
PY
	ok "a pax-unaware reading of bench's own bundle: every ustar name, the pax headers' too, under RUN/ ($(cat "$T/pax.out"))" ||
	{ not_ok "a pax-unaware reading of bench's own bundle"; show "$T/pax.out"; }
mkdir -p "$T/x"
tar -xzf "$P.bench.tar.gz" -C "$T/x" && [ -f "$T/x/h12-20261202T000000Z-abcdef/logs/caf$("$PY" -c 'print("\u00e9")').log" ] &&
	ok "GNU tar extracts it" || not_ok "GNU tar extracts it"

# --- 5. a pax 'size' other than the ustar size field (thirteenth review, r31O row 16) --------------------------------
# GNU tar, Python and libarchive step by the pax size; a reader that ignores pax headers steps by the ustar one, and
# under a ustar size 0 and a pax size 1024 reads the 1024 bytes as a member zhidden.json that verify never checked
for v in "big 1024 0" "small 0 1024"; do
	set -- $v
	f=$("$PY" tests/bundle/hostile.py "tar-pax-size-$1" "$T" "$BENCH_HOME")
	refused "tar-pax-size-$1: a pax size $2 over a ustar size field $3" \
		"refused archive entry 'hostile-tar-pax-size-$1/za.json': a pax 'size' of $2 bytes and a ustar size field of $3 bytes" \
		"$BENCH" verify "$f"
	[ "$(wc -l <"$T/err")" = 1 ] && ok "tar-pax-size-$1: one line" || { not_ok "tar-pax-size-$1: one line"; show "$T/err"; }
	refused "tar-pax-size-$1: show --no-verify refuses it too" "a pax 'size' of $2 bytes" "$BENCH" show --no-verify "$f"
done
# what a pax-unaware reader does with the first: the header after za.json's (size 0) is zhidden.json's
f=$("$PY" tests/bundle/hostile.py tar-pax-size-big "$T" "$BENCH_HOME")
"$PY" - "$f" <<'PY' && ok "tar-pax-size-big: a pax-unaware reading finds zhidden.json" ||
import gzip, sys
raw = gzip.open(sys.argv[1]).read()
off, names = 0, []
while raw[off:off + 512] != b"\0" * 512:
    h = raw[off:off + 512]
    names.append(h[0:100].rstrip(b"\0"))
    off += 512 + (int(h[124:136].rstrip(b"\0 "), 8) + 511) // 512 * 512
sys.exit(0 if b"hostile-tar-pax-size-big/zhidden.json" in names else 1)
PY
	not_ok "tar-pax-size-big: a pax-unaware reading does not find zhidden.json"
# accepted: a pax size equal to the ustar size field, alone or beside a path and mtime
for v in ok ok-path; do
	f=$("$PY" tests/bundle/hostile.py "tar-pax-size-$v" "$T" "$BENCH_HOME")
	expect 0 "tar-pax-size-$v: a pax size equal to the ustar size field verifies" "$BENCH" verify "$f"
done

# --- the fifteenth review (r31Q 2.11): a name ending in '.' or ' ', one file on Windows with the name without it -
for v in dot space dot-dir; do
	f=$("$PY" tests/bundle/hostile.py "tar-trailing-$v" "$T" "$BENCH_HOME")
	refused "tar-trailing-$v: a path component ending in '.' or ' '" \
		"a path component ending in '.' or ' ' (one file on Windows with the name without it)" "$BENCH" verify "$f"
done
# bench pack refuses such a run directory, naming the file, and writes no bundle
fake_gemm
printf 'bench: 1\nname: trail\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[32, 32, 32]]}\n' >"$T/trail.yaml"
BENCH_RUNNERS=$T/fake "$BENCH" run -q --no-pack -o "$T/trail" "$T/trail.yaml" >"$T/trail.out" 2>&1
D=$(sed -n 1p "$T/trail.out")
for n in "summary.json." "notes.txt "; do
	if [ -d "$D" ]; then
		rm -rf "$D/artifacts" && mkdir -p "$D/artifacts" && echo x >"$D/artifacts/$n"
		expect 1 "pack refuses a run directory holding 'artifacts/$n'" "$BENCH" pack "$D"
		expect_err "a name ending in '.' or ' ' (one file on Windows with the name without it)"
		[ ! -e "$D.bench.tar.gz" ] && ok "no bundle written ('$n')" || not_ok "a bundle was written ('$n')"
	else
		not_ok "no run directory to pack"; show "$T/trail.out"
	fi
done
rm -rf "$D/artifacts"
expect 0 "without it the run directory packs" "$BENCH" pack "$D"
finish
