#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The tenth hardening review (r31y): toolchain, package-manager, credential-file and driver variables that choose
# the program or load code into it (clang's CCC_OVERRIDE_OPTIONS, rustup, Maven, Gradle and JVM start scripts,
# sudo's askpass, npm's npm_config_* in any case, uv, AWS_CONFIG_FILE, GOPROXY, GI_TYPELIB_PATH,
# COVERAGE_PROCESS_START, LIBVA_DRIVER_NAME, VDPAU_DRIVER, MESA_LOADER_DRIVER_OVERRIDE and kin) listed by reproduce
# but not flagged or counted; compare --format markdown passing a case key's bare URL, www. host and e-mail address
# through (GitHub autolinks them), and $math$; compare of a run directory whose name is not well-formed UTF-8
# labelling it NULL ("(null)", "other vs ?"), dropping its UNVERIFIED line and, in JSON, the side; verify --json and
# validate --json printing nothing for such a file name. The eleventh review's kin too: version managers' *ENV_ROOT,
# Hugging Face's HF_*, pagers and editors under any prefix, conda's and mamba's, pipenv's and pdm's *_PYTHON, numba, less.
. "$(dirname "$0")/lib.sh"
PY=python3
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# ---- reproduce flags toolchain, package-manager and driver variables ---------------------------------------------
KIN="CCC_OVERRIDE_OPTIONS RUSTUP_TOOLCHAIN RUSTUP_HOME CARGO_HOME MAVEN_OPTS GRADLE_OPTS GRADLE_USER_HOME JAVA_OPTS
SBT_OPTS JDK_JAVA_OPTIONS ANT_OPTS JAVACMD SUDO_ASKPASS npm_config_script_shell NPM_CONFIG_NODE_OPTIONS
Npm_Config_Registry YARN_YARN_PATH UV_PYTHON UV_INDEX_URL AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE KUBECONFIG
GOPROXY GOFLAGS GONOSUMDB GI_TYPELIB_PATH COVERAGE_PROCESS_START PYTEST_ADDOPTS LIBVA_DRIVER_NAME LIBVA_DRIVERS_PATH
VDPAU_DRIVER VDPAU_DRIVER_PATH MESA_LOADER_DRIVER_OVERRIDE TAR_OPTIONS APPTAINERENV_UV_PYTHON
RBENV_ROOT NODENV_ROOT GOENV_ROOT HF_HUB_CACHE TRANSFORMERS_CACHE HF_ENDPOINT SYSTEMD_PAGER KUBE_EDITOR AWS_PAGER
PSQL_PAGER CONDARC MAMBA_ROOT_PREFIX PIPENV_PYTHON PDM_PYTHON NUMBA_CUDA_DRIVER LESSKEY"
{
	printf 'bench: 1\nname: hk10\ntarget: {vendor: cpu}\nruntime: {engine: host, launcher: local, timeout: 1m}\n'
	printf 'suites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\nstack:\n  env:\n    MY_NOTE10: "plain"\n'
	printf '    NPMCONFIG: "plain"\n    UVX_NOTE: "plain"\n'
	for n in $KIN; do printf '    %s: "../../../tmp/x"\n' "$n"; done
} >"$T/hk.yaml"
BENCH_RUNNERS=$T/fake expect 0 "a run whose stack.env holds toolchain and driver variables" "$BENCH" run -q -o "$T/hk" "$T/hk.yaml"
"$BENCH" reproduce "$(ls "$T"/hk/hk10-*.bench.tar.gz | head -n 1)" </dev/null >"$T/out" 2>&1
for n in $KIN; do
	grep -A1 "stack.env.$n " "$T/out" | sed -n 2p | grep -q '\^ loads code' && ok "reproduce flags $n" ||
		{ not_ok "reproduce does not flag $n"; grep -A1 "stack.env.$n " "$T/out" | sed 's/^/#   /'; }
done
for n in MY_NOTE10 NPMCONFIG UVX_NOTE; do
	grep -A1 "stack.env.$n " "$T/out" | sed -n 2p | grep -q '\^' && not_ok "a plain variable flagged ($n)" ||
		ok "a plain variable is not flagged ($n)"
done
want=$(echo $KIN | wc -w)
grep -q "^bench: $want variables above" "$T/out" && ok "all $want counted in the closing line" ||
	{ not_ok "the closing count is not $want"; grep 'variables above' "$T/out" | sed 's/^/#   /'; }

# ---- compare --format markdown: no GitHub autolink or math from a case key -----------------------------------------
printf 'bench: 1\nname: md10\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/m.yaml"
for side in a b; do
	BENCH_RUNNERS=$T/fake expect 0 "a run for the markdown check ($side)" "$BENCH" run -q --no-pack -o "$T/md$side" "$T/m.yaml"
	M=$(ls -d "$T"/md$side/md10-*[0-9a-f] | head -n 1)
	"$PY" - "$M" <<'P'
import glob, sys
d = sys.argv[1]
for f in glob.glob(d + "/*.json") + glob.glob(d + "/results/*.jsonl") + glob.glob(d + "/cases/*.json"):
    s = open(f).read()
    s = s.replace("/64x64x64/", "/see https://evil.example/x www.evil.example WWW.Evil.example bob@evil.example ftp://f.example mailto:m@evil.example $x^2$ keep: this/")
    open(f, "w").write(s)
P
done
expect 0 "compare --format markdown" "$BENCH" compare --format markdown "$(ls -d "$T"/mda/md10-*[0-9a-f])" "$(ls -d "$T"/mdb/md10-*[0-9a-f])"
grep '^| gemm |' "$T/out" >"$T/row"
[ -s "$T/row" ] && ok "a table row for the case" || { not_ok "no table row"; show "$T/out"; }
for s in 'https://evil.example' 'www.evil.example' 'WWW.Evil.example' 'bob@evil.example' 'ftp://f.example' 'm@evil.example' '$x^2$'; do
	grep -qF "$s" "$T/row" && { not_ok "markdown keeps $s"; show "$T/row"; } || ok "markdown breaks $s"
done
for s in 'https\://evil.example/x' 'www\.evil.example' 'WWW\.Evil.example' 'bob\@evil.example' 'ftp\://f.example' 'mailto:m\@evil.example' '\$x^2\$' 'keep: this'; do
	grep -qF "$s" "$T/row" && ok "markdown writes $s" || { not_ok "markdown lacks $s"; show "$T/row"; }
done

# ---- compare: a run directory or bundle named with bytes that are not UTF-8 ---------------------------------------
M=$(ls -d "$T"/mda/md10-*[0-9a-f] | head -n 1)
X=$(printf 'base\377line')
cp -r "$M" "$T/$X"
cp -r "$M" "$T/other"
cp -r "$M" "$T/$(printf 'base\376line')"
expect 0 "compare of a directory named with byte 0xff" "$BENCH" compare "$T/$X" "$T/other"
grep -q '(null)' "$T/out" && { not_ok "a (null) label"; show "$T/out"; } || ok "no (null) label"
expect_out 'other vs base\xffline:'
expect_out 'UNVERIFIED: base\xffline:'
expect_out 'UNVERIFIED: other:'
expect 0 "the same as the other side" "$BENCH" compare "$T/other" "$T/$X"
expect_out 'base\xffline vs other:'
expect_out 'UNVERIFIED: base\xffline:'
expect 0 "compare --format json" "$BENCH" compare --format json "$T/$X" "$T/other"
"$PY" - "$T/out" <<'P' && ok "JSON: both sides, the baseline labelled base\\xffline, neither verified" || { not_ok "JSON sides"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sides"]
assert d["baseline"] == "base\\xffline", d["baseline"]
assert [x["label"] for x in s] == ["base\\xffline", "other"], s
assert s[0]["path"].endswith("base\\xffline") and not s[0]["verified"] and not s[1]["verified"], s
P
expect 0 "two names apart only in a byte that is not UTF-8" "$BENCH" compare --format json "$T/$X" "$T/$(printf 'base\376line')"
"$PY" - "$T/out" <<'P' && ok "JSON: two sides, labels base\\xffline and base\\xfeline" || { not_ok "JSON labels"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["label"] for x in d["sides"]] == ["base\\xffline", "base\\xfeline"], d["sides"]
P
for f in markdown csv; do
	expect 0 "compare --format $f" "$BENCH" compare --format "$f" "$T/$X" "$T/other"
	grep -q 'base\\\\*xffline' "$T/out" && ok "$f: the label with \\xff" || { not_ok "$f: no label"; show "$T/out"; }
done
# a signed bundle in a directory named so: verified, its path kept in JSON; verify --json names it
expect 0 "pack the run" "$BENCH" pack "$M"
BU=$(ls "$M".bench.tar.gz)
D="$T/$(printf 'd\376')"
mkdir "$D"
cp "$BU" "$BU.intoto.jsonl" "$D/"
BD="$D/$(basename "$BU")"
expect 0 "compare --format json of a bundle in a directory named with byte 0xfe" "$BENCH" compare --format json "$BD" "$T/other"
"$PY" - "$T/out" <<'P' && ok "JSON: the bundle's side, verified, its path with \\xfe" || { not_ok "JSON bundle side"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sides"]
assert len(s) == 2 and s[0]["verified"] and "/d\\xfe/md10-" in s[0]["path"], s
assert s[0]["runs"][0]["path"] == s[0]["path"], s
P
expect 0 "verify --json of that bundle" "$BENCH" verify --json "$BD"
expect_out '"verified": true'
expect_out '/d\\xfe/md10-'
rm "$BD.intoto.jsonl"
expect 8 "verify --json of it without its envelope" "$BENCH" verify --json "$BD"
expect_out '"verified": false'
expect_out '"bundle": "'
expect_out "cannot open '"
expect 8 "compare of it" "$BENCH" compare "$BD" "$T/other"
expect_err '/d\xfe/md10-'
cp "$T/m.yaml" "$T/m$(printf '\377').yaml"
expect 0 "validate --json of a manifest named with byte 0xff" "$BENCH" validate --json "$T/m$(printf '\377').yaml"
expect_out 'm\\xff.yaml"'
finish
