#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The test harness (tests/run-tests.sh) on a scratch tree of fake tests: the order of prove's rules (the chains that
# hold an early test, the other early tests, the other chains, the unit binaries, the rest), a chain's tests in file
# order, and a real run with prove two at a time: the two early tests start first, every test runs once, and the
# count line counts every ok and not ok, a crash one failure.
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
# the harness's settings of the run this test is part of are not the scratch runs' (TEST_LOGS would have them empty
# the outer run's log directory, TESTS name tests the scratch tree does not hold)
unset TEST_LOGS TESTS TEST_JOBS VERBOSE
S=$T/tree
mkdir -p "$S/tests/cli" "$T/shim"
cp "$ROOT/tests/run-tests.sh" "$S/tests/"
fake() { # name header...: a test that notes its start in $T/started, then says ok
	f=$S/tests/cli/$1.sh
	shift
	{ echo '#!/bin/sh'; echo '# SPDX-License-Identifier: Apache-2.0'; for h; do echo "# $h"; done
	  echo "echo $(basename "$f" .sh) >>$T/started"; echo 'sleep 1'; echo 'echo "ok 1 - fine"'; } >"$f"
}
fake t0100-plain
fake t0200-chain-a "serial: things (fake)"
fake t0300-early "early: (fake long work)"
fake t0400-chain-b "serial: things (fake)" "early: (fake)"
fake t0500-other-chain "serial: other (fake)"
fake t0600-late
printf '#!/bin/sh\nfor a; do echo "$a"; done\n' >"$T/shim/prove"
chmod +x "$T/shim/prove"
printf '#!/bin/sh\necho "ok 1 - unit"\n' >"$T/unit"
chmod +x "$T/unit"
(cd "$S" && PATH=$T/shim:$PATH sh tests/run-tests.sh "$T/unit") 2>&1 | grep -- '--rules=' | sed 's|tests/cli/||g' >"$T/rules"
cat >"$T/want" <<WANT
--rules=seq={t0200-chain-a.sh,t0400-chain-b.sh}
--rules=seq=t0300-early.sh
--rules=seq=t0500-other-chain.sh
--rules=seq=$T/unit
--rules=seq=t0100-plain.sh
--rules=seq=t0600-late.sh
WANT
expect_same "rules: the chain with an early test, the early test, the other chain, the unit, the rest" "$T/want" "$T/rules"
if command -v prove >/dev/null 2>&1; then
	(cd "$S" && TEST_JOBS=2 sh tests/run-tests.sh "$T/unit") >"$T/run.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && ok "a real run: exit 0" || { not_ok "a real run: exit $rc"; show "$T/run.out"; }
	tail -n 1 "$T/run.out" | grep -qx '7 passed, 0 failed' && ok "7 passed, 0 failed" ||
		{ not_ok "the count line"; tail -n 3 "$T/run.out" | show /dev/stdin; }
	sort "$T/started" | tr '\n' ' ' | grep -qx 't0100-plain t0200-chain-a t0300-early t0400-chain-b t0500-other-chain t0600-late ' &&
		ok "every test ran once" || { not_ok "every test ran once"; show "$T/started"; }
	head -n 2 "$T/started" | sort | tr '\n' ' ' | grep -qx 't0200-chain-a t0300-early ' &&
		ok "the early chain and the early test started first" || { not_ok "the first two started"; show "$T/started"; }
	[ "$(grep -n . "$T/started" | grep -E 't0200|t0400' | cut -d: -f2 | tr '\n' ' ')" = "t0200-chain-a t0400-chain-b " ] &&
		ok "the chain in file order" || { not_ok "the chain's order"; show "$T/started"; }
	# a crash: a test that exits 3 without a not ok counts one failure, and the status is 1
	printf '#!/bin/sh\necho "ok 1 - before"\nexit 3\n' >"$S/tests/cli/t0700-crash.sh"
	(cd "$S" && TEST_JOBS=2 sh tests/run-tests.sh) >"$T/run.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] && tail -n 1 "$T/run.out" | grep -qx '7 passed, 1 failed' && ok "a crash counts one failure, exit 1" ||
		{ not_ok "a crash: exit $rc"; tail -n 3 "$T/run.out" | show /dev/stdin; }
else
	ok "# SKIP prove is not installed"
fi
# the tests' python3 (tests/run-tests.sh): Debian's /usr/bin/python3 when it exists, else the interpreter PATH's
# python3 runs, or TEST_PYTHON; linked first in PATH, so that a shim first in PATH (pyenv's kind: a script that starts
# the interpreter) never starts; with that interpreter already first in PATH, PATH is left as it is
real=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
want=$real
[ -x /usr/bin/python3 ] && want=$(readlink -f /usr/bin/python3)
mkdir -p "$T/pyshim" "$T/tree2/tests/cli"
S2=$T/tree2
cp "$ROOT/tests/run-tests.sh" "$S2/tests/"
: >"$T/shim-starts"
printf '#!/bin/sh\necho shim >>%s/shim-starts\nexec %s "$@"\n' "$T" "$real" >"$T/pyshim/python3"
chmod +x "$T/pyshim/python3"
printf '#!/bin/sh\necho "# python3: $(command -v python3)"\npython3 -c "import os, sys; print(\\"ok 1 - \\" + os.path.realpath(sys.executable))"\n' \
	>"$S2/tests/cli/t0100-py.sh"
(cd "$S2" && PATH=$T/pyshim:$PATH TEST_LOGS=$T/logs2 TESTS=t0100 sh tests/run-tests.sh) >"$T/py.out" 2>&1
starts=$(wc -l <"$T/shim-starts")
grep -qx "# python3: $T/logs2/bin/python3" "$T/logs2/t0100-py.sh.log" && grep -qx "ok 1 - $want" "$T/logs2/t0100-py.sh.log" &&
	[ -L "$T/logs2/bin/python3" ] && { [ "$want" = "$real" ] || [ "$starts" = 0 ]; } &&
	ok "a python3 shim first in PATH: the tests' python3 is $want, linked, the shim started $starts times" ||
	{ not_ok "a python3 shim in PATH ($starts starts of the shim)"; show "$T/py.out" "$T/logs2/t0100-py.sh.log"; }
rm -rf "$T/logs2"
: >"$T/shim-starts"
(cd "$S2" && PATH=$T/pyshim:$PATH TEST_PYTHON=$real TEST_LOGS=$T/logs2 TESTS=t0100 sh tests/run-tests.sh) >"$T/py.out" 2>&1
grep -qx "ok 1 - $real" "$T/logs2/t0100-py.sh.log" && [ "$(wc -l <"$T/shim-starts")" = 0 ] &&
	ok "TEST_PYTHON=$real: the tests' python3, no shim started" ||
	{ not_ok "TEST_PYTHON"; show "$T/py.out" "$T/logs2/t0100-py.sh.log"; }
rm -rf "$T/logs2"
mkdir -p "$T/pyfirst"
ln -s "$want" "$T/pyfirst/python3"
(cd "$S2" && PATH=$T/pyfirst:$PATH TEST_PYTHON=$T/pyfirst/python3 TEST_LOGS=$T/logs2 TESTS=t0100 sh tests/run-tests.sh) >"$T/py.out" 2>&1
grep -qx "# python3: $T/pyfirst/python3" "$T/logs2/t0100-py.sh.log" && [ ! -e "$T/logs2/bin" ] &&
	ok "the interpreter already first in PATH: PATH as it was" || { not_ok "PATH changed"; show "$T/logs2/t0100-py.sh.log"; }
finish
