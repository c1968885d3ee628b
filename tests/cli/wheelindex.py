#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes two PEP 503 indexes of synthetic wheels shaped like PyTorch's, for the lock and image tests.

  python3 tests/cli/wheelindex.py ROOT

ROOT/whl/simple/          releases: torch 2.10.0 and 2.11.0, each as +cu130, +rocm7.1 and +cpu builds
ROOT/whl/nightly/simple/  nightlies: torch 2.12.0.dev20261128, .dev20261129 and .dev20261130 (the same three
                          builds), pytorch-triton and pytorch-triton-rocm versioned by a commit hash, not a date;
                          every wheel has its PEP 658 .metadata file beside it (data-dist-info-metadata)

Every torch build has cp311, cp312 and cp314 wheels for manylinux_2_28 x86_64 and aarch64, listed by file name (the
aarch64 cp314 one last), hrefs with '+' written %2B. torch requires, with markers:
  chain-a>=1.0                                      (chain-a -> chain-b -> chain-c: three deep)
  arm-only; platform_machine == "aarch64"           (never on an x86_64 target)
  old-py; python_version < "3.9"                    (never)
  opt-extra; extra == "opt"                         (never: no extra is asked for)
  py312-only; python_version >= "3.12"              (a cp312 target only)
  nvidia-stub==13.0.1; platform_system == "Linux"   (+cu130 builds)
  pytorch-triton==3.5.0+gitabc123; ...              (nightly +cu130 and +cpu builds)
  pytorch-triton-rocm==3.5.0+gitdef456; ...         (nightly +rocm7.1 builds)
Every package is a real, installable wheel (METADATA, WHEEL, RECORD) whose module (the project name with '-' as
'_') holds __version__. Deterministic: the same bytes on every run. Imported, wheel() and page() make other indexes (tests/cli/t0900-lock.sh).
"""
import hashlib
import os
import sys
import zipfile

PYS = ("cp311", "cp312", "cp314")
ARCHES = ("x86_64", "aarch64")
ACCELS = ("cu130", "rocm7.1", "cpu")


def wheel(index, project, version, tags, requires=(), extras=(), pep658=False):
    """Writes one wheel of project==version with tag (python, abi, platform) into index/project/."""
    mod = project.replace("-", "_")
    py, abi, plat = tags
    d = os.path.join(index, project)
    os.makedirs(d, exist_ok=True)
    name = f"{mod}-{version}-{py}-{abi}-{plat}.whl"
    info = f"{mod}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n"
    meta += "".join(f"Provides-Extra: {e}\n" for e in extras)
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    pure = plat == "any"
    files = {f"{mod}/__init__.py": f"__version__ = {version!r}\nTAG = {'-'.join(tags)!r}\n",
             f"{info}/METADATA": meta,
             f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: bench-test\nRoot-Is-Purelib: {str(pure).lower()}\n"
                              f"Tag: {py}-{abi}-{plat}\n"}
    rec = "".join(f"{p},sha256={hashlib.sha256(c.encode()).hexdigest()},{len(c)}\n" for p, c in files.items())
    files[f"{info}/RECORD"] = rec + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(d, name), "w") as z:
        for p, c in sorted(files.items()):
            z.writestr(zipfile.ZipInfo(p, (2026, 11, 29, 0, 0, 0)), c)
    if pep658:
        with open(os.path.join(d, name + ".metadata"), "w") as f:
            f.write(meta)


def torch(index, version, accel, nightly):
    req = ['chain-a>=1.0', 'arm-only; platform_machine == "aarch64"', 'old-py; python_version < "3.9"',
           'opt-extra; extra == "opt"', 'py312-only; python_version >= "3.12"']
    if accel == "cu130":
        req.append('nvidia-stub==13.0.1; platform_system == "Linux"')
    if nightly and accel == "rocm7.1":
        req.append('pytorch-triton-rocm==3.5.0+gitdef456; platform_system == "Linux"')
    elif nightly:
        req.append('pytorch-triton==3.5.0+gitabc123; platform_system == "Linux" and platform_machine == "x86_64"')
    for py in PYS:
        for arch in ARCHES:
            wheel(index, "torch", f"{version}+{accel}", (py, py, f"manylinux_2_28_{arch}"), req, ("opt",), nightly)


def common(index, nightly):
    pure = ("py3", "none", "any")
    for v in ("1.0", "1.1"):
        wheel(index, "chain-a", v, pure, ["chain-b>=2"], pep658=nightly)
    wheel(index, "chain-b", "2.0", pure, ["chain-c"], pep658=nightly)
    for v in ("3.0", "3.1"):
        wheel(index, "chain-c", v, pure, pep658=nightly)
    for p in ("arm-only", "old-py", "opt-extra", "py312-only"):
        wheel(index, p, "1.0", pure, pep658=nightly)
    wheel(index, "nvidia-stub", "13.0.1", ("py3", "none", "manylinux_2_17_x86_64"), pep658=nightly)


def page(index):
    for project in sorted(os.listdir(index)):
        d = os.path.join(index, project)
        if not os.path.isdir(d):
            continue
        links = []
        for f in sorted(os.listdir(d)):
            if not f.endswith(".whl"):
                continue
            sha = hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
            attr = ""
            if os.path.exists(os.path.join(d, f + ".metadata")):
                m = hashlib.sha256(open(os.path.join(d, f + ".metadata"), "rb").read()).hexdigest()
                attr = f' data-dist-info-metadata="sha256={m}" data-core-metadata="sha256={m}"'
            links.append(f'<a href="{f.replace("+", "%2B")}#sha256={sha}"{attr}>{f}</a><br/>\n')
        with open(os.path.join(d, "index.html"), "w") as out:
            out.write(f"<!DOCTYPE html>\n<html><body><h1>Links for {project}</h1>\n{''.join(links)}</body></html>\n")
    with open(os.path.join(index, "index.html"), "w") as out:
        out.write("<!DOCTYPE html>\n<html><body>\n" +
                  "".join(f'<a href="{p}/">{p}</a><br/>\n' for p in sorted(os.listdir(index)) if os.path.isdir(os.path.join(index, p))) +
                  "</body></html>\n")


def main(root):
    stable = os.path.join(root, "whl", "simple")
    nightly = os.path.join(root, "whl", "nightly", "simple")
    for v in ("2.10.0", "2.11.0"):
        for a in ACCELS:
            torch(stable, v, a, False)
    common(stable, False)
    for day in ("20261128", "20261129", "20261130"):
        for a in ACCELS:
            torch(nightly, f"2.12.0.dev{day}", a, True)
    common(nightly, True)
    for v in ("3.4.0+gitold111", "3.5.0+gitabc123"):
        for py in PYS:
            for arch in ARCHES:
                wheel(nightly, "pytorch-triton", v, (py, py, f"manylinux_2_28_{arch}"), pep658=True)
                wheel(nightly, "pytorch-triton-rocm", v.replace("abc123", "def456"), (py, py, f"manylinux_2_28_{arch}"),
                      pep658=True)
    page(stable)
    page(nightly)


if __name__ == "__main__":
    main(sys.argv[1])
