#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish against a hostile file system and itself (issue 19): a bundle swapped or rewritten after it
# verified is never committed (a deterministic test hook swaps it there), links in the repository are refused,
# 20 concurrent publishers queue and each lands in its own commit with nothing else; pack refuses hard links
# and special files.
. "$(dirname "$0")/lib.sh"
fake_gemm
cat >"$T/m.yaml" <<'Y'
bench: 1
name: hard
channel: nightly
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
run() { # out-dir samples
	BENCH_RUNNERS=$T/fake FAKE_SAMPLES=$2 "$BENCH" run -q -o "$T/$1" "$T/m.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out" >&2; return 1; }
	sed -n 1p "$T/run.out"
}
A=$(run a 1.00,1.01,0.99)
X=$(run x 9.00,9.01,8.99) # another signed run: the swap's payload
sha() { sha256sum "$1" | cut -d' ' -f1; }

# --- a swap after verification: the hook runs between verify and use ------------------------------------------------
cat >"$T/swap.sh" <<EOF2
#!/bin/sh
# \$1: the stage, \$2: the bundle. Replaces the bundle named by \$HOOK_TARGET by another run's bytes (rename: a
# new file at the path); the hook also runs for the bundles publish reads back from the repository: left alone.
[ "\$2" = "\$HOOK_TARGET" ] || exit 0
echo "\$1" >>"$T/hook.log"
cp "$X.bench.tar.gz" "\$2.new" && mv "\$2.new" "\$2"
EOF2
cat >"$T/rewrite.sh" <<EOF2
#!/bin/sh
# the same, written in place (the same inode, new bytes)
[ "\$2" = "\$HOOK_TARGET" ] || exit 0
echo "\$1" >>"$T/hook.log"
cat "$X.bench.tar.gz" >"\$2"
EOF2
chmod +x "$T/swap.sh" "$T/rewrite.sh"
mkdir "$T/s1" && cp "$A.bench.tar.gz" "$A.bench.tar.gz.intoto.jsonl" "$T/s1/"
S1=$T/s1/$(basename "$A").bench.tar.gz
good=$(sha "$S1")
HOOK_TARGET=$S1 BENCH_TEST_HOOK_AFTER_VERIFY=$T/swap.sh expect 0 "publish with the bundle swapped after it verified" "$BENCH" publish --repo "$T/r1" "$S1"
[ -s "$T/hook.log" ] && ok "the test hook ran ($(tr '\n' ' ' <"$T/hook.log"))" || not_ok "the test hook did not run"
[ "$(sha "$S1")" = "$(sha "$X.bench.tar.gz")" ] && ok "the file was swapped" || not_ok "no swap"
P1=$T/r1/runs/hard/nightly/$(basename "$A").bench.tar.gz
[ "$(git -C "$T/r1" show "HEAD:runs/hard/nightly/$(basename "$A").bench.tar.gz" | sha256sum | cut -d' ' -f1)" = "$good" ] &&
	[ "$(sha "$P1")" = "$good" ] && ok "the commit holds the verified bytes, not the swapped ones" || not_ok "swapped bytes committed"
mkdir "$T/s2" && cp "$A.bench.tar.gz" "$A.bench.tar.gz.intoto.jsonl" "$T/s2/"
S2=$T/s2/$(basename "$A").bench.tar.gz
HOOK_TARGET=$S2 BENCH_TEST_HOOK_AFTER_VERIFY=$T/rewrite.sh expect 8 "publish with the bundle rewritten in place after it verified" "$BENCH" publish --repo "$T/r2" "$S2"
expect_err "the bundle changed after it was verified"
[ ! -e "$T/r2/runs/hard/nightly/$(basename "$A").bench.tar.gz" ] && ! git -C "$T/r2" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
	ok "nothing was committed" || not_ok "a rewritten bundle was committed"
# compare: the values shown are the verified ones (1.0), never the swapped run's (9.0)
mkdir "$T/s3" && cp "$A.bench.tar.gz" "$A.bench.tar.gz.intoto.jsonl" "$T/s3/"
S3=$T/s3/$(basename "$A").bench.tar.gz
: >"$T/hook.log"
HOOK_TARGET=$S3 BENCH_TEST_HOOK_AFTER_VERIFY=$T/rewrite.sh expect 0 "compare with the bundle rewritten after it verified" "$BENCH" compare --format json "$S3" --vs "$A.bench.tar.gz"
[ -s "$T/hook.log" ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = d['cases'][0]
assert abs(c['baseline']['value'] - 1.0) < 0.02 and abs(c['others'][0]['value'] - 1.0) < 0.02, c
assert all(s['verified'] for s in d['sides']), d['sides']" "$T/out" && ok "compare shows the verified values" || { not_ok "compare used swapped bytes"; show "$T/out"; }

# --- links in the repository -----------------------------------------------------------------------------------------
expect 0 "a first publish" "$BENCH" publish --repo "$T/r3" "$A.bench.tar.gz"
B=$(run b 0.90,0.91,0.89)
mkdir "$T/outside"
rm -rf "$T/r3/site" && ln -s "$T/outside" "$T/r3/site"
expect 1 "publish refuses a symlinked site/" "$BENCH" publish --repo "$T/r3" "$B.bench.tar.gz"
expect_err "'site' in '$T/r3/site' is a symbolic link"
[ -z "$(ls -A "$T/outside")" ] && ok "nothing was written outside the repository" || { not_ok "wrote outside"; ls -R "$T/outside" | head; }
rm "$T/r3/site" # generated, not committed: the next publish writes it again
mkdir "$T/outside2"
mv "$T/r3/runs/hard" "$T/r3/runs/hard.real" && ln -s "$T/outside2" "$T/r3/runs/hard"
expect 1 "publish refuses a symlinked runs/<name>" "$BENCH" publish --repo "$T/r3" "$B.bench.tar.gz"
expect_err "is a symbolic link"
[ -z "$(ls -A "$T/outside2")" ] && ok "no bundle was written through the link" || not_ok "a bundle went through the link"
rm "$T/r3/runs/hard" && mv "$T/r3/runs/hard.real" "$T/r3/runs/hard"
echo stray >"$T/r3/stray.txt"
expect 0 "publish after the links are gone" "$BENCH" publish --repo "$T/r3" "$B.bench.tar.gz"
git -C "$T/r3" show --name-only --format= HEAD >"$T/files"
! grep -q stray "$T/files" && ! grep -q '\.tmp' "$T/files" && grep -q "$(basename "$B").bench.tar.gz$" "$T/files" &&
	grep -q "^summaries/$(sha "$B.bench.tar.gz").json$" "$T/files" && ! grep -q "^site/" "$T/files" &&
	ok "the commit holds the bundle and its summary, not a stray file" || { not_ok "commit contents"; echo "# B=$B"; show "$T/files"; }

# --- 20 concurrent publishers ----------------------------------------------------------------------------------------
for i in $(seq 1 20); do
	d=$T/many/hard-run-$i
	mkdir -p "$T/many" && cp -r "$A" "$d"
	"$BENCH" pack "$d" >/dev/null 2>&1 || not_ok "pack $d"
done
pids=
for i in $(seq 1 20); do
	"$BENCH" publish --repo "$T/r4" "$T/many/hard-run-$i.bench.tar.gz" >"$T/p$i.out" 2>"$T/p$i.err" &
	pids="$pids $!"
done
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
[ "$fails" = 0 ] && ok "20 concurrent publishes all exit 0" || { not_ok "$fails of 20 publishes failed"; cat "$T"/p*.err | head -5; }
[ "$(git -C "$T/r4" rev-list --count HEAD)" = 20 ] && ok "20 commits" || not_ok "commits: $(git -C "$T/r4" rev-list --count HEAD)"
bad=0
for c in $(git -C "$T/r4" rev-list HEAD); do
	n=$(git -C "$T/r4" show --name-only --format= "$c" | grep -c '^runs/.*\.bench\.tar\.gz$')
	[ "$n" = 1 ] || bad=$((bad + 1))
done
[ "$bad" = 0 ] && ok "every commit adds exactly one bundle" || not_ok "$bad commits add other than one bundle"
git -C "$T/r4" log --all --name-only --format= | grep '\.tmp' >"$T/tmps"
[ ! -s "$T/tmps" ] && [ -z "$(git -C "$T/r4" status --porcelain)" ] && ok "no .tmp file in history, a clean work tree" ||
	{ not_ok ".tmp files or a dirty tree"; show "$T/tmps"; }

# --- pack: hard links and special files ----------------------------------------------------------------------------
C=$(run c 1.0,1.0,1.0)
echo secret >"$T/outside-file"
ln "$T/outside-file" "$C/logs/linked.log"
expect 1 "pack refuses a hard link in the run directory" "$BENCH" pack "$C"
expect_err "is a hard link (2 names)"
rm "$C/logs/linked.log"
mkfifo "$C/logs/fifo"
expect 1 "pack refuses a fifo in the run directory" "$BENCH" pack "$C"
expect_err "is not a regular file or directory"
rm "$C/logs/fifo"
expect 0 "pack after they are gone" "$BENCH" pack "$C"
finish
