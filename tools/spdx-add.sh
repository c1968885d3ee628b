#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tools/spdx-add.sh — puts "SPDX-License-Identifier: Apache-2.0" into every tracked source file that lacks it, in
# the file's comment syntax: line 1 of C, headers, CUDA and Makefiles; after the "#!" line (and a Python coding line)
# of shell and Python. Idempotent: a file with a tag line ("# " or "/* " and the tag) in its first 3 lines is left alone, so it can be rerun
# after every merge. It works on the repository that holds it, wherever it is run from. Sources are what tests/cli/t0040-spdx.sh checks: tracked *.c *.h *.cu *.sh *.py, Makefiles and
# files opening with "#!", except the data under tests/golden/, tests/vectors/ and tests/fuzz/corpus*/.
#   sh tools/spdx-add.sh           edit the files in place, print each one changed
#   sh tools/spdx-add.sh --list    print the sources (changing nothing)
set -eu
TAG='SPDX-License-Identifier: Apache-2.0'
cd "$(dirname "$0")/.."

sources() {
	git ls-files -z | tr '\0' '\n' | while IFS= read -r f; do
		case $f in
		tests/golden/* | tests/vectors/* | tests/fuzz/corpus*) continue ;;
		*.c | *.h | *.cu | *.sh | *.py | Makefile | */Makefile) ;;
		*) [ -f "$f" ] && [ "$(head -c 2 "$f")" = '#!' ] || continue ;;
		esac
		[ -f "$f" ] && echo "$f"
	done
}

if [ "${1:-}" = --list ]; then sources; exit 0; fi

sources | while IFS= read -r f; do
	head -n 3 "$f" | grep -qE "^(# |/\* )$TAG" && continue
	case $f in
	*.c | *.h | *.cu) line="/* $TAG */" ;;
	*) line="# $TAG" ;;
	esac
	# skip: how many opening lines stay above the tag (a "#!" line, then a Python coding line)
	skip=0
	[ "$(head -c 2 "$f")" = '#!' ] && skip=1
	case $f in *.py) sed -n "$((skip + 1))p" "$f" | grep -qE '^#.*coding[:=]' && skip=$((skip + 1)) ;; esac
	tmp=$f.spdx.$$
	{ head -n "$skip" "$f"; echo "$line"; tail -n "+$((skip + 1))" "$f"; } >"$tmp"
	chmod "$(stat -c %a "$f")" "$tmp"
	mv "$tmp" "$f"
	echo "$f"
done
