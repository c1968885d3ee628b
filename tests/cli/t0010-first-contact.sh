#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# early: (the package build, then a fresh Debian 12 machine in a container: its install runs long on one core)
# First contact, both ways a user meets bench on a fresh Debian 12 machine, on one fresh machine: a container of the
# bare base image of tests/setup/podman.sh (`bare`: debootstrap minbase bookworm), as root. The host's downloaded
# .debs are lent to its apt through an overlay (nothing is installed from them unless apt picks them, and nothing
# the container writes reaches the host).
#  1. From source, the README's first command: the source tree as a clean clone holds it (the tracked files, with
#     their uncommitted edits), the README's note (apt-get update && apt-get install -y make), then `make run`, which
#     must install every package it needs, build, and run manifests/quickstart.yaml into runs/ with every suite
#     measured.
#  2. The Debian package: built here from the release tarball of HEAD tagged v0.1.0 (make dist; what is committed) with
#     `dpkg-buildpackage -us -uc -b` (at -O0: DEB_BUILD_OPTIONS=noopt), its file list checked. Before step 1 touches the
#     fresh machine, apt is asked what installing the package there (with its Recommends, not theirs) would install;
#     after step 1 (whatever its result), every package that is neither the fresh machine's nor in that answer is
#     purged, and the package is installed with apt. The machine then holds only packages a fresh install of the package
#     gives, at its versions, and every package of the fresh machine (checked); there, with HOME and /tmp emptied of
#     what step 1 left, the installed bench runs the quickstart from another directory with every record ok and
#     validates every shipped manifest. One fresh machine's install of torch and its hundreds of dependencies, not two.
#     What this does not test, as a fresh install would: apt's order of configuring the package and its dependencies in
#     one transaction (they are installed by make run first, bench alone after).
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
if [ "$(id -u)" != 0 ]; then
	echo "ok 1 # SKIP needs root: podman as root and apt inside the container"
	finish
	exit
fi
NAME=bench-t0010-$$
trap 'podman rm -f "$NAME" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/debs" "$T/res"

# --- the Debian package, built on the host ----------------------------------------------------------------------
# (a release: a tag on HEAD, in the clone only, names the tarball's version, which the built bench prints; t0045
# checks the tarball itself and leaves its build to this test)
DEB=
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
	ok "the Debian package # SKIP needs dpkg-buildpackage and debhelper (make test-deps)"
elif git clone -q --no-hardlinks "$ROOT" "$T/pkg" 2>/dev/null && git -C "$T/pkg" checkout -q "$(git rev-parse HEAD)" &&
	git -C "$T/pkg" tag -f v0.1.0 >/dev/null 2>&1; then
	C=$(git -C "$T/pkg" rev-parse --short=12 HEAD)
	mkdir -p "$T/deb"
	if ! (cd "$T/pkg" && make -s --no-print-directory dist) >"$T/dist.out" 2>&1; then
		not_ok "make dist"; show "$T/dist.out"
	elif ! tar xzf "$T/pkg/$(tail -n 1 "$T/dist.out")" -C "$T/deb" || ! cd "$T"/deb/bench-*/; then
		not_ok "unpack the release tarball"; show "$T/dist.out"
	else
		# (-O0, Debian's DEB_BUILD_OPTIONS=noopt, unless set: what this checks, the package's files, dependencies
		# and install, does not depend on the optimisation, and the build takes two thirds of the CPU: 27 against 41
		# core-seconds here; `make run` below builds with the Makefile's own flags)
		expect 0 "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-noopt})" \
			env DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS-noopt}" dpkg-buildpackage -us -uc -b -j2
		[ "$rc" = 0 ] || tail -n 30 "$T/out" | sed 's/^/#   /'
		DEB=$(ls "$T"/deb/bench_*_*.deb 2>/dev/null | head -n 1)
		[ -f "$DEB" ] && ok "built $(basename "$DEB")" || { not_ok "no .deb"; DEB=; }
	fi
	cd "$ROOT" || exit 1
else
	not_ok "clone and tag v0.1.0 for the package"
fi
if [ -n "$DEB" ]; then
	dpkg-deb -c "$DEB" | awk '{ print $6 }' >"$T/files"
	for f in usr/bin/bench usr/bin/bench-nightly usr/libexec/bench/bench-gemm usr/libexec/bench/bench-membw \
		usr/libexec/bench/bench-coll usr/share/bench/manifests/quickstart.yaml usr/share/bench/images/bases/peaks.yaml \
		usr/share/bench/runners/torch/train.py usr/share/bench/runners/gemm/gemm.c usr/share/bench/Makefile \
		usr/share/man/man1/bench.1.gz usr/share/doc/bench/copyright usr/share/doc/bench/NOTICE \
		lib/systemd/system/bench-nightly.service lib/systemd/system/bench-nightly.timer; do
		grep -qx "\./$f" "$T/files" && ok "package has /$f" || not_ok "package lacks /$f"
	done
	dpkg-deb --fsys-tarfile "$DEB" | tar xOf - ./lib/systemd/system/bench-nightly.service | grep -q '^ExecStart=/usr/bin/bench-nightly ' &&
		ok "the unit starts /usr/bin/bench-nightly" || not_ok "the unit's ExecStart"
	# (libgit2 and libcurl are loaded on first use, not linked: Depends names them through build/lazylib-deps)
	dpkg-deb -I "$DEB" | grep '^ Depends:' | grep 'libgit2' | grep -q 'libcurl' && ok "Depends from the shared libraries" ||
		{ not_ok "Depends names libgit2 and libcurl"; dpkg-deb -I "$DEB" | grep '^ Depends:' | sed 's/^/#   /'; }
	cp "$DEB" "$T/debs/"
fi
# the package with what it depends on and what it recommends, and nothing more: not the recommends of its
# recommends (python3-torch's libtorch-dev, build-essential, ...: a gigabyte that could also hide a dependency the
# package forgot; apt's default would install them)
recommends=
if [ -n "$DEB" ]; then
	recommends=$(dpkg-deb -f "$DEB" Recommends | sed -e 's/([^)]*)//g' -e 's/|[^,]*//g' | tr ',' ' ')
	[ -n "$recommends" ] && ok "recommends: $(echo $recommends)" || not_ok "the package recommends nothing"
fi

# --- the fresh machine --------------------------------------------------------------------------------------------
BASE=$(sh tests/setup/podman.sh bare 2>"$T/setup.err") || { not_ok "podman setup failed"; show "$T/setup.err"; finish; exit 1; }
ok "podman set up, base image $BASE"

# the tree of a clean clone: what git tracks, as the working tree has it now (a clean clone in CI: HEAD)
mkdir "$T/src"
if git ls-files -z >"$T/files.git" 2>"$T/git.err" && [ -s "$T/files.git" ]; then
	# a tracked file deleted in the working tree is not in the copy
	xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh <"$T/files.git" >"$T/present"
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
# In the container: /res/readme.rc is the README command's exit status (its transcript is stdout); the package
# steps, run whatever it is, write /res/pkg.rc and their files under /res. base.txt: the fresh machine's packages
# (name and version); fresh.txt: those apt would install or upgrade with the package there (name and version);
# purged.txt: what step 1 installed beyond both; final.txt: the packages (status, name, version) the installed bench
# runs on, with an empty HOME and /tmp, as a fresh machine's root has them.
# shellcheck disable=SC2086 # $archives is empty or two words
timeout 3000 podman run --name "$NAME" --network=host $archives -v "$T/src:/root/bench" -v "$T/debs:/debs:ro" \
	-v "$T/res:/res" -e RECOMMENDS="$recommends" -w /root/bench "$BASE" sh -c '
	dpkg-query -W -f "\${Package} \${Version}\n" | sort >/res/base.txt
	deb=$(ls /debs/bench_*.deb 2>/dev/null)
	# (the question to apt changes nothing: a failed answer fails the package steps, not the README)
	apt-get update && {
		[ -z "$deb" ] || apt-get install -s --no-install-recommends "$deb" $RECOMMENDS >/res/simulate.log 2>&1 || true
	} && apt-get install -y make && make run
	echo $? >/res/readme.rc
	[ -n "$deb" ] || exit 0
	exec >/res/pkg.log 2>&1
	set -e
	grep -q "^Inst bench " /res/simulate.log
	sed -n "s/^Inst \([^ ]*\) \(\[[^]]*\] \)\{0,1\}(\([^ ]*\) .*/\1 \3/p" /res/simulate.log | sort >/res/fresh.txt
	cut -d " " -f 1 /res/base.txt >/tmp/base.names
	cut -d " " -f 1 /res/fresh.txt >/tmp/fresh.names
	dpkg-query -W -f "\${Package}\n" | sort | comm -23 - /tmp/base.names | comm -23 - /tmp/fresh.names >/res/purged.txt
	# shellcheck disable=SC2046 # one package name a line
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $(cat /res/purged.txt)
	# shellcheck disable=SC2086 # the package names split on purpose
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" $RECOMMENDS
	dpkg-query -W -f "\${db:Status-Abbrev} \${Package} \${Version}\n" | sort -k 2 >/res/final.txt
	# what make run left outside the packages: its signing key and caches in HOME, its files in /tmp
	rm -rf /root/.config /root/.cache /root/.local /tmp/* /tmp/.[!.]*
	mkdir -p /tmp/w && cd /tmp/w
	bench version >/res/version.txt
	bench run /usr/share/bench/manifests/quickstart.yaml >/res/run.out 2>/res/run.err
	d=$(sed -n 1p /res/run.out); cp -r "$d" /res/run
	cd / && bench validate /usr/share/bench/manifests/*.yaml >/res/validate.out 2>&1
	echo 0 >/res/pkg.rc
	' >"$T/run.log" 2>&1
prc=$?
secs=$(($(date +%s) - start))
[ -n "${T0010_LOG:-}" ] && cp "$T/run.log" "$T0010_LOG" # the whole transcript, for a record in docs/results
[ -n "${T0010_RES:-}" ] && cp -r "$T/res" "$T0010_RES"  # the package steps' files, for a record
podman rm -f "$NAME" >/dev/null 2>&1
rc=$(cat "$T/res/readme.rc" 2>/dev/null || echo "none: podman exit $prc")
readme_rc=$rc

# --- 1. from source: the README ------------------------------------------------------------------------------------
echo "# the fresh Debian 12 container: ${secs}s (apt-get update, make, make run, then the package's steps)"
if [ "$rc" = 0 ]; then ok "apt-get install -y make && make run: exit 0"; else
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

# --- 2. the Debian package, on the same machine reduced to what a fresh install of it gives --------------------------
[ -n "$DEB" ] || { finish; exit; }
R=$T/res
if [ "$(cat "$R/pkg.rc" 2>/dev/null)" = 0 ]; then
	ok "purge what make run added, apt-get install the .deb, bench run the quickstart, bench validate every manifest: exit 0"
else
	not_ok "the package's steps in the container"
	tail -n 20 "$R/simulate.log" "$R/pkg.log" "$R/run.err" "$R/validate.out" 2>/dev/null | sed 's/^/#   /'
fi
# the fresh install's answer names the package and torch; the machine the installed bench ran on holds every package
# of the fresh machine and packages of that answer, each installed and at the version a fresh install gives, and
# nothing else
if python3 - "$R" "$readme_rc" >"$T/check.out" 2>&1 <<'PY'; then
import sys
r, readme_rc = sys.argv[1], sys.argv[2]
lines = lambda f: [l.split() for l in open(f"{r}/{f}") if l.strip()]
base = {l[0]: l[1] for l in lines("base.txt")}
fresh = {l[0]: l[1] for l in lines("fresh.txt")}
purged = {l[0] for l in lines("purged.txt")}
final = lines("final.txt")
assert {"bench", "python3-torch", "openmpi-bin"} <= set(fresh), sorted(fresh)[:20]
if readme_rc == "0":  # (make run installed them: what the purge must take away)
    assert {"make", "build-essential", "libgit2-dev"} <= purged, sorted(purged)[:20]
bad = [l for l in final if l[0] != "ii"]
assert not bad, ("not installed cleanly", bad[:10])
have = {l[1]: l[2] for l in final}
assert set(have) <= set(base) | set(fresh), ("beyond a fresh install", sorted(set(have) - set(base) - set(fresh))[:10])
assert set(base) <= set(have), ("a package of the fresh machine is gone", sorted(set(base) - set(have))[:10])
other = [(n, v, fresh.get(n, base.get(n))) for n, v in have.items() if v != fresh.get(n, base.get(n))]
assert not other, ("another version than a fresh install's", other[:10])
assert {"bench", "python3-torch", "openmpi-bin"} <= set(have), "not installed"
# apt may satisfy a virtual package otherwise on a machine that already has a provider (libblas.so.3 by OpenBLAS,
# where the fresh answer also names reference BLAS): fewer packages, never others
left = sorted(set(fresh) - set(have))
print(f"{len(set(have) - set(base))} of the {len(fresh)} packages of the fresh install's answer, beside the fresh machine's "
      f"{len(base)}, at a fresh install's versions, nothing else; {len(purged)} purged" + (f"; not needed here: {' '.join(left)}" if left else ""))
PY
	ok "the installed bench runs on a fresh install's packages: $(cat "$T/check.out")"
else
	not_ok "the machine is not what a fresh install of the package gives"; show "$T/check.out"
fi
grep -qx "bench 0\.1\.0 (commit $C)" "$R/version.txt" 2>/dev/null && ok "the tarball's build prints the tag's version: $(head -n 1 "$R/version.txt")" ||
	{ not_ok "bench version: not 'bench 0.1.0 (commit $C)'"; show "$R/version.txt"; }
if records_ok "$R/run" 20; then
	ok "installed quickstart: $(cat "$T/check.out")"
else
	not_ok "installed quickstart records"; show "$T/check.out"
fi
grep -qF /usr/libexec/bench/bench-gemm "$R/run/logs/gemm.log" 2>/dev/null && ok "bench-gemm ran from /usr/libexec/bench" ||
	not_ok "bench-gemm not from /usr/libexec/bench"
finish
