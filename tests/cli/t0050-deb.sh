#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# early: (the package build, then a fresh machine in a container: long work on one core)
# The Debian package: built from the release tarball of HEAD tagged v0.1.0 (make dist; what is committed) with
# `dpkg-buildpackage -us -uc -b`, its file list checked, then installed with apt (with its Recommends, not theirs)
# into a fresh Debian 12 container
# (the bare base image of tests/setup/podman.sh, `bare`; the host's downloaded .debs lent to its apt through an overlay),
# where the installed bench runs the quickstart from another directory with every record ok and validates every
# shipped manifest. Needs root (podman, apt in the container) and debhelper (make test-deps).
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
if [ "$(id -u)" != 0 ] || ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
	echo "ok 1 # SKIP needs root, dpkg-buildpackage and debhelper"
	finish
	exit
fi
NAME=bench-t0050-$$
trap 'podman rm -f "$NAME" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

git clone -q --no-hardlinks "$ROOT" "$T/src" 2>/dev/null && git -C "$T/src" checkout -q "$(git rev-parse HEAD)" ||
	{ not_ok "clone"; finish; exit 1; }
# a release: a tag on HEAD (in the clone only) names the tarball's version, which the built bench prints (t0045 checks
# the tarball itself and leaves its build to this test)
git -C "$T/src" tag -f v0.1.0 >/dev/null 2>&1 || { not_ok "tag v0.1.0 in the clone"; finish; exit 1; }
C=$(git -C "$T/src" rev-parse --short=12 HEAD)
(cd "$T/src" && make -s --no-print-directory dist) >"$T/dist.out" 2>&1 || { not_ok "make dist"; show "$T/dist.out"; }
TB=$T/src/$(tail -n 1 "$T/dist.out")
mkdir -p "$T/deb"
tar xzf "$TB" -C "$T/deb"
cd "$T"/deb/bench-*/ || exit 1
expect 0 "dpkg-buildpackage -us -uc -b" dpkg-buildpackage -us -uc -b -j2
[ "$rc" = 0 ] || tail -n 30 "$T/out" | sed 's/^/#   /'
cd "$T" || exit 1
DEB=$(ls "$T"/deb/bench_*_*.deb 2>/dev/null | head -n 1)
[ -f "$DEB" ] && ok "built $(basename "$DEB")" || { not_ok "no .deb"; finish; exit 1; }
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
dpkg-deb -I "$DEB" | grep -q '^ Depends:.*libgit2' && ok "Depends from the shared libraries" || not_ok "Depends"

BASE=$(sh "$ROOT/tests/setup/podman.sh" bare 2>"$T/setup.err") || { not_ok "podman setup failed"; show "$T/setup.err"; finish; exit 1; }
ok "podman set up, base image $BASE"
mkdir -p "$T/debs" "$T/res"
cp "$DEB" "$T/debs/"
archives=
[ -d /var/cache/apt/archives ] && archives="-v /var/cache/apt/archives:/var/cache/apt/archives:O"
# shellcheck disable=SC2086 # $archives is empty or two words
# the package with what it depends on and what it recommends, and nothing more: not the recommends of its
# recommends (python3-torch's libtorch-dev, build-essential, ...: a gigabyte that could also hide a dependency the
# package forgot; apt's default would install them)
recommends=$(dpkg-deb -f "$DEB" Recommends | sed -e 's/([^)]*)//g' -e 's/|[^,]*//g' | tr ',' ' ')
[ -n "$recommends" ] && ok "recommends: $(echo $recommends)" || not_ok "the package recommends nothing"
timeout 1800 podman run --name "$NAME" --network=host $archives -v "$T/debs:/debs:ro" -v "$T/res:/res" \
	-e RECOMMENDS="$recommends" "$BASE" sh -c '
	set -e
	apt-get update -qq
	# shellcheck disable=SC2086 # the package names split on purpose
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /debs/bench_*.deb $RECOMMENDS \
		>/res/apt.log 2>&1
	mkdir -p /tmp/w && cd /tmp/w
	bench version >/res/version.txt
	bench run /usr/share/bench/manifests/quickstart.yaml >/res/run.out 2>/res/run.err
	d=$(sed -n 1p /res/run.out); cp -r "$d" /res/run
	cd / && bench validate /usr/share/bench/manifests/*.yaml >/res/validate.out 2>&1
	' >"$T/podman.log" 2>&1
rc=$?
[ -n "${T0050_RES:-}" ] && cp "$T/files" "$T/res/files" && cp -r "$T/res" "$T0050_RES" # the transcript, for a record (docs/results or notes)
if [ "$rc" = 0 ]; then ok "apt-get install the .deb, bench run the quickstart, bench validate every manifest: exit 0"; else
	not_ok "in the container (exit $rc)"
	tail -n 20 "$T/podman.log" "$T/res/apt.log" "$T/res/run.err" "$T/res/validate.out" 2>/dev/null | sed 's/^/#   /'
fi
grep -qx "bench 0\.1\.0 (commit $C)" "$T/res/version.txt" && ok "the tarball's build prints the tag's version: $(head -n 1 "$T/res/version.txt")" ||
	{ not_ok "bench version: not 'bench 0.1.0 (commit $C)'"; show "$T/res/version.txt"; }
if python3 - "$T/res/run" >"$T/check.out" 2>&1 <<'PY'; then
import glob, json, sys
recs = [json.loads(l) for f in sorted(glob.glob(sys.argv[1] + "/results/*.jsonl")) for l in open(f) if l.strip()]
bad = [(r["suite"], r["case"], r["status"], r.get("error")) for r in recs if r["status"] != "ok"]
assert len(recs) >= 20 and not bad, (len(recs), bad)
print(len(recs), "records, every one ok")
PY
	ok "installed quickstart: $(cat "$T/check.out")"
else
	not_ok "installed quickstart records"; show "$T/check.out"
fi
grep -qF /usr/libexec/bench/bench-gemm "$T/res/run/logs/gemm.log" && ok "bench-gemm ran from /usr/libexec/bench" ||
	not_ok "bench-gemm not from /usr/libexec/bench"
finish
