#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hardening after the review of issue 31 (r31v): bench pack scrubs a run directory packed by hand; reproduce lists
# every plug-in (running code) and takes file:/native: plug-ins from the bundle's inputs/; more variables that run
# code flagged; tar and gzip header fields bench never writes refused; names printed escaped.
. "$(dirname "$0")/lib.sh"
fake_gemm
FAKE=$T/fake
"$BENCH" keygen >/dev/null 2>&1 || not_ok "keygen"
cat >"$T/m.yaml" <<Y
bench: 1
name: hard
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$FAKE expect 0 "a run to pack by hand (--no-pack)" "$BENCH" run -q --no-pack -o "$T/runs" "$T/m.yaml"
R=$(ls -d "$T"/runs/hard-*[0-9a-f] | head -n 1)
N=$(basename "$R")

# --- 1. bench pack scrubs what it packs, as bench run does
GHP=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789
printf 'token %s https://alice:Sup3rS3cretPW@git.example.com/r.git\nHF_TOKEN=hfsecretvalue42\n' "$GHP" >>"$R/logs/gemm.log"
mkdir -p "$R/extra"
printf '{"note": "my-env-secret-value-77 and %s"}\n' "$GHP" >"$R/extra/added.json"
printf 'bin\000ary %s tail' "$GHP" >"$R/extra/blob.bin"
MYSECRET_TOKEN=my-env-secret-value-77 expect 0 "pack a run directory holding secrets" "$BENCH" pack "$R"
tar -xzOf "$R.bench.tar.gz" "$N/logs/gemm.log" >"$T/log" 2>/dev/null
tar -xzOf "$R.bench.tar.gz" "$N/extra/added.json" >"$T/added" 2>/dev/null
tar -xzOf "$R.bench.tar.gz" "$N/extra/blob.bin" >"$T/blob" 2>/dev/null
for s in "$GHP" Sup3rS3cretPW hfsecretvalue42; do
	if grep -qF "$s" "$T/log"; then not_ok "pack left '$s' in the log"; else ok "pack scrubbed '$s' from the log"; fi
done
grep -qF "$GHP" "$T/added" && not_ok "token in a file added after the run" || ok "token scrubbed from a file added after the run"
grep -qF "my-env-secret-value-77" "$T/added" && not_ok "a secret value of pack's environment packed" ||
	ok "the secret values of pack's own environment scrubbed"
grep -qF "git.example.com/r.git" "$T/log" && ok "the rest of the line kept" || not_ok "scrub ate the line"
if grep -qaF "$GHP" "$T/blob"; then not_ok "token in a binary file"; else
	[ "$(wc -c <"$T/blob")" = "$(printf 'bin\000ary %s tail' "$GHP" | wc -c)" ] && ok "binary file scrubbed byte-exactly" ||
		not_ok "binary file length changed"
fi
expect 0 "the scrubbed bundle verifies" "$BENCH" verify "$R.bench.tar.gz"
# the manifest copy and inputs/ are the run's inputs, signed by their digests: left as they are
tar -xzOf "$R.bench.tar.gz" "$N/manifest.yaml" >"$T/mf"
expect_same "the manifest copy packed as it was" "$R/manifest.yaml" "$T/mf"
finish
