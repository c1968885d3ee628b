#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the review r31t (rows 55-57, 60-62, 65): bench run --resume never writes through a symbolic link in
# the run directory (.bench-reserve, the temporary files, results/, logs/, cases/) and never blocks on a FIFO there
# (plan.json, status.json, results, logs, the lock); bench gc never blocks on a FIFO status.json or image.json; a key
# file (trusted/*.pem, --key, signing.key.pem, signing.pub.pem) is opened without blocking, capped at 1 MiB by its size
# before it is read, and a bad own signing.pub.pem is named in a warning; bench pack's temporary files are created anew,
# never written through a link named like them. Every command that could block runs under timeout, so that a
# regression fails instead of hanging.
. "$(dirname "$0")/lib.sh"
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
cat >"$T/m.yaml" <<Y
bench: 1
name: h7
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [128, 128, 128]]}
Y
BENCH_RUNNERS=$T/fake FAKE_MODE=ok "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml" >"$T/out" 2>"$T/err" ||
	{ not_ok "setup: a run to resume (--no-pack)"; show "$T/err"; }
BASE=$(ls -d "$T"/runs/h7-*[0-9a-f] | head -n 1)

# tb: timeout for a command that may block (TERM after 20 s, KILL 5 s later: plan.json's FIFO ignored TERM)
tb() { timeout -k 5 20 "$@"; }

# fresh NAME: a copy of the run, interrupted with no record kept (every case is measured again on --resume)
fresh() {
	D="$T/r/$1"
	rm -rf "$D"
	mkdir -p "$T/r"
	cp -a "$BASE" "$D"
	: >"$D/results/gemm.jsonl"
	python3 - "$D/status.json" <<'P'
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["state"] = "interrupted"
for c in s["cases"]:
    c["status"] = "interrupted"
json.dump(s, open(p, "w"))
P
}

# victim FILE: a file of the user's outside the run directory
victim() { printf 'precious contents\n' >"$1"; }
intact() { # DESC FILE
	if [ "$(cat "$2")" = "precious contents" ]; then ok "$1"; else not_ok "$1 (now $(wc -c <"$2") bytes)"; fi
}

# resume_refused DESC TEXT [VICTIM]: bench run --resume "$D" exits 1 at once, its message holding TEXT, and the file
# VICTIM (outside the run directory) still holds what victim wrote
resume_refused() {
	BENCH_RUNNERS=$T/fake FAKE_MODE=ok tb "$BENCH" run -q --no-pack --resume "$D" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -qF -- "$2" "$T/err" && { [ -z "${3:-}" ] || [ "$(cat "$3")" = "precious contents" ]; }; then
		ok "$1: exit 1, $2${3:+, the file behind untouched}"
	else
		[ -n "${3:-}" ] && echo "# the file behind: $(wc -c <"$3") bytes"
		case $rc in 124 | 137) why=", blocked until killed" ;; *) why= ;; esac
		not_ok "$1 (exit $rc$why; wanted exit 1 and: $2)"
		show "$T/err"
	fi
}

# --- 1. --resume never writes through a link in the run directory ------------------------------------------------
fresh reserve-link
victim "$T/victim1"
ln -s "$T/victim1" "$D/.bench-reserve"
resume_refused "--resume with .bench-reserve a link to a file" "'$D/.bench-reserve' is a symbolic link" "$T/victim1"
[ -L "$D/.bench-reserve" ] && ok "the link itself is left where it was" || not_ok "the link was removed"

fresh reserve-zero
ln -s /dev/zero "$D/.bench-reserve"
resume_refused "--resume with .bench-reserve a link to /dev/zero" "'$D/.bench-reserve' is a symbolic link"

fresh reserve-fifo
mkfifo "$D/.bench-reserve"
resume_refused "--resume with .bench-reserve a FIFO (no block)" "'$D/.bench-reserve' is not a regular file"

fresh reserve-dir
mkdir "$D/.bench-reserve"
resume_refused "--resume with .bench-reserve a directory" "'$D/.bench-reserve'"

fresh status-tmp
victim "$T/victim2"
ln -s "$T/victim2" "$D/status.json.tmp"
resume_refused "--resume with status.json.tmp a link to a file" "'$D/status.json.tmp' is a symbolic link" "$T/victim2"

fresh lock-tmp
victim "$T/victim3"
ln -s "$T/victim3" "$D/.bench-lock.tmp"
BENCH_RUNNERS=$T/fake FAKE_MODE=ok tb "$BENCH" run -q --no-pack --resume "$D" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] && [ "$(cat "$T/victim3")" = "precious contents" ] &&
	ok "--resume with .bench-lock.tmp a link to a file: completes, the lock file made anew, the file behind untouched" ||
	{ not_ok "--resume with .bench-lock.tmp a link (exit $rc, the file behind now $(wc -c <"$T/victim3") bytes)"; show "$T/err"; }

fresh log-link
victim "$T/victim4"
rm -f "$D/logs/gemm.log"
ln -s "$T/victim4" "$D/logs/gemm.log"
resume_refused "--resume with logs/gemm.log a link to a file" "'$D/logs/gemm.log' is a symbolic link" "$T/victim4"

fresh results-link
printf '{"case": "x", "status": "ok", "value": 1}\n' >"$T/foreign.jsonl"
rm -f "$D/results/gemm.jsonl"
ln -s "$T/foreign.jsonl" "$D/results/gemm.jsonl"
resume_refused "--resume with results/gemm.jsonl a link to a file outside" "'$D/results/gemm.jsonl' is a symbolic link"

for sub in results cases; do
	fresh "$sub-dir-link"
	mkdir -p "$T/outside-$sub"
	rm -rf "${D:?}/$sub"
	ln -s "$T/outside-$sub" "$D/$sub"
	resume_refused "--resume with $sub/ a link to a directory outside" "'$D/$sub' is a symbolic link"
	[ -z "$(ls -A "$T/outside-$sub")" ] && ok "nothing written into the directory behind $sub/" ||
		not_ok "files written outside the run: $(ls "$T/outside-$sub")"
done

# --- 2. --resume never blocks on what is not a regular file ----------------------------------------------------------
fresh plan-fifo
rm "$D/plan.json"
mkfifo "$D/plan.json"
resume_refused "--resume with plan.json a FIFO (no block)" "'$D/plan.json' is not a regular file"

fresh plan-zero
rm "$D/plan.json"
ln -s /dev/zero "$D/plan.json"
resume_refused "--resume with plan.json a link to /dev/zero" "'$D/plan.json': a symbolic link (not followed)"

fresh plan-dir
rm "$D/plan.json"
mkdir "$D/plan.json"
resume_refused "--resume with plan.json a directory" "'$D/plan.json' is not a regular file"

fresh status-fifo
rm "$D/status.json"
mkfifo "$D/status.json"
resume_refused "--resume with status.json a FIFO (no block)" "'$D/status.json' is not a regular file"

fresh status-zero
rm "$D/status.json"
ln -s /dev/zero "$D/status.json"
resume_refused "--resume with status.json a link to /dev/zero" "'$D/status.json': a symbolic link (not followed)"

fresh results-fifo
rm "$D/results/gemm.jsonl"
mkfifo "$D/results/gemm.jsonl"
resume_refused "--resume with results/gemm.jsonl a FIFO" "'$D/results/gemm.jsonl' is not a regular file"

fresh log-fifo
rm -f "$D/logs/gemm.log"
mkfifo "$D/logs/gemm.log"
resume_refused "--resume with logs/gemm.log a FIFO (no block)" "'$D/logs/gemm.log' is not a regular file"

fresh lockfile-fifo
mkfifo "$D/manifest.lock.json"
resume_refused "--resume with manifest.lock.json a FIFO (no block)" "'$D/manifest.lock.json' is not a regular file"

fresh ok
BENCH_RUNNERS=$T/fake FAKE_MODE=ok tb "$BENCH" run -q --no-pack --resume "$D" >"$T/out" 2>"$T/err" ||
	{ not_ok "an ordinary interrupted run no longer resumes"; show "$T/err"; }

# check CODE DESC TEXT CMD...: CMD (under tb) exits CODE and its stderr holds TEXT ("" for none)
check() {
	want=$1 desc=$2 text=$3
	shift 3
	tb "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$text" ] || grep -qF -- "$text" "$T/err"; }; then ok "$desc"; else
		case $rc in 124 | 137) why=", blocked until killed" ;; *) why= ;; esac
		not_ok "$desc (exit $rc$why; wanted exit $want${text:+ and: $text})"
		show "$T/err"
	fi
}

# --- 3. gc never blocks on a run directory's status.json or image.json, nor on a cache's .lock ----------------------
G="$T/gc"
mkdir -p "$G/h7-20261202T000000Z-abcdef" "$G/h7-20261201T000000Z-abcdef"
mkfifo "$G/h7-20261202T000000Z-abcdef/status.json"
check 0 "gc --keep 0 --dry-run with status.json a FIFO: no block" "" "$BENCH" gc --keep 0 --dry-run "$G"
mkdir -p "$G/h7-20261202T000000Z-abcdef/image"
mkfifo "$G/h7-20261202T000000Z-abcdef/image/image.json"
check 0 "gc --caches --dry-run of a kept run whose image/image.json is a FIFO: no block" "" \
	"$BENCH" gc --keep 1 --caches --dry-run "$G"
mkdir -p "$BENCH_HOME/cache/build/h7-0123456789abcdef0123"
mkfifo "$BENCH_HOME/cache/build/h7-0123456789abcdef0123/.lock"
check 0 "gc --caches --dry-run with a build context's .lock a FIFO: no block" "" \
	"$BENCH" gc --keep 1 --caches --dry-run "$G"
rm -rf "$BENCH_HOME/cache/build/h7-0123456789abcdef0123"
check 0 "gc --keep 0 with status.json a FIFO: no block" "" "$BENCH" gc --keep 0 "$G"
[ -e "$G/h7-20261202T000000Z-abcdef" ] && not_ok "gc --keep 0: the run with a FIFO status.json was not removed" ||
	ok "gc --keep 0: the run with a FIFO status.json was removed"

# --- 4. key files: no block, a size cap checked before reading -------------------------------------------------------
KR="$T/k/h7-20261202T000000Z-abcdef"
mkdir -p "$KR"
cp "$T/m.yaml" "$KR/manifest.yaml"
echo '{"schema":"bench.status/v1","run":"h7","state":"complete","started":"2026-12-02T00:00:00Z","finished":"2026-12-02T00:00:01Z","cases":[]}' >"$KR/status.json"
"$BENCH" pack "$KR" >/dev/null 2>&1 || not_ok "setup: pack a small run directory"
B="$KR.bench.tar.gz"
H2="$T/h2"
mkdir -p "$H2/trusted"
cp "$BENCH_HOME/signing.pub.pem" "$H2/trusted/me.pem"
truncate -s 2G "$H2/trusted/huge.pem"
BENCH_HOME=$H2 check 0 "verify with a 2 GiB trusted key beside the right one: skipped by its size, not read" \
	"warning: trusted key skipped: cannot open key '$H2/trusted/huge.pem': 2147483648 bytes, larger than the 1024 KiB a PEM key may hold" \
	"$BENCH" verify "$B"
BENCH_HOME=$H2 check 0 "ls of the bundle with a 2 GiB trusted key: not read to its end" "" "$BENCH" ls "$T/k"
rm "$H2/trusted/huge.pem"
truncate -s 2G "$T/huge-elsewhere.pem"
ln -s "$T/huge-elsewhere.pem" "$H2/trusted/link.pem"
BENCH_HOME=$H2 check 0 "verify with a trusted key linked to a 2 GiB file: skipped by its size" \
	"trusted key skipped: cannot open key '$H2/trusted/link.pem': 2147483648 bytes, larger than" "$BENCH" verify "$B"
rm "$H2/trusted/link.pem"
head -c 1048577 /dev/zero >"$H2/trusted/over.pem"
BENCH_HOME=$H2 check 0 "verify with a trusted key one byte over 1 MiB: skipped by its size" \
	"cannot open key '$H2/trusted/over.pem': 1048577 bytes, larger than the 1024 KiB a PEM key may hold" "$BENCH" verify "$B"
rm "$H2/trusted/over.pem"
check 8 "verify --key of a 2 GiB file: refused by its size (exit 8)" \
	"cannot open key '$T/huge-elsewhere.pem': 2147483648 bytes, larger than the 1024 KiB a PEM key may hold" \
	"$BENCH" verify --key "$T/huge-elsewhere.pem" "$B"

# --- 5. the signing key: no block, the same cap ---------------------------------------------------------------------
H3="$T/h3"
mkdir -p "$H3"
chmod 700 "$H3"
cp "$BENCH_HOME/signing.pub.pem" "$H3/"
mkfifo -m 600 "$H3/signing.key.pem"
BENCH_HOME=$H3 check 1 "pack with signing.key.pem a FIFO (mode 0600): refused, no block" \
	"cannot open the signing key '$H3/signing.key.pem': not a regular file" "$BENCH" pack "$KR"
rm "$H3/signing.key.pem"
truncate -s 8G "$H3/signing.key.pem"
chmod 600 "$H3/signing.key.pem"
BENCH_HOME=$H3 check 1 "pack with an 8 GiB signing.key.pem: refused by its size" \
	"cannot open the signing key '$H3/signing.key.pem': 8589934592 bytes, larger than the 1024 KiB a PEM key may hold" \
	"$BENCH" pack "$KR"
rm "$H3/signing.key.pem"
ln -s /dev/zero "$H3/signing.key.pem"
BENCH_HOME=$H3 check 1 "pack with signing.key.pem a link to /dev/zero: refused as not a regular file" \
	"cannot open the signing key '$H3/signing.key.pem': not a regular file" "$BENCH" pack "$KR"
rm "$H3/signing.key.pem"
mkdir -m 700 "$H3/signing.key.pem"
BENCH_HOME=$H3 check 1 "pack with signing.key.pem a directory: refused as not a regular file" \
	"cannot open the signing key '$H3/signing.key.pem': not a regular file" "$BENCH" pack "$KR"

# --- 6. an own signing.pub.pem that is not a key is named, as a trusted/*.pem is --------------------------------------
H4="$T/h4"
mkdir -p "$H4/trusted"
cp "$BENCH_HOME/signing.pub.pem" "$H4/trusted/me.pem"
mkfifo "$H4/signing.pub.pem"
BENCH_HOME=$H4 check 0 "verify with signing.pub.pem a FIFO: verified by trusted/, the FIFO named" \
	"warning: trusted key skipped: cannot open key '$H4/signing.pub.pem': not a regular file" "$BENCH" verify "$B"
rm "$H4/signing.pub.pem"
mkdir "$H4/signing.pub.pem"
BENCH_HOME=$H4 check 0 "verify with signing.pub.pem a directory: named" \
	"warning: trusted key skipped: cannot open key '$H4/signing.pub.pem': not a regular file" "$BENCH" verify "$B"
rmdir "$H4/signing.pub.pem"
truncate -s 2G "$H4/signing.pub.pem"
BENCH_HOME=$H4 check 0 "verify with a 2 GiB signing.pub.pem: named, not read to its end" \
	"warning: trusted key skipped: cannot open key '$H4/signing.pub.pem': 2147483648 bytes, larger than" "$BENCH" verify "$B"
rm "$H4/signing.pub.pem"
ln -s /dev/zero "$H4/signing.pub.pem"
BENCH_HOME=$H4 check 0 "verify with signing.pub.pem a link to /dev/zero: named" \
	"warning: trusted key skipped: cannot open key '$H4/signing.pub.pem': not a regular file" "$BENCH" verify "$B"
rm -f "$H4/signing.pub.pem" "$H4/trusted/me.pem"
mkfifo "$H4/signing.pub.pem"
BENCH_HOME=$H4 check 8 "verify with only a FIFO signing.pub.pem: named, then no key to verify with (exit 8)" \
	"trusted key skipped: cannot open key '$H4/signing.pub.pem': not a regular file" "$BENCH" verify "$B"

# --- 7. bench pack's own temporary files (a scrubbed log, the bundle, the envelope) are new files, never a link --------
P="$T/p/h7-20261202T000000Z-abcdef"
mkdir -p "$P/logs"
cp "$KR/manifest.yaml" "$KR/status.json" "$P/"
echo "token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789" >"$P/logs/gemm.log"
victim "$T/victim5"
ln -s "$T/victim5" "$P/logs/gemm.log.tmp"
check 0 "pack a run directory whose log to scrub has a link named like its temporary file" "" "$BENCH" pack "$P"
intact "the file behind logs/gemm.log.tmp is untouched" "$T/victim5"
[ -f "$P/logs/gemm.log" ] && ! [ -L "$P/logs/gemm.log" ] && grep -q "token <redacted>" "$P/logs/gemm.log" &&
	ok "the log is scrubbed in place, still a regular file" || not_ok "the scrubbed log is not where it was"
P2="$T/p2/h7-20261202T000000Z-abcdef"
mkdir -p "$P2"
cp "$KR/manifest.yaml" "$KR/status.json" "$P2/"
victim "$T/victim6"
victim "$T/victim7"
ln -s "$T/victim6" "$P2.bench.tar.gz.tmp"
ln -s "$T/victim7" "$P2.bench.tar.gz.intoto.jsonl.tmp"
tb "$BENCH" pack "$P2" >"$T/out" 2>"$T/err" || { not_ok "pack with links named like its temporary files failed"; show "$T/err"; }
intact "pack: the file behind <run>.bench.tar.gz.tmp is untouched" "$T/victim6"
intact "pack: the file behind <run>.bench.tar.gz.intoto.jsonl.tmp is untouched" "$T/victim7"
[ -f "$P2.bench.tar.gz" ] && ! [ -L "$P2.bench.tar.gz" ] && "$BENCH" verify "$P2.bench.tar.gz" >/dev/null 2>&1 ||
	not_ok "the bundle packed beside those links is not a regular file that verifies"

finish
