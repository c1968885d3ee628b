#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench ls: real runs and their bundles, a failed run, a tampered bundle (UNVERIFIED), an unsigned copy, corrupt
# entries listed with the reason, an empty directory, a missing one, the default directory.
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS to the runners directory}
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
PY=python3

cat >"$T/m.yaml" <<'Y'
bench: 1
name: lstest
channel: nightly
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 5s}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]], warmup: 1ms, rep: 3ms, flush_bytes: 1MiB}
  membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 3ms}
Y
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
ln -s "$R/bench-membw" "$T/fake/bench-membw"

expect 0 "a real run" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
B1=$(sed -n 2p "$T/out")
sleep 1 # another start second: the order is by date
BENCH_RUNNERS=$T/fake FAKE_MODE=crash FAKE_GOOD=1 expect 6 "a run whose gemm runner crashes after one case" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
B2=$(sed -n 2p "$T/out")
# a third run's bundle tampered with (its envelope beside it), a fourth's without its envelope (not signed)
expect 0 "a third run" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
B3=$(sed -n 2p "$T/out")
flip_byte "$B3" 200
expect 0 "a fourth run" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
B4=$(sed -n 2p "$T/out")
rm "$B4.intoto.jsonl"
# corrupt entries: a run directory whose status.json is not JSON, a bundle that is not an archive; and what is ignored
mkdir -p "$T/runs/corrupt-run" "$T/runs/not-a-run"
echo '{"state": "comp' >"$T/runs/corrupt-run/status.json"
echo 'not a gzip stream' >"$T/runs/junk.bench.tar.gz"
echo 'notes' >"$T/runs/README.txt"

expect 0 "bench ls of the runs directory" "$BENCH" ls "$T/runs"
cp "$T/out" "$T/ls.txt"
expect 0 "bench ls --json" "$BENCH" ls --json "$T/runs"
cp "$T/out" "$T/ls.json"
if "$PY" - "$T/runs" "$T/ls.json" "$T/ls.txt" "$(basename "$B1")" "$(basename "$B2")" "$(basename "$B3")" "$(basename "$B4")" <<'PY'
import json, os, re, sys
runs, got, text = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read()
b1, b2, b3, b4 = sys.argv[4:8]
names = [e["name"] for e in got]
# what is listed: every run directory and every bundle, nothing else
want = sorted([d for d in os.listdir(runs) if os.path.isdir(f"{runs}/{d}") and d != "not-a-run"] +
              [f for f in os.listdir(runs) if f.endswith(".bench.tar.gz")])
assert sorted(names) == want, (names, want)
# each run directory and each bundle read: manifest, channel, start and counts as the run's own files say
checked = 0
for e in got:
    if e["name"] in ("corrupt-run", "junk.bench.tar.gz") or (e["kind"] == "bundle" and "counts" not in e):
        continue
    d = f"{runs}/{e['name'].removesuffix('.bench.tar.gz')}"
    st, plan = json.load(open(f"{d}/status.json")), json.load(open(f"{d}/plan.json"))
    counts = {s: sum(c["status"] == s for c in st["cases"]) for s in ("ok", "failed", "skipped", "interrupted", "pending")}
    assert e["counts"] == counts, (e, counts)
    assert (e["manifest"], e["channel"], e["started"]) == (plan["name"], plan["channel"], st["started"]), e
    checked += 1
assert checked >= 7, checked
by = {e["name"]: e for e in got}
assert by[b1]["verify"] == "verified" and by[b1]["counts"]["ok"] == 3, by[b1]
assert by[b2]["verify"] == "verified" and by[b2]["counts"]["failed"] >= 1, by[b2]
assert by[b3]["verify"] == "UNVERIFIED" and by[b3]["error"], by[b3]
assert by[b4]["verify"] == "not signed" and "error" not in by[b4] and by[b4]["counts"]["ok"] == 3, by[b4]
assert by["junk.bench.tar.gz"]["verify"] == "not signed" and by["junk.bench.tar.gz"]["error"], by["junk.bench.tar.gz"]
assert by["corrupt-run"]["error"] == "status.json is not a JSON object", by["corrupt-run"]
assert "verify" not in by[b1.removesuffix(".bench.tar.gz")]
# sorted by date, those without one last, then by name
key = [(e.get("started") is None, e.get("started") or "", e["name"]) for e in got]
assert key == sorted(key), key
assert got[-1].get("started") is None and got[0].get("started")
# the text: one line per entry, in the same order, with the same facts
lines = text.splitlines()[1:]
assert len(lines) == len(got), lines
for e, l in zip(got, lines):
    c = e.get("counts")
    cells = [e.get("started", "-"), e["kind"], e["name"], e.get("manifest", "-"), e.get("channel", "-"),
             "killed" if e.get("stale") else e.get("state", "-")] + \
            ([str(c["ok"]), str(c["failed"]), str(c["skipped"])] if c else ["-", "-", "-"]) + [e.get("verify", "-")]
    assert re.match(r"^" + r" +".join(map(re.escape, cells)) + (r" \(" + re.escape(e["error"]) + r"\)$" if "error" in e else "$"), l), (cells, l)
PY
then ok "ls and ls --json: every run and bundle once, with manifest, channel, start and counts from its own files, by date"
else not_ok "ls content"; show "$T/ls.txt"; fi
grep -q " bundle *$(basename "$B3") .* UNVERIFIED (.*)$" "$T/ls.txt" &&
	ok "the tampered bundle is listed UNVERIFIED with the reason" || { not_ok "tampered bundle line"; show "$T/ls.txt"; }
grep -q " bundle *$(basename "$B4") *lstest *nightly *complete *3 *0 *0  not signed$" "$T/ls.txt" &&
	ok "the bundle without its envelope: not signed, its counts still read" || { not_ok "unsigned line"; show "$T/ls.txt"; }
grep -q "^- .*corrupt-run .*(status.json is not a JSON object)$" "$T/ls.txt" &&
	ok "a corrupt run directory is listed with the reason" || { not_ok "corrupt run line"; show "$T/ls.txt"; }

# the state of each run (issue #30): an interrupted run, one that never started and one whose bench was killed all
# count 0 0 0 here; the state column tells them apart (the runners wait 5 s, x SLOW, before their first record: a loaded
# machine may take more than a second between the run's start and the signal)
mkdir -p "$T/st"
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_DELAY=$((5 * SLOW)) "$BENCH" run -q --no-pack -o "$T/st/int" -s gemm "$T/m.yaml" >/dev/null 2>&1 &
bp=$!
n=0; while [ $n -lt 100 ] && ! [ -f "$T"/st/int/*/env/environment.json ]; do sleep 0.1; n=$((n + 1)); done
kill -INT $bp; wait $bp
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_DELAY=$((5 * SLOW)) "$BENCH" run -q --no-pack -o "$T/st/kill" -s gemm "$T/m.yaml" >/dev/null 2>&1 &
bp=$!
n=0; while [ $n -lt 100 ] && ! [ -f "$T"/st/kill/*/env/environment.json ]; do sleep 0.1; n=$((n + 1)); done
kill -KILL $bp; wait $bp 2>/dev/null
# its runner too, as when the whole session dies: left alone, the orphan writes its first record 5 s later, and a
# loaded machine lists the run after that (killed, 1 ok)
pkill -KILL -f "$T/fake/bench-gemm" 2>/dev/null
{ sed 's/^runtime: {engine: host,/runtime: {engine: podman,/' "$T/m.yaml"; echo 'stack: {base: "localhost/debian:bookworm"}'; } >"$T/pod.yaml"
"$BENCH" run -q -o "$T/st/ns" "$T/pod.yaml" >/dev/null 2>&1 # no lock: not started
for k in int kill ns; do mv "$T"/st/$k/lstest-* "$T/st/"; done
expect 0 "bench ls of an interrupted, a killed and a not-started run" "$BENCH" ls "$T/st"
for state in interrupted killed not-started; do
	[ "$(grep -c " run  *lstest-[^ ]* *lstest *nightly *$state  *0 *0 *0  -$" "$T/out")" = 1 ] && ok "ls: one run listed $state" ||
		{ not_ok "ls: no run listed $state"; show "$T/out"; }
done
expect 0 "bench ls --json of them" "$BENCH" ls --json "$T/st"
"$PY" -c '
import json, sys
got = json.load(open(sys.argv[1]))
assert sorted((e["state"], e.get("stale", False)) for e in got) == [("interrupted", False), ("not-started", False), ("running", True)], got' "$T/out" &&
	ok "ls --json: the states as status.json says, and the killed run stale" || { not_ok "ls --json states"; show "$T/out"; }

# the default directory is runs/
mkdir -p "$T/cwd/runs"
cp -r "$(dirname "$B1")/$(basename "$B1" .bench.tar.gz)" "$T/cwd/runs/"
(cd "$T/cwd" && "$BENCH" ls) >"$T/out" 2>"$T/err" && grep -q " run  *$(basename "$B1" .bench.tar.gz) *lstest *nightly *complete *3 *0 *0  -$" "$T/out" &&
	ok "bench ls without DIR lists ./runs" || { not_ok "default DIR"; show "$T/out"; }

mkdir -p "$T/empty"
expect 0 "an empty directory" "$BENCH" ls "$T/empty"
expect_out "no runs or bundles in '$T/empty'"
expect 0 "an empty directory, --json" "$BENCH" ls --json "$T/empty"
[ "$(tr -d ' \n' <"$T/out")" = "[]" ] && ok "--json of an empty directory: []" || { not_ok "--json empty"; show "$T/out"; }
expect 1 "a directory that does not exist: exit 1" "$BENCH" ls "$T/missing"
expect_err "bench: error: cannot open '$T/missing': No such file or directory"
expect_no_out
expect 2 "two directories: a usage error" "$BENCH" ls "$T/runs" "$T/empty"
expect_err "give at most one directory"
expect 0 "bench help lists ls" "$BENCH" help
expect_out "  ls         list the runs and bundles under a directory"
finish
