#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
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
# --- a runner's daemon (setsid: another session, outside its process group) ends with the suite ---------------------
ln -s "$FAKE" "$T/fake/bench-gemm"
cat >"$T/d.yaml" <<'Y'
bench: 1
name: daemon
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 20s}
suites:
  gemm: {dtypes: [fp32], layouts: [tn], shapes: [[32, 32, 32]], warmup: 1ms, rep: 5ms}
Y
BENCH_RUNNERS="$T/fake" FAKE_MODE=daemon FAKE_PIDFILE="$T/daemon.pid" expect 0 "a runner that leaves a setsid daemon" \
	"$BENCH" run -q --no-pack -o "$T/dmn" "$T/d.yaml"
dp=$(cat "$T/daemon.pid" 2>/dev/null)
if [ -n "$dp" ] && ! kill -0 "$dp" 2>/dev/null; then ok "the daemon ($dp) is gone once bench has exited"
else not_ok "the runner's setsid daemon ${dp:-?} outlived the run"; [ -n "$dp" ] && kill "$dp" 2>/dev/null; fi
grep -q "bench: ended 1 process the runner left behind" "$T"/dmn/daemon-*/logs/gemm.log && ok "the log says so" ||
	not_ok "no word of it in the log"

# --- one bench per run directory -------------------------------------------------------------------------------------
# a run interrupted after its first records, resumed slowly by bench A; A is stopped (SIGSTOP) while B tries
BENCH_RUNNERS="$T/fake" FAKE_MODE=ok FAKE_DELAY=0.3 "$BENCH" run -q --no-pack -o "$T/lk" "$T/m.yaml" >/dev/null 2>&1 &
bp=$!
n=0; while [ $n -lt 100 ] && ! [ "$(cat "$T"/lk/*/results/membw.jsonl 2>/dev/null | wc -l)" -ge 1 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT $bp; wait $bp
D=$(ls -d "$T"/lk/integrity-* | head -n 1)
BENCH_RUNNERS="$T/fake" FAKE_MODE=ok FAKE_DELAY=0.5 "$BENCH" run -q --no-pack --resume "$D" >"$T/a.out" 2>"$T/a.err" &
ap=$!
n=0; while [ $n -lt 100 ] && ! [ -f "$D/env/environment-resume.json" ]; do sleep 0.1; n=$((n + 1)); done
sleep 0.3
kill -STOP $ap
snap() { (cd "$D" && find . -type f | sort | xargs sha256sum; ls -la --time-style=full-iso . results logs) >"$1"; }
snap "$T/before"
BENCH_RUNNERS="$T/fake" FAKE_MODE=ok expect 1 "a second --resume of a run directory in use exits 1" "$BENCH" run -q --no-pack --resume "$D"
expect_err "bench: error: the run directory '$D' is in use by another bench (pid $ap on $(hostname), since 20"
snap "$T/after"
expect_same "the second bench touched nothing" "$T/before" "$T/after"
kill -CONT $ap
wait $ap
[ $? = 0 ] && ok "the first --resume completes the run (exit 0)" || { not_ok "the first --resume failed"; show "$T/a.err"; }
if python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
keys = [json.loads(l)["case"] for l in open(f"{d}/results/membw.jsonl")]
assert len(keys) == len(set(keys)) == 3, keys
assert json.load(open(f"{d}/status.json"))["state"] == "complete"
PY
then ok "every case once in results/membw.jsonl"; else not_ok "duplicated or missing records"; fi
if [ -e "$D/.bench-lock" ] || [ -e "$D/.bench-reserve" ]; then not_ok "lock or reserve file left in the run directory"
else ok "no lock or reserve file left behind"; fi

# --- a full disk ----------------------------------------------------------------------------------------------------
if [ "$(id -u)" = 0 ] && mkdir -p "$T/tiny" && mount -t tmpfs -o size=2m tmpfs "$T/tiny" 2>/dev/null; then
	BENCH_RUNNERS="$T/fake" FAKE_MODE=ok FAKE_PAD=700000 expect 1 "a 2 MiB file system fills up: exit 1" \
		"$BENCH" run -q --no-pack -o "$T/tiny" "$T/m.yaml"
	expect_err "no space left on device in '$T/tiny/integrity-"
	D=$(ls -d "$T"/tiny/integrity-* | head -n 1)
	if python3 - "$D" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
st = json.load(open(f"{d}/status.json"))
assert st["state"] == "failed" and st["error"] == "no space left on device", st
assert any(c["status"] == "failed" and "no space left on device" in c["error"] for c in st["cases"]), st
for l in open(f"{d}/results/membw.jsonl"):
    assert json.loads(l)["status"] == "ok"          # whole records only
json.load(open(f"{d}/summary.json"))
left = [f for f in glob.glob(d + "/**", recursive=True) if f.endswith(".tmp") or "/.bench-" in f]
assert not left, left
PY
	then ok "status.json says failed: no space left on device; no .tmp file, no half record"
	else not_ok "full disk state"; show "$D/status.json"; fi
	mount -o remount,size=16m "$T/tiny"
	BENCH_RUNNERS="$T/fake" FAKE_MODE=ok expect 0 "after freeing space, --resume completes the run" "$BENCH" run -q --no-pack --resume "$D"
	python3 -c "
import json, sys
d = sys.argv[1]
keys = [json.loads(l)['case'] for l in open(d + '/results/membw.jsonl')]
assert len(keys) == len(set(keys)) == 3, keys
assert json.load(open(d + '/status.json'))['state'] == 'complete'" "$D" && ok "every case once, state complete" || not_ok "resume after a full disk"
	umount "$T/tiny"
else
	ok "# SKIP a full disk: needs root to mount a 2 MiB tmpfs"
fi
# a run killed with SIGKILL leaves its lock file behind: pack leaves bench's own bookkeeping out of the bundle
D=$(ls -d "$T"/lk/integrity-* | head -n 1)
echo "pid 1 on elsewhere since 2026-01-01T00:00:00Z" >"$D/.bench-lock"
: >"$D/.bench-reserve"
expect 0 "pack a run directory with a stale lock file" "$BENCH" pack "$D"
tar -tzf "$D.bench.tar.gz" | grep -q 'bench-lock\|bench-reserve' && not_ok "the bundle holds .bench-lock or .bench-reserve" ||
	ok "the bundle holds neither .bench-lock nor .bench-reserve"
# --- every signal that would end bench ends the run's state (issue #30) ---------------------------------------------
# a reader that goes away (| head -1) used to kill bench by SIGPIPE mid-run, its status.json left "running"
{ BENCH_RUNNERS="$T/fake" FAKE_MODE=ok FAKE_DELAY=0.3 "$BENCH" run -o "$T/pipe" "$T/m.yaml"; echo $? >"$T/pipe.rc"; } 2>&1 | head -n 1 >/dev/null
D=$(ls -d "$T"/pipe/integrity-* | head -n 1)
[ "$(cat "$T/pipe.rc")" = 6 ] && ok "bench run ... 2>&1 | head -1: bench ends with exit 6, not by SIGPIPE" || not_ok "SIGPIPE exit $(cat "$T/pipe.rc")"
if python3 - "$D" <<'PY'
import json, sys
st = json.load(open(sys.argv[1] + "/status.json"))
assert st["state"] == "interrupted", st["state"]
assert any(c["status"] == "interrupted" and c["error"].startswith("interrupted (SIGPIPE") for c in st["cases"]), st["cases"]
PY
then ok "its status.json: interrupted, the cases not measured say SIGPIPE"; else not_ok "state after SIGPIPE"; show "$D/status.json"; fi
[ -f "$D.bench.tar.gz" ] && ok "the interrupted run is still packed" || not_ok "no bundle after SIGPIPE"
BENCH_RUNNERS="$T/fake" FAKE_MODE=ok FAKE_DELAY=0.5 "$BENCH" run -q --no-pack -o "$T/hup" "$T/m.yaml" >/dev/null 2>&1 &
bp=$!
n=0; while [ $n -lt 100 ] && ! [ -f "$T"/hup/*/env/environment.json ]; do sleep 0.1; n=$((n + 1)); done
kill -HUP $bp; wait $bp
[ $? = 6 ] && grep -q '"interrupted (SIGHUP' "$T"/hup/*/status.json && grep -q '"state": "interrupted"' "$T"/hup/*/status.json &&
	ok "SIGHUP: exit 6, state interrupted, the reason names it" || { not_ok "SIGHUP"; show "$(ls "$T"/hup/*/status.json)"; }

# --- --resume of a complete run is a no-op: records, status and the signed bundle untouched -------------------------
BENCH_RUNNERS="$T/fake" FAKE_MODE=skip expect 0 "a complete run (one case skipped)" "$BENCH" run -q -o "$T/done" "$T/m.yaml"
D=$(head -n 1 "$T/out")
snap "$T/before"
sha256sum "$D.bench.tar.gz" "$D.bench.tar.gz.intoto.jsonl" >>"$T/before"
BENCH_RUNNERS="$T/fake" FAKE_MODE=ok expect 0 "--resume of a complete run: exit 0" "$BENCH" run --resume "$D"
expect_err "bench: '$D' is complete: nothing to resume (its records and bundle are left as they are)"
expect_no_out
snap "$T/after"
sha256sum "$D.bench.tar.gz" "$D.bench.tar.gz.intoto.jsonl" >>"$T/after"
expect_same "the run directory and its bundle are byte for byte as they were" "$T/before" "$T/after"
finish
