#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# contrib/spack/package.py without Spack: loaded against a stub of spack.package that records the directives; the
# variants +cuda, +rocm, +mpi and the dependencies (the libraries bench links, the runners' toolkits under their
# variants, PyTorch) are declared, and the make variables of each variant point the Makefile at the right toolkit.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/stub/spack"
: >"$T/stub/spack/__init__.py"
cat >"$T/stub/spack/package.py" <<'PY'
DIRECTIVES = []
def _rec(kind):
    def f(*a, **k):
        DIRECTIVES.append((kind, a, k))
    return f
variant, depends_on, conflicts, license, version = (_rec(n) for n in ("variant", "depends_on", "conflicts", "license", "version"))
class MakefilePackage:
    pass
def make(*a):
    MAKE_CALLS.append(a)
MAKE_CALLS = []
def join_path(*a):
    return "/".join(str(x) for x in a)
__all__ = ["variant", "depends_on", "conflicts", "license", "version", "MakefilePackage", "make", "join_path",
           "MAKE_CALLS", "DIRECTIVES"]
PY
if PYTHONPATH=$T/stub python3 - contrib/spack/package.py >"$T/check.out" 2>&1 <<'PY'; then
import importlib.util, sys, types
import spack.package as sp
spec = importlib.util.spec_from_file_location("bench_pkg", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
variants = {a[0] for k, a, _ in sp.DIRECTIVES if k == "variant"}
assert {"cuda", "rocm", "mpi"} <= variants, variants
deps = {(a[0], kw.get("when")) for k, a, kw in sp.DIRECTIVES if k == "depends_on"}
names = {d for d, _ in deps}
for lib in ("libyaml", "libgit2", "libarchive", "openssl", "jansson", "curl", "zlib-api", "blas", "py-torch"):
    assert lib in names, lib
for d, w in (("cuda", "+cuda"), ("nccl", "+cuda"), ("hip", "+rocm"), ("hipblaslt", "+rocm"), ("rccl", "+rocm"), ("mpi", "+mpi")):
    assert (d, w) in deps, (d, w)
assert ("Apache-2.0",) in [a for k, a, _ in sp.DIRECTIVES if k == "license"]

class P:  # a prefix: attribute access builds paths
    def __init__(s, p): s.p = p
    def __getattr__(s, n): return P(s.p + "/" + n)
    def __str__(s): return s.p
class Dep:
    def __init__(s, n):
        s.prefix = P("/opt/" + n); s.mpicc = "/opt/mpi/bin/mpicc"
        s.libs = types.SimpleNamespace(ld_flags="-L/opt/blas/lib -lopenblas")
class Spec:
    def __init__(s, on): s.on = on
    def satisfies(s, v): return v.lstrip("+") in s.on
    def __getitem__(s, n): return Dep(n)
for on, want, unwanted in ((set(), ["NVCC=", "BENCH_HIP=0", "MPICC="], ["BENCH_HIP=1"]),
                           ({"cuda", "mpi"}, ["NVCC=/opt/cuda/bin/nvcc", "NCCL_HOME=/opt/nccl", "MPICC=/opt/mpi/bin/mpicc"], ["NVCC="]),
                           ({"rocm"}, ["BENCH_HIP=1", "HIPCC=/opt/hip/bin/hipcc", "NVCC="], [])):
    pkg = m.Bench(); pkg.spec = Spec(on); pkg.prefix = "/p"
    sp.MAKE_CALLS.clear(); pkg.build(pkg.spec, pkg.prefix); pkg.install(pkg.spec, pkg.prefix)
    b, i = sp.MAKE_CALLS
    assert b[:2] == ("bench", "runners") and i[0] == "install" and "PREFIX=/p" in i, sp.MAKE_CALLS
    for w in want: assert w in b, (on, w, b)
    for u in unwanted: assert u not in b, (on, u, b)
print("variants", sorted(variants), "and", len(names), "dependencies")
PY
	ok "the recipe: $(cat "$T/check.out")"
else
	not_ok "contrib/spack/package.py"; show "$T/check.out"
fi
finish
