"""Guidance per kernel: limiter, next limiter, speedup to roof, reuse (issue 36, item 2)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from test_analysis import read_table

from rooflow.adapters import load_points
from rooflow.analysis import analyze
from rooflow.defaults import DEFAULT_HARDWARE
from rooflow.export import write_table
from rooflow.guidance import ratio_columns, sentence
from rooflow.points import to_points
from rooflow.roofs import read_presets
from rooflow.settings import Settings

REPO = Path(__file__).resolve().parents[1]
A100 = read_presets(DEFAULT_HARDWARE)["a100-sxm"].with_roofs_at("datasheet")

# (kernel, precision, FLOP, launches, time s, {level: bytes}) on a100-sxm's datasheet roofs
# (NVIDIA A100 datasheet 2021: FP64 9.7 TFLOP/s, HBM2e 2,039 GB/s; L2 7,219 GB/s; launch
# overhead 5 µs, hardware.yaml).
KERNELS = [
    ("stream", "fp64", 1e8, 1, 2e-3, {"DRAM": 3e9, "L2": 3.1e9, "L1": 4e9}),
    ("reuse", "fp64", 1e8, 1, 3e-3, {"DRAM": 1e9, "L2": 8e9, "L1": 2.4e10}),
    ("thrash", "fp64", 1e8, 1, 3e-3, {"DRAM": 4e9, "L2": 2e9, "L1": 2e9}),
    ("dense", "fp64", 1e10, 1, 2e-3, {"DRAM": 1e8, "L2": 8e8}),
    ("tiny", "fp64", 1e3, 100, 1e-3, {"DRAM": 1e4, "L2": 1e4}),
    ("fp8", "fp8-tensor", 1e9, 1, 1e-3, {"DRAM": 1e8, "L2": 1e8}),
]


def table() -> pl.DataFrame:
    rows = [(k, p, f, n, t, lv, b) for k, p, f, n, t, levels in KERNELS
            for lv, b in levels.items()]
    frame = pl.DataFrame(rows, schema=["kernel", "precision", "flop", "launches", "time_s",
                                       "level", "bytes"], orient="row")
    return analyze(to_points(frame.with_columns(
        arithmetic_intensity=pl.col("flop") / pl.col("bytes"),
        performance=pl.col("flop") / pl.col("time_s"), source=pl.lit("k.csv"),
        row=pl.col("kernel").rank("dense").cast(pl.Int32))), A100)


def by_kernel(t: pl.DataFrame) -> dict:
    return {r["kernel"]: r for r in t.unique("kernel", keep="first").iter_rows(named=True)}


def test_limiter_next_limiter_and_speedup_worked_by_hand():
    k = by_kernel(table())
    # stream: DRAM 3e9 / 2.039e12 = 1.4713 ms, L2 3.1e9 / 7.219e12 = 0.42942 ms, fp64
    # 1e8 / 9.7e12 = 0.0103 ms, launch 5 µs → DRAM limits, then L2; 2 ms / 1.4713 ms =
    # 1.3593× faster at the DRAM roof.
    assert (k["stream"]["limiter"], k["stream"]["next_limiter"]) == ("DRAM", "L2")
    assert k["stream"]["speedup_to_roof"] == pytest.approx(1.3593, rel=1e-4)
    # Without a launch floor in the way it is the kernel headroom.
    assert k["stream"]["speedup_to_roof"] == pytest.approx(k["stream"]["kernel_headroom"])
    # reuse: L2 8e9 / 7.219e12 = 1.1082 ms > DRAM 1e9 / 2.039e12 = 0.49044 ms → L2, then
    # DRAM; 3 ms / 1.1082 ms = 2.7071×.
    assert (k["reuse"]["limiter"], k["reuse"]["next_limiter"]) == ("L2", "DRAM")
    assert k["reuse"]["speedup_to_roof"] == pytest.approx(2.7071, rel=1e-4)
    # dense: fp64 1e10 / 9.7e12 = 1.0309 ms > L2 8e8 / 7.219e12 = 0.11082 ms.
    assert (k["dense"]["limiter"], k["dense"]["next_limiter"]) == ("fp64", "L2")
    # tiny: 100 launches × 5 µs = 500 µs > every roof (DRAM 1e4 / 2.039e12 = 4.9 ns):
    # the launch floor limits; 1 ms / 0.5 ms = 2× faster at it.
    assert k["tiny"]["limiter"] == "launch"
    assert k["tiny"]["speedup_to_roof"] == pytest.approx(2.0)
    assert k["tiny"]["pattern"] is None
    # fp8-tensor has no roof on an A100: not judged, no guidance.
    assert k["fp8"]["limiter"] is None and k["fp8"]["pattern"] is None


def test_traffic_ratios_and_patterns_worked_by_hand():
    t = table()
    assert ratio_columns(t["level"].unique().to_list()) == [
        "traffic_ratio_L1_L2", "traffic_ratio_L2_DRAM"]
    k = by_kernel(t)
    # stream: L2 / DRAM = 3.1 / 3 = 1.0333, within ×1.25 → streaming (L1 / L2 = 1.2903).
    assert k["stream"]["traffic_ratio_L2_DRAM"] == pytest.approx(1.0333, rel=1e-4)
    assert k["stream"]["traffic_ratio_L1_L2"] == pytest.approx(1.2903, rel=1e-4)
    assert k["stream"]["pattern"] == "streaming"
    # reuse: L2-bound, judged across L2: L1 / L2 = 2.4e10 / 8e9 = 3 > 1.25 → cache-reuse.
    assert k["reuse"]["traffic_ratio_L1_L2"] == pytest.approx(3.0)
    assert k["reuse"]["pattern"] == "cache-reuse"
    # thrash: DRAM 4e9 / 2.039e12 = 1.9617 ms limits; L2 / DRAM = 2e9 / 4e9 = 0.5 < 0.8:
    # twice the traffic at DRAM that L2 passes on → cache-thrash.
    assert k["thrash"]["limiter"] == "DRAM"
    assert k["thrash"]["pattern"] == "cache-thrash"
    assert k["dense"]["pattern"] == "compute"
    assert sentence(k["thrash"]) == ("DRAM-bound cache-thrash kernel: 2× more traffic at "
                                     "DRAM than at L2; at the DRAM roof 1.53× faster; then "
                                     "the L2 roof")


def test_shipped_a100_sample_stream_triad_streams_and_dgemm_reuses(tmp_path):
    # resources/ncu/a100_dgemm_triad_hgemm.csv: stream_triad moves 3.240 GB at L2 and
    # 3.231 GB at DRAM (ratio 1.0029: streaming); dgemm_nn_kernel 9.87 GB at L2 and 1.21 GB
    # at DRAM (ratio 8.157), and is fp64-bound (compute), not streaming.
    points = load_points("ncu", REPO / "resources/ncu/a100_dgemm_triad_hgemm.csv", Settings())
    t = analyze(points, read_presets(DEFAULT_HARDWARE)["a100-sxm"])
    k = {r["kernel"].split("(")[0]: r for r in t.unique("kernel", keep="first").iter_rows(
        named=True)}
    assert k["stream_triad"]["pattern"] == "streaming"
    assert k["stream_triad"]["traffic_ratio_L2_DRAM"] == pytest.approx(1.0029, rel=1e-3)
    assert k["dgemm_nn_kernel"]["pattern"] == "compute"
    assert k["dgemm_nn_kernel"]["traffic_ratio_L2_DRAM"] == pytest.approx(8.157, rel=1e-3)
    # The summary's sentence for it (speedup = its kernel headroom, 1.47×).
    assert sentence(k["stream_triad"]) == (
        "DRAM-bound streaming kernel: no reuse between L2 and DRAM; at the DRAM roof "
        "1.47× faster; then the L2 roof")
    # Written and read back, the ratios stay numbers.
    write_table(t, tmp_path / "all.csv")
    back = read_table(tmp_path / "all.csv")
    assert back.schema["traffic_ratio_L1_L2"] == pl.Float64
    assert back.schema["speedup_to_roof"] == pl.Float64
