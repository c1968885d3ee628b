#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Verifies a bench bundle with standard tools only (docs/bundle-format.md): python3 for JSON and base64,
# openssl for the Ed25519 signature, tar and sha256sum for the digests. Nothing of bench is used.
#   sh tests/bundle/verify-with-openssl.sh RUN.bench.tar.gz PUBLIC_KEY.pem
set -eu
bundle=$1 pub=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 1. the envelope's payload, payload type and signature (first signature)
python3 - "$bundle.intoto.jsonl" "$work" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
out = sys.argv[2]
payload = base64.b64decode(env["payload"], validate=True)
ptype = env["payloadType"].encode()
# 2. PAE = "DSSEv1" SP len(type) SP type SP len(payload) SP payload
pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(payload), payload)
open(f"{out}/pae", "wb").write(pae)
open(f"{out}/sig", "wb").write(base64.b64decode(env["signatures"][0]["sig"], validate=True))
stmt = json.loads(payload)
# 4. every subject as a sha256sum line
with open(f"{out}/SHA256SUMS", "w") as f:
    for s in stmt["subject"]:
        f.write(f"{s['digest']['sha256']}  {s['name']}\n")
print(env["signatures"][0]["keyid"])
PY
# 3. the signature: pure Ed25519 over the PAE bytes
openssl pkeyutl -verify -pubin -inkey "$pub" -rawin -in "$work/pae" -sigfile "$work/sig"
# the key id: base64(sha256(DER public key))
openssl pkey -pubin -in "$pub" -outform DER | openssl dgst -sha256 -binary | base64
# 5. the archive and every member against the signed digests
cp "$bundle" "$work/"
tar -C "$work" -xzf "$bundle"
(cd "$work" && sha256sum --quiet -c SHA256SUMS)
echo "verified with standard tools"
