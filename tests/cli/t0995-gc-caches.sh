#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench gc --caches and --lock: what $BENCH_HOME holds for stacks goes once no kept run and no given lock names it,
# one check per rule. Host stacks are real (a git component, tests/fixtures/minblas, built by bench build on engine
# host twice: once per commit of its branch); git caches are the ones those builds fetched into; build contexts,
# apptainer images and the podman images are made small by hand (an image imported from a tiny tar and tagged, in
# a podman storage of this test's own, so that no other image of this machine is touched). Kept: what a --lock
# names (its host stack, git cache, build context and that context's image and SIF), what a kept run names (the
# image its image/image.json records and that image's build context, its lock's stack), what another bench is
# building (a held .lock), every image whose build context is not in this $BENCH_HOME (localhost/bench-* of another
# BENCH_HOME too) and every image not tagged localhost/bench-*. An image goes with its build context. --dry-run lists and removes nothing; without --caches no cache is touched.
. "$(dirname "$0")/lib.sh"
SRC=$PWD
C=$BENCH_HOME/cache
S=$BENCH_HOME/stacks

# the minblas repository; the manifest builds its branch main on the host
G="$T/minblas"
git init -q -b main "$G"
cp "$SRC/tests/fixtures/minblas/blas.c" "$SRC/tests/fixtures/minblas/Makefile" "$G/"
git -C "$G" add . && git -C "$G" -c user.email=t@t -c user.name=t commit -qm v1
cat >"$T/mb.yaml" <<Y
bench: 1
name: mb
channel: dev
target: {vendor: cpu, gpu: cpu, nodes: 1, gpus_per_node: 1}
stack:
  components:
    - {name: minblas, git: "file://$G", ref: main, build: "make install PREFIX=\"\$BENCH_PREFIX\""}
runtime: {engine: host, launcher: local, timeout: 5m}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 5ms}
Y
expect 0 "lock minblas at v1" "$BENCH" lock "$T/mb.yaml"
expect 0 "build minblas at v1" "$BENCH" build "$T/mb.yaml"
OLD=$(dirname "$(cut -f3 "$T/out")")
cp "$T/mb.lock.json" "$T/old.lock.json"
cp "$T/mb.yaml" "$T/old.yaml"
echo "/* v2 */" >>"$G/blas.c"
git -C "$G" -c user.email=t@t -c user.name=t commit -qam v2
expect 0 "lock minblas at v2" "$BENCH" lock "$T/mb.yaml"
expect 0 "build minblas at v2" "$BENCH" build "$T/mb.yaml"
NEW=$(dirname "$(cut -f3 "$T/out")")
[ -d "$OLD" ] && [ -d "$NEW" ] && [ "$OLD" != "$NEW" ] && ok "two host stacks: $OLD, $NEW" || not_ok "stacks: $OLD $NEW"
GIT=$(ls -d "$C"/git/*.git)
[ "$(echo "$GIT" | wc -l)" = 1 ] && ok "one git cache fetched ($GIT)" || not_ok "git caches: $GIT"

# build contexts: one of tonight's lock (its context digest aaaa...), one of a lock no longer used (bbbb...)
LSHA=$(sha256sum "$T/mb.lock.json" | cut -c1-16)
OSHA=$(sha256sum "$T/old.lock.json" | cut -c1-16)
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
mkdir -p "$C/build/mb-$LSHA" "$C/build/mb-$OSHA" "$C/build/run-0123456789abcdef" "$C/sif" \
	"$C/git/0123456789abcdef0123456789abcdef.git"
echo cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc >"$C/build/run-0123456789abcdef/context.sha256"
echo "$A" >"$C/build/mb-$LSHA/context.sha256"
echo "$B" >"$C/build/mb-$OSHA/context.sha256"
echo sif >"$C/sif/bench-mb-aaaaaaaaaaaaaaaa.sif"
echo sif >"$C/sif/bench-mb-bbbbbbbbbbbbbbbb.sif"
# a stack another bench is building now: it holds the directory's .lock
mkdir -p "$S/busybusybusybusybusybusybusybusy" && : >"$S/busybusybusybusybusybusybusybusy/.lock"
python3 -c 'import fcntl, sys, time; f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); print(flush=True); time.sleep(60)' \
	"$S/busybusybusybusybusybusybusybusy/.lock" >"$T/held" &
HOLDER=$!
while [ ! -s "$T/held" ]; do sleep 0.1; done
# a kept run (the only one of its manifest name) that ran in the image bench-run:cccc... and locked minblas at v1
R=$T/runs
RUN=$R/run-20261201T020000Z-abcdef
mkdir -p "$RUN/image"
printf '{"state": "complete"}\n' >"$RUN/status.json"
printf '{"image": "localhost/bench-run:cccccccccccccccc"}\n' >"$RUN/image/image.json"

# podman: a storage of this test's own, images imported from a tiny tar
export CONTAINERS_STORAGE_CONF="$T/storage.conf"
printf '[storage]\ndriver = "vfs"\ngraphroot = "%s/graph"\nrunroot = "%s/run"\n' "$T" "$T" >"$CONTAINERS_STORAGE_CONF"
HAVE_PODMAN=0
if command -v podman >/dev/null 2>&1; then
	mkdir -p "$T/img" && echo tiny >"$T/img/f" && tar -C "$T/img" -cf "$T/img.tar" f
	if podman import -q "$T/img.tar" localhost/bench-mb:aaaaaaaaaaaaaaaa >/dev/null 2>"$T/podman.err"; then
		HAVE_PODMAN=1
		for t in localhost/bench-mb:bbbbbbbbbbbbbbbb localhost/bench-run:cccccccccccccccc localhost/other:1 \
			localhost/bench-foreign:dddddddddddddddd; do
			podman tag localhost/bench-mb:aaaaaaaaaaaaaaaa "$t"
		done
	fi
fi
images() { podman images --format '{{.Repository}}:{{.Tag}}' | sort | tr '\n' ' '; }

snapshot() { (cd "$BENCH_HOME" && find cache stacks -maxdepth 2 | sort); [ $HAVE_PODMAN = 0 ] || images; }
snapshot >"$T/before"
expect 0 "without --caches no cache is touched" "$BENCH" gc "$R"
snapshot >"$T/after"
cmp -s "$T/before" "$T/after" && ok "caches and images as they were" || { not_ok "something went"; diff "$T/before" "$T/after"; }

expect 0 "--caches --lock --dry-run" "$BENCH" gc --lock "$T/mb.lock.json" --dry-run "$R"
expect_out "$OLD"
expect_out "$C/build/mb-$OSHA"
expect_out "$C/sif/bench-mb-bbbbbbbbbbbbbbbb.sif"
expect_out "$C/git/0123456789abcdef0123456789abcdef.git"
[ $HAVE_PODMAN = 0 ] || expect_out "podman image localhost/bench-mb:bbbbbbbbbbbbbbbb"
expect_err "bench: gc: would remove"
snapshot >"$T/after"
cmp -s "$T/before" "$T/after" && ok "--dry-run removes nothing" || { not_ok "dry-run removed"; diff "$T/before" "$T/after"; }

expect 0 "gc --lock tonight's lock" "$BENCH" gc --lock "$T/mb.lock.json" "$R"
expect_err "bench: gc: removed 0 runs"
gone() { [ ! -e "$1" ] && ok "removed: $2" || not_ok "still there: $2 ($1)"; }
kept() { [ -e "$1" ] && ok "kept: $2" || not_ok "removed: $2 ($1)"; }
gone "$OLD" "the host stack of the old lock (v1)"
kept "$NEW" "the host stack tonight's lock names (v2)"
kept "$GIT" "the git cache tonight's lock fetches from"
gone "$C/git/0123456789abcdef0123456789abcdef.git" "a git cache no lock names"
kept "$C/build/mb-$LSHA" "the build context of tonight's lock"
gone "$C/build/mb-$OSHA" "the build context of the old lock"
kept "$C/sif/bench-mb-aaaaaaaaaaaaaaaa.sif" "the apptainer image of tonight's context"
gone "$C/sif/bench-mb-bbbbbbbbbbbbbbbb.sif" "the apptainer image of the old context"
kept "$S/busybusybusybusybusybusybusybusy" "a stack another bench holds locked"
kept "$RUN" "the run"
kept "$C/build/run-0123456789abcdef" "the build context of the image a kept run records"
if [ $HAVE_PODMAN = 1 ]; then
	I=$(images)
	case $I in *localhost/bench-mb:aaaaaaaaaaaaaaaa*) ok "kept: the image of tonight's context" ;; *) not_ok "image aaaa gone: $I" ;; esac
	case $I in *localhost/bench-mb:bbbbbbbbbbbbbbbb*) not_ok "image bbbb kept: $I" ;; *) ok "removed: the image of the old context" ;; esac
	case $I in *localhost/bench-run:cccccccccccccccc*) ok "kept: the image a kept run records" ;; *) not_ok "run image gone: $I" ;; esac
	case $I in *localhost/other:1*) ok "kept: an image not tagged localhost/bench-*" ;; *) not_ok "other image gone: $I" ;; esac
	case $I in *localhost/bench-foreign:dddddddddddddddd*) ok "kept: a bench image whose build context is not here" ;;
	*) not_ok "foreign image gone: $I" ;; esac
else
	ok "# SKIP podman cannot import here: $(head -c 200 "$T/podman.err" 2>/dev/null)"
fi

# the kept run's lock names v1: with it in the run, the v1 stack would have been kept; a run beyond --keep keeps
# nothing; the held stack goes once its builder is done
cp "$T/old.lock.json" "$RUN/manifest.lock.json" && cp "$T/old.yaml" "$RUN/manifest.yaml"
cp "$T/old.lock.json" "$T/mbold.lock.json" && cp "$T/old.yaml" "$T/mbold.yaml"
expect 0 "rebuild the v1 stack" "$BENCH" build "$T/mbold.yaml"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
expect 0 "gc --caches: the kept run names the v1 stack" "$BENCH" gc --caches "$R"
kept "$OLD" "the host stack a kept run's lock names (v1)"
gone "$NEW" "the host stack no kept run and no lock names (v2)"
gone "$S/busybusybusybusybusybusybusybusy" "the stack, once its builder let go of it"
expect 0 "gc --keep 0 --caches: the run goes, and what only it named" "$BENCH" gc --keep 0 --caches "$R"
gone "$RUN" "the run beyond --keep 0"
gone "$OLD" "the host stack only the removed run named"
gone "$C/build/run-0123456789abcdef" "the build context only the removed run named"
if [ $HAVE_PODMAN = 1 ]; then
	case $(images) in *localhost/bench-run:*) not_ok "run image kept: $(images)" ;; *) ok "removed: the image only the removed run named" ;; esac
	case $(images) in *localhost/bench-foreign:dddddddddddddddd*) ok "still kept: the image built elsewhere" ;; *) not_ok "foreign gone" ;; esac
fi

expect 1 "a --lock that cannot be read" "$BENCH" gc --lock "$T/nope.lock.json" "$R"
expect_err "nope.lock.json"
finish
