#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The ninth hardening review (r31x): the scrub rule for a scheme-less user:pw@host read a word of many '@'s once per
# '@' (validate of a 160 KB 'ab@' value 14.8 s, pack of a 200 KB log line 35 s), as did mysql's and sshpass' -p and
# a line of "Authorization: <redacted>"; runtimes' start-up hooks (.NET, CoreCLR, Erlang, PHP, Qt WebEngine, Guile,
# R, GBM and kin) listed by reproduce but not flagged as loading code; secrets kept by pack (a base64 user:password
# word before a full stop or after a path's '/', PuTTY private lines, age identities, JSON Web Key private members,
# a bare Bearer token); compare --format markdown passing link, image and emphasis syntax of a case key through.
. "$(dirname "$0")/lib.sh"
PY=python3
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# ---- scaling: a word of '@'s (validate) and lines of '@'s, -p and Authorization (pack) -------------------------
# CPU time of a small input and of 4x it: at most 6x (the quadratic code took 10x and more)
vcpu() { # bytes pattern
	"$PY" - "$BENCH" "$T" "$1" "$2" <<'P'
import resource, subprocess, sys
b, t, n, p = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
v = (p * (n // len(p) + 1))[:n]
open(t + "/va.yaml", "w").write('bench: 1\nname: va\ntarget: {vendor: cpu}\nruntime: {engine: host}\nstack:\n  env: {FOO: "' + v + '"}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n')
subprocess.run([b, "validate", t + "/va.yaml"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % (r.ru_utime + r.ru_stime))
P
}
ratio() { # description small big
	"$PY" -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b <= 6 * max(a, 0.05) else 1)' "$2" "$3" &&
		ok "$1: ${2}s, 4x the input ${3}s CPU" || not_ok "$1: ${2}s, 4x the input ${3}s CPU (quadratic)"
}
for p in 'ab@' 'a@' 'a.b@'; do
	ratio "validate, a stack.env value of '$p' (40 KB, 160 KB)" "$(vcpu 40000 "$p")" "$(vcpu 160000 "$p")"
done
printf 'bench: 1\nname: sc9\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/m.yaml"
for k in 1 4; do
	BENCH_RUNNERS=$T/fake expect 0 "a run to pack by hand ($k)" "$BENCH" run -q --no-pack -o "$T/sc$k" "$T/m.yaml"
done
pcpu() { # run-dir bytes: a log of one line per pattern, then pack's CPU time
	"$PY" - "$BENCH" "$1" "$2" <<'P'
import resource, subprocess, sys
b, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(d + "/logs/long.log", "w") as f:
    for p in ("ab@", "a@", "a.b@", "-px ", "-p ", "Authorization: <redacted> "):
        f.write((p * (n // len(p) + 1))[:n] + "\n")
subprocess.run([b, "pack", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % (r.ru_utime + r.ru_stime))
P
}
ratio "pack, a log of 'ab@', 'a@', 'a.b@', '-px ', '-p ', 'Authorization: <redacted>' lines (30 KB, 120 KB each)" \
	"$(pcpu "$(ls -d "$T"/sc1/sc9-*[0-9a-f] | head -n 1)" 30000)" "$(pcpu "$(ls -d "$T"/sc4/sc9-*[0-9a-f] | head -n 1)" 120000)"
# the same redactions as before: user:pw@host in a word of '@'s
cat >"$T/v.yaml" <<'Y'
bench: 1
name: va
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env: {NOTE: "see u:pw9Q@h:x@y and ab@ab@c and x a:b@c:d@e"}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
"$BENCH" validate "$T/v.yaml" >"$T/out" 2>"$T/err"
grep -q "pw9Q" "$T/out" "$T/err" && not_ok "validate shows the user:pw@host password" || ok "validate does not show the user:pw@host password"

# ---- reproduce flags runtimes' start-up hooks -------------------------------------------------------------------
HOOKS="DOTNET_STARTUP_HOOKS CORECLR_ENABLE_PROFILING CORECLR_PROFILER_PATH CORECLR_PROFILER_PATH_64 COR_PROFILER_PATH
ERL_AFLAGS ERL_ZFLAGS ERL_LIBS PHPRC PHP_INI_SCAN_DIR QTWEBENGINE_CHROMIUM_FLAGS GUILE_LOAD_PATH GUILE_LOAD_COMPILED_PATH
R_ENVIRON_USER R_ENVIRON R_PROFILE_USER R_LIBS_USER GBM_BACKENDS_PATH ASAN_SYMBOLIZER_PATH ASAN_OPTIONS GTK3_MODULES
BASH_LOADABLES_PATH EXINIT VIMINIT NIX_LD FPATH"
{
	printf 'bench: 1\nname: hk9\ntarget: {vendor: cpu}\nruntime: {engine: host, launcher: local, timeout: 1m}\n'
	printf 'suites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\nstack:\n  env:\n    MY_NOTE9: "plain"\n'
	for n in $HOOKS; do printf '    %s: "/tmp/evil"\n' "$n"; done
} >"$T/hk.yaml"
BENCH_RUNNERS=$T/fake expect 0 "a run whose stack.env holds start-up hooks" "$BENCH" run -q -o "$T/hk" "$T/hk.yaml"
"$BENCH" reproduce "$(ls "$T"/hk/hk9-*.bench.tar.gz | head -n 1)" </dev/null >"$T/out" 2>&1
for n in $HOOKS; do
	grep -A1 "stack.env.$n " "$T/out" | sed -n 2p | grep -q '\^ loads code' && ok "reproduce flags $n" ||
		{ not_ok "reproduce does not flag $n"; grep -A1 "stack.env.$n " "$T/out" | sed 's/^/#   /'; }
done
grep -A1 "stack.env.MY_NOTE9 " "$T/out" | sed -n 2p | grep -q '\^' && not_ok "a plain variable flagged" ||
	ok "a plain variable is not flagged"

# ---- secrets pack kept -----------------------------------------------------------------------------------------
BENCH_RUNNERS=$T/fake expect 0 "a run to plant secrets in" "$BENCH" run -q --no-pack -o "$T/sec" "$T/m.yaml"
R=$(ls -d "$T"/sec/sc9-*[0-9a-f] | head -n 1)
N=$(basename "$R")
W=$(printf 'bob:SECRETC9pw' | base64)                  # padded
WU=$(printf 'bob:SECRETC9pwxy' | base64 | tr -d =)     # unpadded
mkdir -p "$R/artifacts"
cat >"$R/logs/plant.log" <<L
full stop: the word $W. ends it
full stop unpadded: $WU. ends it
comma (as before): $W, there
path: fetched x/$W now
path unpadded: /api/v1/$WU now
file name kept: $W.log and host.$W.com
PuTTY-User-Key-File-3: ssh-ed25519
Encryption: none
Comment: k9
Public-Lines: 2
AAAAC3NzaC1lZDI1NTE5AAAAIKeepPuttyPublicA1
AAAAC3NzaC1lZDI1NTE5AAAAIKeepPuttyPublicA2
Private-Lines: 2
AAAAIPuttyPrivateLineOneSecret9a
AAAAIPuttyPrivateLineTwoSecret9b==
Private-MAC: 0123456789abcdef
after it: keepAfterPutty9
age: AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPAGESECRET9Q
jwk: {"kty":"OKP","crv":"Ed25519","x":"keepJwkPublicX9","d":"jwkPrivateD9secretvalue"}
jwk rsa: {"kty":"RSA","n":"keepJwkN9","e":"AQAB","p":"jwkPrivateP9secret","qi":"jwkPrivateQi9secret"}
not a jwk: {"d": "keepNotJwkD9"}
bearer: sent Bearer bearerTok9abcdefghijklmnop and more
bearer short: a Bearer keepShortB9 word
bearer prose: the Bearer of keepProseB9
L
printf '{"keys": [{"kty": "EC", "crv": "P-256", "x": "keepJsonX9", "d": "jsonJwkPrivateD9secret"}], "note": {"d": "keepJsonNotJwk9"}}\n' >"$R/artifacts/jwks.json"
expect 0 "pack the run directory holding the planted secrets" "$BENCH" pack "$R"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$R.bench.tar.gz"
L="$T/x/$N/logs/plant.log"
gone() { # description text
	grep -qF -- "$2" "$L" "$T/x/$N/artifacts/jwks.json" && { not_ok "$1 kept: $2"; show "$L"; } || ok "$1 removed"
}
kept() { # description text file
	grep -qF -- "$2" "${3:-$L}" && ok "$1 kept" || { not_ok "$1 lost: $2"; show "${3:-$L}"; }
}
gone "base64 user:password before a full stop" "word $W."
gone "base64 user:password unpadded before a full stop" "$WU."
gone "base64 user:password before a comma" "$W,"
gone "base64 user:password after x/" "x/$W"
gone "base64 user:password unpadded after a path's /" "v1/$WU"
kept "a base64 word in a file name (WORD.log)" "$W.log"
kept "a base64 word in a host name" "host.$W.com"
kept "the full stop" "<redacted>. ends it"
gone "PuTTY private line 1" "PuttyPrivateLineOneSecret9a"
gone "PuTTY private line 2" "PuttyPrivateLineTwoSecret9b"
kept "PuTTY public lines" "KeepPuttyPublicA2"
kept "the line after the PuTTY key" "keepAfterPutty9"
gone "an age identity" "AGESECRET9Q"
gone "a JWK's d in a log" "jwkPrivateD9secretvalue"
gone "a JWK's p in a log" "jwkPrivateP9secret"
gone "a JWK's qi in a log" "jwkPrivateQi9secret"
kept "a JWK's public x" "keepJwkPublicX9"
kept "\"d\" outside a JWK" "keepNotJwkD9"
gone "a JWK's d in a JSON artifact" "jsonJwkPrivateD9secret"
kept "a JWK's public x in a JSON artifact" "keepJsonX9" "$T/x/$N/artifacts/jwks.json"
kept "\"d\" outside a JWK in a JSON artifact" "keepJsonNotJwk9" "$T/x/$N/artifacts/jwks.json"
gone "a bare Bearer token" "bearerTok9abcdefghijklmnop"
kept "the Bearer scheme" "sent Bearer <redacted> and more"
kept "a short word after Bearer" "keepShortB9"
kept "Bearer in prose" "keepProseB9"
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$R.bench.tar.gz"

# ---- compare --format markdown: no link, image or emphasis from a case key --------------------------------------
for side in a b; do
	BENCH_RUNNERS=$T/fake expect 0 "a run for the markdown check ($side)" "$BENCH" run -q --no-pack -o "$T/md$side" "$T/m.yaml"
	M=$(ls -d "$T"/md$side/sc9-*[0-9a-f] | head -n 1)
	"$PY" - "$M" <<'P'
import glob, sys
d = sys.argv[1]
for f in glob.glob(d + "/*.json") + glob.glob(d + "/results/*.jsonl") + glob.glob(d + "/cases/*.json"):
    s = open(f).read()
    s = s.replace("/64x64x64/", "/[c](javascript:alert(1)) ![t](http://t.example/x.png) *em* _u_ # ~~s~~/")
    open(f, "w").write(s)
P
	expect 0 "packed ($side)" "$BENCH" pack "$M"
done
expect 0 "compare --format markdown" "$BENCH" compare --format markdown "$(ls "$T"/mda/*.bench.tar.gz)" "$(ls "$T"/mdb/*.bench.tar.gz)"
grep -qF '\[c\](javascript:alert(1)) \!\[t\](http\://t.example/x.png) \*em\* \_u\_ \# \~\~s\~\~' "$T/out" &&
	ok "the case key's link, image, emphasis and heading syntax escaped" || { not_ok "markdown syntax passed through"; show "$T/out"; }
grep -qE '(^|[^\\])\[c\]\(|!\[t\]\(' "$T/out" && not_ok "a link or image in the markdown" || ok "no link or image in the markdown"
finish
