#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Joins bench-gemm/bench-membw records with the PyTorch references (gemm_reference.py output) and prints the
markdown table of issue "native suites": ours, reference, ratio.
  python3 tests/gpu/native-vs-torch.py RECORDS.jsonl REF1.json [REF2.json]
"""
import json
import sys


def main():
    recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    refs = [json.load(open(p)) for p in sys.argv[2:]]
    by = {r["case"]: r for r in recs}
    print(f"torch {refs[0]['torch']}, triton {refs[0]['triton']}, {refs[0]['device']}; reference = "
          f"triton.testing.do_bench(warmup=30, rep=200, return_mode='median')" + (", mean of the runs before and after ours" if len(refs) > 1 else ""))
    print()
    print("| M, N, K | ours bf16 tn (heuristic) | F.linear | ratio | ours bf16 nn (heuristic) | torch.matmul | ratio | ours fp8 tn (heuristic) | _scaled_mm | ratio | bf16 tn tune8 | gap % | fp8 tn tune8 | gap % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    worst = {}
    for i, row in enumerate(refs[0]["gemm"]):
        m, n, k = row["m"], row["n"], row["k"]
        ref = {key: sum(r["gemm"][i][key] for r in refs) / len(refs) for key in ("linear_bf16", "matmul_bf16", "scaled_mm_fp8")}
        s = f"{m}x{n}x{k}"

        def v(key):
            r = by.get(key)
            return r["value"] if r and r["status"] == "ok" else float("nan")

        def gap(key):
            r = by.get(key)
            return r["extra"].get("heuristic_gap_pct", float("nan")) if r and r["status"] == "ok" else float("nan")

        tn, nn, f8 = v(f"blaslt/bf16/tn/{s}/heuristic"), v(f"blaslt/bf16/nn/{s}/heuristic"), v(f"blaslt/fp8e4m3/tn/{s}/heuristic")
        t8b, t8f = v(f"blaslt/bf16/tn/{s}/tune8"), v(f"blaslt/fp8e4m3/tn/{s}/tune8")
        cells = [f"{m}, {n}, {k}"]
        for ours, key in ((tn, "linear_bf16"), (nn, "matmul_bf16"), (f8, "scaled_mm_fp8")):
            ratio = ours / ref[key]
            worst[key] = min(worst.get(key, 9), ratio)
            cells += [f"{ours:.1f}", f"{ref[key]:.1f}", f"{ratio:.3f}"]
        cells += [f"{t8b:.1f}", f"{gap(f'blaslt/bf16/tn/{s}/tune8'):.2f}", f"{t8f:.1f}", f"{gap(f'blaslt/fp8e4m3/tn/{s}/tune8'):.2f}"]
        print("| " + " | ".join(cells) + " |")
    print()
    copy = by.get("copy/2GiB")
    ref_copy = sum(r["copy"]["tbps"] for r in refs) / len(refs)
    if copy:
        print(f"copy 2 GiB: ours {copy['value']:.3f} TB/s, Tensor.copy_ {ref_copy:.3f} TB/s, ratio {copy['value'] / ref_copy:.3f}")
    for op in ("read", "write"):
        r = by.get(f"{op}/2GiB")
        if r:
            print(f"{op} 2 GiB: ours {r['value']:.3f} TB/s")
    print()
    print("worst ratios: " + ", ".join(f"{k} {v:.3f}" for k, v in worst.items()))
    bad = [r["case"] for r in recs if r["status"] == "failed"]
    print("failed cases: " + (", ".join(bad) if bad else "none") + "; checks: " +
          ", ".join(sorted({r['extra'].get('check', '-') for r in recs if r['status'] == 'ok'})))


if __name__ == "__main__":
    main()
