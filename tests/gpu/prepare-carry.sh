#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Prepares .carry/ (git-ignored) for a GPU machine that has no network and no -dev packages: a bench binary
# built here whose RPATH points at the non-glibc libraries copied beside it, and a sysroot with jansson for
# building the runners there. Run on the Debian build machine; carry .carry to the GPU machine.
set -eu
cd "$(dirname "$0")/../.."
rm -rf .carry build/portable
mkdir -p .carry/bench/lib .carry/debs
make -s BUILD=build/portable LDFLAGS='-Wl,--disable-new-dtags,-rpath,\$$ORIGIN/lib' build/portable/bench
cp build/portable/bench .carry/bench/bench
ldd build/portable/bench | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
	case $(basename "$lib") in
	libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*|libresolv.so*) ;;
	*) cp -L "$lib" .carry/bench/lib/ ;;
	esac
done
(cd .carry/debs && apt-get download libjansson4 libjansson-dev >/dev/null)
for d in .carry/debs/*.deb; do dpkg -x "$d" .carry/sysroot; done
rm -rf .carry/debs
du -sh .carry
