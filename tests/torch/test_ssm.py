#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The ssm runner's checks that need no GPU (TAP output): the FLOP formula against a count of the chunked algorithm's
matmuls, the chunked SSD against the naive scan, and the check failing a case whose implementation is wrong (each
fault below leaves shapes intact, so only the comparison can catch it).
  python3 tests/torch/test_ssm.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runners", "torch"))
import torch  # noqa: E402

import benchlib as bl  # noqa: E402
import ssm  # noqa: E402
import tap  # noqa: E402

CPU = torch.device("cpu")
CHUNKED = ssm.ssd_chunked  # the real one, kept before a test swaps the module's


def case(**kw):
    p = {"impl": "torch", "batch": 2, "seq_len": 64, "heads": 4, "head_dim": 16, "state": 16, "chunk": 16,
         "groups": 2, "pass": "fwd", "dtype": "bf16", "mode": "burst", "warmup_ms": 1.0, "rep_ms": 3.0}
    p.update(kw)
    return {"suite": "ssm", "case": "t", "params": p}


def test_flop_formula_counts_the_matmuls():
    # one (batch, chunk) by hand: C.B^T per group, three matmuls per head, 2PN per head for the state pass
    b, l, h, p, n, q, g = 2, 8192, 80, 64, 128, 256, 1
    per_chunk = g * 2 * q * q * n + h * (2 * q * q * p + 2 * q * n * p + 2 * q * n * p) + h * 2 * p * n
    assert bl.ssd_fwd_flop(b, l, h, p, n, q, g) == b * (l // q) * per_chunk
    assert bl.ssd_fwd_flop(b, l, h, p, n, q, g) == 87056973824    # docs/architecture.md: 87.06 GFLOP (the defaults)
    # tokens fixed, the FLOPs do not grow with the sequence (linear in L), unlike attention's
    assert bl.ssd_fwd_flop(8, 2048, h, p, n, q, g) == bl.ssd_fwd_flop(2, 8192, h, p, n, q, g)
    assert bl.SSD_PASS_FACTOR == {"fwd": 1.0, "bwd": 2.0, "fwd_bwd": 3.0}


def test_chunked_matches_the_scan_in_fp32():
    rel, ab = ssm.check(ssm.ssd_chunked, torch.float32, CPU)
    assert rel < 1e-5 and ab < 1e-3, (rel, ab)


def test_chunk_size_does_not_change_the_result():
    x, dt, A, B, C = ssm.inputs(1, 64, 4, 8, 8, 2, torch.float32, CPU, 5, False)
    ys = [ssm.ssd_chunked(x, dt, A, B, C, q) for q in (8, 16, 64)]
    assert all((y - ys[0]).abs().max().item() < 1e-4 for y in ys), [(y - ys[0]).abs().max().item() for y in ys]


def _faulty(kind):
    def fn(x, dt, A, B, C, chunk):
        if kind == "no-carry":        # each chunk starts from a zero state: the inter-chunk pass dropped
            b, l, h, p = x.shape
            return torch.cat([CHUNKED(x[:, i:i + chunk], dt[:, i:i + chunk], A, B[:, i:i + chunk],
                                              C[:, i:i + chunk], chunk) for i in range(0, l, chunk)], dim=1)
        if kind == "groups-swapped":  # B and C of the two groups exchanged
            return CHUNKED(x, dt, A, B.flip(-2), C.flip(-2), chunk)
        if kind == "no-decay":        # A ignored (no forgetting)
            return CHUNKED(x, dt, A * 0, B, C, chunk)
        if kind == "scaled":          # 1% too large
            return CHUNKED(x, dt, A, B, C, chunk) * 1.01
        raise ValueError(kind)
    return fn


def test_the_check_catches_wrong_implementations():
    for kind in ("no-carry", "groups-swapped", "no-decay", "scaled"):
        rel, _ = ssm.check(_faulty(kind), torch.float32, CPU)
        assert rel > 10 * ssm.CHECK_TOL["fp32"], (kind, rel)


def test_a_wrong_implementation_fails_the_case():
    real = ssm.ssd_chunked
    ssm.ssd_chunked = _faulty("no-carry")  # what make_fn hands out for impl torch on a CPU
    try:
        rec = ssm.run_case(case(), False, {})
    finally:
        ssm.ssd_chunked = real
    assert rec["status"] == "failed" and rec["extra"]["check"] == "wrong", rec
    assert "differs from the naive sequential scan" in rec["error"], rec["error"]
    assert rec["extra"]["check_fp32"]["ok"] is False


def test_a_right_implementation_passes_the_case():
    rec = ssm.run_case(case(**{"pass": "bwd"}), False, {})
    assert rec["status"] == "ok" and rec["extra"]["check"] == "ok", rec
    assert rec["extra"]["check_fp32"]["max_rel_err"] < 1e-5 and rec["value"] > 0
    assert rec["extra"]["flop"] == 2 * bl.ssd_fwd_flop(2, 64, 4, 16, 16, 16, 2)


if __name__ == "__main__":
    tap.main(globals())
