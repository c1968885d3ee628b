#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Plug-in implementations (docs/plugins.md): manifest errors at validate, lock pins and lock --check, then plug-ins of
# every suite through bench run on the CPU (engine host): correct ones measured like the built-ins beside them, each
# bad one (does not import, wrong signature, wrong shape or dtype, raises, hangs, wrong values, crashes) failing its
# own case with its reason while the rest of the run is measured; the bundle carries the plug-ins' files and digests;
# bench show and bench compare name them. Native GEMM plug-ins are built here with cc (bench-gemm's host path).
. "$(dirname "$0")/lib.sh"
# a plug-in that crashes must end its runner by the signal, as it does without a sanitizer (make asan: ASan's own
# handler would report the SIGSEGV and exit 1)
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0"
torch_python
CC=$(command -v cc || command -v gcc || true)
M="$T/m"
mkdir -p "$M/plugins"

# ---- native GEMM plug-ins: one source, built with a flag per behaviour ----------------------------------------------
cat >"$M/plugins/cgemm.c" <<'C'
#include <stdint.h>
#include <string.h>
#include "plugin.h"

static float bf(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
static float at(const void *p, int dt, long long i)
{
	return dt == BENCH_GEMM_BF16 ? bf(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

int bench_gemm_plugin(const struct bench_gemm_args *x)
{
	float *c = x->c;

	if (x->abi < 1 || x->device != BENCH_GEMM_HOST || x->c_dtype != BENCH_GEMM_FP32)
		return 2;
	for (long long i = 0; i < x->m; i++)
		for (long long j = 0; j < x->n; j++) {
			float s = 0;
			for (long long t = 0; t < x->k; t++)
				s += at(x->a, x->dtype, i * x->lda + t) *
				     at(x->b, x->dtype, x->layout == BENCH_GEMM_TN ? j * x->ldb + t : t * x->ldb + j);
#ifdef WRONG
			s *= 1.01f;
#endif
			c[i * x->ldc + j] = s;
		}
#ifdef CRASH
	*(volatile int *)0 = 1;
#endif
#ifdef HANG
	for (;;)
		;
#endif
#ifdef FAIL
	return 3;
#endif
	return 0;
}

const char *bench_gemm_plugin_error(void) { return "failing on purpose"; }
C
NATIVE=0
if [ -n "$CC" ]; then
	NATIVE=1
	for v in OK WRONG CRASH HANG FAIL; do
		"$CC" -O1 -shared -fPIC -D$v -I"${BENCH_DATA:-.}/runners/gemm" -o "$M/plugins/lib$v.so" "$M/plugins/cgemm.c" \
			2>"$T/cc.err" || NATIVE=0
	done
fi
[ "$NATIVE" = 1 ] && ok "native test plug-ins built with $CC against runners/gemm/plugin.h" ||
	not_ok "cannot build the native test plug-ins (cc)"
echo 'not a shared object' >"$M/plugins/libjunk.so"

# ---- Python plug-ins ----------------------------------------------------------------------------------------------
cat >"$M/plugins/pyplug.py" <<'P'
import math
import time

import torch


def attention(q, k, v, causal, window):
    """Softmax attention written out: correct, differentiable."""
    s = q.shape[-2]
    sc = (q @ k.transpose(-1, -2)).float() / math.sqrt(q.shape[-1])
    if causal:
        i = torch.arange(s, device=q.device)
        ok = i[None, :] <= i[:, None]
        if window:
            ok = ok & (i[:, None] - i[None, :] < window)
        sc = sc.masked_fill(~ok, float("-inf"))
    return torch.softmax(sc, -1).to(q.dtype) @ v


def attention_wrong(q, k, v, causal, window):
    return attention(q, k, v, causal, window) * 1.5


def attention_badsig(q, k):
    return q


def attention_badshape(q, k, v, causal, window):
    return q[:, :, :1]


def attention_raises(q, k, v, causal, window):
    raise RuntimeError("kernel launch failed")


def attention_hangs(q, k, v, causal, window):
    while True:
        time.sleep(0.05)


def ssd(x, dt, A, B, C, chunk):
    """The naive sequential scan: correct, differentiable."""
    b, l, h, p = x.shape
    r = h // B.shape[-2]
    Bh, Ch = B.repeat_interleave(r, dim=2), C.repeat_interleave(r, dim=2)
    s = x.new_zeros(b, h, p, B.shape[-1]).float()
    ys = []
    for t in range(l):
        da = torch.exp(dt[:, t] * A)
        s = da[..., None, None] * s + (dt[:, t, :, None] * x[:, t].float())[..., None] * Bh[:, t, :, None, :].float()
        ys.append(torch.einsum("bhpn,bhn->bhp", s, Ch[:, t].float()))
    return torch.stack(ys, dim=1).to(x.dtype)


def ssd_wrong(x, dt, A, B, C, chunk):
    return ssd(x, dt, A, B, C, chunk) + 0.5


def matmul(a, b, layout):
    return a @ b.t() if layout == "tn" else a @ b


def matmul_wrong(a, b, layout):
    return matmul(a, b, layout) * 1.1


def matmul_baddtype(a, b, layout):
    return matmul(a, b, layout).double()


def build(spec):
    m = torch.nn.Sequential(torch.nn.Embedding(128, 32), torch.nn.Linear(32, 64), torch.nn.GELU(),
                            torch.nn.Linear(64, 128))
    n = sum(p.numel() for p in m.parameters()) - 128 * 32
    return {"model": m, "vocab": 128, "flop_per_token": 6.0 * n}


def build_badret(spec):
    return torch.nn.Linear(2, 2)
P
printf 'def attention(q, k, v, causal, window:\n    pass\n' >"$M/plugins/syntax.py"
# a python: plug-in, imported from the runner's path (the manifest puts its directory on PYTHONPATH)
mkdir -p "$T/pylib/mykern"
: >"$T/pylib/mykern/__init__.py"
printf 'def mm(a, b, layout):\n    return a @ b.t() if layout == "tn" else a @ b\n' >"$T/pylib/mykern/gemm.py"

# ---- validate: each manifest-level error with its position (exit 3) ------------------------------------------------
cat >"$M/bad.yaml" <<'Y'
bench: 1
name: badplug
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host}
suites:
  attention:
    impl:
      - {plugin: sdpa, file: plugins/pyplug.py, function: attention}
      - {plugin: gone, file: plugins/nope.py, function: attention}
      - {plugin: "Bad/Name", python: "m:f"}
      - {plugin: both, python: "m:f", file: plugins/pyplug.py, function: attention}
      - {plugin: nat, native: plugins/libOK.so}
      - {plugin: up, file: ../pyplug.py, function: attention}
      - {plugin: nocolon, python: "module_only"}
      - {plugin: nofn, file: plugins/pyplug.py}
      - {plugin: typo, python: "m:f", functon: x}
      - {plugin: twice, python: "m:f"}
      - {plugin: twice, python: "m:g"}
Y
expect 3 "validate refuses bad plug-in entries" "$BENCH" validate "$M/bad.yaml"
for msg in "bad.yaml:8:18: error: plug-in name 'sdpa' is a built-in name of 'impl'" \
	"bad.yaml:9:30: error: plug-in file 'plugins/nope.py' does not exist" \
	"bad.yaml:10:18: error: plug-in name 'Bad/Name' must be" \
	"bad.yaml:11:9: error: plug-in entry 'both' needs exactly one of 'python', 'file'; it has more than one" \
	"bad.yaml:12:31: error: 'native' plug-ins are gemm backends only" \
	"bad.yaml:13:28: error: 'file' must be a path relative to the manifest's directory, without '..'" \
	"bad.yaml:14:35: error: 'python' must be \"package.module:function\", got 'module_only'" \
	"bad.yaml:15:30: error: 'file' needs 'function'" \
	"bad.yaml:16:39: error: unknown key 'functon' in plug-in entry of 'impl' (did you mean 'function'?)" \
	"bad.yaml:18:9: error: 'impl' lists 'twice' twice"; do
	expect_err "$msg"
done

# ---- the run's manifest --------------------------------------------------------------------------------------------
cat >"$M/plug.yaml" <<'Y'
bench: 1
name: plugins
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host, timeout: 10m}
stack: {env: {PYTHONPATH: "@PYLIB@"}}
suites:
  gemm:
    backends:
      - cblas
      - {plugin: pymod, python: "mykern.gemm:mm"}
      - {plugin: cok, native: plugins/libOK.so}
      - {plugin: cwrong, native: plugins/libWRONG.so}
      - {plugin: ccrash, native: plugins/libCRASH.so}
      - {plugin: chang, native: plugins/libHANG.so, timeout: 2s}
      - {plugin: cfail, native: plugins/libFAIL.so}
      - {plugin: cjunk, native: plugins/libjunk.so}
      - {plugin: pygemm, file: plugins/pyplug.py, function: matmul}
      - {plugin: pywrong, file: plugins/pyplug.py, function: matmul_wrong}
      - {plugin: pydtype, file: plugins/pyplug.py, function: matmul_baddtype}
    dtypes: [fp32]
    shapes: [[48, 40, 32]]
    warmup: 1ms
    rep: 5ms
  attention:
    impl:
      - {plugin: attn, file: plugins/pyplug.py, function: attention}
      - {plugin: awrong, file: plugins/pyplug.py, function: attention_wrong, passes: [fwd]}
      - {plugin: asig, file: plugins/pyplug.py, function: attention_badsig, passes: [fwd]}
      - {plugin: ashape, file: plugins/pyplug.py, function: attention_badshape, passes: [fwd]}
      - {plugin: araise, file: plugins/pyplug.py, function: attention_raises, passes: [fwd]}
      - {plugin: ahang, file: plugins/pyplug.py, function: attention_hangs, passes: [fwd], timeout: 2s}
      - {plugin: asyntax, file: plugins/syntax.py, function: attention, passes: [fwd]}
      - {plugin: amissing, python: "no_such_module.kernels:attention", passes: [fwd]}
    seq_lens: [64]
    head_dim: 16
    width: 32
    tokens: 128
    passes: [fwd, fwd_bwd]
    dtype: bf16
    warmup: 1ms
    rep: 5ms
  ssm:
    impl: [{plugin: scan, file: plugins/pyplug.py, function: ssd}, {plugin: swrong, file: plugins/pyplug.py, function: ssd_wrong, passes: [fwd]}]
    seq_lens: [64]
    heads: 2
    head_dim: 8
    state: 8
    chunk: 32
    tokens: 64
    passes: [fwd, bwd]
    warmup: 1ms
    rep: 5ms
  training:
    models: [{plugin: mlp, file: plugins/pyplug.py, function: build}, {plugin: badret, file: plugins/pyplug.py, function: build_badret}]
    precision: [fp32]
    seq_len: 32
    micro_batch: 2
    steps: 5
    warmup_steps: 2
    compile: false
Y
sed -i "s|@PYLIB@|$T/pylib|" "$M/plug.yaml"
expect 0 "validate: a manifest with plug-ins of every suite" "$BENCH" validate "$M/plug.yaml"
expect 0 "plan: the plug-in's NAME in the case key; passes: [fwd] plans no backward case" "$BENCH" plan "$M/plug.yaml"
expect_out "cok/fp32/tn/48x40x32/default"
expect_out "attn/bf16/causal/2x64x2x16/fwd_bwd"
expect_out "mlp/full/fp32/s32/mb2/fsdp/eager"
if grep -q "awrong/bf16/causal/2x64x2x16/fwd_bwd" "$T/out"; then not_ok "a fwd-only plug-in has a fwd_bwd case"; else
	ok "a fwd-only plug-in has no fwd_bwd case"; fi

# ---- lock: file and native plug-ins pinned by sha256; a changed file is a moved pin (exit 4) -------------------------
expect 0 "lock pins the plug-ins' files" "$BENCH" lock -q "$M/plug.yaml"
SHA_OK=$(sha256sum "$M/plugins/libOK.so" | cut -c1-64)
if "$PY" - "$M/plug.lock.json" "$SHA_OK" <<'PY' 2>"$T/py.err"
import json, sys
lk = json.load(open(sys.argv[1]))
p = lk["plugins"]
assert p["cok"] == {"suite": "gemm", "kind": "native", "path": "plugins/libOK.so", "sha256": sys.argv[2]}, p["cok"]
assert p["attn"]["kind"] == "file" and p["attn"]["suite"] == "attention", p["attn"]
assert "amissing" not in p  # python: plug-ins are pinned by the records (module file and distribution)
PY
then ok "the lock holds each file/native plug-in's sha256"; else not_ok "lock plugins"; show "$T/py.err"; fi
expect 0 "lock --check: nothing moved" "$BENCH" lock --check "$M/plug.yaml"
cp "$M/plugins/libOK.so" "$T/libOK.so.keep"
cp "$M/plugins/libWRONG.so" "$M/plugins/libOK.so"
expect 4 "lock --check reports a changed plug-in file" "$BENCH" lock --check "$M/plug.yaml"
expect_err "bench: moved: plugin 'cok': plugins/libOK.so changed (sha256 $SHA_OK -> "
expect 4 "run --locked refuses a plug-in file changed since the lock" "$BENCH" run -q --locked -o "$T/runs" "$M/plug.yaml"
expect_err "plug-in file changed since"
cp "$T/libOK.so.keep" "$M/plugins/libOK.so"

if [ -z "$PY" ]; then
	echo "# SKIP the runs: no python3 with torch here (install python3-torch)"
	ok "# SKIP no python3 with torch"
	finish
	exit $?
fi

# ---- the run: bad plug-ins fail their own cases, the rest is measured; a wrong result makes it exit 7 ---------------
BENCH_PYTHON=$PY expect 7 "bench run --locked: plug-ins of every suite (a wrong one: exit 7)" \
	"$BENCH" run -q --locked -o "$T/runs" "$M/plug.yaml"
D=$(head -n 1 "$T/out")
if "$PY" - "$D" "$SHA_OK" <<'PY' 2>"$T/py.err"
import hashlib, json, sys
d, sha_ok = sys.argv[1], sys.argv[2]
recs = {}
for s in ("gemm", "attention", "ssm", "training"):
    for line in open(f"{d}/results/{s}.jsonl"):
        r = json.loads(line)
        recs[r["case"]] = r
def rec(prefix):
    got = [r for k, r in recs.items() if k.startswith(prefix + "/")]
    assert got, prefix
    return got
def ok(prefix):
    for r in rec(prefix):
        assert r["status"] == "ok" and r["extra"]["check"] == "ok", (prefix, r["status"], r["error"])
        assert r["value"] > 0 and r["stats"]["n"] >= 10 or r["suite"] == "training", (prefix, r["stats"])
def failed(prefix, text, check=None):
    for r in rec(prefix):
        assert r["status"] == "failed" and text in (r["error"] or ""), (prefix, r["status"], r["error"])
        if check:
            assert r["extra"].get("check") == check, (prefix, r["extra"].get("check"))
# gemm: the built-in and the correct plug-ins measured and checked the same way
ok("cblas"); ok("cok"); ok("pygemm")
c = rec("cok")[0]
assert c["extra"]["plugin"]["sha256"] == sha_ok and c["extra"]["plugin"]["kind"] == "native"
assert c["extra"]["check_samples"] == rec("cblas")[0]["extra"]["check_samples"] and "schedule" in c["extra"]
assert "timing" in c["extra"] and c["extra"]["function"].startswith("plug-in 'cok'")
failed("cwrong", "wrong result: max normalised error", "wrong")
failed("ccrash", "plug-in 'ccrash' crashed: signal 11")
failed("chang", "plug-in 'chang' did not finish within 2s")
failed("cfail", "plug-in 'cfail' returned 3: failing on purpose")
failed("cjunk", "plug-in 'cjunk' does not load:")
failed("pywrong", "wrong result: error", "wrong")
failed("pydtype", "plug-in 'pydtype' returned dtype torch.float64, expected torch.float32")
ok("pymod")
p = rec("pymod")[0]["extra"]["plugin"]
assert p["kind"] == "python" and p["module"] == "mykern.gemm" and p["file"].endswith("mykern/gemm.py"), p
assert p["sha256"] == hashlib.sha256(open(p["file"], "rb").read()).hexdigest(), p
p = rec("pygemm")[0]["extra"]["plugin"]
want = hashlib.sha256(open(f"{d}/inputs/plugins/pyplug.py", "rb").read()).hexdigest()
assert p["path"] == "plugins/pyplug.py" and p["sha256"] == want, (p, want)
# attention
ok("attn")
a = [r for r in rec("attn") if r["params"]["pass"] == "fwd_bwd"][0]
assert a["extra"]["flop"] == 3.5 * a["extra"]["fwd_flop"] and a["extra"]["convention"].startswith("FlashAttention-2")
failed("awrong", "differs from the math backend by", "wrong")
failed("asig", "plug-in 'asig' has the wrong signature")
failed("ashape", "plug-in 'ashape' returned shape (2, 2, 1, 16), expected (2, 2, 64, 16)")
failed("araise", "plug-in 'araise' raised RuntimeError: kernel launch failed")
failed("ahang", "plug-in 'ahang' did not finish within 2s")
failed("asyntax", "plug-in 'asyntax' does not import: SyntaxError")
failed("amissing", "plug-in 'amissing' does not import: ModuleNotFoundError")
# ssm
ok("scan")
failed("swrong", "differs from the naive sequential scan", "wrong")
# training
ok("mlp")
t = rec("mlp")[0]["extra"]
assert t["loss_last"] < t["loss_first"] and t["flop_per_token"] > 0 and t["reference_check"]["check"] == "not applicable"
failed("badret", "plug-in 'badret' returned Linear, expected a dict")
# the lock the run used carries the digests
assert json.load(open(f"{d}/manifest.lock.json"))["plugins"]["cok"]["sha256"] == sha_ok
PY
then ok "records: correct plug-ins ok and checked like the built-ins; each bad one failed with its own reason"; else
	not_ok "plug-in records"; show "$T/py.err"; fi
B=$(sed -n 2p "$T/out")
expect 0 "the bundle verifies" "$BENCH" verify "$B"
tar -tzf "$B" >"$T/members" 2>/dev/null
if grep -q "/inputs/plugins/libOK.so$" "$T/members" && grep -q "/inputs/plugins/pyplug.py$" "$T/members"; then
	ok "the bundle carries the plug-ins' files (inputs/)"; else not_ok "bundle lacks inputs/plugins"; show "$T/members"; fi
expect 0 "bench show names each plug-in with its sha256" "$BENCH" show "$B"
expect_out "plugin    cok: native plugins/libOK.so, sha256 $SHA_OK"
expect_out "plugin    amissing: python no_such_module.kernels:attention, sha256 unknown (it did not load)"

# ---- compare: a built-in run against a plug-in run; two plug-in runs whose source differs ---------------------------
cat >"$M/base.yaml" <<'Y'
bench: 1
name: base
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], shapes: [[48, 40, 32]], warmup: 1ms, rep: 5ms}
Y
cat >"$M/one.yaml" <<'Y'
bench: 1
name: base
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas, {plugin: cok, native: plugins/libOK.so}], dtypes: [fp32], shapes: [[48, 40, 32]], warmup: 1ms, rep: 5ms}
Y
expect 0 "a built-in run" "$BENCH" run -q -o "$T/runs" "$M/base.yaml"
B0=$(sed -n 2p "$T/out")
expect 0 "a run with a native plug-in" "$BENCH" run -q -o "$T/runs" "$M/one.yaml"
B1=$(sed -n 2p "$T/out")
expect 0 "compare: built-in run vs plug-in run" "$BENCH" compare "$B0" "$B1"
expect_out "gemm cok/fp32/tn/48x40x32/default"
"$CC" -O2 -shared -fPIC -DOK -I"${BENCH_DATA:-.}/runners/gemm" -o "$M/plugins/libOK.so" "$M/plugins/cgemm.c"
expect 0 "a run of the same plug-in, rebuilt (other bytes)" "$BENCH" run -q -o "$T/runs" "$M/one.yaml"
B2=$(sed -n 2p "$T/out")
expect 0 "compare: two plug-in runs" "$BENCH" compare -f json "$B1" "$B2"
if "$PY" - "$T/out" <<'PY' 2>"$T/py.err"
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["method_differs"] if x.get("what") == "plugin"]
assert len(m) == 1 and "cok/fp32/tn/48x40x32" in m[0]["case"], d["method_differs"]
assert m[0]["baseline_effective"] != m[0]["effective"] and m[0]["effective"].startswith("cok sha256 ")
PY
then ok "compare: a plug-in whose digest differs is a method difference"; else not_ok "compare plugin digest"; show "$T/py.err"; fi
finish
