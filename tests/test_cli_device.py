"""The command line picks a preset as the workflow does when --preset is left out.

An ncu export holding its own "Theoretical" peaks is drawn on them (preset ``ncu-NAME``);
an input naming its GPU is drawn on the preset whose hardware.yaml ``devices`` list it;
an input drawn on another GPU's preset gets one warning naming both.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import polars as pl
import pytest
from test_ncu_synthetic import export

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")


def rooflow(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, timeout=120)


def dram_row(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    table = pl.read_csv(io.StringIO(proc.stdout))
    return table.filter(pl.col("level") == "DRAM").row(0, named=True)


KERNEL = {  # 100,000 FFMA = 200,000 FP32 FLOP, 1,000,000 DRAM bytes, 2 µs
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", "100,000"),
    "dram__bytes.sum": ("byte", "1,000,000"),
    "gpu__time_duration.sum": ("usecond", "2"),
}
PEAKS = {  # Nsight Compute roofline section metrics (roofs/ncu.py module doc)
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": ("inst/cycle", "64"),
    "sm__cycles_elapsed.avg.per_second": ("cycle/nsecond", "1.5"),
    "dram__bytes.sum.peak_sustained": ("byte/cycle", "500"),
    "dram__cycles_elapsed.avg.per_second": ("cycle/nsecond", "2"),
}


def test_an_export_with_its_peaks_needs_no_hardware(tmp_path: Path) -> None:
    path = export(tmp_path / "gemm.csv", [(0, "k", KERNEL | PEAKS)])
    row = dram_row(rooflow("table", str(path)))
    # fp32 roof 64 FFMA/cycle × 2 FLOP × 1.5 GHz = 1.92e11 FLOP/s; DRAM 500 B/cycle ×
    # 2 GHz = 1e12 B/s. AI 200,000 / 1,000,000 = 0.2 → memory ceiling 2e11 > 1.92e11:
    # compute-bound; performance 200,000 / 2 µs = 1e11 → 1e11 / 1.92e11 = 52.08 %.
    assert row["compute_roof"] == pytest.approx(1.92e11)
    assert row["memory_roof"] == pytest.approx(1e12)
    assert row["pct_of_roof"] == pytest.approx(52.083, abs=1e-3)


def test_its_peaks_unreadable_names_the_options(tmp_path: Path) -> None:
    peaks = {k: (unit, "n/a") for k, (unit, _) in PEAKS.items()}  # named, no values
    path = export(tmp_path / "gemm.csv", [(0, "k", KERNEL | peaks)])
    proc = rooflow("table", str(path))
    assert proc.returncode == 1
    line = proc.stderr.strip()
    assert "\n" not in line and "no Theoretical peaks" in line
    assert "--preset PRESET" in line and "--preset-file" in line


def raw_page(path: Path, device: str) -> Path:
    """ncu --csv --page raw of one launch, naming its GPU; no peaks."""
    path.write_text(
        '"ID","Kernel Name","device__attribute_display_name","dram__bytes.sum",'
        '"gpu__time_duration.sum","sm__sass_thread_inst_executed_op_ffma_pred_on.sum"\n'
        '"","","","byte","usecond","inst"\n'
        f'"0","k","{device}","1,000,000","2","100,000"\n')
    return path


def test_a_file_naming_its_gpu_picks_its_preset(tmp_path: Path) -> None:
    path = raw_page(tmp_path / "run.csv", "NVIDIA H100 80GB HBM3")
    proc = rooflow("table", str(path))
    row = dram_row(proc)
    # h100-sxm (hardware.yaml devices: "NVIDIA H100 80GB HBM3"): FP32 67 TFLOP/s, HBM
    # 3.35 TB/s (NVIDIA H100 datasheet); DRAM is judged on its HBM roof.
    assert row["compute_roof"] == pytest.approx(67e12)
    assert row["memory_roof"] == pytest.approx(3.35e12)
    assert "drawn on preset h100-sxm" in proc.stderr


def test_another_gpus_preset_gets_one_warning_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "mi100.csv"
    path.write_text("label,arithmetic_intensity,tflops,device\na,10,5,MI100\nb,20,6,MI100\n")
    proc = rooflow("table", str(path), "--hardware", "h100-sxm")
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "another GPU" in line]
    assert len(warned) == 1
    assert "'MI100'" in warned[0] and "NVIDIA H100 80GB HBM3" in warned[0]
    proc = rooflow("table", str(raw_page(tmp_path / "h.csv", "NVIDIA H100 80GB HBM3")),
                   "--hardware", "h100-sxm")
    assert proc.returncode == 0 and "another GPU" not in proc.stderr  # its own: no warning


def test_nothing_to_tell_still_asks_for_hardware(tmp_path: Path) -> None:
    path = export(tmp_path / "anon.csv", [(0, "k", KERNEL)])
    proc = rooflow("table", str(path))
    assert proc.returncode == 1 and "give --preset PRESET" in proc.stderr
