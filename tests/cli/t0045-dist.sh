#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make dist: bench-VERSION.tar.gz of HEAD is reproducible (two runs, the same bytes), holds the sources, the runners'
# sources, the data and .version (the described version and commit), and the tarball, without .git, makes its version
# header from .version: the tag's (v0.1.0, made in a scratch clone). That the tarball builds a bench whose `bench
# version` is that version is t0010's (it builds the Debian package from make dist of the same tag), or here when
# t0010 cannot build it (not root, no debhelper or podman).
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
git rev-parse --git-dir >/dev/null 2>&1 || { echo "1..0 # SKIP not a git checkout"; rm -rf "$T"; exit 0; }
# a copy of the repository, so that the tarballs land outside the tree under test
git clone -q --no-hardlinks "$ROOT" "$T/src" 2>/dev/null && git -C "$T/src" checkout -q "$(git rev-parse HEAD)" ||
	{ not_ok "clone"; finish; }
cd "$T/src" || exit 1
# a release is a tag: v0.1.0 on this commit (in the scratch clone only) names the tarball and bench version
git tag v0.1.0
expect 0 "make dist" make -s --no-print-directory dist
TB=$(tail -n 1 "$T/out")
V=${TB#bench-}
V=${V%.tar.gz}
[ "$V" = 0.1.0 ] && ok "version $V, from the tag" || not_ok "version '$V'"
mv "$TB" "$T/first.tar.gz"
sleep 1 # a later second: a time stamp taken from the clock would differ
expect 0 "make dist again" make -s --no-print-directory dist
expect_same "make dist twice gives identical bytes" "$T/first.tar.gz" "$TB"
tar tzvf "$TB" >"$T/list"
for f in .version LICENSE NOTICE CHANGELOG.md Makefile cli/main.c runners/gemm/gemm.c runners/torch/train.py \
	manifests/quickstart.yaml images/bases/peaks.yaml docs/bench.1 debian/control; do
	grep -q " bench-$V/$f\$" "$T/list" && ok "has $f" || not_ok "lacks $f"
done
awk '{ print $2 }' "$T/list" | sort -u >"$T/owners"
[ "$(cat "$T/owners")" = root/root ] && ok "every member owned by root/root" || { not_ok "owners"; show "$T/owners"; }
[ "$(tar xzOf "$TB" "bench-$V/.version" | sed -n 1p)" = "$V" ] && ok ".version holds $V" || not_ok ".version content"

# the tarball builds, without git, and says its version
mkdir -p "$T/x"
tar xzf "$TB" -C "$T/x"
cd "$T/x/bench-$V" || exit 1
[ ! -e .git ] && ok "no .git in the tarball" || not_ok ".git in the tarball"
# its version header, as make writes it there (no git: from .version)
expect 0 "make the version header" make -s --no-print-directory build/gen/version.h
C=$(git -C "$T/src" rev-parse --short=12 HEAD)
grep -qx "#define BENCH_VERSION \"$V\"" build/gen/version.h && grep -qx "#define BENCH_COMMIT \"$C\"" build/gen/version.h &&
	ok "build/gen/version.h: version $V, commit $C" || { not_ok "version header"; show build/gen/version.h; }
# the whole build and the version the built bench prints: t0010 builds the package from this same make dist (a tag
# on HEAD in its clone too) and runs `bench version` from it; without what t0010 needs for that, here
if [ "$(id -u)" = 0 ] && command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && command -v podman >/dev/null; then
	ok "the tarball's build and its bench version: in t0010 (the package is built from make dist of a tag)"
else
	expect 0 "the tarball builds" make -s -j2 bench
	expect 0 "bench version" ./bench version
	expect_out "bench $V (commit $C)"
fi
finish
