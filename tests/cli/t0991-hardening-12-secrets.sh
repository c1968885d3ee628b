#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The twelfth review's secrets checks (r31N B7-B9), each planted in a run directory that `bench pack` scrubs and
# read back from the bundle:
#  B7 a credential quoted on a command line, holding a space (curl --user="alice:a b"): the redaction ran to the
#     space, the rest of the password was signed into the bundle. Now up to the closing quote, for every rule whose
#     value a shell quotes (curl's and wget's user options, --password 'a b', -p'a b', KEY='a b', a secret key inside
#     a quoted word, Authorization and other credential headers, URL userinfo, user:password@host, .netrc); a line
#     of 200 KB full of quotes is scrubbed in one pass (counted, not timed).
#  B8 a YAML block scalar under a secret key (password: >-, secret: |, token: |-, |2, >+): only the indicator was
#     redacted, the value on the lines after it kept. Now every line more indented than the key goes.
#  B9 a valid JSON document or JSONL record holding "\u0000" was scrubbed as text, and a private key block without
#     its END line then took the rest of it: the file was no longer JSON. Now decoded with the NUL, scrubbed string
#     by string, still JSON with the other keys; in text, a key cut off inside a JSON string ends at its quote.
. "$(dirname "$0")/lib.sh"
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
printf 'bench: 1\nname: sec12\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32], [16, 16, 16]]}\n' >"$T/m.yaml"
BENCH_RUNNERS=$T/fake expect 0 "a run to pack by hand (--no-pack)" "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml"
R=$(ls -d "$T"/runs/sec12-*[0-9a-f] | head -n 1)
N=$(basename "$R")
# B7 and B8: name, the text planted, the secrets that must go, what must stay (the user, the next argument, ...)
cat >"$T/variants.py" <<'PY'
Q = [
    ("q01", 'curl --user="alice:pwQA1 spQA1x" https://keepA.example', ["pwQA1", "spQA1x"],
     ['--user="alice:<redacted>"', "https://keepA.example"]),
    ("q02", "curl -u 'bob:pwQB1 spQB1x' https://keepB.example", ["pwQB1", "spQB1x"],
     ["-u 'bob:<redacted>'", "https://keepB.example"]),
    ("q03", "curl -sS -u'carol:pwQC1 spQC1x' https://keepC.example", ["pwQC1", "spQC1x"],
     ["-u'carol:<redacted>'", "https://keepC.example"]),
    # a quote escaped inside double quotes, and the shell's '\'' inside single quotes
    ("q04", 'curl --user "dave:pwQD1\\"esc spQD1x" https://keepD.example', ["pwQD1", "spQD1x", "esc"],
     ['--user "dave:<redacted>"', "https://keepD.example"]),
    ("q05", "curl -u 'erin:pwQE1'\\''esc spQE1x' https://keepE.example", ["pwQE1", "spQE1x", "esc"],
     ["-u 'erin:<redacted>'", "https://keepE.example"]),
    ("q06", "curl -u alice:'pwQF1 spQF1x' https://keepF.example", ["pwQF1", "spQF1x"],
     ["-u alice:'<redacted>'", "https://keepF.example"]),
    ("q07", "wget --password 'pwQG1 spQG1x' https://keepG.example", ["pwQG1", "spQG1x"],
     ["--password '<redacted>'", "https://keepG.example"]),
    ("q08", 'wget --password="pwQH1 spQH1x" --user=keepH', ["pwQH1", "spQH1x"], ["--user=keepH"]),
    ("q09", "mysql -u root -p'pwQI1 spQI1x' keepIdb", ["pwQI1", "spQI1x"], ["-p'<redacted>'", "keepIdb"]),
    ("q10", 'mysql -p"pwQJ1 spQJ1x" -h keepJ.example', ["pwQJ1", "spQJ1x"], ['-p"<redacted>"', "keepJ.example"]),
    ("q11", 'sshpass -p "pwQK1 spQK1x" ssh keepK.example', ["pwQK1", "spQK1x"], ['-p "<redacted>"', "keepK.example"]),
    ("q12", "env DB_PASSWORD='pwQL1'\\''spQL1x tailQL1x' keepL", ["pwQL1", "spQL1x", "tailQL1x"],
     ["DB_PASSWORD='<redacted>'", "keepL"]),
    # a secret key inside a quoted word, and credential headers
    ("q13", 'curl -d "password=pwQM1 spQM1x" https://keepM.example', ["pwQM1", "spQM1x"],
     ['"password=<redacted>"', "https://keepM.example"]),
    ("q14", 'curl -H "X-Api-Key: pwQN1 spQN1x" https://keepN.example', ["pwQN1", "spQN1x"],
     ["https://keepN.example"]),
    ("q15", "curl -H 'Authorization: Digest username=\"u\", response=\"pwQO1 spQO1x\"' https://keepO.example",
     ["pwQO1", "spQO1x"], ["https://keepO.example"]),
    # URL userinfo and user:password@host, quoted with a space in the password
    ("q16", 'git clone "https://alice:pwQP1 spQP1x@keepP.example/r" there', ["pwQP1", "spQP1x"],
     ['"https://<redacted>@keepP.example/r"', "there"]),
    ("q17", 'mysqlsh "alice:pwQR1 spQR1x@keepR.example:3306" now', ["pwQR1", "spQR1x"],
     ['"<redacted>@keepR.example:3306"', "now"]),
    ("q18", 'machine keepS.example login bob password "pwQS1 spQS1x"', ["pwQS1", "spQS1x"],
     ['password "<redacted>"', "keepS.example"]),
    ("q19", "tool --token 'pwQT1 spQT1x' --keep keepT", ["pwQT1", "spQT1x"], ["--token '<redacted>'", "keepT"]),
    # a command line inside a JSON string (its quotes escaped), and a quote never closed (cut off: all of it)
    ("q20", 'curl -u \\"alice:pwQU1 spQU1x\\" https://keepU.example', ["pwQU1", "spQU1x"],
     ['\\"alice:<redacted>\\"', "https://keepU.example"]),
    ("q21", 'curl -u "frank:pwQV1 spQV1x', ["pwQV1", "spQV1x"], ['curl -u "frank:<redacted>']),
]
Y = [
    ("y1", "password: >-\n  pwYamlA1\n  pwYamlA2 more\nkeepA: keepYamlA\n", ["pwYamlA1", "pwYamlA2"],
     ["password: >-\n", "keepA: keepYamlA"]),
    # blank lines inside the block
    ("y2", "secret: |\n  pwYamlB1\n\n  pwYamlB2\n   \n  pwYamlB3\nkeepB: keepYamlB\n", ["pwYamlB1", "pwYamlB2", "pwYamlB3"],
     ["secret: |\n", "keepB: keepYamlB"]),
    # in a list: the sibling key at the key's column is not the value
    ("y3", "steps:\n  - token: |-\n      pwYamlC1\n      pwYamlC2\n    keepC: keepYamlC\n", ["pwYamlC1", "pwYamlC2"],
     ["- token: |-\n", "    keepC: keepYamlC"]),
    ("y4", '"api_key": >+\n    pwYamlD1\n\nkeepD: keepYamlD\n', ["pwYamlD1"], ['"api_key": >+\n', "keepD: keepYamlD"]),
    ("y5", "db:\n  password: |2\n     pwYamlE1\n  keepE: keepYamlE\n", ["pwYamlE1"], ["password: |2\n", "  keepE: keepYamlE"]),
    ("y6", "password: | # the db's\n  pwYamlF1\nkeepF: keepYamlF\n", ["pwYamlF1"], ["keepF: keepYamlF"]),
    # at the end of the file, no newline after it
    ("y7", "keepG: keepYamlG\ntoken: >-\n  pwYamlG1\n  pwYamlG2", ["pwYamlG1", "pwYamlG2"], ["keepG: keepYamlG", "token: >-\n"]),
    ("y8", "password: |\r\n  pwYamlH1\r\nkeepH: keepYamlH\r\n", ["pwYamlH1"], ["keepH: keepYamlH\r\n"]),
]
PY
# plant: B7 as lines of a log, B8 as a log each (y7 ends its file); both in each record (extra.plant) and in
# env/environment.json ("plant"); the 200 KB lines in a log of their own
python3 - "$R" "$T/variants.py" <<'PY'
import json, sys
exec(open(sys.argv[2]).read())
d = sys.argv[1]
with open(d + "/logs/plant-quoted.log", "w") as f:
    for name, text, gone, kept in Q:
        f.write("%s %s\n" % (name, text))
for name, text, gone, kept in Y:
    open("%s/logs/plant-%s.log" % (d, name), "w", newline="").write(text)
with open(d + "/logs/plant-long.log", "w") as f:
    f.write('--user="u:pwLin spLin" ' * 9000 + "\n")  # 198 KB: 9000 passwords
    f.write('"a:b ' * 40000 + "\n")                    # quotes without an end: kept
    f.write('-u "a\\" ' * 25000 + "\n")
    f.write("'u:\\'" * 40000 + "\n")
plant = {name: text for name, text, gone, kept in Q + Y}
p = d + "/results/gemm.jsonl"
recs = [json.loads(l) for l in open(p)]
for r in recs:
    r.setdefault("extra", {})["plant"] = plant
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
env = json.load(open(d + "/env/environment.json"))
env["plant"] = plant
json.dump(env, open(d + "/env/environment.json", "w"))
PY
# B9: JSON documents and JSONL records holding "\u0000" (legal JSON), a private key cut off in a string
python3 - "$R" <<'PY'
import json, sys
d = sys.argv[1]
pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEApwJson"
open(d + "/zz-nul.json", "w").write(
    '{"a": "x\\u0000y", "note": "%sA1", "after": "kept-data", "n": 42}' % pem.replace("\n", "\\n"))
open(d + "/zz-nul2.json", "w").write('{"a": "x\\u0000y", "password": "pwJsonB1", "after": "kept-data"}')
# what follows a NUL is part of the value: "<redacted>\u0000..." is not <redacted>
open(d + "/zz-nul3.json", "w").write('{"password": "<redacted>\\u0000pwJsonC1", "b": "kept-data"}')
# a top-level array
open(d + "/zz-arr.json", "w").write(
    '[{"a": "x\\u0000y", "note": "%sD1"}, "kept\\u0000str", 42, {"token": "pwJsonD2"}]' % pem.replace("\n", "\\n"))
# a key holding \u0000 (which the decoder refuses): scrubbed as text, the key cut off at its quote, still JSON
open(d + "/logs/zz-nulkey.json", "w").write(
    '{"k\\u0000ey": 1, "note": "%sE1", "after": "kept-data"}' % pem.replace("\n", "\\n"))
# every record holds a NUL; the first a key cut off, the second a password
p = d + "/results/gemm.jsonl"
recs = [json.loads(l) for l in open(p)]
for i, r in enumerate(recs):
    r["extra"]["nul"] = "x\x00y%d" % i
recs[0]["extra"]["note"] = pem + "F1"
recs[0]["extra"]["after"] = "kept-data"
recs[1]["extra"]["password"] = "pwJsonF2"
open(p, "w").write("".join(json.dumps(r) + "\n" for r in recs))
# text: a key cut off inside a JSON string on a log line, the lines after it kept; a key cut off at the end of the
# text (a truncated log): its body lines go
open(d + "/logs/zz-text.log", "w").write(
    '{"note": "%sTxtA1", "after": "keepTxtA"}\nnext line keepTxtB\n'
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1pwJsonTxtC1\npwJsonTxtC2\n' % pem.replace("\n", "\\n"))
PY
expect 0 "pack the run directory holding the planted secrets" "$BENCH" pack "$R"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$R.bench.tar.gz"
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$R.bench.tar.gz"
python3 - "$T/x/$N" "$T/variants.py" >"$T/checks" <<'PY'
import json, sys, yaml
exec(open(sys.argv[2]).read())
d = sys.argv[1]

def say(ok, what, why=""): # one line, no backslash (sh's echo would read it)
    text = what + (" (%s)" % why if why else "")
    print("%s %s" % ("ok" if ok else "not_ok", text.replace("\\", "/").replace("\n", " | ")))

def check(what, got, gone, kept):
    bad = [g for g in gone if g in got] + ["kept %r lost" % k for k in kept if k not in got]
    if "<redacted>" not in got:
        bad.append("no <redacted>")
    say(not bad, what, "%s; got: %r" % (", ".join(bad), got[:300]) if bad else "")

# B7: each variant in the log, in every record and in env/environment.json
log = {}
for line in open(d + "/logs/plant-quoted.log"):
    name, _, rest = line.rstrip("\n").partition(" ")
    log[name] = rest
def record(line):
    try:
        return json.loads(line)["extra"]["plant"]
    except Exception:
        return {}
recs = [record(l) for l in open(d + "/results/gemm.jsonl")]
env = json.load(open(d + "/env/environment.json"))["plant"]
for name, text, gone, kept in Q:
    check("B7 %s: %s gone from the log, the rest kept" % (name, "/".join(gone)), log.get(name, ""), gone, kept)
    for i, r in enumerate(recs):
        check("B7 %s: the same in record %d" % (name, i), r.get(name, "(not JSON)"), gone, kept)
    check("B7 %s: the same in env/environment.json" % name, env[name], gone, kept)
# the 200 KB lines: each of the 9000 passwords gone (counted), the lines of quotes without a credential kept
long = open(d + "/logs/plant-long.log").read().split("\n")
n = long[0].count('--user="u:<redacted>"')
say(n == 9000 and "pwLin" not in long[0] and "spLin" not in long[0],
    "B7 a 200 KB line of 9000 quoted passwords: %d redacted, none left" % n)
want = ['"a:b ' * 40000, '-u "a\\" ' * 25000, "'u:\\'" * 40000]
say(long[1:4] == want, "B7 200 KB lines of quotes without a credential: kept byte for byte")
# B8: each block in its own log (the last one ends its file), in every record, in env/environment.json; YAML still
for name, text, gone, kept in Y:
    got = open("%s/logs/plant-%s.log" % (d, name), newline="").read()
    check("B8 %s: %s gone from the log, the header and the next key kept" % (name, "/".join(gone)), got, gone, kept)
    try:
        yaml.safe_load(got)
        say(True, "B8 %s: the scrubbed log is still YAML" % name)
    except Exception as e:
        say(False, "B8 %s: the scrubbed log is still YAML" % name, str(e))
    for i, r in enumerate(recs):
        check("B8 %s: the same in record %d" % (name, i), r.get(name, "(not JSON)"), gone, kept)
    check("B8 %s: the same in env/environment.json" % name, env[name], gone, kept)

# B9: still JSON, the other keys and the NUL strings kept, the secrets gone
def doc(rel):
    try:
        return json.load(open(d + "/" + rel))
    except Exception as e:
        say(False, "B9 %s: still JSON" % rel, str(e))
        return None

def expect(what, cond, got):
    say(cond, "B9 " + what, "" if cond else "got: %r" % (got,))

j = doc("zz-nul.json")
if j is not None:
    expect("zz-nul.json: still JSON, \"a\", \"after\" and \"n\" kept, the key cut off redacted",
           j.get("a") == "x\x00y" and j.get("after") == "kept-data" and j.get("n") == 42 and
           j.get("note", "").startswith("-----BEGIN RSA PRIVATE KEY-----") and "<redacted>" in j.get("note", "") and
           "pwJson" not in j.get("note", ""), j)
j = doc("zz-nul2.json")
if j is not None:
    expect("zz-nul2.json: the password redacted, the rest kept",
           j == {"a": "x\x00y", "password": "<redacted>", "after": "kept-data"}, j)
j = doc("zz-nul3.json")
if j is not None:
    expect("zz-nul3.json: a NUL and more after <redacted> is not <redacted>: the whole value goes",
           j == {"password": "<redacted>", "b": "kept-data"}, j)
j = doc("zz-arr.json")
if j is not None:
    expect("zz-arr.json: a top-level array, still an array of 4, strings with a NUL and 42 kept, the secrets gone",
           isinstance(j, list) and len(j) == 4 and j[0].get("a") == "x\x00y" and j[1] == "kept\x00str" and
           j[2] == 42 and j[3] == {"token": "<redacted>"} and "pwJson" not in json.dumps(j) and
           "<redacted>" in j[0].get("note", ""), j)
j = doc("logs/zz-nulkey.json")
if j is not None:
    expect("logs/zz-nulkey.json (a key with a NUL: text): still JSON, the key cut off at its quote, \"after\" kept",
           j.get("after") == "kept-data" and j.get("k\x00ey") == 1 and "pwJson" not in json.dumps(j) and
           "<redacted>" in j.get("note", ""), j)
lines = open(d + "/results/gemm.jsonl").read().splitlines()
try:
    recs = [json.loads(l) for l in lines]
    expect("results/gemm.jsonl: %d records, every one JSON" % len(recs), len(recs) >= 3, len(recs))
    expect("results/gemm.jsonl: each record's NUL string and case kept",
           all(r["extra"]["nul"] == "x\x00y%d" % i and r["case"] for i, r in enumerate(recs)),
           [r["extra"].get("nul") for r in recs])
    expect("results/gemm.jsonl: the key cut off and the password gone, \"after\" kept",
           "pwJson" not in "".join(lines) and recs[0]["extra"]["after"] == "kept-data" and
           "<redacted>" in recs[0]["extra"]["note"] and recs[1]["extra"]["password"] == "<redacted>",
           [r["extra"].get("note") for r in recs])
except Exception as e:
    say(False, "B9 results/gemm.jsonl: every record JSON", str(e))
t = open(d + "/logs/zz-text.log").read().split("\n")
expect("logs/zz-text.log: a key cut off in a JSON string on a log line ends at its quote, the line is JSON",
       t[0].startswith('{"note": "-----BEGIN RSA PRIVATE KEY-----<redacted>", "after": "keepTxtA"}') and
       json.loads(t[0])["after"] == "keepTxtA", t[0])
expect("logs/zz-text.log: the line after it kept", t[1] == "next line keepTxtB", t[1])
expect("logs/zz-text.log: a key cut off by the end of the text loses its body lines",
       t[2] == "-----BEGIN OPENSSH PRIVATE KEY-----" and t[3] == "<redacted>" and t[4] == "<redacted>", t[2:])
PY
while read -r st desc; do
	if [ "$st" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
done <"$T/checks"
[ -s "$T/checks" ] || not_ok "no variant was checked"
grep -rlaF -e pwQ -e spQ -e pwYaml -e pwJson -e pwLin -e spLin "$T/x" >"$T/hits"
[ ! -s "$T/hits" ] && ok "no member of the bundle holds any planted secret" || { not_ok "planted secrets in: $(tr "\n" " " <"$T/hits")"; }
finish
