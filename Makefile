# SPDX-License-Identifier: Apache-2.0
# bench — one non-recursive Makefile (docs/architecture.md, "Repository layout").
#   make            build ./bench
#   make test       install missing Debian packages (as root), build and run every test (unit + CLI), ending with
#                   "N passed, N failed"
#   make test-nodeps  the same without the package step
#   make run        install missing Debian packages (as root), build, run manifests/quickstart.yaml
#   make asan       the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz       build the libFuzzer targets: manifest parser, unverified bundle reading (clang)
#   make install    PREFIX=/usr/local
#   make dist       bench-VERSION.tar.gz, the reproducible release tarball of HEAD (DIST_REF=v0.1.0: of a tag)
#   make deps       install (root) or print the apt-get line for missing packages (test-deps: those of the tests too)

.DEFAULT_GOAL := all
PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= cc
PKG_CONFIG ?= pkg-config
PKGS      := yaml-0.1 libgit2 libarchive libcrypto jansson libcurl zlib
DEB_PKGS  := build-essential pkg-config python3 libyaml-dev libgit2-dev libarchive-dev libssl-dev libjansson-dev zlib1g-dev \
             libcurl4-openssl-dev libcmocka-dev libopenblas-dev openmpi-bin libopenmpi-dev python3-torch
# what the tests run besides (clang and libFuzzer's runtime for t1300 and make asan; pip for bench lock's pip closures
# in t0900, t0910, t1110; debhelper for the Debian package of t0010; perl's prove runs the tests in parallel; podman
# and Slurm for t1100 and t1200; strace and valgrind count work where a timing would be noise, t0994's status.json
# rewrites and instructions per record; installed here in the one apt-get of make test-deps so that no test runs
# apt-get on the host while others run: tests/setup/ installs them too, for a test run on its own)
TEST_DEB_PKGS := git ca-certificates debhelper openssl python3-cryptography python3-pip chromium time clang libclang-rt-dev \
                 perl podman buildah runc debootstrap uidmap fuse-overlayfs slurm-wlm munge iproute2 libpmix-dev strace valgrind
VERSION   := 0.1.0

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
CFLAGS   ?= -O2 -g
SAN      ?=
# libgit2 and libcurl are loaded on first use (cli/core/lazylib.c): bench links neither; their sonames, read from the
# libraries pkg-config names, are what it loads
LAZY_LIBS  := -lgit2 -lcurl
soname      = $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir $(1) 2>/dev/null)/$(2)" 2>/dev/null | awk '/SONAME/ { print $$2 }')
LAZY_DEFS  := -DLAZYLIB_GIT2='"$(or $(call soname,libgit2,libgit2.so),libgit2.so)"' \
              -DLAZYLIB_CURL='"$(or $(call soname,libcurl,libcurl.so),libcurl.so)"'
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(SAN) $(PKG_CFLAGS) $(LAZY_DEFS) \
             -I$(BUILD)/gen -Icli
ALL_LDFLAGS = $(SAN) $(LDFLAGS)

LIB_SRC := $(wildcard cli/core/*.c) $(wildcard cli/manifest/*.c) $(wildcard cli/image/*.c) $(wildcard cli/exec/*.c) $(wildcard cli/bundle/*.c) $(wildcard cli/stats/*.c) $(wildcard cli/render/*.c) $(wildcard cli/publish/*.c)
CMD_SRC := cli/main.c cli/cli.c $(wildcard cli/cmd_*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
LIB     := $(BUILD)/libbench.a

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# the in-process driver of docs/results/methods-sim.py (tests/sim/methods_sim.c)
METHODS_SIM := $(BUILD)/tests/methods-sim

# --- runners (what runs inside the image; contract: docs/architecture.md) ---------------------------------------------
# CPU always; then one GPU toolkit: HIP when BENCH_HIP=1, or when hipcc is found and nvcc is not (BENCH_HIP=0 turns
# it off); else CUDA when nvcc is found (CUDA_HOME or PATH). docs/runners.md, "The HIP build".
NVCC      ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
HIPCC     ?= $(shell command -v hipcc 2>/dev/null || { test -x /opt/rocm/bin/hipcc && echo /opt/rocm/bin/hipcc; })
BENCH_HIP ?= $(if $(NVCC),0,$(if $(HIPCC),1,0))
ifeq ($(BENCH_HIP),1)
override NVCC :=
endif
CUDA_HOME ?= $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(NVCC)),/usr/local/cuda)
NVCC_GENCODE ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_80,code=sm_80
# ROCm's prefix: /usr for Debian's packages (hipcc in /usr/bin), else hipcc's (AMD's /opt/rocm)
ROCM_PATH ?= $(if $(filter /usr/bin/hipcc,$(HIPCC)),/usr,$(if $(HIPCC),$(patsubst %/bin/hipcc,%,$(HIPCC)),/opt/rocm))
# the offload architectures, space-separated: gfx942 (MI300X, MI325X), gfx950 (MI355X)
HIP_ARCH  ?= gfx942
comma := ,
# jansson and a CBLAS (OpenBLAS) for the runners; both overridable for machines without pkg-config files
JANSSON_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JANSSON_LIBS   ?= $(or $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null),-ljansson)
# OpenBLAS through its pkg-config file; else any CBLAS behind Debian's alternatives (cblas.h, -lblas: BLIS, ...)
MULTIARCH   := $(shell $(CC) -print-multiarch 2>/dev/null)
HAVE_OPENBLAS_PC := $(shell $(PKG_CONFIG) --exists openblas 2>/dev/null && echo y)
HAVE_CBLAS  ?= $(if $(HAVE_OPENBLAS_PC)$(wildcard /usr/include/cblas.h /usr/include/$(MULTIARCH)/cblas.h),1,0)
BLAS_CFLAGS ?= $(if $(HAVE_OPENBLAS_PC),$(shell $(PKG_CONFIG) --cflags openblas 2>/dev/null))
BLAS_LIBS   ?= $(if $(HAVE_OPENBLAS_PC),$(shell $(PKG_CONFIG) --libs openblas 2>/dev/null),-lblas)
RUNNER_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(CFLAGS) $(SAN) \
                $(JANSSON_CFLAGS) $(GPU_DEFS) $(GPU_INC)
RUNNER_LIBS = $(JANSSON_LIBS) -lm -lpthread -ldl $(GPU_LIBS)
GEMM_CPU := $(if $(filter 1,$(HAVE_CBLAS)),runners/gemm/gemm_cblas.c)
RUNNER_COMMON := runners/common/dobench.c runners/common/record.c runners/common/loaded.c
ifneq ($(NVCC),)
# cuBLASLt is not linked: bench-gemm loads it by its soname when a GPU case first needs it (gemm_blaslt.c, lt_load),
# found as a linked library would be (LD_LIBRARY_PATH, then the RUNPATH below)
CUBLASLT_SO := $(firstword $(wildcard $(CUDA_HOME)/lib64/libcublasLt.so $(CUDA_HOME)/lib/libcublasLt.so \
                 $(CUDA_HOME)/lib/x86_64-linux-gnu/libcublasLt.so $(CUDA_HOME)/lib/aarch64-linux-gnu/libcublasLt.so))
CUBLASLT_SONAME := $(if $(CUBLASLT_SO),$(shell objdump -p $(CUBLASLT_SO) 2>/dev/null | awk '/SONAME/ { print $$2 }'))
ifeq ($(CUBLASLT_SONAME),)
$(warning no libcublasLt.so with a soname under $(CUDA_HOME): bench-gemm will load plain libcublasLt.so, which needs the development link)
endif
GPU_DEFS := -DBENCH_CUDA -DBENCH_CUBLASLT_SONAME='"$(or $(CUBLASLT_SONAME),libcublasLt.so)"'
GPU_INC  := -isystem $(CUDA_HOME)/include
GPU_LIBS := -L$(CUDA_HOME)/lib64 -Wl,--enable-new-dtags,-rpath,$(CUDA_HOME)/lib64 -lcudart -lstdc++ -ldl
GPU_OBJ  := $(BUILD)/runners/obj/gpu_kernels.o
# telemetry: NVML through dlopen (no link-time dependency on the driver's library)
RUNNER_COMMON += runners/common/gpu_common.c runners/common/telemetry.c runners/common/telemetry_amdsmi.c
GEMM_GPU := runners/gemm/gemm_blaslt.c
endif
ifeq ($(BENCH_HIP),1)
ifeq ($(HIPCC),)
$(error BENCH_HIP=1 but no hipcc (PATH, /opt/rocm/bin); set HIPCC)
endif
# the host code is C through $(CC) against HIP's C API; only gpu_kernels.cu goes through hipcc
ROCM_SYS := $(filter-out /usr,$(ROCM_PATH))
GPU_DEFS := -DBENCH_HIP -D__HIP_PLATFORM_AMD__
GPU_INC  := $(if $(ROCM_SYS),-isystem $(ROCM_SYS)/include)
ROCM_LIB := $(if $(ROCM_SYS),-L$(ROCM_SYS)/lib -Wl$(comma)--enable-new-dtags$(comma)-rpath$(comma)$(ROCM_SYS)/lib)
GPU_LIBS := $(ROCM_LIB) -lamdhip64 -lstdc++ -ldl
GPU_OBJ  := $(BUILD)/runners/obj/gpu_kernels.o
RUNNER_COMMON += runners/common/gpu_common.c runners/common/telemetry.c runners/common/telemetry_amdsmi.c
# hipblaslt.h is C++: gemm_blaslt.c is compiled as host C++ (an object) on ROCm, by hipcc's clang unless set
HIP_HOSTCXX ?= $(HIPCC)
GEMM_GPU := $(BUILD)/runners/obj/gemm_blaslt.o
GEMM_GPU_LIBS := $(ROCM_LIB) -lhipblaslt
endif
RUNNER_DIR := $(BUILD)/runners
RUNNERS := $(RUNNER_DIR)/bench-gemm $(RUNNER_DIR)/bench-membw $(RUNNER_DIR)/bench-coll

# bench-coll: MPI when mpicc is found (backend mpi, and one rank per GPU under mpirun); NCCL with the GPU toolkit
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPI_CFLAGS := $(if $(MPICC),$(shell $(MPICC) --showme:compile 2>/dev/null) -DBENCH_MPI)
MPI_LIBS   := $(if $(MPICC),$(shell $(MPICC) --showme:link 2>/dev/null))
# NCCL: the one whose pkg-config file comes first (a stack's source-built NCCL in /opt/stack/<name>, which the
# image puts first on PKG_CONFIG_PATH), else the toolkit's or the system's
NCCL_HOME ?= $(or $(shell $(PKG_CONFIG) --variable=prefix nccl 2>/dev/null),$(if $(wildcard $(CUDA_HOME)/include/nccl.h),$(CUDA_HOME),/usr))
ifneq ($(NVCC),)
CCL_FLAGS := -isystem $(NCCL_HOME)/include
CCL_LIBS  := -L$(NCCL_HOME)/lib -L$(NCCL_HOME)/lib64 -L$(NCCL_HOME)/lib/x86_64-linux-gnu -Wl,--enable-new-dtags,-rpath,$(NCCL_HOME)/lib64 -lnccl
endif
ifeq ($(BENCH_HIP),1)
CCL_LIBS  := $(ROCM_LIB) -lrccl
endif

$(RUNNER_DIR)/bench-coll: runners/coll/coll.c runners/coll/coll_sizes.c runners/common/ccllog.c $(RUNNER_COMMON) $(GPU_OBJ) \
                          $(wildcard runners/coll/*.h runners/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) $(MPI_CFLAGS) $(CCL_FLAGS) -o $@ runners/coll/coll.c runners/coll/coll_sizes.c \
	  runners/common/ccllog.c $(RUNNER_COMMON) $(GPU_OBJ) $(CCL_LIBS) $(MPI_LIBS) $(RUNNER_LIBS)

runners: $(RUNNERS)

$(RUNNER_DIR)/obj/gpu_kernels.o: runners/common/gpu_kernels.cu runners/common/gpu.h runners/common/rng.h runners/common/dtype.h \
                                 runners/coll/coll.h
	@mkdir -p $(dir $@)
ifeq ($(BENCH_HIP),1)
	$(HIPCC) -O3 -std=c++17 $(GPU_DEFS) $(HIP_ARCH:%=--offload-arch=%) -Wall -Wextra -Werror -fPIC $(JANSSON_CFLAGS) \
	  -x hip -c -o $@ $<
else
	$(NVCC) -O3 -std=c++17 $(GPU_DEFS) $(NVCC_GENCODE) -Xcompiler -fPIC $(JANSSON_CFLAGS) -c -o $@ $<
endif

$(RUNNER_DIR)/bench-gemm: runners/gemm/gemm.c runners/gemm/check.c runners/gemm/gemm_native.c $(GEMM_CPU) $(GEMM_GPU) $(RUNNER_COMMON) $(GPU_OBJ) \
                          $(wildcard runners/gemm/*.h runners/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) $(if $(GEMM_CPU),$(BLAS_CFLAGS) -DBENCH_CBLAS) $(if $(GEMM_GPU),-DBENCH_GPU_GEMM) -o $@ \
	  runners/gemm/gemm.c runners/gemm/check.c runners/gemm/gemm_native.c $(GEMM_CPU) $(GEMM_GPU) $(RUNNER_COMMON) $(GPU_OBJ) \
	  $(if $(GEMM_CPU),$(BLAS_LIBS)) $(GEMM_GPU_LIBS) $(RUNNER_LIBS)

$(BUILD)/runners/obj/gemm_blaslt.o: runners/gemm/gemm_blaslt.c $(wildcard runners/gemm/*.h runners/common/*.h)
	@mkdir -p $(dir $@)
	$(HIP_HOSTCXX) -x c++ -std=c++17 $(filter-out -Wstrict-prototypes -Wmissing-prototypes,$(WARN)) $(CFLAGS) $(SAN) \
	  $(JANSSON_CFLAGS) $(GPU_DEFS) $(GPU_INC) -DBENCH_GPU_GEMM -c -o $@ $<

$(RUNNER_DIR)/bench-membw: runners/membw/membw.c $(RUNNER_COMMON) $(GPU_OBJ) $(wildcard runners/common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) -o $@ runners/membw/membw.c $(RUNNER_COMMON) $(GPU_OBJ) $(RUNNER_LIBS)

# hip-check: the HIP runners built in their own tree ($(BUILD)/hip) whatever toolkit this machine picks by default,
# and the ROCm libraries each links; needs hipcc, HIP, hipBLASLt and RCCL (Debian's: tests/setup/rocm.sh's image)
hip-check:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/hip BENCH_HIP=1 HIP_ARCH="$(HIP_ARCH)" runners
	@$(HIPCC) --version | sed -n '1,2p'
	@for r in $(RUNNERS:$(BUILD)/%=$(BUILD)/hip/%); do printf '%s:' "$$r"; \
	  readelf -d "$$r" | sed -n 's/.*(NEEDED).*\[\(lib\(amdhip64\|hipblaslt\|rccl\)[^]]*\)\]/ \1/p' | tr -d '\n'; echo; done

.PHONY: all test test-nodeps unit cli-test run runners asan fuzz install dist deps test-deps check-deps clean hip-check FORCE
all: bench $(METHODS_SIM)

# ./bench is the product; in a sanitizer build it lives under $(BUILD).
BENCH_BIN := $(if $(filter build,$(BUILD)),bench,$(BUILD)/bench)

$(BENCH_BIN): $(CMD_OBJ) $(LIB) | check-deps
	$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJ) $(LIB) $(filter-out $(LAZY_LIBS),$(PKG_LIBS)) -lm

# a program linked against the libraries bench loads on first use: the Debian package's Depends are read from it too
# (debian/rules), as they would be from bench if it linked them
$(BUILD)/lazylib-deps: tools/lazylib-deps.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LAZY_LIBS)

ifneq ($(BENCH_BIN),bench)
bench: $(BENCH_BIN)
endif

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/obj/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# version.h: rewritten only when the version or the commit changes, so builds stay incremental. BENCH_VERSION is the
# described version ($(VERSION_SH)): in a git checkout `git describe --tags --always --dirty` of a
# v<VERSION> tag ("0.1.0", "0.1.0-3-g1a2b3c4d5e6f-dirty"), or before any tag "$(VERSION)-g<commit>"; in a release
# tarball the .version file that `make dist` wrote; else $(VERSION). It is what `bench version`, locks and bundles
# carry. BENCH_RELEASE is $(VERSION) alone: the header of recipes and Slurm job scripts, so an image's build context
# (and its digest) and a golden job script do not change with every commit.
VERSION_SH = if git -C "$(CURDIR)" rev-parse --is-inside-work-tree >/dev/null 2>&1 && \
	  [ "$$(git -C "$(CURDIR)" rev-parse --show-toplevel)" = "$$(cd "$(CURDIR)" && pwd -P)" ]; then \
	  d=$$(git -C "$(CURDIR)" describe --tags --match 'v[0-9]*' $(1) 2>/dev/null) && echo "$${d\#v}" || \
	  echo "$(VERSION)-g$$(git -C "$(CURDIR)" describe --always --abbrev=12 $(1))"; \
	elif [ -f "$(CURDIR)/.version" ]; then sed -n 1p "$(CURDIR)/.version"; else echo "$(VERSION)"; fi
COMMIT_SH = c=$$(git -C "$(CURDIR)" rev-parse --short=12 HEAD 2>/dev/null) && \
	  [ "$$(git -C "$(CURDIR)" rev-parse --show-toplevel)" = "$$(cd "$(CURDIR)" && pwd -P)" ] || \
	  c=$$(sed -n 2p "$(CURDIR)/.version" 2>/dev/null); c=$${c:-unknown}
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@v=$$($(call VERSION_SH,--dirty)); $(COMMIT_SH); \
	 if [ -d "$(CURDIR)/.git" ] || [ -f "$(CURDIR)/.git" ]; then \
	   if [ -n "$$(git -C "$(CURDIR)" status --porcelain --untracked-files=no 2>/dev/null)" ]; then c="$$c-dirty"; fi; fi; \
	 printf '#define BENCH_VERSION "%s"\n#define BENCH_RELEASE "%s"\n#define BENCH_COMMIT "%s"\n' "$$v" "$(VERSION)" "$$c" \
	   > $@.tmp; \
	 if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/obj/cli/cmd_version.o $(BUILD)/obj/cli/bundle/bundle.o $(BUILD)/obj/cli/manifest/lock.o $(BUILD)/obj/cli/image/recipe.o \
  $(BUILD)/obj/cli/exec/launcher_slurm.o: $(BUILD)/gen/version.h

check-deps:
	@if ! $(PKG_CONFIG) --exists $(PKGS); then \
	  echo "bench: missing libraries ($(PKGS)); run 'make deps' or: apt-get install -y $(DEB_PKGS)" >&2; exit 1; fi

# $(call install_missing,WHAT,PACKAGES): as root, apt-get installs those of PACKAGES that dpkg does not list as
# installed; as another user, prints the apt-get line and fails.
define install_missing
@missing=$$(for p in $(2); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
if [ -z "$$missing" ]; then echo "bench: all $(1) dependencies are installed"; exit 0; fi; \
if [ "$$(id -u)" = 0 ]; then \
  echo "bench: installing:" $$missing; \
  export DEBIAN_FRONTEND=noninteractive; \
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
else echo "bench: missing packages; run as root:"; echo "  apt-get install -y --no-install-recommends" $$missing; exit 1; fi
endef

deps:
	$(call install_missing,build,$(DEB_PKGS))

test-deps:
	$(call install_missing,test,$(DEB_PKGS) $(TEST_DEB_PKGS))

# (the build with a job per CPU when make was given no -j: a first `make run` compiles everything)
run: deps
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1)) all
	./bench run manifests/quickstart.yaml

# --- tests ---------------------------------------------------------------------------------------------------------
# unit tests link the tool's library and the runners' pure-C parts (timing core, records, GEMM check)
UNIT_RUNNER_SRC := runners/common/dobench.c runners/common/record.c runners/common/loaded.c runners/common/telemetry.c runners/common/telemetry_amdsmi.c runners/gemm/check.c \
                   runners/coll/coll_sizes.c runners/common/ccllog.c
# the fake amd-smi library the amd-smi telemetry backend is tested against (no AMD GPU needed)
$(BUILD)/tests/libamd_smi_fake.so: tests/fake/amdsmi/fake_amd_smi.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/test_amdsmi: $(BUILD)/tests/libamd_smi_fake.so
# (compiled once for every unit test, not once a test)
UNIT_RUNNER_OBJ := $(UNIT_RUNNER_SRC:%.c=$(BUILD)/tests/obj/%.o)
$(BUILD)/tests/obj/%.o: %.c $(wildcard runners/*/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Irunners -c -o $@ $<
$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(UNIT_RUNNER_OBJ) $(wildcard runners/common/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Irunners $(CMOCKA_CFLAGS) -o $@ $< $(UNIT_RUNNER_OBJ) $(LIB) $(PKG_LIBS) $(CMOCKA_LIBS) -lm \
	  -lpthread -ldl $(ALL_LDFLAGS)

# the in-process driver of docs/results/methods-sim.py (tests/cli/t0835): compare's and reproduce's statistics on
# simulated runs, one request a line, without a process per comparison
$(METHODS_SIM): tests/sim/methods_sim.c $(LIB) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) -lm -lpthread $(ALL_LDFLAGS)

# make test: the packages first, then a fresh make that finds them (pkg-config, mpicc, nvcc are read at parse time)
test: test-deps
	@$(MAKE) --no-print-directory test-nodeps

test-nodeps: $(BENCH_BIN) $(UNIT_BIN) $(METHODS_SIM) $(RUNNERS)
	@BENCH=$(CURDIR)/$(BENCH_BIN) BENCH_DATA=$(CURDIR) BENCH_RUNNERS=$(CURDIR)/$(RUNNER_DIR) \
	  ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:allocator_may_return_null=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 tests/run-tests.sh $(UNIT_BIN)

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan CC=clang CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test

# libFuzzer targets (clang; tests/fuzz/): the manifest parser, and a bundle read unverified through compare/report/show
FUZZ_BIN := build/fuzz/fuzz_manifest build/fuzz/fuzz_bundle
# BENCH_BUNDLE_CHUNK: the bundle reader's/writer's buffer unit, 16 KiB here instead of 256 KiB (cli/bundle/bundle.c):
# under ASan each 256 KiB buffer is an mmap/munmap with TLB flushes, which made an execution ~40 ms; same code paths.
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 -fsanitize=address,undefined \
  -DBENCH_FUZZ_DATA=\"$(CURDIR)\" -DBENCH_BUNDLE_CHUNK=16384u $(PKG_CFLAGS) $(LAZY_DEFS) -Icli -I$(BUILD)/gen
FUZZ_OBJ := $(LIB_SRC:%.c=build/fuzz/obj/%.o)
# make fuzz compiles with clang only the library objects the targets use (about half of them): the list is read off a
# partial link (ld -r, its map) of each target's own code against a thin archive of this build's objects
fuzz: build/fuzz/closure.list
	@$(MAKE) --no-print-directory FUZZ_OBJ="$$(tr '\n' ' ' <build/fuzz/closure.list)" $(FUZZ_BIN)
build/fuzz/closure.list: $(FUZZ_BIN:build/fuzz/%=tests/fuzz/%.c) $(LIB_OBJ) $(BUILD)/gen/version.h | check-deps
	@mkdir -p build/fuzz/closure
	@rm -f build/fuzz/closure/lib.a && ar rcT build/fuzz/closure/lib.a $(abspath $(LIB_OBJ))
	@for t in $(FUZZ_BIN:build/fuzz/%=%); do \
	  clang $(FUZZ_CFLAGS) -c -o build/fuzz/closure/$$t.o tests/fuzz/$$t.c && \
	  ld -r -o build/fuzz/closure/$$t.r.o build/fuzz/closure/$$t.o build/fuzz/closure/lib.a \
	    -Map build/fuzz/closure/$$t.map || exit 1; \
	done
	@awk '/^Archive member included/ { a = 1; next } /^[A-Z]/ { a = 0 } a && /^[^ \t]/ && $$1 ~ /\.o$$/ { print $$1 }' \
	  build/fuzz/closure/*.map | sed 's|^$(abspath $(BUILD))/obj/|build/fuzz/obj/|' | sort -u >$@.tmp
	@[ -s $@.tmp ] || { echo "make fuzz: no library object read off build/fuzz/closure/*.map (GNU ld's map expected)" >&2; exit 1; }
	@mv $@.tmp $@
.PRECIOUS: build/fuzz/obj/%.o $(BUILD)/tests/obj/%.o
# the library once, instrumented for coverage (fuzzer-no-link); each target links it with libFuzzer's main
build/fuzz/obj/%.o: %.c $(wildcard cli/*/*.h) $(BUILD)/gen/version.h Makefile | check-deps
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
build/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS) -lm

# make install [PREFIX=/usr/local] [DESTDIR=]: bench and bench-nightly in bin/, the runners in libexec/bench/, the data
# (images/, manifests/, the runner sources and this Makefile, which 'bench build' copies into an image's context: modes
# kept, so its digest is the source tree's) in share/bench/, the man page. Relocatable: bench finds share/ and libexec/ beside its own bin/
# (cli/core/fs.h), nothing of PREFIX is compiled in.
SHARE := $(DESTDIR)$(PREFIX)/share/bench
RUNNER_SOURCES := $(sort $(wildcard runners/*/*.c runners/*/*.h runners/*/*.cu runners/*/*.py))
install: $(BENCH_BIN) $(RUNNERS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/bench $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(SHARE)/images/bases $(SHARE)/images/profiles $(SHARE)/manifests $(sort $(dir $(RUNNER_SOURCES:%=$(SHARE)/%)))
	install -m 0755 $(BENCH_BIN) $(DESTDIR)$(PREFIX)/bin/bench
	install -m 0755 tools/nightly.sh $(DESTDIR)$(PREFIX)/bin/bench-nightly
	install -m 0755 $(RUNNERS) $(DESTDIR)$(PREFIX)/libexec/bench/
	install -m 0644 images/bases/*.yaml $(SHARE)/images/bases/
	install -m 0644 images/profiles/*.yaml $(SHARE)/images/profiles/
	install -m 0644 manifests/*.yaml $(SHARE)/manifests/
	install -m 0644 Makefile $(SHARE)/Makefile
	for f in $(RUNNER_SOURCES); do m=0644; [ -x $$f ] && m=0755; install -m $$m $$f $(SHARE)/$$f || exit 1; done
	install -m 0644 docs/bench.1 $(DESTDIR)$(PREFIX)/share/man/man1/bench.1

# make dist [DIST_REF=HEAD]: bench-VERSION.tar.gz, the release tarball: `git archive` of DIST_REF (HEAD or a tag; what
# is committed, never the working tree's edits) under bench-VERSION/, plus bench-VERSION/.version (line 1 the described
# version of DIST_REF, line 2 its commit), which a build without .git reads. Reproducible: the members' mtime is the
# commit's time (git archive of a commit), owner and group root, modes 0644/0755; gzip -n stores no name or time.
DIST_REF ?= HEAD
dist:
	@v=$$(git describe --tags --match 'v[0-9]*' $(DIST_REF) 2>/dev/null) && v=$${v#v} || \
	   v="$(VERSION)-g$$(git describe --always --abbrev=12 $(DIST_REF))"; \
	 c=$$(git rev-parse --short=12 $(DIST_REF)^{commit}) && \
	 git -c tar.umask=0022 archive --format=tar --prefix="bench-$$v/" -o "bench-$$v.tar.tmp" \
	   --add-virtual-file="bench-$$v/.version:$$(printf '%s\n%s\n' "$$v" "$$c")" $(DIST_REF) && \
	 gzip -n -9 < "bench-$$v.tar.tmp" > "bench-$$v.tar.gz.tmp" && rm -f "bench-$$v.tar.tmp" && \
	 mv "bench-$$v.tar.gz.tmp" "bench-$$v.tar.gz" && echo "bench-$$v.tar.gz"

clean:
	rm -rf build bench

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
