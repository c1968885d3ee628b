#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Secrets never reach a bundle (issue 31): a runner that echoes its whole environment into every output it writes
# (records, log, files of its own in the run directory; tests/fake/fake-runner.py FAKE_LEAK=1), run with secrets
# spelled every way: a secret-named variable (plain, with JSON specials), credentials without a scheme
# (user:password@host:port, in brackets, in a path), URL userinfo, a secret key inside a JSON value, a query string
# and a YAML-ish "key: value" under the captured prefixes. No member of the bundle holds any of them.
. "$(dirname "$0")/lib.sh"
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
printf 'bench: 1\nname: leak\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/m.yaml"
export MY_API_TOKEN=tok-s3cr3t-A1
export MY_PASSWORD='q"uo\te-s3cr3t-G7'
export NCCL_IB_CONFIG='{"password": "pw-json-B2", "port": 1}'
export CUDA_DB='admin:pw-noscheme-C3@db.internal:5432'
export HIP_PROXY='http://user:pw-url-D4@proxy:3128/'
export ROCM_QUERY='host=x&token=pw-query-E5&y=1'
export NCCL_PEER='root:pw-bracket-F6@[fd00::1]:22'
export RCCL_CFG='secret: pw-yaml-H8'
export NCCL_SOCKET_IFNAME=eth0
BENCH_RUNNERS=$T/fake FAKE_LEAK=1 expect 0 "a run whose runner echoes its environment everywhere" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
B=$(sed -n 2p "$T/out")
D=${B%.bench.tar.gz}
[ -s "$D/leak/env.txt" ] && [ -s "$D/leak/env.json" ] && ok "the runner wrote its own files" || not_ok "no leak files"
tar -tzf "$B" | grep -q "leak/env.json" && ok "its files are in the bundle" || not_ok "leak files not packed"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$B"
for s in tok-s3cr3t-A1 's3cr3t-G7' pw-json-B2 pw-noscheme-C3 pw-url-D4 pw-query-E5 pw-bracket-F6 pw-yaml-H8; do
	hits=$(grep -rlF -- "$s" "$T/x" | sed "s|$T/x/||")
	[ -z "$hits" ] && ok "'$s' is in no member of the bundle" || { not_ok "'$s' leaked into: $hits"; }
done
# the bundle still verifies, the records still parse, and what is not secret is kept
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$B"
python3 - "$D" <<'PY' && ok "records still JSON; NCCL_SOCKET_IFNAME kept, the JSON value's port kept" || not_ok "records or kept values"
import glob, json, sys
d = sys.argv[1]
for p in glob.glob(d + "/results/*.jsonl"):
    for line in open(p):
        r = json.loads(line)
        env = r["extra"]["environ"]
        assert env["NCCL_SOCKET_IFNAME"] == "eth0", env["NCCL_SOCKET_IFNAME"]
        assert env["MY_API_TOKEN"] == "<redacted>", env["MY_API_TOKEN"]
        assert '"port": 1' in env["NCCL_IB_CONFIG"], env["NCCL_IB_CONFIG"]
e = json.load(open(d + "/env/environment.json"))["env"]
assert e["NCCL_SOCKET_IFNAME"] == "eth0" and "pw-json-B2" not in e["NCCL_IB_CONFIG"], e
assert e["CUDA_DB"] == "<redacted>@db.internal:5432", e["CUDA_DB"]
PY
finish
