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
                                   "flop": [1e12], "performance": [perf], "level": [level],
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
    # A100 has no FP8: no compute roof, so the point is not judged. The HBM roof alone
    # (AI 10 × 2039 GB/s = 20.39 TFLOP/s) does not stand in: no attainable, bound or %.
    t = analyze(one("fp8-tensor", 10.0, 10.195e12), presets["a100-sxm"]).row(0, named=True)
    assert t["compute_roof"] is None and t["compute_roof_name"] is None
    assert t["attainable"] is None and t["bound"] is None and t["pct_of_roof"] is None
    assert t["roof_note"] == "no fp8-tensor roof on a100-sxm"


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
                                  "time_s": [1e-3], "performance": [0.0], "row": [1]}))
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


# Presets of current GPUs (issue 18, item 5): each default roof and ridge point worked by hand
# from the figure its source cites (dense; a "with sparsity" figure halved).
@pytest.mark.parametrize("key, compute, tflops, level, gbs, ridge", [
    # HGX B200: FP16/BF16 4.5 PF with sparsity / 2 = 2250; HBM3e 7.7 TB/s;
    # ridge 2250e12 / 7700e9 = 292.208 FLOP/byte
    ("b200", "fp16-tensor", 2250, "HBM3e", 7700, 292.208),
    # GB200 NVL72, per GPU: 5 PF / 2 = 2500; 8 TB/s; 2500 / 8000 = 312.5
    ("gb200", "fp16-tensor", 2500, "HBM3e", 8000, 312.5),
    # H100 PCIe: 1,513 with sparsity / 2 = 756.5; HBM2e 2,000 GB/s; 756.5 / 2000 = 378.25
    ("h100-pcie", "fp16-tensor", 756.5, "HBM2e", 2000, 378.25),
    # L40S: 362.05 dense (733 sparse); GDDR6 864 GB/s; 362.05 / 864 = 419.039
    ("l40s", "fp16-tensor", 362.05, "GDDR6", 864, 419.039),
    # RTX 4090: FP16 tensor, FP32 accumulate 165.2; 384 bit x 21 Gbps / 8 = 1008 GB/s;
    # 165.2 / 1008 = 163.889
    ("rtx4090", "fp16-tensor", 165.2, "GDDR6X", 1008, 163.889),
    # RTX 5090: FP16 tensor, FP32 accumulate 209.5; 512 bit x 28 Gbps / 8 = 1792 GB/s;
    # 209.5 / 1792 = 116.908
    ("rtx5090", "fp16-tensor", 209.5, "GDDR7", 1792, 116.908),
    # MI355X: 256 CUs x 4096 FLOP/clk x 2.4 GHz = 2516.58 (AMD 2.5166 PF); 8 TB/s;
    # 2516.6 / 8000 = 314.575
    ("mi355x", "fp16-tensor", 2516.6, "HBM3e", 8000, 314.575),
    # MI350X: 256 x 4096 x 2.2 GHz = 2306.87 (AMD 2.3 PF); 8 TB/s; 2306.9 / 8000 = 288.3625
    ("mi350x", "fp16-tensor", 2306.9, "HBM3e", 8000, 288.3625),
])
def test_current_gpu_presets_by_hand(presets, key, compute, tflops, level, gbs, ridge):
    p = presets[key]
    assert (p.default_compute, p.default_memory) == (compute, level)
    assert p.peak_flop_per_s == pytest.approx(tflops * 1e12)
    assert p.peak_bytes_per_s == pytest.approx(gbs * 1e9)
    assert p.ridge_point == pytest.approx(ridge, rel=1e-5)
    assert p.devices, "a preset of a real GPU names it, so measured data finds its roofs"


def test_current_gpu_presets_other_roofs_by_hand(presets):
    # MI355X: MXFP4 and MXFP6 at one rate, 4 x FP16 = 10066.3 TFLOP/s (AMD 10.1 PF); an fp4
    # point at AI 5000 meets min(10066.3, 5000 x 8 TB/s = 40000) = 10066.3: compute-bound.
    t = analyze(one("fp4-tensor", 5000.0, 5033.15e12), presets["mi355x"]).row(0, named=True)
    assert t["compute_roof"] == pytest.approx(10066.3e12) and t["bound"] == "compute"
    assert t["pct_of_roof"] == pytest.approx(50.0)
    assert presets["mi355x"].compute["fp6-tensor"] == presets["mi355x"].compute["fp4-tensor"]
    # B200: FP8 9 PF with sparsity / 2 = 4500; at AI 100 the HBM roof is 100 x 7.7 TB/s =
    # 770 TFLOP/s: memory-bound, 385 TFLOP/s is 50 % of it.
    t = analyze(one("fp8-tensor", 100.0, 385e12), presets["b200"]).row(0, named=True)
    assert t["compute_roof"] == pytest.approx(4500e12) and t["bound"] == "memory"
    assert t["pct_of_roof"] == pytest.approx(50.0)
    # RTX 4090: INT8 660.6 TOPS, judged in OP; FP8 is the FP32-accumulate 330.3, not 660.6.
    t = analyze(one("int8-tensor", 1000.0, 330.3e12), presets["rtx4090"]).row(0, named=True)
    assert t["unit"] == "OP" and t["pct_of_roof"] == pytest.approx(50.0)
    assert presets["rtx4090"].compute["fp8-tensor"] == pytest.approx(330.3e12)


@pytest.mark.parametrize("key, precision", [
    ("mi355x", "tf32"),        # CDNA 4 has no TF32 matrix hardware
    ("l40s", "int8-tensor"),   # no L40S INT8 figure confirmed
    ("rtx5090", "int8-tensor"),
    ("b200", "fp16"),          # no vector fp16 figure published
])
def test_current_gpu_presets_leave_unconfirmed_roofs_out(presets, key, precision):
    t = analyze(one(precision, 1000.0, 1e12), presets[key]).row(0, named=True)
    assert t["compute_roof"] is None and t["roof_note"] == f"no {precision} roof on {key}"


def test_rooflow_hardware_lists_the_current_gpus_with_sources():
    from click.testing import CliRunner

    from rooflow.cli.main import cli

    out = CliRunner().invoke(cli, ["hardware"]).output
    for key, cited in [("b200", "NVIDIA Blackwell datasheet (2025)"),
                       ("h100-pcie", "H100 PCIe column"),
                       ("l40s", "NVIDIA L40S datasheet (2023)"),
                       ("rtx4090", "Ada GPU Architecture white paper"),
                       ("rtx5090", "RTX Blackwell GPU Architecture white paper"),
                       ("mi355x", "2400 MHz peak engine clock"),
                       ("mi350x", "2200 MHz peak engine clock")]:
        entry = out.split(f"\n{key}: ", 1)[1].split("\n\n", 1)[0]
        assert cited in entry, key
