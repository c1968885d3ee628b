#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pngcheck.py PNG: decode an 8-bit RGB/RGBA PNG (as Chromium writes screenshots) with the standard library and
print the share of pixels that are not the background colour (the top-left pixel). Exit 1 when it is under
0.5%: a blank page."""
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
# whole rows at a time as integers where the filter allows (byte-wise sums without carries, SWAR): Chromium filters
# most rows "Up", and a byte at a time in Python was 2 s of CPU for a 1400x900 screenshot
LO, HI = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")


def add_bytes(x, y):  # byte-wise (x + y) mod 256 of two rows as integers
    return ((x & LO) + (y & LO)) ^ ((x ^ y) & HI)


prev, rows, i = bytes(stride), [], 0
for _ in range(h):
    f, line = raw[i], raw[i + 1:i + 1 + stride]
    i += 1 + stride
    if f == 2:
        line = add_bytes(int.from_bytes(line, "big"), int.from_bytes(prev, "big")).to_bytes(stride, "big")
    elif f in (1, 3, 4):
        line = bytearray(line)
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        line = bytes(line)
    rows.append(line)
    prev = line
# the pixels that differ from the background, a row at a time: a pixel's bytes XOR the background's, folded into
# its first byte, which is then non-zero exactly where the pixel differs
bg = rows[0][:3]
bgrow = int.from_bytes((bg + b"\0")[:bpp] * w, "big")
rgb = int.from_bytes((b"\xff" * 3 + b"\0")[:bpp] * w, "big")  # (an RGBA pixel's alpha is not compared)
first = int.from_bytes((b"\xff" + b"\0" * (bpp - 1)) * w, "big")
ink = 0
for r in rows:
    d = (int.from_bytes(r, "big") ^ bgrow) & rgb
    d = (d | (d << 8) | (d << 16)) & first
    ink += bin((((d & LO) + LO) | d) & HI).count("1")
share = ink / (w * h)
print("%dx%d, %.2f%% of pixels are not the background" % (w, h, 100 * share))
sys.exit(0 if share >= 0.005 else 1)
