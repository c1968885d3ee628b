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
# review B7: the credentials of a header, token shapes, a PEM key, command-line passwords; keys in records
export NCCL_HDR='Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.pwBearerJ1'
export CUDA_HDR='Proxy-Authorization: Basic dXNlcjpwd0Jhc2ljSzI='
export HIP_GH='see ghp_pwGithubL3abcdefghijklmnopqrstuvwx here'
export ROCM_HF='hf_pwHuggingM4abcdefghijklmnopqrstuv'
export NCCL_AWS='AKIAPWAWSN5EXAMPLE12 wJalrXUtnFEMI/K7MDENG/bPxRfiCYpwAwsO6ky1'
export CUDA_SLACK='xoxb-1234-pwSlackP7abc' CUDA_GITLAB='glpat-pwGitlabQ8abcdefghij' CUDA_OPENAI='sk-proj-pwOpenaiR9abcdefghijkl'
export HIP_PEM='-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEpwPemS1bodyline
pwPemS1secondline
-----END OPENSSH PRIVATE KEY-----'
export ROCM_MYSQL='mysql -u root -ppwMysqlT2 db' ROCM_CURL='curl -u bob:pwCurlU3 https://h/' ROCM_OPT='tool --password pwOptV4 --token pwOptW5'
export FAKE_EXTRA='{"": {"password": "pwRecX6", "auth_token": "pwRecY7", "nested": {"api_key": "pwRecZ8"}, "pass": "fwd", "key": "k1"}}'
# review 31r2 B12: a JWT, sshpass -p, a .netrc line, a Basic credential out of its header, a secret continued
# with a backslash onto the next line; and prose that only looks like them, kept
export NCCL_JWT='tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwd0p3dEExIn0.pwJwtSigA1xyz'
export CUDA_SSHPASS='sshpass -p pwSshpassB2 ssh host' HIP_NETRC='machine h.example login bob password pwNetrcC3'
export ROCM_BASIC='creds Basic Ym9iOnB3QmFyZUJhc2ljRDQ= here' NCCL_CONT='password=pwContE5\
pwContF6tail' CUDA_PROSE='Basic usage: set the password field'
export NCCL_B64='YWxpY2U6cHdMb25lQjY0Rzd4eXo=' NCCL_DIGEST='RyT4ebgYCQlhIL5CU6tJAdbX6c4T9snHsB8bXZBbLhw='
BENCH_RUNNERS=$T/fake FAKE_LEAK=1 expect 0 "a run whose runner echoes its environment everywhere" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
B=$(sed -n 2p "$T/out")
D=${B%.bench.tar.gz}
[ -s "$D/leak/env.txt" ] && [ -s "$D/leak/env.json" ] && ok "the runner wrote its own files" || not_ok "no leak files"
tar -tzf "$B" | grep -q "leak/env.json" && ok "its files are in the bundle" || not_ok "leak files not packed"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$B"
for s in tok-s3cr3t-A1 's3cr3t-G7' pw-json-B2 pw-noscheme-C3 pw-url-D4 pw-query-E5 pw-bracket-F6 pw-yaml-H8 \
	pwBearerJ1 dXNlcjpwd0Jhc2ljSzI pwGithubL3 pwHuggingM4 AKIAPWAWSN5EXAMPLE12 pwAwsO6 pwSlackP7 pwGitlabQ8 pwOpenaiR9 \
	pwPemS1 b3BlbnNzaC1rZXktdjE pwMysqlT2 pwCurlU3 pwOptV4 pwOptW5 pwRecX6 pwRecY7 pwRecZ8 \
	eyJzdWIiOiJwd0p3dEExIn0 pwJwtSigA1 pwSshpassB2 pwNetrcC3 Ym9iOnB3QmFyZUJhc2ljRDQ pwContE5 pwContF6 \
	YWxpY2U6cHdMb25lQjY0Rzd4eXo; do
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
# what is data is kept: a record's "pass" and "key", the user of curl -u, the header's name
python3 - "$D" <<'PY' && ok "records keep \"pass\" and \"key\"; redaction keeps the user and the header name" || not_ok "data lost to the scrubber"
import glob, json, sys
d = sys.argv[1]
for p in glob.glob(d + "/results/*.jsonl"):
    for line in open(p):
        r = json.loads(line)
        assert r["extra"]["pass"] == "fwd" and r["extra"]["key"] == "k1", r["extra"]
        assert r["extra"]["password"] == "<redacted>" and r["extra"]["nested"]["api_key"] == "<redacted>", r["extra"]
        env = r["extra"]["environ"]
        assert env["ROCM_CURL"] == "curl -u bob:<redacted> https://h/", env["ROCM_CURL"]
        assert env["NCCL_HDR"] == "Authorization: <redacted>", env["NCCL_HDR"]
        assert env["CUDA_PROSE"] == "Basic usage: set the password field", env["CUDA_PROSE"]
        assert env["HIP_NETRC"] == "machine h.example login bob password <redacted>", env["HIP_NETRC"]
        assert env["ROCM_BASIC"] == "creds Basic <redacted> here", env["ROCM_BASIC"]
        assert env["NCCL_DIGEST"] == "RyT4ebgYCQlhIL5CU6tJAdbX6c4T9snHsB8bXZBbLhw=", env["NCCL_DIGEST"]
PY
# a file name that holds a secret is refused by pack, named with the secret redacted (review 31r2 B13: such names
# were packed and signed unchanged); so is a name with a character verify refuses
for name in 'artifacts/password=pwNameA1abcdefgh.txt' 'artifacts/bob:pwNameB2@host' \
	'logs/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwd05hbWVDMyJ9.pwNameC3sig.log' 'artifacts/ghp_pwNameD4abcdefghijklmnopqrstu'; do
	rm -rf "$T/n" && cp -r "$D" "$T/n" && mkdir -p "$T/n/artifacts" && echo x >"$T/n/$name"
	expect 1 "pack of a run holding '${name%%/*}/...' with a secret in its name: refused" "$BENCH" pack "$T/n"
	expect_err "a file name that holds a secret (shown redacted)"
	grep -q "pwName" "$T/err" && not_ok "the secret is in the error" || ok "the error does not repeat the secret"
	[ ! -e "$T/n.bench.tar.gz" ] && ok "no bundle written" || not_ok "a bundle was written"
done
rm -rf "$T/n" && cp -r "$D" "$T/n" && echo x >"$T/n/$(printf 'a\302\233b\342\200\256c')"
expect 1 "pack of a run holding a name with C1 and U+202E: refused" "$BENCH" pack "$T/n"
expect_err "a\\xc2\\x9bb\\xe2\\x80\\xaec': a name with a control, bidirectional or invisible character"
# manifest.yaml is kept verbatim (its sha256 is the run's identity): validate warns of a secret in stack.env or a
# variant's env, naming the variable, never printing the value (review 31r2 B14)
cat >"$T/sec.yaml" <<'Y'
bench: 1
name: sec
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env:
    PGPASSWORD: pwValA1xyz
    DATABASE_URL: "postgres://bob:pwValB2xyz@db/x"
    HDR: "Authorization: Bearer pwValC3xyz"
    OMP_NUM_THREADS: "4"
variants:
  - {name: v1, env: {MY_TOKEN: pwValD4xyz}}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
expect 0 "validate of a manifest with secrets in stack.env: valid" "$BENCH" validate "$T/sec.yaml"
for v in stack.env.PGPASSWORD stack.env.DATABASE_URL stack.env.HDR variants.v1.env.MY_TOKEN; do
	expect_err "warning: $v looks like a secret"
done
grep -q "OMP_NUM_THREADS" "$T/err" && not_ok "a benign variable warned of" || ok "OMP_NUM_THREADS not warned of"
grep -q "pwVal" "$T/err" && not_ok "a secret value printed" || ok "no secret value printed"
finish
