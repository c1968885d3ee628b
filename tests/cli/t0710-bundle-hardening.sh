#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening of the bundle side (issue 19): strict archives (canonical names, the gzip CRC and length, nothing
# after either end, regular modes), size limits before parsing, one reading of a verified file (a swap after
# verification is never used), escaped terminal and CSV output, pack refusing hard links and special files,
# publish refusing links, queueing concurrent publishers and staging only its own files.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"


# --- strict archives: each correctly signed, so that only the archive checks can refuse it -----------------------
for v in dotslash doubleslash trailingslash setuid badcrc badsize plain trailing afterend; do
	f=$("$PY" tests/bundle/hostile.py "$v" "$T" "$BENCH_HOME")
	case $v in
	dotslash) why="a '.' path component" ;; doubleslash) why="an empty path component" ;;
	trailingslash) why="a trailing '/' on a file entry" ;; setuid) why="a setuid, setgid or sticky mode" ;;
	badcrc) why="incorrect data check" ;; badsize) why="incorrect length check" ;; plain) why="plain tar is refused" ;;
	trailing) why="trailing data after the end of the gzip stream" ;; afterend) why="data after the end of the tar archive" ;;
	esac
	refused "hostile archive: $v" "$why" "$BENCH" verify "$f"
	refused "hostile archive: $v, show --no-verify" "$why" "$BENCH" show --no-verify "$f"
	refused "hostile archive: $v, compare --allow-unverified" "$why" "$BENCH" compare --allow-unverified "$f" "$f"
done

# --- tar header kinds bench never writes (issue 31): libarchive skips or applies them where GNU tar and Python do
# otherwise, so each is refused; one reading of a bundle is every reader's -------------------------------------------
for v in global global-comment xcomment xlinkpath xattr xcharset xsparse xdup xx gnulong gnulonglink sparse volume fifo \
	blockdev contig v7reg gnumagic base256; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	case $v in
	global | global-comment) why="a pax global header ('g')" ;; xcomment) why="with the key 'comment'" ;;
	xlinkpath) why="with the key 'linkpath'" ;; xattr) why="with the key 'SCHILY.xattr.user.x'" ;;
	xcharset) why="with the key 'hdrcharset'" ;; xsparse) why="with the key 'GNU.sparse.name'" ;;
	xdup) why="with the key 'path'" ;; xx) why="two pax extended headers in a row" ;;
	gnulong | gnulonglink | gnumagic) why="not a POSIX ustar header (GNU or old tar format)" ;;
	sparse) why="a GNU sparse file ('S')" ;; volume) why="a volume label ('V')" ;;
	fifo | blockdev) why="a device, fifo or other special file" ;; contig) why="a tar header of type '7'" ;;
	v7reg) why="an old-style regular file header" ;; base256) why="a size field that is not octal" ;;
	esac
	refused "tar header kind: $v" "$why" "$BENCH" verify "$f"
	refused "tar header kind: $v, show --no-verify" "$why" "$BENCH" show --no-verify "$f"
	refused "tar header kind: $v, compare --allow-unverified" "$why" "$BENCH" compare --allow-unverified "$f" "$f"
done
# pax values bench never writes (review B4): an mtime that is not a decimal time, a pax path held to the ustar rules;
# zero padding after the end marker beyond one record + slack (a small gzip of gigabytes of zeros) refused early
for v in xmtime-nan xmtime-inf xmtime-neg xmtime-exp xmtime-big xmtime-frac xmtime-hex xmtime-space xpathdotdot \
	xpathabs padded; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	case $v in
	xmtime-*) why="a pax 'mtime' that is not a decimal time" ;; xpathdotdot) why="'..' path component" ;;
	xpathabs) why="absolute path" ;; padded) why="bytes of padding after the end of the tar archive" ;;
	esac
	refused "tar pax value: $v" "$why" "$BENCH" verify "$f"
	refused "tar pax value: $v, compare --allow-unverified" "$why" "$BENCH" compare --allow-unverified "$f" "$f"
done
# numbers and names bench never writes (review 31r2 B06-B10): a base-256 mtime, device numbers that are not octal,
# a ustar prefix whose join with the name gives '//', a directory spelled with '//', names with C1, bidirectional,
# tag or variation-selector characters (ustar or pax), a pax path with '//'
for v in b256mtime devgarbage prefixslash dirdslash namec1 nametag xpathc1 xpathdslash; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	case $v in
	b256mtime) why="a mtime field that is not octal" ;; devgarbage) why="a devminor field that is not octal" ;;
	prefixslash | dirdslash | xpathdslash) why="an empty path component" ;;
	namec1 | nametag | xpathc1) why="a control, bidirectional or invisible character in its name" ;;
	esac
	refused "tar entry: $v" "$why" "$BENCH" verify "$f"
	refused "tar entry: $v, compare --allow-unverified" "$why" "$BENCH" compare --allow-unverified "$f" "$f"
done
for v in xmtime-ok xmtime-okfrac; do
	f=$("$PY" tests/bundle/hostile.py "tar-$v" "$T" "$BENCH_HOME")
	expect 0 "tar pax value: $v (a decimal time, as bench writes) verifies" "$BENCH" verify "$f"
done
# the global header's forgery is real: Python's tarfile reads the decoy entry as status.json
f=$("$PY" tests/bundle/hostile.py tar-global "$T" "$BENCH_HOME")
"$PY" -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
sys.exit(0 if sum(1 for m in t.getmembers() if m.name.endswith("/status.json")) == 2 else 1)' "$f" &&
	ok "tar-global: Python sees two status.json (the forgery bench refuses)" || not_ok "tar-global is no forgery for Python"
# what bench writes passes: a member with a name over 100 bytes (a pax 'x' header with path=)
mkdir -p "$T/longrun/results"
printf '{"state": "complete", "started": "2026-01-01T00:00:00Z", "cases": []}' >"$T/longrun/status.json"
printf "bench: 1\nname: long\n" >"$T/longrun/manifest.yaml"
printf '{}\n' >"$T/longrun/results/$(printf 'n%.0s' $(seq 1 150)).jsonl"
expect 0 "pack of a run with a 150-byte member name" "$BENCH" pack "$T/longrun"
expect 0 "its bundle verifies (pax 'x' header with path=)" "$BENCH" verify "$T/longrun.bench.tar.gz"

# --- a 1 GiB results member in a few MB: refused at its header, in bounded time and memory --------------------------
f=$("$PY" tests/bundle/hostile.py bigresults "$T" "$BENCH_HOME")
echo "# bigresults: $(stat -c %s "$f") bytes"
for cmd in "verify" "compare --allow-unverified" "report --allow-unverified -o $T/rep"; do
	# shellcheck disable=SC2086
	/usr/bin/time -f '%e %M' -o "$T/time" "$BENCH" $cmd "$f" $( [ "$cmd" = "compare --allow-unverified" ] && echo "$f") >"$T/out" 2>"$T/err"
	rc=$?
	read -r secs kb <<EOT
$(tail -n 1 "$T/time")
EOT
	if [ "$rc" = 8 ] && grep -qF "over the limit" "$T/err" && [ "$kb" -lt 200000 ] &&
		"$PY" -c "import sys; sys.exit(float(sys.argv[1]) >= 5)" "$secs"; then
		ok "1 GiB results member: $cmd refuses it (exit 8) in ${secs}s, peak RSS ${kb} kB"
	else
		not_ok "1 GiB results member: $cmd exit $rc in ${secs}s, peak RSS ${kb} kB"
		show "$T/err"
	fi
done

# --- escaped output: a bundle whose plan, status, summary and records carry ESC sequences ---------------------------
f=$("$PY" tests/bundle/hostile.py escape "$T" "$BENCH_HOME")
esc=$(printf '\033')
no_esc() { # description file
	if grep -q "$esc" "$2" || grep -q "$(printf '\007')" "$2"; then not_ok "$1 emits control characters"; show "$2"; else ok "$1: no control character"; fi
}
expect 0 "show of a bundle carrying ESC" "$BENCH" show "$f"
no_esc "show" "$T/out"
expect_out 'TFLOP/s\x1b]0;pwned\x07\x1b[31mRED\x1b[0m'
expect_out "verified  signed by key id"
expect 0 "verify of a bundle carrying ESC" "$BENCH" verify "$f"
no_esc "verify" "$T/out"
expect 0 "compare (text)" "$BENCH" compare "$f" "$f"
no_esc "compare text" "$T/out"
expect 0 "compare (markdown)" "$BENCH" compare -f markdown "$f" "$f"
no_esc "compare markdown" "$T/out"
expect 0 "compare (csv)" "$BENCH" compare -f csv "$f" "$f"
no_esc "compare csv" "$T/out"
"$PY" - "$T/out" <<'PY' && ok "csv: one row per case, the unit quoted and neutralised" || { not_ok "csv fields"; show "$T/out"; }
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 3 and all(len(r) == len(rows[0]) for r in rows), rows  # two cases, no row added
unit = rows[1][rows[0].index("unit")]
assert unit.startswith("'=HYPERLINK("), unit
for r in rows[1:]:
    for v in r:
        assert not v[:1] in ("=", "+", "@", "\t", "\r") and not (v[:1] == "-" and v != "-" and not v[1:2].isdigit()), v
PY
# a member name with ESC: the error message shows it escaped
"$PY" - "$T" "$BENCH_HOME" <<'PY'
import subprocess, sys
src = open("tests/bundle/hostile.py").read().replace('add(tf, f"{run}/status.json/", b"")', 'add(tf, f"{run}/\\x1b[2Jx", b"", mode=0o6755)')
open(sys.argv[1] + "/h2.py", "w").write(src)
PY
f=$("$PY" "$T/h2.py" trailingslash "$T/" "$BENCH_HOME")
refused "an entry named with ESC" 'refused archive entry' "$BENCH" verify "$f"
no_esc "verify's error" "$T/err"
grep -qF 'x1b[2Jx' "$T/err" && ok "the name is shown as \\x1b" || { not_ok "escaped name"; show "$T/err"; }

# --- show verifies first --------------------------------------------------------------------------------------------
cp "$f" "$T/unsigned.bench.tar.gz"
refused "show of a bundle without its envelope" "pass --no-verify" "$BENCH" show "$T/unsigned.bench.tar.gz"
# a directory entry with a size (its "data" a whole hidden member, which every reader then lists): refused, as
# bench writes its directories with none (review r31z row 40); by the ustar size and by a pax size
for v in tar-dirdata tar-dirdata-pax; do
	f=$("$PY" tests/bundle/hostile.py "$v" "$T" "$BENCH_HOME")
	refused "$v: verify" "a directory with a size (1024 bytes)" "$BENCH" verify "$f"
	refused "$v: show --no-verify" "a directory with a size" "$BENCH" show --no-verify "$f"
	refused "$v: reproduce" "a directory with a size" "$BENCH" reproduce --dry-run "$f"
done
# pack onto a full disk: the system's reason, never "(null)" (review r31z row 96); needs a private tmpfs (root)
if unshare -m true 2>/dev/null; then
	mkdir -p "$T/full" "$T/src/pk-20261202T000000Z-abcdef/logs"
	printf '{"name": "pk", "channel": "c", "vendor": "cpu"}' >"$T/src/pk-20261202T000000Z-abcdef/plan.json"
	echo '{"state": "complete", "cases": []}' >"$T/src/pk-20261202T000000Z-abcdef/status.json"
	printf 'bench: 1\nname: pk\ntarget: {vendor: cpu}\nsuites:\n  gemm: {}\n' >"$T/src/pk-20261202T000000Z-abcdef/manifest.yaml"
	head -c 3000000 /dev/urandom | base64 >"$T/src/pk-20261202T000000Z-abcdef/logs/gemm.log"
	for size in 5m 6m; do
		unshare -m sh -c "mount -t tmpfs -o size=$size tmpfs '$T/full' && cp -r '$T/src/pk-20261202T000000Z-abcdef' '$T/full/' &&
			'$BENCH' pack '$T/full/pk-20261202T000000Z-abcdef'; echo \"rc=\$?\"; ls '$T/full'" >"$T/out" 2>"$T/err"
		if grep -q "rc=1" "$T/out" && grep -q "No space left on device" "$T/err" && ! grep -q "(null)" "$T/err"; then
			ok "pack onto a full $size tmpfs: exit 1, No space left on device"
		else
			not_ok "pack onto a full $size tmpfs"; show "$T/err"; show "$T/out"
		fi
		grep -q "bench.tar.gz" "$T/out" && not_ok "a partial bundle left on the $size tmpfs" || ok "no partial bundle left ($size)"
	done
else
	ok "# SKIP pack onto a full disk: unshare -m not permitted here"
fi
finish
