"""Every launch of an ncu export is judged at its own clocks, not at launch 0's.

An export's own "Theoretical" peaks are per-cycle peaks × the clocks of the launch they
were read from (:mod:`rooflow.roofs.ncu`): the preset records those clocks, and each other
launch's compute, L1, L2 and DRAM roofs are scaled to the clocks it ran at
(:func:`rooflow.analysis.analyze`), in the table, the check and the plot.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import polars as pl
import pytest
from test_ncu_synthetic import export

from rooflow.adapters.ncu.reader import ncu_points
from rooflow.analysis import analyze
from rooflow.clocks import clock_note
from rooflow.roofs import load_preset

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
DEVICE = "NVIDIA Test GPU"

# Per-cycle peaks, the same on every launch (one GPU): the roofline sections' metrics.
PEAKS = {
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": ("inst/cycle", "64"),
    "dram__bytes.sum.peak_sustained": ("byte/cycle", "500"),
    "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained": ("byte/cycle", "1,000"),
    "device__attribute_display_name": ("", DEVICE),
}


def clocks(sm_ghz: str, dram_ghz: str) -> dict:
    """The launch's SM, L1 (the SM's clock) and DRAM clocks, cycle/nsecond = GHz."""
    return {"sm__cycles_elapsed.avg.per_second": ("cycle/nsecond", sm_ghz),
            "l1tex__cycles_elapsed.avg.per_second": ("cycle/nsecond", sm_ghz),
            "dram__cycles_elapsed.avg.per_second": ("cycle/nsecond", dram_ghz)}


def work(dram: str, l1: str, us: str) -> dict:
    """100,000 FFMA = 200,000 FP32 FLOP; DRAM and L1 bytes; time in µs."""
    return {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", "100,000"),
            "dram__bytes.sum": ("byte", dram), "l1tex__t_bytes.sum": ("byte", l1),
            "gpu__time_duration.sum": ("usecond", us)}


def two_launches(tmp_path: Path) -> Path:
    # Launch 0 at SM 1.5 GHz, DRAM 2 GHz; launch 1 at SM 1.2 GHz, DRAM 0.8 GHz.
    return export(tmp_path / "two.csv", [
        (0, "first", PEAKS | clocks("1.5", "2") | work("1,000,000", "2,000,000", "2")),
        (1, "second", PEAKS | clocks("1.2", "0.8") | work("1,000,000", "4,000,000", "4")),
    ])


def rows(table: pl.DataFrame) -> dict[tuple[str, str], dict]:
    return {(r["kernel"], r["level"]): r for r in table.iter_rows(named=True)}


def test_the_preset_names_the_launch_whose_clocks_its_peaks_are_at(tmp_path: Path) -> None:
    preset = load_preset("ncu-two", measured_file=two_launches(tmp_path))
    # Launch 0: fp32 64 FFMA/cycle × 2 FLOP × 1.5 GHz = 1.92e11 FLOP/s; DRAM 500 B/cycle
    # × 2 GHz = 1e12 B/s; L1 1,000 B/cycle × 1.5 GHz = 1.5e12 B/s.
    assert preset.compute == {"fp32": pytest.approx(1.92e11)}
    assert preset.memory == {"DRAM": pytest.approx(1e12), "L1": pytest.approx(1.5e12)}
    assert preset.roof_clock_hz == pytest.approx(1.5e9)
    assert preset.memory_clock_hz == pytest.approx(2e9)
    assert (preset.clock_launch, preset.sm_clock_levels, preset.devices) == (0, ("L1",),
                                                                             (DEVICE,))


def test_each_launch_is_judged_at_its_own_clocks(tmp_path: Path) -> None:
    path = two_launches(tmp_path)
    table = rows(analyze(ncu_points(path, log=lambda _: None),
                         load_preset("ncu-two", measured_file=path)))
    first, second = table["first", "DRAM"], table["second", "DRAM"]
    # Launch 0 at the preset's own clocks: AI 200,000 / 1e6 = 0.2 FLOP/B → 0.2 × 1e12 =
    # 2e11 > 1.92e11: compute-bound; 200,000 FLOP / 2 µs = 1e11 → 1e11 / 1.92e11 = 52.08 %.
    assert first["compute_roof"] == pytest.approx(1.92e11)
    assert (first["bound"], first["pct_of_roof"]) == ("compute", pytest.approx(52.083, abs=1e-3))
    # Launch 1 at 1.2 GHz / 0.8 GHz: fp32 64 × 2 × 1.2e9 = 1.536e11; DRAM 500 × 0.8e9 =
    # 4e11 B/s → 0.2 × 4e11 = 8e10 < 1.536e11: memory-bound; 200,000 / 4 µs = 5e10 →
    # 5e10 / 8e10 = 62.5 %. At launch 0's clocks it was compute-bound at 5e10 / 1.92e11
    # = 26.04 %.
    assert second["compute_roof"] == pytest.approx(1.536e11)
    assert second["memory_roof"] == pytest.approx(4e11)
    assert (second["bound"], second["pct_of_roof"]) == ("memory", pytest.approx(62.5))
    assert second["roof_clock_hz"] == pytest.approx(1.2e9)
    # L1 is clocked with the SM: 1,000 B/cycle × 1.2 GHz = 1.2e12 B/s; AI 200,000 / 4e6 =
    # 0.05 → 6e10 attainable; 5e10 / 6e10 = 83.33 % (at 1.5 GHz: 7.5e10, 66.67 %).
    l1 = table["second", "L1"]
    assert l1["memory_roof"] == pytest.approx(1.2e12)
    assert l1["pct_of_roof"] == pytest.approx(83.333, abs=1e-3)
    assert not any(r["roof_note"] for r in table.values())


def test_the_l2_roof_is_at_each_launch_s_own_l2_clock(tmp_path: Path) -> None:
    # The roofline sections' L2 roof: 6,144 B/cycle (GH200's: 10.4637 TB/s / 1.7031 GHz)
    # × the L2 clock. Launch 0 at L2 2.0 GHz: 12.288 TB/s, the preset's; launch 1 at
    # 1.5 GHz: 6,144 × 1.5e9 = 9.216 TB/s. Launch 1 moves 3,000,000 L2 bytes in 4 µs:
    # 7.5e11 B/s, 7.5e11 / 9.216e12 = 8.138 % of its own roof (6.104 % of launch 0's).
    l2 = {"derived__lts__lts2xbar_bytes.sum.peak_sustained": ("byte/cycle", "6,144")}
    path = export(tmp_path / "l2.csv", [
        (0, "first", PEAKS | l2 | clocks("1.5", "2") | work("1,000,000", "2,000,000", "2")
         | {"lts__cycles_elapsed.avg.per_second": ("cycle/nsecond", "2"),
            "lts__t_bytes.sum": ("byte", "3,000,000")}),
        (1, "second", PEAKS | l2 | clocks("1.2", "0.8") | work("1,000,000", "4,000,000", "4")
         | {"lts__cycles_elapsed.avg.per_second": ("cycle/nsecond", "1.5"),
            "lts__t_bytes.sum": ("byte", "3,000,000")}),
    ])
    preset = load_preset("ncu-l2", measured_file=path)
    assert preset.memory["L2"] == pytest.approx(12.288e12)
    assert preset.l2_clock_hz == pytest.approx(2e9)
    table = rows(analyze(ncu_points(path, log=lambda _: None), preset))
    first, second = table["first", "L2"], table["second", "L2"]
    assert first["memory_roof"] == pytest.approx(12.288e12)
    assert second["l2_clock_hz"] == pytest.approx(1.5e9)
    assert second["memory_roof"] == pytest.approx(9.216e12)
    assert second["pct_of_memory_roof"] == pytest.approx(8.138, abs=1e-3)
    # The plot's L2 roof at the median of 2.0 and 1.5 GHz: 6,144 × 1.75e9 = 10.752 TB/s.
    drawn, line = clock_note(analyze(ncu_points(path, log=lambda _: None), preset), preset)
    assert drawn.memory["L2"] == pytest.approx(10.752e12)
    assert "L2 roof at the L2 clock held, 1,500–2,000 MHz (nominal 2,000 MHz)" in line


def test_the_command_line_tables_each_launch_at_its_clocks(tmp_path: Path) -> None:
    proc = subprocess.run([ROOFLOW, "table", str(two_launches(tmp_path))],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    table = rows(pl.read_csv(io.StringIO(proc.stdout)))
    # As above: 52.08 % for launch 0, 62.5 % (memory-bound) for launch 1.
    assert table["first", "DRAM"]["pct_of_roof"] == pytest.approx(52.083, abs=1e-3)
    assert table["second", "DRAM"]["pct_of_roof"] == pytest.approx(62.5)


def test_the_plot_names_the_launch_its_roofs_are_from(tmp_path: Path) -> None:
    path = two_launches(tmp_path)
    preset = load_preset("ncu-two", measured_file=path)
    table = analyze(ncu_points(path, log=lambda _: None), preset)
    drawn, line = clock_note(table, preset)
    # Median SM clock of 1.5 and 1.2 GHz: 1,350 MHz → fp32 roof 64 × 2 × 1.35e9 = 1.728e11.
    assert drawn.compute["fp32"] == pytest.approx(1.728e11)
    assert drawn.memory["L1"] == pytest.approx(1.35e12)
    assert line.startswith("roofs at 1,350 MHz, the median clock held while profiling "
                           "(kernels 1,200–1,500 MHz, each judged at its own; launch 0: "
                           "1,500 MHz)")


def test_check_judges_each_run_at_the_clocks_it_ran_at(tmp_path: Path) -> None:
    # One kernel in two runs: the baseline at SM 1.5 GHz / DRAM 2 GHz in 2 µs (52.08 % of
    # its compute roof, as launch 0 above), the new run at 1.2 / 0.8 GHz in 4 µs. Drawn on
    # the baseline's own peaks, the new run meets roofs at its own clocks: memory-bound at
    # 0.2 × 500 B/cycle × 0.8 GHz = 8e10 FLOP/s, 5e10 / 8e10 = 62.5 % (at the baseline's
    # clocks it was compute-bound at 5e10 / 1.92e11 = 26.04 %). Its time per call doubled:
    # a regression, exit 1.
    base = export(tmp_path / "base.csv", [
        (0, "k", PEAKS | clocks("1.5", "2") | work("1,000,000", "2,000,000", "2"))])
    new = export(tmp_path / "new.csv", [
        (0, "k", PEAKS | clocks("1.2", "0.8") | work("1,000,000", "4,000,000", "4"))])
    out = tmp_path / "check.csv"
    proc = subprocess.run([ROOFLOW, "check", str(base), str(new), "--level", "DRAM", "-o",
                           str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    row = pl.read_csv(out).row(0, named=True)
    assert row["pct_of_roof_baseline"] == pytest.approx(52.083, abs=1e-3)
    assert row["pct_of_roof_new"] == pytest.approx(62.5)


@pytest.mark.shared
def test_the_gh200_report_judges_each_launch_at_its_own_clock(shared_data: Path) -> None:
    # SOURCES.md: 3 launches on a GH200; launch 0 (torch.rand) at SM 1,509.1 MHz, the first
    # Triton silu launch at 1,449.2 MHz. Its own peaks per cycle: FFMA×2 33,792, L1 16,896
    # B (read here from the report: sm__cycles_elapsed.avg.per_second of each launch).
    # silu launch 1: fp32 roof 33,792 × 1.4492e9 = 48.97 TFLOP/s (launch 0's: 50.99);
    # L1 roof 16,896 × 1.4492e9 = 24.49 TB/s (launch 0's: 25.50 TB/s).
    path = shared_data / "ncu-rep/gh200-triton-silu-fullset/silu-2025-04-18-v8.ncu-rep"
    preset = load_preset("ncu-gh200", measured_file=path)
    assert preset.roof_clock_hz == pytest.approx(1.5091e9, rel=1e-4)
    table = analyze(ncu_points(path, per_launch=True, log=lambda _: None), preset)
    silu = table.filter(pl.col("kernel").str.starts_with("silu")
                        & (pl.col("level") == "L1")).row(0, named=True)
    assert silu["clock_hz"] == pytest.approx(1.4492e9, rel=1e-4)
    assert silu["compute_roof"] == pytest.approx(48.97e12, rel=1e-3)
    assert silu["memory_roof"] == pytest.approx(24.49e12, rel=1e-3)
    assert silu["memory_roof"] / preset.memory["L1"] == pytest.approx(
        silu["clock_hz"] / preset.roof_clock_hz)
    # Its L2 roof at its own L2 clock: launch 0's 10.4637 TB/s is 6,144 B/cycle at
    # 1,703.1 MHz (lts__cycles_elapsed.avg.per_second); silu at 1,700.7 MHz meets
    # 6,144 × 1.7007e9 = 10.449 TB/s.
    assert preset.l2_clock_hz == pytest.approx(1.7031e9, rel=1e-4)
    assert preset.memory["L2"] / preset.l2_clock_hz == pytest.approx(6144, rel=1e-6)
    l2 = table.filter(pl.col("kernel").str.starts_with("silu")
                      & (pl.col("level") == "L2")).row(0, named=True)
    assert l2["l2_clock_hz"] == pytest.approx(1.7007e9, rel=1e-4)
    assert l2["memory_roof"] == pytest.approx(10.449e12, rel=1e-4)
