#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What bench prints for a person, recomputed from the records: the tests' own reading of units_format_scaled,
of the n/cv columns and of the nccl-tests tables.

  terminal_check.py summary OUTPUT RESULTS.jsonl...   every ok record has its line: value scaled, n, cv
  terminal_check.py coll OUTPUT RESULTS.jsonl...      every collectives record is in its nccl-tests table, with
                                                      the median sample's figures; every busbw-dip finding
                                                      printed agrees with the table
  terminal_check.py scaled VALUE UNIT                 prints the scaled value
Exits 1 with the first line that is wrong or missing."""
import json
import math
import re
import sys

PREFIX = {-3: "n", -2: "u", -1: "m", 0: "", 1: "k", 2: "M", 3: "G", 4: "T", 5: "P"}
BASES = [("FLOP/s", 0, 5), ("B/s", 0, 5), ("s", -3, 0)]


def scaled(v, unit):
    if not math.isfinite(v):
        return "-"
    for base, lo, hi in BASES:
        if unit.endswith(base):
            pre = unit[: len(unit) - len(base)]
            p = [k for k, s in PREFIX.items() if s == pre and lo <= k <= hi]
            if p:
                p = p[0]
                break
    else:
        return "%.4g %s" % (v, unit)
    if v == 0:
        return "0 " + unit
    chosen = None
    for e in range(lo, hi + 1):
        r = float("%.3g" % (v * 1000.0 ** (p - e)))
        if 1 <= abs(r) < 1000:
            chosen = e
            break
    if chosen is None:
        chosen = lo if abs(v * 1000.0 ** (p - lo)) < 1 else hi
    s = v * 1000.0 ** (p - chosen)
    r = float("%.3g" % s)
    d = max(0, 2 - math.floor(math.log10(abs(r)))) if r else 0
    return "%.*f %s%s" % (d, s, PREFIX[chosen], base)


def records(paths):
    out = {}
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            out[(r["suite"], r["case"])] = r  # the last record of a case wins
    return list(out.values())


def fail(msg, text):
    print("terminal_check: " + msg, file=sys.stderr)
    print("\n".join("#   " + l for l in text.splitlines()[:60]), file=sys.stderr)
    sys.exit(1)


def check_summary(text, recs):
    n = 0
    for r in recs:
        if r["status"] != "ok":
            continue
        want = r"^%s +%s +ok +%s +%d +%.1f%%" % (re.escape(r["suite"]), re.escape(r["case"]),
                                                 re.escape(scaled(r["value"], r["unit"])), r["stats"]["n"],
                                                 100 * r["stats"]["cv"])
        if not re.search(want, text, re.M):
            fail("no line matching %r" % want, text)
        n += 1
    if not n:
        fail("no ok record to check", text)
    print(n)


def check_coll(text, recs):
    coll = [r for r in recs if r["suite"] == "collectives"]
    if not coll:
        fail("no collectives record", text)
    if not re.search(r"^collectives in nccl-tests' layout, of the median sample", text, re.M):
        fail("the tables do not name their statistic (the median sample)", text)
    blocks = {}
    where = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^# (\w+), (\d+) ranks? on (\d+) nodes?$", line)
        if m:
            cur = blocks.setdefault((m.group(1), int(m.group(2)), int(m.group(3))), {})
            continue
        if cur is None or line.startswith("#"):
            continue
        f = line.split()
        if len(f) == 11 and f[0].isdigit():
            cur[(int(f[0]), f[2])] = f
        elif not line.strip():
            cur = None
    for r in coll:
        p, x = r["params"], r["extra"]
        key = (p["op"], p["ranks"], p["nodes"])
        if key not in blocks:
            fail("no table for %s" % (key,), text)
        row = blocks[key].get((x["bytes"], p["dtype"]))
        if not row:
            fail("no row for %s %d %s" % (key, x["bytes"], p["dtype"]), text)
        if row[1] != str(x["count"]):
            fail("count of %s: %s, record %s" % (r["case"], row[1], x["count"]), text)
        at = 7 if p["placement"] == "in-place" else 3
        # every figure of the median sample, the headline's statistic (not nccl-tests' mean time_us)
        busbw = r.get("value") or 0
        algbw = busbw / x.get("bus_factor", 1)
        want = ["%.2f" % (x["bytes"] / (algbw * 1e3) if algbw else 0), "%.2f" % algbw, "%.2f" % busbw,
                str(x["wrong"]) if "wrong" in x else "N/A"]
        where[r["case"]] = float(row[at + 2]) if r["status"] == "ok" else None
        if r["status"] != "ok":  # no figure from a case that did not measure; its wrong count stays
            want = ["-"] * 3 + [str(x["wrong"]) if "wrong" in x else "-"]
        if row[at:at + 4] != want:
            fail("%s: %s, the record says %s" % (r["case"], row[at:at + 4], want), text)
    # a busbw-dip finding printed beside the tables agrees with them: the table's busbw falls too
    for m in re.finditer(r"busbw-dip +(\S+): bus bandwidth falls \d+% from (\S+) ", text):
        big, small = where.get(m.group(1)), where.get(m.group(2))
        if big is None or small is None or not big < small:
            fail("finding %r disagrees with the table (busbw %s after %s)" % (m.group(0), big, small), text)
    # rows by size within each table
    for key, rows in blocks.items():
        order = [k for k in rows]
        if order != sorted(order):
            fail("rows of %s not by size" % (key,), text)
    print(len(coll))


if __name__ == "__main__":
    if sys.argv[1] == "scaled":
        print(scaled(float(sys.argv[2]), sys.argv[3]))
        sys.exit(0)
    text = open(sys.argv[2]).read()
    recs = records(sys.argv[3:])
    {"summary": check_summary, "coll": check_coll}[sys.argv[1]](text, recs)
