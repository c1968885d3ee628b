#!/bin/sh
# bench run keeps what it records honest and its run directory whole: secrets redacted from env/environment.json and
# scrubbed from logs by the documented policy (docs/architecture.md, "Secrets"); one bench at a time on a run
# directory; a full disk ends the run as failed, leaves no half-written file, and --resume completes it; nothing a
# runner started (setsid daemons included) outlives its suite.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
mkdir -p "$T/fake"
# a runner that prints its environment to stderr (into logs/membw.log), then reports every case
cat >"$T/fake/bench-membw" <<SH
#!/bin/sh
env >&2
echo "connecting to https://alice:s3cr3t-url-pw@db.example.com/x and \$NCCL_ApiKey" >&2
exec "$FAKE" "\$@"
SH
chmod +x "$T/fake/bench-membw"
cat >"$T/m.yaml" <<'Y'
bench: 1
name: integrity
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 20s}
stack:
  env: {OMP_NUM_THREADS: "1", BENCH_DB_PWD: "manifest-pwd-value"}
suites:
  membw: {ops: [copy, write, read], bytes: 1MiB, warmup: 1ms, rep: 5ms}
Y

# --- secrets ------------------------------------------------------------------------------------------------------
"$BENCH" keygen >/dev/null 2>&1
export NCCL_IB_PASSWD=v-passwd-1 BENCH_X_PASS=v-pass-22 HIP_PASSPHRASE=v-passphrase-3 CUDA_DB_PWD=v-pwd-4444 \
	UCX_AUTH=v-auth-5555 TORCH_COOKIE=v-cookie-66 OMPI_PRIVATE=v-private-7 NCCL_ApiKey=v-apikey-88 \
	NCCL_SOCKET_IFNAME=eth0 TRITON_CACHE_URL=https://bob:v-urlpw-99@cache.example.com/t NCCL_SHORT_TOKEN=abc \
	OMP_TOKENIZER_KEEP=v-kept-10 BENCH_ENV_KEEP='OMP_TOKENIZER_*' BENCH_ENV_REDACT=NCCL_SOCKET_IFNAME
BENCH_RUNNERS="$T/fake" FAKE_MODE=ok expect 0 "a run whose environment holds secrets" "$BENCH" run -q -o "$T/sec" "$T/m.yaml"
unset NCCL_IB_PASSWD BENCH_X_PASS HIP_PASSPHRASE CUDA_DB_PWD UCX_AUTH TORCH_COOKIE OMPI_PRIVATE NCCL_ApiKey \
	NCCL_SOCKET_IFNAME TRITON_CACHE_URL NCCL_SHORT_TOKEN OMP_TOKENIZER_KEEP BENCH_ENV_KEEP BENCH_ENV_REDACT
B=$(ls "$T"/sec/*.bench.tar.gz 2>/dev/null | head -n 1)
mkdir -p "$T/x" && [ -n "$B" ] && tar -xzf "$B" -C "$T/x" && ok "the run packed a bundle" || not_ok "no bundle"
expect 0 "the bundle verifies" "$BENCH" verify "$B"
if python3 - "$T/x" <<'PY'
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
env = json.load(open(d + "env/environment.json"))["env"]
for k in ["NCCL_IB_PASSWD", "BENCH_X_PASS", "HIP_PASSPHRASE", "CUDA_DB_PWD", "UCX_AUTH", "TORCH_COOKIE", "OMPI_PRIVATE",
          "NCCL_ApiKey", "BENCH_DB_PWD", "NCCL_SHORT_TOKEN", "NCCL_SOCKET_IFNAME"]:
    assert env.get(k) == "<redacted>", (k, env.get(k))
assert env["TRITON_CACHE_URL"] == "https://<redacted>@cache.example.com/t", env["TRITON_CACHE_URL"]
assert env["OMP_TOKENIZER_KEEP"] == "v-kept-10", env          # the allow list wins over the name patterns
assert env["OMP_NUM_THREADS"] == "1", env
import os
# every member but manifest.yaml (what the user wrote stays as written, signed)
text = "".join(open(f, errors="replace").read() for f in glob.glob(d + "**/*", recursive=True)
               if not os.path.isdir(f) and not f.endswith("/manifest.yaml"))
for v in ["v-passwd-1", "v-pass-22", "v-passphrase-3", "v-pwd-4444", "v-auth-5555", "v-cookie-66", "v-private-7",
          "v-apikey-88", "v-urlpw-99", "s3cr3t-url-pw", "manifest-pwd-value"]:
    assert v not in text, v
log = open(d + "logs/membw.log").read()
assert "NCCL_ApiKey=<redacted>" in log and "HIP_PASSPHRASE=<redacted>" in log, log[:2000]
assert "https://<redacted>@db.example.com/x and <redacted>" in log, log[:2000]
assert "OMP_TOKENIZER_KEEP=v-kept-10" in log
assert "NCCL_SHORT_TOKEN=<redacted>" in log       # a NAME=VALUE line of a secret name: whatever its length
PY
then ok "every secret name of the policy redacted in env/environment.json and scrubbed from the bundle's logs"
else not_ok "secrets reach the bundle"; fi
finish
