#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The eleventh review's secrets checks (r31z B3): a secret key whose separator is Ruby's, Perl's or PHP's `=>` or
# Go's and Pascal's `:=` (`{"password"=>"S"}`, `{:password=>"S"}`, `'password' => 'S'`, `password := S`) kept
# its value (the rule took the `>` or `=` for it). Each variant is planted in a log, in a results record and in
# env/environment.json of a run directory, which is packed; read back from the bundle, the secret is gone and a
# look-alike beside it (what is not a secret) is kept.
. "$(dirname "$0")/lib.sh"
fake_gemm
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
printf 'bench: 1\nname: sec11\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}\n' >"$T/m.yaml"
BENCH_RUNNERS=$T/fake expect 0 "a run to pack by hand (--no-pack)" "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml"
R=$(ls -d "$T"/runs/sec11-*[0-9a-f] | head -n 1)
N=$(basename "$R")
# the variants: name, the text planted, the secret that must go, the look-alike that must stay
cat >"$T/variants.py" <<'PY'
V = [
    # Ruby's inspect: a string key and a symbol key, => with and without spaces
    ("ruby-str", '{"user"=>"keepRubyUserA0", "password"=>"pwRocketA1x"}', "pwRocketA1x", '"user"=>"keepRubyUserA0"'),
    ("ruby-str-spaced", '{"name" => "keepRubyNameB0", "password" => "pwRocketB2x"}', "pwRocketB2x",
     '"name" => "keepRubyNameB0"'),
    ("ruby-sym", '{:user=>"keepSymC0", :password=>"pwRocketC3x"}', "pwRocketC3x", ':user=>"keepSymC0"'),
    ("ruby-sym-spaced", "{:mode => 'keepSymD0', :api_key => 'pwRocketD4x'}", "pwRocketD4x", ":mode => 'keepSymD0'"),
    # Perl's Data::Dumper: single quotes
    ("perl", "$VAR1 = { 'host' => 'keepPerlE0', 'password' => 'pwRocketE5x' };", "pwRocketE5x",
     "'host' => 'keepPerlE0'"),
    # PHP: a single-quoted key, a double-quoted value
    ("php", "array('db' => \"keepPhpF0\", 'password' => \"pwRocketF6x\")", "pwRocketF6x", "'db' => \"keepPhpF0\""),
    # a bare value after =>
    ("rocket-bare", "x => keepBareG0, secret => pwRocketG7x", "pwRocketG7x", "x => keepBareG0"),
    # Go and Pascal: := with and without spaces, bare and quoted
    ("go-spaced", "mode := keepGoH0; password := pwColonEqH8x", "pwColonEqH8x", "mode := keepGoH0"),
    ("go-joined", "n:=keepGoI0 token:=pwColonEqI9x", "pwColonEqI9x", "n:=keepGoI0"),
    ("go-quoted", 'apiKey := "pwColonEqJ1x"; name := "keepGoJ0"', "pwColonEqJ1x", 'name := "keepGoJ0"'),
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
expect 0 "pack the run directory holding the planted secrets" "$BENCH" pack "$R"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$R.bench.tar.gz"
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$R.bench.tar.gz"
# each variant in each place: the secret gone and <redacted> in its place, `=>` and `:=` whole, the look-alike kept
python3 - "$T/x/$N" "$T/variants.py" >"$T/checks" <<'PY'
import json, sys
exec(open(sys.argv[2]).read())
d = sys.argv[1]
log = {}
for line in open(d + "/logs/plant.log"):
    name, _, rest = line.partition(": ")
    log[name] = rest
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
env = json.load(open(d + "/env/environment.json"))["plant"]
for name, text, gone, kept in V:
    places = {"log": log.get(name, ""), "record": "\n".join(r["extra"]["plant"][name] for r in recs),
              "environment.json": env[name]}
    for where, got in places.items():
        # the operators kept whole (the defect wrote "password"=<redacted>"S": the '>' taken for the value)
        good = (gone not in got and kept in got and "<redacted>" in got and
                all(got.count(op) == text.count(op) for op in ("=>", ":=")))
        print("%s %s: '%s' gone from %s, '%s' kept%s" % ("ok" if good else "not_ok", name, gone, where, kept,
              "" if good else " (got: %r)" % got[:300]))
PY
while read -r st desc; do
	if [ "$st" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
done <"$T/checks"
[ -s "$T/checks" ] || not_ok "no variant was checked"
grep -rlaF -e pwRocket -e pwColonEq "$T/x" >"$T/hits"
[ ! -s "$T/hits" ] && ok "no member of the bundle holds any planted secret" || { not_ok "planted secrets in: $(tr "\n" " " <"$T/hits")"; }
finish
