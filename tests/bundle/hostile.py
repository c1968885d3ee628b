#!/usr/bin/env python3
"""Builds a hostile bundle, correctly signed (so that only the archive checks can refuse it).
  python3 hostile.py VARIANT OUTDIR BENCH_HOME      -> OUTDIR/hostile-VARIANT.bench.tar.gz(.intoto.jsonl)
Variants: absolute, dotdot, symlink, hardlink, device, duplicate, many, huge, truncated, corrupt, extra, missing.
Signing uses openssl pkeyutl with BENCH_HOME/signing.key.pem (standard tools)."""
import base64
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

variant, outdir, home = sys.argv[1:4]
run = f"hostile-{variant}"
path = os.path.join(outdir, run + ".bench.tar.gz")
members = []   # (name, data) the statement lists


def add(tf, name, data=b"x", **kw):
    ti = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(ti, k, v)
    if ti.type in (tarfile.REGTYPE,):
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    else:
        tf.addfile(ti)


buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
    add(tf, f"{run}/status.json", b"{}")
    members.append((f"{run}/status.json", b"{}"))
    if variant == "absolute":
        add(tf, f"/etc/{run}-owned", b"pwned")
    elif variant == "dotdot":
        add(tf, f"{run}/../../escaped", b"pwned")
    elif variant == "symlink":
        add(tf, f"{run}/link", type=tarfile.SYMTYPE, linkname="/etc/passwd")
    elif variant == "hardlink":
        add(tf, f"{run}/hard", type=tarfile.LNKTYPE, linkname=f"{run}/status.json")
    elif variant == "device":
        add(tf, f"{run}/dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
    elif variant == "duplicate":
        add(tf, f"{run}/status.json", b"{}")
    elif variant == "many":
        for i in range(60):  # more entries than BENCH_BUNDLE_MAX_ENTRIES=50 allows
            add(tf, f"{run}/f{i}", b"")
    elif variant == "extra":
        add(tf, f"{run}/unsigned.json", b"{}")
    elif variant == "missing":
        members.append((f"{run}/results/gone.jsonl", b"lost"))
raw = buf.getvalue()
if variant == "huge":
    # status.json, then a header that claims 2 TiB followed by one block: refused before any read of the data
    st = tarfile.TarInfo(f"{run}/status.json")
    st.size = 2
    ti = tarfile.TarInfo(f"{run}/huge")
    ti.size = 2 << 40
    raw = st.tobuf(format=tarfile.PAX_FORMAT) + b"{}" + b"\0" * 510 + ti.tobuf(format=tarfile.PAX_FORMAT) + b"\0" * 512
gz = gzip.compress(raw, mtime=0)
if variant == "truncated":
    gz = gz[: len(gz) // 2]
if variant == "corrupt":
    gz = gz[:10] + bytes(b ^ 0x5A for b in gz[10:40]) + gz[40:]
open(path, "wb").write(gz)
subjects = [{"name": run + ".bench.tar.gz", "digest": {"sha256": hashlib.sha256(gz).hexdigest()}}]
subjects += [{"name": n, "digest": {"sha256": hashlib.sha256(d).hexdigest()}} for n, d in members]
stmt = {"_type": "https://in-toto.io/Statement/v1", "subject": subjects,
        "predicateType": "https://slsa.dev/provenance/v1", "predicate": {}}
payload = json.dumps(stmt, sort_keys=True, separators=(",", ":")).encode()
ptype = b"application/vnd.in-toto+json"
pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(payload), payload)
key = os.path.join(home, "signing.key.pem")
open(path + ".pae", "wb").write(pae)  # EdDSA in openssl pkeyutl signs a file, not a pipe
sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key, "-rawin", "-in", path + ".pae"],
                     capture_output=True, check=True).stdout
os.unlink(path + ".pae")
der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], capture_output=True, check=True).stdout
keyid = base64.b64encode(hashlib.sha256(der).digest()).decode()
env = {"payload": base64.b64encode(payload).decode(), "payloadType": ptype.decode(),
       "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode()}]}
open(path + ".intoto.jsonl", "w").write(json.dumps(env) + "\n")
print(path)
