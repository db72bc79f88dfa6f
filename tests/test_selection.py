"""Kernel selection (`--kernel`, `--exclude`, `--level`, `--precision`, `--top`)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

from rooflow.errors import InputError
from rooflow.points import to_points
from rooflow.roofs.preset import select_preset
from rooflow.selection import Selection, select_points

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")

# Custom roof: 100 TFLOP/s, 1000 GB/s (ridge 100 FLOP/byte).
PRESET = select_preset({}, None, peak_tflops=100, peak_bandwidth_gbs=1000)


def rooflow(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, timeout=120)


def points() -> pl.DataFrame:
    """Two GEMMs (AI 1000, compute-bound) and two bandwidth-only rows (flop 0).

    Potential time saved, by hand (time × (1 − 1/headroom)):
    - gemm_a: 1e12 FLOP in 0.1 s = 10 TFLOP/s, headroom 100/10 = 10 → 0.1 × 0.9 = 0.09 s
    - gemm_b: 1e12 FLOP in 0.02 s = 50 TFLOP/s, headroom 2 → 0.02 × 0.5 = 0.01 s
    - copy: 1e9 B in 4 ms = 250 GB/s, headroom 1000/250 = 4 → 0.004 × 0.75 = 0.003 s
    - memset: 1e8 B in 1 ms = 100 GB/s, headroom 10 → 0.001 × 0.9 = 0.0009 s
    """
    rows = [("gemm_a", "Gemm", "fp16-tensor", 1e12, 1e9, 0.1),
            ("GEMM_b", "gemm", "fp16-tensor", 1e12, 1e9, 0.02),
            ("__amd_rocclr_copyBuffer", "", "", 0.0, 1e9, 0.004),
            ("fillBufferAligned", "memset", "", 0.0, 1e8, 0.001)]
    frame = pl.DataFrame(rows, schema=["kernel", "family", "precision", "flop", "bytes",
                                       "time_s"], orient="row")
    frame = frame.with_columns(
        label=pl.col("kernel"), row=pl.int_range(1, 5, dtype=pl.Int64), level=pl.lit("DRAM"),
        arithmetic_intensity=pl.when(pl.col("flop") > 0)
        .then(pl.col("flop") / pl.col("bytes")),
        performance=pl.col("flop") / pl.col("time_s"), source=pl.lit("hand.csv"))
    return to_points(frame)


def kernels(frame: pl.DataFrame) -> list[str]:
    return frame["kernel"].to_list()


def test_kernel_patterns_search_kernel_label_family_case_insensitively():
    p = points()
    assert kernels(select_points(p, Selection(kernel=("gemm",)))) == ["gemm_a", "GEMM_b"]
    # family 'memset' matches although the kernel name does not
    assert kernels(select_points(p, Selection(kernel=("memset",)))) == ["fillBufferAligned"]
    # repeatable: any pattern; a regular expression, searched anywhere
    assert kernels(select_points(p, Selection(kernel=("_b$", "copy")))) == [
        "GEMM_b", "__amd_rocclr_copyBuffer"]


def test_exclude_drops_after_kernel_and_bandwidth_only_rows_filter_like_others():
    p = points()
    assert kernels(select_points(p, Selection(exclude=("gemm",)))) == [
        "__amd_rocclr_copyBuffer", "fillBufferAligned"]
    assert kernels(select_points(p, Selection(kernel=("gemm", "buffer"),
                                              exclude=("gemm_a", "fill")))) == [
        "GEMM_b", "__amd_rocclr_copyBuffer"]


def test_precision_none_selects_bandwidth_only_rows_and_level_takes_vendor_words():
    p = points()
    assert kernels(select_points(p, Selection(precision=("none",)))) == [
        "__amd_rocclr_copyBuffer", "fillBufferAligned"]
    assert kernels(select_points(p, Selection(precision=("fp16-tensor",)))) == [
        "gemm_a", "GEMM_b"]
    assert select_points(p, Selection(level=("HBM",))).height == 4  # HBM is DRAM
    with pytest.raises(InputError, match="no point selected by --level 'L2'"):
        select_points(p, Selection(level=("L2",)), source="hand.csv")


def test_top_ranks_kernels_by_potential_time_saved_worked_by_hand():
    p = points()
    # 0.09 s > 0.01 s > 0.003 s > 0.0009 s
    assert kernels(select_points(p, Selection(top=2), PRESET)) == ["gemm_a", "GEMM_b"]
    assert kernels(select_points(p, Selection(top=3), PRESET)) == [
        "gemm_a", "GEMM_b", "__amd_rocclr_copyBuffer"]
    # after the filters: the bandwidth-only kernel saving more
    assert kernels(select_points(p, Selection(precision=("none",), top=1), PRESET)) == [
        "__amd_rocclr_copyBuffer"]
    # a kernel is all its rows (every memory level)
    two_levels = pl.concat([p, p.with_columns(level=pl.lit("L2").cast(p["level"].dtype))])
    assert select_points(two_levels, Selection(top=1), PRESET).height == 2
    with pytest.raises(InputError, match="give --preset"):
        select_points(p, Selection(top=1))


def test_selecting_nothing_is_one_error_naming_the_patterns():
    with pytest.raises(InputError) as err:
        select_points(points(), Selection(kernel=("attention",), exclude=("x",)),
                      source="hand.csv")
    assert str(err.value).startswith(
        "hand.csv: no point selected by --kernel 'attention' --exclude 'x' (of 4 points, "
        "4 kernels")


@pytest.mark.parametrize("selection, message", [
    (dict(kernel=("(",)), "--kernel '(' is not a regular expression"),
    (dict(level=("L7",)), "--level 'L7' is not a memory level"),
    (dict(precision=("fp17",)), "--precision 'fp17' is not a precision"),
])
def test_bad_selection_values(selection, message):
    with pytest.raises(InputError, match=re.escape(message)):
        Selection(**selection)


def test_from_mapping_takes_a_string_or_a_list():
    s = Selection.from_mapping({"kernel": "gemm", "exclude": ["a", "b"], "top": 3})
    assert s == Selection(kernel=("gemm",), exclude=("a", "b"), top=3)
    assert not Selection.from_mapping(None)


def test_cli_table_convert_and_compare_select(tmp_path):
    src = tmp_path / "points.csv"
    points().write_csv(src)
    peaks = ("--peak-tflops", "100", "--peak-bandwidth", "1000")
    proc = rooflow("table", str(src), *peaks, "--kernel", "gemm", "--exclude", "_b")
    assert proc.returncode == 0, proc.stderr
    assert pl.read_csv(proc.stdout.encode())["kernel"].to_list() == ["gemm_a"]
    proc = rooflow("table", str(src), *peaks, "--top", "1", "--precision", "none")
    assert pl.read_csv(proc.stdout.encode())["kernel"].to_list() == ["__amd_rocclr_copyBuffer"]
    # convert keeps bandwidth-only rows it selects, unchanged
    out = tmp_path / "copies.csv"
    proc = rooflow("convert", str(src), "--kernel", "buffer", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_csv(out)["flop"].to_list() == [0.0, 0.0]
    assert "--kernel" in (help_text := rooflow("convert", "--help").stdout)
    assert "--top " not in help_text  # no preset to rank on
    png = tmp_path / "cmp.png"
    proc = rooflow("compare", str(src), str(src), *peaks, "--kernel", "gemm", "-o", str(png),
                   "--table", str(tmp_path / "cmp.csv"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(pl.read_csv(tmp_path / "cmp.csv")["name"].to_list()) == ["GEMM_b", "gemm_a"]


def test_cli_selection_errors_are_one_line(tmp_path):
    src = tmp_path / "points.csv"
    points().write_csv(src)
    proc = rooflow("table", str(src), "--peak-tflops", "1", "--peak-bandwidth", "1",
                   "--kernel", "attention")
    assert proc.returncode == 1
    # named by the points' source (a canonical file keeps its raw input's name)
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "rooflow: error: hand.csv: no point selected by --kernel 'attention'")
    proc = rooflow("plot", str(src), "--peak-tflops", "1", "--peak-bandwidth", "1",
                   "--kernel", "(", "-o", str(tmp_path / "x.png"))
    assert proc.returncode == 2 and not (tmp_path / "x.png").exists()
    assert proc.stderr.strip() == ("rooflow: error: --kernel '(' is not a regular expression: "
                                   "unclosed group")  # polars' engine says so


@pytest.mark.shared
def test_plot_kernel_on_mi325x_workload_with_bandwidth_only_rows(shared_data, tmp_path):
    """The issue's case: 79 bandwidth-only rows (copies, memsets, elementwise) of 103."""
    workload = shared_data / "omniperf/mi325x-hipkittens-gemm"
    table = tmp_path / "gemm.csv"
    proc = rooflow("plot", str(workload), "--hardware", "mi325x", "--kernel", "cijk|micro_tk",
                   "-o", str(tmp_path / "gemm.png"), "--table", str(table))
    assert proc.returncode == 0, proc.stderr
    t = pl.read_csv(table)
    # the hipBLASLt GEMM and the HipKittens one, 4 memory levels each, no bandwidth-only row
    assert sorted(set(t["kernel"].str.slice(0, 8).to_list())) == ["Cijk_Ail", "micro_tk"]
    assert t.height == 8 and not t["bandwidth_only"].any()
    proc = rooflow("table", str(workload), "--hardware", "mi325x", "--precision", "none")
    assert proc.returncode == 0, proc.stderr
    assert pl.read_csv(proc.stdout.encode()).height == 79


def test_config_select_entry_is_checked_by_the_schema():
    import jsonschema

    from rooflow.defaults import schema

    def errors(select) -> list[str]:
        config = {"presets": ["mi325x"], "datasets": {"rocprof-run": {"select": select}}}
        validator = jsonschema.Draft202012Validator(schema("config"))
        return [e.message for e in validator.iter_errors(config)]

    assert not errors({"kernel": "gemm", "exclude": ["splitk", "copy"], "level": "HBM",
                       "precision": ["none"], "top": 3})
    assert errors({"kernel": []}) and errors({"top": 0}) and errors({"kernels": "gemm"})


@pytest.mark.workflow
def test_workflow_dataset_select_reaches_table_plot_page_and_aggregates(tmp_path):
    from workflow_copy import copy_workflow, snakemake

    work = copy_workflow(tmp_path / "wf", resources=False)
    (work / "config" / "config.yaml").write_text(
        "hardware: config/hardware.yaml\nfamilies: config/families.yaml\n"
        "presets: [h100-sxm]\ndatasets:\n  roofline-mix:\n"
        "    select: {kernel: gemm, exclude: splitk}\n")
    (work / "resources" / "roofline").mkdir(parents=True)
    (work / "resources/roofline/mix.csv").write_text(
        "label,ai,tflops\ngemm_main,100,50\ngemm_splitk,50,20\nsoftmax,2,1\n")
    snakemake(work)
    results = work / "results"
    assert pl.read_csv(results / "tables/h100-sxm/roofline-mix.csv")["label"].to_list() == [
        "gemm_main"]
    assert pl.read_csv(results / "tables/h100-sxm/all.csv")["label"].to_list() == ["gemm_main"]
    summary = (results / "summary.md").read_text()
    assert "gemm_main" in summary and "softmax" not in summary
    page = (results / "html/h100-sxm/roofline-mix.html").read_text()
    assert "gemm_main" in page and "softmax" not in page
    assert (results / "plots/h100-sxm/roofline-mix.png").stat().st_size > 0


def test_compare_top_ranks_the_baseline_and_keeps_its_kernels_in_both_runs(tmp_path):
    """New run: gemm_a fixed (0.1 s → 0.01 s), so its own top 1 would be GEMM_b."""
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    points().write_csv(base)
    faster = points().with_columns(
        time_s=pl.when(pl.col("kernel") == "gemm_a").then(0.01).otherwise(pl.col("time_s")))
    faster.with_columns(performance=pl.col("flop") / pl.col("time_s")).write_csv(new)
    s = Selection(top=1)
    runs = s.runs([to_points(pl.read_csv(base)), to_points(pl.read_csv(new))], PRESET)
    assert [kernels(r) for r in runs] == [["gemm_a"], ["gemm_a"]]
    table = tmp_path / "cmp.csv"
    proc = rooflow("compare", str(base), str(new), "--peak-tflops", "100", "--peak-bandwidth",
                   "1000", "--top", "1", "-o", str(tmp_path / "cmp.png"), "--table", str(table))
    assert proc.returncode == 0, proc.stderr
    cmp = pl.read_csv(table)
    assert cmp["name"].to_list() == ["gemm_a"] and cmp["status"].to_list() == ["matched"]
    assert cmp["speedup"].to_list() == pytest.approx([10.0])  # 0.1 s → 0.01 s
