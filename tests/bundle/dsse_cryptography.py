#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent check of a bench envelope in Python: the DSSE PAE written from the spec, the Ed25519
verification by the `cryptography` package (Debian python3-cryptography), the statement's subject 0 against
the file's sha256. Exit 0 when it verifies. (Debian 12's securesystemslib 0.26 and in-toto 1.3.1 predate their
DSSE modules, so this is the independent implementation available there.)
  python3 dsse_cryptography.py RUN.bench.tar.gz PUBLIC_KEY.pem
"""
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.serialization import load_pem_public_key

bundle, pub = sys.argv[1], sys.argv[2]
env = json.load(open(bundle + ".intoto.jsonl"))
payload = base64.b64decode(env["payload"])
t = env["payloadType"].encode()
pae = b"DSSEv1 " + str(len(t)).encode() + b" " + t + b" " + str(len(payload)).encode() + b" " + payload
key = load_pem_public_key(open(pub, "rb").read())
try:
    key.verify(base64.b64decode(env["signatures"][0]["sig"]), pae)
except InvalidSignature:
    print("signature does not verify")
    sys.exit(1)
stmt = json.loads(payload)
assert stmt["_type"] == "https://in-toto.io/Statement/v1" and stmt["predicateType"] == "https://slsa.dev/provenance/v1"
digest = hashlib.sha256(open(bundle, "rb").read()).hexdigest()
if stmt["subject"][0]["digest"]["sha256"] != digest:
    print("archive digest differs")
    sys.exit(1)
print("verified by python cryptography")
