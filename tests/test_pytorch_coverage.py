"""Where a trace's GPU time went, in summary.md and on the CLI (issue 22, item 5); --per-launch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.adapters.pytorch.coverage import (
    coverage,
    coverage_of,
    read_coverage,
    summary_lines,
    to_metadata,
)
from rooflow.adapters.pytorch.reader import pytorch_points, pytorch_table
from rooflow.escape import markdown_cell, markdown_text
from rooflow.kinds import KINDS
from rooflow.settings import Settings
from rooflow.summary import summary_markdown

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "resources" / "pytorch" / "h100_llama_layer.json"
ROOFLOW = str(Path(sys.executable).with_name("rooflow"))


def test_coverage_of_the_example_trace():
    cov = coverage(pytorch_table(EXAMPLE))
    # The log's figures (test_pytorch): 2.785 ms, modelled 98.8 %, host transfers 0.1 %.
    assert cov["gpu_time_s"] == pytest.approx(2.785e-3, abs=5e-7)
    shares = {k: v / cov["gpu_time_s"] for k, v in cov["shares"].items()}
    assert shares["modelled"] == pytest.approx(0.988, abs=6e-4)
    assert shares["unlinked"] == shares["communication"] == 0
    assert [op for op, _, _ in cov["no_model"]] == ["aten::cumsum"]
    assert sum(cov["shares"].values()) == pytest.approx(cov["gpu_time_s"])


def test_points_keep_their_coverage_and_the_parquet_carries_it(tmp_path):
    pytorch_points(EXAMPLE, log=lambda _: None)
    cov = coverage_of(EXAMPLE)
    assert cov is not None and coverage_of(tmp_path / "other.json") is None
    path = tmp_path / "points.parquet"
    pl.DataFrame({"a": [1]}).write_parquet(path, metadata=to_metadata(cov))
    assert read_coverage(path) == cov
    pl.DataFrame({"a": [1]}).write_parquet(path)
    assert read_coverage(path) is None


def _trace_row(label: str, saved: float, **over) -> dict:
    row = {"dataset": "pytorch-t", "source": "t.json", "row": 0, "kernel": label,
           "series": "pytorch", "pair": None, "label": label, "level": "DRAM",
           "precision": "bf16-tensor", "compute_roof_name": "bf16-tensor", "unit": "FLOP",
           "bandwidth_only": False, "theoretical": False, "binding": True,
           "above_roof": False, "kernel_bound": "compute", "performance": 5e14,
           "attainable": 1e15, "achieved_bandwidth": 1e12, "memory_roof": 3e12,
           "pct_of_roof": 50.0, "pct_of_memory_roof": 33.0, "kernel_headroom": 2.0,
           "time_s": 2 * saved, "potential_time_saved_s": saved, "pair_speedup": None}
    return {**row, **over}


def test_summary_lists_a_trace_s_shares_and_ranks_its_operators(tmp_path):
    # 10 ms of GPU time: 6 ms in points (5 modelled, 1 bandwidth-only), 1 ms without a
    # model, 3 ms unlinked (graph replays).
    cov = {"gpu_time_s": 0.010,
           "shares": {"modelled": 0.005, "bandwidth-only": 0.001, "no model": 0.001,
                      "communication": 0.0, "host transfers": 0.0, "unlinked": 0.003},
           "no_model": [["aten::cumsum|x", 0.001, 4]]}
    table = pl.DataFrame([_trace_row("aten::mm A", 0.001), _trace_row("aten::bmm B", 0.002),
                          _trace_row("aten::add C", 0.0005, kernel_bound="DRAM",
                                     bandwidth_only=True)], infer_schema_length=None)
    points = tmp_path / "pytorch-t.parquet"  # the workflow's points file, coverage inside
    pl.DataFrame({"a": [1]}).write_parquet(points, metadata=to_metadata(cov))
    other = tmp_path / "ncu-x.parquet"  # another kind's points file: no coverage, no row
    pl.DataFrame({"a": [1]}).write_parquet(other)
    section = KINDS["pytorch"].hooks().summary_lines({"pytorch-t": points, "ncu-x": other},
                                                     {"h100-sxm": table}, markdown_text)
    text = summary_markdown({"h100-sxm": table}, kind_lines=section)
    lines = text.splitlines()
    head = lines.index("## PyTorch traces: where the GPU time went")
    assert lines.index("## h100-sxm") > head
    row = next(line for line in lines if line.startswith("| pytorch-t |"))
    assert not any(line.startswith("| ncu-x |") for line in lines)
    # GPU time, then modelled, bandwidth-only, no model, communication, host, unlinked.
    assert row == ("| pytorch-t | 10.000 | 50.0 % | 10.0 % | 10.0 % | 0.0 % | 0.0 % | 30.0 % "
                   r"| aten::cumsum\|x 10.0 % (4 calls) |")
    start = lines.index("Operators of pytorch-t by potential time saved on h100-sxm:")
    ranked = lines[start + 4:start + 7]
    assert ranked == ["| 1 | aten::bmm B | compute | 50.0 | 2 | 20.0 % |",
                      "| 2 | aten::mm A | compute | 50.0 | 1 | 10.0 % |",
                      "| 3 | aten::add C | DRAM | 33.0 | 0.5 | 5.0 % |"]
    # The workflow's summary scans each preset's table (a LazyFrame): the same text.
    lazy = {"h100-sxm": table.lazy()}
    section = KINDS["pytorch"].hooks().summary_lines({"pytorch-t": points, "ncu-x": other},
                                                     lazy, markdown_text)
    assert summary_markdown(lazy, kind_lines=section) == text


def test_no_traces_no_section():
    assert summary_lines({}, {}, markdown_cell) == []
    assert KINDS["pytorch"].hooks().summary_lines({}, {}, markdown_cell) == []
    assert "PyTorch traces" not in summary_markdown({})


@pytest.mark.shared
def test_graph_replay_share_reaches_the_summary(shared_data):
    (path,) = (shared_data / "pytorch" / "tracelens-mi300x-vllm-graph-replay").glob("*.gz")
    cov = coverage(pytorch_table(path))
    text = "\n".join(summary_lines({"pytorch-g": cov}, {}, markdown_cell))
    row = next(line for line in text.splitlines() if line.startswith("| pytorch-g |"))
    unlinked = float(row.split("|")[8].strip().removesuffix(" %"))
    assert 95 < unlinked < 97  # as test_pytorch's graph replay test: 361 replayed kernels


def test_config_per_launch_gives_each_call_its_point():
    shapes = load_points("pytorch", EXAMPLE)
    calls = load_points("pytorch", EXAMPLE, Settings.from_config({"pytorch": {"per_launch": True}}))
    assert calls.height == shapes.height + 1  # the two calls of one aten::mm shape
    assert (calls["row"] > 0).all() and (shapes["row"] == 0).all()


def test_cli_notes_coverage_and_ranking_and_takes_per_launch(tmp_path):
    out = tmp_path / "t.csv"
    proc = subprocess.run([ROOFLOW, "table", str(EXAMPLE), "--hardware", "h100-sxm",
                           "--per-launch", "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "its points cover 99.7 % of the GPU time (modelled 98.8 %" in proc.stderr
    assert "unlinked 0.0 %" in proc.stderr
    ranking = next(line for line in proc.stderr.splitlines()
                   if "operators by potential time saved on h100-sxm: 1. " in line)
    assert "% of GPU time)" in ranking
    table = pl.read_csv(out)
    assert table.filter(pl.col("label").str.contains(" @")).height == table.height
