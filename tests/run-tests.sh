#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every unit test binary given as an argument and every tests/cli/t*.sh, all speaking TAP, several at a time
# (prove -j from Debian's perl), and ends with the line "N passed, N failed": N counts every "ok" and "not ok" line of
# every test; a test that exits non-zero without a "not ok" (a crash) counts one failure. Exit status 1 when anything
# failed. Each test's wall time is printed, the slowest listed at the end.
# A test that uses something another test also uses (the podman store, the Slurm daemons, chromium's profile, ...)
# says so in its header with a line "# serial: NAME [NAME...] (why)": tests that share a NAME run one after another,
# everything else in parallel; a test that runs long on one core says "# early: (why)" and starts first.
# CONTRIBUTING.md, "Tests", has the rules.
# Environment: BENCH (the binary under test), BENCH_DATA (the source tree); TEST_JOBS (how many at a time; default
# one more than the number of CPUs, at least 2); TESTS (the CLI tests to run instead of all: paths or tNNNN prefixes);
# TEST_LOGS (a directory that keeps each test's output, NAME.log); VERBOSE (print every test's output at the end);
# TEST_PYTHON (the tests' python3; default /usr/bin/python3 when it exists); TEST_MALLOC=default (glibc's and
# Python's own malloc settings instead of the heap in huge pages, below).
# Internal: `run-tests.sh --one DIR TEST` runs one test for prove, its output, status and time kept in DIR.
set -u
cd "$(dirname "$0")/.." || exit 1

# --one DIR TEST: run TEST (a unit binary or a .sh), its stdout and stderr into DIR/NAME.log; its status and wall
# time into DIR/NAME.res; then the log to stdout for prove to read (prove sees what the count below counts)
if [ "${1:-}" = --one ]; then
	dir=$2 t=$3
	name=$(basename "$t")
	start=$(date +%s.%N)
	case $t in
	*.sh) sh "$t" >"$dir/$name.log" 2>&1 ;;
	*) CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$dir/$name.log" 2>&1 ;;
	esac
	rc=$?
	end=$(date +%s.%N)
	# the CPU time of the test's processes (times: the children's user and system time, "XmY.YYYs" each); what
	# runs inside a container is not a child and is not counted
	times >"$dir/$name.cpu" # (a builtin in this shell: a pipe or $(...) would run it in a child, whose times are 0)
	cpu=$(tail -n 1 "$dir/$name.cpu" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%.1f", s }')
	echo "$rc $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') $cpu" >"$dir/$name.res"
	cat "$dir/$name.log"
	exit "$rc"
fi

# the tests are not part of the make that started them: a test's own make (the package's build, make dist, make fuzz)
# must not inherit its variables or its jobserver; make exports the variables of its command line to the commands
# it runs, so make asan's BUILD=build/asan, CC=clang, CFLAGS and SAN are in the environment too
unset MAKEFLAGS MFLAGS MAKELEVEL BUILD CC CFLAGS SAN
dir=${TEST_LOGS:-}
if [ -n "$dir" ]; then mkdir -p "$dir" && rm -f "$dir"/*.log "$dir"/*.res "$dir"/*.cpu "$dir/table" "$dir/times"; else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 130' INT TERM
fi
# python3 for the tests: $TEST_PYTHON when set, else Debian's /usr/bin/python3 (the interpreter make test-deps
# installs python3-torch, python3-cryptography and python3-pip for), else the interpreter PATH's python3 runs; first
# in PATH as a symbolic link, so that nothing starts in front of it. Why: on the CI machine the first python3 on PATH
# is pyenv's shim (a bash script that starts some fifteen processes) for a separately built Python whose
# site-packages imports certifi, typing and pathlib at every start through a .pth file: 76 ms of CPU a start against
# Debian's 27 ms, and the tests start python3 thousands of times (their checks, the fake runners, bench's runners)
py=${TEST_PYTHON:-}
[ -z "$py" ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
[ -z "$py" ] && py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$py" != "$(command -v python3)" ]; then
	mkdir -p "$dir/bin"
	ln -sf "$py" "$dir/bin/python3"
	PATH=$dir/bin:$PATH
	export PATH
fi
# the tests' processes take their heap in transparent huge pages (glibc's malloc asks for them with madvise; Python's
# objects from that heap): a page fault costs some 12 us of CPU on the CI machine (a virtual machine), and the tests
# fault some 25 million pages, most of them heap. What the tests check does not depend on it; a figure the runners
# measure here is no claim. TEST_MALLOC=default keeps the system's defaults.
if [ "${TEST_MALLOC:-}" != default ]; then
	GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1} PYTHONMALLOC=${PYTHONMALLOC:-malloc}
	export GLIBC_TUNABLES PYTHONMALLOC
fi
if [ -n "${TESTS:-}" ]; then
	cli=
	for x in $TESTS; do
		case $x in */*) cli="$cli $x" ;; *) cli="$cli $(ls tests/cli/"$x"*.sh)" ;; esac
	done
else
	cli=$(ls tests/cli/t[0-9]*.sh)
fi
# the tests that declare "# early: (why)": what runs long on one core (an image made from debootstrap, a fresh
# machine's install in a container) starts first, never alone at the end while the other core waits (prove's rules
# below)
early=$(for t in $cli; do grep -q '^# early:' "$t" && echo "$t"; done)
# one more than the CPUs: a test often waits (a sleep, a daemon, podman, the disk), and one more keeps both CPUs of
# the CI machine busy (a whole .ci/run: 1218 s with 2 at a time, 889 s with 3, both CPUs 99% busy)
jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 1))}
[ "$jobs" -ge 2 ] 2>/dev/null || jobs=2
wall0=$(date +%s)

# the serial groups: tests that declare a NAME in common, chained (a test with two NAMEs joins both chains into one),
# one prove rule "seq={a,b,...}" per chain, then one "seq=t" per other test: all at one depth of prove's schedule,
# which takes them in this order (a bare "par=**" would hold the chains back until every other test had started)
rules=$(for t in $cli; do
	names=$(sed -n 's/^# serial:\([^(]*\).*/\1/p' "$t" | tr '\n' ' ')
	[ -n "$names" ] && echo "$t $names"
done | awk '
	function find(x) { while (up[x] != x) x = up[x]; return x }
	{ for (i = 2; i <= NF; i++) { n = "=" $i; if (!(n in up)) up[n] = n; up[find(n)] = find("=" $2) }
	  tests[NR] = $1; first[NR] = "=" $2 }
	END {
		for (i = 1; i <= NR; i++) {
			g = find(first[i])
			if (!(g in o)) { o[g] = ++k; line[k] = tests[i] } else line[o[g]] = line[o[g]] "," tests[i]
		}
		for (i = 1; i <= k; i++) print (index(line[i], ",") ? "--rules=seq={" line[i] "}" : "--rules=seq=" line[i])
	}')

if command -v prove >/dev/null 2>&1; then
	# shellcheck disable=SC2086 # the rules and test paths hold no spaces
	serial=$(echo "$rules" | sed 's/^--rules=seq=//' | tr -d '{}' | tr '\n' ',')
	# the order: the chains that hold an early test, the other early tests, the other chains, the unit binaries, the
	# rest
	chains=$rules rules= seen=
	for r in $chains; do
		for t in $early; do case "$r," in *"=$t,"* | *"{$t,"* | *",$t,"* | *",$t}"*) rules="$rules $r" seen="$seen $r" && break ;; esac; done
	done
	for t in $early; do case ",$serial," in *",$t,"*) ;; *) rules="$rules --rules=seq=$t" ;; esac; done
	for r in $chains; do case " $seen " in *" $r "*) ;; *) rules="$rules $r" ;; esac; done
	for t in "$@" $cli; do
		case ",$serial,$(echo $early | tr ' ' ,)," in *",$t,"*) continue ;; esac
		rules="$rules --rules=seq=$t"
	done
	prove -j"$jobs" --timer $rules --exec "sh tests/run-tests.sh --one $dir" "$@" $cli
else
	echo "# prove is not installed (Debian: apt-get install perl; make test-deps does): the tests run one at a time"
	for t in "$@" $cli; do
		sh tests/run-tests.sh --one "$dir" "$t" >/dev/null
		echo "$t $(cut -d' ' -f2 "$dir/$(basename "$t").res") s"
	done
fi

# the count: every ok / not ok line of every test's output, a crash one failure more
passed=0
failed=0
echo
for t in "$@" $cli; do
	name=$(basename "$t")
	log=$dir/$name.log
	if [ -f "$dir/$name.res" ]; then read -r rc secs cpu <"$dir/$name.res"; else rc=127 secs=0 cpu=0; fi
	[ -f "$log" ] || : >"$log"
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	grep '^not ok ' "$log" | sed "s|^|$name: |"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$name: not ok - exited with status $rc without reporting a failure (crash?)"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-44s %4d passed, %d failed %8s s %8s s CPU\n' "$name" "$p" "$f" "$secs" "$cpu" >>"$dir/table"
	echo "$secs $name $cpu" >>"$dir/times"
done
cat "$dir/table"
wall=$(($(date +%s) - wall0))
sum=$(awk '{ s += $1 } END { printf "%.0f", s }' "$dir/times")
cpusum=$(awk '{ s += $3 } END { printf "%.0f", s }' "$dir/times")
echo "slowest:"
sort -rn "$dir/times" | head -n 10 | awk '{ printf "  %8s s  %s  (CPU %s s)\n", $1, $2, $3 }'
echo "wall ${wall} s with ${jobs} at a time; the tests' times add up to ${sum} s, their CPU time to ${cpusum} s"
if [ -n "${VERBOSE:-}" ]; then
	for t in "$@" $cli; do
		echo "## $(basename "$t")"
		cat "$dir/$(basename "$t").log"
	done
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
