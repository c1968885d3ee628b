#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# serial: podman (image builds one at a time: CPU-heavy; its cleanup removes the untagged images since its start)
# Proof of what ran (docs/architecture.md, "Proof of what ran"): every record names the shared libraries its runner
# loaded, and bench run --locked fails a case whose runner loaded a pinned component from anywhere but its pinned
# build. On the host (engine host, cheap; a host stack, docs/stacks.md): the stand-in below built into its prefix
# and loaded, named in every record with its sha256; the system's BLAS preloaded instead is a warning, and exit 7
# under --locked; so is a pip component whose imported distribution is not the lock's version. With podman
# (setup: tests/setup/podman.sh): a dev component built from a local git repository, a stand-in OpenBLAS
# (libopenblas.so.0 with naive cblas_sgemm and openblas_get_config) installed into $BENCH_PREFIX; the runner
# loads it, the record names its path and version, show and compare list it; a stack whose loader picks the
# system's copy first fails under --locked (exit 7, loaded-not-pinned) and warns without.
. "$(dirname "$0")/lib.sh"
SRC=$PWD
SYSBLAS=$(python3 -c 'import os; print(os.path.realpath("/usr/lib/x86_64-linux-gnu/libopenblas.so.0"))')

# ---- host -----------------------------------------------------------------------------------------------------
G="$T/standin"
git init -q -b main "$G"
cat >"$G/standin.c" <<'C'
/* a stand-in for OpenBLAS: the entry points bench-gemm's CBLAS backend calls, naive loops */
enum { ROW = 101, NOTRANS = 111 };
static float at(const float *x, int ld, int rowmajor, int trans, int i, int j)
{
	if (trans)
		return rowmajor ? x[j * ld + i] : x[i * ld + j];
	return rowmajor ? x[i * ld + j] : x[j * ld + i];
}
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
		 int ldb, float beta, float *c, int ldc)
{
	int r = order == ROW;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			float s = 0;
			for (int l = 0; l < k; l++)
				s += at(a, lda, r, ta != NOTRANS, i, l) * at(b, ldb, r, tb != NOTRANS, l, j);
			float *o = r ? &c[i * ldc + j] : &c[j * ldc + i];
			*o = alpha * s + (beta != 0 ? beta * *o : 0);
		}
}
char *openblas_get_config(void) { return "OpenBLAS 0.0.0-bench-standin NAIVE"; }
int openblas_get_num_threads(void) { return 1; }
C
(cd "$G" && git add standin.c && git -c user.name=t -c user.email=t@t commit -qm standin)
BUILD='mkdir -p "$BENCH_PREFIX/lib" && cc -O2 -shared -fPIC -Wl,-soname,libopenblas.so.0 -o "$BENCH_PREFIX/lib/libopenblas.so.0" standin.c'
GEMM='gemm: {backends: [cblas], dtypes: [fp32], layouts: [tn, nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 5ms}'
cat >"$T/host.yaml" <<Y
bench: 1
name: loaded-host
channel: dev
target: {vendor: cpu, gpus_per_node: 1}
stack:
  components:
    - {name: blas-standin, git: "file://$G", ref: main, build: '$BUILD'}
runtime: {engine: host}
suites:
  $GEMM
Y
expect 0 "lock the host stack" "$BENCH" lock "$T/host.yaml"
# a host stack (docs/stacks.md, "Host stacks"): bench builds the stand-in into its prefix and puts it first
expect 0 "run on the host: the stand-in built into its prefix and loaded" "$BENCH" run -q --locked --no-pack -o "$T/runs" "$T/host.yaml"
D=$(head -n 1 "$T/out")
PIN=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["host_stack"]["components"]["blas-standin"]["prefix"])' "$D/env/environment.json")/lib/libopenblas.so.0
python3 - "$D" "$PIN" <<'PY' && ok "host: every record names its loaded libraries (the stand-in with its version and sha256, glibc's), stack_libs the stack's" || { not_ok "host records"; show "$D/results/gemm.jsonl"; }
import json, sys
d, pin = sys.argv[1:]
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
assert len(recs) == 2 and all(r["status"] == "ok" for r in recs), recs
for r in recs:
    by = {l["soname"]: l for l in r["loaded"]}
    assert by["libopenblas.so.0"]["path"] == pin and by["libopenblas.so.0"]["version"] == "0.0.0-bench-standin", by.get("libopenblas.so.0")
    assert by["libopenblas.so.0"]["component"] == "blas-standin" and len(by["libopenblas.so.0"]["sha256"]) == 64
    assert by["libc.so.6"]["version"] and by["libc.so.6"]["path"].startswith("/"), by["libc.so.6"]
    assert len({l["path"] for l in r["loaded"]}) == len(r["loaded"]) and "loaded_not_pinned" not in r
    assert [(e["component"], e["soname"]) for e in r["stack_libs"]] == [("blas-standin", "libopenblas.so.0")], r["stack_libs"]
env = json.load(open(d + "/env/environment.json"))["loaded"]["bench-gemm"]
assert any(l["path"] == pin for l in env["libraries"]) and env["not_pinned"] == [], env
PY
# the system's OpenBLAS preloaded: the runner does not load the stack's build (a prefix of no component, which the
# runner's own scan of BENCH_STACK_ROOT finds, is never looked at)
mkdir -p "$T/stack/other/lib"
cp "$SYSBLAS" "$T/stack/other/lib/libopenblas.so.0"
WHY="loaded-not-pinned: blas-standin: loaded $SYSBLAS, the pinned build is $PIN"
LD_PRELOAD=$SYSBLAS BENCH_STACK_ROOT=$T/stack expect 0 "the pinned prefix's library not loaded, without --locked: exit 0" "$BENCH" run -q --no-pack -o "$T/runs" "$T/host.yaml"
expect_err "bench: warning: gemm: $WHY"
[ "$(grep -c 'loaded-not-pinned' "$T/err")" = 1 ] && ok "warned once per runner, not per case" || { not_ok "warnings"; show "$T/err"; }
D=$(head -n 1 "$T/out")
python3 - "$D" "$WHY" <<'PY' && ok "the records keep their figures and say loaded_not_pinned" || { not_ok "unlocked records"; show "$D/results/gemm.jsonl"; }
import json, sys
d, why = sys.argv[1:]
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
assert all(r["status"] == "ok" and r["loaded_not_pinned"] == [why] for r in recs), recs
assert {e["component"] for e in recs[0]["stack_libs"]} == {"blas-standin"}, recs[0]["stack_libs"]
PY
LD_PRELOAD=$SYSBLAS expect 7 "the same under --locked: exit 7" "$BENCH" run -q --locked --no-pack -o "$T/runs" "$T/host.yaml"
expect_err "loaded-not-pinned"
D=$(head -n 1 "$T/out")
python3 - "$D" "$WHY" <<'PY' && ok "--locked: every case failed with the loaded-not-pinned reason" || { not_ok "locked status"; show "$D/status.json"; }
import json, sys
d, why = sys.argv[1:]
cases = json.load(open(d + "/status.json"))["cases"]
assert len(cases) == 2 and all(c["status"] == "failed" and c["error"] == why for c in cases), cases
PY

# a pip component: the distribution the runner imported (packages, runners/torch/loadedlibs.py through the fake
# runner) against the lock's version
I="$T/index"
python3 - "$I" "$T/site" "$(dirname "$0")" <<'PY'
import os, sys
root, site = sys.argv[1:3]
sys.path.insert(0, sys.argv[3])
from wheelindex import page, wheel  # real, installable wheels: bench lock resolves them with pip
wheel(os.path.join(root, "simple"), "demo-pinned", "1.1.0", ("py3", "none", "any"))
page(os.path.join(root, "simple"))
# what this host has installed instead: 1.0.0
os.makedirs(os.path.join(site, "demo_pinned"))
open(os.path.join(site, "demo_pinned", "__init__.py"), "w").close()
os.makedirs(os.path.join(site, "demo_pinned-1.0.0.dist-info"))
open(os.path.join(site, "demo_pinned-1.0.0.dist-info", "METADATA"), "w").write("Metadata-Version: 2.1\nName: demo-pinned\nVersion: 1.0.0\n")
open(os.path.join(site, "demo_pinned-1.0.0.dist-info", "top_level.txt"), "w").write("demo_pinned\n")
PY
serve_dir "$I" simple/demo-pinned/
cat >"$T/pip.yaml" <<Y
bench: 1
name: loaded-pip
channel: stable
target: {vendor: cpu, gpus_per_node: 1}
stack:
  components:
    - {name: demo_pinned, pip: "1.1.0", index: "http://127.0.0.1:$port/simple"}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 5ms}
Y
expect 0 "lock a pip component at 1.1.0" "$BENCH" lock "$T/pip.yaml"
fake_gemm
WHY="loaded-not-pinned: demo_pinned: loaded demo-pinned 1.0.0, the pinned version is 1.1.0"
PYTHONPATH=$T/site FAKE_IMPORT=demo_pinned BENCH_RUNNERS=$T/fake expect 7 "the runner imported demo-pinned 1.0.0: exit 7 under --locked" \
	"$BENCH" run -q --locked --no-pack -o "$T/runs" "$T/pip.yaml"
D=$(head -n 1 "$T/out")
grep -qF "\"error\": \"$WHY\"" "$D/status.json" && ok "its case failed: $WHY" || { not_ok "pip status"; show "$D/status.json"; }
PYTHONPATH=$T/site FAKE_IMPORT=demo_pinned BENCH_RUNNERS=$T/fake expect 0 "without --locked: a warning" \
	"$BENCH" run -q --no-pack -o "$T/runs" "$T/pip.yaml"
expect_err "bench: warning: gemm: $WHY"
sed -i 's/Version: 1.0.0/Version: 1.1.0/' "$T/site/demo_pinned-1.0.0.dist-info/METADATA"
PYTHONPATH=$T/site FAKE_IMPORT=demo_pinned BENCH_RUNNERS=$T/fake expect 0 "the pinned version imported: ok under --locked" \
	"$BENCH" run -q --locked --no-pack -o "$T/runs" "$T/pip.yaml"
FAKE_IMPORT=demo_pinned BENCH_RUNNERS=$T/fake expect 0 "nothing in front: the stack's environment (1.1.0) imported, ok under --locked" \
	"$BENCH" run -q --locked --no-pack -o "$T/runs" "$T/pip.yaml"
kill "$srv" 2>/dev/null

# ---- podman: a dev component built from git, loaded by the runner in the image ---------------------------------
BASE=$(sh tests/setup/podman.sh 2>"$T/setup.err") || { not_ok "podman setup failed"; show "$T/setup.err"; finish; exit 1; }
ok "podman set up, base image $BASE"
# its image builds' apt finds the host's downloaded .debs (tests/setup/podman.sh, build-conf)
CONTAINERS_CONF=$(sh tests/setup/podman.sh build-conf) && export CONTAINERS_CONF
podman images -a -q --no-trunc --filter dangling=true | sort >"$T/dangling.before" # removed at the end: only what came after
mkdir -p "$T/work"
cd "$T/work" || exit 1
# the pinned stack says nothing about the loader: the image puts the component's prefix on its loader path itself
# (docs/stacks.md, the build contract); the other one puts the system's copy first with LD_LIBRARY_PATH
mk() { # NAME [LD_LIBRARY_PATH]
	envblk=
	[ -n "${2:-}" ] && envblk=$(printf '  env:\n    LD_LIBRARY_PATH: "%s"' "$2")
	cat >"$1.yaml" <<Y
bench: 1
name: $1
channel: dev
target: {vendor: cpu, gpus_per_node: 1}
stack:
  base: "$BASE"
  components:
    - {name: openblas, apt: libopenblas-dev, version: "0.3.21+ds-4"}
    - {name: blas-standin, git: "file://$G", ref: main, build: '$BUILD'}
$envblk
runtime: {engine: podman}
suites:
  $GEMM
Y
}
mk loaded-pinned
mk loaded-other /usr/lib/x86_64-linux-gnu/openblas-pthread:/opt/stack/blas-standin/lib
PIN=/opt/stack/blas-standin/lib/libopenblas.so.0
for s in pinned other; do
	expect 0 "lock loaded-$s" "$BENCH" lock "loaded-$s.yaml"
done
expect 0 "run the pinned stack under --locked (built from the local git repository)" "$BENCH" run -q --locked -o runs loaded-pinned.yaml
A=$(head -n 1 "$T/out")
python3 - "$A" "$PIN" <<'PY' && ok "the runner loaded the stand-in from the prefix: path $PIN, version 0.0.0-bench-standin" || { not_ok "pinned records"; show "$A/results/gemm.jsonl"; show "$A/logs/gemm.log"; }
import json, sys
d, pin = sys.argv[1:]
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
assert len(recs) == 2 and all(r["status"] == "ok" for r in recs), [(r["status"], r["error"]) for r in recs]
for r in recs:
    blas = [l for l in r["loaded"] if l["soname"] == "libopenblas.so.0"]
    assert blas == [{"path": pin, "soname": "libopenblas.so.0", "version": "0.0.0-bench-standin"}], blas
    assert {"component": "blas-standin", "path": pin, "real": pin, "soname": "libopenblas.so.0"} in r["stack_libs"], r["stack_libs"]
assert recs[0]["extra"]["device"]["blas"].startswith("OpenBLAS 0.0.0-bench-standin"), recs[0]["extra"]["device"]
PY
expect 0 "show the pinned bundle" "$BENCH" show "$A.bench.tar.gz"
grep -Eq "^  bench-gemm +libopenblas.so.0 +0.0.0-bench-standin +$PIN$" "$T/out" && ok "show lists the loaded stand-in with its version and path" || { not_ok "show loaded"; show "$T/out"; }
WHY="loaded-not-pinned: blas-standin: loaded $SYSBLAS, the pinned build is $PIN"
expect 7 "the loader picks the system's copy: exit 7 under --locked" "$BENCH" run -q --locked -o runs loaded-other.yaml
expect_err "bench: error: --locked: a runner loaded a library or package that is not the pinned one (loaded-not-pinned)"
B=$(head -n 1 "$T/out")
python3 - "$B" "$WHY" <<'PY' && ok "its cases failed: $WHY" || { not_ok "other status"; show "$B/status.json"; }
import json, sys
d, why = sys.argv[1:]
cases = json.load(open(d + "/status.json"))["cases"]
assert len(cases) == 2 and all(c["status"] == "failed" and c["error"] == why for c in cases), cases
PY
expect 0 "show the failed bundle" "$BENCH" show "$B.bench.tar.gz"
expect_out "NOT PINNED bench-gemm: $WHY"
expect 0 "the same stack without --locked: exit 0" "$BENCH" run -q -o runs loaded-other.yaml
expect_err "bench: warning: gemm: $WHY"
C=$(head -n 1 "$T/out")
grep -q '"status":"ok"' "$C/results/gemm.jsonl" && grep -qF "$WHY" "$C/results/gemm.jsonl" && ok "measured, and the record says what was not pinned" || { not_ok "unlocked other"; show "$C/results/gemm.jsonl"; }
expect 0 "compare the two stacks" "$BENCH" compare "$A.bench.tar.gz" "$C.bench.tar.gz"
grep -F "loaded" "$T/out" | grep -F "libopenblas.so.0" | grep -F "0.0.0-bench-standin" | grep -qF "0.3.21" &&
	ok "compare's stack diff shows the loaded OpenBLAS of each side" || { not_ok "compare loaded"; show "$T/out"; }
cd "$SRC" || exit 1
for f in "$T"/work/loaded-*.yaml; do
	for i in $(podman images --format '{{.Repository}}:{{.Tag}}' | grep "bench-$(basename "$f" .yaml):"); do podman rmi -f "$i" >/dev/null 2>&1; done
done
podman images -a -q --no-trunc --filter dangling=true | sort | comm -13 "$T/dangling.before" - | xargs -r podman rmi >/dev/null 2>&1
finish
