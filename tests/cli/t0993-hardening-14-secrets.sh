#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The fourteenth review's secrets checks (r31P, area 5):
#  1. a binary member (a NUL among its first 8000 bytes) lost an AWS access key id (AKIA...) to '*' bytes but kept
#     the 40-character secret access key after it, which the same line in a text file loses. Now the text rule's
#     secret key after a key id (AKIA or ASIA; ' ', tab, ':', ',' or '=' between) is overwritten by as many '*'
#     bytes, and so is a secret key after its name (aws_secret_access_key = K, AWS_SECRET_ACCESS_KEY: K,
#     "SecretAccessKey": "K", \"SecretAccessKey\": \"K\"), the name and the separator kept; at the start and at the
#     end of a file, several in one file, past the first 8000 bytes. Each variant is a binary file of a run
#     directory that `bench pack` packs: read back, it is the file with exactly the secrets' bytes made '*'.
#  2. `bench run` whose runner left a file named with the value of a secret variable: `bench pack RUN` refuses it,
#     but the run's scrub took the refusal for a full disk, said "no space left on device" and the run packed and
#     signed the bundle anyway (the secret in a member name). Now the run refuses it as bench pack does (exit 1, the
#     name shown redacted, no "no space"), writes no bundle and no signature, and leaves status.json and the records
#     as the run wrote them; in a directory name, a log's, a results file's, a name nested deep, a value of the
#     manifest's stack.env (which only the run knows), a *.tmp name, a rule-based name (a token shape, which the
#     run refused only as its pack failed), and a set of rounds. Refused, the run is still scrubbed whole with its
#     own secret values: renamed, a bench pack by hand that does not know them packs none.
#  A file named *.tmp was neither scrubbed nor its name looked at, and was packed: now it is, like any other.
. "$(dirname "$0")/lib.sh"
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# ---- 1. binary files: the AWS secret access key --------------------------------------------------------------------
R=$T/bin/run
mkdir -p "$R/artifacts/gemm"
printf '{"schema":"bench.status/v1","run":"run","state":"complete","started":"2026-12-01T00:00:00Z","finished":"2026-12-01T00:00:01Z","cases":[]}\n' >"$R/status.json"
printf 'bench: 1\nname: run\n' >"$R/manifest.yaml"
# each variant: name, its bytes, the secrets (each of its occurrences becomes '*' bytes; nothing else changes)
cat >"$T/binvariants.py" <<'PY'
K1 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"   # 40 of [A-Za-z0-9/+] each
K2 = "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"
K3 = "Zz9+Yy8/Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn"
K4 = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/Ab"
K5 = "k5K5k5K5k5K5k5K5k5K5k5K5k5K5k5K5k5K5k5K5"
ID1, ID2, ID3 = "AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A", "AKIA2E0A8F3B244C9986"
B = b"\x00\x01\x02\xff"
V = [
    # the review's line: a key id, a space, its secret key, in the middle of binary bytes
    ("b01-review", B + b"BIN " + (ID1 + " " + K1).encode() + b" \x00end\n", [ID1, K1]),
    # a session key id (ASIA) and ':' between
    ("b02-asia-colon", B + (ID2 + ":" + K2).encode() + B, [ID2, K2]),
    # at the very start of the file (a NUL after it), '=' between
    ("b03-at-start", (ID3 + "=" + K3).encode() + b"\x00\x00tail", [ID3, K3]),
    # at the very end: nothing after the secret key, a tab and a comma between
    ("b04-at-end", B * 4 + (ID1 + ",\t" + K4).encode(), [ID1, K4]),
    # several in one file; a 41-character word after a key id is not a secret key (the id alone goes)
    ("b05-several", B + (ID1 + " " + K1).encode() + B + (ID2 + "\t" + K2).encode() + B + (ID3 + ", " + K3).encode() +
     b"\x00" + (ID1 + " " + K5 + "x").encode() + b"\x00", [ID1, ID2, ID3, K1, K2, K3]),
    # ~/.aws/credentials: the secret key on a line of its own, after its name
    ("b06-credentials", B + ("[default]\naws_access_key_id = " + ID1 + "\naws_secret_access_key = " + K1 +
                             "\nregion = eu-west-1\n").encode() + B, [ID1, K1]),
    # the environment's spellings: AWS_SECRET_ACCESS_KEY: K, AWS_SECRET_ACCESS_KEY=K, export ...='K'
    ("b07-env-yaml", B + ("AWS_SECRET_ACCESS_KEY: " + K2 + "\n").encode() + B, [K2]),
    ("b08-env-assign", B + ("AWS_SECRET_ACCESS_KEY=" + K3 + "\x00export AWS_SECRET_ACCESS_KEY='" + K4 +
                            "'\n").encode(), [K3, K4]),
    # aws sts' JSON in a binary blob, and the same escaped inside a JSON string
    ("b09-sts-json", B + ('{"Credentials": {"AccessKeyId": "' + ID2 + '", "SecretAccessKey": "' + K5 +
                          '", "Expiration": "2026-12-01T00:00:00Z"}}').encode() + B, [ID2, K5]),
    ("b10-json-escaped", B + ('"{\\"SecretAccessKey\\": \\"' + K1 + '\\", \\"AccessKeyId\\": \\"' + ID3 +
                              '\\"}"').encode() + B, [ID3, K1]),
    # Java properties / Python settings spellings: secret_access_key, secretAccessKey =>
    ("b11-other-names", B + ("secretAccessKey=" + K2 + "\x00{:secret_access_key=>'" + K3 + "'}").encode() + B,
     [K2, K3]),
    # a large file: the NUL first, the key id and secret key past 100000 bytes
    ("b12-large", b"\x00" + b"\x7f" * 100000 + (ID1 + " " + K4).encode() + b"\x00" * 10, [ID1, K4]),
]
PY
python3 - "$R" "$T/binvariants.py" <<'PY' || not_ok "planting the binary variants"
import sys
exec(open(sys.argv[2]).read())
for name, data, secrets in V:
    assert b"\x00" in data[:8000], name
    open(f"{sys.argv[1]}/artifacts/gemm/{name}.bin", "wb").write(data)
PY
# a file named *.tmp (a runner's, or one a killed bench left) is packed: it was packed unscrubbed
printf 'ghp_TmpB2c3D4e5F6g7H8i9J0kL tmpvalue-0993 AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY password=pwTmpA1x9\n' \
	>"$R/artifacts/gemm/notes.tmp"
DB_PASSWORD=tmpvalue-0993 "$BENCH" pack "$R" >"$T/out" 2>"$T/err" || { not_ok "pack of the binary variants"; show "$T/err"; }
mkdir -p "$T/bin/x" && tar -C "$T/bin/x" -xzf "$T/bin/run.bench.tar.gz" 2>/dev/null
python3 - "$T/bin/x/run/artifacts/gemm" "$T/binvariants.py" >"$T/bin.tap" <<'PY'
import sys
exec(open(sys.argv[2]).read())
for name, data, secrets in V:
    want = bytearray(data)
    for s in secrets:
        b, at = s.encode(), 0
        while (at := data.find(b, at)) >= 0:
            want[at:at + len(b)] = b"*" * len(b)
            at += len(b)
    try:
        got = open(f"{sys.argv[1]}/{name}.bin", "rb").read()
    except OSError as e:
        print(f"not {name}: {e}")
        continue
    left = [s for s in secrets if s.encode() in got]
    if got == bytes(want):
        print(f"ok {name}: every secret overwritten by as many '*' bytes ({len(got)} bytes, nothing else changed)")
    else:
        diff = [i for i in range(min(len(got), len(want))) if got[i] != want[i]][:4]
        print(f"not {name}: {len(got)} bytes (want {len(want)}), secrets left {left}, differs at {diff}")
PY
[ $? = 0 ] || not_ok "reading the binary variants back"
while read -r verdict line; do
	if [ "$verdict" = ok ]; then ok "$line"; else not_ok "$line"; fi
done <"$T/bin.tap"
got=$(cat "$T/bin/x/run/artifacts/gemm/notes.tmp" 2>&1)
if [ "$got" = "<redacted> <redacted> <redacted> <redacted> password=<redacted>" ]; then
	ok "a file named *.tmp is scrubbed like any other: $got"
else
	not_ok "notes.tmp packed as: $got"
fi

# ---- 2. bench run: a file name holding a secret value ------------------------------------------------------------
# the runner: the fake runner after it made each of SEC_FILES (space-separated paths under the run directory, @PW@
# the value of DB_PASSWORD, @SE@ that of the stack.env's API_TOKEN as it sees them)
mkdir -p "$T/fk"
cat >"$T/fk/bench-gemm" <<PY
#!/usr/bin/env python3
import os, sys
args = sys.argv[1:]
run = os.path.dirname(os.path.dirname(os.path.abspath(args[args.index("--config") + 1])))
for rel in os.environ.get("SEC_FILES", "").split():
    rel = rel.replace("@PW@", os.environ.get("DB_PASSWORD", "")).replace("@SE@", os.environ.get("API_TOKEN", ""))
    p = os.path.join(run, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "a") as f:
        f.write("made by the runner; API_TOKEN %s\n" % os.environ.get("API_TOKEN", ""))
os.execv(sys.executable, [sys.executable, "$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py"] + args)
PY
chmod +x "$T/fk/bench-gemm"
printf 'bench: 1\nname: sec14\ntarget: {vendor: cpu}\nruntime: {engine: host}\nstack:\n  env: {API_TOKEN: "stackenv-Tok3n-0993"}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]]}\n' >"$T/m.yaml"
PW=dbpw-0123456789
# run_refused NAME DESCRIPTION SEC_FILES WANT: bench run in $T/runs-NAME refuses its run directory as bench pack
# refuses it: exit 1, WANT (the name refused, redacted) on stderr, the same line as bench pack's of that directory
# (given the stack.env's value too), no secret and no "no space" there; no bundle, no signature, no temporary file
# beside it; status.json complete with every case ok, each record kept
run_refused() {
	name=$1 desc=$2 files=$3 want=$4
	SEC_FILES=$files DB_PASSWORD=$PW BENCH_RUNNERS=$T/fk "$BENCH" run -q -o "$T/runs-$name" "$T/m.yaml" \
		>"$T/out" 2>"$T/err"
	rc=$?
	D=$(ls -d "$T/runs-$name"/sec14-*[0-9a-f] 2>/dev/null | head -n 1)
	why=
	[ "$rc" = 1 ] || why="$why exit $rc (wanted 1);"
	grep -qF -- "$want" "$T/err" || why="$why stderr lacks \"$want\";"
	grep -qF "rename or remove it, then run 'bench pack' again" "$T/err" || why="$why stderr lacks the fix;"
	grep -qF "no space left" "$T/err" && why="$why stderr says no space left;"
	grep -qF -e "$PW" -e stackenv-Tok3n-0993 "$T/err" "$T/out" && why="$why the secret is printed;"
	left=$(ls -a "$T/runs-$name" | grep -e '\.tar\.gz' -e intoto -e '\.tmp') && why="$why left beside the run: $left;"
	[ -n "$D" ] && python3 - "$D" 2>"$T/st.err" <<'PY' || why="$why status.json or the records changed: $(tail -n 1 "$T/st.err");"
import json, sys
st = json.load(open(sys.argv[1] + "/status.json"))
assert st["state"] == "complete" and "error" not in st, (st["state"], st.get("error"))
assert len(st["cases"]) == 2 and all(c["status"] == "ok" for c in st["cases"]), st["cases"]
recs = [json.loads(l) for l in open(sys.argv[1] + "/results/gemm.jsonl")]
assert sorted(r["case"] for r in recs) == sorted(c["case"] for c in st["cases"]), recs
assert all(r["status"] == "ok" and r["stats"]["n"] == 3 for r in recs), recs
PY
	[ -n "$D" ] && DB_PASSWORD=$PW API_TOKEN=stackenv-Tok3n-0993 "$BENCH" pack "$D" >/dev/null 2>"$T/pack.err"
	prc=$?
	[ "$prc" = 1 ] && cmp -s "$T/err" "$T/pack.err" || why="$why bench pack says (exit $prc) $(cat "$T/pack.err");"
	[ -e "$D.bench.tar.gz" ] && why="$why bench pack wrote a bundle;"
	if [ -z "$why" ]; then ok "$desc: exit 1, bench pack's refusal ($want), no bundle, status.json and records kept"; else
		not_ok "$desc:$why"
		show "$T/err"
	fi
}
run_refused file "a runner's file named with DB_PASSWORD's value" "artifacts/gemm/@PW@.txt" \
	"'artifacts/gemm/<redacted>.txt': a file name that holds the value of a secret variable"
run_refused dir "a directory named with it (the file in it too)" "artifacts/gemm/dir-@PW@/inside.txt" \
	"'artifacts/gemm/dir-<redacted>': a file name that holds the value of a secret variable"
run_refused log "a log named with it" "logs/gemm-@PW@.log" \
	"'logs/gemm-<redacted>.log': a file name that holds the value of a secret variable"
run_refused results "a results file named with it" "results/@PW@.jsonl" \
	"'results/<redacted>.jsonl': a file name that holds the value of a secret variable"
run_refused deep "a name nested eight directories deep" "artifacts/gemm/a/b/c/d/e/f/g/h/x@PW@x.bin" \
	"'artifacts/gemm/a/b/c/d/e/f/g/h/x<redacted>x.bin': a file name that holds the value of a secret variable"
run_refused stackenv "a name holding the value of the manifest's stack.env API_TOKEN" "artifacts/gemm/@SE@/x.txt" \
	"'artifacts/gemm/<redacted>': a file name that holds the value of a secret variable"
run_refused tmp "a file named *.tmp with it (such names were not looked at)" "artifacts/gemm/@PW@.tmp" \
	"'artifacts/gemm/<redacted>.tmp': a file name that holds the value of a secret variable"
run_refused rule "a rule-based name (a GitHub token's shape)" "artifacts/gemm/ghp_A1b2C3d4E5f6G7h8I9j0K1l2.txt" \
	"'artifacts/gemm/<redacted>.txt': a file name that holds a secret (shown redacted)"

# refused, the run was still scrubbed with its own values (the stack.env's, which a bench pack by hand does not
# know): renamed, bench pack without them packs no secret (but in manifest.yaml, the run's input, never scrubbed)
D=$(ls -d "$T"/runs-stackenv/sec14-*[0-9a-f] | head -n 1)
mv "$D/artifacts/gemm/stackenv-Tok3n-0993" "$D/artifacts/gemm/renamed"
if "$BENCH" pack "$D" >"$T/out" 2>"$T/err" && "$BENCH" verify "$D.bench.tar.gz" >/dev/null 2>&1 &&
	! tar -xzOf "$D.bench.tar.gz" --exclude='*/manifest.yaml' | grep -qaF stackenv-Tok3n-0993 &&
	tar -xzOf "$D.bench.tar.gz" "$(basename "$D")/artifacts/gemm/renamed/x.txt" | grep -qF "API_TOKEN <redacted>"; then
	ok "renamed, bench pack (without the stack.env's value) packs a bundle without it: the run had scrubbed it"
else
	not_ok "the run's own secret value reached the bundle after the rename"
	show "$T/err"
fi

# a set of rounds: each run refused, none packed
SEC_FILES="artifacts/gemm/@PW@.txt" DB_PASSWORD=$PW BENCH_RUNNERS=$T/fk "$BENCH" run -q --rounds 2 -o "$T/runs-rounds" \
	"$T/m.yaml" >"$T/out" 2>"$T/err"
rc=$?
n_refused=$(grep -c "'artifacts/gemm/<redacted>.txt': a file name that holds the value of a secret variable" "$T/err")
if [ "$rc" = 1 ] && [ "$n_refused" = 2 ] && ! grep -q "no space left" "$T/err" &&
	[ -z "$(ls "$T/runs-rounds" | grep -e '\.tar\.gz' -e intoto)" ] && [ "$(ls -d "$T"/runs-rounds/sec14-* | wc -l)" = 2 ]; then
	ok "--rounds 2: both runs refused (exit 1), no bundle"
else
	not_ok "--rounds 2: exit $rc, $n_refused refusals, $(ls "$T/runs-rounds" | tr '\n' ' ')"
	show "$T/err"
fi
finish
