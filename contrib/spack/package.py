# SPDX-License-Identifier: Apache-2.0
# contrib/spack/package.py — a Spack recipe for bench. Put it into a repository of your own:
#   spack repo create ~/spack-bench && mkdir -p ~/spack-bench/packages/bench
#   cp contrib/spack/package.py ~/spack-bench/packages/bench/ && spack repo add ~/spack-bench
#   spack install bench+cuda+mpi
# It builds with the Makefile (`make bench runners`, then `make install PREFIX=<prefix>`, relocatable: runners in
# libexec/bench, data in share/bench). +cuda builds the cuBLASLt/NCCL runners, +rocm the hipBLASLt/RCCL ones,
# +mpi bench-coll's MPI backend; without them the runners are the CPU ones (CBLAS, memory bandwidth).
from spack.package import *


class Bench(MakefilePackage):
    """Benchmarks ML software stacks (GEMM, memory bandwidth, collectives, attention, SSM, training) from a
    YAML manifest and packs the results into signed, reproducible bundles."""

    homepage = "https://example.invalid/bench"
    # a release tarball of `make dist`; add `version("X.Y.Z", sha256="...")` lines for each release
    url = "https://example.invalid/bench/releases/bench-0.1.0.tar.gz"

    license("Apache-2.0")

    variant("cuda", default=False, description="GPU runners on CUDA: cuBLASLt GEMM, NCCL collectives, NVML telemetry")
    variant("rocm", default=False, description="GPU runners on ROCm: hipBLASLt GEMM, RCCL collectives")
    variant("mpi", default=True, description="bench-coll's MPI backend (one rank per GPU under mpirun)")
    conflicts("+cuda", when="+rocm", msg="one GPU toolkit per build: +cuda or +rocm")

    depends_on("c", type="build")
    depends_on("cxx", type="build", when="+cuda")
    depends_on("cxx", type="build", when="+rocm")
    depends_on("gmake", type="build")
    depends_on("pkgconfig", type="build")

    # bench itself (cli/): what it links, found with pkg-config
    depends_on("libyaml")
    depends_on("libgit2")
    depends_on("libarchive")
    depends_on("openssl")
    depends_on("jansson")
    depends_on("curl")
    depends_on("zlib-api")
    depends_on("cmocka", type="test")

    # the runners
    depends_on("blas")
    depends_on("mpi", when="+mpi")
    depends_on("cuda", when="+cuda")
    depends_on("nccl", when="+cuda")
    depends_on("hip", when="+rocm")
    depends_on("hipblaslt", when="+rocm")
    depends_on("rccl", when="+rocm")
    # the Python runners (attention, SSM, training) and bench-nightly
    depends_on("python@3.9:", type="run")
    depends_on("py-torch", type="run")

    def _make_vars(self):
        spec = self.spec
        v = ["PREFIX={0}".format(self.prefix), "BLAS_LIBS={0}".format(spec["blas"].libs.ld_flags), "HAVE_CBLAS=1"]
        if spec.satisfies("+cuda"):
            v += ["NVCC={0}".format(spec["cuda"].prefix.bin.nvcc), "CUDA_HOME={0}".format(spec["cuda"].prefix),
                  "NCCL_HOME={0}".format(spec["nccl"].prefix), "BENCH_HIP=0"]
        elif spec.satisfies("+rocm"):
            v += ["BENCH_HIP=1", "NVCC=", "HIPCC={0}".format(join_path(spec["hip"].prefix.bin, "hipcc")),
                  "ROCM_PATH={0}".format(spec["hip"].prefix)]
        else:
            v += ["NVCC=", "BENCH_HIP=0"]
        v.append("MPICC={0}".format(spec["mpi"].mpicc) if spec.satisfies("+mpi") else "MPICC=")
        return v

    def build(self, spec, prefix):
        make("bench", "runners", *self._make_vars())

    def install(self, spec, prefix):
        make("install", *self._make_vars())
