#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Extend a results repository's history with fabricated nightlies (docs/results/nightly-scale.sh --fast-history).

    python3 nightly-scale-extend.py REPO ORDER HAVE UPTO

REPO holds the first HAVE nightlies of ORDER (one run directory per line, in the order they arrive), each really
published by `bench publish` (a real signed bundle, its real summary, samples, verdicts and run page). This script
adds nightlies HAVE+1 .. UPTO of ORDER to REPO WITHOUT their bundles, writing only what a later publish reads of a
run it does not publish itself:

  real:       the name, date and machine of each added nightly (from ORDER, the names nightly-scale.sh gives its
              clones); the shape and size of each summary and samples file (copied from a real one of the same
              machine: 100 cases, 20 samples each, same keys).
  fabricated: the values and samples (those of the real run copied, not measured); the summary's sha256 (the
              digest of the run's name: no bundle exists); the verdict of each nightly date (the first real verdict
              file, renamed to that date, machine and series); the run page (an empty file: publish only checks that
              a page exists). No bundle, envelope or commit is made: the added nightlies are in the work tree only,
              so `.git` and runs/ do not grow with them, and the repository's growth per nightly must be read from
              a fully real history (nightly-scale.sh without --fast-history).

What a publish does with the result is what it does with a real history of UPTO nightlies: it reads the summaries'
index (summaries/index.jsonl; the first publish after this script makes the lines of the added summaries, once),
parses the summaries of its dashboard window and the stored verdicts, writes the archive pages of the quarters
before the window once, and renders the index and the dashboard.
"""
import datetime
import hashlib
import json
import os
import sys

MACHINES = ["NVIDIA H200", "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X", "NVIDIA B200"]  # as nightly-scale.sh


def main():
    repo, order, have, upto = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    runs = [l.strip() for l in open(order) if l.strip()]
    if upto > len(runs):
        sys.exit("nightly-scale-extend.py: ORDER names %d nightlies, fewer than %d" % (len(runs), upto))
    sd = os.path.join(repo, "summaries")
    real = {}  # machine index -> [(summary, samples)] of the real nightlies
    by_run = {}
    for f in sorted(os.listdir(sd)):
        if len(f) == 69 and f.endswith(".json"):
            j = json.load(open(os.path.join(sd, f)))
            by_run[j["run"]] = f[:64]
    for k in range(have):
        name = os.path.basename(runs[k])
        sha = by_run.get(name)
        if sha is None:
            sys.exit("nightly-scale-extend.py: %s is not published in %s" % (name, repo))
        real.setdefault(k % len(MACHINES), []).append(
            (json.load(open("%s/%s.json" % (sd, sha))), json.load(open("%s/%s.samples.json" % (sd, sha)))))
    vd = os.path.join(repo, "verdicts")
    vt = json.load(open(os.path.join(vd, sorted(os.listdir(vd))[0])))
    pages = os.path.join(repo, "site", "runs")
    os.makedirs(pages, exist_ok=True)
    for k in range(have, upto):
        name = os.path.basename(runs[k])
        m = k % len(MACHINES)
        tmpl, samples = real[m][k // len(MACHINES) % len(real[m])]
        j = json.loads(json.dumps(tmpl))
        day = name.split("-")[2][:8]
        date = datetime.date(int(day[:4]), int(day[4:6]), int(day[6:8]))
        j["run"] = name
        j["path"] = "runs/%s/%s/%s.bench.tar.gz" % (j["plan"]["name"], j["plan"]["channel"], name)
        j["env"]["gpus"] = [{"name": MACHINES[m]}]
        j["status"]["started"] = date.isoformat() + j["status"]["started"][10:]
        sha = hashlib.sha256(name.encode()).hexdigest()
        j["sha256"] = sha
        json.dump(j, open("%s/%s.json" % (sd, sha), "w"), sort_keys=True, separators=(",", ":"))
        json.dump(samples, open("%s/%s.samples.json" % (sd, sha), "w"), sort_keys=True, separators=(",", ":"))
        open(os.path.join(pages, name + ".html"), "w").close()
        series = "%s (%s)" % (j["plan"]["channel"], j["plan"]["name"])
        v = dict(vt)
        v["date"], v["previous"] = date.isoformat(), (date - datetime.timedelta(days=1)).isoformat()
        v["machine"], v["series"] = MACHINES[m], series
        key = "%s\x1f%s\x1f%s" % (MACHINES[m], series, date.isoformat())
        json.dump(v, open("%s/%s.json" % (vd, hashlib.sha256(key.encode()).hexdigest()), "w"), sort_keys=True,
                  separators=(",", ":"))


if __name__ == "__main__":
    main()
