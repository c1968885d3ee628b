#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Test setup for the container tests (not part of bench): podman as root on this sandbox, and a local Debian
# base image made with debootstrap (the sandbox reaches Debian's archive but no image registry). Idempotent;
# prints the base image reference. Tests may call it at once: the first does the setup, the others wait for it.
#   sh tests/setup/podman.sh            -> localhost/debian:bookworm (the stacks' base: the bare one and the
#                                          build packages of images/bases/cpu.yaml)
#   sh tests/setup/podman.sh bare       -> localhost/debian:bookworm-minbase (debootstrap minbase: a fresh machine)
#   sh tests/setup/podman.sh mirror     -> the Debian mirror debootstrap would use, and nothing else done
#   sh tests/setup/podman.sh dpkg-slim  -> the dpkg settings of the test images (documentation left out), nothing done
#   sh tests/setup/podman.sh packages   -> the build packages the stacks' base holds, and nothing else done
#   sh tests/setup/podman.sh build-conf -> the same setup; prints the containers.conf of the tests' image builds
# The mirror is the machine's own: the URIs of the apt source for bookworm (deb822 files in
# /etc/apt/sources.list.d/, else one-line 'deb' entries), or BENCH_TEST_MIRROR. No mirror host is written here.
# The two containers.conf settings are properties of the sandbox (crun refuses its hybrid cgroup layout; it
# cannot raise rlimits), so they live here, never in bench's defaults.
set -eu
SUITE=bookworm
APT_ETC=${BENCH_TEST_APT_ETC:-/etc/apt}

# apt_mirror: the first URI of an enabled 'deb' source for $SUITE in the machine's apt configuration
apt_mirror() {
	for f in "$APT_ETC"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$SUITE" '
		function has(list, word) { return (" " list " ") ~ ("[ \t]" word "[ \t]") }
		function flush() {
			if (!found && has(types, "deb") && has(suites, suite) && tolower(enabled) !~ /^[ \t]*no/ && uris != "") {
				sub(/^[ \t]+/, "", uris); split(uris, u, /[ \t]+/); print u[1]; found = 1
			}
			types = suites = uris = enabled = last = ""
		}
		/^#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { if (last == "uris") uris = uris " " $0; else if (last == "suites") suites = suites " " $0
			    else if (last == "types") types = types " " $0; next }
		{
			key = tolower($0); sub(/:.*/, "", key); val = $0; sub(/^[^:]*:/, "", val)
			if (key == "types") types = val; else if (key == "uris") uris = val
			else if (key == "suites") suites = val; else if (key == "enabled") enabled = val
			last = key
		}
		END { flush() }' "$f" | head -n 1 | grep . && return 0
	done
	for f in "$APT_ETC"/sources.list "$APT_ETC"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk -v suite="$SUITE" '$1 == "deb" && $3 == suite { print $2; exit }' |
			grep . && return 0
	done
	return 1
}

# the build packages of every recipe from a bare base, from the one list bench reads (images/bases/cpu.yaml)
PKGS=$(sed -n 's/^build_packages:[ \t]*\[\(.*\)\].*/\1/p' "$(dirname "$0")/../../images/bases/cpu.yaml" | tr -d ' ' | tr ',' ' ')
[ -n "$PKGS" ] || { echo "podman setup: no build_packages in images/bases/cpu.yaml" >&2; exit 1; }
if [ "${1:-}" = packages ]; then
	echo "$PKGS"
	exit 0
fi
if [ -n "${BENCH_TEST_MIRROR:-}" ]; then
	MIRROR=$BENCH_TEST_MIRROR
elif ! MIRROR=$(apt_mirror); then
	echo "podman setup: no Debian mirror for '$SUITE' in $APT_ETC/sources.list.d/*.sources or $APT_ETC/sources.list;" \
		"set BENCH_TEST_MIRROR to one (the URL debootstrap should use)" >&2
	exit 1
fi
# what Debian's slim images leave out (/etc/dpkg/dpkg.cfg.d/docker there): manuals, documentation but the copyright
# files, translations; dpkg unpacks a tenth fewer files (t0010's install: 160 s of CPU, not 176). The bare image and
# the ROCm image (tests/setup/rocm.sh) both have it
dpkg_slim() {
	printf 'path-exclude %s\n' '/usr/share/doc/*' '/usr/share/man/*' '/usr/share/groff/*' '/usr/share/info/*' \
		'/usr/share/lintian/*' '/usr/share/linda/*' '/usr/share/locale/*'
	echo 'path-include /usr/share/doc/*/copyright'
}
if [ "${1:-}" = dpkg-slim ]; then
	dpkg_slim
	exit 0
fi
if [ "${1:-}" = mirror ]; then
	echo "$MIRROR"
	exit 0
fi
BASE=${BENCH_TEST_BASE:-localhost/debian:bookworm}
BARE=${BENCH_TEST_BARE:-localhost/debian:bookworm-minbase}
# the form of the bare image, its label org.bench.test.bare (the stacks' base inherits it): an image of another form
# is made anew. 2: dpkg's force-unsafe-io, as Debian's own container images have it (below); 3: and the documentation
# left out, as Debian's slim images have it
BARE_FORM=3
# one setup at a time on this machine (the tests run side by side, and on a fresh machine several of them call this
# at once), in two parts, each under a lock held by flock(1) on its own file (-o: the lock's descriptor is not
# handed down, so a process that apt or podman leaves behind cannot keep holding it): podman, its settings and the
# bare image; then the stacks' base. A test that needs only the bare image (t0010, tests/setup/rocm.sh)
# waits for the first part, not for the stacks' base another test is installing
case ${BENCH_TEST_PODMAN_LOCKED:-} in
'')
	export BENCH_TEST_PODMAN_LOCKED=bare
	flock -o /tmp/bench-test-podman.lock sh "$0" "$@" || exit 1
	[ "${1:-}" = bare ] && { echo "$BARE"; exit 0; }
	export BENCH_TEST_PODMAN_LOCKED=base
	exec flock -o /tmp/bench-test-podman-base.lock sh "$0" "$@"
	;;
bare) ;;
base)
	# the stacks' base: made anew when it is missing or was made from another package list (a label says which)
	have=$(podman image inspect --format '{{ index .Labels "org.bench.test.bare" }} {{ index .Labels "org.bench.test.build-packages" }}' "$BASE" 2>/dev/null || true)
	if [ "$have" != "$BARE_FORM $PKGS" ]; then
		tmpmode=$(stat -c %a /tmp)
		trap 'chmod "$tmpmode" /tmp 2>/dev/null || true' EXIT
		ctx=$(mktemp -d /tmp/bench-base.XXXXXX)
		# shellcheck disable=SC2086 # the package names hold no spaces
		{
			echo "FROM $BARE"
			echo "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $PKGS && rm -rf /var/lib/apt/lists/*"
			echo "LABEL org.bench.test.build-packages=\"$PKGS\""
		} >"$ctx/Containerfile"
		CONTAINERS_CONF=/etc/containers/bench-test-build.conf podman build -q -t "$BASE" "$ctx" >/tmp/bench-base-build.log 2>&1 ||
			{ tail -n 20 /tmp/bench-base-build.log >&2; rm -rf "$ctx"; exit 1; }
		rm -rf "$ctx"
	fi
	case ${1:-} in
	build-conf) echo /etc/containers/bench-test-build.conf ;;
	*) echo "$BASE" ;;
	esac
	exit 0
	;;
esac
# once here, the first install left /tmp at 0755 (apt's _apt user then cannot write it): put its mode back
tmpmode=$(stat -c %a /tmp)
trap 'chmod "$tmpmode" /tmp 2>/dev/null || true' EXIT
need=
for p in podman buildah runc debootstrap; do command -v "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || { echo "podman setup: missing$need (run as root to install)" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends podman buildah runc \
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
# the tests' image builds (t1100, t1110, t1120 export CONTAINERS_CONF=this file): the same settings, and the
# machine's downloaded .debs lent to the builds' apt as t0010 lends them to its container: an overlay
# (what a build downloads stays in it; nothing reaches the host or goes into the image), so that a build downloads
# only what the host never did. Written anew only when it changes (other tests may be reading it)
# Their apt also skips the package descriptions' translations, as Debian's own container images do
# (/etc/apt/apt.conf.d/docker-no-languages there): 6 of the 15 MB each build's apt-get update fetches and parses.
BUILD_CONF=/etc/containers/bench-test-build.conf
archives=/var/cache/apt/archives
NOLANG=/etc/containers/bench-test-apt-no-languages
printf 'Acquire::Languages "none";\n' >"$NOLANG.new"
if cmp -s "$NOLANG.new" "$NOLANG"; then rm -f "$NOLANG.new"; else mv "$NOLANG.new" "$NOLANG"; fi
vols="\"$NOLANG:/etc/apt/apt.conf.d/99bench-test-no-languages:ro\""
[ -d "$archives" ] && vols="\"$archives:$archives:O\", $vols"
awk -v vol="volumes = [$vols]" '{ print } /^\[containers\][ \t]*$/ { print vol }' /etc/containers/containers.conf \
	>"$BUILD_CONF.new"
if cmp -s "$BUILD_CONF.new" "$BUILD_CONF"; then rm -f "$BUILD_CONF.new"; else mv "$BUILD_CONF.new" "$BUILD_CONF"; fi
# two images: the bare one (debootstrap minbase: a fresh machine, for t0010), and the stacks' base, the
# bare one with the build packages every recipe installs from a bare base (images/bases/cpu.yaml, build_packages)
# installed once here, so that each stack image's build installs only what is its own (the image tests built from
# the bare base paid the same ~200 packages in every image). The packages are read from the one list bench reads:
# a package a recipe lacks is missing from this base too (t1100 checks the two lists are one).
# The bare image is what Debian's container images are: a minbase system whose dpkg does not fsync every file it
# unpacks (/etc/dpkg/dpkg.cfg.d/docker-apt-speedup there; a container's file system is thrown away, not recovered
# after a crash). Every apt install of the container tests (a fresh machine's ~450 packages in t0010, the
# stacks' base, the ROCm image) takes a third less time for it.
if [ "$(podman image inspect --format '{{ index .Labels "org.bench.test.bare" }}' "$BARE" 2>/dev/null || true)" != "$BARE_FORM" ]; then
	root=$(mktemp -d /tmp/bench-rootfs.XXXXXX)
	debootstrap --variant=minbase bookworm "$root" "$MIRROR" >/tmp/debootstrap.log 2>&1 ||
		{ tail -n 20 /tmp/debootstrap.log >&2; rm -rf "$root"; exit 1; }
	echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/bench-test-unsafe-io"
	dpkg_slim >"$root/etc/dpkg/dpkg.cfg.d/bench-test-slim"
	tar -C "$root" -c . | podman import --change "LABEL=org.bench.test.bare=$BARE_FORM" - "$BARE" >/dev/null
	rm -rf "$root"
fi
