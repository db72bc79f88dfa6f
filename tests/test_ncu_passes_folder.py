"""A file of another tool or run among a folder's ncu passes: skipped with one note.

The same whether the folder or the list of its files is given (``rooflow table DIR`` and
``rooflow table DIR/*.csv``), on ``table`` and ``convert``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest
from test_ncu_synthetic import export

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")

# nvprof --csv --metrics flop_count_sp (its "Metric result" table; CUDA profiler docs,
# nvprof "Metrics"): no "ID"/"Kernel Name" header, nvprof metric names.
NVPROF = (
    "==4242== NVPROF is profiling process 4242, command: ./app\n"
    "==4242== Profiling application: ./app\n"
    "==4242== Metric result:\n"
    '"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"\n'
    '"Tesla V100-SXM2-16GB (0)","k",1,"flop_count_sp","Floating Point Operations(Single '
    'Precision)",1000,1000,1000\n'
)


@pytest.fixture
def passes(tmp_path: Path) -> Path:
    """Two passes of one run of kernel "k", another run's export, an nvprof file."""
    folder = tmp_path / "run"
    folder.mkdir()
    # pass a: time 1 µs, 1,000 DRAM bytes; pass b: 500 FFMA thread instructions.
    export(folder / "a.csv", [(0, "k", {"gpu__time_duration.sum": ("usecond", "1"),
                                        "dram__bytes.sum": ("byte", "1,000")})])
    export(folder / "b.csv", [(0, "k", {
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", "500"),
        "gpu__time_duration.sum": ("usecond", "1")})])
    export(folder / "c.csv", [(0, "other", {"gpu__time_duration.sum": ("usecond", "2"),
                                            "dram__bytes.sum": ("byte", "8,000")})])
    (folder / "d_nvprof.csv").write_text(NVPROF)
    return folder


def convert(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, "convert", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("form", ["folder", "list"])
def test_the_stranger_is_skipped_with_one_note(passes: Path, form: str, tmp_path: Path) -> None:
    out = tmp_path / "points.csv"
    given = [str(passes)] if form == "folder" else sorted(map(str, passes.glob("*.csv")))
    proc = convert(*given, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    points = pl.read_csv(out)
    # only kernel k: FP32 FLOP = 2 × 500 FFMA = 1,000 (FMA counts 2); over 1,000 DRAM
    # bytes → arithmetic intensity 1 FLOP/byte; over 1 µs → 1e9 FLOP/s.
    dram = points.filter(pl.col("level") == "DRAM")
    assert dram["kernel"].to_list() == ["k"]
    assert dram["arithmetic_intensity"].to_list() == pytest.approx([1.0])
    assert dram["performance"].to_list() == pytest.approx([1e9])
    err = proc.stderr
    assert err.count("d_nvprof.csv: not an Nsight Compute export") == 1
    assert err.count("c.csv: no kernel in common with the other passes") == 1


def test_two_runs_without_a_common_kernel_are_both_kept(passes: Path, tmp_path: Path) -> None:
    # Of two files, which one is the stranger is not known: both kernels are read.
    out = tmp_path / "points.csv"
    proc = convert(str(passes / "a.csv"), str(passes / "c.csv"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(set(pl.read_csv(out)["kernel"])) == ["k", "other"]
