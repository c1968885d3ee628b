#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The seventh hardening review (issue 31), what reads a manifest or a bundle: a mapping key holding a NUL
# character ("\u0000", "\0" in a quoted key: every reader cut it there, so that duplicates and unknown keys went
# unseen); a bundle holding a file that is also the parent of another member (it verified; GNU tar and Python
# cannot extract both); env_matrix names and values bounded (part of every case key: the plan's memory grew as
# cases x file size); the terminal escaper's format and default-ignorable characters (the Mongolian variation
# selectors, the prepended concatenation marks); reproduce naming more variables that load code or choose the
# program (rdma-core's drivers, apptainer's PATH additions, build tools).
. "$(dirname "$0")/lib.sh"
PY=python3

# ---- NUL in a mapping key -------------------------------------------------------------------------------------
nul() { # description yaml-body
	printf 'bench: 1\nname: nul\ntarget: {vendor: cpu}\nruntime: {engine: host}\n%s\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' "$2" >"$T/nul.yaml"
	expect 3 "NUL in a key: $1: exit 3" "$BENCH" validate "$T/nul.yaml"
	grep -qF "a mapping key holds a NUL character (\\0)" "$T/err" && grep -q "nul.yaml:[0-9]*:[0-9]*: error" "$T/err" &&
		ok "NUL in a key: $1: named at its file:line:col" || { not_ok "NUL in a key: $1: message"; show "$T/err"; }
}
nul "stack.env \"LD_PRELOAD\\\\u0000a\"" 'stack:
  env: {"LD_PRELOAD\u0000a": /tmp/x.so, "LD_PRELOAD\u0000b": /tmp/y.so}'
nul "a top-level \"runtime\\\\0\" beside runtime" '"runtime\0": {engine: podman}'
nul "stack.env \"HOME\\\\u0000x\"" 'stack:
  env: {"HOME\u0000x": /tmp}'
# an unknown key without a NUL: its own error, no NUL named
printf 'bench: 1\nname: nul\ntarget: {vendor: cpu}\nruntime: {engine: host}\nx-note: 1\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/nul.yaml"
expect 3 "an unknown top-level key without a NUL: its own error" "$BENCH" validate "$T/nul.yaml"
grep -q "NUL" "$T/err" && not_ok "a NUL reported where there is none" || ok "no NUL reported where there is none"
printf 'bench: 1\nname: nul\ntarget: {vendor: cpu}\nruntime: {engine: host}\nstack:\n  env: {"A\\u00e9": "x", "B": "y\\u0000z"}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/nulv.yaml"
expect 3 "a NUL in a stack.env value: refused as before" "$BENCH" validate "$T/nulv.yaml"

# ---- a file that is also a parent -----------------------------------------------------------------------------
"$BENCH" keygen >/dev/null 2>&1
for v in fileparent fileparent-rev fileparent-deep fileparent-status; do
	f=$("$PY" tests/bundle/hostile.py "$v" "$T" "$BENCH_HOME")
	case $v in
	fileparent-rev) refused "a file that is the parent of another member ($v)" "a file, and the parent of another entry" "$BENCH" verify "$f" ;;
	*) refused "a file that is the parent of another member ($v)" "is a file in the archive" "$BENCH" verify "$f" ;;
	esac
	case $v in fileparent-rev) grep -qF "a file, and the parent of another entry" "$T/err" &&
		ok "$v: the file named after its child" || not_ok "$v: message" ;; esac
done
# Hangul jamo that NFC joins by rule (U+1100 U+1161 is U+AC00): refused like every other second spelling
for v in hangul-lv hangul-lvt; do
	f=$("$PY" tests/bundle/hostile.py "$v" "$T" "$BENCH_HOME")
	refused "a name NFC changes: $v" "a combining mark or a character Unicode normalisation changes" "$BENCH" verify "$f"
done
# a real bundle (directories with files below them) still verifies
fake_gemm
printf 'bench: 1\nname: real\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/real.yaml"
BENCH_RUNNERS=$T/fake expect 0 "a real run, packed" "$BENCH" run -q -o "$T/runs" "$T/real.yaml"
expect 0 "its bundle (directories, files below them) verifies" "$BENCH" verify "$(ls "$T"/runs/real-*.bench.tar.gz)"

# non-ASCII member names bench accepts are packed and verify, whatever the caller's locale (pack failed on any:
# libarchive converted them to the C locale's ASCII)
R=$(ls -d "$T"/runs/real-*/)
R=${R%/}
printf 'x\n' >"$R/logs/café.log"
printf 'y\n' >"$R/logs/x가y.log"
printf 'z\n' >"$R/logs/xᄀy.log"
for loc in C C.UTF-8; do
	rm -f "$R.bench.tar.gz" "$R.bench.tar.gz.intoto.jsonl"
	LC_ALL=$loc expect 0 "pack a run with logs/café.log, logs/x가y.log (LC_ALL=$loc)" "$BENCH" pack "$R"
	LC_ALL=$loc expect 0 "its bundle verifies (LC_ALL=$loc)" "$BENCH" verify "$R.bench.tar.gz"
	tar tzf "$R.bench.tar.gz" >"$T/names"
	grep -qx "$(basename "$R")/logs/café.log" "$T/names" && grep -qx "$(basename "$R")/logs/x가y.log" "$T/names" &&
		ok "the names in the archive as they are ($loc)" || { not_ok "names ($loc)"; show "$T/names"; }
done
# a git component whose tree holds a non-ASCII file name: snapshotted and built (the snapshot failed the same way)
G=$T/gitnames
git init -q -b main "$G" && printf 'hi\n' >"$G/café.txt" && printf 'x\n' >"$G/x가y.c" &&
	(cd "$G" && git add . && git -c user.name=t -c user.email=t@t commit -qm names)
cat >"$T/names.yaml" <<Y
bench: 1
name: names
target: {vendor: cpu}
stack:
  components:
    - {name: g, git: "file://$G", ref: main, build: 'mkdir -p "\$BENCH_PREFIX/lib" && cp café.txt x가y.c "\$BENCH_PREFIX/lib/"'}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 0 "lock a git component with non-ASCII file names" "$BENCH" lock "$T/names.yaml"
expect 0 "build it (snapshot, extract, its build command finds café.txt)" "$BENCH" build "$T/names.yaml"
[ -n "$(find "$BENCH_HOME/stacks" -name 'x가y.c' 2>/dev/null)" ] && ok "x가y.c installed into its prefix" ||
	not_ok "x가y.c not in the prefix"
# a variants bundle whose plan.json names no variant: refused as a bundle (exit 8), not a usage error (2)
cat >"$T/var.yaml" <<'Y'
bench: 1
name: var7
target: {vendor: cpu}
variants:
  - name: a
  - name: b
    env: {OMP_NUM_THREADS: "1"}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$T/fake expect 0 "a run of a two-variant manifest" "$BENCH" run -q -o "$T/vr" "$T/var.yaml"
V=$(ls -d "$T"/vr/var7+a-*/)
V=${V%/}
sed -i '/"variant": "a"/d' "$V/plan.json"
rm -f "$V.bench.tar.gz" "$V.bench.tar.gz.intoto.jsonl"
expect 0 "packed again without its variant" "$BENCH" pack "$V"
BENCH_RUNNERS=$T/fake expect 8 "reproduce --yes of it: exit 8" "$BENCH" reproduce --yes -o "$T/vr2" "$V.bench.tar.gz"
expect_err "has 2 variants and its plan.json names none"

# compare --format markdown of two signed bundles whose case key holds HTML and '|' (the eighth review): every cell
# from a bundle through the markdown escaper
for side in a b; do
	BENCH_RUNNERS=$T/fake expect 0 "a run for the markdown check ($side)" "$BENCH" run -q --no-pack -o "$T/md$side" "$T/real.yaml"
	M=$(ls -d "$T"/md$side/real-*/)
	M=${M%/}
	"$PY" - "$M" <<'PY'
import glob, sys
d = sys.argv[1]
for f in glob.glob(d + "/*.json") + glob.glob(d + "/results/*.jsonl") + glob.glob(d + "/cases/*.json"):
    s = open(f).read()
    s = s.replace("/64x64x64/", "/<img src=x onerror=alert(1)> | 999 TB/s | faster |/")
    open(f, "w").write(s)
PY
	expect 0 "packed ($side)" "$BENCH" pack "$M"
done
expect 0 "compare --format markdown of the two bundles" "$BENCH" compare --format markdown "$(ls "$T"/mda/*.bench.tar.gz)" "$(ls "$T"/mdb/*.bench.tar.gz)"
grep -q "<img" "$T/out" && { not_ok "raw HTML in the markdown"; grep "<img" "$T/out" | head -n 2 | sed 's/^/#   /'; } ||
	ok "no raw HTML in the markdown"
grep -qF '&lt;img src=x onerror=alert(1)&gt; \| 999 TB/s \| faster \|' "$T/out" &&
	ok "the case key escaped: &lt; &gt; and \| (no cell broken out)" || { not_ok "the case key's escaping"; show "$T/out"; }

# HTTP Digest credentials (the eighth review): the whole header value goes, its quoted pairs too
D2=$(ls -d "$T"/mda/real-*/)
D2=${D2%/}
cat >"$D2/logs/digest.log" <<'L'
Authorization: Digest username="bob", realm="r", nonce="n0nce7", response="6629fae49393a05397450978507c4ef1"
Proxy-Authorization:Digest username="carol", response="77aa0e49393a05397450978507c4ef19"
{"headers": {"Authorization": "Digest username=\"dave\", response=\"88bb0e49393a05397450978507c4ef19\""}}
Authorization: Bearer-less note: the server asked for Digest
L
rm -f "$D2.bench.tar.gz" "$D2.bench.tar.gz.intoto.jsonl"
expect 0 "pack a run whose log holds Digest headers" "$BENCH" pack "$D2"
mkdir -p "$T/dx" && tar -xzf "$D2.bench.tar.gz" -C "$T/dx"
for h in 6629fae49393a05397450978507c4ef1 n0nce7 77aa0e49393a05397450978507c4ef19 88bb0e49393a05397450978507c4ef19; do
	grep -rqF "$h" "$T/dx" && not_ok "Digest credential $h kept in the bundle" || ok "Digest credential $h gone"
done

# publish never writes through a 'summaries' link out of the results repository (the eighth review: the outside
# index.jsonl was emptied before the link was refused)
expect 0 "publish a first bundle" "$BENCH" publish --repo "$T/pub" "$(ls "$T"/runs/real-*.bench.tar.gz)"
mkdir -p "$T/outside" && echo PRECIOUS >"$T/outside/index.jsonl"
rm -rf "$T/pub/summaries" && ln -s ../outside "$T/pub/summaries"
BENCH_RUNNERS=$T/fake expect 0 "a second run" "$BENCH" run -q -o "$T/pub2" "$T/real.yaml"
"$BENCH" publish --repo "$T/pub" "$(ls "$T"/pub2/real-*.bench.tar.gz)" >"$T/out" 2>"$T/err"
grep -qx PRECIOUS "$T/outside/index.jsonl" && ok "publish left the file behind the summaries link as it was" ||
	{ not_ok "publish wrote through the summaries link"; show "$T/outside/index.jsonl"; }

# a line of many "password" words is scrubbed in one pass (the eighth review: validate of an 800 KB stack.env value
# took 57 s, pack of a 1.6 MB log line 420 s: each word searched the line from its start for netrc's words)
"$PY" - "$T/pw.yaml" <<'PY'
import sys
v = ("password " * 90000)[:800000]
open(sys.argv[1], "w").write("bench: 1\nname: pw\ntarget: {vendor: cpu}\nruntime: {engine: host}\nstack:\n  env:\n"
                             "    FOO: \"%s\"\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n" % v)
PY
start=$(date +%s)
expect 0 "validate an 800 KB stack.env value of repeated 'password '" timeout 120 "$BENCH" validate "$T/pw.yaml"
[ $(($(date +%s) - start)) -le 20 ] && ok "... in at most 20 s" || not_ok "validate took $(($(date +%s) - start)) s"
"$PY" -c 'import sys; open(sys.argv[1], "w").write(("password " * 180000)[:1600000] + chr(10))' "$D2/logs/pw.log"
rm -f "$D2.bench.tar.gz" "$D2.bench.tar.gz.intoto.jsonl"
start=$(date +%s)
expect 0 "pack a run whose log holds a 1.6 MB line of repeated 'password '" timeout 300 "$BENCH" pack "$D2"
[ $(($(date +%s) - start)) -le 30 ] && ok "... in at most 30 s" || not_ok "pack took $(($(date +%s) - start)) s"

# a file name holding the value of a secret variable of pack's environment is refused, named redacted (the eighth
# review: the value was scrubbed inside the files, but the name was packed and signed)
printf 'x\n' >"$D2/logs/Xq7SecretValue42.log"
rm -f "$D2.bench.tar.gz" "$D2.bench.tar.gz.intoto.jsonl"
MY_TOKEN=Xq7SecretValue42 expect 1 "pack with MY_TOKEN's value in a file name: refused" "$BENCH" pack "$D2"
expect_err "'logs/<redacted>.log': a file name that holds the value of a secret variable"
grep -q Xq7SecretValue42 "$T/err" && not_ok "the message shows the value" || ok "the message does not show the value"
[ ! -e "$D2.bench.tar.gz" ] && ok "no bundle" || not_ok "a bundle was made"
rm -f "$D2/logs/Xq7SecretValue42.log"

# compare scales with runs per side (the eighth review: 320 -> 640 -> 1280 runs took 1.4 -> 4.1 -> 15.2 s; the run
# medians were insertion-sorted in every bootstrap resample). CPU time of 300 and 1200 runs per side, each run's
# samples its own: 4x the runs may cost at most 6x the CPU time (before: 7.6x; now 2.5x)
R0=$(ls -d "$T"/runs/real-*/ | head -n 1)
"$PY" - "$R0" "$T/many" <<'PY'
import json, os, random, shutil, sys
src, out = sys.argv[1].rstrip("/"), sys.argv[2]
random.seed(7)
for k in (300, 1200):
    for side in "ab":
        for r in range(k):
            d = "%s/%d/%s/real-20261202T%06dZ-%s%05x" % (out, k, side, r, side, r)
            # every file a hard link to the original's (3000 copies of its 300 KB were 20 s of the kernel's CPU) but
            # the one rewritten, which is unlinked first
            shutil.copytree(src, d, copy_function=os.link)
            f = d + "/results/gemm.jsonl"
            recs = [json.loads(l) for l in open(f) if l.strip()]
            for rec in recs:
                rec["samples_ms"] = [random.uniform(1, 1.2) for _ in range(10)]
            os.unlink(f)
            open(f, "w").write("".join(json.dumps(x) + "\n" for x in recs))
PY
cpu() { "$PY" - "$BENCH" "$T/many/$1" <<'PY'
import glob, resource, subprocess, sys
b, d = sys.argv[1], sys.argv[2]
subprocess.run([b, "compare"] + sorted(glob.glob(d + "/a/*/")) + ["--vs"] + sorted(glob.glob(d + "/b/*/")),
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % (r.ru_utime + r.ru_stime))
PY
}
c1=$(cpu 300)
c2=$(cpu 1200)
"$PY" -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b <= 6 * max(a, 0.05) else 1)' "$c1" "$c2" &&
	ok "compare of 300 and 1200 runs per side: ${c1} s and ${c2} s of CPU (at most 6x)" ||
	not_ok "compare of 300 and 1200 runs per side: ${c1} s and ${c2} s of CPU (more than 6x)"
rm -rf "$T/many"

# ---- env_matrix bounds ----------------------------------------------------------------------------------------
em() { # description env_matrix-body want
	printf 'bench: 1\nname: em\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]], env_matrix: %s}\n' "$2" >"$T/em.yaml"
	expect "$3" "env_matrix $1: exit $3" "$BENCH" validate "$T/em.yaml"
}
v128=$("$PY" -c 'print("v" * 128)')
v129=$("$PY" -c 'print("v" * 129)')
c300=$("$PY" -c 'print("," * 300)')
n64=$("$PY" -c 'print("N" * 64)')
n65=$("$PY" -c 'print("N" * 65)')
em "a 128-byte value" "{A: [\"$v128\", b]}" 0
em "a 129-byte value" "{A: [\"$v129\", b]}" 3
expect_err "env_matrix 'A' value 1 is 129 bytes; at most 128 (it is part of every case key)"
em "300 commas (900 bytes percent-encoded)" "{A: [\"$c300\"]}" 3
em "a 64-byte name" "{$n64: [a, b]}" 0
em "a 65-byte name" "{$n65: [a, b]}" 3
expect_err "is 65 bytes; at most 64"
# the review's blow-up: 100 shapes x 64 cells of 8000-byte values was 39 s and 1.9 GB; now refused at once
"$PY" - "$T/big.yaml" <<'PY'
import sys
sh = ",".join("[%d,%d,7]" % (1 + i % 1000, 1 + i // 1000) for i in range(100))
vals = "[" + ",".join('"%s%d"' % ("," * 8000, j) for j in range(4)) + "]"
open(sys.argv[1], "w").write("bench: 1\nname: cx\ntarget: {vendor: cpu, gpu: cpu}\nruntime: {engine: host}\nsuites:\n"
    "  gemm: {backends: [cblas], dtypes: [fp32], layouts: [tn], env_matrix: {A: %s, B: %s, C: %s}, shapes: [%s]}\n"
    % (vals, vals, vals, sh))
PY
start=$(date +%s)
expect 3 "64 cells of 8000-byte values x 100 shapes: refused" timeout 60 "$BENCH" validate "$T/big.yaml"
[ $(($(date +%s) - start)) -le 10 ] && ok "... within 10 s" || not_ok "validate took $(($(date +%s) - start)) s"

# ---- the escaper: format and default-ignorable characters -----------------------------------------------------
# a run directory named with each, listed by `bench ls`: the character is shown as \xNN, never printed
for cp in 180B 180C 180D 180F 0600 0605 06DD 070F 08E2 17B4 1BCA0 1D173 110BD 13430 E0100 E0FFF FFF0; do
	ch=$("$PY" -c "import sys; sys.stdout.write(chr(0x$cp))")
	d="$T/ls/r-a${ch}b"
	rm -rf "$T/ls" && mkdir -p "$d"
	echo '{"schema":"bench.status/v1","run":"r","state":"complete","started":"2026-12-02T00:00:00Z","finished":"2026-12-02T00:00:01Z","cases":[]}' >"$d/status.json"
	"$BENCH" ls "$T/ls" >"$T/out" 2>&1
	if grep -qF "$ch" "$T/out"; then not_ok "U+$cp printed raw by bench ls"; show "$T/out"; elif grep -q 'r-a\\x' "$T/out"; then
		ok "U+$cp shown as \\xNN by bench ls"; else not_ok "U+$cp: the name is missing"; show "$T/out"; fi
done
# an ordinary multi-byte name is printed as it is
rm -rf "$T/ls" && mkdir -p "$T/ls/r-café-€" &&
	echo '{"schema":"bench.status/v1","run":"r","state":"complete","started":"2026-12-02T00:00:00Z","finished":"2026-12-02T00:00:01Z","cases":[]}' >"$T/ls/r-café-€/status.json"
"$BENCH" ls "$T/ls" >"$T/out" 2>&1
grep -qF "r-café-€" "$T/out" && ok "r-café-€ printed as it is" || { not_ok "an ordinary name escaped"; show "$T/out"; }

# ---- reproduce names more variables as loading code ------------------------------------------------------------
cat >"$T/trust.yaml" <<Y
bench: 1
name: trust7
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env:
    RDMAV_DRIVERS: /tmp/evil/libevil-rdmav34.so
    IBV_DRIVERS: /tmp/evil/libevil.so
    APPTAINERENV_PREPEND_PATH: /tmp/evil/bin
    SINGULARITYENV_APPEND_PATH: /tmp/evil/bin
    CONFIG_SITE: /tmp/evil/config.site
    GOFLAGS: -toolexec=/tmp/evil/x
    RANLIB: /tmp/evil/ranlib
    CGO_LDFLAGS: -fplugin=/tmp/evil/p.so
    MLX5_DRIVERS: /tmp/evil
    OMP_NUM_THREADS: "2"
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$T/fake expect 0 "a run whose stack.env sets them" "$BENCH" run -q -o "$T/tr" "$T/trust.yaml"
BENCH_RUNNERS=$T/fake expect 3 "reproduce without --yes: exit 3" "$BENCH" reproduce -q -o "$T/tr2" "$(ls "$T"/tr/trust7-*.bench.tar.gz)" </dev/null
for v in RDMAV_DRIVERS IBV_DRIVERS APPTAINERENV_PREPEND_PATH SINGULARITYENV_APPEND_PATH CONFIG_SITE GOFLAGS RANLIB \
	CGO_LDFLAGS MLX5_DRIVERS; do
	awk -v v="stack.env.$v" 'found { exit !/\^ loads code or changes how programs start/ } index($0, v) { found = 1 }
		END { if (!found) exit 1 }' "$T/err" && ok "reproduce names $v as loading code" ||
		{ not_ok "$v not named"; grep -A1 "$v" "$T/err" | sed 's/^/#   /'; }
done
awk 'found { exit /\^ loads code/ } /stack\.env\.OMP_NUM_THREADS/ { found = 1 }' "$T/err" &&
	ok "OMP_NUM_THREADS is listed but not named as loading code" || not_ok "OMP_NUM_THREADS flagged"
finish
