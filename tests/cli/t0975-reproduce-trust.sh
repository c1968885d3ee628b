#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench reproduce runs a signer's manifest (issue 31): before anything runs it prints the signer's key id and the
# trusted-key file it matched, and everything the manifest executes (engine, launcher, slurm extra_args, base,
# components and build commands, stack.env, env_matrix), the variables that load code named as such; it runs only
# once confirmed (--yes; not a terminal and no --yes: exit 3, nothing run); --dry-run prints the exact commands.
. "$(dirname "$0")/lib.sh"
fake_gemm
FAKE=$T/fake
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# a module that leaves a mark when imported: the payload a signer's PYTHONWARNINGS (with PYTHONPATH) runs in the
# fake runner (a Python program) at its start
mkdir -p "$T/evil"
printf 'import os\nopen(os.environ.get("MARK", "/dev/null"), "a").write("ran\\n")\nclass W(Warning): pass\n' >"$T/evil/evilmod.py"
cat >"$T/m.yaml" <<Y
bench: 1
name: trust
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env:
    PYTHONPATH: $T/evil
    PYTHONWARNINGS: "ignore::evilmod.W"
    MARK: $T/mark
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$FAKE expect 0 "the original run (signed with this machine's own key)" "$BENCH" run -q -o "$T/orig" "$T/m.yaml"
B=$(ls "$T"/orig/trust-*.bench.tar.gz)
rm -f "$T/mark"

BENCH_RUNNERS=$FAKE expect 3 "reproduce without --yes, not on a terminal: exit 3" "$BENCH" reproduce -q -o "$T/r1" "$B" </dev/null
[ ! -e "$T/mark" ] && ok "nothing ran: the module was not imported" || not_ok "the signer's module ran without confirmation"
expect_err "signed by key id "
expect_err "trusted as own key (signing.pub.pem)"
expect_err "stack.env.PYTHONWARNINGS"
expect_err "ignore::evilmod.W"
expect_err "loads code or changes how programs start: Python imports the module a warning filter names"
expect_err "loads code or changes how programs start: Python imports modules (sitecustomize, .pth)"
expect_err "runtime.engine"
expect_err "pass --yes to run it"
[ -z "$(ls -A "$T/r1" 2>/dev/null | grep -v '^\.')" ] && ok "no run directory was made" || not_ok "a run directory was made"

BENCH_RUNNERS=$FAKE expect 0 "reproduce --dry-run: exit 0" "$BENCH" reproduce --dry-run -o "$T/r2" "$B" </dev/null
[ ! -e "$T/mark" ] && ok "--dry-run ran nothing" || not_ok "--dry-run ran the module"
expect_err "stack.env.PYTHONWARNINGS"
expect_out "PYTHONWARNINGS="
expect_out "bench-gemm"

BENCH_RUNNERS=$FAKE expect 0 "reproduce --yes: runs" "$BENCH" reproduce --yes -q --rounds 1 -t 0.9 -o "$T/r3" "$B" </dev/null
[ -s "$T/mark" ] && ok "with --yes it ran what it listed" || not_ok "--yes did not run"
expect_err "stack.env.PYTHONWARNINGS"

# a terminal that answers no: nothing runs (script(1) gives the command a terminal)
rm -f "$T/mark"
if command -v script >/dev/null 2>&1; then
	echo n | BENCH_RUNNERS=$FAKE script -qec "'$BENCH' reproduce -q -o '$T/r4' '$B'" /dev/null >"$T/out" 2>&1
	rc=$?
	[ "$rc" = 3 ] && [ ! -e "$T/mark" ] && grep -q "run it? \[y/N\]" "$T/out" && grep -q "not confirmed" "$T/out" &&
		ok "a terminal asked; 'n': exit 3, nothing ran" || { not_ok "terminal prompt (exit $rc)"; show "$T/out"; }
fi

# every kind of thing a manifest executes is listed, each variable that loads code named: the manifest of a
# signed bundle rewritten and packed again with this key
D=${B%.bench.tar.gz}
# repack: $B packed again from $D (signed with this machine's key), its old attestation removed
repack() { rm -f "$B" "$B.intoto.jsonl" && "$BENCH" pack "$D" >/dev/null 2>&1; }
# env_manifest 'NAME: VALUE': $D's manifest is m.yaml with that variable in MARK's place, packed again
env_manifest() { sed "s|^    MARK: .*|    $1|" "$T/m.yaml" >"$D/manifest.yaml" && repack; }
# host_manifest: $D's manifest is a host run on the CPU (bench, name, target, runtime) and then stdin (its stack and
# suites), packed again
host_manifest() {
	{ printf 'bench: 1\nname: trust\ntarget: {vendor: cpu}\nruntime: {engine: host}\n'; cat; } >"$D/manifest.yaml" && repack
}
for var in LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT PYTHONSTARTUP PYTHONHOME BASH_ENV ENV PROMPT_COMMAND PERL5OPT RUBYOPT \
	NODE_OPTIONS BROWSER CHROMIUM_FLAGS CHROME_WRAPPER GCONV_PATH MALLOC_CHECK_ GLIBC_TUNABLES JAVA_TOOL_OPTIONS \
	OMPI_MCA_plm_rsh_agent CUDA_INJECTION64_PATH NCCL_NET_PLUGIN BASH_FUNC_ls GIT_SSH_COMMAND PATH \
	HWLOC_PLUGINS_PATH HWLOC_COMPONENTS I_MPI_OFI_LIBRARY KRB5_CONFIG CUDA_HOME __GLX_VENDOR_LIBRARY_NAME \
	GDK_PIXBUF_MODULE_FILE OMPI_MCA_mca_component_path PMIX_MCA_mca_component_path UCX_MODULE_DIR FI_PROVIDER_PATH \
	NCCL_TUNER_PLUGIN NCCL_PROFILER_PLUGIN HSA_TOOLS_LIB ROCP_TOOL_LIB FOO_PLUGIN_PATH ACME_INJECTION_LIB \
	XYZ_LIBRARY_PATH XYZ_MODULE_DIR XYZ_TOOLS_LIB \
	COMPILER_PATH GCC_EXEC_PREFIX CONFIG_SHELL CCACHE_PREFIX PKG_CONFIG CUDAHOSTCXX CC CXX AS LD AR NVCC_CCBIN \
	NVCC_APPEND_FLAGS LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH MPLBACKEND LESSOPEN TMPDIR EDITOR PAGER \
	SHELL _PYTHON_SYSCONFIGDATA_NAME _PYTHON_SYSCONFIGDATA_PATH; do
	env_manifest "$var: /tmp/x" || not_ok "pack"
	expect 3 "$var: refused without --yes" "$BENCH" reproduce -q -o "$T/r5" "$B" </dev/null
	grep -A1 "stack.env.$var " "$T/err" | grep -q "loads code or changes how programs start" &&
		ok "$var is named as loading code" || { not_ok "$var not named"; show "$T/err"; }
	# counted: PYTHONPATH, PYTHONWARNINGS and this one (issue 31 review B1: an unflagged HWLOC_PLUGINS_PATH ran)
	grep -q "^bench: 3 variables above load code" "$T/err" && ok "$var counted" || { not_ok "$var not counted"; show "$T/err"; }
done
# sbatch takes any unambiguous prefix of a long option (getopt_long): --export-f= is --export-file= (review r31s B3)
cat >"$D/manifest.yaml" <<'Y'
bench: 1
name: trust
target: {vendor: cpu}
runtime:
  engine: host
  launcher: slurm
  slurm: {extra_args: [--export-f=/tmp/envf1, --export-fil, /tmp/envf2, "--export-=/tmp/envf3", "--expo=ALL,LD_PRELOAD=/tmp/x.so", --expor, "NONE,PYTHONPATH=/tmp/p", --exclusive, --exp=ALL]}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
repack
expect 3 "slurm extra_args with abbreviated options: refused without --yes" "$BENCH" reproduce -q -o "$T/r5" "$B" </dev/null
for x in --export-f=/tmp/envf1 --export-fil "--export-=/tmp/envf3"; do
	awk -v x="$x" '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if ($0 ~ /environment from that file/) f = 1 } END { exit !f }' "$T/err" &&
		ok "$x flagged as --export-file" || { not_ok "$x not flagged"; show "$T/err"; }
done
grep -A1 -F -- "--expo=ALL,LD_PRELOAD=/tmp/x.so" "$T/err" | grep -q "sbatch --export sets LD_PRELOAD" &&
	ok "--expo=...LD_PRELOAD flagged as --export" || { not_ok "--expo=... not flagged"; show "$T/err"; }
grep -A1 -F -- "NONE,PYTHONPATH=/tmp/p" "$T/err" | grep -q "sbatch --export sets PYTHONPATH" &&
	ok "--expor NAMES (two arguments) flagged" || { not_ok "--expor NAMES not flagged"; show "$T/err"; }
for x in --exclusive --exp=ALL /tmp/envf2; do
	awk -v x="$x" '$1 == "runtime.slurm.extra_args" && $2 == x { getline; if ($1 == "^") f = 1 } END { exit !f }' "$T/err" &&
		not_ok "$x flagged" || ok "$x not flagged"
done
expect_err "bench: 5 variables above load code"
# the container engine's own variables (stack.env reaches podman's and docker's environment; a Slurm job's reaches
# enroot and apptainer) and where compiled code is kept: flagged with what they do, and counted (review r31z rows 2-4)
for pair in CONTAINERS_CONF:engine CONTAINERS_STORAGE_CONF:engine CONTAINER_HOST:engine DOCKER_HOST:engine \
	DOCKER_CONFIG:engine DOCKER_CONTEXT:engine PODMAN_USERNS:engine REGISTRY_AUTH_FILE:engine APPTAINER_BIND:engine \
	SINGULARITY_BIND:engine APPTAINER_CONFIGDIR:engine ENROOT_SYSCONF_PATH:engine ENROOT_CONFIG_PATH:engine \
	PYXIS_RUNTIME_PATH:engine XDG_RUNTIME_DIR:engine TMP:kept TEMP:kept PYTORCH_KERNEL_CACHE_PATH:kept \
	CUDA_CACHE_PATH:kept XDG_CACHE_HOME:kept XDG_DATA_HOME:kept MIOPEN_USER_DB_CACHE_DIR:kept \
	ROCBLAS_TENSILE_LIBPATH:code ACC_PROFLIB:code MPLCONFIGDIR:code APPTAINERENV_PYTHONSTARTUP:code \
	SINGULARITYENV_LD_AUDIT:code; do
	var=${pair%%:*}
	case ${pair#*:} in
	engine) label="changes what the container engine or launcher runs" ;;
	kept) label="where compiled code is kept and loaded from" ;;
	code) label="loads code or changes how programs start" ;;
	esac
	env_manifest "$var: /tmp/x" || not_ok "pack"
	expect 3 "$var: refused without --yes" "$BENCH" reproduce -q -o "$T/r5" "$B" </dev/null
	grep -A1 "stack.env.$var " "$T/err" | grep -q "\^ $label: " &&
		ok "$var is named: $label" || { not_ok "$var not named ($label)"; show "$T/err"; }
	grep -q "^bench: 3 variables above load code into the programs it starts, or change what the container engine runs" "$T/err" &&
		ok "$var counted" || { not_ok "$var not counted"; show "$T/err"; }
done
# a variable that only resembles them is not flagged
for var in APPTAINERENV_OMP_NUM_THREADS CONTAINER_NAME_HINT; do
	env_manifest "$var: x"
	expect 3 "$var: refused without --yes" "$BENCH" reproduce -q -o "$T/r5" "$B" </dev/null
	grep -A1 "stack.env.$var " "$T/err" | grep -q "\^ " && { not_ok "$var flagged"; show "$T/err"; } || ok "$var listed, not flagged"
done
# a benign variable is listed but not named
env_manifest "OMP_NUM_THREADS: 4"
expect 3 "a benign variable: still refused without --yes" "$BENCH" reproduce -q -o "$T/r5" "$B" </dev/null
grep -A1 "stack.env.OMP_NUM_THREADS " "$T/err" | grep -q "loads code" && not_ok "OMP_NUM_THREADS named as loading code" ||
	ok "OMP_NUM_THREADS listed, not named as loading code"
# slurm extra_args, a base image, components and build commands, an env_matrix
cat >"$D/manifest.yaml" <<Y
bench: 1
name: trust
target: {vendor: cpu}
runtime:
  engine: podman
  launcher: slurm
  slurm: {extra_args: ["--wrap=sh /tmp/payload.sh", "--export=ALL"]}
stack:
  base: docker.io/library/debian:bookworm
  components:
    - {name: blas, git: "https://example.invalid/blas.git", ref: main, build: ["sh ./evil.sh", "make install"]}
    - {name: torch, pip: "2.5.0", index: "https://example.invalid/simple"}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]], env_matrix: {LD_PRELOAD: [/tmp/a.so, /tmp/b.so]}}
Y
repack
expect 3 "a manifest with slurm, podman, components: refused without --yes" "$BENCH" reproduce -q -o "$T/r6" "$B" </dev/null
for s in "runtime.engine                           podman" "runtime.launcher                         slurm" \
	"runtime.slurm.extra_args                 --wrap=sh /tmp/payload.sh" "stack.base                               docker.io/library/debian:bookworm" \
	"stack.components.blas                    git https://example.invalid/blas.git at main" \
	"stack.components.blas.build              sh ./evil.sh" "stack.components.torch                   pip 2.5.0 from https://example.invalid/simple" \
	"suites.gemm.env_matrix.LD_PRELOAD        /tmp/a.so"; do
	expect_err "$s"
done
# the lock is shown: what a locked build fetches and builds (review B2, B3: the lock's wheel URL and git commit,
# not the manifest's index and ref, are what is installed and built)
cat >"$D/manifest.lock.json" <<J
{"schema": "bench.lock/v1", "manifest_sha256": "0", "base": {"ref": "docker.io/library/debian:bookworm",
 "digest": "sha256:1111111111111111111111111111111111111111111111111111111111111111"},
 "components": {"blas": {"source": "git", "git": "https://example.invalid/other.git", "ref": "main",
  "commit": "aa20aa20aa20aa20aa20aa20aa20aa20aa20aa20"},
  "torch": {"source": "pip", "index": "https://example.invalid/simple", "version": "2.5.0",
  "url": "file:///tmp/evilidx/torch-2.5.0-py3-none-any.whl", "sha256": "2222222222222222222222222222222222222222222222222222222222222222",
  "packages": [{"name": "torch", "version": "2.5.0", "url": "file:///tmp/evilidx/torch-2.5.0-py3-none-any.whl",
   "sha256": "2222222222222222222222222222222222222222222222222222222222222222"},
   {"name": "evil", "version": "1.0", "url": "https://evil.invalid/evil-1.0-py3-none-any.whl",
   "sha256": "3333333333333333333333333333333333333333333333333333333333333333"}]}}}
J
repack
expect 3 "a manifest with a lock: refused without --yes" "$BENCH" reproduce -q -o "$T/r6" "$B" </dev/null
for s in "stack.components.blas.locked             git https://example.invalid/blas.git (the lock names https://example.invalid/other.git) commit aa20aa20aa20aa20aa20aa20aa20aa20aa20aa20" \
	"stack.components.torch.locked            pip file:///tmp/evilidx/torch-2.5.0-py3-none-any.whl sha256 2222222222222222222222222222222222222222222222222222222222222222" \
	"stack.components.torch.locked            package evil 1.0: https://evil.invalid/evil-1.0-py3-none-any.whl sha256 3333333333333333333333333333333333333333333333333333333333333333" \
	"stack.base.locked                        sha256:1111111111111111111111111111111111111111111111111111111111111111"; do
	expect_err "$s"
done
rm -f "$D/manifest.lock.json"
# a host stack's path component
host_manifest <<Y
stack:
  components:
    - {name: blas, path: /opt/evil, libs: [libopenblas.so.0]}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 3 "a host stack's path component: refused without --yes" "$BENCH" reproduce -q -o "$T/r7" "$B" </dev/null
expect_err "stack.components.blas                    path /opt/evil (its libraries loaded first by every runner) libs: libopenblas.so.0"
# a signer's names and values never reach the terminal raw (review 31r2 B01, B02): the validation errors of the
# bundle's manifest quote its env names through the escaper, and --dry-run's command lines its values
rawctl() { # file: exit 0 when it holds ESC, BEL, C1 (U+0085, U+009B) or U+202E as raw bytes
	LC_ALL=C grep -q -e "$(printf '\033')" -e "$(printf '\007')" -e "$(printf '\302\205')" -e "$(printf '\302\233')" \
		-e "$(printf '\342\200\256')" "$1"
}
host_manifest <<'Y'
stack:
  env:
    "\e[2J\e]0;pwn\aLD_PRELOAD": /tmp/x
    "\u202eDAOLERP_DL": x
    "\x85X\x9b": y
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$FAKE expect 3 "env names holding ESC, OSC, C1, U+202E: refused" "$BENCH" reproduce --dry-run -o "$T/r8" "$B" </dev/null
expect_err "environment variable name '\\x1b[2J\\x1b]0;pwn\\x07LD_PRELOAD'"
expect_err "environment variable name '\\xe2\\x80\\xaeDAOLERP_DL'"
expect_err "environment variable name '\\xc2\\x85X\\xc2\\x9b'"
rawctl "$T/err" && { not_ok "raw control bytes in reproduce's errors"; show "$T/err"; } || ok "no raw control byte in reproduce's errors"
cp "$D/manifest.yaml" "$T/badnames.yaml"
expect 3 "validate: the same names refused" "$BENCH" validate "$T/badnames.yaml"
expect_err "environment variable name '\\x1b[2J\\x1b]0;pwn\\x07LD_PRELOAD'"
rawctl "$T/err" && { not_ok "raw control bytes in validate's errors"; show "$T/err"; } || ok "no raw control byte in validate's errors"
expect 3 "validate --json: the same names refused" "$BENCH" validate --json "$T/badnames.yaml"
expect_out "environment variable name '\\u001B[2J\\u001B]0;pwn\\u0007LD_PRELOAD'"
rawctl "$T/out" && { not_ok "raw control bytes in validate --json"; show "$T/out"; } || ok "no raw control byte in validate --json (31r2 B04)"
host_manifest <<'Y'
stack:
  env:
    V1: "a\x9b31mRED\x85b"
    V2: "\u202eevil"
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]], env_matrix: {V3: ["x\x9by", "\u2066z"]}}
Y
BENCH_RUNNERS=$FAKE expect 0 "values holding C1 and U+202E: --dry-run prints the commands" "$BENCH" reproduce --dry-run -o "$T/r9" "$B" </dev/null
expect_out "V1=a\\xc2\\x9b31mRED\\xc2\\x85b"
expect_out "V2=\\xe2\\x80\\xaeevil"
expect_out "V3=x\\xc2\\x9by"
rawctl "$T/out" && { not_ok "raw control bytes in --dry-run's commands"; show "$T/out"; } || ok "no raw control byte in --dry-run's commands"
rawctl "$T/err" && { not_ok "raw control bytes in the gate"; show "$T/err"; } || ok "no raw control byte in the gate"
# a dry run or an unconfirmed one leaves no directory behind (review r31z row 24): not runs/ in the working
# directory, not the parents -o names; a directory that was there is kept
env_manifest "OMP_NUM_THREADS: 4"
here=$(pwd)
mkdir -p "$T/cwd" && cd "$T/cwd" || exit 1
expect 0 "reproduce --dry-run in an empty directory" "$BENCH" reproduce --dry-run "$B"
[ -z "$(ls -A "$T/cwd")" ] && ok "dry run: no runs/ left" || { not_ok "dry run left: $(ls -A "$T/cwd")"; }
expect 3 "reproduce unconfirmed in an empty directory" "$BENCH" reproduce "$B" </dev/null
[ -z "$(ls -A "$T/cwd")" ] && ok "unconfirmed: no runs/ left" || { not_ok "unconfirmed left: $(ls -A "$T/cwd")"; }
expect 0 "reproduce --dry-run -o a/b/c" "$BENCH" reproduce --dry-run -o a/b/c "$B"
[ -z "$(ls -A "$T/cwd")" ] && ok "-o a/b/c: none of a, a/b, a/b/c left" || { not_ok "left: $(find "$T/cwd")"; }
mkdir -p "$T/cwd/keep/x"
expect 3 "reproduce unconfirmed -o keep/y" "$BENCH" reproduce -o keep/y "$B" </dev/null
[ -d "$T/cwd/keep/x" ] && [ ! -e "$T/cwd/keep/y" ] && ok "an existing directory kept, the one made removed" || not_ok "keep/"
cd "$here" || exit 1
# the exact command of a dry run shows the PATH, LD_LIBRARY_PATH and PYTHONPATH a host stack gives the runner
# (review r31z row 11: LD_LIBRARY_PATH of a path component was left out)
z=$(ldconfig -p 2>/dev/null | sed -n 's/.*libz\.so\.1 (.*x86-64.*) => //p' | head -n 1)
[ -n "$z" ] || z=$(ldconfig -p 2>/dev/null | sed -n 's/.*libz\.so\.1 .* => //p' | head -n 1)
mkdir -p "$T/hl/lib" "$T/hl/bin" && cp "$z" "$T/hl/lib/"
cat >"$T/hl.yaml" <<Y
bench: 1
name: hl
target: {vendor: cpu}
stack:
  components:
    - {name: z, path: $T/hl}
runtime: {engine: host, launcher: local}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]]}
Y
expect 0 "lock of a host stack with a path component" "$BENCH" lock "$T/hl.yaml"
BENCH_RUNNERS=$FAKE expect 0 "run --dry-run --locked" "$BENCH" run --dry-run --locked "$T/hl.yaml"
grep "^# gemm: " "$T/out" | grep -q "LD_LIBRARY_PATH=$T/hl/lib" && ok "the command shows LD_LIBRARY_PATH=$T/hl/lib" ||
	{ not_ok "no LD_LIBRARY_PATH in the command"; show "$T/out"; }
BENCH_RUNNERS=$FAKE LD_LIBRARY_PATH=/opt/was expect 0 "run --dry-run --locked, LD_LIBRARY_PATH set" "$BENCH" run --dry-run --locked "$T/hl.yaml"
grep "^# gemm: " "$T/out" | grep -q "LD_LIBRARY_PATH=$T/hl/lib:/opt/was " && ok "the stack's directory first, bench's value after" ||
	{ not_ok "LD_LIBRARY_PATH order"; show "$T/out"; }
grep "^# gemm: " "$T/out" | grep -q "PATH=$T/hl/bin:" && ok "and PATH with the stack's bin first" || not_ok "PATH"
rm -f "$T"/hl.lock.json "$T"/hl*.lock.json
BENCH_RUNNERS=$FAKE expect 0 "run --dry-run without a lock" "$BENCH" run --dry-run "$T/hl.yaml"
expect_out "the host stack is not loaded here (no lock: bench lock, then --locked)"
finish
