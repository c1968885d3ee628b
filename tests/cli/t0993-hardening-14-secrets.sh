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
"$BENCH" pack "$R" >"$T/out" 2>"$T/err" || { not_ok "pack of the binary variants"; show "$T/err"; }
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

finish
