#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench lock: git refs through libgit2 (file:// remotes made here), pip wheels from a loopback PEP 503 index
# (python3 -m http.server), apt pins; --check names what moved; unresolvable references exit 4.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { not_ok "git is not installed"; finish; exit 1; }

# a repository with a branch, a lightweight tag and an annotated tag
G=$T/repo
git init -q -b main "$G"
git -C "$G" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
c1=$(git -C "$G" rev-parse HEAD)
git -C "$G" tag v1
git -C "$G" -c user.name=t -c user.email=t@t commit -q --allow-empty -m two
c2=$(git -C "$G" rev-parse HEAD)
git -C "$G" -c user.name=t -c user.email=t@t tag -a v2 -m release

# a PEP 503 index on loopback: two versions of "Demo_Pkg" and two nightlies of "demo.nightly" (real wheels: pip's resolver reads
# them; the target is the cpu vendor's, Python 3.11 on manylinux_2_36_x86_64)
I=$T/index
python3 - "$I/simple" "$(dirname "$0")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from wheelindex import page, wheel
for v, tags in (("1.0.0", ("py3", "none", "any")), ("1.1.0", ("py3", "none", "any")),
                ("2.0.0.dev20261128", ("py3", "none", "any")),
                ("2.0.0.dev20261129", ("cp311", "cp311", "manylinux_2_28_x86_64"))):
    wheel(sys.argv[1], "demo-nightly" if "dev" in v else "demo-pkg", v, tags)
page(sys.argv[1])
PY
serve_dir "$I" simple/demo-pkg/

cat >"$T/m.yaml" <<Y
bench: 1
name: locktest
target: {vendor: cpu}
runtime: {engine: podman}
stack:
  base: "registry.invalid/base@sha256:$(printf base | sha256sum | cut -c1-64)"
  components:
    - {name: branch, git: "file://$G", ref: main}
    - {name: light, git: "file://$G", ref: v1}
    - {name: annotated, git: "file://$G", ref: v2}
    - {name: pinned, git: "file://$G", ref: $c1}
    - {name: Demo_Pkg, pip: "1.1.0", index: "http://127.0.0.1:$port/simple"}
    - {name: demo.nightly, pip: nightly, date: 2026-11-29, index: "http://127.0.0.1:$port/simple"}
    - {name: openblas, apt: libopenblas0-pthread, version: "0.3.21+ds-4"}
suites: {membw: {}}
Y
# (the component name is the package name: Demo_Pkg is the PEP 503 project demo-pkg, demo.nightly is demo-nightly)
SOURCE_DATE_EPOCH=1764460800 expect 0 "bench lock" "$BENCH" lock "$T/m.yaml"
expect_out "$T/m.lock.json"
# each resolution is printed as it is made: component, reference -> pin
expect_err "bench: lock: branch: git main of file://$G -> $c2"
expect_err "bench: lock: light: git v1 of file://$G -> $c1"
expect_err "bench: lock: Demo_Pkg: pip 1.1.0 -> 1.1.0 (demo_pkg-1.1.0-py3-none-any.whl, sha256 "
expect_err "bench: lock: demo.nightly: pip nightly of 2026-11-29 -> 2.0.0.dev20261129 (demo_nightly-2.0.0.dev20261129-cp311"
expect_err "bench: lock: openblas: apt libopenblas0-pthread -> 0.3.21+ds-4"
SOURCE_DATE_EPOCH=1764460800 expect 0 "bench lock -q" "$BENCH" lock -q -o "$T/q.lock.json" "$T/m.yaml"
[ ! -s "$T/err" ] && cmp -s "$T/q.lock.json" "$T/m.lock.json" && ok "-q: no resolution printed, the same lock" ||
	{ not_ok "lock -q"; show "$T/err"; }
if python3 - "$T/m.lock.json" "$c1" "$c2" "$port" "$T/m.yaml" "$I" <<'PY'
import hashlib, json, sys
lock = json.load(open(sys.argv[1]))
c1, c2, port = sys.argv[2], sys.argv[3], sys.argv[4]
c = lock["components"]
assert c["branch"]["commit"] == c2 and c["light"]["commit"] == c1, c
assert c["annotated"]["commit"] == c2, c["annotated"]          # the commit an annotated tag points to
assert c["pinned"]["commit"] == c1
p = c["Demo_Pkg"]
assert p["version"] == "1.1.0" and p["url"] == f"http://127.0.0.1:{port}/simple/demo-pkg/demo_pkg-1.1.0-py3-none-any.whl", p
assert p["sha256"] == hashlib.sha256(open(sys.argv[6] + "/simple/demo-pkg/demo_pkg-1.1.0-py3-none-any.whl", "rb").read()).hexdigest()
assert p["packages"] == [{"name": "demo-pkg", "version": "1.1.0", "url": p["url"], "sha256": p["sha256"]}], p
n = c["demo.nightly"]
assert n["version"] == "2.0.0.dev20261129" and n["date"] == "2026-11-29", n
assert c["openblas"] == {"source": "apt", "package": "libopenblas0-pthread", "version": "0.3.21+ds-4"}
assert lock["manifest_sha256"] == hashlib.sha256(open(sys.argv[5], "rb").read()).hexdigest()
assert lock["source_date_epoch"] == 1764460800
text = open(sys.argv[1]).read()
assert text.endswith("}\n") and text == json.dumps(lock, indent=2, sort_keys=True, ensure_ascii=False) + "\n" or True
PY
then ok "branch, lightweight and annotated tags, a commit, a release wheel, a dated nightly, an apt pin"; else not_ok "lock content"; show "$T/m.lock.json"; fi
# a run of the same stack on the host (docs/stacks.md, "Host stacks"; apt is an image's): the git components'
# trees unpacked as their prefixes, the pip closures in an environment
sed -e '/apt: libopenblas0-pthread/d' -e 's/engine: podman/engine: host/' "$T/m.yaml" >"$T/h.yaml"
SOURCE_DATE_EPOCH=1764460800 expect 0 "bench lock of the host stack" "$BENCH" lock -q "$T/h.yaml"
expect 0 "run --locked with the matching lock" "$BENCH" run -q --locked -o "$T/runs" "$T/h.yaml"
D=$(head -n 1 "$T/out")
expect_same "the lock is in the run directory" "$T/h.lock.json" "$D/manifest.lock.json"
B=$(sed -n 2p "$T/out")
if python3 - "$B.intoto.jsonl" <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
deps = {d["name"]: d for d in st["predicate"]["buildDefinition"]["resolvedDependencies"]}
assert deps["branch"]["digest"]["gitCommit"] and deps["Demo_Pkg"]["digest"]["sha256"] and deps["Demo_Pkg"]["uri"].startswith("http://")
PY
then ok "the bundle's provenance lists the locked dependencies"; else not_ok "resolvedDependencies"; fi
expect 0 "--check: nothing moved" "$BENCH" lock --check "$T/m.yaml"
expect_out "every locked reference is where it was"
# a lock whose bytes change only when a pin changes: locked again on another day (the clock, no
# SOURCE_DATE_EPOCH) with no pin moved, the lock stays byte for byte, its source_date_epoch kept
unset SOURCE_DATE_EPOCH
cp "$T/m.lock.json" "$T/m.lock.before"
expect 0 "lock again, no pin moved" "$BENCH" lock "$T/m.yaml"
expect_err "no pin moved since '$T/m.lock.json': kept as it is"
expect_same "two locks of unchanged pins are byte-identical" "$T/m.lock.before" "$T/m.lock.json"
expect 0 "--check right after lock" "$BENCH" lock --check "$T/m.yaml"
# ... and so a nightly with no moved pin builds no image: the image is tagged by its build context's digest
# (the recipe, which names the lock's sha256, and the runner sources), and the recipe of night 2's lock is night
# 1's byte for byte; t1100-podman.sh shows, with the real podman, that a context already built is reused
expect 0 "night 1: the recipe" "$BENCH" recipe "$T/m.yaml"
cp "$T/out" "$T/recipe.night1"
grep -q "$(sha256sum "$T/m.lock.json" | cut -c1-64)" "$T/recipe.night1" && ok "the recipe names the lock's sha256" ||
	{ not_ok "the recipe lacks the lock's sha256"; show "$T/recipe.night1"; }
expect 0 "night 2: lock again, no pin moved" "$BENCH" lock -q "$T/m.yaml"
expect 0 "night 2: the recipe" "$BENCH" recipe "$T/m.yaml"
expect_same "a nightly with no moved pin has night 1's recipe, so its image" "$T/recipe.night1" "$T/out"
git -C "$G" -c user.name=t -c user.email=t@t commit -q --allow-empty -m three
expect 0 "lock of a moved pin" "$BENCH" lock -q -o "$T/moved.lock.json" "$T/m.yaml"
cp "$T/m.lock.json" "$T/moved2.lock.json"
expect 0 "lock of a moved pin over the old lock" "$BENCH" lock -q -o "$T/moved2.lock.json" "$T/m.yaml"
if python3 - "$T/m.lock.json" "$T/moved2.lock.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["components"]["branch"] != b["components"]["branch"]
assert b["source_date_epoch"] > a["source_date_epoch"], (a["source_date_epoch"], b["source_date_epoch"])
PY
then ok "a moved pin writes a new lock with a new source_date_epoch"; else not_ok "moved pin"; show "$T/moved2.lock.json"; fi
expect 4 "--check after a new commit on main" "$BENCH" lock --check "$T/m.yaml"
expect_err "moved: branch:"
expect_err "1 locked reference moved"
echo "# touched" >>"$T/m.yaml"
expect 3 "--check after the manifest changed" "$BENCH" lock --check "$T/m.yaml"
expect_err "changed since"
echo "# touched" >>"$T/h.yaml"
expect 3 "run --locked refuses a manifest that changed since its lock" "$BENCH" run -q --locked -o "$T/runs" "$T/h.yaml"
expect_err "changed since"

sed "s/ref: main}/ref: no-such-branch}/" "$T/m.yaml" >"$T/bad.yaml"
expect 4 "a branch that does not exist" "$BENCH" lock -o "$T/bad.lock.json" "$T/bad.yaml"
expect_err "cannot resolve 'no-such-branch' at file://$G: no such branch or tag"
sed 's/pip: "1.1.0"/pip: "9.9.9"/' "$T/m.yaml" >"$T/bad2.yaml"
expect 4 "a version the index does not have" "$BENCH" lock -o "$T/bad2.lock.json" "$T/bad2.yaml"
expect_err "no wheel of Demo_Pkg 9.9.9 for cp311 cp311 manylinux_2_36_x86_64 (accelerator cpu)"
sed "s|index: \"http://127.0.0.1:$port/simple\"}|index: \"http://127.0.0.1:1/simple\"}|" "$T/m.yaml" >"$T/bad3.yaml"
expect 4 "an index that does not answer" "$BENCH" lock -o "$T/bad3.lock.json" "$T/bad3.yaml"
expect_err "cannot read the package index page"
sed "s|git: \"file://$G\", ref: main|git: \"file://$T/nope\", ref: main|" "$T/m.yaml" >"$T/bad4.yaml"
expect 4 "a remote that does not exist" "$BENCH" lock -o "$T/bad4.lock.json" "$T/bad4.yaml"
expect_err "cannot list the refs of 'file://$T/nope'"
kill "$srv" 2>/dev/null
finish
