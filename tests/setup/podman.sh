#!/bin/sh
# Test setup for the container tests (not part of bench): podman as root on this sandbox, and a local Debian
# base image, per ../shared/ENVIRONMENT.md. Idempotent; prints the base image reference.
#   sh tests/setup/podman.sh            -> localhost/debian:bookworm
# The two containers.conf settings are properties of the sandbox (crun refuses its hybrid cgroup layout; it
# cannot raise rlimits), so they live here, never in bench's defaults.
set -eu
# once here, the first install left /tmp at 0755 (apt's _apt user then cannot write it): put its mode back
tmpmode=$(stat -c %a /tmp)
trap 'chmod "$tmpmode" /tmp 2>/dev/null || true' EXIT
BASE=${BENCH_TEST_BASE:-localhost/debian:bookworm}
MIRROR=${BENCH_TEST_MIRROR:-http://deb.debian.org/debian}
need=
for p in podman buildah runc debootstrap; do command -v "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || { echo "podman setup: missing$need (run as root to install)" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends podman buildah runc \
		debootstrap uidmap fuse-overlayfs >/tmp/podman-apt.log 2>&1 || { tail -n 20 /tmp/podman-apt.log >&2; exit 1; }
fi
if [ ! -f /etc/containers/containers.conf ] || ! grep -q 'runtime = "runc"' /etc/containers/containers.conf; then
	mkdir -p /etc/containers
	cat >/etc/containers/containers.conf <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
CONF
fi
if ! podman image exists "$BASE"; then
	root=$(mktemp -d /tmp/bench-rootfs.XXXXXX)
	debootstrap --variant=minbase bookworm "$root" "$MIRROR" >/tmp/debootstrap.log 2>&1 ||
		{ tail -n 20 /tmp/debootstrap.log >&2; rm -rf "$root"; exit 1; }
	tar -C "$root" -c . | podman import - "$BASE" >/dev/null
	rm -rf "$root"
fi
echo "$BASE"
