# SPDX-License-Identifier: Apache-2.0
# tests/cli/lib.sh — a small TAP library for CLI tests. Source it; then call expect/expect_err/... and end
# with finish. $BENCH is the binary under test; $T is a fresh scratch directory removed at the end.
set -u
: "${BENCH:?set BENCH to the bench binary}"
T=$(mktemp -d)
# every test signs with its own throw-away key
export BENCH_HOME="$T/bench-home"
t_n=0
t_fail=0
# SLOW: what a bound on a command's time (a guard against a quadratic path, not a performance figure) is multiplied
# by: 10 for a sanitizer build of bench (make asan: several times slower), else 1
SLOW=1
grep -q __asan_init "$BENCH" 2>/dev/null && SLOW=10

# TEST_STEP_TIMES=1: after each check a line "# +S s" with the seconds since the previous one (where a test's time goes)
t_last=
[ -n "${TEST_STEP_TIMES:-}" ] && t_last=$(date +%s.%N)
step_time() {
	[ -n "$t_last" ] || return 0
	t_now=$(date +%s.%N)
	awk -v a="$t_last" -v b="$t_now" 'BEGIN { printf "# +%.1f s\n", b - a }'
	t_last=$t_now
}
ok() { t_n=$((t_n + 1)); echo "ok $t_n - $*"; step_time; }
not_ok() { t_n=$((t_n + 1)); t_fail=$((t_fail + 1)); echo "not ok $t_n - $*"; step_time; }
flip_byte() { # file offset: invert one byte in place (past the end: append one), so the file always changes
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); o = int(sys.argv[2]); f.seek(o); b = f.read(1); f.seek(o); f.write(bytes([b[0] ^ 0xff]) if b else b"\x01")' "$1" "$2"
}
show() { sed 's/^/#   /' "$1" | head -n 20; }

# expect CODE DESCRIPTION CMD...: runs CMD, keeps stdout in $T/out and stderr in $T/err, checks the exit code.
expect() {
	want=$1 desc=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else
		not_ok "$desc (exit $rc, wanted $want)"
		show "$T/err"
	fi
}

# expect_err TEXT / expect_out TEXT: the last command's stderr / stdout contains TEXT (fixed string).
expect_err() { if grep -qF -- "$1" "$T/err"; then ok "stderr: $1"; else not_ok "stderr lacks: $1"; show "$T/err"; fi; }
expect_out() { if grep -qF -- "$1" "$T/out"; then ok "stdout: $1"; else not_ok "stdout lacks: $1"; show "$T/out"; fi; }
expect_no_out() { if [ -s "$T/out" ]; then not_ok "stdout should be empty"; show "$T/out"; else ok "stdout empty"; fi; }

# refused DESCRIPTION REASON CMD...: CMD refuses a bundle: exit 8, REASON (fixed string) on stderr.
refused() { # description reason-text command...
	desc=$1 reason=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 8 ] && grep -qF -- "$reason" "$T/err"; then ok "$desc: exit 8, $reason"; else
		not_ok "$desc (exit $rc)"
		show "$T/err"
	fi
}

# fake_gemm: $T/fake/bench-gemm is tests/fake/fake-runner.py (BENCH_RUNNERS=$T/fake runs it; FAKE_MODE steers it).
fake_gemm() {
	mkdir -p "$T/fake"
	ln -sf "$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py" "$T/fake/bench-gemm"
}

# expect_same DESCRIPTION EXPECTED ACTUAL: files are byte-identical.
expect_same() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		not_ok "$1"
		diff -u "$2" "$3" | head -n 30 | sed 's/^/#   /'
	fi
}

# serve_dir DIR PROBE: serves DIR over HTTP on a free loopback port (a PEP 503 index for the lock tests) and
# waits until PROBE (a path under it) answers; sets $port and $srv (kill "$srv" when done).
serve_dir() {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	(cd "$1" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
	srv=$!
	n=0
	until python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/$2')" 2>/dev/null || [ $n -gt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}

finish() {
	[ -d "$T/headless" ] && python3 "$HEADLESS_PY" "$T/headless" --quit
	rm -rf "$T"
	echo "1..$t_n"
	[ "$t_fail" -eq 0 ]
}

# headless [--window-size=W,H] [--hide-scrollbars] (--dump-dom | --screenshot=FILE) URL: what chromium --headless
# --no-sandbox --disable-gpu does with these, through one chromium for all of the test's pages (tests/cli/headless.py:
# started on first use, ended by finish; a page's viewport is exactly W x H, where chromium's own window would be at
# least 500 wide and hold its frame)
HEADLESS_PY=$(cd "$(dirname "$0")" && pwd)/headless.py
HEADLESS_OWNER=$$
export HEADLESS_OWNER
headless() { python3 "$HEADLESS_PY" "$T/headless" "$@"; }

# dom_measure PAGE JS OUT: a test-only copy of PAGE (beside it, removed after) with a script before </body>; JS
# pushes lines onto the array r. Chromium loads the copy at 1400x900 and at 390x844 (a phone) and the lines land in
# OUT-1400,900.txt and OUT-390,844.txt. The pages themselves carry no script.
dom_measure() {
	python3 - "$1" "$1.measure.html" "$2" <<'PY'
import sys
h = open(sys.argv[1]).read()
js = ("<script>var r=[];" + sys.argv[3] + "var p=document.createElement('pre');p.id='measure';"
      "p.textContent=r.join(String.fromCharCode(10));document.body.appendChild(p);</script>")
open(sys.argv[2], "w").write(h.replace("</body>", js + "</body>"))
PY
	for ws in 1400,900 390,844; do
		headless --window-size=$ws --dump-dom "file://$1.measure.html" 2>/dev/null |
			sed -n '/<pre id="measure">/,/<\/pre>/p' | sed 's/<[^>]*>//g' >"$3-$ws.txt"
	done
	rm -f "$1.measure.html"
}

# records_ok RUN_DIR MIN: every record of RUN_DIR/results/*.jsonl is ok, and there are at least MIN of them; the
# count (or what is wrong) in $T/check.out
records_ok() {
	python3 - "$1" "$2" >"$T/check.out" 2>&1 <<'PY'
import glob, json, sys
recs = [json.loads(l) for f in sorted(glob.glob(sys.argv[1] + "/results/*.jsonl")) for l in open(f) if l.strip()]
bad = [(r["suite"], r["case"], r["status"], r.get("error")) for r in recs if r["status"] != "ok"]
assert len(recs) >= int(sys.argv[2]) and not bad, (len(recs), bad)
print(len(recs), "records, every one ok")
PY
}

# mpi_env: Open MPI as these tests run it, as root on a small machine: oversubscribed, no single-copy mechanism;
# MPIRUN and MPIOPTS for a direct mpirun. Open MPI's components keep allocations past MPI_Finalize: under
# `make asan` leak detection stays on for every other program but not for MPI ranks.
mpi_env() {
	MPIRUN=$(command -v mpirun)
	MPIOPTS="--oversubscribe"
	[ "$(id -u)" = 0 ] && MPIOPTS="$MPIOPTS --allow-run-as-root"
	export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
	[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
	return 0
}

# torch_python: PY = the first of $BENCH_PYTHON, python3 and /usr/bin/python3 that has torch installed,
# TORCH_VERSION its torch's version, read from its distribution's metadata (30 ms; an import of Debian's torch is
# 1.5 s of CPU), or from torch itself where it has none; fails (PY empty) when none has it. A torch that is there but
# does not import is chosen all the same: the test's own scripts import it, and fail saying why.
torch_python() {
	PY= TORCH_VERSION=
	for c in ${BENCH_PYTHON:-} python3 /usr/bin/python3; do
		command -v "$c" >/dev/null 2>&1 || continue
		TORCH_VERSION=$("$c" -c "import importlib.metadata as m, importlib.util as u
if not u.find_spec('torch'): exit(1)
try: print(m.version('torch'))
except m.PackageNotFoundError: import torch; print(torch.__version__)  # a torch without metadata (a source tree)" \
			2>/dev/null) && PY=$c && break
	done
	[ -n "$PY" ]
}

# need_torch_python: torch_python and a test naming it and its torch; without one, a failed test ends the file.
need_torch_python() {
	torch_python || { not_ok "no python3 with torch (install python3-torch)"; finish; exit 1; }
	ok "python with torch: $PY ($TORCH_VERSION)"
}

# python_tap FILE: runs FILE with $PY; the TAP it prints becomes ours (each ok / not ok a test of this file, its
# comments passed on), then one test more: that FILE exited 0 (else its stderr is shown).
python_tap() {
	"$PY" "$1" >"$T/py.tap" 2>"$T/py.err"
	py_rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "python: ${line#ok * - }" ;;
		"not ok "*) not_ok "python: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$T/py.tap"
	[ "$py_rc" = 0 ] && ok "$1 exited 0" || { not_ok "$1 exited $py_rc"; show "$T/py.err"; }
}
