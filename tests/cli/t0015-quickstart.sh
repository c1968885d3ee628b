#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The quickstart on this machine's own stack (Debian 12: python3-torch 1.13) plans only what it can run: every
# record ok, exit 0. A case that cannot run here is said once, after the summary, as one clean line: no raw
# exception text (the import error itself is in the suite's log).
. "$(dirname "$0")/lib.sh"

expect 0 "bench run manifests/quickstart.yaml: exit 0" "$BENCH" run -o "$T/runs" manifests/quickstart.yaml
D=$(sed -n 1p "$T/out")
if records_ok "$D" 1; then
	ok "every quickstart record is ok: $(cat "$T/check.out")"
else
	not_ok "quickstart records"; show "$T/check.out"
fi
grep -q ' ok, 0 failed, 0 skipped, 0 interrupted' "$T/err" && ok "the summary counts no failure and no skip" ||
	{ not_ok "the summary counts a failure or a skip"; tail -n 3 "$T/err" | sed 's/^/#   /'; }

# skips: FSDP on a torch without FSDP2 (a ValueError on import with Debian's 1.13), a GPU backend on the CPU
cat >"$T/skip.yaml" <<'Y'
bench: 1
name: skips
target: {vendor: cpu, gpu: cpu, nodes: 1, gpus_per_node: 2}
runtime: {engine: host, timeout: 5m}
suites:
  attention: {impl: [sdpa-flash], seq_lens: [64], head_dim: 16, width: 32, tokens: 128, passes: [fwd], dtype: bf16, warmup: 1ms, rep: 5ms}
  training: {models: [tiny], precision: [fp32], seq_len: 32, steps: 3, warmup_steps: 1, compile: false, parallel: [fsdp]}
Y
"$BENCH" run -o "$T/runs" "$T/skip.yaml" >"$T/out" 2>"$T/err"
D=$(sed -n 1p "$T/out")
python3 - "$D" >"$T/skipped.txt" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/results/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if r["status"] == "skipped":
            print(r["case"] + "\t" + r["error"])
PY
n=$(wc -l <"$T/skipped.txt")
[ "$n" -ge 1 ] && ok "$n case(s) skipped here" || { not_ok "nothing skipped"; show "$T/err"; }
while IFS="$(printf '\t')" read -r key why; do
	c=$(grep -cF -- "$why" "$T/err")
	[ "$c" = 1 ] && ok "'$key': its reason printed once" || { not_ok "'$key': its reason printed $c times"; show "$T/err"; }
	case "$why" in
	*Error* | *Exception* | *"<class"* | *Traceback*) not_ok "'$key': raw exception text in the reason: $why" ;;
	*) ok "'$key': a clean reason: $why" ;;
	esac
done <"$T/skipped.txt"
grep -q 'fsdp.*skipped (' "$T/err" && not_ok "the progress line repeats the reason" || ok "the progress line says 'skipped' only"
if python3 -c 'from torch.distributed.fsdp import fully_shard' 2>/dev/null; then
	ok "this torch has FSDP2 (nothing more to check)"
else
	grep -qF "skipped training/tiny/full/fp32/s32/mb1/fsdp/eager: parallel fsdp needs FSDP2" "$T/err" &&
		ok "no FSDP2 here: the fsdp case is skipped with its reason" || { not_ok "fsdp skip line"; show "$T/err"; }
	grep -q 'torch.distributed.fsdp.fully_shard does not import: ' "$D/logs/training.log" &&
		ok "the import error itself is in the suite's log" || { not_ok "the suite's log lacks the import error"; show "$D/logs/training.log"; }
fi
finish
