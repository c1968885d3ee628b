#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every tracked source file has a line "# SPDX-License-Identifier: Apache-2.0"
# (C: "/* ... */") in its first 3 lines: *.c *.h *.cu *.sh
# *.py, Makefiles and files opening with "#!". Data is excluded: tests/golden/ (exact expected bytes), tests/vectors/
# (validator inputs and their expected output) and tests/fuzz/corpus*/ (fuzzer inputs). The files lacking it are
# listed; tools/spdx-add.sh adds it (checked first on a scratch repository: placement, modes, idempotence).
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
TAG='SPDX-License-Identifier: Apache-2.0'

# the script on a scratch repository
R=$T/repo
mkdir -p "$R/tools" "$R/tests/golden" "$R/sub"
cp tools/spdx-add.sh "$R/tools/"
printf '/* a.c — a file */\nint x;\n' >"$R/a.c"
printf '#!/bin/sh\necho hi\n' >"$R/s.sh"
chmod 755 "$R/s.sh"
printf '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n' >"$R/p.py"
printf 'all:\n\ttrue\n' >"$R/sub/Makefile"
printf '#!/bin/sh\nexit 0\n' >"$R/run"
printf 'int golden;\n' >"$R/tests/golden/g.c"
printf 'data\n' >"$R/d.txt"
(cd "$R" && git init -q && git add -A) >/dev/null 2>&1
expect 0 "spdx-add.sh runs" sh "$R/tools/spdx-add.sh"
[ "$(sed -n 1p "$R/a.c")" = "/* $TAG */" ] && [ "$(sed -n 2p "$R/a.c")" = "/* a.c — a file */" ] &&
	ok "C: the tag on line 1" || { not_ok "C placement"; show "$R/a.c"; }
[ "$(sed -n 1p "$R/s.sh")" = '#!/bin/sh' ] && [ "$(sed -n 2p "$R/s.sh")" = "# $TAG" ] && [ -x "$R/s.sh" ] &&
	ok "shell: after the #! line, mode kept" || { not_ok "shell placement"; show "$R/s.sh"; }
[ "$(sed -n 3p "$R/p.py")" = "# $TAG" ] && ok "python: after #! and the coding line" || { not_ok "python placement"; show "$R/p.py"; }
[ "$(sed -n 1p "$R/sub/Makefile")" = "# $TAG" ] && ok "Makefile: line 1" || { not_ok "Makefile placement"; show "$R/sub/Makefile"; }
[ "$(sed -n 2p "$R/run")" = "# $TAG" ] && ok "an extensionless #! script" || { not_ok "#! script"; show "$R/run"; }
[ "$(cat "$R/tests/golden/g.c")" = "int golden;" ] && [ "$(cat "$R/d.txt")" = data ] &&
	ok "golden files and data untouched" || not_ok "data changed"
(cd "$R" && git add -A && git commit -qm one) >/dev/null 2>&1
expect 0 "a second run" sh "$R/tools/spdx-add.sh"
expect_no_out
[ -z "$(cd "$R" && git status --porcelain)" ] && ok "idempotent: the second run changes nothing" || not_ok "second run changed files"

# this repository
cd "$ROOT" || exit 1
sh tools/spdx-add.sh --list >"$T/sources" || not_ok "spdx-add.sh --list"
[ "$(wc -l <"$T/sources")" -gt 100 ] && ok "$(wc -l <"$T/sources") source files" || not_ok "too few sources listed"
: >"$T/missing"
while IFS= read -r f; do head -n 3 "$f" | grep -qE "^(# |/\* )$TAG" || echo "$f" >>"$T/missing"; done <"$T/sources"
if [ -s "$T/missing" ]; then
	not_ok "$(wc -l <"$T/missing") source files lack '$TAG' (run: sh tools/spdx-add.sh)"
	sed 's/^/#   /' "$T/missing"
else ok "every source file has '$TAG'"; fi
finish
