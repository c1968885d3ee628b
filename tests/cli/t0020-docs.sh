#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every command of README.md, docs/*.md (their ```sh blocks) and the man page's EXAMPLES, run exactly as written
# (tests/docs/doccmds.py extracts and runs them; `doccmds.py list FILE...` shows what it finds). They run in a
# scratch copy of the checkout as `make run` leaves it: ./bench and build/runners there, one quickstart run under
# runs/. The README's with no bench on PATH and nothing of the tree in the environment, as a new user types them;
# docs/*.md and the man page's with bench on PATH (installed). What needs podman, Slurm or a GPU is annotated in the
# doc with the test that runs it (<!-- docs-test: elsewhere TEST -->) and only checked here: it parses, its bench
# subcommands and options exist, its manifests validate. An unannotated command that fails fails this test.
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
DOCS="tests/docs/doccmds.py"

# the scratch checkout: the tracked files as they are in the work tree
S=$T/src
mkdir -p "$S/build" "$T/bin" "$T/home"
git ls-files -z | (cd "$ROOT" && xargs -0 cp --parents -t "$S" 2>/dev/null)
[ -f "$S/manifests/quickstart.yaml" ] && [ -f "$S/README.md" ] && ok "scratch copy of the checkout" || not_ok "scratch copy"
cp "$BENCH" "$S/bench"
ln -s "$BENCH_RUNNERS" "$S/build/runners"
ln -s "$S/bench" "$T/bin/bench"
unset BENCH_DATA BENCH_RUNNERS
export HOME="$T/home"
PATH_NO_BENCH=$PATH
if command -v bench >/dev/null 2>&1; then # a bench on PATH would hide a README command that forgot ./
	d=$(dirname "$(command -v bench)")
	PATH_NO_BENCH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$d" | paste -sd: -)
fi

# what make run leaves: its quickstart run under runs/
(cd "$S" && ./bench run -q manifests/quickstart.yaml >"$T/out" 2>"$T/err")
[ -d "$(sed -n 1p "$T/out" | sed "s|^|$S/|")" ] && ok "make run's quickstart run under runs/" ||
	{ not_ok "the quickstart run"; show "$T/err"; }

# the python runner's TAP, counted as ours
tap() {
	rc=$1
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "${line#ok * - }" ;;
		"not ok "*) not_ok "${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$T/docs.tap"
	[ "$rc" = 0 ] || [ "$t_fail" -gt 0 ] || not_ok "$DOCS exited $rc"
}

# README.md: ./bench in the checkout, no bench on PATH
(cd "$S" && PATH=$PATH_NO_BENCH python3 "$ROOT/$DOCS" run --root "$ROOT" "$ROOT/README.md") >"$T/docs.tap" 2>&1
tap $?

# docs/bundle-format.md: its placeholders RUN.bench.tar.gz and PUB.pem are the bundle of a run directory named RUN
# (a copy of make run's) and the signing key
mkdir -p "$T/bf"
d=$(ls -d "$S"/runs/quickstart-*/ | head -n 1)
cp -r "$d" "$T/bf/RUN" && "$BENCH" pack "$T/bf/RUN" >/dev/null 2>&1 && cp "$BENCH_HOME/signing.pub.pem" "$T/bf/PUB.pem" &&
	rm -r "$T/bf/RUN" && ok "bundle-format: RUN.bench.tar.gz and PUB.pem" || not_ok "bundle-format: prepare RUN and PUB.pem"
(cd "$T/bf" && PATH=$T/bin:$PATH python3 "$ROOT/$DOCS" run --root "$ROOT" "$ROOT/docs/bundle-format.md") >"$T/docs.tap" 2>&1
tap $?

# the other docs and the man page's EXAMPLES: bench installed on PATH, from the checkout; the man page's bundle is
# make run's run packed under the name it gives
cp -r "$d" "$S/runs/quickstart-20261130T090837Z" && "$BENCH" pack "$S/runs/quickstart-20261130T090837Z" >/dev/null 2>&1 &&
	ok "the man page's bundle" || not_ok "pack the man page's bundle"
others=
for f in "$ROOT"/docs/*.md; do
	[ "$f" = "$ROOT/docs/bundle-format.md" ] || others="$others $f"
done
# shellcheck disable=SC2086 # the list splits on purpose
(cd "$S" && PATH=$T/bin:$PATH python3 "$ROOT/$DOCS" run --root "$ROOT" $others "$ROOT/docs/bench.1") >"$T/docs.tap" 2>&1
tap $?

# the annotation is a contract: an unknown one, or an 'elsewhere' naming no test that exists, fails
printf '<!-- docs-test: elswhere tests/cli/t1100-podman.sh -->\n```sh\n./bench ls\n```\n' >"$T/typo.md"
printf '<!-- docs-test: elsewhere tests/cli/t9999-none.sh -->\n```sh\n./bench ls\n```\n' >"$T/none.md"
printf '```sh\n./bench run --no-such-flag manifests/quickstart.yaml\n```\n' >"$T/fails.md"
printf '<!-- docs-test: elsewhere tests/cli/t1100-podman.sh -->\n```sh\n./bench run --roundz 3 manifests/cpu-openblas.yaml\n```\n' >"$T/opt.md"
for f in typo none fails opt; do
	(cd "$S" && python3 "$ROOT/$DOCS" run --root "$ROOT" "$T/$f.md") >"$T/neg.tap" 2>&1 &&
		{ not_ok "a doc with a bad command passes: $f.md"; show "$T/neg.tap"; } || ok "a doc with a bad command fails: $f.md"
done
grep -q "'run' has no option --roundz" "$T/neg.tap" && ok "an option that does not exist is named" || { not_ok "--roundz"; show "$T/neg.tap"; }
finish
