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
# review r31z: a runner's own binary and text files, header mappings, token shapes, \u escapes, secret-named settings
mkdir -p "$T/f2"
cat >"$T/f2/bench-gemm" <<'PY'
#!/usr/bin/env python3
import json, os, random, sys
cfg = sys.argv[sys.argv.index("--config") + 1]
rd = os.path.dirname(os.path.dirname(os.path.abspath(cfg)))
a = rd + "/artifacts/gemm"
os.makedirs(a, exist_ok=True)
random.seed(7)
blob = bytearray(random.getrandbits(8) for _ in range(4096))
blob[100:100 + len(b"pwBinSecretK9x")] = b"pwBinSecretK9x"  # the value of a secret variable, inside binary data
blob[2000:2040] = b"AIzaSyBinaryGoogleKey0123456789abcdefghi"[:40]
open(a + "/blob.bin", "wb").write(bytes(blob))
open(a + "/zeros.bin", "wb").write(b"\0" * 65536)
open(a + "/nul.txt", "wb").write(b"abc\0def pwBinSecretK9x password=x\n")
if os.environ.get("BIG"):
    open(a + "/big.bin", "wb").write(bytes(random.getrandbits(8) for _ in range(1 << 16)) * 320)  # 20 MiB
sys.stderr.buffer.write(b"runner log: before-NUL\0after-NUL kept token=pwLogNulN2\n")
hdr = {"Authorization": "Bearer opaqueBearerP1", "proxy-authorization": "Basic opaqueProxyP2", "X-Api-Key": "opaqueApiP3",
       "Accept": "application/json"}
json.dump({"headers": hdr}, open(a + "/http.json", "w"))
shapes = ("AIzaSyA1234567890abcdefghijklmnopqrstuv ya29.a0AfH6SMBxyzxyzxyzxyzxyzxyz sk_live_51Habcdefghijklmnopqrstu "
          "rk_live_51Habcdefghijklmnopqrstu https://a.blob.core.windows.net/c?sv=2020&sig=AbCdEfSasSigQ4&se=1 "
          "SG.abcdefghijklmnopqrstuv.SendGridSecretR5abcdefghijklmnop dop_v1_" + "ab01" * 16 + " "
          "glsa_grafanaS6abcdefghijklmnopqrstu_abcdef01 https://hooks.slack.com/services/T000/B000/SlackHookT7xxxxxxx")
open(a + "/shapes.txt", "w").write(shapes + "\n")
sys.stderr.write(shapes + "\n")
open(a + "/dump.txt", "w").write("json " + json.dumps(os.environ["UNI_TOKEN"]) + "\n")
d = json.load(open(cfg))
for c in (d["cases"] if isinstance(d, dict) else d):
    print(json.dumps({"schema": "bench.result/v1", "suite": "gemm", "case": c["case"], "params": c["params"], "status": "ok",
        "metric": "tflops", "unit": "TFLOP/s", "value": 1.0, "stats": {"n": 3, "median": 1.0, "mean": 1.0, "min": 1.0,
        "max": 1.0, "p10": 1.0, "p90": 1.0, "cv": 0.0}, "samples_ms": [1.0] * 3,
        "extra": {"headers": hdr, "note": "limit 10000 user"}, "error": None}), flush=True)
PY
chmod +x "$T/f2/bench-gemm"
printf 'bench: 1\nname: bin\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[10000, 64, 64], [64, 64, 64]]}\n' >"$T/bin.yaml"
BENCH_RUNNERS=$T/f2 MY_BIN_SECRET=pwBinSecretK9x UNI_TOKEN="$(printf 't\303\270ken-pwUnicodeU8')" TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT=10000 \
	XDG_SESSION_CLASS=user MY_API_FLAG=true MY_CERT_FILE=/etc/ssl/certs/ca.pem \
	expect 0 "a run whose runner writes binary files, header maps, token shapes" "$BENCH" run -q -o "$T/rb" "$T/bin.yaml"
B2=$(sed -n 2p "$T/out")
D2=${B2%.bench.tar.gz}
mkdir -p "$T/x2" && tar -C "$T/x2" -xzf "$B2"
for where in "$D2" "$T/x2/$(basename "$D2")"; do
	[ "$(wc -c <"$where/artifacts/gemm/blob.bin")" = 4096 ] && ok "blob.bin keeps its 4096 bytes ($where)" || not_ok "blob.bin size"
	[ "$(wc -c <"$where/artifacts/gemm/zeros.bin")" = 65536 ] && ok "zeros.bin keeps its 65536 bytes" || not_ok "zeros.bin size"
	python3 - "$where" <<'PY' && ok "binary scrubbed byte-exactly: only the secret's bytes became '*'" || not_ok "binary damaged"
import random, sys
random.seed(7)
want = bytearray(random.getrandbits(8) for _ in range(4096))
want[100:114] = b"*" * 14
want[2000:2040] = b"*" * 40
got = open(sys.argv[1] + "/artifacts/gemm/blob.bin", "rb").read()
assert got == bytes(want), [i for i in range(4096) if got[i] != want[i]][:10]
assert open(sys.argv[1] + "/artifacts/gemm/zeros.bin", "rb").read() == b"\0" * 65536
PY
done
python3 - "$T/x2/$(basename "$D2")" <<'PY' && ok "a text with a NUL scrubbed byte-exactly; a log's NUL kept, the text after it scrubbed" || not_ok "NUL text"
import sys
d = sys.argv[1]
t = open(d + "/artifacts/gemm/nul.txt", "rb").read()
assert t == b"abc\0def ************** password=x\n", t  # binary (a NUL): byte-exact
log = open(d + "/logs/gemm.log", "rb").read()
assert b"before-NUL\0after-NUL kept token=<redacted>" in log, log[:400]
PY
for s in pwBinSecretK9x opaqueBearerP1 opaqueProxyP2 opaqueApiP3 AIzaSyA1234567890 ya29.a0AfH6 sk_live_51H rk_live_51H \
	SasSigQ4 SendGridSecretR5 dop_v1_ab01 grafanaS6 SlackHookT7 pwUnicodeU8 pwLogNulN2 AIzaSyBinary; do
	hits=$(grep -rlaF -- "$s" "$T/x2" | sed "s|$T/x2/||")
	[ -z "$hits" ] && ok "'$s' is in no member of the bundle" || not_ok "'$s' leaked into: $hits"
done
python3 - "$T/x2/$(basename "$D2")" <<'PY' && ok "header maps: the scheme kept, the rest of the headers kept" || not_ok "header maps"
import glob, json, sys
d = sys.argv[1]
h = json.load(open(d + "/artifacts/gemm/http.json"))["headers"]
assert h == {"Authorization": "Bearer <redacted>", "proxy-authorization": "Basic <redacted>", "X-Api-Key": "<redacted>",
             "Accept": "application/json"}, h
for p in glob.glob(d + "/results/*.jsonl"):
    for line in open(p):
        r = json.loads(line)
        assert r["extra"]["headers"]["Authorization"] == "Bearer <redacted>", r
PY
grep -q "hooks.slack.com/services/<redacted>" "$T/x2/$(basename "$D2")/artifacts/gemm/shapes.txt" &&
	ok "a Slack webhook keeps its host" || not_ok "slack host"
# a secret-named setting is no credential: case keys, records and env captures keep 10000, user, true, a path
python3 - "$T/x2/$(basename "$D2")" <<'PY' && ok "results not rewritten by secret-named settings" || not_ok "results rewritten"
import glob, json, sys
d = sys.argv[1]
cases = [json.loads(l)["case"] for p in glob.glob(d + "/results/*.jsonl") for l in open(p)]
assert any("10000x64x64" in c for c in cases), cases
assert all("redacted" not in c for c in cases), cases
for p in glob.glob(d + "/results/*.jsonl"):
    for l in open(p):
        assert json.loads(l)["extra"]["note"] == "limit 10000 user", l
for f in ("plan.json", "status.json"):
    assert "<redacted>x64" not in open(d + "/" + f).read(), f
PY
expect 0 "compare of that bundle with its run directory: the cases match" "$BENCH" compare "$D2" --vs "$B2"
grep -q "missing" "$T/out" && { not_ok "compare reports a case missing"; show "$T/out"; } || ok "no case missing"
# a 20 MiB binary artifact is neither shortened nor packed: pack names it and its size
BENCH_RUNNERS=$T/f2 BIG=1 MY_BIN_SECRET=pwBinSecretK9x UNI_TOKEN=x-pwUnicodeU8 "$BENCH" run -q -o "$T/rbig" "$T/bin.yaml" >"$T/out" 2>"$T/err"
rc=$?
big=$(ls -d "$T"/rbig/*/ | head -n 1)artifacts/gemm/big.bin
[ "$(wc -c <"$big")" = 20971520 ] && ok "a 20 MiB binary keeps its 20971520 bytes" || not_ok "big.bin size $(wc -c <"$big")"
[ $rc != 0 ] && grep -q "big.bin" "$T/err" && ok "the run says big.bin cannot be packed (exit $rc)" || { not_ok "big.bin packed silently (exit $rc)"; show "$T/err"; }
ls "$T"/rbig/*.bench.tar.gz >/dev/null 2>&1 && not_ok "a bundle was written" || ok "no bundle written"
# credentials in a component's pip index or git URL are warned of, as stack.env's are, the URL never printed
# (review r31z row 75)
cat >"$T/cu.yaml" <<'Y'
bench: 1
name: cu
target: {vendor: cpu}
stack:
  components:
    - {name: whl, pip: "1.0", index: "https://alice:pwIndexV1x@pypi.corp.example/simple"}
    - {name: tok, pip: "1.0", index: "https://pypi.corp.example/simple?token=pwIndexTokV2"}
    - {name: g, git: "https://oauth2:glpat-pwGitW3abcdefghij0123@gitlab.example/x.git", ref: main}
    - {name: gh, git: "https://ghp_pwGhX4abcdefghijklmnopqrstuvwx@github.com/o/r.git", ref: main}
    - {name: clean, pip: "1.0", index: "https://pypi.org/simple"}
    - {name: cleangit, git: "https://github.com/o/r.git", ref: main}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]]}
Y
expect 0 "validate of a manifest with credentials in component URLs: valid" "$BENCH" validate "$T/cu.yaml"
for w in whl.index tok.index g.git gh.git; do
	expect_err "warning: stack.components.$w holds credentials"
done
grep -q "components.clean" "$T/err" && not_ok "a clean URL warned of" || ok "clean index and git URL not warned of"
grep -q "pwIndex\|pwGit\|pwGh" "$T/err" && not_ok "a credential printed" || ok "no credential printed"
# review r31s B5, B6: a token shape as a JSON key (records, status.json, env/); a secret key whose value is a list
# or an object, in records and in env/
BENCH_RUNNERS=$T/fake expect 0 "a run to pack by hand" "$BENCH" run -q --no-pack -o "$T/kr" "$T/m.yaml"
K=$(ls -d "$T"/kr/leak-*[0-9a-f] | head -n 1)
python3 - "$K" <<'PY'
import json, sys
d = sys.argv[1]
p = d + "/results/gemm.jsonl"
recs = [json.loads(l) for l in open(p)]
recs[0].setdefault("extra", {}).update({"hf_pwKeyHfA1abcdefghijklmnopqrstuvwx": "as a key",
    "api_key": ["pwListB2"], "password": {"v": "pwMapC3"}, "token": {"nested": ["pwDeepD4"]},
    "nested": {"ghp_pwKeyGhE5abcdefghijklmnopqrstuvwxyz": 1}})
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
st = json.load(open(d + "/status.json"))
st["ghp_pwKeyGhF6abcdefghijklmnopqrstuvwxyz"] = "x"
json.dump(st, open(d + "/status.json", "w"))
env = json.load(open(d + "/env/environment.json"))
env["x"] = {"PGPASSWORD": {"a": "pwEnvMapG7"}, "deep": {"DB_PASSWORD": ["pwEnvListH8"]}, "Auth": {"x": "pwEnvAuthI9"},
            "xoxb-1234-pwKeySlackJ1abc": "k"}
json.dump(env, open(d + "/env/environment.json", "w"))
PY
expect 0 "pack it" "$BENCH" pack "$K"
mkdir -p "$T/kx" && tar -C "$T/kx" -xzf "$K.bench.tar.gz"
for w in pwKeyHfA1 pwListB2 pwMapC3 pwDeepD4 pwKeyGhE5 pwKeyGhF6 pwEnvMapG7 pwEnvListH8 pwEnvAuthI9 pwKeySlackJ1; do
	grep -rqaF "$w" "$T/kx" && not_ok "'$w' in the bundle" || ok "'$w' scrubbed (a key, or a list or map under a secret key)"
done
grep -qF '"as a key"' "$T/kx"/*/results/gemm.jsonl && ok "the value under a scrubbed key kept" || not_ok "the value under a scrubbed key lost"
python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readline()); sys.exit(r["extra"]["api_key"] != "<redacted>")' \
	"$(ls "$T"/kx/*/results/gemm.jsonl)" && ok "a list under api_key redacted whole" || not_ok "api_key list not redacted whole"
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$K.bench.tar.gz"
finish
