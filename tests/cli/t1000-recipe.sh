#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench recipe: byte-stable Containerfile and apptainer definitions held by golden files (cuda, rocm and cpu
# x stable, nightly, dev), refusals without or with a foreign lock, and values written to inject that stay
# inside their instruction.
. "$(dirname "$0")/lib.sh"

for m in cuda-stable cuda-nightly cuda-dev rocm-stable rocm-nightly rocm-dev cpu-openblas cpu-nightly cpu-dev; do
	python3 tests/recipe/mklock.py "manifests/$m.yaml" "$T/$m.lock.json"
	expect 0 "recipe $m" "$BENCH" recipe --lock "$T/$m.lock.json" "manifests/$m.yaml"
	expect_same "$m.Containerfile matches the golden file" "tests/golden/recipes/$m.Containerfile" "$T/out"
	expect 0 "recipe $m, apptainer" "$BENCH" recipe --format apptainer --lock "$T/$m.lock.json" "manifests/$m.yaml"
	expect_same "$m.def matches the golden file" "tests/golden/recipes/$m.def" "$T/out"
done
"$BENCH" recipe --lock "$T/cuda-stable.lock.json" -o "$T/a" manifests/cuda-stable.yaml
"$BENCH" recipe --lock "$T/cuda-stable.lock.json" -o "$T/b" manifests/cuda-stable.yaml
expect_same "the same inputs give the same bytes" "$T/a" "$T/b"
grep -q "^FROM nvcr.io/nvidia/cuda@sha256:" "$T/a" && ok "base pinned by digest" || not_ok "base not pinned"
grep -q -- "--require-hashes" "$T/a" && grep -q "torch @ https://" "$T/a" && ok "wheels by URL with --require-hashes" || not_ok "wheels"

expect 3 "no lock" "$BENCH" recipe manifests/cuda-stable.yaml
expect_err "a recipe needs one"
expect 3 "the lock of another manifest" "$BENCH" recipe --lock "$T/cuda-dev.lock.json" manifests/cuda-stable.yaml
expect_err "the lock is not of this manifest"

# values written to inject
cat >"$T/evil.yaml" <<'Y'
bench: 1
name: evil
target: {vendor: cuda}
stack:
  base: "nvcr.io/nvidia/cuda:13.0.0-devel-ubuntu24.04"
  components:
    - {name: lib, git: "https://example.invalid/x", ref: "main; rm -rf /", build: ["make && echo 'done' \"$(id)\"", "%setup touch /HOST-pwned"]}
  env:
    EVIL: "a\"b $HOME \\ `id` ' end"
runtime: {engine: podman}
suites: {membw: {}}
Y
python3 tests/recipe/mklock.py "$T/evil.yaml" "$T/evil.lock.json"
expect 0 "recipe of a manifest written to inject" "$BENCH" recipe --lock "$T/evil.lock.json" "$T/evil.yaml"
cp "$T/out" "$T/evil.Containerfile"
if python3 - "$T/evil.Containerfile" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
runs = [json.loads(l[4:]) for l in lines if l.startswith("RUN ")]
build = "make && echo 'done' \"$(id)\""
assert ["sh", "-c", build] in runs, runs           # one argument, intact
assert ["sh", "-c", "%setup touch /HOST-pwned"] in runs, runs  # a list: one RUN per command, in order
assert runs.index(["sh", "-c", build]) + 1 == runs.index(["sh", "-c", "%setup touch /HOST-pwned"])
env = [l for l in lines if l.startswith("ENV EVIL=")]
assert env == ['ENV EVIL="a\\"b \\$HOME \\\\ `id` \' end"'], env
assert not any("main; rm -rf /" in l for l in lines)  # the ref never reaches the recipe; the commit does
PY
then ok "Containerfile: each build command is one exec-form argument, ENV escaped, the ref absent"; else not_ok "injection (Containerfile)"; show "$T/evil.Containerfile"; fi
expect 0 "apptainer recipe of the same" "$BENCH" recipe --format apptainer --lock "$T/evil.lock.json" "$T/evil.yaml"
cp "$T/out" "$T/evil.def"
sed -n '/^%post/,$p' "$T/out" | tail -n +2 >"$T/post.sh"
if sh -n "$T/post.sh" && grep -q "'sh' '-c' 'make && echo '\\\\''done'\\\\'' \"\$(id)\"" "$T/post.sh" &&
	[ "$(grep -c "^%" "$T/evil.def")" = 4 ] && grep -q "^    'sh' '-c' '%setup touch /HOST-pwned'$" "$T/evil.def"; then
	ok "apptainer: %post is valid shell, each build command one single-quoted argument, no section of the manifest's"
else not_ok "injection (apptainer)"; show "$T/evil.def"; fi

# a line break in a build command would start an apptainer section run on the build host (%setup): refused by the
# validator with its place, and by bench recipe before any recipe is written
cat >"$T/pwn.yaml" <<'Y'
bench: 1
name: pwn
target: {vendor: cuda}
stack:
  base: "nvcr.io/nvidia/cuda:13.0.0-devel-ubuntu24.04"
  components:
    - {name: lib, git: "https://example.invalid/x", ref: main, build: "make\n%setup\ntouch /HOST-pwned"}
runtime: {engine: apptainer}
suites: {membw: {}}
Y
expect 3 "validate refuses a build command with a newline" "$BENCH" validate "$T/pwn.yaml"
expect_err "pwn.yaml:7:71: error: 'build' holds a control character (\x0a)"
python3 tests/recipe/mklock.py "$T/pwn.yaml" "$T/pwn.lock.json"
expect 3 "recipe refuses it too" "$BENCH" recipe --format apptainer --lock "$T/pwn.lock.json" "$T/pwn.yaml"
expect_no_out
sed 's/build: "make\\n%setup\\ntouch \/HOST-pwned"/build: ["make", "make\\tinstall"]/' "$T/pwn.yaml" >"$T/tab.yaml"
expect 3 "a tab in one command of a build list" "$BENCH" validate "$T/tab.yaml"
expect_err "tab.yaml:7:80: error: 'build' holds a control character (\x09)"
sed -i 's/^stack:/stack:\n  env:\n    EVIL: "a\\rb"/' "$T/pwn.yaml"
expect 3 "an env value with a carriage return" "$BENCH" validate "$T/pwn.yaml"
expect_err "pwn.yaml:6:11: error: 'EVIL' holds a control character (\x0d)"
finish
