#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the tenth review, r31y (B3 and B4): bench publish reads the files of the results repository that
# it did not write in this call (a stored run summary, its samples, a stored verdict) as files bench did not create:
# a FIFO there is refused, not waited on for ever; a symbolic link is not followed; a huge file is refused before it
# is read; each with exit 1 and one line naming the file. bench run --resume writes below the run directory from the
# directory opened once: results/, logs/ or env/ swapped for a link to an outside directory after the resume check
# gets no write of the run (an error naming the file: a directory in its path is a symbolic link), and the records
# already measured stay.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
fake_gemm

# --- 1. publish: a stored summary, samples file or verdict a FIFO, a link to an outside file, a huge file ------------
cat >"$T/n.yaml" <<Y
bench: 1
name: h10
channel: nightly
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$T/fake FAKE_MODE=noisy FAKE_N=8 "$BENCH" run -q --no-pack -o "$T/seed" "$T/n.yaml" >"$T/seed.out" 2>&1 ||
	{ not_ok "setup: a nightly run"; show "$T/seed.out"; }
# three dated nightlies of one machine, packed
"$PY" - "$(ls -d "$T"/seed/h10-*[0-9a-f] | head -n 1)" "$T/runs" <<'PY'
import json, shutil, sys
for day in range(1, 4):
    d = "%s/h10-202611%02dT020000Z-d%d" % (sys.argv[2], day, day)
    shutil.copytree(sys.argv[1], d)
    s = json.load(open(d + "/status.json"))
    s["started"] = "2026-11-%02d" % day + s["started"][10:]
    json.dump(s, open(d + "/status.json", "w"), indent=2)
PY
for d in "$T"/runs/*/; do "$BENCH" pack "${d%/}" >/dev/null 2>&1 || not_ok "setup: pack $d"; done
N1=$T/runs/h10-20261101T020000Z-d1.bench.tar.gz
N2=$T/runs/h10-20261102T020000Z-d2.bench.tar.gz
N3=$T/runs/h10-20261103T020000Z-d3.bench.tar.gz
expect 0 "setup: publish the first two nightlies" "$BENCH" publish --repo "$T/base" "$N1" "$N2"
S1=$(sha256sum "$N1" | cut -c1-64)
S2=$(sha256sum "$N2" | cut -c1-64)
V2=$(cd "$T/base" && ls verdicts/*.json 2>/dev/null | head -n 1)
[ -f "$T/base/summaries/$S1.json" ] && [ -f "$T/base/summaries/$S2.samples.json" ] && [ -n "$V2" ] &&
	ok "setup: the summaries, samples and the second date's verdict are there" ||
	not_ok "setup: summaries or verdict missing ($(ls "$T/base/summaries" "$T/base/verdicts" 2>&1 | tr '\n' ' '))"

# hostile KIND REL: a copy of the repository with REL made KIND (fifo, link, huge); publishing the third nightly is
# refused within 20 s, exit 1, one line naming the file
hostile() {
	kind=$1 rel=$2
	R=$T/repo-$kind-$(echo "$rel" | tr '/.' '__')
	rm -rf "$R"
	cp -a "$T/base" "$R"
	case $kind in
	fifo) rm -f "$R/$rel" && mkfifo "$R/$rel" ;;
	link) mkdir -p "$T/outside" && mv "$R/$rel" "$T/outside/$(basename "$rel")" && ln -s "$T/outside/$(basename "$rel")" "$R/$rel" ;;
	huge) rm -f "$R/$rel" && truncate -s $(((1 << 30) + 1)) "$R/$rel" ;;
	esac
	timeout -s KILL 20 "$BENCH" publish --repo "$R" "$N3" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF "'$R/$rel'" "$T/err"; then
		ok "publish with $rel a $kind: exit 1, one line naming it"
	else
		not_ok "publish with $rel a $kind (exit $rc; wanted 1 and one line naming '$R/$rel')"
		show "$T/err"
	fi
	git -C "$R" log --format=%s 2>/dev/null | grep -q "h10-20261103" && not_ok "$kind $rel: the third nightly committed" ||
		ok "$kind $rel: nothing of the third nightly committed"
}
for rel in "summaries/$S1.json" "summaries/$S2.samples.json" "$V2"; do
	hostile fifo "$rel"
	hostile link "$rel"
done
hostile huge "summaries/$S1.json"
hostile huge "summaries/$S2.samples.json"
# a verdict's cap is 16 MiB
R=$T/repo-huge-verdict
cp -a "$T/base" "$R"
rm -f "$R/$V2" && truncate -s $(((16 << 20) + 1)) "$R/$V2"
timeout -s KILL 20 "$BENCH" publish --repo "$R" "$N3" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && grep -qF "'$R/$V2' is larger than" "$T/err" && ok "publish with a stored verdict of 16 MiB + 1: exit 1, named" ||
	{ not_ok "publish with a huge stored verdict (exit $rc)"; show "$T/err"; }
expect 0 "publish the third nightly into the untouched repository" "$BENCH" publish --repo "$T/base" "$N3"
expect_out "published 1 new run(s)"

# --- 2. run --resume: results/, logs/ or env/ swapped for a link after the check; nothing written outside -----------
cat >"$T/m.yaml" <<Y
bench: 1
name: h10r
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [128, 128, 128]]}
Y
BENCH_RUNNERS=$T/fake FAKE_MODE=ok "$BENCH" run -q --no-pack -o "$T/rr" "$T/m.yaml" >"$T/out" 2>"$T/err" ||
	{ not_ok "setup: a run to resume (--no-pack)"; show "$T/err"; }
BASE=$(ls -d "$T"/rr/h10r-*[0-9a-f] | head -n 1)
# the swap: at the hook after the resume check (this bench), or while strace holds the open of FILE (a bench that
# opens FILE by its path, as before)
cat >"$T/swap.sh" <<'SH'
#!/bin/sh
[ "$1" = resume-checked ] || exit 0
[ -L "$2/$SWAP_SUB" ] || { mv "$2/$SWAP_SUB" "$2/$SWAP_SUB.orig" && ln -s "$SWAP_OUT" "$2/$SWAP_SUB"; }
SH
chmod +x "$T/swap.sh"
if ! command -v strace >/dev/null 2>&1; then
	for sub in results logs env; do ok "resume with $sub/ swapped for a link # SKIP no strace"; done
else
	for sub in results logs env; do
		case $sub in
		results) file=results/gemm.jsonl ;;
		logs) file=logs/gemm.log ;;
		env) file=env/environment-resume.json.tmp ;;
		esac
		D=$T/r/$sub
		O=$T/outside-$sub
		rm -rf "$D" "$O"
		mkdir -p "$T/r" "$O"
		cp -a "$BASE" "$D"
		head -n 1 "$BASE/results/gemm.jsonl" >"$D/results/gemm.jsonl"
		cp "$D/results/gemm.jsonl" "$T/kept"
		"$PY" - "$D/status.json" <<'P'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["state"] = "interrupted"
s["cases"][1]["status"] = "interrupted"
json.dump(s, open(p, "w"))
P
		SWAP_SUB=$sub SWAP_OUT=$O BENCH_TEST_HOOK_AFTER_VERIFY=$T/swap.sh BENCH_RUNNERS=$T/fake FAKE_MODE=ok \
			strace -f -qq -o /dev/null -P "$D/$file" -e trace=openat -e inject=openat:delay_enter=3000000 \
			"$BENCH" run -q --no-pack --resume "$D" >"$T/out" 2>"$T/err" &
		pid=$!
		sleep 1.5
		[ -L "$D/$sub" ] || { mv "$D/$sub" "$D/$sub.orig" && ln -s "$O" "$D/$sub"; }
		wait "$pid"
		rc=$?
		if [ -z "$(ls -A "$O")" ]; then ok "resume with $sub/ swapped for a link: nothing written outside the run"; else
			not_ok "resume with $sub/ swapped for a link: written outside: $(ls "$O" | tr '\n' ' ')"
		fi
		if [ "$rc" != 0 ] && grep -qF "a directory in its path is a symbolic link" "$T/err"; then
			ok "$sub/: exit $rc, the file named: a directory in its path is a symbolic link"
		else
			not_ok "$sub/: exit $rc, wanted an error naming the file (a directory in its path is a symbolic link)"
			show "$T/err"
		fi
		R0=$D/results
		[ "$sub" = results ] && R0=$D/results.orig
		[ "$(head -n 1 "$R0/gemm.jsonl")" = "$(cat "$T/kept")" ] && ok "$sub/: the measured record kept" ||
			not_ok "$sub/: the measured record lost"
	done
fi

finish
