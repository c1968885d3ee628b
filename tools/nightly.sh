#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tools/nightly.sh — one night of a rolling nightly (docs/nightly.md): lock MANIFEST afresh, so that its
# 'date: today' and 'date: latest' nightlies resolve to tonight's build; run it against that lock; publish the
# signed bundle into a results repository.
#
#   tools/nightly.sh MANIFEST RESULTS_REPO [RUNS_DIR]      (installed as bench-nightly)
#
# The lock is MANIFEST with .lock.json (rewritten on a night when a pin moved, else kept byte for byte, so that
# the image is reused; bench run --locked copies it into the run and its bundle as manifest.lock.json). The run
# directory and bundle go under RUNS_DIR (default: runs). $BENCH is the bench to run (default: the bench beside
# this script, as make install puts it, or ./bench of a source tree; else bench on PATH). Nothing read from the
# manifest is ever put into a shell command line here.
#
# Exit status: 0 when tonight's bundle is published; else that of the step that failed, the step named on stderr
# ("bench-nightly: lock failed (exit 4)"): bench lock (3 manifest or lock invalid, 4 no nightly of that date on the
# index), bench run (5 image build, 6 a suite failed, 7 a check failed or what ran is not what the lock pins: the
# run directory stays, not published), bench publish (6 an incomplete run, 8 the bundle does not verify); 2 usage.
# After a publish, bench gc --caches --lock LOCK RUNS_DIR removes the runs beyond the newest 10 of each manifest name
# (their bundles are in the results repository, which gc never touches), and the build contexts, git caches, host
# stacks and localhost/bench-* images that no kept run of RUNS_DIR and not tonight's lock names (BENCH_GC_CACHES=0:
# the runs only, for a machine whose $BENCH_HOME or engine also serves stacks that RUNS_DIR does not hold).
set -u
if [ -z "${BENCH:-}" ]; then # installed: the bench beside this script; in a source tree ./bench; else bench on PATH
	here=$(dirname "$0")
	BENCH=bench
	for b in "$here/bench" "$here/../bench"; do [ -f "$b" ] && [ -x "$b" ] && { BENCH=$b; break; }; done
fi
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: bench-nightly MANIFEST RESULTS_REPO [RUNS_DIR]" >&2
	exit 2
fi
manifest=$1
repo=$2
runs=${3:-runs}

lockfile=$("$BENCH" lock "$manifest")
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "bench-nightly: lock failed (exit $rc)" >&2
	exit "$rc"
fi
# bench run prints the run directory, then the bundle and its envelope
out=$("$BENCH" run -q --locked -o "$runs" "$manifest")
rc=$?
dir=$(printf '%s\n' "$out" | sed -n 1p)
bundle=$(printf '%s\n' "$out" | sed -n 2p)
if [ "$rc" -ne 0 ]; then
	echo "bench-nightly: run failed (exit $rc)${dir:+: $dir, not published}" >&2
	exit "$rc"
fi
if [ -z "$bundle" ]; then
	echo "bench-nightly: run wrote no bundle${dir:+ ($dir)}" >&2
	exit 1
fi
"$BENCH" publish --repo "$repo" "$bundle" >&2
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "bench-nightly: publish failed (exit $rc): $bundle" >&2
	exit "$rc"
fi
# retention: the runs beyond the newest 10 of each manifest name go (published: the repository holds their bundles;
# gc --repo would keep every published run, and a nightly publishes every night), and the caches, host stacks and
# images that no kept run and not tonight's lock names (BENCH_GC_CACHES=0: the runs only). A failed gc does not fail
# a published night.
if [ "${BENCH_GC_CACHES:-1}" = 0 ]; then
	"$BENCH" gc "$runs" >&2
else
	"$BENCH" gc --caches --lock "$lockfile" "$runs" >&2
fi || echo "bench-nightly: gc failed (exit $?); tonight's run is published" >&2
printf '%s\n' "$dir"
