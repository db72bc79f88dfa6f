"""Tables as JSON (`--format json`, or a .json output): one documented shape, CSV's numbers."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
from pathlib import Path

import polars as pl
import pytest

from rooflow.export import column_units, table_format, to_json
from rooflow.points import to_points

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
PEAKS = ("--peak-tflops", "100", "--peak-bandwidth", "1000")
KEYS = ["format", "version", "table", "columns", "units", "records"]


def rooflow(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, timeout=120)


def same_as_csv(document: dict, csv_text: str) -> None:
    """Every JSON record is its CSV row: numbers equal, empty cells null, booleans."""
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert list(rows[0]) == document["columns"]
    assert len(rows) == len(document["records"])
    for row, record in zip(rows, document["records"], strict=True):
        assert list(record) == document["columns"]
        for column, cell in row.items():
            value = record[column]
            if value is None:
                assert cell == "", (column, cell)
            elif isinstance(value, bool):
                assert cell == str(value).lower(), (column, cell)
            elif isinstance(value, (int, float)):
                assert float(cell) == value, (column, cell, value)
            else:
                assert cell == value, (column, cell, value)


@pytest.fixture
def run_csv(tmp_path) -> Path:
    """A roofline CSV: a GEMM pair (10 and 50 TFLOP/s at AI 1000) and a copy (flop 0)."""
    path = tmp_path / "run.csv"
    frame = pl.DataFrame({"label": ["gemm", "gemm", "copy"], "kernel": ["gemm", "gemm", "copy"],
                          "series": ["Original", "Optimized", "kernel"], "pair": ["g", "g", ""],
                          "flop": [1e12, 1e12, 0.0], "bytes": [1e9] * 3,
                          "time_s": [0.1, 0.02, 0.004], "row": [1, 2, 3]})
    # canonical points (a hand-written roofline CSV has no bandwidth-only rows)
    to_points(frame.with_columns(
        arithmetic_intensity=pl.when(pl.col("flop") > 0).then(pl.col("flop") / pl.col("bytes")),
        performance=pl.col("flop") / pl.col("time_s"))).write_csv(path)
    return path


def test_table_json_has_the_documented_shape_and_the_csvs_numbers(run_csv):
    as_csv = rooflow("table", str(run_csv), *PEAKS)
    as_json = rooflow("table", str(run_csv), *PEAKS, "--format", "json")
    assert as_csv.returncode == 0 and as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    assert list(document) == KEYS
    assert document["format"] == "rooflow-table" and document["version"] == 1
    assert document["table"] == "analysis"
    same_as_csv(document, as_csv.stdout)
    records = document["records"]
    # by hand: 1e12 FLOP in 0.1 s = 1e13 FLOP/s, 10 % of the 100 TFLOP/s roof; the pair's
    # speedup 5; the copy 1e9 B in 4 ms = 2.5e11 byte/s, 25 % of 1000 GB/s, no % of roof
    assert records[0]["performance"] == pytest.approx(1e13)
    assert records[0]["pct_of_roof"] == pytest.approx(10)
    assert records[1]["pair_speedup"] == pytest.approx(5)
    assert records[2]["bandwidth_only"] is True and records[2]["pct_of_roof"] is None
    assert records[2]["achieved_bandwidth"] == pytest.approx(2.5e11)
    assert records[2]["pct_of_memory_roof"] == pytest.approx(25)
    units = document["units"]
    assert units["time_s"] == "s" and units["achieved_bandwidth"] == "byte/s"
    assert units["pct_of_roof"] == "%" and units["performance"].startswith("FLOP/s")
    assert "label" not in units


def test_json_by_suffix_on_table_plot_convert_and_compare(run_csv, tmp_path):
    out = tmp_path / "t.json"
    assert rooflow("table", str(run_csv), *PEAKS, "-o", str(out)).returncode == 0
    assert json.loads(out.read_text())["table"] == "analysis"
    plot_table = tmp_path / "p.json"
    proc = rooflow("plot", str(run_csv), *PEAKS, "-o", str(tmp_path / "p.png"), "--table",
                   str(plot_table))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(plot_table.read_text())["records"][0]["pct_of_roof"] == pytest.approx(10)
    # convert: the canonical points, same numbers as its CSV
    points = tmp_path / "points.json"
    assert rooflow("convert", str(run_csv), "-o", str(points)).returncode == 0
    document = json.loads(points.read_text())
    assert document["table"] == "points"
    same_as_csv(document, rooflow("convert", str(run_csv)).stdout)
    # compare: suffixed columns carry their unit
    cmp_json, cmp_csv = tmp_path / "cmp.json", tmp_path / "cmp.csv"
    for table in (cmp_json, cmp_csv):
        proc = rooflow("compare", str(run_csv), str(run_csv), *PEAKS, "-o",
                       str(tmp_path / "cmp.png"), "--table", str(table))
        assert proc.returncode == 0, proc.stderr
    document = json.loads(cmp_json.read_text())
    assert document["table"] == "comparison"
    assert document["units"]["time_s_baseline"] == "s"
    assert document["units"]["speedup"].startswith("ratio")
    same_as_csv(document, cmp_csv.read_text())
    assert {r["speedup"] for r in document["records"]} == {1.0}


def test_format_option_wins_over_the_suffix_and_is_a_choice(run_csv, tmp_path):
    out = tmp_path / "t.txt"
    assert rooflow("table", str(run_csv), *PEAKS, "--format", "json", "-o",
                   str(out)).returncode == 0
    assert json.loads(out.read_text())["version"] == 1
    proc = rooflow("table", str(run_csv), *PEAKS, "--format", "xml")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert table_format("x.JSON") == "json" and table_format("x.csv") == "csv"
    assert table_format(None) == "csv" and table_format("x.csv", "json") == "json"


def test_values_json_cannot_hold_are_null():
    frame = pl.DataFrame({"headroom": [math.inf, math.nan, 2.0], "label": ["a", None, "é"]})
    document = json.loads(to_json(frame))
    assert [r["headroom"] for r in document["records"]] == [None, None, 2.0]
    assert [r["label"] for r in document["records"]] == ["a", None, "é"]
    assert json.loads(to_json(frame.clear()))["records"] == []


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_json_records_written_chunk_by_chunk_are_one_a_line(monkeypatch, chunk):
    from rooflow import export

    # 5 records in chunks of 1 (five chunks, more than are serialised ahead, so the
    # order of records across chunks is tested), 2 (2 + 2 + 1) and 5 (one): the joins
    # between chunks are commas like the joins inside one; a newline inside a name is
    # written \n, so it ends no record.
    monkeypatch.setattr(export, "_RECORDS_PER_CHUNK", chunk)
    frame = pl.DataFrame({"kernel": ["a\nb", "c", None, "d,e", "}\n{"],
                          "headroom": [1.5, math.nan, 3.0, math.inf, 1e-300],
                          "bandwidth_only": [True, False, None, True, False]})
    text = to_json(frame)
    document = json.loads(text)
    assert document["records"] == [
        {"kernel": "a\nb", "headroom": 1.5, "bandwidth_only": True},
        {"kernel": "c", "headroom": None, "bandwidth_only": False},
        {"kernel": None, "headroom": 3.0, "bandwidth_only": None},
        {"kernel": "d,e", "headroom": None, "bandwidth_only": True},
        {"kernel": "}\n{", "headroom": 1e-300, "bandwidth_only": False}]
    records = [line for line in text.splitlines() if line.startswith("  {")]
    assert len(records) == 5 and all(json.loads(line.rstrip(",")) for line in records)


def test_units_of_comparison_columns_follow_their_base_column():
    assert column_units(["pct_of_roof_new", "kernel_baseline", "time_saved_s"]) == {
        "pct_of_roof_new": "%", "time_saved_s": "s (baseline - new)"}


@pytest.mark.shared
def test_table_json_of_a_workload_with_bandwidth_only_rows(shared_data):
    workload = str(shared_data / "omniperf/mi325x-hipkittens-gemm")
    as_csv = rooflow("table", workload, "--hardware", "mi325x")
    as_json = rooflow("table", workload, "--hardware", "mi325x", "--format", "json")
    assert as_csv.returncode == 0 and as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    same_as_csv(document, as_csv.stdout)
    assert sum(r["bandwidth_only"] for r in document["records"]) == 79


# Markdown for a person (issue 34, item 9) ---------------------------------------------------


def _ranked_table() -> pl.DataFrame:
    from rooflow.analysis import analyze
    from rooflow.roofs.preset import preset_from_mapping

    # fp32 roof 10 TFLOP/s, HBM 1000 GB/s; intensity 100 FLOP/byte: attainable
    # min(10, 100 × 1) = 10 TFLOP/s. 5 TFLOP/s achieved: headroom 2, saved = time × ½:
    # mid 6 ms → 3 ms, big 20 ms → 10 ms, small 1 ms → 0.5 ms. slow has no time (nothing
    # saved: last) and 1.234e12 FLOP/s → "1.23 TFLOP/s", headroom 10 / 1.234 = 8.10.
    preset = preset_from_mapping("p", {
        "name": "p", "source": "test", "compute": {"fp32": 10}, "memory": {"HBM": 1000},
        "default_compute": "fp32", "default_memory": "HBM"}, source="test")
    points = to_points(pl.DataFrame({
        "kernel": ["mid", "slow", "big", "small"], "precision": ["fp32"] * 4,
        "arithmetic_intensity": [100.0] * 4, "performance": [5e12, 1.234e12, 5e12, 5e12],
        "time_s": [6e-3, None, 20e-3, 1e-3], "row": [1, 2, 3, 4]}))
    return analyze(points, preset)


def test_markdown_is_ranked_by_time_saved_in_human_units():
    from rooflow.export import to_markdown

    lines = to_markdown(_ranked_table()).splitlines()
    assert lines[0].endswith("| time (ms) | potential saved (ms) |")
    rows = [line.split(" | ") for line in lines[2:]]
    assert [(r[1], r[-2], r[-1]) for r in rows] == [
        ("big", "20", "10 |"), ("mid", "6", "3 |"), ("small", "1", "0.5 |"),
        ("slow", "–", "– |")]
    assert rows[0][6:10] == ["5 TFLOP/s", "10 TFLOP/s", "50.0", "2.00×"]
    assert rows[3][6] == "1.23 TFLOP/s" and rows[3][9] == "8.10×"


def test_table_command_is_markdown_on_a_terminal_and_csv_in_a_pipe(monkeypatch):
    from click.testing import CliRunner

    from rooflow import export
    from rooflow.cli.main import cli

    source = str(Path(__file__).resolve().parents[1] / "resources/benchmarks/moe_attention.csv")
    args = ["table", source, "--hardware", "h100-sxm"]
    runner = CliRunner()
    piped = runner.invoke(cli, args)
    assert piped.exit_code == 0 and piped.stdout.startswith("series,"), piped.output
    asked = runner.invoke(cli, [*args, "--format", "md"])
    assert asked.stdout.startswith("| # | kernel |"), asked.output
    monkeypatch.setattr(export, "stdout_is_terminal", lambda: True)
    shown = runner.invoke(cli, args)
    assert shown.stdout == asked.stdout
    assert runner.invoke(cli, [*args, "--format", "csv"]).stdout == piped.stdout
