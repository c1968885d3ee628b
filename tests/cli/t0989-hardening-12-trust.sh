#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The twelfth review (r31N rows 22-26, B2-B6, and its "held but worth a look"): bench reproduce listed, but did not
# name, variables that load code or act elsewhere: containers/storage's STORAGE_OPTS and STORAGE_DRIVER, read from
# podman's own environment (overlay.mount_program= is a program run on the host), in stack.env and through sbatch
# --export; FlexiBLAS's FLEXIBLAS (the BLAS backend it dlopens); OPENCL_LAYERS, LLVM_SYMBOLIZER_PATH, GETCONF_DIR,
# IPYTHONDIR, JUPYTER_*, QML2_IMPORT_PATH, VALGRIND_LIB, SDL_DYNAMIC_API, UR_*, SYCL_*, LIBOMPTARGET_* and kin; the
# go command's GOCACHE and the other spellings of a cache's place; and the variables that make a library write to
# the path they name (NCCL_DEBUG_FILE=~/.bashrc, CUBLASLT_LOG_FILE, CUBLAS_LOGDEST_DBG, rocBLAS's trace paths...), a
# class of their own. sbatch options in extra_args that write a file, change the directory or name the script sbatch
# runs (--output, -o, --error, --chdir, a bare word) were listed only. ORIGIN was printed as trusted/NAME.pem, not
# as the full path of the trusted-key file.
. "$(dirname "$0")/lib.sh"
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

cat >"$T/m.yaml" <<Y
bench: 1
name: hk12
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env:
    MARK: plain
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$T/fake expect 0 "the original run (signed with this machine's own key)" "$BENCH" run -q -o "$T/orig" "$T/m.yaml"
B=$(ls "$T"/orig/hk12-*.bench.tar.gz)
D=${B%.bench.tar.gz}
# repack: $B packed again from $D, whose manifest.yaml is stdin
repack() { cat >"$D/manifest.yaml" && rm -f "$B" "$B.intoto.jsonl" && "$BENCH" pack "$D" >/dev/null 2>&1; }
label_of() {
	case $1 in
	engine) echo "changes what the container engine or launcher runs" ;;
	kept) echo "where compiled code is kept and loaded from" ;;
	code) echo "loads code or changes how programs start" ;;
	write) echo "makes a program write to the path it names" ;;
	esac
}

# ---- 1. stack.env: each class, the new names and the kin that were flagged already -------------------------------
ENGINE="STORAGE_OPTS STORAGE_DRIVER REGISTRIES_CONFIG_PATH _CONTAINERS_USERNS_CONFIGURED _BUILDAH_STARTED_IN_USERNS
NOTIFY_SOCKET BUILDKIT_HOST BUILDX_BUILDER NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES MELLANOX_VISIBLE_DEVICES
REGISTRY_AUTH_FILE DOCKER_HOST DOCKER_CONFIG CONTAINER_HOST CONTAINER_CONNECTION"
CODE="FLEXIBLAS FLEXIBLAS64 FLEXIBLAS_LIBRARY_PATH OPENCL_LAYERS OPENCL_LAYER_PATH OCL_ICD_FILENAMES OCL_ICD_VENDORS
LLVM_SYMBOLIZER_PATH GETCONF_DIR IPYTHONDIR JUPYTER_CONFIG_DIR JUPYTER_PATH JUPYTER_DATA_DIR QML2_IMPORT_PATH
QML_IMPORT_PATH QT_PLUGIN_PATH VALGRIND_LIB VALGRIND_OPTS SDL_DYNAMIC_API SDL3_DYNAMIC_API UR_ADAPTERS_FORCE_LOAD
UR_ENABLE_LAYERS SYCL_OVERRIDE_PI_OPENCL SYCL_OVERRIDE_PI_LEVEL_ZERO ZE_ENABLE_ALT_DRIVERS
LIBOMPTARGET_JIT_REPLACEMENT_MODULE LIBOMPTARGET_PLUGIN OMP_TOOL_LIBRARIES BAZEL_SH VIMRUNTIME VIM
ELECTRON_RUN_AS_NODE MAGICK_CONFIGURE_PATH AZURE_EXTENSION_DIR AZURE_CONFIG_DIR EXECIGNORE FCEDIT LESS R_HOME
GHC_ENVIRONMENT GHC_PACKAGE_PATH LADSPA_PATH LV2_PATH GNUPGHOME PLAYWRIGHT_BROWSERS_PATH PUPPETEER_EXECUTABLE_PATH
ACME_EXECUTABLE_PATH ACME_SSH_COMMAND MIOPEN_SYSTEM_DB_PATH VK_LAYER_PATH VK_ADD_LAYER_PATH VK_ICD_FILENAMES
VK_DRIVER_FILES __EGL_VENDOR_LIBRARY_FILENAMES LIBGL_DRIVERS_PATH OMPI_MCA_mca_component_path
PMIX_MCA_mca_base_component_path UCX_MODULE_DIR HSA_TOOLS_LIB ROCP_TOOL_LIB CUDA_INJECTION64_PATH
NVTX_INJECTION64_PATH XDG_CONFIG_HOME CCACHE_DIR SCCACHE_DIR PYTHONPYCACHEPREFIX NUMBA_CACHE_DIR
TORCHINDUCTOR_CACHE_DIR TORCH_EXTENSIONS_DIR HF_HOME PIP_CACHE_DIR TORCH_COMPILE_DEBUG_DIR TORCH_LOGS_OUT
TRITON_CACHE_DIR GOPATH"
KEPT="GOCACHE GOMODCACHE GOTMPDIR GOBIN DENO_DIR MIOPEN_USER_DB_PATH ACME_CACHE ACME_CACHE_HOME ACME_CACHE_ROOT
ACME_CACHE_FOLDER CUDA_CACHE_PATH XDG_CACHE_HOME XDG_DATA_HOME MIOPEN_CUSTOM_CACHE_DIR JAX_COMPILATION_CACHE_DIR
CUPY_CACHE_DIR"
WRITE="NCCL_DEBUG_FILE CUBLASLT_LOG_FILE CUBLAS_LOGDEST_DBG CUDNN_LOGDEST_DBG CUDNN_FRONTEND_LOG_FILE CUSPARSE_LOG_FILE
CUSOLVERDN_LOG_FILE HIPBLASLT_LOG_FILE MIOPEN_LOG_FILE ROCBLAS_LOG_TRACE_PATH ROCBLAS_LOG_BENCH_PATH
ROCBLAS_LOG_PROFILE_PATH ROCFFT_LOG_PLAN_PATH ROCSPARSE_LOG_DEBUG_PATH ROCSOLVER_LOG_TRACE_PATH NCCL_TOPO_DUMP_FILE
NCCL_GRAPH_DUMP_FILE CUDA_COREDUMP_FILE AMD_LOG_LEVEL_FILE AMD_COMGR_REDIRECT_LOGS KINETO_CONFIG OMP_TOOL_VERBOSE_INIT
GMON_OUT_PREFIX GCOV_PREFIX LLVM_PROFILE_FILE COVERAGE_FILE SEGFAULT_OUTPUT_NAME JITDUMPDIR HISTFILE LESSHISTFILE
PYTHON_HISTORY NODE_REPL_HISTORY MKL_VERBOSE_OUTPUT_FILE ACME_DUMP_DIR ACME_LOG_DIR ACME_TRACE_DIR ACME_OUTPUT_DIR
ACME_LOGFILE ACME_DUMP_PATH ACME_TRACE_FILE ACME_OUTPUT_PATH ACME_LOG_PATH ACME_DEBUG_FILE"
# harmless: tuning, thread counts, log levels, device selection; names that only resemble a flagged one
PLAIN="OMP_NUM_THREADS OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS MKL_NUM_THREADS MKL_CBWR CUDA_VISIBLE_DEVICES NCCL_DEBUG
NCCL_ALGO NCCL_SOCKET_IFNAME RUST_LOG CUDA_CACHE_DISABLE CUDA_CACHE_MAXSIZE OCAMLRUNPARAM GOMAXPROCS
ONEAPI_DEVICE_SELECTOR ZE_AFFINITY_MASK ROCBLAS_LAYER HIPBLASLT_LOG_LEVEL GCOV_PREFIX_STRIP MY_STORAGE_OPTS
STORAGE_NOTE LESSCHARSET"
{
	printf 'bench: 1\nname: hk12\ntarget: {vendor: cpu}\nruntime: {engine: podman}\nstack:\n'
	printf '  base: docker.io/library/debian:bookworm\n  env:\n'
	for n in $ENGINE $CODE $KEPT $WRITE $PLAIN; do printf '    %s: "/root/.bashrc"\n' "$n"; done
	printf 'suites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n'
} | repack || not_ok "pack"
expect 3 "reproduce of a bundle whose stack.env holds them: refused without --yes" "$BENCH" reproduce -q -o "$T/r1" "$B" </dev/null
for class in engine code kept write; do
	case $class in engine) names=$ENGINE ;; code) names=$CODE ;; kept) names=$KEPT ;; write) names=$WRITE ;; esac
	label=$(label_of $class)
	for n in $names; do
		grep -A1 "stack.env.$n " "$T/err" | sed -n 2p | grep -q "\^ $label: " && ok "stack.env.$n: $label" ||
			{ not_ok "stack.env.$n not named ($label)"; grep -A1 "stack.env.$n " "$T/err" | sed 's/^/#   /'; }
	done
done
for n in $PLAIN; do
	grep -q "stack.env.$n " "$T/err" || not_ok "stack.env.$n not listed"
	grep -A1 "stack.env.$n " "$T/err" | sed -n 2p | grep -q '\^' && { not_ok "a harmless variable flagged ($n)"; grep -A1 "stack.env.$n " "$T/err" | sed 's/^/#   /'; } ||
		ok "a harmless variable is listed, not flagged ($n)"
done
want=$(echo $ENGINE $CODE $KEPT $WRITE | wc -w)
grep -q "^bench: $want variables above load code into the programs it starts, or change what the container engine runs, where compiled code is kept or where a program writes$" "$T/err" &&
	ok "all $want counted in the closing line, which names the writes" ||
	{ not_ok "the closing count is not $want"; grep 'variables above' "$T/err" | sed 's/^/#   /'; }

# ---- 2. the other places a variable is set: an env_matrix, APPTAINERENV_/SINGULARITYENV_ -------------------------
repack <<'Y' || not_ok "pack"
bench: 1
name: hk12
target: {vendor: cpu}
runtime: {engine: apptainer}
stack:
  base: docker.io/library/debian:bookworm
  env:
    APPTAINERENV_STORAGE_OPTS: "overlay.mount_program=/tmp/evil/mnt"
    APPTAINERENV_FLEXIBLAS: /tmp/evil/libblas.so
    SINGULARITYENV_GOCACHE: /tmp/evil/gocache
    APPTAINERENV_NCCL_DEBUG_FILE: /root/.bashrc
    APPTAINERENV_OMP_NUM_THREADS: "4"
suites:
  gemm:
    dtypes: [fp32]
    shapes: [[64, 64, 64]]
    env_matrix: {STORAGE_DRIVER: [vfs, overlay], FLEXIBLAS: [/tmp/a.so, OPENBLAS], GOCACHE: [/tmp/g1], CUBLASLT_LOG_FILE: [/root/.profile], OMP_NUM_THREADS: ["1", "2"]}
Y
expect 3 "an env_matrix and APPTAINERENV_ names: refused without --yes" "$BENCH" reproduce -q -o "$T/r2" "$B" </dev/null
for pair in stack.env.APPTAINERENV_STORAGE_OPTS:engine stack.env.APPTAINERENV_FLEXIBLAS:code \
	stack.env.SINGULARITYENV_GOCACHE:kept stack.env.APPTAINERENV_NCCL_DEBUG_FILE:write \
	"suites.gemm.env_matrix.STORAGE_DRIVER:engine:vfs" "suites.gemm.env_matrix.STORAGE_DRIVER:engine:overlay" \
	"suites.gemm.env_matrix.FLEXIBLAS:code:/tmp/a.so" "suites.gemm.env_matrix.FLEXIBLAS:code:OPENBLAS" \
	"suites.gemm.env_matrix.GOCACHE:kept:/tmp/g1" "suites.gemm.env_matrix.CUBLASLT_LOG_FILE:write:/root/.profile"; do
	what=${pair%%:*} rest=${pair#*:}
	class=${rest%%:*} value=
	[ "$rest" != "$class" ] && value=${rest#*:}
	label=$(label_of "$class")
	awk -v w="$what" -v v="$value" -v l="^ $label: " '$1 == w && (v == "" || $2 == v) { getline; if (index($0, l)) f = 1 } END { exit !f }' "$T/err" &&
		ok "$what${value:+ $value}: $label" || { not_ok "$what${value:+ $value} not named ($label)"; show "$T/err"; }
done
for what in stack.env.APPTAINERENV_OMP_NUM_THREADS suites.gemm.env_matrix.OMP_NUM_THREADS; do
	awk -v w="$what" '$1 == w { getline; if ($1 == "^") f = 1 } END { exit !f }' "$T/err" && { not_ok "$what flagged"; show "$T/err"; } ||
		ok "$what listed, not flagged"
done
grep -q "^bench: 10 variables above" "$T/err" && ok "4 variables and 6 env_matrix values counted" ||
	{ not_ok "the closing count is not 10"; grep 'variables above' "$T/err" | sed 's/^/#   /'; }

# ---- 3. sbatch --export sets them in the job's environment (podman, enroot, apptainer run there) ------------------
repack <<'Y' || not_ok "pack"
bench: 1
name: hk12
target: {vendor: cpu}
runtime:
  engine: podman
  launcher: slurm
  slurm:
    extra_args: ["--export=ALL,STORAGE_OPTS=overlay.mount_program=/tmp/evil/mnt", "--export=ALL,FOO=1,STORAGE_DRIVER=vfs",
      --export, "NONE,FLEXIBLAS=/tmp/evil/libblas.so", "--expo=ALL,NCCL_DEBUG_FILE=/root/.bashrc",
      "--export=ALL,GOCACHE=/tmp/evil/gocache", "--export=ALL,OPENCL_LAYERS=/tmp/l.so", "--export=ALL,OMP_NUM_THREADS=4"]
stack: {base: docker.io/library/debian:bookworm}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 3 "sbatch --export of each class: refused without --yes" "$BENCH" reproduce -q -o "$T/r3" "$B" </dev/null
for pair in "--export=ALL,STORAGE_OPTS=overlay.mount_program=/tmp/evil/mnt|engine|STORAGE_OPTS" \
	"--export=ALL,FOO=1,STORAGE_DRIVER=vfs|engine|STORAGE_DRIVER" "NONE,FLEXIBLAS=/tmp/evil/libblas.so|code|FLEXIBLAS" \
	"--expo=ALL,NCCL_DEBUG_FILE=/root/.bashrc|write|NCCL_DEBUG_FILE" "--export=ALL,GOCACHE=/tmp/evil/gocache|kept|GOCACHE" \
	"--export=ALL,OPENCL_LAYERS=/tmp/l.so|code|OPENCL_LAYERS"; do
	x=${pair%%|*} rest=${pair#*|}
	label=$(label_of "${rest%%|*}") name=${rest#*|}
	awk -v x="$x" -v l="^ $label: sbatch --export sets $name: " '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if (index($0, l)) f = 1 } END { exit !f }' "$T/err" &&
		ok "extra_args $x: $label ($name)" || { not_ok "extra_args $x not named ($label)"; show "$T/err"; }
done
for x in --export=ALL,OMP_NUM_THREADS=4 --export; do
	awk -v x="$x" '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if ($1 == "^") f = 1 } END { exit !f }' "$T/err" &&
		{ not_ok "extra_args $x flagged"; show "$T/err"; } || ok "extra_args $x listed, not flagged"
done
grep -q "^bench: 6 variables above" "$T/err" && ok "the six counted" || { not_ok "the count is not 6"; grep 'variables above' "$T/err" | sed 's/^/#   /'; }

# ---- 4. sbatch options that write a file, change the directory, or name the script sbatch runs ---------------------
repack <<'Y' || not_ok "pack"
bench: 1
name: hk12
target: {vendor: cpu}
runtime:
  engine: host
  launcher: slurm
  slurm:
    extra_args: ["--output=/root/o1", "--ou=/root/o2", -o, /root/o3, -o/root/o4, -Qo/root/o5, "--error=/root/e1",
      -e/root/e2, --err, /root/e3, "--chdir=/tmp/d1", -D, /tmp/d2, "--ch=/tmp/d3", -HD/tmp/d4, "--container=/tmp/oci",
      "--container-image=evil/img", --container-mounts, "/:/host", "--wrap=id", "--bb=stage_out", "--bbf=/tmp/bbf",
      --partition, gpu, -N, "2", --exclusive, "--qos=high", -J, job, "--input=/tmp/in", "--get-user-env",
      /tmp/evil.sh, "--output=/root/after"]
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 3 "sbatch options in extra_args: refused without --yes" "$BENCH" reproduce -q -o "$T/r4" "$B" </dev/null
for pair in "--output=/root/o1|write|standard output" "--ou=/root/o2|write|standard output" "/root/o3|write|standard output" \
	"-o/root/o4|write|standard output" "-Qo/root/o5|write|standard output" "--error=/root/e1|write|standard error" \
	"-e/root/e2|write|standard error" "/root/e3|write|standard error" "--chdir=/tmp/d1|engine|runs in that directory" \
	"/tmp/d2|engine|runs in that directory" "--ch=/tmp/d3|engine|runs in that directory" \
	"-HD/tmp/d4|engine|runs in that directory" "--container=/tmp/oci|engine|OCI bundle" \
	"--container-image=evil/img|engine|pyxis" "/:/host|engine|pyxis" "--wrap=id|engine|as the batch script (--wrap)" \
	"--bb=stage_out|write|burst buffer" "--bbf=/tmp/bbf|write|burst buffer" "/tmp/evil.sh|engine|sbatch runs this file as the batch script"; do
	x=${pair%%|*} rest=${pair#*|}
	label=$(label_of "${rest%%|*}") why=${rest#*|}
	awk -v x="$x" -v l="^ $label: " -v y="$why" '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if (index($0, l) && index($0, y)) f = 1 } END { exit !f }' "$T/err" &&
		ok "extra_args $x: $label ($why)" || { not_ok "extra_args $x not named ($label, $why)"; show "$T/err"; }
done
# the options' own items when the argument is the next one, harmless options and their arguments, and what follows
# the script (its arguments, not sbatch's options)
for x in -o --err -D --container-mounts --partition gpu -N 2 --exclusive --qos=high -J job --input=/tmp/in \
	--get-user-env --output=/root/after; do
	awk -v x="$x" '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if ($1 == "^") f = 1 } END { exit !f }' "$T/err" &&
		{ not_ok "extra_args $x flagged"; show "$T/err"; } || ok "extra_args $x listed, not flagged"
done
grep -q "^bench: 19 variables above" "$T/err" && ok "the 19 counted" || { not_ok "the count is not 19"; grep 'variables above' "$T/err" | sed 's/^/#   /'; }
# '--' ends sbatch's options: the next item is the script; an option left wanting an argument takes bench's script
repack <<'Y' || not_ok "pack"
bench: 1
name: hk12
target: {vendor: cpu}
runtime: {engine: host, launcher: slurm, slurm: {extra_args: [--exclusive, "--", /tmp/evil2.sh, -o]}}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 3 "extra_args with '--': refused without --yes" "$BENCH" reproduce -q -o "$T/r5" "$B" </dev/null
awk '$1 == "runtime.slurm.extra_args" && $2 == "/tmp/evil2.sh" { getline; if (index($0, "sbatch runs this file as the batch script")) f = 1 } END { exit !f }' "$T/err" &&
	ok "the item after '--' named as the batch script" || { not_ok "the item after '--' not named"; show "$T/err"; }
awk '$1 == "runtime.slurm.extra_args" && $2 == "-o" { getline; if ($1 == "^") f = 1 } END { exit !f }' "$T/err" &&
	{ not_ok "-o after the script flagged"; show "$T/err"; } || ok "-o after the script is the script's argument"
repack <<'Y' || not_ok "pack"
bench: 1
name: hk12
target: {vendor: cpu}
runtime: {engine: host, launcher: slurm, slurm: {extra_args: [--exclusive, -o]}}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 3 "extra_args ending in -o: refused without --yes" "$BENCH" reproduce -q -o "$T/r6" "$B" </dev/null
awk '$1 == "runtime.slurm.extra_args" && $2 == "-o" { getline; if (index($0, "its argument is bench'"'"'s own script")) f = 1 } END { exit !f }' "$T/err" &&
	ok "a last -o takes bench's script: named" || { not_ok "a last -o not named"; show "$T/err"; }

# ---- 5. ORIGIN: the trusted-key file it matched, by its full path ------------------------------------------------
H2="$T/home2"
mkdir -p "$H2/trusted"
cp "$BENCH_HOME/signing.pub.pem" "$H2/trusted/friend.pem"
BENCH_HOME=$H2 expect 3 "reproduce with a key of trusted/ (unconfirmed)" "$BENCH" reproduce -q -o "$T/r7" "$B" </dev/null
expect_err "bench: the bundle is signed by key id "
grep -q "^bench: the bundle is signed by key id [A-Za-z0-9+/=]*, trusted as $H2/trusted/friend.pem\$" "$T/err" &&
	ok "ORIGIN is the trusted-key file's full path" || { not_ok "ORIGIN is not $H2/trusted/friend.pem"; grep 'trusted as' "$T/err" | sed 's/^/#   /'; }
expect 3 "reproduce with the own key (unconfirmed)" "$BENCH" reproduce -q -o "$T/r8" "$B" </dev/null
expect_err "trusted as own key (signing.pub.pem)"
expect 3 "reproduce with --key (unconfirmed)" "$BENCH" reproduce -q --key "$BENCH_HOME/signing.pub.pem" -o "$T/r9" "$B" </dev/null
expect_err "trusted as --key $BENCH_HOME/signing.pub.pem"
finish
