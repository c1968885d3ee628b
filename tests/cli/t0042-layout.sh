#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The shape rules of cli/ (CONTRIBUTING.md, "Shape of the code"), enforced by tools/layout.py: no function over
# 100 lines, no command file (cli/cmd_*.c) over 150 lines, no include cycle between modules (foo.c + foo.h;
# foo_int.h belongs to foo). First on a scratch tree that breaks each rule once (so that the check can fail), then
# on this repository. The lengths of the longest functions are printed as TAP comments.
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
L="python3 $ROOT/tools/layout.py"

S=$T/tree
mkdir -p "$S/cli/a" "$S/cli/b"
body() { # name lines: a function of exactly that many lines, signature to closing brace
	printf 'int %s(void)\n{\n' "$1"
	i=3
	while [ "$i" -lt "$2" ]; do echo '	x++;'; i=$((i + 1)); done
	printf '}\n'
}
{ echo '#include "b/b.h"'; echo '#include "a_int.h"'; body long_one 101; body fits 100; } >"$S/cli/a/a.c"
echo '#include "a/a.h"' >"$S/cli/b/b.h"
echo 'int b;' >"$S/cli/b/b.c"
echo '#include "b/b.h"' >"$S/cli/a/a.h"
echo '#include "a.h"' >"$S/cli/a/a_int.h"
{ i=0; while [ "$i" -lt 151 ]; do echo '/* */'; i=$((i + 1)); done; } >"$S/cli/cmd_big.c"
{ i=0; while [ "$i" -lt 150 ]; do echo '/* */'; i=$((i + 1)); done; } >"$S/cli/cmd_fits.c"
expect 1 "a tree breaking each rule once fails" $L check "$S"
expect_out "cli/a/a.c:3: long_one() is 101 lines (at most 100)"
expect_out "cli/cmd_big.c: a command file of 151 lines (at most 150)"
expect_out "cli/: an include cycle among the modules a/a b/b"
[ "$(wc -l <"$T/out")" -eq 3 ] && ok "exactly the three breaks (a 100-line function, a 150-line command, a.c and its private a_int.h: one module)" ||
	{ not_ok "other lines listed"; show "$T/out"; }
$L functions "$S" >"$T/fn" 2>&1
[ "$(sed -n 1p "$T/fn" | awk '{print $1, $3}')" = "101 long_one" ] && [ "$(sed -n 2p "$T/fn" | awk '{print $1, $3}')" = "100 fits" ] &&
	ok "functions lists each function's length, longest first" || { not_ok "functions listing"; show "$T/fn"; }
head -c 0 /dev/null >"$S/cli/b/b.h"
{ echo '#include "b/b.h"'; echo '#include "a_int.h"'; body long_one 100; body fits 100; } >"$S/cli/a/a.c"
rm "$S/cli/cmd_big.c"
expect 0 "the tree with the three fixed passes" $L check "$S"
expect_no_out

# this repository
expect 0 "cli/: no function over 100 lines, no command file over 150, no include cycle" $L check "$ROOT"
$L functions --top 5 "$ROOT" | sed 's/^/# /'
finish
