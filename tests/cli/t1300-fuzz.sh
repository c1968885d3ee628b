#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# serial: buildtree (make in the checkout: each make rewrites build/gen/version.h through one .tmp file)
# The libFuzzer targets (tests/fuzz/) built with clang and run for a bounded time each, side by side: the manifest
# parser on tests/fuzz/corpus, a bundle read unverified through compare/report/show on tests/fuzz/corpus-bundle.
# ok when neither finds a crash, leak, timeout or out-of-memory; otherwise not ok with the input kept under
# build/fuzz/artifacts/ and the sanitizer's first lines. BENCH_FUZZ_SECONDS: seconds per target (15: the whole seed
# corpus first, every hostile bundle among it, then mutations; the long runs are by hand, CONTRIBUTING.md).
. "$(dirname "$0")/lib.sh"
S=${BENCH_DATA:?set BENCH_DATA to the source tree}
secs=${BENCH_FUZZ_SECONDS:-15}

if ! command -v clang >/dev/null 2>&1; then
	not_ok "clang is installed (make test-deps installs clang and libclang-rt-dev)"
	finish; exit
fi
# a make of its own: not the flags of a make test or make asan that runs this test; BUILD the build tree of the binary
# under test (build, build/asan), whose objects make fuzz reads the targets' list of objects off
B=${BENCH_RUNNERS:-$S/build/runners}
B=${B%/runners}
B=${B#"$S"/}
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$S" -j2 BUILD="$B" fuzz >"$T/build.log" 2>&1 &&
	[ -x "$S/build/fuzz/fuzz_manifest" ] && [ -x "$S/build/fuzz/fuzz_bundle" ]; then
	ok "make fuzz builds build/fuzz/fuzz_manifest and build/fuzz/fuzz_bundle"
else
	not_ok "make fuzz"
	tail -n 20 "$T/build.log" | sed 's/^/#   /'
	finish; exit
fi

# fuzz NAME CORPUS [ARGS...]: runs in $T on a copy of CORPUS (new inputs and artifacts stay out of the source tree)
fuzz() {
	name=$1 corpus=$2
	shift 2
	mkdir -p "$T/$name/corpus" "$T/$name/art"
	cp "$S/$corpus"/* "$T/$name/corpus/"
	(cd "$T/$name" && timeout $((secs + 120)) "$S/build/fuzz/$name" -max_total_time="$secs" -rss_limit_mb=1024 \
		-timeout=10 -print_final_stats=1 -artifact_prefix="$T/$name/art/$name-" "$@" corpus >log 2>&1
	 echo $? >rc)
}
fuzz fuzz_manifest tests/fuzz/corpus -dict="$S/tests/fuzz/yaml.dict" &
p1=$!
fuzz fuzz_bundle tests/fuzz/corpus-bundle &
p2=$!
wait "$p1" "$p2"

for name in fuzz_manifest fuzz_bundle; do
	L=$T/$name/log
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$L")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$L")
	art=$(ls "$T/$name/art" 2>/dev/null | head -n 1)
	if [ "$(cat "$T/$name/rc")" = 0 ] && [ -z "$art" ] && [ "${runs:-0}" -gt 0 ]; then
		ok "$name: ${secs} s, $runs inputs ($eps exec/s), no crash, leak, timeout or out-of-memory"
	else
		keep=
		if [ -n "$art" ]; then
			mkdir -p "$S/build/fuzz/artifacts"
			cp "$T/$name/art/$art" "$S/build/fuzz/artifacts/" && keep=$S/build/fuzz/artifacts/$art
		fi
		not_ok "$name (exit $(cat "$T/$name/rc"), ${runs:-no} inputs) input: ${keep:-none kept}"
		{ grep -m1 -A12 -E '==ERROR|ERROR: libFuzzer|runtime error|SUMMARY' "$L" || tail -n 12 "$L"; } | sed 's/^/#   /'
		[ -n "$keep" ] && echo "#   reproduce: $S/build/fuzz/$name $keep"
	fi
done
finish
