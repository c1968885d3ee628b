#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# early: (a fresh Debian 12 machine in a container: its install runs long on one core)
# First contact: the README's first command on a fresh Debian 12 machine. The source tree as a clean clone holds
# it (the tracked files, with their uncommitted edits) goes into a container of the bare base image of
# tests/setup/podman.sh (`bare`: debootstrap minbase bookworm); there, as root, the README's note
# (apt-get update && apt-get install -y make) and then `make run`, which must install every package it needs,
# build, and run manifests/quickstart.yaml into runs/ with every suite measured. The host's downloaded .debs
# are lent to the container's apt through an overlay (nothing is installed from them unless apt picks them, and
# nothing the container writes reaches the host).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "ok 1 # SKIP needs root: podman as root and apt inside the container"
	finish
	exit
fi
BASE=$(sh tests/setup/podman.sh bare 2>"$T/setup.err") || { not_ok "podman setup failed"; show "$T/setup.err"; finish; exit 1; }
ok "podman set up, base image $BASE"
NAME=bench-t0010-$$
trap 'podman rm -f "$NAME" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# the tree of a clean clone: what git tracks, as the working tree has it now (a clean clone in CI: HEAD)
mkdir "$T/src"
if git ls-files -z >"$T/files" 2>"$T/git.err" && [ -s "$T/files" ]; then
	# a tracked file deleted in the working tree is not in the copy
	xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh <"$T/files" >"$T/present"
	tar -c --null --no-recursion -T "$T/present" -f - | tar -C "$T/src" -xf - &&
		ok "source tree copied ($(tr -cd '\0' <"$T/present" | wc -c) tracked files)" || not_ok "copy the source tree"
else
	not_ok "not a git checkout: cannot tell the tracked files"; show "$T/git.err"
fi
[ ! -e "$T/src/bench" ] && [ ! -e "$T/src/build" ] && [ ! -e "$T/src/runs" ] && [ ! -e "$T/src/.git" ] &&
	ok "the copy holds no build output, no runs and no .git" || not_ok "the copy is not a clean tree"

archives=
[ -d /var/cache/apt/archives ] && archives="-v /var/cache/apt/archives:/var/cache/apt/archives:O"
start=$(date +%s)
# shellcheck disable=SC2086 # $archives is empty or two words
timeout 3000 podman run --name "$NAME" --network=host $archives -v "$T/src:/root/bench" -w /root/bench \
	"$BASE" sh -c 'apt-get update && apt-get install -y make && make run' >"$T/run.log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
[ -n "${T0010_LOG:-}" ] && cp "$T/run.log" "$T0010_LOG" # the whole transcript, for a record in docs/results
podman rm -f "$NAME" >/dev/null 2>&1
echo "# make run in a fresh Debian 12 container: ${secs}s (apt-get update, make, make run; exit $rc)"
if [ "$rc" = 0 ]; then ok "apt-get install -y make && make run: exit 0 in ${secs}s"; else
	not_ok "make run in a fresh container (exit $rc after ${secs}s)"
	tail -n 40 "$T/run.log" | sed 's/^/#   /'
fi
grep -q "^bench: installing:.*python3-torch" "$T/run.log" && ok "make run installed the missing Debian packages" ||
	not_ok "make run did not install the packages"

# the run directory under the default runs/, a record for every planned case, every record ok (issue #30)
set -- "$T"/src/runs/quickstart-*/
D=$1
if [ -d "$D" ] && [ "$#" = 1 ]; then ok "one run directory under runs/: ${D#"$T/src/"}"; else
	not_ok "no run directory under runs/"; ls -la "$T/src/runs" 2>&1 | sed 's/^/#   /'
fi
expect 0 "plan the quickstart (host)" "$BENCH" plan --json "$T/src/manifests/quickstart.yaml"
cp "$T/out" "$T/plan.json"
if python3 - "$T/plan.json" "$D" >"$T/check.out" 2>&1 <<'PY'; then
import collections, json, os, sys
plan, d = json.load(open(sys.argv[1])), sys.argv[2]
want = collections.defaultdict(set)
for c in plan["cases"]:
    want[c["suite"]].add(c["case"])
assert {"gemm", "membw", "collectives", "training"} <= set(want), sorted(want)
for suite, cases in sorted(want.items()):
    path = os.path.join(d, "results", suite + ".jsonl")
    recs = [json.loads(l) for l in open(path) if l.strip()]
    got = {r["case"] for r in recs}
    assert cases <= got, (suite, "no record for", sorted(cases - got))
    for r in recs:
        assert r["status"] == "ok", (suite, r["case"], r["status"], r.get("error"))
    ok = sum(r["status"] == "ok" for r in recs)
    assert ok >= 1, (suite, "no ok record")
    print(f"{suite}: {ok} ok of {len(recs)}")
PY
	ok "every planned case has a record, and every record is ok: $(tr '\n' ' ' <"$T/check.out")"
else
	not_ok "quickstart records"; show "$T/check.out"
fi
[ -f "${D%/}.bench.tar.gz" ] && ok "the run's bundle was packed" || not_ok "no bundle next to the run directory"
finish
