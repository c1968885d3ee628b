#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Files bench did not create are opened without blocking (issue 31): a FIFO (or a device) named status.json,
# plan.json, a bundle, a trusted key or a run directory's member is refused or skipped, never waited on.
. "$(dirname "$0")/lib.sh"
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
# bounded CODE DESC CMD...: expect, under a 10 s timeout (124: it blocked)
bounded() { want=$1 desc=$2; shift 2; expect "$want" "$desc" timeout 10 "$@"; }
# ls_twice DIR DESC WANT JSON_DESC COND OK_DESC: bench ls DIR shows WANT; bench ls --json DIR prints JSON e for which
# the Python expression COND holds
ls_twice() {
	bounded 0 "$2" "$BENCH" ls "$1"
	expect_out "$3"
	bounded 0 "$4" "$BENCH" ls --json "$1"
	python3 -c "import json, sys; e = json.load(open(sys.argv[1])); sys.exit(0 if $5 else 1)" "$T/out" && ok "$6" ||
		{ not_ok "$6"; show "$T/out"; }
}

for name in status.json plan.json summary.json; do
	mkdir -p "$T/l-$name/run1"
	echo '{"state": "complete", "cases": []}' >"$T/l-$name/run1/status.json"
	rm -f "$T/l-$name/run1/$name"
	mkfifo "$T/l-$name/run1/$name"
	bounded 0 "ls of a run whose $name is a FIFO" "$BENCH" ls "$T/l-$name"
	expect_out "run1"
	bounded 0 "ls --json of a run whose $name is a FIFO" "$BENCH" ls --json "$T/l-$name"
	[ "$name" = summary.json ] || { grep -q "not a regular file" "$T/out" && ok "ls says the FIFO $name is not a regular file" ||
		{ not_ok "ls reason"; show "$T/out"; }; }
done
# a device in place of status.json
mkdir -p "$T/dev/run1"
ln -s /dev/zero "$T/dev/run1/status.json"
bounded 0 "ls of a run whose status.json is a link to /dev/zero" "$BENCH" ls "$T/dev"
# a FIFO where a bundle is read (its signed envelope beside it), and where its envelope is read
mkdir -p "$T/b"
f=$(python3 tests/bundle/hostile.py escape "$T/b" "$BENCH_HOME")
rm "$f" && mkfifo "$f"
bounded 8 "verify of a FIFO bundle" "$BENCH" verify "$f"
expect_err "is not a regular file"
bounded 8 "show of a FIFO bundle" "$BENCH" show "$f"
bounded 8 "show --no-verify of a FIFO bundle" "$BENCH" show --no-verify "$f"
bounded 8 "compare --allow-unverified of a FIFO bundle" "$BENCH" compare --allow-unverified "$f" "$f"
bounded 0 "ls lists a FIFO named like a bundle" "$BENCH" ls "$T/b"
expect_out "not a regular file"
# the same for a link to /dev/zero and a directory named like a bundle (review B9: the bundle vanished from ls)
for kind in zero dir; do
	mkdir -p "$T/b-$kind"
	f=$(python3 tests/bundle/hostile.py escape "$T/b-$kind" "$BENCH_HOME")
	rm "$f"
	if [ $kind = zero ]; then ln -s /dev/zero "$f"; else mkdir "$f"; fi
	ls_twice "$T/b-$kind" "ls lists a $kind named like a bundle" "not a regular file" "ls --json lists it with its error" \
		'any(x.get("error") == "not a regular file" for x in (e if isinstance(e, list) else e.get("entries", e.get("runs", []))))' \
		"--json: the entry carries the error"
done
mkdir -p "$T/e"
f=$(python3 tests/bundle/hostile.py escape "$T/e" "$BENCH_HOME")
rm "$f.intoto.jsonl" && mkfifo "$f.intoto.jsonl"
bounded 8 "verify of a bundle whose envelope is a FIFO" "$BENCH" verify "$f"
expect_err "not a regular file"
# a FIFO as a trusted key
mkfifo "$T/key.pem"
f=$(python3 tests/bundle/hostile.py escape "$T" "$BENCH_HOME")
bounded 8 "verify with a FIFO as the key" "$BENCH" verify --key "$T/key.pem" "$f"
expect_err "not a regular file"
# a FIFO and a link to /dev/zero in trusted/ are named, not passed over (review 31r2 B17)
mkdir -p "$T/h2/trusted"
cp "$BENCH_HOME/signing.pub.pem" "$T/h2/trusted/good.pem"
mkfifo "$T/h2/trusted/a.pem" && ln -s /dev/zero "$T/h2/trusted/b.pem"
bounded 0 "verify with a FIFO and /dev/zero beside a good trusted key" env BENCH_HOME="$T/h2" "$BENCH" verify "$f"
expect_err "warning: trusted key skipped: cannot open key '$T/h2/trusted/a.pem': not a regular file"
expect_err "warning: trusted key skipped: cannot open key '$T/h2/trusted/b.pem': not a regular file"
rm "$T/h2/trusted/good.pem"
bounded 8 "verify with only a FIFO and /dev/zero in trusted/" env BENCH_HOME="$T/h2" "$BENCH" verify "$f"
expect_err "the 2 .pem files in $T/h2/trusted/ could not be read as keys (named above)"
# a run directory's results file that is a FIFO: compare does not wait on it
mkdir -p "$T/cmp/run1/results"
printf '{"name": "x", "channel": "c", "vendor": "cpu"}' >"$T/cmp/run1/plan.json"
echo '{"state": "complete", "cases": []}' >"$T/cmp/run1/status.json"
mkfifo "$T/cmp/run1/results/gemm.jsonl"
timeout 10 "$BENCH" compare "$T/cmp/run1" "$T/cmp/run1" >"$T/out" 2>"$T/err"
rc=$?
[ $rc != 124 ] && ok "compare of a run whose results file is a FIFO does not block" || not_ok "compare blocked on a FIFO"
# ... and says so (review B9: it compared nothing, exit 0): exit 1, the file named
[ $rc = 1 ] && grep -q "cannot read '$T/cmp/run1/results/gemm.jsonl': not a regular file" "$T/err" &&
	ok "compare: a FIFO results file is an error naming it (exit 1)" || { not_ok "compare FIFO results: exit $rc"; show "$T/err"; }
for kind in zero dir; do
	rm -rf "$T/cmp/run1/results/gemm.jsonl"
	if [ $kind = zero ]; then ln -s /dev/zero "$T/cmp/run1/results/gemm.jsonl"; else mkdir "$T/cmp/run1/results/gemm.jsonl"; fi
	bounded 1 "compare of a run whose results file is a $kind: exit 1" "$BENCH" compare "$T/cmp/run1" "$T/cmp/run1"
	expect_err "cannot read '$T/cmp/run1/results/gemm.jsonl': not a regular file"
done
rm -rf "$T/cmp/run1/results/gemm.jsonl"
mkfifo "$T/cmp/run1/status.json.new" && mv "$T/cmp/run1/status.json.new" "$T/cmp/run1/status.json"
bounded 1 "compare of a run whose status.json is a FIFO: exit 1" "$BENCH" compare "$T/cmp/run1" "$T/cmp/run1"
expect_err "status.json': not a regular file"
# show, compare and report give one answer for one file (review 31r2 B15, B16): every document and results file
# of a run directory that is there but not regular (FIFO, socket, /dev/zero, a directory) or over a bundle
# member's limit is an error naming it; "no plan.json" only when there is none
mkrun() { rm -rf "$T/sr"; mkdir -p "$T/sr/run1/results" "$T/sr/run1/env"
	printf '{"name": "x", "channel": "c", "vendor": "cpu"}' >"$T/sr/run1/plan.json"
	echo '{"state": "complete", "cases": []}' >"$T/sr/run1/status.json"; }
for f in results/gemm.jsonl status.json plan.json summary.json env/environment.json manifest.yaml manifest.lock.json; do
	for kind in fifo zero dir socket; do
		mkrun
		rm -f "$T/sr/run1/$f"
		case $kind in
		fifo) mkfifo "$T/sr/run1/$f" ;; zero) ln -s /dev/zero "$T/sr/run1/$f" ;; dir) mkdir "$T/sr/run1/$f" ;;
		socket) python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sr/run1/$f" || continue ;;
		esac
		for c in show compare report; do
			set -- "$T/sr/run1"
			[ $c = show ] || set -- "$T/sr/run1" "$T/sr/run1"
			[ $c = report ] && set -- -o "$T/r.html" "$@"
			bounded 1 "$c of a run whose $f is a $kind: exit 1" "$BENCH" $c "$@"
			grep -q "cannot read '.*run1/$f'" "$T/err" && ! grep -q "no plan.json" "$T/err" &&
				ok "$c names $f" || { not_ok "$c does not name $f"; show "$T/err"; }
		done
	done
done
mkrun
truncate -s 9G "$T/sr/run1/plan.json"
bounded 1 "show of a run whose plan.json is 9 GiB: exit 1" "$BENCH" show "$T/sr/run1"
expect_err "plan.json': 9663676416 bytes, larger than the 16 MiB"
bounded 1 "compare of a run whose plan.json is 9 GiB: exit 1, the same message" "$BENCH" compare "$T/sr/run1" "$T/sr/run1"
expect_err "plan.json': 9663676416 bytes, larger than the 16 MiB"
mkrun
truncate -s 20G "$T/sr/run1/results/gemm.jsonl"
bounded 1 "show of a 20 GiB results file: exit 1" "$BENCH" show "$T/sr/run1"
expect_err "gemm.jsonl': 21474836480 bytes, larger than the 64 MiB"
bounded 1 "compare of a 20 GiB results file: exit 1, the same message" "$BENCH" compare "$T/sr/run1" "$T/sr/run1"
expect_err "gemm.jsonl': 21474836480 bytes, larger than the 64 MiB"
rm -rf "$T/sr/run1/plan.json"
bounded 1 "show of a directory without plan.json" "$BENCH" show "$T/sr/run1"
expect_err "no plan.json"
# pack refuses a directory named like a document, and a bundle holding one does not verify
mkrun
cp "$BENCH_DATA/manifests/quickstart.yaml" "$T/sr/run1/manifest.yaml" && mkdir "$T/sr/run1/results/gemm.jsonl"
expect 1 "pack of a run whose results/gemm.jsonl is a directory: refused" "$BENCH" pack "$T/sr/run1"
expect_err "is a directory named like a document"
f=$(python3 tests/bundle/hostile.py tar-docdir "$T" "$BENCH_HOME")
refused "a bundle with a directory results/gemm.jsonl/" "a directory named like a document" "$BENCH" verify "$f"
refused "show --no-verify of that bundle" "a directory named like a document" "$BENCH" show --no-verify "$f"
# run directories named with bytes that are not UTF-8, beside a bundle (review r31z row 54: ls crashed, exit 139):
# listed with the bytes shown as \xNN, in the table and in --json (well-formed JSON)
for raw in 'a\377' 'b\300' 'c\355\240\200' 'd\033]0;T\007\r\377'; do
	rm -rf "$T/nu" && mkdir -p "$T/nu"
	python3 tests/bundle/hostile.py escape "$T/nu" "$BENCH_HOME" >/dev/null
	d=$T/nu/$(printf "$raw")
	mkdir -p "$d" && printf '{"name": "nonutf8", "channel": "c", "vendor": "cpu"}' >"$d/plan.json"
	echo '{"state": "complete", "cases": []}' >"$d/status.json"
	ls_twice "$T/nu" "ls of a run named '$raw' beside a bundle" "nonutf8" "ls --json of it" \
		'any(x.get("manifest") == "nonutf8" and "\\x" in x["name"] for x in e)' "--json: the run is there, its name escaped"
done
# a link loop and a dangling link named like a bundle are listed with the reason, not dropped (review r31z row 91)
mkdir -p "$T/lk"
ln -s loop.bench.tar.gz "$T/lk/loop.bench.tar.gz"
ln -s a.bench.tar.gz "$T/lk/b.bench.tar.gz" && ln -s b.bench.tar.gz "$T/lk/a.bench.tar.gz"
ln -s /nonexistent "$T/lk/dangling.bench.tar.gz"
ln -s /nonexistent "$T/lk/notabundle"
bounded 0 "ls of link loops and a dangling link named like bundles" "$BENCH" ls "$T/lk"
for n in loop a b; do
	grep -q "$n.bench.tar.gz .*UNVERIFIED (Too many levels of symbolic links)" "$T/out" && ok "ls lists the loop $n" ||
		{ not_ok "ls loop $n"; show "$T/out"; }
done
grep -q "dangling.bench.tar.gz .*UNVERIFIED (No such file or directory)" "$T/out" && ok "ls lists the dangling link" ||
	{ not_ok "ls dangling"; show "$T/out"; }
grep -q notabundle "$T/out" && { not_ok "a link not named like a bundle is listed"; show "$T/out"; } || ok "other dangling links not listed"
finish
