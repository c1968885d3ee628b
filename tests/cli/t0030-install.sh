#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# serial: buildtree (make in the checkout: each make rewrites build/gen/version.h through one .tmp file)
# make install PREFIX=DIR gives a bench that runs from anywhere: the quickstart from another directory with every
# record ok (runners from DIR/libexec/bench, python runners and data from DIR/share/bench), env profiles found,
# `bench build` reading its runner sources (the same build context digest as the source tree's), bench-nightly
# finding the bench beside it; DESTDIR honoured, and the installed tree still works after it is moved.
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
B=${BENCH_RUNNERS%/runners} # the build tree of the binary under test (build, build/asan), as the Makefile names it
B=${B#"$ROOT"/}
P=$T/prefix
expect 0 "make install PREFIX=$P" make -s --no-print-directory install BUILD="$B" PREFIX="$P"
for f in bin/bench bin/bench-nightly libexec/bench/bench-gemm libexec/bench/bench-membw libexec/bench/bench-coll \
	share/bench/images/bases/peaks.yaml share/bench/images/profiles/rocm-seed-tuning.yaml \
	share/bench/manifests/quickstart.yaml share/bench/runners/torch/train.py share/bench/runners/gemm/gemm.c \
	share/bench/Makefile share/man/man1/bench.1; do
	[ -f "$P/$f" ] && ok "installed $f" || not_ok "not installed: $f"
done

# from another directory, with nothing of the source tree in the environment
mkdir -p "$T/elsewhere"
cd "$T/elsewhere" || exit 1
unset BENCH_DATA BENCH_RUNNERS
expect 0 "installed bench runs the quickstart from another directory" "$P/bin/bench" run "$P/share/bench/manifests/quickstart.yaml"
D=$T/elsewhere/$(sed -n 1p "$T/out")
if records_ok "$D" 20; then
	ok "every record ok: $(cat "$T/check.out")"
else
	not_ok "quickstart records of the installed bench"; show "$T/check.out"
fi
grep -qF "$P/libexec/bench/bench-gemm" "$D/logs/gemm.log" && ok "bench-gemm ran from PREFIX/libexec/bench" ||
	{ not_ok "bench-gemm not from PREFIX/libexec/bench"; show "$D/logs/gemm.log"; }
grep -qF "$P/share/bench/runners/torch/train.py" "$D/logs/training.log" && ok "train.py ran from PREFIX/share/bench" ||
	{ not_ok "train.py not from PREFIX/share/bench"; show "$D/logs/training.log"; }
expect 0 "the installed bench verifies its bundle" "$P/bin/bench" verify "$D.bench.tar.gz"

expect 0 "validate every installed manifest (env profiles found)" "$P/bin/bench" validate "$P"/share/bench/manifests/*.yaml
expect 0 "plan the env-variants manifest" "$P/bin/bench" plan "$P/share/bench/manifests/rocm-env-variants.yaml"
expect_out "rocm-env-variants+seed-tuned"

# bench build: the context holds the installed runner sources, byte for byte the source tree's (same digest); the
# build itself stops at the engine (apptainer is not installed on the CI machine)
if command -v apptainer >/dev/null 2>&1; then ok "apptainer is installed here: the build context check is left out"; else
	cp "$P/share/bench/manifests/cpu-openblas.yaml" .
	python3 "$ROOT/tests/recipe/mklock.py" cpu-openblas.yaml cpu-openblas.lock.json
	BENCH_HOME=$T/h1 expect 5 "installed bench build: context written, no apptainer" "$P/bin/bench" build --engine apptainer cpu-openblas.yaml
	expect_err "engine 'apptainer' is not installed here"
	ctx=$(ls -d "$T"/h1/cache/build/cpu-openblas-*)
	[ -f "$ctx/bench/Makefile" ] && [ -f "$ctx/bench/runners/torch/train.py" ] && [ -f "$ctx/bench/runners/gemm/gemm.c" ] &&
		ok "the build context has the runner sources" || not_ok "the build context lacks the runner sources"
	mine=$(sed -n 's|.*/bench-cpu-openblas-\([0-9a-f]*\)\.sif.*|\1|p' "$T/err")
	BENCH_HOME=$T/h2 BENCH_DATA=$ROOT "$BENCH" build --engine apptainer cpu-openblas.yaml >/dev/null 2>"$T/err2"
	tree=$(sed -n 's|.*/bench-cpu-openblas-\([0-9a-f]*\)\.sif.*|\1|p' "$T/err2")
	[ -n "$mine" ] && [ "$mine" = "$tree" ] && ok "same build context digest as the source tree's ($mine)" ||
		not_ok "build context digest: installed '$mine', source tree '$tree'"
fi

# bench-nightly runs the bench beside it, not one on PATH
PATH=/usr/bin:/bin expect 1 "bench-nightly runs the bench beside it (a missing manifest: its lock exits 1)" \
	"$P/bin/bench-nightly" "$T/none.yaml" "$T/repo"
expect_err "bench: error: cannot open '$T/none.yaml'"
expect_err "bench-nightly: lock failed (exit 1)"

# DESTDIR: staged under it, then moved: nothing of PREFIX is compiled in
cd "$ROOT" || exit 1
expect 0 "make install DESTDIR=... PREFIX=/opt/bench" make -s --no-print-directory install BUILD="$B" DESTDIR="$T/stage" PREFIX=/opt/bench
[ -x "$T/stage/opt/bench/bin/bench" ] && [ -x "$T/stage/opt/bench/libexec/bench/bench-gemm" ] && ok "installed under DESTDIR" ||
	not_ok "nothing under DESTDIR"
mv "$T/stage/opt/bench" "$T/moved"
cd "$T/elsewhere" || exit 1
expect 0 "the moved install runs the quickstart's gemm" "$T/moved/bin/bench" run -q -s gemm -o "$T/moved-runs" "$T/moved/share/bench/manifests/quickstart.yaml"
grep -qF "$T/moved/libexec/bench/bench-gemm" "$(sed -n 1p "$T/out")/logs/gemm.log" && ok "its runner from the moved libexec" ||
	not_ok "the moved install's runner"
cd "$ROOT" || exit 1
finish
