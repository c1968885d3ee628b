#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The command table, help, version, unknown commands and options, exit codes.
. "$(dirname "$0")/lib.sh"

expect 2 "no command: usage, exit 2" "$BENCH"
expect_err "usage: bench"
expect 0 "bench help lists every command" "$BENCH" help
for c in run validate plan suites lock recipe pack keygen verify show compare gc version help; do expect_out "  $c "; done
expect 0 "bench --help" "$BENCH" --help
expect_out "commands:"
expect 2 "unknown command suggests the closest" "$BENCH" valdate x.yaml
expect_err "bench: error: unknown command 'valdate' (did you mean 'validate'?)"
expect 2 "unknown command far from any" "$BENCH" frobnicate
expect_err "unknown command 'frobnicate' (see 'bench help')"
expect 2 "option before the command" "$BENCH" --frob
expect_err "unknown option '--frob'"

for c in run validate plan suites lock recipe pack keygen verify show compare version; do
	expect 0 "$c -h" "$BENCH" "$c" -h
	expect_out "usage: bench $c"
	expect_out "-h, --help"
done
expect 0 "help plan is plan -h" "$BENCH" help plan
expect_out "usage: bench plan"
expect 2 "help of an unknown command" "$BENCH" help nope
expect_err "no such command 'nope'"

expect 2 "unknown long option suggests" "$BENCH" plan --jsn manifests/quickstart.yaml
expect_err "unknown option '--jsn' for 'plan' (did you mean '--json'?)"
expect_err "usage: bench plan"
expect 2 "unknown short option" "$BENCH" validate -x manifests/quickstart.yaml
expect_err "unknown option '-x' for 'validate'"
expect 2 "option needing a value" "$BENCH" plan manifests/quickstart.yaml --suite
expect_err "option '--suite' needs a value"
expect 2 "a bool option given a value" "$BENCH" plan --json=yes manifests/quickstart.yaml
expect_err "option '--json' takes no value"
expect 2 "validate with no file" "$BENCH" validate
expect_err "no manifest given"
expect 2 "plan with two files" "$BENCH" plan manifests/quickstart.yaml manifests/quickstart.yaml
expect_err "give exactly one manifest"
expect 2 "version takes no arguments" "$BENCH" version extra

expect 0 "version" "$BENCH" version
expect_out "bench 0.1.0"
expect_out " (commit "
for lib in libyaml libgit2 libarchive openssl jansson libcurl; do expect_out "  $lib "; done
expect 0 "version --json" "$BENCH" version --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"].startswith("0.1.0") and len(d["commit"])>=7 and set(d["libraries"])=={"libyaml","libgit2","libarchive","openssl","jansson","libcurl"}' "$T/out"; then
	ok "version --json has version, commit and six libraries"
else not_ok "version --json content"; show "$T/out"; fi
# libgit2 and libcurl are loaded on first use (cli/core/lazylib.c): bench needs neither to start, version loads both
if command -v readelf >/dev/null 2>&1; then
	needed=$(readelf -d "$BENCH" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case $needed in *libgit2* | *libcurl*) not_ok "bench links libgit2 or libcurl: $needed" ;;
	*) ok "bench's NEEDED lacks libgit2 and libcurl: $needed" ;; esac
	"$BENCH" version >"$T/version.out"
	grep -q "^  libgit2 *[0-9]" "$T/version.out" && grep -q "^  libcurl *[0-9]" "$T/version.out" &&
		ok "version loads both and prints their versions" || { not_ok "version lacks libgit2's or libcurl's"; show "$T/version.out"; }
fi
expect 0 "--version is version" "$BENCH" --version
expect_out "bench 0.1.0"

expect 1 "a missing manifest is an I/O error (exit 1)" "$BENCH" validate /nonexistent/m.yaml
expect_err "bench: error: cannot open '/nonexistent/m.yaml': No such file or directory"
# the man page documents every command
for c in run validate plan suites lock recipe pack keygen verify show compare gc version help; do
	if grep -q "^\.BI* \"$c " docs/bench.1; then ok "docs/bench.1 documents $c"; else not_ok "docs/bench.1 lacks $c"; fi
done
# the repository stands alone: no tracked file names a document that is not in it (this file spells the names split)
d=DESIGN e=ENVIRONMENT a=ANCHORS c=CONVENTIONS
if git ls-files -z >"$T/files" 2>/dev/null && [ -s "$T/files" ]; then
	xargs -0 grep -nI -e "$d\.md" -e "$e\.md" -e "$a\.md" -e "$c\.md" -e '\.\./shared' <"$T/files" >"$T/refs" 2>/dev/null
	if [ -s "$T/refs" ]; then not_ok "tracked files name documents outside the repository"; show "$T/refs"
	else ok "no tracked file names a document outside the repository"; fi
else ok "# skip: not a git checkout"; fi
finish
