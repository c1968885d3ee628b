#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a deterministic stand-in lock for a manifest (fake but well-formed pins), for recipe golden tests.
  python3 tests/recipe/mklock.py MANIFEST LOCK"""
import hashlib
import json
import sys

import re

manifest, out = sys.argv[1], sys.argv[2]
text = open(manifest, "rb").read()
comps = {}
for m in re.finditer(rb"\{name: ([^,]+), (pip|git|apt): ([^,}]+)", text):
    name, kind, val = (x.decode().strip().strip('"') for x in m.groups())
    h = hashlib.sha256(name.encode()).hexdigest()
    if kind == "git":
        comps[name] = {"source": "git", "git": val, "ref": "x", "commit": h[:40]}
    elif kind == "pip":
        own = {"name": name, "version": "1.0", "url": f"https://example.invalid/{name}-1.0-py3-none-any.whl", "sha256": h}
        # every closure holds one shared dependency: the recipe installs it once
        dep = {"name": "typing-extensions", "version": "4.15.0", "sha256": hashlib.sha256(b"te").hexdigest(),
               "url": "https://example.invalid/typing_extensions-4.15.0-py3-none-any.whl"}
        comps[name] = {"source": "pip", "version": "1.0", "url": own["url"], "sha256": h,
                       "index": "https://example.invalid/simple", "packages": sorted([own, dep], key=lambda p: p["name"])}
    else:
        comps[name] = {"source": "apt", "package": val, "version": "1.0-1"}
lock = {"schema": "bench.lock/v1", "manifest_sha256": hashlib.sha256(text).hexdigest(), "bench_version": "0.1.0",
        "source_date_epoch": 1764460800, "components": comps,
        "base": {"ref": "x", "digest": "sha256:" + hashlib.sha256(b"base").hexdigest()}}
open(out, "w").write(json.dumps(lock, indent=2, sort_keys=True) + "\n")
