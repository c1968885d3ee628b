#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the review of issue 31 (r31v): bench pack scrubs a run directory packed by hand; reproduce lists
# every plug-in (running code) and takes file:/native: plug-ins from the bundle's inputs/; more variables that run
# code flagged; tar and gzip header fields bench never writes refused; names printed escaped.
. "$(dirname "$0")/lib.sh"
fake_gemm
FAKE=$T/fake
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
cat >"$T/m.yaml" <<Y
bench: 1
name: hard
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$FAKE expect 0 "a run to pack by hand (--no-pack)" "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml"
R=$(ls -d "$T"/runs/hard-*[0-9a-f] | head -n 1)
N=$(basename "$R")

# --- 1. bench pack scrubs what it packs, as bench run does
GHP=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789
printf 'token %s https://alice:Sup3rS3cretPW@git.example.com/r.git\nHF_TOKEN=hfsecretvalue42\n' "$GHP" >>"$R/logs/gemm.log"
mkdir -p "$R/extra"
printf '{"note": "my-env-secret-value-77 and %s"}\n' "$GHP" >"$R/extra/added.json"
printf 'bin\000ary %s tail' "$GHP" >"$R/extra/blob.bin"
MYSECRET_TOKEN=my-env-secret-value-77 expect 0 "pack a run directory holding secrets" "$BENCH" pack "$R"
tar -xzOf "$R.bench.tar.gz" "$N/logs/gemm.log" >"$T/log" 2>/dev/null
tar -xzOf "$R.bench.tar.gz" "$N/extra/added.json" >"$T/added" 2>/dev/null
tar -xzOf "$R.bench.tar.gz" "$N/extra/blob.bin" >"$T/blob" 2>/dev/null
for s in "$GHP" Sup3rS3cretPW hfsecretvalue42; do
	if grep -qF "$s" "$T/log"; then not_ok "pack left '$s' in the log"; else ok "pack scrubbed '$s' from the log"; fi
done
grep -qF "$GHP" "$T/added" && not_ok "token in a file added after the run" || ok "token scrubbed from a file added after the run"
grep -qF "my-env-secret-value-77" "$T/added" && not_ok "a secret value of pack's environment packed" ||
	ok "the secret values of pack's own environment scrubbed"
grep -qF "git.example.com/r.git" "$T/log" && ok "the rest of the line kept" || not_ok "scrub ate the line"
if grep -qaF "$GHP" "$T/blob"; then not_ok "token in a binary file"; else
	[ "$(wc -c <"$T/blob")" = "$(printf 'bin\000ary %s tail' "$GHP" | wc -c)" ] && ok "binary file scrubbed byte-exactly" ||
		not_ok "binary file length changed"
fi
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$R.bench.tar.gz"
# the manifest copy and inputs/ are the run's inputs, signed by their digests: left as they are
tar -xzOf "$R.bench.tar.gz" "$N/manifest.yaml" >"$T/mf"
expect_same "the manifest copy packed as it was" "$R/manifest.yaml" "$T/mf"

# --- 2. reproduce lists every plug-in as running code, and takes file:/native: plug-ins from the bundle's inputs/
mkdir -p "$T/pm/plugins" "$T/pm/ssd"
printf 'not really a shared object, but its bytes are pinned\n' >"$T/pm/plugins/libcgemm.so"
printf 'def attention(q, k, v, causal, window):\n    return q\n' >"$T/pm/plugins/myattn.py"
cat >"$T/pm/p.yaml" <<Y
bench: 1
name: plug
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm:
    backends: [{plugin: pyg, python: "evilmod:matmul"}, {plugin: cg, native: plugins/libcgemm.so}]
    dtypes: [fp32]
    shapes: [[64, 64, 64]]
  attention:
    impl: [{plugin: myattn, file: plugins/myattn.py, function: attention}]
    seq_lens: [64]
    head_dim: 16
    width: 32
    tokens: 128
    passes: [fwd]
    dtype: bf16
Y
ln -sf "$T/fake/bench-gemm" "$T/fake/bench-attention"
expect 0 "lock pins the file and native plug-ins" "$BENCH" lock "$T/pm/p.yaml"
# (the fake runner fails the plug-in cases, exit 6 or 7: what matters here is what is packed and listed)
BENCH_RUNNERS=$FAKE "$BENCH" run -q -o "$T/pruns" --locked "$T/pm/p.yaml" >"$T/out" 2>"$T/err"
[ -f "$(ls "$T"/pruns/plug-*.bench.tar.gz | head -n 1)" ] && ok "a run with python, native and file plug-ins, packed" ||
	{ not_ok "the plug-in run was not packed"; show "$T/err"; }
PB=$(ls "$T"/pruns/plug-*.bench.tar.gz | head -n 1)
CGSHA=$(sha256sum "$T/pm/plugins/libcgemm.so" | cut -d' ' -f1)
ATSHA=$(sha256sum "$T/pm/plugins/myattn.py" | cut -d' ' -f1)
mv "$T/pm" "$T/pm.gone" # the plug-ins are read from the bundle, nothing beside the original manifest
BENCH_RUNNERS=$FAKE expect 3 "reproduce without --yes: listed, nothing run" "$BENCH" reproduce -o "$T/rep" "$PB" </dev/null
expect_err "suites.gemm.plugin.pyg"
expect_err "python evilmod:matmul (imported and called by the runner)"
expect_err "native plugins/libcgemm.so sha256 $CGSHA (loaded by the runner)"
expect_err "file plugins/myattn.py sha256 $ATSHA (run by the runner)"
expect_err "^ runs code: a Python module of the signer's naming"
expect_err "^ runs code: the signer's file, from the bundle's inputs/"
expect_err "3 plug-ins above run the signer's code on this machine"
grep -q "does not exist" "$T/err" && not_ok "a plug-in file looked for beside the manifest" || ok "no plug-in file missing"
[ -d "$T/rep" ] && [ -n "$(ls -A "$T/rep")" ] && not_ok "unconfirmed reproduce left files" || ok "nothing left by the unconfirmed reproduce"
BENCH_RUNNERS=$FAKE expect 0 "reproduce --dry-run with plug-ins from inputs/" "$BENCH" reproduce --dry-run -o "$T/rep" "$PB"
expect_err "suites.attention.plugin.myattn"
BENCH_RUNNERS=$FAKE "$BENCH" reproduce --yes --rounds 1 -q -o "$T/rep" "$PB" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" != 3 ] && [ "$rc" != 8 ] && ! grep -q "does not exist" "$T/err"; then
	ok "reproduce --yes of a bundle with file and native plug-ins runs them (exit $rc: the fake runner's verdicts)"
else
	not_ok "reproduce --yes refused a bundle with file and native plug-ins (exit $rc)"
	show "$T/err"
fi
RR=$(ls -d "$T"/rep/plug-*[0-9a-f] | head -n 1)
cmp -s "$RR/inputs/plugins/libcgemm.so" "$T/pm.gone/plugins/libcgemm.so" && ok "the reproduced run carries the bundle's native plug-in" ||
	not_ok "native plug-in not in the reproduced run's inputs/"
cmp -s "$RR/inputs/plugins/myattn.py" "$T/pm.gone/plugins/myattn.py" && ok "and its file plug-in" || not_ok "file plug-in not carried"
# an inputs/ copy that is not the lock's pin: shown with both digests, and the locked run refuses it
PR=${PB%.bench.tar.gz}
PN=$(basename "$PR")
mkdir -p "$T/pruns2" && cp -r "$PR" "$T/pruns2/$PN"
printf 'import os\nos.system("touch /tmp/pwned")\n' >"$T/pruns2/$PN/inputs/plugins/myattn.py"
expect 0 "a bundle whose inputs/ plug-in differs from its lock's pin" "$BENCH" pack "$T/pruns2/$PN"
BENCH_RUNNERS=$FAKE expect 3 "reproduce lists it" "$BENCH" reproduce -o "$T/rep2" "$T/pruns2/$PN.bench.tar.gz" </dev/null
expect_err "file plugins/myattn.py sha256 $(sha256sum "$T/pruns2/$PN/inputs/plugins/myattn.py" | cut -d' ' -f1); the lock pins $ATSHA"
BENCH_RUNNERS=$FAKE "$BENCH" reproduce --yes --rounds 1 -q -o "$T/rep2" "$T/pruns2/$PN.bench.tar.gz" >"$T/out" 2>"$T/err"
grep -q "plug-in file changed since" "$T/err" && ok "the locked reproduce refuses the plug-in that is not the lock's" ||
	{ not_ok "a plug-in not pinned by the lock ran"; show "$T/err"; }

# --- 6, 7. names printed escaped: a manifest path on validate's ok line and warnings; a trusted key's file name
# clean FILE DESCRIPTION: FILE holds no control character (but newline and tab), no DEL, no invalid UTF-8, no RLO
clean() {
	if python3 -c 'import sys
b = open(sys.argv[1], "rb").read()
bad = any(c < 0x20 and c not in (9, 10) or c == 0x7f for c in b)
try:
    t = b.decode("utf-8")
except UnicodeDecodeError:
    bad = True
else:
    bad = bad or any(ch in t for ch in "\u202e\u2028\x85\x9b")
sys.exit(1 if bad else 0)' "$1"; then ok "$2"; else not_ok "$2"; od -c "$1" | head -n 5 | sed 's/^/#   /'; fi
}
EVIL="$(printf 'e\033[31m\342\200\256\377\302\233x')"
mkdir -p "$T/v"
cp "$T/m.yaml" "$T/v/m$EVIL.yaml"
expect 0 "validate a manifest whose file name holds ESC, RLO, C1 and 0xff" "$BENCH" validate "$T/v/m$EVIL.yaml"
clean "$T/out" "validate's ok line escapes the path"
expect_out '\x1b[31m'
printf 'stack:\n  env: {HF_TOKEN: hf_abcdefghijklmnopqrstuvwxyz012345}\n' | cat "$T/m.yaml" - >"$T/v/s$EVIL.yaml"
expect 0 "validate a manifest with a secret, from a hostile file name" "$BENCH" validate "$T/v/s$EVIL.yaml"
expect_err "looks like a secret"
clean "$T/err" "validate's secret warning escapes the path"
clean "$T/out" "and its ok line"
H2="$T/home2"
mkdir -p "$H2/trusted"
cp "$BENCH_HOME/signing.pub.pem" "$H2/trusted/k$EVIL.pem"
BENCH_HOME=$H2 expect 0 "verify with a trusted key whose file name holds control characters" "$BENCH" verify "$R.bench.tar.gz"
expect_out "trusted/k"
clean "$T/out" "verify escapes the trusted key's file name"
BENCH_HOME=$H2 expect 0 "show with the same trusted key" "$BENCH" show "$R.bench.tar.gz"
expect_out "verified  signed by key id"
clean "$T/out" "show escapes the trusted key's file name"
BENCH_HOME=$H2 expect 3 "reproduce names the same key (unconfirmed)" "$BENCH" reproduce -o "$T/rep3" "$R.bench.tar.gz" </dev/null
grep "trusted as" "$T/err" >"$T/line"
clean "$T/line" "reproduce escapes it too"

# --- 3. more variables that run code, flagged in reproduce's listing; sbatch --export's names judged too
VARS="LDSHARED RUSTC_WRAPPER CARGO_BUILD_RUSTC_WRAPPER CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER RUSTC RUSTDOC
HIPCC_COMPILE_FLAGS_APPEND HIPCC_LINK_FLAGS_APPEND PYTORCH_NVCC TCL_LIBRARY TK_LIBRARY DBUS_SESSION_BUS_ADDRESS
XLA_FLAGS HF_MODULES_CACHE MAKE CUDAFLAGS NINJA APPTAINERENV_LDSHARED"
{
	sed '/^suites:/,$d' "$T/m.yaml"
	echo "runtime: {engine: host, launcher: slurm, slurm: {extra_args: [\"--export=ALL,FOO=1,LD_PRELOAD=/tmp/evil.so\", --export, \"NONE,PYTHONPATH=/tmp/e\", --export=ALL, --export-file=/tmp/envf, --qos=high]}}"
	echo "stack:"
	echo "  env:"
	for v in $VARS; do echo "    $v: /tmp/evil"; done
	sed -n '/^suites:/,$p' "$T/m.yaml"
} | grep -v '^runtime: {engine: host}$' >"$T/hooks.yaml"
expect 0 "a manifest setting them validates" "$BENCH" validate "$T/hooks.yaml"
mkdir -p "$T/hk" && cp -r "$R" "$T/hk/$N" && cp "$T/hooks.yaml" "$T/hk/$N/manifest.yaml"
expect 0 "packed with them" "$BENCH" pack "$T/hk/$N"
expect 3 "reproduce lists them" "$BENCH" reproduce -o "$T/rep4" "$T/hk/$N.bench.tar.gz" </dev/null
for v in $VARS; do
	awk -v w="stack.env.$v" '$1 == w { getline; if ($0 ~ /\^ loads code or changes how programs start: /) f = 1 } END { exit !f }' "$T/err" &&
		ok "stack.env.$v flagged as loading code" || not_ok "stack.env.$v not flagged"
done
grep -A1 -F -- "--export=ALL,FOO=1,LD_PRELOAD=/tmp/evil.so" "$T/err" | grep -q "sbatch --export sets LD_PRELOAD: a dynamic loader" &&
	ok "extra_args --export=...LD_PRELOAD=... flagged" || not_ok "--export=...LD_PRELOAD not flagged"
grep -A1 -F -- "NONE,PYTHONPATH=/tmp/e" "$T/err" | grep -q "sbatch --export sets PYTHONPATH" &&
	ok "extra_args --export NAMES (two arguments) flagged" || not_ok "--export NAMES not flagged"
grep -A1 -F -- "--export-file=/tmp/envf" "$T/err" | grep -q "environment from that file" &&
	ok "extra_args --export-file flagged" || not_ok "--export-file not flagged"
for x in "--export=ALL" "--qos=high"; do
	awk -v x="$x" '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if ($1 == "^") f = 1 } END { exit !f }' "$T/err" &&
		not_ok "$x flagged" || ok "$x not flagged"
done
N_HOOKS=$(echo $VARS | wc -w)
expect_err "$((N_HOOKS + 3)) variables above load code"

# --- 4, 5. tar and gzip header fields bench never writes are refused (tests/bundle/hostile.py, correctly signed)
HOSTILE="$(dirname "$0")/../bundle/hostile.py"
mkdir -p "$T/hb"
hb() { python3 "$HOSTILE" "$1" "$T/hb" "$BENCH_HOME" >/dev/null 2>"$T/hb.err" || { not_ok "hostile.py $1"; show "$T/hb.err"; }; }
for v in tar-uid:"owner uid 1000 gid 0" tar-gid:"owner uid 0 gid 1000" tar-uname:"a user or group name" \
	tar-gname:"a user or group name" tar-linkname:"a link name on a regular file" tar-mode000:"mode 0 (bench writes 0644" \
	tar-modeifreg:"mode 100644 (bench writes 0644" tar-mode600:"mode 600 (bench writes 0644" \
	tar-dirnoslash:"a directory whose name does not end in '/'" tar-dirmode:"mode 700 (bench writes 0755" \
	gz-fextra:"the gzip header has FEXTRA set" gz-fname:"the gzip header has FNAME set" \
	gz-fcomment:"the gzip header has FCOMMENT set" gz-fhcrc:"the gzip header has FHCRC set" \
	gz-mtime:"the gzip header has a timestamp (MTIME 1700000000" gz-multi:"a second gzip member at byte"; do
	name=${v%%:*} why=${v#*:}
	hb "$name"
	refused "verify $name" "$why" "$BENCH" verify "$T/hb/hostile-$name.bench.tar.gz"
	clean "$T/err" "verify $name: the reason printed escaped"
done
# the sixth review (r31s): a pax path ending in '/' on a file; a name with a combining mark (NFC and NFD spellings)
for v in tar-xpathslash:"refused archive entry 'hostile-tar-xpathslash/extra/': a trailing '/' on a file entry" \
	tar-xpathslash-data:"'hostile-tar-xpathslash-data/extra/': a trailing '/' on a file entry" \
	tar-xpathslash-doc:"'hostile-tar-xpathslash-doc/summary.json/': a trailing '/' on a file entry" \
	tar-nfd:"a combining mark or a character Unicode normalisation changes in its name" \
	tar-nfd-alone:"a combining mark or a character Unicode normalisation changes in its name" \
	tar-nfd-pax:"a pax 'path' at byte"; do
	name=${v%%:*} why=${v#*:}
	hb "$name"
	refused "verify $name" "$why" "$BENCH" verify "$T/hb/hostile-$name.bench.tar.gz"
done
grep -qF "normalisation changes" "$T/err" && ok "tar-nfd-pax: the reason named" || not_ok "tar-nfd-pax: reason not named"
mkdir -p "$T/nf" && cp -R "$R" "$T/nf/$N" && printf '{}' >"$T/nf/$N/env/cafe$(printf '\314\201')"
expect 1 "pack of a run with a decomposed (NFD) file name: refused" "$BENCH" pack "$T/nf/$N"
expect_err "a name with a combining or normalisation-changing (Unicode) character"
for name in tar-dirok gz-ok tar-xmtime-ok tar-nfc-alone; do
	hb "$name"
	expect 0 "verify $name (fields as bench writes them): accepted" "$BENCH" verify "$T/hb/hostile-$name.bench.tar.gz"
done
# every bundle bench packs passes (each gzip level: XFL differs)
for lv in 0 1 9; do
	expect 0 "pack --level $lv" "$BENCH" pack --level "$lv" "$R"
	expect 0 "verify the level-$lv bundle" "$BENCH" verify "$R.bench.tar.gz"
done
# --- the fifth review (r31t): gc prints names escaped; report and publish pages carry no raw control or bidi
# character; a manifest's variants are capped
rawctl() { # file: exit 0 when it holds ESC, BEL, C1 (U+009B) or U+202E as raw bytes
	LC_ALL=C grep -q -e "$(printf '\033')" -e "$(printf '\007')" -e "$(printf '\302\233')" -e "$(printf '\342\200\256')" "$1"
}
mkdir -p "$T/gcruns"
cp -R "$R" "$T/gcruns/hard-20261202T062132Z-$(printf '\033]0;PWNED\007')"
expect 0 "gc --dry-run of a run named with ESC and BEL" "$BENCH" gc --keep 0 --dry-run "$T/gcruns"
rawctl "$T/out" && { not_ok "gc printed a raw control byte"; show "$T/out"; } || ok "gc prints the run's name escaped"
expect_out '\x1b]0;PWNED\x07'
E=$T/escrun
cp -R "$R" "$E"
python3 - "$E" <<'PY'
import json, sys
d = sys.argv[1]
p = d + "/results/gemm.jsonl"
recs = [json.loads(l) for l in open(p)]
for r in recs:
    r["case"] = r["case"] + "/\x1b[31m\x07\u009b\u202e\u2066x"
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
PY
rm -f "$E.bench.tar.gz" "$E.bench.tar.gz.intoto.jsonl"
"$BENCH" pack "$E" >/dev/null 2>"$T/err" || { not_ok "pack the escaped run"; show "$T/err"; }
expect 0 "report of a bundle whose case names hold controls and bidi overrides" "$BENCH" report -o "$T/rep" "$E.bench.tar.gz"
if [ -f "$T/rep/index.html" ] && ! rawctl "$T/rep/index.html"; then ok "report: no raw control or bidi character in the page"
else not_ok "report: raw control characters in the page"; fi
grep -qF '\x1b[31m' "$T/rep/index.html" && ok "report: the control shown as \\x1b" || not_ok "report: the escaped control absent"
python3 - "$T/variants.yaml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("bench: 1\nname: many\ntarget: {vendor: cpu}\nruntime: {engine: host}\nvariants:\n")
    for i in range(257):
        f.write(f"  - {{name: v{i}}}\n")
    f.write("suites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n")
PY
expect 3 "257 variants: refused" "$BENCH" validate "$T/variants.yaml"
expect_err "'variants' lists 257 variants; a manifest may have at most 256"
# --- 8. after the review of issue 31 (r31s): pack checks a file's size and links before it scrubs (reads) it
mkdir -p "$T/big" && cp -R "$R" "$T/big/$N" && B=$T/big/$N
truncate -s 1T "$B/logs/huge.log"
expect 1 "pack of a run with a 1 TiB sparse log: refused" timeout 30 "$BENCH" pack "$B"
expect_err "is 1099511627776 bytes, over the 268435456 bytes a bundle member of its kind may hold"
rm -f "$B/logs/huge.log"
truncate -s 100M "$B/results/extra.jsonl" # over the 64 MiB of a results member, under the log limit
expect 1 "pack of a run with a 100 MiB results file: refused before it is read" timeout 20 "$BENCH" pack "$B"
expect_err "over the 67108864 bytes a bundle member of its kind may hold"
rm -f "$B/results/extra.jsonl"
truncate -s 1T "$T/big/outside.log" && ln "$T/big/outside.log" "$B/logs/linked.log"
expect 1 "pack of a run whose log is a hard link to a 1 TiB file: refused" timeout 30 "$BENCH" pack "$B"
expect_err "is a hard link (2 names)"
rm -f "$B/logs/linked.log" "$T/big/outside.log"

# --- 9. the documented message when another bench holds the run directory, even before it wrote .bench-lock
mkdir -p "$T/lk" && cp -R "$R" "$T/lk/$N" && L=$T/lk/$N && rm -f "$L/.bench-lock"
python3 -c 'import json, sys; p = sys.argv[1]; s = json.load(open(p)); s["state"] = "interrupted"; json.dump(s, open(p, "w"))' "$L/status.json"
flock -n "$L" sleep 30 &
LP=$!
sleep 0.5
BENCH_RUNNERS=$FAKE expect 1 "run --resume of a directory locked by another process" "$BENCH" run -q --resume "$L"
expect_err "is in use by another bench"
grep -q "cannot lock the run directory" "$T/err" && not_ok "the lock failure shown as an I/O error" ||
	ok "no 'cannot lock' I/O error"
kill "$LP" 2>/dev/null
wait "$LP" 2>/dev/null

# --- 7. a full disk while pack scrubs: exit 1, nothing removed, no bundle; pack completes once there is space
US=
if unshare -m true 2>/dev/null; then US="unshare -m"; elif unshare -rm true 2>/dev/null; then US="unshare -rm"; fi
if [ -z "$US" ]; then
	ok "# SKIP no mount namespace here for a small tmpfs"
else
	mkdir -p "$T/fs"
	$US sh -s "$BENCH" "$R" "$T" "$N" >"$T/ns.out" 2>&1 <<'NS'
BENCH=$1 R=$2 T=$3 N=$4
mount -t tmpfs -o size=1m tmpfs "$T/fs" || { echo "mount failed"; exit 0; }
cp -R "$R" "$T/fs/$N" && D=$T/fs/$N
python3 - "$D/results/gemm.jsonl" <<'PY'
import json, sys
p = sys.argv[1]
recs = [json.loads(l) for l in open(p)]
recs[0].setdefault("extra", {})["note"] = "postgres://admin:Hunter0301@db/x" + " " * 2000
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
PY
cp "$D/results/gemm.jsonl" "$T/gemm.before"
avail=$(df -k --output=avail "$T/fs" | tail -n 1)
dd if=/dev/zero of="$T/fs/filler" bs=1k count=$((avail - 1)) 2>/dev/null
"$BENCH" pack "$D" >/dev/null 2>"$T/full.err"; echo "full-rc=$?"
cmp -s "$T/gemm.before" "$D/results/gemm.jsonl" && echo "kept=yes" || echo "kept=no"
[ -e "$D.bench.tar.gz" ] && echo "bundle=yes" || echo "bundle=no"
rm -f "$T/fs/filler" "$D.bench.tar.gz" "$D.bench.tar.gz.intoto.jsonl"
"$BENCH" pack "$D" >/dev/null 2>"$T/again.err"; echo "again-rc=$?"
tar -xzOf "$D.bench.tar.gz" "$N/results/gemm.jsonl" 2>/dev/null | grep -c '"case"' | sed 's/^/records=/'
tar -xzOf "$D.bench.tar.gz" "$N/results/gemm.jsonl" 2>/dev/null | grep -q Hunter0301 && echo "secret=yes" || echo "secret=no"
umount "$T/fs"
NS
	grep -q "^full-rc=1$" "$T/ns.out" && ok "pack on a full disk: exit 1" || { not_ok "pack on a full disk did not exit 1"; show "$T/ns.out"; show "$T/full.err"; }
	cp "$T/full.err" "$T/err"
	expect_err "no space left on device in"
	grep -q "^kept=yes$" "$T/ns.out" && ok "the results file kept as it was" || not_ok "the results file removed or changed"
	grep -q "^bundle=no$" "$T/ns.out" && ok "no bundle signed" || not_ok "a bundle was signed on a full disk"
	grep -q "^again-rc=0$" "$T/ns.out" && ok "pack again, with space: exit 0" || { not_ok "pack again failed"; show "$T/again.err"; }
	want=$(grep -c '"case"' "$R/results/gemm.jsonl")
	grep -q "^records=$want$" "$T/ns.out" && ok "the bundle holds the $want records" || { not_ok "records lost"; show "$T/ns.out"; }
	grep -q "^secret=no$" "$T/ns.out" && ok "and the credential scrubbed" || not_ok "the credential packed"
fi
finish
