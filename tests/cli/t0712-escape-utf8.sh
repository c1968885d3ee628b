#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The terminal escaper decodes UTF-8 (issue 31): a control beside a multi-byte character (ESC, BEL, CR, a C1
# code point, a bidirectional override) is shown as \xNN by show, ls and compare, never printed raw, and what they
# print is well-formed UTF-8 whose multi-byte characters pass whole.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"

# clean FILE: well-formed UTF-8 without C0 (but newline), DEL, C1 or bidirectional controls
clean() { # description file
	if "$PY" - "$2" <<'PY'; then ok "$1: well-formed UTF-8, no control character"; else not_ok "$1 emits control characters"; show "$2"; fi
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")  # strict: invalid UTF-8 fails
bad = [c for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069
       or ord(c) == 0x61c or 0x200b <= ord(c) <= 0x200f or ord(c) in (0x2028, 0x2029, 0xfeff) or 0x2060 <= ord(c) <= 0x2064
       # review 31r2 B05: the other invisible characters, variation selectors, tags, Hangul fillers, noncharacters
       or ord(c) in (0xad, 0x34f, 0x115f, 0x1160, 0x180e, 0x3164, 0xffa0) or 0x206a <= ord(c) <= 0x206f
       or 0xfe00 <= ord(c) <= 0xfe0f or 0xfff9 <= ord(c) <= 0xfffb or 0xfdd0 <= ord(c) <= 0xfdef
       or (ord(c) & 0xfffe) == 0xfffe or 0xe0000 <= ord(c) <= 0xe007f or 0xe0100 <= ord(c) <= 0xe01ef]
sys.exit(1 if bad else 0)
PY
}
i=0
for text in '€\033]0;pwned\007\033[31mRED' 'é\r\033[2Jdone' '日本\007\033]8;;http://x\033\\' '𝄞\302\233' 'ü\342\200\256txt.exe' \
	'Ω\177\033[1A' 'ж\010\010\010ok' \
	'a\342\200\213b\342\200\214c\342\200\215d' 'l\342\200\216r\342\200\217x\330\234' 'p\342\200\250q\342\200\251r' \
	'w\342\201\240j\342\201\244k' 'bom\357\273\277z' \
	'n\357\267\220\357\277\276\363\240\201\201\364\217\277\277x' 'v\357\270\217\343\205\244\341\205\237\363\240\204\200y' \
	's\302\255\341\240\216\342\201\252\357\277\271\315\217\357\276\240z'; do
	i=$((i + 1))
	mkdir -p "$T/v$i"
	BENCH_ESC=$(printf "$text") "$PY" tests/bundle/hostile.py escape-utf8 "$T/v$i" "$BENCH_HOME" >"$T/path" || not_ok "hostile.py"
	f=$(cat "$T/path")
	expect 0 "variant $i: show" "$BENCH" show "$f"
	clean "variant $i: show" "$T/out"
	expect 0 "variant $i: compare" "$BENCH" compare "$f" "$f"
	clean "variant $i: compare" "$T/out"
	expect 0 "variant $i: ls of the bundle" "$BENCH" ls "$T/v$i"
	clean "variant $i: ls of the bundle" "$T/out"
	# the JSON outputs escape the same characters, as \uXXXX (review 31r2 B04)
	expect 0 "variant $i: show --json" "$BENCH" show --json "$f"
	clean "variant $i: show --json" "$T/out"
	expect 0 "variant $i: compare --format json" "$BENCH" compare --format json "$f" "$f"
	clean "variant $i: compare --format json" "$T/out"
	# the same texts in a run directory's plan.json and status.json
	mkdir -p "$T/r$i/run-$i"
	BENCH_ESC=$(printf "$text") "$PY" -c '
import json, os, sys
e = os.environ["BENCH_ESC"]
d = sys.argv[1]
json.dump({"name": "n" + e, "channel": "c" + e, "vendor": "cpu"}, open(d + "/plan.json", "w"))
json.dump({"state": "complete" + e, "started": "2026-01-01T00:00:00Z" + e, "cases": []}, open(d + "/status.json", "w"))
' "$T/r$i/run-$i"
	expect 0 "variant $i: ls of a run directory" "$BENCH" ls "$T/r$i"
	clean "variant $i: ls of a run directory" "$T/out"
	expect 0 "variant $i: ls --json of a run directory" "$BENCH" ls --json "$T/r$i"
	clean "variant $i: ls --json of a run directory" "$T/out"
	mkdir -p "$T/n$i" && cp -r "$T/r$i/run-$i" "$T/n$i/run-$(printf "$text" | tr -d '/')"
	expect 0 "variant $i: ls --json, the payload in a directory name" "$BENCH" ls --json "$T/n$i"
	clean "variant $i: ls --json, the payload in a directory name" "$T/out"
done
# zero-width and directional marks (review B8): escaped, as the docs list them, in show and in verify's errors
mkdir -p "$T/zw"
BENCH_ESC=$(printf 'A\342\200\213B\342\200\217C') "$PY" tests/bundle/hostile.py escape-utf8 "$T/zw" "$BENCH_HOME" >"$T/path"
f=$(cat "$T/path")
expect 0 "show of zero-width and RLM marks" "$BENCH" show "$f"
expect_out 'A\xe2\x80\x8bB\xe2\x80\x8fC'
"$PY" -c '
import json, sys
e = json.load(open(sys.argv[1])); e["signatures"][0]["keyid"] = "abc\u200f\u200d\u200e\u200b\u2028\ufeffdef"
open(sys.argv[1], "w").write(json.dumps(e))' "$f.intoto.jsonl"
expect 8 "verify with a marked key id: refused" "$BENCH" verify "$f"
clean "verify's error naming the key id" "$T/err"
expect_err 'abc\xe2\x80\x8f\xe2\x80\x8d\xe2\x80\x8e\xe2\x80\x8b\xe2\x80\xa8\xef\xbb\xbfdef'
# the set the docs list past those (review 31r2 B05), shown as \xNN
mkdir -p "$T/b05"
BENCH_ESC=$(printf 'T\363\240\201\201V\357\270\217H\343\205\244N\357\267\220S\302\255') "$PY" tests/bundle/hostile.py escape-utf8 "$T/b05" "$BENCH_HOME" >"$T/path"
expect 0 "show of a tag, a variation selector, a Hangul filler, a noncharacter, a soft hyphen" "$BENCH" show "$(cat "$T/path")"
expect_out 'T\xf3\xa0\x81\x81V\xef\xb8\x8fH\xe3\x85\xa4N\xef\xb7\x90S\xc2\xad'
# JSON keeps the same document: a run directory whose status.json error holds DEL, C1, RLO, LS and a tag comes back
# from show --json as \uXXXX escapes that a parser reads as the original text
mkdir -p "$T/j/run-j"
"$PY" -c '
import json, sys
d = sys.argv[1]
json.dump({"name": "j", "channel": "c", "vendor": "cpu"}, open(d + "/plan.json", "w"))
json.dump({"state": "complete", "started": "2026-01-01T00:00:00Z", "cases": [{"key": "k", "suite": "gemm", "status": "failed",
           "error": "E\x7f\u009b\u202e\u2028\U000e0041Z"}]}, open(d + "/status.json", "w"), ensure_ascii=False)' "$T/j/run-j"
expect 0 "show --json of a run directory with a hostile error text" "$BENCH" show --json "$T/j/run-j"
clean "show --json of a hostile error text" "$T/out"
expect_out '"E\u007f\u009b\u202e\u2028\udb40\udc41Z"'
# the multi-byte characters themselves are kept
mkdir -p "$T/keep"
BENCH_ESC=$(printf '€\033x') "$PY" tests/bundle/hostile.py escape-utf8 "$T/keep" "$BENCH_HOME" >"$T/path"
expect 0 "show keeps a multi-byte character" "$BENCH" show "$(cat "$T/path")"
expect_out 'TFLOP/s€\x1bx'
finish
