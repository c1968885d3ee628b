#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench ls's verification cache ($BENCH_HOME/cache/ls): a bundle that verified is listed from the cache as
# "verified (cached)" while its file and envelope are what they were (inode, size, mtime, ctime) and the keys are
# the same; --verify verifies afresh. What the cache may not claim: a bundle changed in place with its size and
# mtime put back, a bundle replaced by a rename, a changed envelope, other keys: each is verified again and
# reported UNVERIFIED. A bundle that does not verify is never cached; a bundle gone drops out of the cache.
. "$(dirname "$0")/lib.sh"
cat >"$T/m.yaml" <<'Y'
bench: 1
name: lscache
channel: nightly
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 20s}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 3ms}
Y
fake_gemm
R=$T/runs
for i in 1 2 3; do
	BENCH_RUNNERS=$T/fake expect 0 "run $i" "$BENCH" run -q -o "$R" "$T/m.yaml"
	eval "B$i=\$(sed -n 2p "\$T/out")"
	sleep 1
done
line() { grep -F "$(basename "$1") " "$T/out"; }

expect 0 "ls: first listing" "$BENCH" ls "$R"
[ "$(grep -c ' verified$' "$T/out")" = 3 ] && ok "three bundles verified afresh" || { not_ok "first listing"; show "$T/out"; }
CACHE=$(ls "$BENCH_HOME"/cache/ls/*.json 2>/dev/null)
[ -n "$CACHE" ] && ok "a cache under \$BENCH_HOME/cache/ls" || not_ok "no cache file"
expect 0 "ls again" "$BENCH" ls "$R"
[ "$(grep -c ' verified (cached)$' "$T/out")" = 3 ] && ok "three bundles from the cache: verified (cached)" ||
	{ not_ok "second listing"; show "$T/out"; }
expect 0 "ls --json" "$BENCH" ls --json "$R"
python3 -c 'import json,sys; l=[e for e in json.load(open(sys.argv[1])) if e["kind"]=="bundle"]; assert len(l)==3 and all(e["cached"] is True and e["verify"]=="verified" for e in l), l' "$T/out" &&
	ok "--json: verify verified, cached true" || not_ok "json cached"
expect 0 "ls --verify" "$BENCH" ls --verify "$R"
[ "$(grep -c ' verified$' "$T/out")" = 3 ] && ! grep -q cached "$T/out" && ok "--verify: verified afresh, not from the cache" ||
	{ not_ok "--verify"; show "$T/out"; }
HERE=$PWD
cd "$R" && expect 0 "ls by a relative path shares the cache" "$BENCH" ls .
cd "$HERE" || exit 1
[ "$(grep -c ' verified (cached)$' "$T/out")" = 3 ] && ok "the same directory by another path: cached" || { not_ok "relative"; show "$T/out"; }

# B1 changed in place, its size and mtime (to the nanosecond) put back: only its ctime tells
cp -p "$B1" "$T/ref"
flip_byte "$B1" 300
touch -r "$T/ref" "$B1"
[ "$(stat -c %s.%y "$B1")" = "$(stat -c %s.%y "$T/ref")" ] && ok "B1 tampered, size and mtime as before" || not_ok "tamper setup"
expect 0 "ls after B1 changed" "$BENCH" ls "$R"
line "$B1" | grep -q ' UNVERIFIED (' && ok "B1: UNVERIFIED, verified again" || { not_ok "B1 not re-verified"; show "$T/out"; }
line "$B2" | grep -q ' verified (cached)$' && ok "B2 untouched: still from the cache" || { not_ok "B2"; show "$T/out"; }
expect 0 "ls again after B1 changed" "$BENCH" ls "$R"
line "$B1" | grep -q ' UNVERIFIED (' && ok "B1: a bundle that does not verify is not cached" || { not_ok "B1 cached"; show "$T/out"; }

# B2 replaced through a rename by a tampered copy of itself, size and mtime as before: another inode
cp -p "$B2" "$T/b2" && flip_byte "$T/b2" 300 && touch -r "$B2" "$T/b2" && mv "$T/b2" "$B2"
expect 0 "ls after B2 replaced" "$BENCH" ls "$R"
line "$B2" | grep -q ' UNVERIFIED (' && ok "B2 replaced by a rename (same size and mtime): verified again, UNVERIFIED" || { not_ok "B2 replaced"; show "$T/out"; }

# B3's envelope changed in place, its size and mtime put back
cp -p "$B3.intoto.jsonl" "$T/ref" && flip_byte "$B3.intoto.jsonl" 40 && touch -r "$T/ref" "$B3.intoto.jsonl"
expect 0 "ls after B3's envelope changed" "$BENCH" ls "$R"
line "$B3" | grep -q ' UNVERIFIED (' && ok "B3 with a changed envelope: UNVERIFIED" || { not_ok "B3 envelope"; show "$T/out"; }

# other keys: nothing of the cache made with the trusted keys holds
rm -rf "$R" && mkdir -p "$R"
BENCH_RUNNERS=$T/fake expect 0 "run 4" "$BENCH" run -q -o "$R" "$T/m.yaml"
B4=$(sed -n 2p "$T/out")
expect 0 "ls 4" "$BENCH" ls "$R"
expect 0 "ls 4 again" "$BENCH" ls "$R"
line "$B4" | grep -q ' verified (cached)$' && ok "B4 from the cache" || { not_ok "B4 cache"; show "$T/out"; }
mkdir -p "$T/other" && BENCH_HOME=$T/other "$BENCH" keygen >/dev/null 2>&1
expect 0 "ls --key another key" "$BENCH" ls --key "$T/other/signing.pub.pem" "$R"
line "$B4" | grep -q ' UNVERIFIED (' && ok "another key: verified again, UNVERIFIED" || { not_ok "B4 other key"; show "$T/out"; }
grep -q "$(basename "$B1")" "$CACHE" && not_ok "B1 still in the cache" || ok "bundles gone dropped out of the cache"
finish
