#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Signed bundles: keygen, pack (deterministic), verify (ours, openssl by docs/bundle-format.md, python
# cryptography), show; tampering and hostile archives refused with exit 8 and the reason.
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# --- keys ---------------------------------------------------------------------------------------------------------
expect 0 "keygen creates a key pair" "$BENCH" keygen
kid=$(cat "$T/out")
[ "$(stat -c %a "$BENCH_HOME/signing.key.pem")" = 600 ] && ok "private key is 0600" || not_ok "private key mode"
[ ${#kid} = 44 ] && ok "prints a base64 sha256 key id" || not_ok "key id '$kid'"
[ "$(openssl pkey -pubin -in "$BENCH_HOME/signing.pub.pem" -outform DER | openssl dgst -sha256 -binary | base64)" = "$kid" ] &&
	ok "key id = base64(sha256(DER public key)), by openssl" || not_ok "key id differs from openssl's"
expect 1 "keygen refuses to overwrite" "$BENCH" keygen
expect_err "use --force"
expect 0 "keygen --force replaces it" "$BENCH" keygen --force
kid=$(cat "$T/out")

# --- a run, packed --------------------------------------------------------------------------------------------------
cat >"$T/m.yaml" <<'Y'
bench: 1
name: bundletest
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]], warmup: 1ms, rep: 3ms, flush_bytes: 1MiB}
  membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 3ms}
Y
expect 0 "bench run ends with a bundle" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
D=$(sed -n 1p "$T/out")
B=$(sed -n 2p "$T/out")
[ "$B" = "$D.bench.tar.gz" ] && [ -f "$B.intoto.jsonl" ] && ok "bundle and envelope beside the run directory" || not_ok "bundle paths"
expect 0 "verify" "$BENCH" verify "$B"
expect_out "key id $kid"
expect_out "nothing missing, extra or duplicated"

chmod 644 "$BENCH_HOME/signing.key.pem"
expect 1 "a group/world-readable private key is refused" "$BENCH" pack "$D"
expect_err "readable by group or others (mode 0644)"
chmod 600 "$BENCH_HOME/signing.key.pem"

# --- deterministic ----------------------------------------------------------------------------------------------------
cp "$B" "$T/first.tgz"
cp "$B.intoto.jsonl" "$T/first.env"
sleep 1
find "$D" -exec touch {} +
expect 0 "pack again after touching every file" "$BENCH" pack "$D"
expect_same "same bytes after touching files" "$T/first.tgz" "$B"
cp -r "$D" "$T/copy"
rm -rf "$D"
mkdir "$D"
(cd "$T/copy" && find . -type f | sort -r | while read -r f; do mkdir -p "$D/$(dirname "$f")"; cp "$f" "$D/$f"; done)
expect 0 "pack a copy created in reverse order" "$BENCH" pack "$D"
expect_same "same bytes after re-creating the directory in another order" "$T/first.tgz" "$B"
expect_same "same envelope (Ed25519 is deterministic)" "$T/first.env" "$B.intoto.jsonl"

# --level 0: stored, still a valid gzip that verifies; then back to the default bytes
expect 0 "pack --level 0" "$BENCH" pack --level 0 "$D"
gzip -t "$B" && [ "$(wc -c <"$B")" -gt "$(wc -c <"$T/first.tgz")" ] && ok "level 0 is a valid gzip stream, larger" || not_ok "level 0"
expect 0 "a stored bundle verifies" "$BENCH" verify "$B"
expect 2 "--level 10 is refused" "$BENCH" pack --level 10 "$D"
expect_err "--level is a digit"
expect 0 "pack at the default level again" "$BENCH" pack "$D"
expect_same "the default level gives the first bytes again" "$T/first.tgz" "$B"

# --- interoperability ----------------------------------------------------------------------------------------------------
expect 0 "verified with standard tools (docs/bundle-format.md recipe)" sh tests/bundle/verify-with-openssl.sh "$B" "$BENCH_HOME/signing.pub.pem"
expect_out "Signature Verified Successfully"
expect_out "verified with standard tools"
if "$PY" -c "import cryptography" 2>/dev/null; then
	expect 0 "verified by an independent Python implementation (cryptography)" "$PY" tests/bundle/dsse_cryptography.py "$B" "$BENCH_HOME/signing.pub.pem"
else not_ok "python3-cryptography missing"; fi

expect 0 "show reads the run from the archive" "$BENCH" show "$B"
expect_out "manifest  bundletest (channel custom, cpu)"
expect_out "cblas/fp32/tn/64x64x64/default"
expect_out "suite        case                                             status            value     n      cv"
n=$("$PY" "$(dirname "$0")/terminal_check.py" summary "$T/out" "$D"/results/*.jsonl 2>"$T/tc") && [ "$n" = 3 ] &&
	ok "show: each of the 3 cases with its value scaled to a readable unit, the record's n and cv" ||
	{ not_ok "show: case table ($n)"; show "$T/tc"; }
expect 0 "show --json" "$BENCH" show --json "$B"
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['summary']['counts']['ok']==3 and d['plan']['name']=='bundletest'" "$T/out" &&
	ok "show --json holds plan, status, summary, environment" || not_ok "show --json"
"$PY" - "$T/out" "$D/summary.json" <<'PY' && ok "show --json keeps the raw values and the units as recorded" || not_ok "show --json values"
import json, sys
shown, disk = json.load(open(sys.argv[1]))["summary"]["cases"], json.load(open(sys.argv[2]))["cases"]
assert [(c["value"], c["unit"]) for c in shown] == [(c["value"], c["unit"]) for c in disk], (shown, disk)
assert {c["unit"] for c in shown} == {"TFLOP/s", "TB/s"}, shown
PY

# a run whose runner crashed after one case, and one whose runner skipped a case: show says why for each
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
ln -s "$R/bench-membw" "$T/fake/bench-membw"
BENCH_RUNNERS=$T/fake FAKE_MODE=crash FAKE_GOOD=1 expect 6 "a run whose gemm runner crashes after one case: exit 6" "$BENCH" run -q -o "$T/crash" "$T/m.yaml"
BC=$(sed -n 2p "$T/out")
expect 0 "show a bundle with failed cases" "$BENCH" show "$BC"
expect_out "state     failed"
expect_out "cases that did not measure (1 failed, 0 interrupted, 0 not run, 0 skipped), with the reason:"
grep -E '^gemm +cblas/fp32/tn/32x32x32/default +failed +the runner was killed by signal 11 \(Segmentation fault\) before reporting this case$' "$T/out" >/dev/null &&
	ok "show: the failed case with the runner's signal as its reason" || { not_ok "show: failed case reason"; show "$T/out"; }
grep -E '^gemm +cblas/fp32/tn/32x32x32/default +failed +- +- +-$' "$T/out" >/dev/null &&
	ok "show: a failed case has no value in the table" || { not_ok "show: failed case value"; show "$T/out"; }
BENCH_RUNNERS=$T/fake FAKE_MODE=skip expect 0 "a run with a skipped case" "$BENCH" run -q -o "$T/skip" "$T/m.yaml"
BS=$(sed -n 2p "$T/out")
expect 0 "show a bundle with a skipped case" "$BENCH" show "$BS"
grep -E '^gemm +cblas/fp32/tn/64x64x64/default +skipped +not supported here: skip planted by the fake runner$' "$T/out" >/dev/null &&
	ok "show: the skipped case with its reason" || { not_ok "show: skipped case reason"; show "$T/out"; }
expect 0 "show --json of the crashed run" "$BENCH" show --json "$BC"
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); c=[x for x in d['status']['cases'] if x['status']=='failed']; assert len(c)==1 and 'killed by signal 11' in c[0]['error'], c" "$T/out" &&
	ok "show --json: status carries the failed case and its reason" || not_ok "show --json reason"

# --- tampering ----------------------------------------------------------------------------------------------------------
mkdir -p "$T/tamper"
n=0
for m in $(tar -tzf "$B" | grep -v '/$'); do
	n=$((n + 1))
	rm -rf "$T/x" && mkdir "$T/x" && tar -C "$T/x" -xzf "$B"
	flip_byte "$T/x/$m" 0
	(cd "$T/x" && tar --format=ustar --sort=name --owner=0 --group=0 --numeric-owner -czf "$T/tamper/$(basename "$B")" "$(basename "$D")")
	cp "$B.intoto.jsonl" "$T/tamper/"
	refused "one flipped byte in $m" "member '$m' digest differs" "$BENCH" verify "$T/tamper/$(basename "$B")"
done
[ "$n" -ge 10 ] && ok "every one of $n members was tampered with" || not_ok "only $n members"
cp "$B" "$T/tamper/" && cp "$B.intoto.jsonl" "$T/tamper/"
size=$(stat -c %s "$B")
# the complement of the byte that is there (a fixed byte would be no change one time in 256)
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))' \
	"$T/tamper/$(basename "$B")" $((size - 5))
refused "one flipped byte in the gzip trailer (its CRC-32)" "gzip decompression failed: incorrect data check" "$BENCH" verify "$T/tamper/$(basename "$B")"
cp "$B" "$T/tamper/"
"$PY" - "$T/tamper/$(basename "$B").intoto.jsonl" payload <<'PY'
import base64, json, sys
p, what = sys.argv[1], sys.argv[2]
e = json.load(open(p))
if what == "payload":
    b = bytearray(base64.b64decode(e["payload"])); b[40] ^= 1; e["payload"] = base64.b64encode(bytes(b)).decode()
else:
    b = bytearray(base64.b64decode(e["signatures"][0]["sig"])); b[5] ^= 1; e["signatures"][0]["sig"] = base64.b64encode(bytes(b)).decode()
open(p, "w").write(json.dumps(e) + "\n")
PY
refused "one flipped byte in the payload" "does not verify" "$BENCH" verify "$T/tamper/$(basename "$B")"
cp "$B.intoto.jsonl" "$T/tamper/"
"$PY" - "$T/tamper/$(basename "$B").intoto.jsonl" sig <<'PY'
import base64, json, sys
p = sys.argv[1]
e = json.load(open(p))
b = bytearray(base64.b64decode(e["signatures"][0]["sig"])); b[5] ^= 1; e["signatures"][0]["sig"] = base64.b64encode(bytes(b)).decode()
open(p, "w").write(json.dumps(e) + "\n")
PY
refused "one flipped byte in the signature" "does not verify" "$BENCH" verify "$T/tamper/$(basename "$B")"
openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null && openssl pkey -in "$T/other.pem" -pubout -out "$T/other.pub" 2>/dev/null
refused "a wrong key" "no signature by a known key" "$BENCH" verify --key "$T/other.pub" "$B"
expect 0 "--run again, another bundle" "$BENCH" run -q -o "$T/runs2" "$T/m.yaml"
B2=$(sed -n 2p "$T/out")
refused "the envelope of another run" "an envelope of another run" "$BENCH" verify --envelope "$B2.intoto.jsonl" "$B"
refused "no envelope" "cannot open" "$BENCH" verify --envelope "$T/nope" "$B"

# --- hostile archives, correctly signed: only the archive checks stand between them and the disk -----------------
for v in absolute dotdot symlink hardlink device duplicate many huge truncated corrupt extra missing; do
	f=$("$PY" tests/bundle/hostile.py "$v" "$T" "$BENCH_HOME")
	case $v in
	absolute) why="an absolute path" ;; dotdot) why="a '..' path component" ;; symlink) why="a symbolic link" ;;
	hardlink) why="a hard link" ;; device) why="a device, fifo or other special file" ;; duplicate) why="a duplicate name" ;;
	many) why="more than 50 entries" ;; huge) why="over the limit" ;; truncated) why="truncated" ;;
	corrupt) why="gzip decompression failed" ;; extra) why="not in the signed statement" ;; missing) why="missing from the archive" ;;
	esac
	BENCH_BUNDLE_MAX_ENTRIES=50 refused "hostile archive: $v" "$why" "$BENCH" verify "$f"
done
[ ! -e /etc/hostile-absolute-owned ] && [ ! -e "$T/../escaped" ] && ok "nothing was written outside" || not_ok "a hostile entry was written"
finish
