"""Synthetic ncu exports: op-path tensor precisions, display labels with rates, passes."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import KINDS, detect_kind
from rooflow.adapters.ncu.reader import ncu_breakdown, ncu_points
from rooflow.analysis import analyze
from rooflow.errors import InputError
from rooflow.points import check_points
from rooflow.roofs import MEASURED, load_preset, measured_source
from rooflow.roofs.ncu import ncu_preset

HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
          "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name",
          "Metric Unit", "Metric Value", "Rule Name", "Rule Type", "Rule Description",
          "Estimated Speedup Type", "Estimated Speedup"]
OPS = "sm__ops_path_tensor_src_{}.sum"


def export(path: Path, launches: list[tuple[int, str, dict]], cc: str = "8.0") -> Path:
    """Details page, 2024 header; data rows stop after Metric Value (shorter than header)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(HEADER)
    for launch, kernel, values in launches:
        for name, (unit, value) in values.items():
            writer.writerow([launch, 1, "app", "host", kernel, 1, 7, "(256, 1, 1)", "(1, 1, 1)",
                             0, cc, "Command line profiler metrics", name, unit, value])
    path.write_text("app output\n==PROF== Disconnected\n" + out.getvalue(), encoding="utf-8-sig")
    return path


def tensor_launch(**ops: str) -> dict:
    """Time 1 usecond, 1,000 DRAM bytes, 500 tensor-pipe inst (ignored: op-path counters)."""
    names = ["fp64", "fp16_dst_fp32", "fp16_dst_fp32_sparsity_off", "fp16_dst_fp32_sparsity_on",
             "fp16", "tf32_dst_fp32", "int8", "int1"]
    values = {OPS.format(n): ("", "0") for n in names}
    values |= {OPS.format(n): ("", v) for n, v in ops.items()}
    return values | {"gpu__time_duration.sum": ("usecond", "1"),
                     "dram__bytes.sum": ("byte", "1,000"),
                     "sm__inst_executed_pipe_tensor.sum": ("inst", "500")}


def test_op_path_counters_land_each_kernel_on_its_precision(tmp_path: Path) -> None:
    # dmma: src_fp64 2,000,000 → fp64-tensor 2e6 FLOP, AI 2e6 / 1,000 = 2,000.
    # hgemm: dst_fp32 total 3,000,000 (= sparsity_off 2,000,000 + _on 1,000,000) and the
    #   plain src_fp16 total 3,000,000: counted once → fp16-tensor 3e6.
    # tf32: src_tf32_dst_fp32 400,000 → tf32. int8: src_int8 8,000,000 → int8-tensor OP.
    # mixed: int8 8,000,000 OP + fp16 3,000,000 FLOP → int8-tensor, flop 8e6 (OP only);
    #   shares of all 11e6 operations 72.73% → 72.7%, 27.27% → 27.3%.
    # int1 ops have no precision: a note, not counted.
    fp16 = {"fp16_dst_fp32": "3,000,000", "fp16_dst_fp32_sparsity_off": "2,000,000",
            "fp16_dst_fp32_sparsity_on": "1,000,000", "fp16": "3,000,000"}
    path = export(tmp_path / "a100.csv", [
        (0, "dmma", tensor_launch(fp64="2,000,000")),
        (1, "hgemm", tensor_launch(**fp16)),
        (2, "tf32", tensor_launch(tf32_dst_fp32="400,000")),
        (3, "int8", tensor_launch(int8="8,000,000", int1="5")),
        (4, "mixed", tensor_launch(int8="8,000,000", **fp16)),
    ])
    result = ncu_breakdown(path)
    rows = {k["kernel"]: k for k in result.kernels.iter_rows(named=True)}
    assert {k: (r["precision"], r["flop"]) for k, r in rows.items()} == {
        "dmma": ("fp64-tensor", 2e6), "hgemm": ("fp16-tensor", 3e6), "tf32": ("tf32", 4e5),
        "int8": ("int8-tensor", 8e6), "mixed": ("int8-tensor", 8e6)}
    assert rows["mixed"]["ops_fp16_tensor"] == 3e6
    assert rows["mixed"]["precision_mix"] == "int8-tensor 72.7%, fp16-tensor 27.3%"
    assert any("int1" in n for n in result.notes)
    points = check_points(ncu_points(path, log=lambda _: None), str(path))
    assert points["arithmetic_intensity"].to_list() == [2000, 3000, 400, 8000, 8000]
    assert points["performance"].to_list() == pytest.approx([2e12, 3e12, 4e11, 8e12, 8e12])


def test_tensor_instructions_without_op_path_or_factor(tmp_path: Path) -> None:
    values = {"sm__inst_executed_pipe_tensor.sum": ("inst", "1,000"),
              "gpu__time_duration.sum": ("nsecond", "10"), "dram__bytes.sum": ("byte", "64")}
    path = export(tmp_path / "x.csv", [(0, "mma", values)], cc="8.0")
    with pytest.raises(InputError, match=r"sm__ops_path_tensor_.*tensor_flop_per_inst"):
        ncu_breakdown(path)
    # 1,000 inst × 4096 ("default") = 4,096,000 FLOP, counted as fp16-tensor.
    k = ncu_breakdown(path, tensor_flop_per_inst={"default": 4096}).kernels.row(0, named=True)
    assert (k["precision"], k["flop"]) == ("fp16-tensor", 4_096_000)


LABELS = {  # the Double Precision roofline of a section export, display labels
    "Duration": ("usecond", "2"),
    "SM Frequency": ("cycle/nsecond", "1"),
    "DRAM Frequency": ("cycle/nsecond", "1.5"),
    "Predicated-On DFMA Operations Per Cycle": ("inst/cycle", "40"),
    "Predicated-On DADD Thread Instructions Executed Per Cycle": ("inst/cycle", "5"),
    "Predicated-On DMUL Thread Instructions Executed Per Cycle": ("inst/cycle", "5"),
    "DRAM Bandwidth": ("Gbyte/second", "100"),
    "Theoretical Predicated-On DFMA Operations": ("inst/cycle", "64"),
    "Theoretical DRAM Bytes Accessible": ("Kbyte/cycle", "1"),
    "Block Size": ("", "256"),
}


def test_display_labels_with_rates_give_the_sections_point(tmp_path: Path) -> None:
    # SM cycles = 2 us × 1 GHz = 2,000. dfma = 40/2 per cycle × 2,000 = 40,000 inst →
    # 80,000 FLOP; dadd, dmul 5 × 2,000 = 10,000 each → fp64 100,000 FLOP; 5e10 FLOP/s
    # (the section: (40 + 5 + 5) × 1 GHz). DRAM 100 GB/s × 2 us = 200,000 byte → AI 0.5
    # (= 5e10 / 1e11).
    path = export(tmp_path / "labels.csv", [(0, "dgemm", LABELS)])
    said: list[str] = []
    point = ncu_points(path, log=said.append).row(0, named=True)
    assert (point["precision"], point["flop"]) == ("fp64", pytest.approx(100_000))
    assert point["bytes"] == pytest.approx(200_000)
    assert point["arithmetic_intensity"] == pytest.approx(0.5)
    assert point["performance"] == pytest.approx(5e10)
    assert any("fp32" in s for s in said)
    # Peaks: fp64 64 FLOP/cycle × 1 GHz = 0.064 TFLOP/s; DRAM 1,000 byte/cycle × 1.5 GHz.
    preset = ncu_preset(path)
    assert preset["compute"] == {"fp64": pytest.approx(0.064)}
    assert preset["memory"] == {"DRAM": pytest.approx(1500)}
    assert preset["default_compute"] == "fp64"


def test_partial_set_fp64_and_dram_only(tmp_path: Path) -> None:
    # dfma 10, dmul 5, dadd 3 → 28 FLOP; 14 byte; 2 ns → AI 2, 1.4e10 FLOP/s.
    values = {f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum": ("inst", v)
              for op, v in (("dfma", "10"), ("dmul", "5"), ("dadd", "3"))}
    values |= {"dram__bytes.sum": ("byte", "14"), "gpu__time_duration.sum": ("nsecond", "2")}
    path = export(tmp_path / "p.csv", [(0, "k", values)])
    result = ncu_breakdown(path)
    assert [m.split()[0] for m in result.missing] == ["fp32", "fp16", "tensor", "L2", "L1"]
    point = ncu_points(path, log=lambda _: None).row(0, named=True)
    assert (point["level"], point["precision"], point["arithmetic_intensity"]) == (
        "DRAM", "fp64", 2.0)
    assert point["performance"] == pytest.approx(1.4e10)


def test_two_passes_merge_per_kernel_and_launch(tmp_path: Path) -> None:
    # Pass A: FLOP counters and time 2 ns; pass B: bytes and time 2.2 ns (first file wins:
    # 2 ns; disagreement (2.2 − 2) / 2.2 = 9.09%). Kernel k: 28 FLOP, 14 byte → AI 2.
    flop = {f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum": ("inst", v)
            for op, v in (("dfma", "10"), ("dmul", "5"), ("dadd", "3"))}
    a = export(tmp_path / "a.csv", [(0, "k", flop | {"gpu__time_duration.sum": ("nsecond", "2")}),
                                   (1, "j", flop | {"gpu__time_duration.sum": ("nsecond", "4")})])
    b = export(tmp_path / "b.csv", [
        (0, "k", {"dram__bytes.sum": ("byte", "14"), "gpu__time_duration.sum": ("ns", "2.2")}),
        (1, "j", {"dram__bytes.sum": ("byte", "7"), "gpu__time_duration.sum": ("ns", "4")})])
    result = ncu_breakdown([a, b])
    k = result.kernels.row(0, named=True)
    assert (k["kernel"], k["flop"], k["bytes_dram"], k["time_s"]) == ("k", 28, 14, 2e-9)
    assert any("9.09%" in n and "gpu__time_duration.sum" in n for n in result.notes)
    points = ncu_points(tmp_path, log=lambda _: None)  # the folder: a.csv, b.csv
    assert points["arithmetic_intensity"].to_list() == [2.0, 4.0]
    alone = ncu_breakdown(b)  # pass B alone: bytes and time, no FLOP → bandwidth-only
    assert alone.kernels["flop"].to_list() == [0, 0] and len(alone.missing) == 6


def test_a_pass_without_the_cc_takes_it_from_another(tmp_path: Path) -> None:
    # Pass a (no CC): 10 tensor-pipe inst, time 1 ns; pass b: CC 7.0, 64 DRAM bytes. The
    # CC 7.0 factor (512 FLOP/inst) applies: 5,120 FLOP, AI 80.
    export(tmp_path / "a.csv", [(0, "hmma", {"sm__inst_executed_pipe_tensor.sum": ("inst", "10"),
                                             "gpu__time_duration.sum": ("nsecond", "1")})], cc="")
    export(tmp_path / "b.csv", [(0, "hmma", {"dram__bytes.sum": ("byte", "64")})], cc="7.0")
    k = ncu_breakdown(tmp_path).kernels.row(0, named=True)
    assert (k["cc"], k["flop"], k["precision"]) == ("7.0", 5120, "fp16-tensor")


def test_a_folder_of_passes_is_one_ncu_input(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    export(run / "flops.csv", [(0, "k", {"gpu__time_duration.sum": ("nsecond", "2")})])
    export(run / "bytes.csv", [(0, "k", {"dram__bytes.sum": ("byte", "5")})])
    assert detect_kind(run) == "ncu"
    (run / "notes.csv").write_text("kernel,comment\nk,fast\n")
    # another file among the passes leaves the folder an ncu input; it is skipped, said
    assert KINDS["ncu"].sniff(run)
    notes: list[str] = []
    point = ncu_points(run, log=notes.append).row(0, named=True)
    assert (point["kernel"], point["bytes"], point["time_s"]) == ("k", 5, pytest.approx(2e-9))
    assert [n for n in notes if "notes.csv: not an Nsight Compute export" in n]


def test_theoretical_rows_split_over_passes_make_one_preset(tmp_path: Path) -> None:
    # One pass has the peaks, the other the clocks: neither alone is a preset, the folder is.
    # fp64 64 FLOP/cycle × 1 GHz = 0.064 TFLOP/s; DRAM 1 Kbyte/cycle × 1.5 GHz = 1,500 GB/s.
    folder = tmp_path / "gpu"
    folder.mkdir()
    peaks = {k: LABELS[k] for k in ("Theoretical Predicated-On DFMA Operations",
                                    "Theoretical DRAM Bytes Accessible", "Duration")}
    clocks = {k: LABELS[k] for k in ("SM Frequency", "DRAM Frequency", "Duration")}
    files = [export(folder / "peaks.csv", [(0, "dgemm", peaks)]),
             export(folder / "clocks.csv", [(0, "dgemm", clocks)])]
    source = MEASURED["ncu"]
    assert [source.has_peaks(f) for f in files] == [False, False]
    assert source.has_peaks(folder) and measured_source(folder) is source
    with pytest.raises(InputError, match="no Theoretical peaks"):
        ncu_preset(files[0])
    # The workflow passes the folder; several files (the CLI's passes) give the same roofs.
    preset = load_preset("ncu-gpu", measured_file=folder)
    assert preset.compute == {"fp64": pytest.approx(0.064e12)}
    assert preset.memory == {"DRAM": pytest.approx(1.5e12)}
    assert (preset.name, preset.empirical) == ("gpu", False)  # no device name: the folder's
    assert load_preset("ncu-gpu", measured_file=sorted(files)).compute == preset.compute



HFMA = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"


@pytest.mark.parametrize(("preset", "hfma"), [("a100-sxm", "19,500,000,000"),
                                              ("h100-sxm", "33,450,000,000")])
def test_hfma_at_the_presets_peak_rate_is_at_100_percent_of_roof(
        tmp_path: Path, preset: str, hfma: str) -> None:
    # fp16 counts as its roof is defined (Half roofline section: HFMA ×4, HADD ×2, HMUL ×2;
    # datasheet FP16 non-Tensor = packed half2). Time 1 ms, 1 MB of DRAM (AI far right of
    # the ridge, so the compute roof binds).
    # a100-sxm fp16 78 TFLOP/s: 78e12 × 1e-3 s / 4 = 19.5e9 HFMA → 78e9 FLOP in 1 ms =
    #   78 TFLOP/s = 100.0 % of roof, headroom 1 (NERSC's ×2 gave 39 TFLOP/s, 50 %).
    # h100-sxm fp16 133.8 TFLOP/s: 133.8e12 × 1e-3 / 4 = 33.45e9 HFMA → 100.0 %.
    values = {HFMA.format("hfma"): ("inst", hfma), HFMA.format("hadd"): ("inst", "0"),
              HFMA.format("hmul"): ("inst", "0"), "dram__bytes.sum": ("byte", "1,000,000"),
              "gpu__time_duration.sum": ("msecond", "1")}
    path = export(tmp_path / "hfma.csv", [(0, "hfma2_loop", values)])
    points = ncu_points(path, log=lambda _: None)
    row = analyze(points, load_preset(preset)).row(0, named=True)
    assert (row["precision"], row["bound"]) == ("fp16", "compute")
    assert row["pct_of_roof"] == pytest.approx(100.0)
    assert row["headroom"] == pytest.approx(1.0)


def test_half_section_counts_packed_half2_and_its_preset_agrees(tmp_path: Path) -> None:
    # An A100 Half roofline section export (display labels, rates per SM cycle):
    # SM cycles = 1 ms × 1.41 GHz = 1,410,000. HFMA 13,824 inst/cycle (108 SMs × 128, the
    # peak rate) → 19,491,840,000 inst × 4 = 77,967,360,000 FLOP; HADD, HMUL 0. In 1 ms:
    # 77.967 TFLOP/s. Preset ncu-…: Theoretical HFMA 13,824 × 4 × 1.41 GHz = 77.967 TFLOP/s
    # → 100 % of roof. A HADD and a HMUL per cycle would add 2 + 2 FLOP × 1,410,000.
    values = {
        "Duration": ("msecond", "1"), "SM Frequency": ("cycle/nsecond", "1.41"),
        "DRAM Frequency": ("cycle/nsecond", "1.5"),
        "Predicated-On HFMA Thread Instructions Executed Per Cycle": ("inst/cycle", "13,824"),
        "Predicated-On HADD Thread Instructions Executed Per Cycle": ("inst/cycle", "0"),
        "Predicated-On HMUL Thread Instructions Executed Per Cycle": ("inst/cycle", "0"),
        "Theoretical Predicated-On HFMA Thread Instructions Executed": ("inst/cycle", "13,824"),
        "Theoretical DRAM Bytes Accessible": ("Kbyte/cycle", "1"),
        "DRAM Bandwidth": ("Gbyte/second", "1"),
    }
    path = export(tmp_path / "half.csv", [(0, "hfma2_loop", values)])
    point = ncu_points(path, log=lambda _: None).row(0, named=True)
    assert (point["precision"], point["flop"]) == ("fp16", pytest.approx(77_967_360_000))
    preset = ncu_preset(path)
    assert preset["compute"] == {"fp16": pytest.approx(77.96736)}
    table = analyze(ncu_points(path, log=lambda _: None), load_preset("ncu-half",
                                                                      measured_file=path))
    assert table["pct_of_roof"].to_list() == [pytest.approx(100.0)]
    adds = values | {
        "Predicated-On HADD Thread Instructions Executed Per Cycle": ("inst/cycle", "1"),
        "Predicated-On HMUL Thread Instructions Executed Per Cycle": ("inst/cycle", "1")}
    path = export(tmp_path / "adds.csv", [(0, "hfma2_loop", adds)])
    flop = ncu_points(path, log=lambda _: None)["flop"][0]
    assert flop == pytest.approx(77_967_360_000 + 4 * 1_410_000)


# Per-kernel judgement, rates without a time, each section's own clock (issue 19, items 2-4)


def test_an_n_a_metric_is_absent_for_its_kernel_not_a_failed_profile(tmp_path: Path) -> None:
    # A Blackwell consumer GPU has no fp64 tensor path: src_fp64 is n/a, every other
    # counter valid. ffma 1,000 → 2,000 FLOP fp32; fp16 op-path 3,000 → fp16-tensor;
    # 5,000 FLOP over 1,000 byte = AI 5, in 1 µs = 5e9 FLOP/s.
    values = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", "1,000"),
              OPS.format("fp64"): ("", "n/a"), OPS.format("fp16_dst_fp32"): ("", "3,000"),
              "gpu__time_duration.sum": ("usecond", "1"), "dram__bytes.sum": ("byte", "1,000")}
    path = export(tmp_path / "rtx5070.csv", [(0, "k", values)], cc="12.0")
    said: list[str] = []
    point = ncu_points(path, log=said.append).row(0, named=True)
    assert (point["precision"], point["flop"]) == ("fp16-tensor", 5_000)
    assert point["arithmetic_intensity"] == 5 and point["performance"] == pytest.approx(5e9)
    assert not any("left out" in s for s in said)
    k = ncu_breakdown(path).kernels.row(0, named=True)
    assert k["ops_fp64_tensor"] is None and k["ops_fp16_tensor"] == 3_000


def test_an_unplaceable_kernel_is_left_out_beside_good_ones(tmp_path: Path) -> None:
    # "mma": 1,000 tensor-pipe instructions on CC 8.0, no op-path counters, no factor:
    # left out with one line naming what to collect; "ok": 28 FLOP fp64 / 14 byte = AI 2.
    ok = {f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum": ("inst", v)
          for op, v in (("dfma", "10"), ("dmul", "5"), ("dadd", "3"))}
    ok |= {"sm__inst_executed_pipe_tensor.sum": ("inst", "0"),
           "dram__bytes.sum": ("byte", "14"), "gpu__time_duration.sum": ("nsecond", "2")}
    mma = ok | {"sm__inst_executed_pipe_tensor.sum": ("inst", "1,000")}
    path = export(tmp_path / "two.csv", [(0, "ok", ok), (1, "mma", mma), (2, "ok", ok)])
    said: list[str] = []
    points = ncu_points(path, log=said.append)
    assert points["kernel"].to_list() == ["ok"] and points["arithmetic_intensity"][0] == 2
    left = [s for s in said if "left out" in s]
    assert len(left) == 1 and "'mma' (launch 1, CC 8.0)" in left[0]
    assert "sm__ops_path_tensor_" in left[0] and "--tensor-flop-per-inst" in left[0]
    # With a factor, both: mma 1,000 × 4,096 + 28 FLOP.
    both = ncu_breakdown(path, tensor_flop_per_inst={"8.0": 4096}).kernels
    assert both["flop"].to_list() == [56, 4_096_028]
    # Only the unplaceable one: the export fails with its reason.
    alone = export(tmp_path / "mma.csv", [(1, "mma", mma)])
    with pytest.raises(InputError, match=r"'mma' \(launch 1, CC 8.0\) ran 1,000"):
        ncu_points(alone, log=lambda _: None)


@pytest.mark.parametrize("command", ["plot", "table", "compare", "convert", "from-ncu"])
def test_every_command_takes_the_tensor_factor(tmp_path: Path, command: str) -> None:
    from click.testing import CliRunner

    from rooflow.cli.main import cli

    # 1,000 tensor-pipe inst × 512 (--tensor-flop-per-inst 8.0=512) = 512,000 FLOP over
    # 1,000 byte (AI 512) in 1 µs.
    values = {"sm__inst_executed_pipe_tensor.sum": ("inst", "1,000"),
              "gpu__time_duration.sum": ("usecond", "1"), "dram__bytes.sum": ("byte", "1,000")}
    path = export(tmp_path / "mma.csv", [(0, "mma", values)])
    out = tmp_path / ("out.png" if command in ("plot", "compare") else "out.csv")
    args = {"plot": ["plot", str(path)], "table": ["table", str(path)],
            "compare": ["compare", str(path), str(path)],
            "convert": ["convert", str(path)], "from-ncu": ["from-ncu", str(path)]}[command]
    preset = ["--hardware", "a100-sxm"] if command in ("plot", "table", "compare") else []
    runner = CliRunner()
    refused = runner.invoke(cli, [*args, *preset, "-o", str(out)])
    assert refused.exit_code != 0 and "tensor_flop_per_inst" in str(refused.exception)
    result = runner.invoke(cli, [*args, *preset, "-o", str(out),
                                 "--tensor-flop-per-inst", "8.0=512"])
    assert result.exit_code == 0, result.output
    if command in ("table", "convert", "from-ncu"):
        row = pl.read_csv(out).row(0, named=True)
        assert (row["flop"], row["arithmetic_intensity"]) == (512_000, 512)
    bad = runner.invoke(cli, [*args, "--tensor-flop-per-inst", "8.0=x"])
    assert bad.exit_code == 2 and "CC=FLOP" in bad.output


SECTION = {  # Double roofline section: rates with its clock, no duration
    "SM Frequency": ("cycle/nsecond", "1"),
    "Predicated-On DFMA Operations Per Cycle": ("inst/cycle", "40"),
    "Predicated-On DADD Thread Instructions Executed Per Cycle": ("inst/cycle", "5"),
    "Predicated-On DMUL Thread Instructions Executed Per Cycle": ("inst/cycle", "5"),
    "DRAM Bandwidth": ("Gbyte/second", "100"),
}


def test_a_roofline_section_without_a_duration_gives_a_point_from_its_rates(
        tmp_path: Path) -> None:
    # fp64 per cycle: 40 (the DFMA _x2 operations) + 5 + 5 = 50 FLOP × 1 GHz = 5e10 FLOP/s;
    # DRAM 100 GB/s → AI 5e10 / 1e11 = 0.5. No time: flop, bytes, time unknown, no time
    # saved, said once.
    path = export(tmp_path / "section.csv", [(0, "dgemm", SECTION)])
    said: list[str] = []
    points = ncu_points(path, log=said.append)
    point = points.row(0, named=True)
    assert (point["level"], point["precision"]) == ("DRAM", "fp64")
    assert point["arithmetic_intensity"] == pytest.approx(0.5)
    assert point["performance"] == pytest.approx(5e10)
    assert point["flop"] is None and point["bytes"] is None and point["time_s"] is None
    assert sum("without a kernel time" in s for s in said) == 1
    assert check_points(points, str(path)).height == 1
    row = analyze(points, load_preset("a100-sxm")).row(0, named=True)
    # a100-sxm fp64 9.7 TFLOP/s, HBM 2,039 GB/s: attainable 0.5 × 2.039e12 = 1.0195e12.
    assert row["attainable"] == pytest.approx(1.0195e12)
    assert row["pct_of_roof"] == pytest.approx(100 * 5e10 / 1.0195e12)
    assert row["potential_time_saved_s"] is None
    # Counts without a time cannot be placed: the reason names the time metrics.
    counts = export(tmp_path / "counts.csv", [(0, "k", {
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum": ("inst", "10"),
        "dram__bytes.sum": ("byte", "14")})])
    with pytest.raises(InputError, match=r"no kernel time.*gpu__time_duration.sum"):
        ncu_points(counts, log=lambda _: None)


def test_merged_sections_scale_their_rates_by_their_own_clock(tmp_path: Path) -> None:
    # Pass a (Double section): 2 µs at SM 1 GHz, DFMA 40 operations/cycle, DRAM 100 GB/s.
    # Pass b (Single section): 2.2 µs at SM 0.9 GHz, FFMA 20 operations/cycle.
    # fp64 = 40 × 2 µs × 1 GHz = 80,000; fp32 = 20 × 2.2 µs × 0.9 GHz = 39,600 (pass a's
    # clock and time would give 40,000: +1 %). Time 2 µs (pass a); DRAM 200,000 byte.
    # Without durations: rates 40 × 1 GHz + 20 × 0.9 GHz = 5.8e10 FLOP/s (a's clock:
    # 6e10), AI 5.8e10 / 1e11 = 0.58.
    single = {"SM Frequency": ("cycle/nsecond", "0.9"),
              "Predicated-On FFMA Operations Per Cycle": ("inst/cycle", "20")}
    double = {k: SECTION[k] for k in ("SM Frequency", "Predicated-On DFMA Operations Per Cycle",
                                      "DRAM Bandwidth")}
    folder = tmp_path / "sections"
    folder.mkdir()
    export(folder / "a.csv", [(0, "k", double | {"Duration": ("usecond", "2")})])
    export(folder / "b.csv", [(0, "k", single | {"Duration": ("usecond", "2.2")})])
    k = ncu_breakdown(folder).kernels.row(0, named=True)
    assert (k["ops_fp64"], k["ops_fp32"]) == (pytest.approx(80_000), pytest.approx(39_600))
    assert k["time_s"] == pytest.approx(2e-6) and k["bytes_dram"] == pytest.approx(200_000)
    rates = tmp_path / "rates"
    rates.mkdir()
    export(rates / "a.csv", [(0, "k", double)])
    export(rates / "b.csv", [(0, "k", single)])
    point = ncu_points(rates, log=lambda _: None).row(0, named=True)
    assert point["performance"] == pytest.approx(5.8e10)
    assert point["arithmetic_intensity"] == pytest.approx(0.58)


def test_the_profilers_own_error_is_quoted(tmp_path: Path) -> None:
    path = tmp_path / "denied.csv"
    path.write_text(
        "==PROF== Connected to process 4242 (/usr/bin/app)\n"
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
        "GPU Performance Counters on the target device 0.\n"
        "==PROF== Disconnected from process 4242\n"
        "==ERROR== An error was reported by the driver\n")
    with pytest.raises(InputError) as err:
        ncu_points(path)
    text = str(err.value)
    assert "no Nsight Compute table: the profiler reported ==ERROR== ERR_NVGPUCTRPERM - " in text
    assert "| ==ERROR== An error was reported by the driver" in text and "\n" not in text
