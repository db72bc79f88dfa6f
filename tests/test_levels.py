"""The memory-level vocabulary: one name per level for points, presets, markers, compare."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.analysis import analyze
from rooflow.compare import compare_tables
from rooflow.errors import InputError
from rooflow.levels import LEVELS, canonical_level, marker
from rooflow.points import check_points, to_points
from rooflow.roofs import load_preset
from rooflow.roofs.preset import preset_from_mapping

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("word", "name"), [
    ("HBM", "DRAM"), ("hbm3e", "DRAM"), ("GDDR6X", "DRAM"), ("dram", "DRAM"),
    ("SLM", "LDS"), ("LDS", "LDS"), ("vL1D", "L1"), ("L1TEX", "L1"), ("LLC", "L3"),
    ("L2", "L2"), ("L7", None), ("", None),
])
def test_vendor_words_name_one_level(word, name):
    assert canonical_level(word) == name


def test_display_order_and_markers_follow_the_vocabulary():
    assert list(LEVELS) == ["DRAM", "L3", "L2", "L1", "LDS"]
    # The same level draws with the same marker whatever the vendor calls it, PNG and HTML.
    assert marker("SLM") == marker("LDS") == "v"
    assert marker("HBM", bokeh=True) == marker("DRAM", bokeh=True) == "circle"


def test_points_carry_canonical_names_and_refuse_unknown_levels():
    frame = pl.DataFrame({"kernel": ["a", "b", "c"], "level": ["HBM", "SLM", "L2"],
                          "row": [1, 2, 3]})
    assert to_points(frame)["level"].to_list() == ["DRAM", "LDS", "L2"]
    bad = to_points(pl.DataFrame({"kernel": ["a", "b"], "level": ["DRAM", "L7"],
                                  "row": [1, 2]}))
    with pytest.raises(InputError) as err:
        check_points(bad, "x.csv")
    line = str(err.value)
    assert "row 2" in line and "'level'" in line and "L7" in line and "DRAM (HBM" in line


def test_amd_points_say_dram_and_meet_the_roof_the_device_calls_hbm():
    points = load_points("rocprof", REPO / "resources/rocprof/mi210_gemm_triad")
    assert set(points["level"]) <= set(LEVELS) and "DRAM" in set(points["level"])
    mi210 = load_preset("mi210")
    assert "HBM" in mi210.memory
    # A DRAM point is judged against the roof the datasheet names HBM (1.6 TB/s on MI210).
    assert mi210.memory_roof("DRAM") == ("HBM", mi210.memory["HBM"])
    table = analyze(points, mi210)
    assert table.filter(pl.col("level") == "DRAM")["attainable"].null_count() == 0


def test_an_amd_hbm_point_and_an_ncu_dram_point_are_matched_by_compare():
    def table(level: str, series: str, perf: float) -> pl.DataFrame:
        return pl.DataFrame([{
            "kernel": "triad", "label": "", "series": series, "level": level,
            "precision": "fp64", "arithmetic_intensity": 0.0833, "performance": perf,
            "attainable": 1e12, "pct_of_roof": perf / 1e12 * 100, "bound": "memory",
            "time_s": 1e-3, "theoretical": False}])

    # A table written before the vocabulary (AMD "HBM") against an ncu one ("DRAM"):
    # 2e11 / 1e11 = speedup 2.0, one matched row at DRAM.
    comp = compare_tables(table("HBM", "rocprof", 1e11), table("DRAM", "ncu", 2e11))
    assert comp.table["status"].to_list() == ["matched"]
    assert comp.table["level"].to_list() == ["DRAM"]
    assert comp.table["speedup"].to_list() == pytest.approx([2.0])


def _preset(memory: dict) -> dict:
    return {"name": "x", "source": "test", "compute": {"fp32": 10.0}, "memory": memory,
            "default_compute": "fp32", "default_memory": next(iter(memory))}


def test_presets_keep_the_device_word_and_refuse_unknown_or_twice_named_levels():
    preset = preset_from_mapping("x", _preset({"GDDR6": 500.0, "SLM": 5000.0}), source="t")
    assert preset.memory_roof("DRAM") == ("GDDR6", 500e9)
    assert preset.memory_roof("LDS") == ("SLM", 5000e9)
    with pytest.raises(InputError, match="unknown memory level"):
        preset_from_mapping("x", _preset({"Shared L9": 1.0}), source="t")
    with pytest.raises(InputError, match="same level"):
        preset_from_mapping("x", _preset({"HBM": 1.0, "DRAM": 2.0}), source="t")
