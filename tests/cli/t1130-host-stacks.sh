#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Host stacks (docs/stacks.md, "Host stacks"): two stacks of bench-gemm's CBLAS backend on this machine, without a
# container engine, whose libopenblas.so.0 comes from different prefixes: Debian's packaged OpenBLAS (a path
# component, pinned by its libraries' sha256) and minblas (tests/fixtures/minblas), built by bench from a git ref
# into a content-addressed prefix under $BENCH_HOME/stacks. Locked, built once (the second build a timed no-op,
# a second manifest of the same pin shares the prefix), interleaved for 3 rounds and compared; each record names
# the library it loaded, from its own stack's prefix, with its sha256; nothing of one stack in the other's
# environment; a prefix altered after lock caught by lock --check (exit 4) and failed by run --locked (exit 7); a
# new commit on the ref moves the lock and builds a new prefix; a pip component's closure in a virtual environment;
# every bad input a clear error with its exit code.
. "$(dirname "$0")/lib.sh"
SRC=$PWD
PKG=/usr/lib/x86_64-linux-gnu/openblas-pthread

# the minblas repository: tag v1 on main
G="$T/minblas"
git init -q -b main "$G"
cp "$SRC/tests/fixtures/minblas/blas.c" "$SRC/tests/fixtures/minblas/Makefile" "$G/"
git -C "$G" add . && git -C "$G" -c user.email=t@t -c user.name=t commit -qm v1 && git -C "$G" tag v1

# hostman NAME CHANNEL COMPONENT...: $T/NAME.yaml, an engine host stack measuring two small CBLAS sgemm shapes
hostman() {
	name=$1 channel=$2
	shift 2
	{ printf 'bench: 1\nname: %s\nchannel: %s\ntarget: {vendor: cpu, gpu: cpu, nodes: 1, gpus_per_node: 1}\n' "$name" "$channel"
	  printf 'stack:\n  env: {OPENBLAS_NUM_THREADS: "1"}\n  components:\n'
	  for c in "$@"; do printf '    - %s\n' "$c"; done
	  printf 'runtime: {engine: host, launcher: local, timeout: 5m}\n'
	  printf 'suites:\n  gemm: {backends: [cblas], dtypes: [fp32], layouts: [tn, nn], shapes: [[64, 64, 64], [128, 128, 128]],\n'
	  printf '         warmup: 5ms, rep: 40ms, flush_bytes: 8MiB}\n'; } >"$T/$name.yaml"
}
BUILD='build: "make install PREFIX=\"$BENCH_PREFIX\""'
hostman packaged stable "{name: openblas, path: $PKG, libs: [\"libopenblas*\"]}"
hostman minblas dev "{name: minblas, git: \"file://$G\", ref: v1, $BUILD}"
hostman minblas-again dev "{name: minblas, git: \"file://$G\", ref: v1, $BUILD}"

expect 0 "validate both stacks" "$BENCH" validate "$T/packaged.yaml" "$T/minblas.yaml"
expect 0 "lock the packaged stack" "$BENCH" lock "$T/packaged.yaml"
expect_err "bench: lock: openblas: path $PKG -> 1 library: libopenblas.so.0 (sha256 "
expect 0 "lock --check right after lock" "$BENCH" lock --check "$T/packaged.yaml"
expect 0 "lock the minblas stack" "$BENCH" lock "$T/minblas.yaml"
V1=$(git -C "$G" rev-parse v1)
expect_err "bench: lock: minblas: git v1 of file://$G -> $V1"

# built once into $BENCH_HOME/stacks/<digest>/minblas; the second build is a no-op
t0=$(date +%s.%N)
expect 0 "build minblas" "$BENCH" build "$T/minblas.yaml"
t1=$(date +%s.%N)
expect_err "bench: build: minblas: [1/1] make install PREFIX=\"\$BENCH_PREFIX\""
expect_err "bench: build: minblas: built in "
PREFIX=$(cut -f3 "$T/out")
case $PREFIX in "$BENCH_HOME"/stacks/*/minblas) ok "the prefix is content-addressed under \$BENCH_HOME/stacks: $PREFIX" ;;
*) not_ok "prefix: $PREFIX" ;; esac
[ -f "$PREFIX/lib/libopenblas.so.0" ] && ok "the build installed libopenblas.so.0 into its prefix" || not_ok "no library"
[ -s "$(dirname "$PREFIX")/build.log" ] && grep -q '"seconds"' "$(dirname "$PREFIX")/build.json" &&
	ok "build.log and build.json (with the build time) beside the prefix" || not_ok "build record"
LOGM=$(stat -c %Y "$(dirname "$PREFIX")/build.json")
t2=$(date +%s.%N)
expect 0 "build minblas again" "$BENCH" build "$T/minblas.yaml"
t3=$(date +%s.%N)
expect_err "bench: build: minblas: up to date in $PREFIX"
[ "$(stat -c %Y "$(dirname "$PREFIX")/build.json")" = "$LOGM" ] && ok "the second build rebuilt nothing" || not_ok "rebuilt"
echo "# first build $(echo "$t1 - $t0" | bc) s, second build $(echo "$t3 - $t2" | bc) s"
expect 0 "lock a second manifest of the same pin" "$BENCH" lock "$T/minblas-again.yaml"
expect 0 "build it" "$BENCH" build "$T/minblas-again.yaml"
expect_err "bench: build: minblas: up to date in $PREFIX"

# three interleaved rounds, then compare
cd "$T" || exit 1
expect 0 "run --rounds 3 packaged minblas" "$BENCH" run -q --rounds 3 packaged.yaml minblas.yaml
n=$(ls -d runs/packaged-*/ runs/minblas-*/ 2>/dev/null | wc -l)
[ "$n" = 6 ] && ok "six runs" || not_ok "runs: $n"
if python3 - "$PKG" "$PREFIX" "$BENCH_HOME" <<'PY'
import glob, json, os, sys
pkg, prefix, home = sys.argv[1:]
for side, where, comp, ver in (("packaged", pkg + "/", "openblas", "0.3"), ("minblas", prefix + "/lib/", "minblas", "0.1")):
    runs = glob.glob(f"runs/{side}-*/")
    assert len(runs) == 3, runs
    for d in runs:
        env = json.load(open(d + "env/environment.json"))
        pre = env["host_stack"]["prepended"]["LD_LIBRARY_PATH"]
        if side == "packaged":  # libs: [libopenblas*]: a view of links to the named libraries only
            assert len(pre) == 1 and pre[0].startswith(home + "/stacks/view-"), pre
            assert os.listdir(pre[0]) == ["libopenblas.so.0"], os.listdir(pre[0])
        else:
            assert pre == [prefix + "/lib"], pre
        other = prefix if side == "packaged" else pkg
        assert other not in json.dumps(env["host_stack"]), (side, "the other stack leaked")
        for line in open(d + "results/gemm.jsonl"):
            rec = json.loads(line)
            assert rec["status"] == "ok", rec.get("error")
            blas = [l for l in rec["loaded"] if l["soname"] == "libopenblas.so.0"]
            assert len(blas) == 1 and blas[0]["path"].startswith(where), (side, blas)
            assert blas[0]["component"] == comp and len(blas[0]["sha256"]) == 64, blas
            assert (blas[0]["version"] or "").startswith(ver), blas
            assert not rec.get("loaded_not_pinned"), rec["loaded_not_pinned"]
PY
then ok "every record loaded its own stack's libopenblas.so.0 (path, component, sha256, version); only the named libraries put first; no leak"; else not_ok "loaded"; fi
expect 0 "compare packaged vs minblas" "$BENCH" compare $(ls -d runs/packaged-*/) --vs $(ls -d runs/minblas-*/)
n=$(grep -c ' slower' "$T/out")
[ "$n" -ge 4 ] && ok "the naive build is slower on all 4 cases ($n lines)" || { not_ok "slower: $n"; show "$T/out"; }
expect_out "libopenblas.so.0"
expect 0 "compare --format json" "$BENCH" compare -f json $(ls -d runs/packaged-*/) --vs $(ls -d runs/minblas-*/)
if python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
what = [d["what"] for d in j["stack_differs"]]
lib = [i for i, w in enumerate(what) if w.startswith("loaded.")]
assert lib and lib[0] == 0, what
assert any("libopenblas.so.0" in w for w in what), what
' "$T/out"; then ok "the loaded-library differences come first in the stack diff"; else not_ok "stack diff order"; show "$T/out"; fi
cd "$SRC" || exit 1

# a prefix altered after lock: lock --check names the library (exit 4); run --locked fails the cases (exit 7)
mkdir -p "$T/copy/lib"
cp -L "$PKG/libopenblas.so.0" "$T/copy/lib/libopenblas.so.0"
hostman copy stable "{name: openblas, path: $T/copy}"
expect 0 "lock a copied prefix" "$BENCH" lock "$T/copy.yaml"
expect 0 "run --locked before it changes" "$BENCH" run -q --locked "$T/copy.yaml" -o "$T/r1"
printf 'x' >>"$T/copy/lib/libopenblas.so.0"
expect 4 "lock --check after the library changed" "$BENCH" lock --check "$T/copy.yaml"
expect_err "bench: moved: openblas: $T/copy: libopenblas.so.0 sha256 "
expect 7 "run --locked after the library changed" "$BENCH" run -q --locked "$T/copy.yaml" -o "$T/r2"
expect_err "loaded-not-pinned"
if grep -q "loaded-not-pinned: openblas: loaded $T/copy/lib/libopenblas.so.0 with sha256 " "$T"/r2/*/status.json; then
	ok "status.json: the altered library, its sha256 and the lock's"; else not_ok "status.json reason"; show "$T/err"; fi

# a new commit on the ref: the lock moves, the build makes a new prefix, then is a no-op again
hostman minblas-main dev "{name: minblas, git: \"file://$G\", ref: main, $BUILD}"
expect 0 "lock minblas at main" "$BENCH" lock -q "$T/minblas-main.yaml"
expect 0 "build it (the same commit as v1: shared)" "$BENCH" build "$T/minblas-main.yaml"
expect_err "up to date in $PREFIX"
sed -i 's/naive/naive, second commit/' "$G/blas.c"
git -C "$G" -c user.email=t@t -c user.name=t commit -qam "dev: a second commit"
expect 4 "lock --check sees main moved" "$BENCH" lock --check "$T/minblas-main.yaml"
expect_err "bench: moved: minblas:"
expect 0 "lock again" "$BENCH" lock -q "$T/minblas-main.yaml"
expect 0 "build the new pin" "$BENCH" build "$T/minblas-main.yaml"
expect_err "bench: build: minblas: built in "
P2=$(cut -f3 "$T/out")
[ "$P2" != "$PREFIX" ] && [ -f "$P2/lib/libopenblas.so.0" ] && ok "a new prefix for the new commit" || not_ok "prefix $P2"
expect 0 "build it again" "$BENCH" build "$T/minblas-main.yaml"
expect_err "up to date in $P2"

# a pip component: its locked closure in a virtual environment of its own
python3 - "$T/idx" "$SRC/tests/cli" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from wheelindex import page, wheel
wheel(sys.argv[1], "hello-pkg", "1.0", ("py3", "none", "any"))
page(sys.argv[1])
PY
PYV=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
{ printf 'bench: 1\nname: piphost\ntarget: {vendor: cpu}\nruntime: {engine: host}\n'
  printf 'stack:\n  components:\n    - {name: hello-pkg, pip: "1.0", index: "file://%s/idx"}\n' "$T"
  printf 'suites: {membw: {}}\n'; } >"$T/piphost.yaml"
expect 0 "lock a pip component from a file:// index" "$BENCH" lock "$T/piphost.yaml"
expect_err "bench: lock: wheels for python $PYV (cp$(echo "$PYV" | tr -d .), abi cp$(echo "$PYV" | tr -d .)), manylinux_2_"
expect 0 "build its environment" "$BENCH" build --json "$T/piphost.yaml"
VPY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["python"])' "$T/out")
[ "$("$VPY" -c 'import hello_pkg; print(hello_pkg.__version__)' 2>&1)" = 1.0 ] &&
	ok "the environment's python imports the locked package: $VPY" || not_ok "venv: $VPY"
"$VPY" -c 'import sys; sys.exit(0 if sys.prefix != sys.base_prefix else 1)' && ok "a virtual environment of its own" || not_ok "not a venv"
expect 0 "build again" "$BENCH" build "$T/piphost.yaml"
expect_err "bench: build: hello-pkg: up to date in "

# bad input
hostman nopath stable "{name: blas, path: $T/nowhere}"
expect 4 "a path that does not exist" "$BENCH" lock "$T/nopath.yaml"
expect_err "component 'blas': path '$T/nowhere' does not exist"
mkdir -p "$T/empty/lib"
hostman empty stable "{name: blas, path: $T/empty}"
expect 4 "a path that holds no library" "$BENCH" lock "$T/empty.yaml"
expect_err "component 'blas': path '$T/empty' holds no shared library"
hostman two stable "{name: a, path: $PKG, libs: [\"libopenblas*\"]}" "{name: b, path: $T/copy}"
expect 3 "two components providing one library" "$BENCH" lock "$T/two.yaml"
expect_err "components 'a' and 'b' both provide libopenblas.so.0"
hostman relative stable "{name: blas, path: lib/openblas}"
expect 3 "a relative path" "$BENCH" validate "$T/relative.yaml"
expect_err "'path' of component 'blas' must be an absolute directory"
hostman apt stable "{name: blas, apt: libopenblas-dev, version: \"0.3.21+ds-4\"}"
expect 3 "an apt component on the host" "$BENCH" validate "$T/apt.yaml"
expect_err "component 'blas' is an apt package, which only an image installs"
sed 's/engine: host/engine: podman/; s/^stack:/stack:\n  base: "localhost\/debian:bookworm"/' "$T/packaged.yaml" >"$T/inpodman.yaml"
expect 3 "a path component in an image" "$BENCH" validate "$T/inpodman.yaml"
expect_err "component 'openblas' is a path on this machine, which only engine 'host' runs"
hostman fails dev "{name: minblas, git: \"file://$G\", ref: v1, build: \"echo compiling; exit 3\"}"
expect 0 "lock a build that fails" "$BENCH" lock -q "$T/fails.yaml"
expect 5 "a build that fails" "$BENCH" build "$T/fails.yaml"
expect_err "component 'minblas': build step 1 ('echo compiling; exit 3') failed (exit 3): compiling (whole log: "
hostman nothing dev "{name: minblas, git: \"file://$G\", ref: v1, build: \"make\"}"
expect 0 "lock a build that installs nothing" "$BENCH" lock -q "$T/nothing.yaml"
expect 5 "a build that installs nothing" "$BENCH" build "$T/nothing.yaml"
expect_err "component 'minblas' installed nothing into $BENCH_HOME/stacks/"
expect 5 "bench run of it: not started, exit 5" "$BENCH" run -q "$T/nothing.yaml" -o "$T/r3"
grep -q '"not-started"' "$T"/r3/*/status.json && ok "status.json: not-started, nothing measured lost" || not_ok "status"
hostman unlocked dev "{name: minblas, git: \"file://$G\", ref: v2}"
expect 3 "a run without a lock" "$BENCH" run -q "$T/unlocked.yaml" -o "$T/r4"
expect_err "no readable lock at '$T/unlocked.lock.json'"
finish
