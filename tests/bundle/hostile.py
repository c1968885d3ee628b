#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds a hostile bundle, correctly signed (so that only the archive checks can refuse it).
  python3 hostile.py VARIANT OUTDIR BENCH_HOME      -> OUTDIR/hostile-VARIANT.bench.tar.gz(.intoto.jsonl)
Variants: absolute, dotdot, symlink, hardlink, device, duplicate, many, huge, truncated, corrupt, extra, missing;
non-canonical names: dotslash (run/./x beside run/x), doubleslash (run//x), trailingslash (a file run/x/), setuid;
a path component over 255 bytes: longcomp-mid, longcomp-end, longcomp-utf8 (256 bytes, 128 characters); accepted at
255 bytes: longcomp-255, longcomp-utf8-255 (85 three-byte characters);
a file that is the parent of another member: fileparent (run/zz, run/zz/y), fileparent-rev (the child first),
fileparent-deep (run/a, run/a/b/c/d), fileparent-status (run/status.json/x); Hangul jamo NFC joins by rule:
hangul-lv (U+1100 U+1161), hangul-lvt (U+AC00 U+11A8);
the gzip layer: badcrc, badsize (CRC-32 or length in the trailer wrong), plain (an uncompressed tar), trailing
(garbage after the gzip stream), afterend (an entry after the tar end marker); bigresults: a 1 GiB
results/gemm.jsonl (a few MB compressed); escape: a run whose plan, environment and summary hold ESC sequences;
escape-utf8: the same with multi-byte characters beside the controls (BENCH_ESC, when set, is the text instead).
Tar header kinds bench never writes (one reading must be every reader's): tar-global (a pax 'g' header whose
path= names status.json: GNU tar and Python read the next entry as a forged status.json), tar-global-comment,
tar-xcomment, tar-xlinkpath, tar-xattr, tar-xcharset, tar-xsparse ('x' headers with keys bench never writes),
tar-xdup (two path= records), tar-xx (two 'x' headers in a row), tar-gnulong ('L'), tar-gnulonglink ('K'),
tar-sparse ('S'), tar-volume ('V'), tar-fifo, tar-blockdev, tar-contig ('7'), tar-v7reg (type NUL),
tar-gnumagic (a GNU-format header), tar-base256 (a size in base-256). Names equal once ASCII letters' case is
folded: tar-case (logs/A.log, logs/a.log), tar-case-dir (Logs/x, logs/y), tar-case-dirent (directories Logs/, logs/),
tar-case-top (README, readme); accepted: tar-case-ok (logs/a.log, logs/b.log).
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


def pax_block(records):
    """a raw pax 'x' header with exactly these (key, value) records"""
    data = b""
    for k, v in records:
        body = b" %s=%s\n" % (k.encode(), v.encode())
        n = len(body) + 1
        while len(str(n)) + len(body) != n:
            n += 1
        data += str(n).encode() + body
    ti = tarfile.TarInfo("PaxHeader/x")
    ti.type = tarfile.XHDTYPE
    ti.size = len(data)
    return ti.tobuf(format=tarfile.USTAR_FORMAT) + data + b"\0" * ((512 - len(data) % 512) % 512)


def file_block(name, data, fmt=tarfile.USTAR_FORMAT, **kw):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    for k, v in kw.items():
        setattr(ti, k, v)
    return ti.tobuf(format=fmt) + data + b"\0" * ((512 - len(data) % 512) % 512)


buf = io.BytesIO()
gpax = {"path": f"{run}/status.json"} if variant == "tar-global" else {"comment": "x"} if variant == "tar-global-comment" else {}
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT, pax_headers=gpax) as tf:
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
    elif variant == "dotslash":
        add(tf, f"{run}/./status.json", b'{"state": "forged"}')
    elif variant == "doubleslash":
        add(tf, f"{run}//status.json", b'{"state": "forged"}')
    elif variant == "trailingslash":
        add(tf, f"{run}/status.json/", b"")  # a file whose name ends in "/": read as a second status.json
    elif variant in ("fileparent", "fileparent-rev", "fileparent-deep", "fileparent-status"):
        # a file that is also the parent of another member: no extractor writes both ("Not a directory")
        pairs = {"fileparent": ["zz", "zz/y"], "fileparent-rev": ["zz/y", "zz"],
                 "fileparent-deep": ["a", "a/b/c/d"], "fileparent-status": ["status.json/x"]}[variant]
        for n in pairs:
            add(tf, f"{run}/{n}", b"member\n")
            members.append((f"{run}/{n}", b"member\n"))
    elif variant in ("hangul-lv", "hangul-lvt"):
        # conjoining jamo that NFC joins into a syllable by rule (U+1100 U+1161 is U+AC00): a second spelling
        n = f"{run}/logs/\u1100\u1161.log" if variant == "hangul-lv" else f"{run}/logs/\uac00\u11a8.log"
        add(tf, n, b"x\n")
        members.append((n, b"x\n"))
    elif variant.startswith("longcomp-"):
        # a path component over 255 bytes (NAME_MAX): GNU tar and Python cannot extract it; 255 bytes they can
        n = {"longcomp-mid": "logs/" + "a" * 256 + "/x.log", "longcomp-end": "logs/" + "a" * 256,
             "longcomp-utf8": "logs/" + "\u00e9" * 128,  # 256 bytes, 128 characters
             "longcomp-255": "logs/" + "a" * 255 + "/" + "b" * 255, "longcomp-utf8-255": "logs/" + "\u65e5" * 85}[variant]
        add(tf, f"{run}/{n}", b"x\n")
        members.append((f"{run}/{n}", b"x\n"))
    elif variant == "setuid":
        add(tf, f"{run}/tool", b"#!/bin/sh\n", mode=0o4755)
        members.append((f"{run}/tool", b"#!/bin/sh\n"))
    elif variant in ("escape", "escape-utf8"):
        esc = "\x1b]0;pwned\x07\x1b[31mRED\x1b[0m"
        if variant == "escape-utf8":
            esc = os.environ.get("BENCH_ESC", "\u20ac\x1b]0;pwned\x07\u00e9\r\u65e5\x1b[2J\U0001d11e\u009b31m\u202e")
        plan = json.dumps({"name": "esc" + esc, "channel": "c", "vendor": "cpu" + esc}).encode()
        summary = json.dumps({"cases": [{"suite": "gemm", "case": "k" + esc, "status": "ok", "value": 1.5,
                                         "unit": "TFLOP/s" + esc}]}).encode()
        status = json.dumps({"state": "complete", "started": "2026-01-01T00:00:00Z" + esc, "cases": [
            {"suite": "gemm", "case": "k" + esc, "status": "ok"},
            {"suite": "gemm", "case": "bad" + esc, "status": "failed", "error": "why" + esc}]}).encode()
        rec = json.dumps({"suite": "gemm", "case": "k" + esc, "status": "ok", "metric": "tflops",
                          "unit": "=HYPERLINK(\"http://x\")" + esc, "value": 1.5, "samples": [1.5, 1.5, 1.5]}).encode() + b"\n"
        for n, d in (("plan.json", plan), ("summary.json", summary), ("results/gemm.jsonl", rec)):
            add(tf, f"{run}/{n}", d)
            members.append((f"{run}/{n}", d))
        members[0] = (f"{run}/status.json", status)
raw = buf.getvalue()
forged = b'{"state": "complete", "cases": [], "forged": true}'
tar_raw = {  # (blocks after status.json, the members they add to the statement)
    "tar-global": (file_block(f"{run}/decoy.json", forged), [(f"{run}/decoy.json", forged)]),
    "tar-global-comment": (b"", []),
    "tar-xcomment": (pax_block([("comment", "hi")]) + file_block(f"{run}/a.json", b"{}"), [(f"{run}/a.json", b"{}")]),
    "tar-xlinkpath": (pax_block([("linkpath", f"{run}/status.json")]) + file_block(f"{run}/a.json", b"{}"),
                      [(f"{run}/a.json", b"{}")]),
    "tar-xattr": (pax_block([("SCHILY.xattr.user.x", "1")]) + file_block(f"{run}/a.json", b"{}"), [(f"{run}/a.json", b"{}")]),
    "tar-xcharset": (pax_block([("hdrcharset", "BINARY"), ("path", f"{run}/a.json")]) + file_block(f"{run}/a.json", b"{}"),
                     [(f"{run}/a.json", b"{}")]),
    "tar-xsparse": (pax_block([("GNU.sparse.name", f"{run}/status.json")]) + file_block(f"{run}/a.json", b"{}"),
                    [(f"{run}/a.json", b"{}")]),
    "tar-xdup": (pax_block([("path", f"{run}/a.json"), ("path", f"{run}/status.json")]) + file_block(f"{run}/b.json", forged),
                 [(f"{run}/a.json", forged), (f"{run}/b.json", forged)]),
    "tar-xx": (pax_block([("path", f"{run}/a.json")]) + pax_block([("path", f"{run}/b.json")]) + file_block(f"{run}/c.json", b"{}"),
               [(f"{run}/a.json", b"{}"), (f"{run}/b.json", b"{}"), (f"{run}/c.json", b"{}")]),
    "tar-gnulong": (file_block(f"{run}/" + "l" * 120 + ".json", b"{}", fmt=tarfile.GNU_FORMAT), [(f"{run}/" + "l" * 120 + ".json", b"{}")]),
    "tar-gnulonglink": (file_block(f"{run}/ln", b"", fmt=tarfile.GNU_FORMAT, type=tarfile.SYMTYPE, linkname="/" + "k" * 120), []),
    "tar-sparse": (file_block(f"{run}/s.json", b"", type=tarfile.GNUTYPE_SPARSE), []),
    "tar-volume": (file_block(f"{run}/vol", b"", type=b"V"), []),
    "tar-fifo": (file_block(f"{run}/fifo", b"", type=tarfile.FIFOTYPE), []),
    "tar-blockdev": (file_block(f"{run}/blk", b"", type=tarfile.BLKTYPE, devmajor=8, devminor=0), []),
    "tar-contig": (file_block(f"{run}/c.json", b"{}", type=tarfile.CONTTYPE), [(f"{run}/c.json", b"{}")]),
    "tar-v7reg": (file_block(f"{run}/v.json", b"{}", type=tarfile.AREGTYPE), [(f"{run}/v.json", b"{}")]),
    "tar-gnumagic": (file_block(f"{run}/g.json", b"{}", fmt=tarfile.GNU_FORMAT), [(f"{run}/g.json", b"{}")]),
    "tar-base256": (None, [(f"{run}/b.json", b"{}")]),
    # pax values bench never writes (review B4): GNU tar and Python refuse or misread these mtimes
    **{f"tar-xmtime-{k}": (pax_block([("mtime", v)]) + file_block(f"{run}/a.json", b"{}"), [(f"{run}/a.json", b"{}")])
       for k, v in (("nan", "nan"), ("inf", "-1e9999"), ("neg", "-1"), ("exp", "1e3"), ("big", "1234567890123"),
                    ("frac", "1."), ("hex", "0x10"), ("space", " 1"), ("ok", "1700000000"), ("okfrac", "1700000000.5"))},
    "tar-xpathdotdot": (pax_block([("path", f"{run}/cases/../a.json")]) + file_block(f"{run}/b.json", b"{}"),
                        [(f"{run}/a.json", b"{}")]),
    "tar-xpathabs": (pax_block([("path", f"/{run}/a.json")]) + file_block(f"{run}/b.json", b"{}"), [(f"{run}/a.json", b"{}")]),
    "tar-padded": (b"\0" * (64 << 20), []),  # 64 MiB of zeros after the end marker: bounded, refused
    # review 31r2 B06-B10: numbers and names bench never writes, which readers read apart
    "tar-b256mtime": (None, [(f"{run}/b.json", b"{}")]),
    "tar-devgarbage": (None, [(f"{run}/b.json", b"{}")]),
    "tar-prefixslash": (None, [(f"{run}/b.json", b"{}")]),
    "tar-dirdslash": (file_block(f"{run}/results//", b"", type=tarfile.DIRTYPE), []),
    "tar-docdir": (file_block(f"{run}/results/gemm.jsonl/", b"", type=tarfile.DIRTYPE), []),
    "tar-namec1": (file_block(f"{run}/a\u009b31m\u202eb", b"{}"), [(f"{run}/a\u009b31m\u202eb", b"{}")]),
    "tar-nametag": (file_block(f"{run}/a\U000e0041\ufe0fb", b"{}"), [(f"{run}/a\U000e0041\ufe0fb", b"{}")]),
    "tar-xpathc1": (pax_block([("path", f"{run}/x\u0085y")]) + file_block(f"{run}/b.json", b"{}"), [(f"{run}/x\u0085y", b"{}")]),
    # review r31z row 40: a directory entry with a size whose "data" is a whole member (a header and its data)
    "tar-dirdata": (None, [(f"{run}/hidden.json", b"{}")]),
    "tar-dirdata-pax": (None, [(f"{run}/hidden.json", b"{}")]),
    "tar-xpathdslash": (pax_block([("path", f"{run}//a.json")]) + file_block(f"{run}/b.json", b"{}"), [(f"{run}/a.json", b"{}")]),
    # review r31s B1: a pax path ending in '/' on a regular file (libarchive reads a directory, Python a file)
    "tar-xpathslash": (pax_block([("path", f"{run}/extra/")]) + file_block(f"{run}/b.json", b""), []),
    "tar-xpathslash-data": (pax_block([("path", f"{run}/extra/")]) + file_block(f"{run}/b.json", b"{}"), []),
    "tar-xpathslash-doc": (pax_block([("path", f"{run}/summary.json/")]) + file_block(f"{run}/b.json", b"{}"),
                           [(f"{run}/summary.json", b"{}")]),
    # review r31s B2: one name in NFC and NFD (U+00E9; e and U+0301): one file where names are normalised
    "tar-nfd": (file_block(f"{run}/env/caf\u00e9", b"{}") + file_block(f"{run}/env/cafe\u0301", b"{}"),
                [(f"{run}/env/caf\u00e9", b"{}"), (f"{run}/env/cafe\u0301", b"{}")]),
    # review r31z B2: names equal once ASCII letters' case is folded: one file on macOS and Windows
    **{f"tar-case{k}": (b"".join(file_block(f"{run}/{n}", d or b"", **kw) for n, d, kw in v),
                        [(f"{run}/{n}", d) for n, d, kw in v if d is not None])
       for k, v in (("", [("logs/A.log", b"AA\n", {}), ("logs/a.log", b"aa\n", {})]),
                    ("-dir", [("Logs/x", b"x\n", {}), ("logs/y", b"y\n", {})]),
                    ("-dirent", [("Logs/", None, {"type": tarfile.DIRTYPE, "mode": 0o755}),
                                 ("logs/", None, {"type": tarfile.DIRTYPE, "mode": 0o755})]),
                    ("-top", [("README", b"R\n", {}), ("readme", b"r\n", {})]),
                    ("-ok", [("logs/a.log", b"a\n", {}), ("logs/b.log", b"b\n", {})]))},
    "tar-nfc-alone": (file_block(f"{run}/env/caf\u00e9", b"{}"), [(f"{run}/env/caf\u00e9", b"{}")]),
    "tar-nfd-alone": (file_block(f"{run}/env/cafe\u0301", b"{}"), [(f"{run}/env/cafe\u0301", b"{}")]),
    "tar-nfd-pax": (pax_block([("path", f"{run}/x\u0308.json")]) + file_block(f"{run}/b.json", b"{}"),
                    [(f"{run}/x\u0308.json", b"{}")]),
}
# a header patched after it is written: offset -> bytes (the checksum is computed again)
tar_patch = {
    "tar-base256": {124: b"\x80" + (2).to_bytes(11, "big")},  # the size field as GNU's base-256 number
    "tar-b256mtime": {136: b"\x80" + b"\0" * 7 + (1700000000).to_bytes(4, "big")},
    "tar-devgarbage": {329: b"1234567\0", 337: b"zzzzzzz\0"},
    "tar-prefixslash": {0: b"b.json".ljust(100, b"\0"), 345: f"{run}/".encode().ljust(155, b"\0")},
}
if variant in ("tar-dirdata", "tar-dirdata-pax"):
    hidden = file_block(f"{run}/hidden.json", b"{}")  # 1024 bytes: a header and one block of data
    h = bytearray(file_block(f"{run}/d/", b"", type=tarfile.DIRTYPE)[:512])
    h[124:136] = b"%011o\0" % (0 if variant == "tar-dirdata-pax" else len(hidden))
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    pax = pax_block([("size", str(len(hidden)))]) if variant == "tar-dirdata-pax" else b""
    tar_raw[variant] = (pax + bytes(h) + hidden, tar_raw[variant][1])
# review r31v row 35: header fields bench never writes (bench: uid 0, gid 0, no names, no link name, 0644/0755)
tar_patch.update({
    "tar-uid": {108: b"001750 \0"},
    "tar-gid": {116: b"001750 \0"},
    "tar-uname": {265: b"evil\x1b[31m"},
    "tar-gname": {297: b"staff"},
    "tar-linkname": {157: b"/etc/passwd"},
    "tar-mode000": {100: b"000000 \0"},
    "tar-modeifreg": {100: b"100644 \0"},
    "tar-mode600": {100: b"000600 \0"},
})
for _v in ("tar-uid", "tar-gid", "tar-uname", "tar-gname", "tar-linkname", "tar-mode000", "tar-modeifreg", "tar-mode600"):
    tar_raw[_v] = (None, [(f"{run}/b.json", b"{}")])
if variant in ("tar-dirnoslash", "tar-dirmode", "tar-dirok"):
    h = bytearray(file_block(f"{run}/d/", b"", type=tarfile.DIRTYPE, mode=0o700 if variant == "tar-dirmode" else 0o755)[:512])
    if variant == "tar-dirnoslash":
        h[0:100] = f"{run}/d".encode().ljust(100, b"\0")
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    tar_raw[variant] = (bytes(h), [])
if variant in tar_raw:
    blocks, more = tar_raw[variant]
    if blocks is None:  # a patched header (tar_patch)
        h = bytearray(file_block(f"{run}/b.json", b"{}")[:512])
        for o, b in tar_patch[variant].items():
            h[o:o + len(b)] = b
        h[148:156] = b" " * 8
        h[148:156] = b"%06o\0 " % sum(h)
        blocks = bytes(h) + b"{}" + b"\0" * 510
    members += more
    end = raw.rstrip(b"\0")
    end = end + b"\0" * ((512 - len(end) % 512) % 512)
    raw = end + blocks + b"\0" * 1024
if variant in ("escape", "escape-utf8"):  # status.json written first above as "{}": write the archive again with the real one
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for n, d in members:
            add(tf, n, d)
    raw = buf.getvalue()
if variant == "afterend":
    extra = tarfile.TarInfo(f"{run}/late.json")
    extra.size = 2
    raw = raw + extra.tobuf(format=tarfile.PAX_FORMAT) + b"{}" + b"\0" * 510
if variant == "huge":
    # status.json, then a header that claims 2 TiB followed by one block: refused before any read of the data
    st = tarfile.TarInfo(f"{run}/status.json")
    st.size = 2
    ti = tarfile.TarInfo(f"{run}/huge")
    ti.size = 2 << 40
    raw = st.tobuf(format=tarfile.PAX_FORMAT) + b"{}" + b"\0" * 510 + ti.tobuf(format=tarfile.PAX_FORMAT) + b"\0" * 512
gz = raw if variant == "plain" else gzip.compress(raw, mtime=0)
if variant == "bigresults":
    # written through gzip level 1 in pieces: 1 GiB never sits in memory here
    line = b'{"suite":"gemm","case":"x","status":"ok","value":1.0,"samples":[1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0]}\n'
    n = (1 << 30) // len(line)
    st = tarfile.TarInfo(f"{run}/status.json")
    st.size = 2
    ti = tarfile.TarInfo(f"{run}/results/gemm.jsonl")
    ti.size = n * len(line)
    out = io.BytesIO()
    z = gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0)
    z.write(st.tobuf(format=tarfile.PAX_FORMAT) + b"{}" + b"\0" * 510 + ti.tobuf(format=tarfile.PAX_FORMAT))
    h = hashlib.sha256()
    block = line * 8192
    left = n
    while left:
        k = min(left, 8192)
        piece = block if k == 8192 else line * k
        z.write(piece)
        h.update(piece)
        left -= k
    z.write(b"\0" * ((512 - ti.size % 512) % 512) + b"\0" * 1024)
    z.close()
    gz = out.getvalue()
    members = [(f"{run}/status.json", b"{}")]
    big_digest = h.hexdigest()
if variant == "badcrc":
    gz = gz[:-8] + bytes([gz[-8] ^ 0xFF]) + gz[-7:]
if variant == "badsize":
    gz = gz[:-4] + bytes([gz[-4] ^ 0x01]) + gz[-3:]
if variant == "trailing":
    gz = gz + b"trailing garbage"
if variant == "truncated":
    gz = gz[: len(gz) // 2]
if variant == "corrupt":
    gz = gz[:10] + bytes(b ^ 0x5A for b in gz[10:40]) + gz[40:]
# review r31v row 37: gzip header fields bench never writes; two members
if variant.startswith("gz-"):
    import struct
    import zlib
    c = zlib.compressobj(1, zlib.DEFLATED, -15)
    body = c.compress(raw) + c.flush()
    trailer = struct.pack("<II", zlib.crc32(raw), len(raw) & 0xffffffff)
    flg, mtime, opt = 0, 0, b""
    if variant == "gz-fextra":
        flg, opt = 4, struct.pack("<H", 4) + b"AB\0\0"
    elif variant == "gz-fname":
        flg, opt = 8, b"evil\x1b[31m.tar\0"
    elif variant == "gz-fcomment":
        flg, opt = 16, b"ring\x07\0"
    elif variant == "gz-mtime":
        mtime = 1700000000
    elif variant == "gz-fhcrc":
        flg = 2
    head = b"\x1f\x8b\x08" + bytes([flg]) + struct.pack("<I", mtime) + b"\x04\x03" + opt
    if variant == "gz-fhcrc":
        head += struct.pack("<H", zlib.crc32(head) & 0xffff)
    gz = head + body + trailer
    if variant == "gz-multi":  # the tar split across two members: every reader joins them
        half = len(raw) // 1024 * 512
        gz = gzip.compress(raw[:half], mtime=0) + gzip.compress(raw[half:], mtime=0)
    if variant == "gz-ok":  # the same hand-made stream with bench's own header fields: accepted
        gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\x03" + body + trailer
open(path, "wb").write(gz)
subjects = [{"name": run + ".bench.tar.gz", "digest": {"sha256": hashlib.sha256(gz).hexdigest()}}]
subjects += [{"name": n, "digest": {"sha256": hashlib.sha256(d).hexdigest()}} for n, d in members]
if variant == "bigresults":
    subjects.append({"name": f"{run}/results/gemm.jsonl", "digest": {"sha256": big_digest}})
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
