#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The bundle fuzz target's long run (issue #31: at least 1,000,000 executions in total, no crash) on a machine with
# idle cores: the lent GPU machine's 16 CPU cores (no GPU used). Its executions cost ~4 ms of CPU each under ASan
# (CONTRIBUTING.md, tests/fuzz/), so 1M is ~70 CPU-minutes: hours on the shared 2-core build machine, a few
# minutes spread over 14 processes there. Each process fuzzes its own copy of tests/fuzz/corpus-bundle with its own
# seed; the executions are summed.
#
#   here:  sh tests/gpu/fuzz-bundle-1m.sh prepare      make fuzz, then .carry/fuzz/ (fuzz_bundle and the non-glibc
#                                                      libraries it loads, ~56 MB; run after prepare-carry.sh,
#                                                      which empties .carry/)
#   there: sh tests/gpu/fuzz-bundle-1m.sh run [PROCS [RUNS [SECS]]]  carry .carry/fuzz; PROCS processes (14) of RUNS
#                                                      executions each (75000), at most SECS (540) s
#
# run writes under $OUT/fuzz/: summary.txt (per process: exit status, executions, exec/s, last stats line; the
# total; the verdict), log-N (each process's libFuzzer output), art/ (crash, leak, timeout or OOM inputs, if any)
# and corpus-add/ (inputs that add coverage to the committed corpus: copy them into tests/fuzz/corpus-bundle/).
# Exit 0 when no process found anything and the total reached 1,000,000; 1 otherwise.
set -eu
cd "$(dirname "$0")/../.."
F=.carry/fuzz

case ${1:-} in
prepare)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s fuzz
	rm -rf "$F"
	mkdir -p "$F/lib"
	# without its DWARF (the carry is at most 64 MiB; libicudata alone is 30 MB): a report still names functions
	strip --strip-debug -o "$F/fuzz_bundle" build/fuzz/fuzz_bundle
	ldd build/fuzz/fuzz_bundle | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
		case $(basename "$lib") in
		libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*|libresolv.so*) ;;
		*) cp -L "$lib" "$F/lib/" ;;
		esac
	done
	du -sh "$F"
	;;
run)
	procs=${2:-14}
	runs=${3:-75000}
	secs=${4:-540}
	O=${OUT:?set OUT}/fuzz
	W=$(mktemp -d)
	FB=$PWD/$F/fuzz_bundle
	mkdir -p "$O/art" "$O/corpus-add"
	# BENCH_DATA: the tree here, not the build machine's path compiled into the target
	export LD_LIBRARY_PATH="$PWD/$F/lib" BENCH_DATA="$PWD" TMPDIR="$W"
	"$FB" -help=1 >/dev/null 2>&1 || { echo "fuzz_bundle does not start:"; "$FB" -help=1 2>&1 | tail -n 5; exit 1; }
	i=1
	while [ "$i" -le "$procs" ]; do
		mkdir -p "$W/p$i/corpus"
		cp tests/fuzz/corpus-bundle/* "$W/p$i/corpus/"
		(cd "$W/p$i" && "$FB" -runs="$runs" -seed="$i" -max_total_time="$secs" -timeout=10 \
			-rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$O/art/p$i-" corpus >"$O/log-$i" 2>&1
		 echo $? >"$W/p$i/rc") &
		i=$((i + 1))
	done
	wait
	total=0 bad=0
	: >"$O/summary.txt"
	i=1
	while [ "$i" -le "$procs" ]; do
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$O/log-$i")
		eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$O/log-$i")
		rc=$(cat "$W/p$i/rc")
		[ "$rc" = 0 ] && [ -n "$n" ] || bad=$((bad + 1))
		total=$((total + ${n:-0}))
		echo "process $i: exit $rc, ${n:-?} executions, ${eps:-?} exec/s; $(grep -E '^#[0-9]+' "$O/log-$i" | tail -n 1)" >>"$O/summary.txt"
		i=$((i + 1))
	done
	narts=$(ls "$O/art" | wc -l)
	# the new inputs that add coverage to the committed corpus (the corpus of every process, merged)
	mkdir -p "$W/merged"
	cp tests/fuzz/corpus-bundle/* "$W/merged/"
	(cd "$W" && "$FB" -merge=1 merged p*/corpus >"$O/merge.log" 2>&1) || echo "merge failed: $O/merge.log" >>"$O/summary.txt"
	for f in "$W"/merged/*; do
		[ -e "tests/fuzz/corpus-bundle/$(basename "$f")" ] || cp "$f" "$O/corpus-add/"
	done
	{
		echo "total: $total executions in $procs processes; $bad process(es) failed; $narts artifact(s); $(ls "$O/corpus-add" | wc -l) new corpus input(s) ($(du -sk "$O/corpus-add" | cut -f1) KB)"
		if [ "$bad" = 0 ] && [ "$narts" = 0 ] && [ "$total" -ge 1000000 ]; then echo "verdict: ok"; else echo "verdict: NOT ok"; fi
	} >>"$O/summary.txt"
	cat "$O/summary.txt"
	rm -rf "$W"
	[ "$bad" = 0 ] && [ "$narts" = 0 ] && [ "$total" -ge 1000000 ]
	;;
*)
	echo "usage: sh tests/gpu/fuzz-bundle-1m.sh prepare | run [PROCS [RUNS]]" >&2
	exit 2
	;;
esac
