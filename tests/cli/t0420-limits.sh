#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench run bounds what a runner can make it keep (docs/architecture.md, "Limits"): of a runner's stderr the log keeps
# the first 8 MiB and the whole lines of the last 8 MiB, and says how many bytes were cut between them (a 2 GiB stderr
# never reaches the disk; a line the cut falls inside is left out whole, not its rest, a secret without its name); a
# stdout line longer than 64 MiB is discarded as malformed, with its length, in bounded memory.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
mkdir -p "$T/fake"
"$BENCH" keygen >/dev/null 2>&1
cat >"$T/m.yaml" <<'Y'
bench: 1
name: limits
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 120s}
suites:
  gemm: {dtypes: [fp32], layouts: [tn], shapes: [[32, 32, 32]], warmup: 1ms, rep: 5ms}
Y
# peak_run DIR: bench run into DIR with the peak resident memory of bench and its runner (KiB) in $T/peak
peak_run() {
	python3 - "$T/peak" "$@" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"), stderr=open(sys.argv[1] + ".err", "w"))
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc)
PY
}

# --- 2 GiB of stderr ------------------------------------------------------------------------------------------------
cat >"$T/fake/bench-gemm" <<SH
#!/bin/sh
echo "first stderr line" >&2
yes "stderr noise" | head -c 2147483648 >&2
echo "last stderr line" >&2
exec "$FAKE" "\$@" 2>/dev/null
SH
chmod +x "$T/fake/bench-gemm"
BENCH_RUNNERS="$T/fake" expect 0 "a runner that writes 2 GiB to stderr completes its case" "$BENCH" run -q -o "$T/err2g" "$T/m.yaml"
log=$(ls "$T"/err2g/limits-*/logs/gemm.log 2>/dev/null | head -n 1)
if python3 - "${log:-/nonexistent}" <<'PY'
import os, re, sys
data = open(sys.argv[1], "rb").read()
assert len(data) < 16 * 2**20 + 4096, len(data)
m = re.search(rb"\nbench: runner stderr cut here: (\d+) bytes left out \(the log keeps its first 8388608 bytes and "
              rb"the whole lines of its last 8388608\)\n", data)
assert m, data[:300]
total = len(b"first stderr line\n") + 2**31 + len(b"last stderr line\n")
tail = data[m.end():].split(b"\nbench: runner ended")[0]
# the tail from a line's start: the partial line before it (at most one "stderr noise\n") counted as left out
assert tail.startswith(b"stderr noise\nstderr noise\n"), tail[:40]
assert int(m.group(1)) + len(tail) + 1 == total - 8 * 2**20, (m.group(1), len(tail), total)
assert total - 16 * 2**20 <= int(m.group(1)) < total - 16 * 2**20 + 13, (m.group(1), total)
assert b"\nfirst stderr line\nstderr noise\n" in data[:4096]
assert data[:m.start()].count(b"stderr noise") >= 8 * 2**20 // 13 - 2   # the head: 8 MiB of it
assert b"last stderr line\n" in data[-300:], data[-300:]
assert len(tail) >= 8 * 2**20 - 14   # the tail: 8 MiB of it, less the partial line
PY
then ok "logs/gemm.log keeps the first and last 8 MiB of the 2 GiB and says how many bytes were cut"
else not_ok "the runner's 2 GiB stderr is not capped as documented"; fi
B=$(ls "$T"/err2g/*.bench.tar.gz 2>/dev/null | head -n 1)
expect 0 "the run's bundle (its log well under the 256 MiB member limit) verifies" "$BENCH" verify "${B:-none}"

# the kept tail starts inside a line: that line is left out whole, not its rest (DB_PASSWO|RD=value: the rest alone
# is a password whose name the scrubber can no longer see)
python3 - "$T/split.err" <<'PY'
import sys
line = b"DB_PASSWORD=S3cretTailValue42\n"
a = b"head noise\n" * (9 * 2**20 // 11)
b = 8 * 2**20 + 5 - len(line)            # the last 8 MiB start 5 bytes into the line
rest = b"n\n" * (b // 2) + (b"\n" if b % 2 else b"")
open(sys.argv[1], "wb").write(a + line + rest)
PY
cat >"$T/fake/bench-gemm" <<SH
#!/bin/sh
cat "$T/split.err" >&2
exec "$FAKE" "\$@" 2>/dev/null
SH
chmod +x "$T/fake/bench-gemm"
BENCH_RUNNERS="$T/fake" expect 0 "a runner whose stderr is cut inside a line" "$BENCH" run -q --no-pack -o "$T/split" "$T/m.yaml"
log=$(ls "$T"/split/limits-*/logs/gemm.log 2>/dev/null | head -n 1)
if [ -n "$log" ] && ! grep -q 'S3cretTailValue42' "$log" && grep -q 'whole lines of its last 8388608' "$log"; then
	ok "the line the cut falls in is left out whole: no 'RD=value' rest of a password in the log"
else
	not_ok "a password's rest kept after the cut"; grep -a 'S3cret\|cut here' "${log:-/dev/null}" | head -n 3 | sed 's/^/#   /'
fi

# --- a 1.5 GiB stdout line ------------------------------------------------------------------------------------------
cat >"$T/fake/bench-gemm" <<SH
#!/bin/sh
printf '{"schema": "bench.result/v1", "pad": "'
head -c 1610612736 /dev/zero
echo '"}'
exec "$FAKE" "\$@"
SH
BENCH_RUNNERS="$T/fake" peak_run "$BENCH" run -q --no-pack -o "$T/out15" "$T/m.yaml" &&
	ok "a runner with a 1.5 GiB stdout line then a valid record: its case is measured" ||
	{ not_ok "a 1.5 GiB stdout line (exit $?)"; show "$T/peak.err"; }
peak=$(cat "$T/peak" 2>/dev/null || echo 0)
[ "$peak" -gt 0 ] && [ "$peak" -lt 262144 ] && ok "peak memory ${peak} KiB, under 256 MiB" ||
	not_ok "peak memory ${peak} KiB for a 1.5 GiB line"
n=$((38 + 1610612736 + 2))
grep -qF "bench: malformed line from the runner: $n bytes, longer than the limit of 64 MiB for a record; discarded" \
	"$T"/out15/limits-*/logs/gemm.log && ok "the log says the line was discarded, with its length" ||
	{ not_ok "no 'discarded' line in the log"; show "$(ls "$T"/out15/limits-*/logs/gemm.log | head -n 1)"; }
grep -qF "bench: 1 malformed line ignored" "$T"/out15/limits-*/logs/gemm.log && ok "... and counts it as malformed" ||
	not_ok "the over-long line is not counted as malformed"
finish
