"""The large-table paths give what the simple ones give: chunked density binning, top-N,
Categorical codes, points files written before columns became Categorical, the
above-roof warnings of a plot that computes only the drawn columns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from rooflow.plotting import density as dn
from rooflow.plotting.core import top_points
from rooflow.plotting.markers import codes
from rooflow.points import POINT_SCHEMA, read_points, to_points

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")


def test_log_counts_by_hand_and_per_group():
    # Limits 1 … 1e4 (x) and 1 … 1e4 (y): 240 × 160 cells; x = 1 is cell 0, y = 1e4 is the
    # last y cell (159). Point (10, 100): log10 x = 1 → 1/4 of 240 = cell 60; log10 y = 2
    # → 2/4 of 160 = cell 80. (0, 5) and (20, NaN) are not counted.
    x = np.array([1.0, 10.0, 10.0, 0.0, 20.0])
    y = np.array([1e4, 100.0, 100.0, 5.0, np.nan])
    group = np.array([0, 1, 0, 1, 0])
    counts, _, _ = dn.log_counts(x, y, (1, 1e4), (1, 1e4), group, 2)
    assert counts.shape == (2, *dn.BINS) and counts.sum() == 3
    assert counts[0, 0, 159] == 1 and counts[0, 60, 80] == 1 and counts[1, 60, 80] == 1


def test_log_counts_chunked_equals_one_pass(monkeypatch):
    rng = np.random.default_rng(3)
    x, y = 10 ** rng.uniform(-1, 4, 10_001), 10 ** rng.uniform(9, 15, 10_001)
    group = rng.integers(0, 3, x.size)
    whole, _, _ = dn.log_counts(x, y, (0.1, 1e4), (1e9, 1e15), group, 3)
    monkeypatch.setattr(dn, "CHUNK", 997)  # chunks that do not divide the rows
    chunked, _, _ = dn.log_counts(pl.Series(x), pl.Series(y), (0.1, 1e4), (1e9, 1e15), group, 3)
    assert np.array_equal(whole, chunked) and whole.sum() == x.size
    for g in range(3):  # each group's image is its own points' histogram
        alone, _, _ = dn.log_counts(x[group == g], y[group == g], (0.1, 1e4), (1e9, 1e15))
        assert np.array_equal(whole[g], alone)


def test_top_n_keeps_file_order_on_ties():
    headroom = [1.0, 9.0, 2.0, 9.0, None, 9.0, float("nan"), 9.0, 3.0, 9.0]
    table = pl.DataFrame({"headroom": headroom, "i": range(10)})
    top, left_out = top_points(table, 3)
    assert top["i"].to_list() == [1, 3, 5] and left_out == 7  # first three 9× in file order
    top, _ = top_points(table, 7)  # five 9×, then 3× and 2×; 1× and null/NaN left out
    assert top["i"].to_list() == [1, 2, 3, 5, 7, 8, 9]


def test_categorical_codes_match_string_codes():
    values = ["Optimized", "Original", "Optimized", "x"]
    names = ["Original", "Optimized", "x"]
    as_cat = codes(pl.Series(values, dtype=pl.Categorical), names)
    assert as_cat.tolist() == codes(pl.Series(values), names).tolist() == [1, 0, 1, 2]
    with pytest.raises(ValueError, match="not in names"):
        codes(pl.Series(values, dtype=pl.Categorical), ["Original", "Optimized"])


def test_categorical_codes_of_a_chunked_column_and_of_many_names():
    """Codes are mapped chunk by chunk (an analysis table's columns come in many chunks)."""
    parts = [pl.Series(["b", "a"], dtype=pl.Categorical), pl.Series(["c"], dtype=pl.Categorical)]
    chunked = pl.concat(parts, rechunk=False)
    assert chunked.n_chunks() == 2
    assert codes(chunked, ["a", "b", "c"]).tolist() == [1, 0, 2]
    # 200 names do not fit int8: the codes go to 199 all the same.
    many = [f"s{i}" for i in range(200)]
    assert codes(pl.Series(many[::-1], dtype=pl.Categorical), many).tolist() == list(
        range(199, -1, -1))


def test_points_file_with_string_columns_reads_as_canonical(tmp_path):
    """A points Parquet written before the Categorical columns still reads and concatenates."""
    old = to_points(pl.DataFrame({"series": ["a"], "arithmetic_intensity": [2.0],
                                  "performance": [1e12]}))
    old = old.with_columns(pl.col(c).cast(pl.String) for c, t in POINT_SCHEMA.items()
                           if t == pl.Categorical)
    old.write_parquet(tmp_path / "old.parquet")
    read = read_points(tmp_path / "old.parquet")
    assert read.schema == pl.Schema(POINT_SCHEMA)
    both = pl.concat([read, to_points(pl.DataFrame({"series": ["b"],
                                                    "arithmetic_intensity": [4.0]}))])
    assert both["series"].to_list() == ["a", "b"]


@pytest.mark.parametrize("given, held", [(["FP16-Tensor"] * 4, 0), (["fp32", "fp16"] * 2, 4)])
def test_precision_column_held_as_one_value_or_codes(tmp_path, given, held):
    """A roofline Parquet's precision column of one value is one scalar in the points
    (polars' estimated size: none per row, where a Categorical holds a 4-byte code per
    row); of several values, 4 bytes per row. 100,000 rows."""
    from rooflow.adapters.roofline import read_roofline_csv

    n = 100_000
    pl.DataFrame({"ai": np.linspace(1.0, 100.0, n), "tflops": np.full(n, 1.0),
                  "precision": given * (n // 4)}).write_parquet(tmp_path / "p.parquet")
    pts = read_roofline_csv(tmp_path / "p.parquet")
    # Measured first: pts["precision"] materialises a scalar column in the frame.
    assert pts.select("precision").estimated_size() // n == held
    assert set(pts["precision"]) == {g.lower() for g in given}


def test_plot_warning_names_attainable_and_percent(tmp_path):
    # Roof at AI 1: min(100 TFLOP/s, 1 FLOP/byte × 1000 GB/s) = 1 TFLOP/s; 50 TFLOP/s
    # achieved is 5000 % of it. The plot computes only drawn columns; the warning's
    # roof figures come from the above-roof rows alone.
    csv = tmp_path / "hot.csv"
    csv.write_text("ai,tflops\n10,5\n1,50\n")
    proc = subprocess.run([ROOFLOW, "plot", str(csv), "--peak-tflops", "100",
                           "--peak-bandwidth", "1000", "-o", str(tmp_path / "hot.png")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"{csv} row 2 " in proc.stderr
    assert "50 TFLOP/s > 1 TFLOP/s (5000% of roof)" in proc.stderr


@pytest.mark.parametrize(("inherited", "expected"), [
    (None, "dirty_decay_ms:0,muzzy_decay_ms:0"),
    # polars' own setting, passed on by a parent that imported polars (make bench, Snakemake)
    ("dirty_decay_ms:500,muzzy_decay_ms:1000", "dirty_decay_ms:0,muzzy_decay_ms:0"),
    ("narenas:1", "narenas:1"),  # the user's own choice is kept
])
def test_allocator_returns_memory_unless_the_user_chose(inherited, expected):
    """The rooflow program and the workflow set it (rooflow.cli.program); the library never."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    if inherited:
        env["_RJEM_MALLOC_CONF"] = inherited
    code = ("import os, rooflow, rooflow.cli.main\n"
            "print(os.environ.get('_RJEM_MALLOC_CONF'))\n"
            "from rooflow.cli.program import release_freed_memory\n"
            "release_freed_memory()\n"
            "print(os.environ['_RJEM_MALLOC_CONF'])")
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(inherited), expected]
