#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Test setup for the HIP runner test (t1400; not part of bench): a local Debian unstable image with Debian's own ROCm
# packages (hipcc, HIP, hipBLASLt, RCCL, hipBLAS, rocm-smi, rocminfo), enough to compile and link the HIP runners and
# run what needs no AMD GPU. The sandbox reaches Debian's archive but no image registry, so the image is made like
# tests/setup/podman.sh makes its bookworm base: debootstrap (suite sid) from the machine's mirror, 'podman import',
# then the packages installed in a container and committed. Idempotent: an existing image of this form is reused; prints its
# reference. Tests may call it at once: the first makes the image, the others wait for it.
#   sh tests/setup/rocm.sh              -> localhost/debian-rocm:unstable
# BENCH_TEST_ROCM_IMAGE names another image; BENCH_TEST_MIRROR another mirror (as for podman.sh).
set -eu
here=$(dirname "$0")
# one setup at a time on this machine (the tests run side by side): a lock held by flock(1) on a file, its
# descriptor not handed down (-o); podman.sh below takes its own lock, never this one
if [ -z "${BENCH_TEST_ROCM_LOCKED:-}" ]; then
	export BENCH_TEST_ROCM_LOCKED=1
	exec flock -o /tmp/bench-test-rocm.lock sh "$0" "$@"
fi
IMAGE=${BENCH_TEST_ROCM_IMAGE:-localhost/debian-rocm:unstable}
SID=localhost/debian:sid
# the ROCm packages of the HIP build (docs/runners.md, "The HIP build"), taken from experimental: unstable's own
# librccl1 (5.4.3) is still built on HIP 5 and cannot be installed beside unstable's HIP 6.4 and rocminfo (HSA 6.4
# breaks libamdhip64-5); experimental holds the whole stack at one ROCm release (7.2.4)
# (hipblaslt.h includes hipblas/hipblas.h, but libhipblas-dev's library pulls rocBLAS and rocSOLVER, 1.6 GB that dpkg
# decompresses for nothing here, 35 s of CPU: only the headers of libhipblas-dev are unpacked, below)
ROCM_PKGS="hipcc libamdhip64-dev libhipblaslt-dev librccl-dev libhipblas-common-dev rocm-smi rocminfo amd-smi"
# and what the build itself needs, from unstable
PKGS="make gcc libc6-dev pkg-config libjansson-dev binutils"

# podman itself, its sandbox settings and the mirror: podman.sh's (it builds its bookworm base too, which is cheap
# when present and keeps one place for the podman install)
sh "$here/podman.sh" bare >/dev/null
MIRROR=$(sh "$here/podman.sh" mirror)
# the form of the two images (their label org.bench.test.sid; an image of another form is made anew). 2: dpkg's
# force-unsafe-io, as podman.sh's bare image has it
SID_FORM=2
form() { podman image inspect --format '{{ index .Labels "org.bench.test.sid" }}' "$1" 2>/dev/null || true; }
# the ROCm image's own form (its label org.bench.test.rocm). 3: without the GPU kernel libraries (below); 4: without
# rocBLAS and rocSOLVER (only the headers of libhipblas-dev); 5: the bare image's dpkg settings (podman.sh dpkg-slim)
ROCM_FORM=5
rocm_form() { podman image inspect --format '{{ index .Labels "org.bench.test.rocm" }}' "$1" 2>/dev/null || true; }
if [ "$(rocm_form "$IMAGE")" = "$ROCM_FORM" ] || { [ -n "${BENCH_TEST_ROCM_IMAGE:-}" ] && podman image exists "$IMAGE"; }; then
	echo "$IMAGE"
	exit 0
fi
tmpmode=$(stat -c %a /tmp)
trap 'chmod "$tmpmode" /tmp 2>/dev/null || true' EXIT
if [ "$(form "$SID")" != "$SID_FORM" ]; then
	root=$(mktemp -d /tmp/bench-rootfs-sid.XXXXXX)
	debootstrap --variant=minbase sid "$root" "$MIRROR" >/tmp/debootstrap-sid.log 2>&1 ||
		{ tail -n 20 /tmp/debootstrap-sid.log >&2; rm -rf "$root"; exit 1; }
	echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/bench-test-unsafe-io"
	tar -C "$root" -c . | podman import -q --change "LABEL=org.bench.test.sid=$SID_FORM" - "$SID" >/dev/null
	rm -rf "$root"
fi
# what dpkg leaves out: the documentation, manual pages and translations, as the bare image (podman.sh dpkg-slim);
# and the GPU code objects of hipBLASLt (and of rocBLAS, should a package pull it in): .hsaco and .dat files read only
# when a library runs on an AMD GPU, which this machine has none of (compiling, linking and the runners' no-GPU paths
# never open them)
DPKG_CFG=$(sh "$here/podman.sh" dpkg-slim
	printf 'path-exclude %s\n' '/usr/lib/x86_64-linux-gnu/hipblaslt/library/*' '/usr/lib/x86_64-linux-gnu/rocblas/*/library/*')
name=bench-rocm-setup-$$
podman rm -f "$name" >/dev/null 2>&1 || true
# Check-Valid-Until off: the machine's mirror may serve a frozen snapshot whose sid Release has expired by this
# machine's clock (debootstrap does not check it; apt does)
if ! podman run --name "$name" -e BENCH_DPKG_CFG="$DPKG_CFG" "$SID" sh -c "export DEBIAN_FRONTEND=noninteractive
	echo 'Acquire::Check-Valid-Until \"false\";' >/etc/apt/apt.conf.d/99bench-snapshot
	printf '%s\n' \"\$BENCH_DPKG_CFG\" >/etc/dpkg/dpkg.cfg.d/bench-test-excludes
	sed -n 's/^deb \\(.*\\) sid \\(.*\\)/deb \\1 experimental \\2/p' /etc/apt/sources.list >/etc/apt/sources.list.d/experimental.list
	apt-get update -qq &&
	apt-get install -y -qq --no-install-recommends $PKGS &&
	apt-get install -y -qq --no-install-recommends -t experimental $ROCM_PKGS &&
	cd /tmp && apt-get download -qq -t experimental libhipblas-dev &&
	dpkg-deb --fsys-tarfile libhipblas-dev_*.deb | tar -x -C / ./usr/include && rm libhipblas-dev_*.deb &&
	test -f /usr/include/hipblas/hipblas.h &&
	apt-get clean && rm -rf /var/lib/apt/lists/*" >/tmp/rocm-apt.log 2>&1; then
	tail -n 30 /tmp/rocm-apt.log >&2
	podman rm -f "$name" >/dev/null 2>&1 || true
	exit 1
fi
podman commit -q --change "LABEL=org.bench.test.rocm=$ROCM_FORM" "$name" "$IMAGE" >/dev/null
podman rm -f "$name" >/dev/null
echo "$IMAGE"
