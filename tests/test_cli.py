"""The `rooflow` command line, run as a user would (subprocess)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")


def rooflow(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_hardware_table_lists_presets():
    proc = rooflow("hardware")
    assert proc.returncode == 0
    out = proc.stdout
    assert "arc-pro-b70" in out and "301.8" in out  # ridge 183.5e12 / 608e9
    # every roof with its source: the B70's derived XMX figure cites its derivation
    assert "367 INT8 TOPS / 2" in out and "608 GB/s" in out
    # a preset without cache roofs says so
    assert "no vendor or published microbenchmark figure for the L2 or SLM" in out


def test_plot_with_preset_and_table(repo, tmp_path):
    out, table = tmp_path / "fa.png", tmp_path / "fa.csv"
    proc = rooflow("plot", str(repo / "resources/roofline/flash_attention.csv"), "--hardware",
                   "arc-pro-b70", "--connect", "--annotate", "--key", "--series-order",
                   "Optimized,Original", "--dpi", "80", "-t", "FA", "-o", str(out),
                   "--table", str(table))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    t = pl.read_csv(table)
    # achieved 35, 74, 18, 71 TFLOP/s, all compute-bound at 183.5 TFLOP/s (AI > ridge 301.8)
    assert t["pct_of_roof"].to_list() == pytest.approx(
        [35 / 1.835, 74 / 1.835, 18 / 1.835, 71 / 1.835])


def test_plot_custom_roof_svg(repo, tmp_path):
    out = tmp_path / "fa.svg"
    proc = rooflow("plot", str(repo / "resources/roofline/flash_attention.csv"),
                   "--peak-tflops", "100", "--peak-bandwidth", "1000", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().lstrip().startswith("<?xml")


def test_plot_reports_points_above_roof(tmp_path):
    csv = tmp_path / "hot.csv"
    csv.write_text("ai,tflops\n1,50\n")
    proc = rooflow("plot", str(csv), "--peak-tflops", "100", "--peak-bandwidth", "1000",
                   "-o", str(tmp_path / "hot.png"))
    assert proc.returncode == 0
    assert "above the roof" in proc.stderr and (tmp_path / "hot.png").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["plot", "missing.csv", "--hardware", "h100-sxm"],
        ["plot", "BAD", "--hardware", "no-such-gpu"],
        ["plot", "BAD", "--hardware", "h100-sxm"],
        ["plot", "BAD", "--peak-tflops", "10"],
        ["plot", "BAD", "--hardware", "h100-sxm", "-o", "x.gif"],
        ["from-spec", "missing.yaml"],
        ["plot"],
    ],
)
def test_user_errors_one_line_exit_1_no_output(tmp_path, args):
    bad = tmp_path / "bad.csv"
    bad.write_text("ai,tflops\n10,abc\n")
    args = [str(bad) if a == "BAD" else a for a in args]
    proc = rooflow(*args, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("rooflow: error:")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


@pytest.mark.shared
def test_from_ncu_real_nersc_export(shared_data, tmp_path):
    out = tmp_path / "gpp.csv"
    proc = rooflow("from-ncu", str(shared_data / "ncu/nersc-gpp/output.csv"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    t = pl.read_csv(out)
    assert set(t["level"]) == {"DRAM", "L2", "L1"}
    ai = dict(zip(t["level"], t["arithmetic_intensity"], strict=True))
    # known values of the NERSC GPP export (hand-worked in tests/test_ncu.py)
    assert ai["DRAM"] == pytest.approx(14.915, rel=1e-4)
    assert ai["L1"] == pytest.approx(4.423, rel=1e-3)
    assert t["flop_per_s"][0] == pytest.approx(88.4e9, rel=1e-3)
    # the written table plots as it is (canonical points CSV)
    png = tmp_path / "gpp.png"
    proc = rooflow("plot", str(out), "--hardware", "a100-sxm", "-o", str(png))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.shared
def test_from_ncu_rejects_nan_export_and_missing_metrics(shared_data, tmp_path):
    proc = rooflow("from-ncu", str(shared_data / "ncu/nersc-gpp/output8.csv"), "-o",
                   str(tmp_path / "x.csv"))
    assert proc.returncode == 1 and "nan" in proc.stderr.lower()
    wide = next((shared_data / "ncu/raw-wide-b200").glob("*.csv"))
    proc = rooflow("from-ncu", str(wide))
    assert proc.returncode == 1 and "dram__bytes" in proc.stderr
    assert not (tmp_path / "x.csv").exists()


def test_from_rocprof_example_workload(repo):
    proc = rooflow("from-rocprof", str(repo / "resources/rocprof/mi210_gemm_triad"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("series,") and len(lines) == 1 + 11  # 3 kernels × levels
