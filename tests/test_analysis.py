"""Roofline geometry and per-kernel analysis, against values worked out by hand."""

from __future__ import annotations

import polars as pl
import pytest

from rooflow.analysis import analyze
from rooflow.errors import InputError
from rooflow.points import PER_CALL_SCHEMA, to_points
from rooflow.roofs.datasheet import load_hardware
from rooflow.roofs.preset import custom_preset, select_preset


@pytest.fixture(scope="module")
def presets(repo):
    return load_hardware(repo / "config/hardware.yaml")


def test_ridge_points_by_hand(presets):
    # ridge = peak / bandwidth: 183.5e12 / 608e9 = 301.81 FLOP/byte
    assert presets["arc-pro-b70"].ridge_point == pytest.approx(301.809, rel=1e-4)
    # H100 SXM: 989.4e12 / 3.35e12 = 295.34 FLOP/byte
    assert presets["h100-sxm"].ridge_point == pytest.approx(295.343, rel=1e-4)
    # MI300X: 1307.4e12 / 5.325e12 = 245.52 FLOP/byte
    assert presets["mi300x"].ridge_point == pytest.approx(245.521, rel=1e-4)
    # MI250X, one GCD (what the profiler sees): 191.5e12 / 1638.4e9 = 116.88 FLOP/byte
    assert presets["mi250x"].ridge_point == pytest.approx(116.882, rel=1e-4)


def test_issue_presets_exact(presets):
    # Default roofs (FP16/BF16 XMX dense, DRAM/HBM) with their published figures:
    # B70 367 INT8 TOPS / 2 = 183.5; B580 233 / 2 = 116.7 (rounded as Intel's 117 is);
    # Max 1550 839 / 3276.8; Max 1100 448 XMX × 512 × 1.55 GHz = 355.6 / 1228.8;
    # Flex 170 256 INT8 TOPS / 2 = 128 / 576.
    want = {"arc-pro-b70": (183.5, 608), "arc-b580": (116.7, 456), "max-1550": (839, 3276.8),
            "max-1100": (355.6, 1228.8), "flex-170": (128, 576)}
    for key, (tflops, gbs) in want.items():
        assert presets[key].peak_flop_per_s == tflops * 1e12
        assert presets[key].peak_bytes_per_s == gbs * 1e9


def test_partial_override_keeps_other_value(presets):
    p = select_preset(presets, "arc-b580", peak_bandwidth_gbs=500)
    assert p.peak_bytes_per_s == 500e9 and p.peak_flop_per_s == 116.7e12
    p = select_preset(presets, "arc-b580", peak_tflops=100)
    assert p.peak_bytes_per_s == 456e9 and p.peak_flop_per_s == 100e12
    custom = select_preset({}, None, peak_tflops=10, peak_bandwidth_gbs=100)
    assert custom.ridge_point == pytest.approx(100.0)  # 10e12 / 100e9
    with pytest.raises(InputError, match="unknown preset"):
        select_preset(presets, "nope")


def test_memory_and_compute_bound_by_hand():
    preset = custom_preset(100, 1000)  # 100 TFLOP/s, 1000 GB/s → ridge 100 FLOP/byte
    pts = to_points(pl.DataFrame({
        "arithmetic_intensity": [10.0, 400.0, 50.0],
        "performance": [5e12, 50e12, None],
        "pair": ["", "", ""],
        "row": [1, 2, 3],
    }))
    t = analyze(pts, preset)
    # AI 10: roof = min(100e12, 10 × 1e12) = 10 TFLOP/s, memory-bound; 5/10 = 50 %, headroom 2
    assert t["attainable"][0] == pytest.approx(10e12)
    assert t["bound"][0] == "memory"
    assert t["pct_of_roof"][0] == pytest.approx(50.0)
    assert t["headroom"][0] == pytest.approx(2.0)
    # AI 400: roof = 100 TFLOP/s, compute-bound; 50/100 = 50 %
    assert t["bound"][1] == "compute" and t["attainable"][1] == pytest.approx(100e12)
    # theoretical point sits on the roof: AI 50 → 50 TFLOP/s, 100 %
    assert t["theoretical"][2] and t["performance"][2] == pytest.approx(50e12)
    assert t["pct_of_roof"][2] == pytest.approx(100.0)


def test_pair_speedup_and_above_roof(repo, presets):
    from rooflow.adapters.roofline import read_roofline_csv

    points = read_roofline_csv(repo / "resources/roofline/flash_attention.csv")
    # Without its precision column the points meet no roof (none is assumed).
    t = analyze(points.with_columns(pl.lit("").alias("precision")), presets["arc-pro-b70"])
    assert t["roof_note"].unique().to_list() == ["precision not given"]
    assert t["pct_of_roof"].null_count() == t.height
    # fa-72-2k: 74 / 35 = 2.1143; fa-32-4k: 71 / 18 = 3.9444 (a ratio: needs no roof)
    assert t["pair_speedup"].to_list() == pytest.approx([74 / 35] * 2 + [71 / 18] * 2)
    # Stated as fp16-tensor (183.5 TFLOP/s, DRAM 608 GB/s: ridge 301.8): AI 900 > ridge →
    # compute-bound at 183.5 TFLOP/s; 74 / 183.5 = 40.327 %
    t = analyze(points.with_columns(pl.lit("fp16-tensor").alias("precision")),
                presets["arc-pro-b70"])
    assert t["pct_of_roof"][1] == pytest.approx(40.3270, rel=1e-5)
    above = analyze(to_points(pl.DataFrame({"arithmetic_intensity": [1.0],
                                            "performance": [1e12]})), custom_preset(100, 100))
    # roof at AI 1 = 1 × 100 GB/s = 0.1 TFLOP/s < 1 TFLOP/s achieved: above the roof, kept
    assert above["above_roof"][0] and above["pct_of_roof"][0] == pytest.approx(1000.0)


def test_hierarchical_binding_level_and_time_saved():
    # Two roofs: DRAM 1000 GB/s, L2 4000 GB/s; compute 100 TFLOP/s.
    from rooflow.roofs.preset import preset_from_mapping

    preset = preset_from_mapping("t", {
        "name": "t", "source": "test", "compute": {"fp32": 100}, "memory": {"HBM": 1000,
                                                                            "L2": 4000},
        "default_compute": "fp32", "default_memory": "HBM"}, source="test")
    # One kernel, 1e12 FLOP in 0.1 s = 10 TFLOP/s; DRAM AI 20, L2 AI 2.
    pts = to_points(pl.DataFrame({
        "kernel": ["k", "k"], "level": ["DRAM", "L2"], "precision": ["fp32", "fp32"],
        "arithmetic_intensity": [20.0, 2.0], "performance": [1e13, 1e13], "time_s": [0.1, 0.1],
        "row": [1, 1],
    }))
    t = analyze(pts, preset)
    # attainable DRAM = min(100, 20 × 1) = 20 TFLOP/s; L2 = min(100, 2 × 4) = 8 TFLOP/s
    assert t["attainable"].to_list() == pytest.approx([20e12, 8e12])
    # binding = L2 (lowest); kernel headroom = 8 / 10 = 0.8 → no time to save
    assert t["binding"].to_list() == [False, True]
    assert set(t["kernel_bound"]) == {"L2"}
    assert t["kernel_headroom"][0] == pytest.approx(0.8)
    # 10 TFLOP/s achieved > 8 attainable at L2: above the roof, a finding, never ranked
    assert t["above_roof"].to_list() == [False, True]
    assert t["potential_time_saved_s"].is_null().all()
    # At 2 TFLOP/s achieved: headroom 8/2 = 4 → saved = 0.1 × (1 − 1/4) = 0.075 s
    t2 = analyze(pts.with_columns(performance=pl.lit(2e12)), preset)
    assert t2["potential_time_saved_s"][0] == pytest.approx(0.075)


def fp64_only_preset():
    """An fp64-only preset like v100-nersc: fp64 10 TFLOP/s, HBM 1000 GB/s (ridge 10)."""
    from rooflow.roofs.preset import preset_from_mapping

    return preset_from_mapping("fp64-only", {
        "name": "fp64 only", "source": "test", "compute": {"fp64": 10}, "memory": {"HBM": 1000},
        "default_compute": "fp64", "default_memory": "HBM"}, source="test")


def test_no_compute_roof_of_its_precision_leaves_a_point_unjudged():
    from rooflow.analysis import no_compute_roof

    pts = to_points(pl.DataFrame({
        "kernel": ["dgemm", "sgemm", "spec"], "precision": ["fp64", "fp32", "fp32"],
        "arithmetic_intensity": [20.0, 50.0, 5.0], "performance": [5e12, 20e12, None],
        "time_s": [1e-3, 2e-3, None], "row": [1, 2, 3]}))
    t = analyze(pts, fp64_only_preset())
    # dgemm: min(10, 20 × 1 TB/s = 20) = 10 TFLOP/s, compute-bound; 5/10 = 50 %, headroom 2;
    # saved 1 ms × (1 − 1/2) = 0.5 ms
    assert t["attainable"][0] == pytest.approx(10e12) and t["bound"][0] == "compute"
    assert t["headroom"][0] == pytest.approx(2.0)
    assert t["potential_time_saved_s"][0] == pytest.approx(5e-4)
    # sgemm: no fp32 roof. Not 50 × 1 TB/s = 50 TFLOP/s "memory-bound, 2.5× headroom": nothing.
    sgemm = t.row(1, named=True)
    for column in ("compute_roof", "attainable", "bound", "pct_of_roof", "headroom",
                   "kernel_bound", "kernel_headroom", "potential_time_saved_s"):
        assert sgemm[column] is None, column
    assert sgemm["performance"] == pytest.approx(20e12)  # measured: kept, above the fp64 peak
    assert not sgemm["above_roof"] and not sgemm["binding"]
    assert sgemm["roof_note"] == "no fp32 roof on fp64-only"
    # A theoretical point without its roof has no place: no performance
    assert t["performance"][2] is None and t["attainable"][2] is None
    assert t.select(no_compute_roof()).to_series().to_list() == [False, True, True]


TABLE_NUMBERS = [
    "flop", "bytes", "time_s", "arithmetic_intensity", "performance", "compute_roof",
    "memory_roof", "attainable", "pct_of_roof", "achieved_bandwidth", "pct_of_memory_roof",
    "headroom", "kernel_headroom", "potential_time_saved_s", "speedup_to_roof",
    "pair_speedup", "clock_hz", "roof_clock_hz", "memory_clock_hz", "l2_clock_hz",
    *list(PER_CALL_SCHEMA)[1:],
]  # fmt: skip
"""The f64 columns of the analysis table (FLOP, byte, s, FLOP/byte, FLOP/s, %, ×, Hz)."""


def read_table(path) -> pl.DataFrame:
    """An analysis table written as CSV, its number columns as f64 (an all-empty column
    reads as text otherwise)."""
    table = pl.read_csv(path, infer_schema_length=None)
    return table.with_columns(pl.col(c).cast(pl.Float64, strict=False) for c in table.columns
                              if c in TABLE_NUMBERS or c.startswith("traffic_ratio_"))


def test_pct_of_memory_roof_is_each_rows_own_division(presets):
    # 427,819,008 B in 1.08 ms = 396,128,711,111.1111 B/s on H100 SXM's 3.35 TB/s HBM roof:
    # 396128711111.1111 / 3.35e12 × 100 = 11.824737645107794 (IEEE division, as Python's).
    # polars divides by a single value as a product with its reciprocal: …792 (on more
    # rows than 2).
    n = 8
    points = to_points(pl.DataFrame({
        "flop": [738734374912.0] * n, "bytes": [427819008.0] * n, "time_s": [0.00108] * n,
        "arithmetic_intensity": [738734374912.0 / 427819008.0] * n,
        "performance": [6.84e14] * n, "precision": ["bf16-tensor"] * n,
        "row": list(range(1, n + 1))}))
    table = analyze(points, presets["h100-sxm"])
    assert table["achieved_bandwidth"][0] == 427819008.0 / 0.00108 == 396128711111.1111
    assert table["pct_of_memory_roof"].to_list() == [396128711111.1111 / 3.35e12 * 100] * n
    assert table["pct_of_memory_roof"][0] == 11.824737645107794


def test_per_call_columns_are_optional_and_concatenate_with_tables_without_them():
    from rooflow.points import PER_CALL_SCHEMA, POINT_SCHEMA, check_points, concat_tables

    base = {"kernel": ["k"], "flop": [1e9], "bytes": [1e8], "time_s": [9e-3],
            "arithmetic_intensity": [10.0], "performance": [1e9 / 9e-3], "precision": ["fp32"]}
    plain = to_points(pl.DataFrame(base))
    assert "calls" not in plain.columns and check_points(plain, "t") is plain
    # three calls of 1, 2, 6 ms: mean 3, median 2, std sqrt(7) = 2.6458 ms, min 1, max 6
    carried = to_points(pl.DataFrame({**base, "calls": [3], "time_per_call_s": [3e-3],
                                      "time_per_call_median_s": [2e-3],
                                      "time_per_call_std_s": [2.6458e-3],
                                      "time_per_call_min_s": [1e-3],
                                      "time_per_call_max_s": [6e-3]}))
    assert carried.schema == pl.Schema({**POINT_SCHEMA, **PER_CALL_SCHEMA})
    check_points(carried, "t")
    both = concat_tables([plain, carried])
    assert both["calls"].to_list() == [None, 3]
    preset = load_hardware()["a100-sxm"]
    tables = [analyze(plain, preset), analyze(carried, preset)]
    assert "calls" not in tables[0].columns
    table = concat_tables(tables)
    assert table["time_per_call_median_s"].to_list() == [None, 2e-3]
    assert table.columns.index("calls") == table.columns.index("time_s") + 1


@pytest.mark.parametrize("tflops, gbs", [(float("nan"), 1000.0), (100.0, float("inf")),
                                         (0, 1000.0), (100.0, -1), (2e9, 1000.0)])
def test_custom_roof_refused_as_the_hardware_schema_refuses_it(tflops, gbs):
    """A roof from the command line is checked without jsonschema: the schema's own line."""
    from rooflow.defaults import schema
    from rooflow.roofs.preset import CUSTOM_ROOF, PEAK_MAXIMUM, preset_from_mapping

    assert PEAK_MAXIMUM == schema("hardware")["$defs"]["peak"]["maximum"]
    with pytest.raises(InputError) as by_schema:
        preset_from_mapping("custom", {
            "name": "Custom roof", "source": "command line", "compute": {CUSTOM_ROOF: tflops},
            "memory": {"DRAM": gbs}, "default_compute": CUSTOM_ROOF, "default_memory": "DRAM"},
            source="command line")
    with pytest.raises(InputError) as direct:
        custom_preset(tflops, gbs)
    assert str(direct.value) == str(by_schema.value)
    # 1e9 TFLOP/s, the largest roof taken: ridge 1e21 FLOP/s / 1e12 byte/s = 1e9 FLOP/byte
    assert custom_preset(1e9, 1000).ridge_point == pytest.approx(1e9)
