"""Each point is judged against the roof of its own precision and unit, never another's."""

from __future__ import annotations

import polars as pl
import pytest

from rooflow.analysis import analyze
from rooflow.points import to_points
from rooflow.roofs.datasheet import load_hardware


@pytest.fixture(scope="module")
def presets():
    return load_hardware()


def one(precision: str, ai: float, perf: float, level: str = "DRAM") -> pl.DataFrame:
    return to_points(pl.DataFrame({"precision": [precision], "arithmetic_intensity": [ai],
                                   "flop": [1e12], "flop_per_s": [perf], "level": [level],
                                   "row": [1]}))


def test_vector_fp16_uses_the_cuda_core_roof(presets):
    # H100 SXM vector FP16 (non-tensor) 133.8 TFLOP/s, not the 989.4 tensor roof: at AI 1000
    # the HBM roof is 1000 × 3.35 TB/s = 3350 TFLOP/s, so the compute roof binds at 133.8.
    t = analyze(one("fp16", 1000.0, 66.9e12), presets["h100-sxm"]).row(0, named=True)
    assert t["compute_roof_name"] == "fp16" and t["compute_roof"] == pytest.approx(133.8e12)
    assert t["pct_of_roof"] == pytest.approx(50.0)  # 66.9 / 133.8


def test_fp8_uses_the_fp8_tensor_roof(presets):
    # H100 FP8 1978.9 TFLOP/s dense; at AI 2000 the HBM roof is 6700 TFLOP/s: compute-bound.
    t = analyze(one("fp8-tensor", 2000.0, 989.45e12), presets["h100-sxm"]).row(0, named=True)
    assert t["compute_roof"] == pytest.approx(1978.9e12) and t["bound"] == "compute"
    assert t["pct_of_roof"] == pytest.approx(50.0)


def test_dmma_uses_the_fp64_tensor_roof(presets):
    # A100 DMMA: FP64 Tensor 19.5 TFLOP/s, not the FP16 tensor 312 (16× less headroom).
    t = analyze(one("fp64-tensor", 100.0, 9.75e12), presets["a100-sxm"]).row(0, named=True)
    assert t["compute_roof"] == pytest.approx(19.5e12) and t["headroom"] == pytest.approx(2.0)


def test_missing_roof_is_said_never_substituted(presets):
    # A100 has no FP8: no compute roof; the HBM roof alone bounds the point (AI 10 × 2039 GB/s
    # = 20.39 TFLOP/s) and the note says which roof is missing.
    t = analyze(one("fp8-tensor", 10.0, 10.195e12), presets["a100-sxm"]).row(0, named=True)
    assert t["compute_roof"] is None and t["compute_roof_name"] is None
    assert t["attainable"] == pytest.approx(20.39e12) and t["bound"] == "memory"
    assert t["roof_note"] == "no fp8-tensor roof on a100-sxm"
    assert t["pct_of_roof"] == pytest.approx(50.0)


def test_integer_ops_meet_integer_roofs_only(presets):
    # int8 tensor work is OP, judged against 624 TOPS on A100 (never a FLOP roof).
    t = analyze(one("int8-tensor", 1000.0, 312e12), presets["a100-sxm"]).row(0, named=True)
    assert t["unit"] == "OP" and t["compute_roof"] == pytest.approx(624e12)
    # The MI300X has no int32 vector roof: none, even though it has FLOP roofs.
    t = analyze(one("int32", 1000.0, 1e12), presets["mi300x"]).row(0, named=True)
    assert t["compute_roof"] is None and t["roof_note"] == "no int32 roof on mi300x"


def test_bandwidth_only_rows(presets):
    # A copy: 2 GB in 1 ms = 2 TB/s on H100 HBM 3.35 TB/s → 59.7 % of the memory roof,
    # headroom 3.35 / 2 = 1.675, time saved 1 ms × (1 − 1/1.675) = 0.40299 ms.
    pts = to_points(pl.DataFrame({"kernel": ["copy"], "flop": [0.0], "bytes": [2e9],
                                  "time_s": [1e-3], "flop_per_s": [0.0], "row": [1]}))
    t = analyze(pts, presets["h100-sxm"]).row(0, named=True)
    assert t["bandwidth_only"] and t["attainable"] is None and t["pct_of_roof"] is None
    assert t["achieved_bandwidth"] == pytest.approx(2e12)
    assert t["pct_of_memory_roof"] == pytest.approx(59.701, rel=1e-4)
    assert t["headroom"] == pytest.approx(1.675)
    assert t["potential_time_saved_s"] == pytest.approx(0.40299e-3, rel=1e-4)
    assert (t["kernel_bound"], t["above_roof"]) == ("DRAM", False)
    # 4 TB/s measured on a 3.35 TB/s roof: above the roof, not ranked
    t = analyze(pts.with_columns(bytes=pl.lit(4e9)), presets["h100-sxm"]).row(0, named=True)
    assert t["above_roof"] and t["potential_time_saved_s"] is None
