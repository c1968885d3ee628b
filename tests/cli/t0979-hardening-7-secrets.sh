#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Secrets the review r31t found packed into signed bundles (rows 42-53): curl's user option joined to its value or
# after '=' (and -U/--proxy-user), an OpenPGP private key block, the base64 word of user:password unpadded,
# URL-safe or ending in the newline echo adds, JWE and more token shapes, camelCase secret keys in records, and a
# secret in an env_matrix (bench validate's warning). Each variant is planted in a log, in a results record and in
# env/environment.json of a run directory, which is packed; read back from the bundle, the secret is gone and a
# look-alike beside it (what is not a secret) is kept.
. "$(dirname "$0")/lib.sh"
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
printf 'bench: 1\nname: sec7\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/m.yaml"
BENCH_RUNNERS=$T/fake expect 0 "a run to pack by hand (--no-pack)" "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml"
R=$(ls -d "$T"/runs/sec7-*[0-9a-f] | head -n 1)
N=$(basename "$R")
# the variants: name, the text planted, the secret that must go, the look-alike that must stay
cat >"$T/variants.py" <<'PY'
PGP = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGpwPgpBodyA1xyzAbCdEfGh\n=pwPgpCrcA2\n"
       "-----END PGP PRIVATE KEY BLOCK-----\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBkeepPgpPublicK1\n"
       "-----END PGP PUBLIC KEY BLOCK-----")
V = [
    # 1. curl/wget user option, every spelling getopt takes (row 42)
    ("curl-joined", "curl -ualice:pwCurlJoinA1 https://h/", "pwCurlJoinA1", "-ualice:"),
    ("curl-user-eq", "curl --user=alice:pwCurlEqB2 --user-agent=agent:keepUaK2 https://h/", "pwCurlEqB2", "agent:keepUaK2"),
    ("curl-U", "curl -x http://p:3128 -U proxy:pwCurlProxyC3 https://h/", "pwCurlProxyC3", "-U proxy:"),
    ("curl-U-joined", "curl -Uproxy:pwCurlProxyD4 -ualice https://h/", "pwCurlProxyD4", "-ualice https"),
    ("curl-proxy-user-eq", "wget --proxy-user=bob:pwCurlProxyE5 https://h/", "pwCurlProxyE5", "--proxy-user=bob:"),
    ("curl-proxy-user", "curl --proxy-user bob:pwCurlProxyF6 https://h/", "pwCurlProxyF6", "--proxy-user bob:"),
    ("curl-cluster", "curl -sSualice:pwCurlClusterG7 -Lfu carol:pwCurlClusterH8 -D keep:K8 https://h/", "pwCurlCluster",
     "-D keep:K8"),
    # 2. a private key block whose BEGIN label holds PRIVATE KEY: OpenPGP armor (row 43); a public key block kept
    ("pgp-block", PGP, "pwPgp", "mQINBkeepPgpPublicK1"),
    ("pgp-block-part", "-----BEGIN PGP PRIVATE KEY BLOCK, PART 1/2-----\nlQOYpwPgpPartB1xyz\n"
     "-----END PGP PRIVATE KEY BLOCK, PART 1/2-----\n-----BEGIN PGP SIGNATURE-----\niQIzkeepPgpSigK2\n"
     "-----END PGP SIGNATURE-----", "pwPgpPartB1", "iQIzkeepPgpSigK2"),
    # 3. the base64 word of user:password: unpadded, URL-safe, with the newline echo adds (row 44); a digest kept
    ("b64-unpadded", "auth YWxpY2U6cHdCNjROb1BhZEExeA digest LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIE",
     "YWxpY2U6cHdCNjROb1BhZEExeA", "LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIE"),
    ("b64-urlsafe", "auth Ym9iOnB3P0I2ND5Vcmx-RDQ= digest ofzkNjhU_4iM_0uOeHXWAMJoI5BBKoz3mzfQsRFIsPo",
     "Ym9iOnB3P0I2ND5Vcmx-RDQ", "ofzkNjhU_4iM_0uOeHXWAMJoI5BBKoz3mzfQsRFIsPo"),
    ("b64-urlsafe-unpadded", "auth ZGF2ZTpwdz4-P1VybH5-Rzg text bm8gY29sb24gaW4gdGhpcyB0ZXh0IGF0IGFsbA",
     "ZGF2ZTpwdz4-P1VybH5-Rzg", "bm8gY29sb24gaW4gdGhpcyB0ZXh0IGF0IGFsbA"),
    ("b64-urlsafe-underscore", "auth ZXJpbjpwdz4_PlVybH5IOXg= x", "ZXJpbjpwdz4_PlVybH5IOXg", "auth "),
    ("b64-newline", "auth YWxpY2U6cHdCNjRObEMzCg== user YWxpY2U6Cg==", "YWxpY2U6cHdCNjRObEMzCg", "YWxpY2U6Cg=="),
    ("b64-newline-4", "auth Ym9iOnB3P0I2ND5Vcmx+RTUK x", "Ym9iOnB3P0I2ND5Vcmx+RTUK", "auth "),
    ("b64-newline-unpadded", "auth Y2Fyb2w6cHdCNjRObEY2Cg x", "Y2Fyb2w6cHdCNjRObEY2Cg", "auth "),
    # 4. JWE and token shapes (rows 45, 47); words that only start like them kept
    ("jwe", "jwe eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKo."
     "48V1_ALb6US04U3b.pwJweCtA1_5eym8TW_c8SuK0ltJ3rpYIzOeDQz.XFBoMYUZodetZdvTiFvSkQ and eyJhbGciOiJIUzI1NiJ9.keepJwsK1",
     "pwJweCtA1", "eyJhbGciOiJIUzI1NiJ9.keepJwsK1"),
    ("jwe-dir", "jwe eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4R0NNIn0..iv48V1ALb6US04U3b.pwJweDirB2ct5eym8TW.tagXFBoMYUZodetZdvT.",
     "pwJweDirB2", "jwe "),
    ("slack-xoxe", "t xoxe-1-pwSlackXoxeA1abcdefghijklmnop xoxe-short", "pwSlackXoxeA1", "xoxe-short"),
    ("slack-xapp", "t xapp-1-A0PWSLACK-1234567890123-pwXappB2abcdef xapp-config", "pwXappB2", "xapp-config"),
    ("gitlab-glptt", "t glptt-pwGlpttC3abcdef0123456789abcdef0123 glptt-keep", "pwGlpttC3", "glptt-keep"),
    ("gitlab-gldt", "t gldt-pwGldtD4abcdefghijklmn gldt-keep", "pwGldtD4", "gldt-keep"),
    ("gitlab-glrt", "t glrt-t1_pwGlrtE5abcdefghijklm glrt-keep", "pwGlrtE5", "glrt-keep"),
    ("docker-hub", "t dckr_pat_pwDockerF6abcdefghijklmnopq dckr_pat_keep", "pwDockerF6", "dckr_pat_keep"),
    ("vault", "t hvs.CAESIpwVaultG7abcdefghijklmnopqrstuv hvs.keep", "pwVaultG7", "hvs.keep"),
    ("databricks", "t dapi0f1e2d3c4b5a69788796a5b4c3d2e1f0-2 dapi_version dapi0f1e2d3c4b5a69788796a5b4c3d2e1f",
     "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "dapi_version dapi0f1e2d3c4b5a69788796a5b4c3d2e1f"),
    ("nuget", "t oy2pwnugeth8abcdefghijklmnopqrstuvwxyz01234567 oy2keepshort", "oy2pwnugeth8", "oy2keepshort"),
]
PY
# plant every variant in a log, in each record (extra.plant) and in env/environment.json ("plant"), keyed by name
python3 - "$R" "$T/variants.py" <<'PY'
import json, sys
exec(open(sys.argv[2]).read())
d = sys.argv[1]
with open(d + "/logs/plant.log", "w") as f:
    for name, text, gone, kept in V:
        f.write("%s: %s\n" % (name, text))
p = d + "/results/gemm.jsonl"
recs = [json.loads(l) for l in open(p)]
for r in recs:
    r.setdefault("extra", {})["plant"] = {name: text for name, text, gone, kept in V}
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
env = json.load(open(d + "/env/environment.json"))
env["plant"] = {name: text for name, text, gone, kept in V}
json.dump(env, open(d + "/env/environment.json", "w"))
PY
# 5. secret keys in records in camelCase and PascalCase (row 49), in a record and in a runner's JSON file
# (what `aws sts` prints); keys that only hold such words are data and kept
python3 - "$R" <<'PY'
import json, sys
d = sys.argv[1]
creds = {"clientSecret": "pwCamelA1x", "SecretAccessKey": "pwCamelB2x", "privateKey": "pwCamelC3x", "apiKey": "pwCamelD4x",
         "accessToken": "pwCamelE5x", "ClientSecret": "pwCamelF6x", "SessionToken": "pwCamelG7x",
         "tokens": "keepTokensL1", "apiVersion": "keepApiVerL2", "secretName": "keepSecretNameL3", "privateKeyPath": "keepL4"}
p = d + "/results/gemm.jsonl"
recs = [json.loads(l) for l in open(p)]
for r in recs:
    r["extra"]["creds"] = creds
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
import os
os.makedirs(d + "/artifacts", exist_ok=True)
json.dump({"Credentials": creds}, open(d + "/artifacts/sts.json", "w"))
PY
expect 0 "pack the run directory holding the planted secrets" "$BENCH" pack "$R"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$R.bench.tar.gz"
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$R.bench.tar.gz"
# each variant in each place: the secret gone, the look-alike kept (lines "ok|not_ok DESCRIPTION")
python3 - "$T/x/$N" "$T/variants.py" >"$T/checks" <<'PY'
import json, sys
exec(open(sys.argv[2]).read())
d = sys.argv[1]
log = {}
for line in open(d + "/logs/plant.log"):
    name, _, rest = line.partition(": ")
    log[name] = rest
# a multi-line variant spans several log lines: the log is read whole for those
whole = open(d + "/logs/plant.log").read()
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
env = json.load(open(d + "/env/environment.json"))["plant"]
for name, text, gone, kept in V:
    places = {"log": whole if "\n" in text else log.get(name, ""), "record": "\n".join(r["extra"]["plant"][name] for r in recs),
              "environment.json": env[name]}
    for where, got in places.items():
        good = gone not in got and kept in got
        print("%s %s: '%s' gone from %s, '%s' kept%s" % ("ok" if good else "not_ok", name, gone, where, kept,
              "" if good else " (got: %r)" % got[:300]))
PY
while read -r st desc; do
	if [ "$st" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
done <"$T/checks"
[ -s "$T/checks" ] || not_ok "no variant was checked"
grep -rlaF -e pwCurl -e pwPgp -e pwJwe -e pwSlackXoxe -e pwXapp -e pwGl -e pwDocker -e pwVault -e oy2pwnuget "$T/x" >"$T/hits"
[ ! -s "$T/hits" ] && ok "no member of the bundle holds any planted secret" || { not_ok "planted secrets in: $(tr "\n" " " <"$T/hits")"; }
cat >"$T/camel.py" <<'PY'
import glob, json, sys
d = sys.argv[1]
want_gone = ["clientSecret", "SecretAccessKey", "privateKey", "apiKey", "accessToken", "ClientSecret", "SessionToken"]
kept = {"tokens": "keepTokensL1", "apiVersion": "keepApiVerL2", "secretName": "keepSecretNameL3", "privateKeyPath": "keepL4"}
docs = [json.loads(l)["extra"]["creds"] for l in open(d + "/results/gemm.jsonl")]
docs.append(json.load(open(d + "/artifacts/sts.json"))["Credentials"])
for c in docs:
    bad = [k for k in want_gone if c[k] != "<redacted>"]
    assert not bad, (bad, c)
    assert all(c[k] == v for k, v in kept.items()), c
PY
python3 "$T/camel.py" "$T/x/$N" && ok "camelCase/PascalCase secret keys redacted in records and a runner's JSON; data keys kept" ||
	not_ok "camelCase secret keys kept in records or a runner's JSON"
grep -rlaF pwCamel "$T/x" >"$T/hits"
[ ! -s "$T/hits" ] && ok "no member holds a camelCase key's secret" || not_ok "pwCamel in: $(tr "\n" " " <"$T/hits")"
# 6. bench validate warns of a secret in an env_matrix (row 53), as of one in stack.env: its values go into every
# case key, which is never scrubbed; the value is never printed, an ordinary matrix is not warned of
cat >"$T/mx.yaml" <<'Y'
bench: 1
name: mx
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm:
    dtypes: [fp32]
    shapes: [[64, 64, 64]]
    env_matrix:
      NCCL_ALGO: [Ring, Tree]
      HF_TOKEN: [pwMatrixA1x, pwMatrixA2x]
      NCCL_CONF: ["plain", "https://bob:pwMatrixB1@h/x"]
      OTHER_SETTING: ["1", "ghp_pwMatrixC1abcdefghijklmnopqrstu"]
      DB_ARGS: ["x", "curl -ubob:pwMatrixD1"]
Y
expect 0 "validate of a manifest with secrets in an env_matrix: valid" "$BENCH" validate "$T/mx.yaml"
for v in HF_TOKEN NCCL_CONF OTHER_SETTING DB_ARGS; do
	if grep -qF "warning: suites.gemm.env_matrix.$v looks like a secret" "$T/err" && ! grep -q pwMatrix "$T/err" &&
		! grep -q "env_matrix.NCCL_ALGO" "$T/err"; then
		ok "env_matrix.$v warned of (its value not printed, NCCL_ALGO not warned of)"
	else
		not_ok "env_matrix.$v not warned of, or a value printed"
		show "$T/err"
	fi
done
finish
