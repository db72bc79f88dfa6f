"""Model vs measurement (issue 21, item 1): `rooflow model-check`, worked by hand."""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.defaults import DEFAULT_HARDWARE
from rooflow.errors import InputError
from rooflow.model_vs_measured import (
    COLUMNS,
    markdown_section,
    parse_mapping,
    reconcile,
    summary,
)
from rooflow.roofs import choose_preset

ROOT = Path(__file__).resolve().parents[1]
ROOFLOW = str(ROOT / ".venv" / "bin" / "rooflow")
NCU = ROOT / "resources" / "ncu" / "a100_dgemm_triad_hgemm.csv"
A100 = choose_preset(DEFAULT_HARDWARE, "a100-sxm")

# One FP32 GEMM, M = N = K = 1024.
# Model: FLOP 2·M·N·K = 2·1024³ = 2,147,483,648; compulsory bytes: A and B read, C written
# once, 3·1024²·4 B = 12,582,912; intensity 2,147,483,648 / 12,582,912 = 170.667 FLOP/B.
# No time: the model point sits on its roof, 100 % of it.
# Measured (a roofline CSV as a profiler export gives it): FLOP 2,164,260,864 (2²⁴ more
# than the model: FLOP ratio 1 + 2²⁴/2³¹ = 1.0078125); DRAM 25,165,824 B (excess traffic
# 2×, intensity 86.0), L2 100,663,296 B (8×, intensity 21.5); 1 ms → 2.16426 TFLOP/s.
# A100 SXM: fp32 19.5 TFLOP/s; HBM 2,039 GB/s → 86.0 × 2.039e12 = 175 TFLOP/s > 19.5, and
# L2 7,219 GB/s → 21.5 × 7.219e12 = 155 TFLOP/s > 19.5: compute-bound at both levels,
# % of roof 2.16426e12 / 19.5e12 = 11.0988 %.
MODEL_CSV = "name,flop,bytes\ngemm_1024,2147483648,12582912\ngemm_1024_bf16,2147483648,6291456\n"
MEASURED_CSV = ("name,flop,time_us,bytes_dram,bytes_l2,precision\n"
                "sgemm_1024_kernel,2164260864,1000,25165824,100663296,fp32\n"
                "other_kernel,1000000,10,1000000,1000000,fp32\n")


@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    model, measured = tmp_path / "model.csv", tmp_path / "measured.csv"
    model.write_text(MODEL_CSV)
    measured.write_text(MEASURED_CSV)
    return model, measured


def test_hand_worked_gemm(files):
    model, measured = (load_points("roofline", f) for f in files)
    table = reconcile(measured, model, [parse_mapping("sgemm=gemm_1024")], A100)
    assert table.columns == list(COLUMNS)
    assert table["kernel"].to_list() == ["sgemm_1024_kernel"] * 2  # other_kernel unmatched
    rows = {r["level"]: r for r in table.iter_rows(named=True)}
    for r in rows.values():
        assert r["model"] == "gemm_1024" and r["precision"] == "fp32"
        assert r["model_flop"] == 2_147_483_648 and r["measured_flop"] == 2_164_260_864
        assert r["flop_ratio"] == pytest.approx(1.0078125)
        assert r["model_bytes"] == 12_582_912
        assert r["model_intensity"] == pytest.approx(170.6667, rel=1e-5)
        assert r["model_pct_of_roof"] == pytest.approx(100.0)
        assert r["measured_pct_of_roof"] == pytest.approx(11.0988, rel=1e-4)
    assert rows["DRAM"]["excess_traffic"] == pytest.approx(2.0)
    assert rows["L2"]["excess_traffic"] == pytest.approx(8.0)
    assert rows["DRAM"]["measured_intensity"] == pytest.approx(86.0)
    assert rows["L2"]["measured_intensity"] == pytest.approx(21.5)
    assert summary(table) == (
        "Model vs measurement, 1 kernel: largest excess traffic sgemm_1024_kernel at L2, "
        "8× the model's compulsory bytes; largest FLOP ratio sgemm_1024_kernel, 1.0078× "
        "the model's FLOP.")


def test_shipped_dgemm_against_its_model(tmp_path):
    """resources/ncu: the A100 DGEMM, M = N = K = 4096, against 2·M·N·K and 3·4096²·8 B.

    Model: 137,438,953,472 FLOP, 402,653,184 B, intensity 341.33. Measured: 2·dfma +
    dadd + dmul = 2·68,719,476,736 + 2·16,777,216 = 137,472,507,904 FLOP (ratio
    1 + 2²⁵/2³⁷ = 1.000244140625); DRAM 1.21 GB (3.0051×), L2 9.87 GB (24.512×), L1
    35.16 GB (87.321×); 15.62 ms → 8.8011 TFLOP/s, 90.73 % of the 9.7 TFLOP/s fp64 roof.
    """
    model = tmp_path / "model.csv"
    model.write_text("kernel,flop,bytes\ndgemm_4096,137438953472,402653184\n")
    table = reconcile(load_points("ncu", NCU), load_points("roofline", model),
                      [parse_mapping("^dgemm=dgemm_4096")], A100)
    rows = {r["level"]: r for r in table.iter_rows(named=True)}
    assert set(rows) == {"DRAM", "L2", "L1"}
    assert rows["DRAM"]["flop_ratio"] == pytest.approx(1.000244140625)
    assert rows["DRAM"]["excess_traffic"] == pytest.approx(1.21e9 / 402_653_184)
    assert rows["L2"]["excess_traffic"] == pytest.approx(9.87e9 / 402_653_184)
    assert rows["L1"]["excess_traffic"] == pytest.approx(35.16e9 / 402_653_184)
    assert rows["DRAM"]["model_intensity"] == pytest.approx(4096 / 12)
    assert rows["DRAM"]["measured_intensity"] == pytest.approx(137_472_507_904 / 1.21e9)
    assert rows["DRAM"]["measured_pct_of_roof"] == pytest.approx(
        137_472_507_904 / 15.62e-3 / 9.7e12 * 100)
    assert rows["L1"]["measured_pct_of_roof"] is None  # no L1 roof on the A100 preset


def test_cli_plot_has_an_arrow_per_level(files, tmp_path):
    model, measured = files
    svg, csv = tmp_path / "mc.svg", tmp_path / "mc.csv"
    done = subprocess.run([ROOFLOW, "model-check", str(measured), "--model", str(model),
                           "--map", "sgemm=gemm_1024", "--hardware", "a100-sxm",
                           "-o", str(svg), "--table", str(csv)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "largest excess traffic sgemm_1024_kernel at L2, 8×" in done.stderr
    text = svg.read_text()
    assert 'id="arrow:0:DRAM"' in text and 'id="arrow:0:L2"' in text
    written = pl.read_csv(csv)
    assert written["excess_traffic"].to_list() == pytest.approx([2.0, 8.0])


# An option value refused as such is a usage error (2); one the inputs refuse, bad input (1).
@pytest.mark.parametrize(("mapping", "message", "code"), [
    ("sgemm", "is not REGEX=MODEL", 2),
    ("(=gemm_1024", "is not a regular expression", 2),
    ("sgemm=nothing", "no model point is named 'nothing'", 1),
    ("nomatch=gemm_1024", "no measured kernel matches 'nomatch'", 1),
    ("sgemm=gemm_1024 -o plot.txt", "unsupported image format '.txt'", 2),
])
def test_cli_bad_mapping_is_one_line(files, mapping, message, code):
    model, measured = files
    mapping, *more = mapping.split(" ")
    done = subprocess.run([ROOFLOW, "model-check", str(measured), "--model", str(model),
                           "--map", mapping, "--hardware", "a100-sxm", *more],
                          capture_output=True, text=True, timeout=120, cwd=model.parent)
    assert done.returncode == code
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_ambiguous_target(files):
    model = load_points("roofline", files[0])
    with pytest.raises(InputError, match="different model points"):
        reconcile(load_points("roofline", files[1]), model, [parse_mapping("sgemm=_")], A100)


def test_rocprof_dgemm_and_a_spec_model(tmp_path):
    """rocprof-compute (MI210): DGEMM M = N = K = 2048 against 2·2048³ and 3·2048²·8 B.

    Model: 17,179,869,184 FLOP, 100,663,296 B. Measured 17,184,063,488 FLOP (2²² more:
    ratio 1 + 2²²/2³⁴ = 1.000244140625); DRAM 71,303,168 B = 17/24 of the compulsory bytes
    (a ratio below 1: the counters saw less than the model counts), LDS 6,308,233,216 B.
    """
    model = tmp_path / "model.csv"
    model.write_text("name,flop,bytes\ndgemm_2048,17179869184,100663296\n")
    measured = load_points("rocprof", ROOT / "resources" / "rocprof" / "mi210_gemm_triad")
    table = reconcile(measured, load_points("roofline", model),
                      [parse_mapping("dgemm_valu=dgemm_2048")], choose_preset(
                          DEFAULT_HARDWARE, "mi210"))
    rows = {r["level"]: r for r in table.iter_rows(named=True)}
    assert set(rows) == {"DRAM", "L2", "L1", "LDS"}
    assert rows["DRAM"]["flop_ratio"] == pytest.approx(1.000244140625)
    assert rows["DRAM"]["excess_traffic"] == pytest.approx(17 / 24)
    assert rows["LDS"]["excess_traffic"] == pytest.approx(6_308_233_216 / 100_663_296)
    # A spec variant, named by a part of its label only it has: its own FLOP, bytes and
    # precision (fp8-tensor), not the measured kernel's.
    spec = load_points("specs", ROOT / "resources" / "specs" / "1_BatchedMoE.yaml")
    table = reconcile(measured, spec, [parse_mapping("hgemm=w13: fp8 w8a8 (M=64)")],
                      choose_preset(DEFAULT_HARDWARE, "mi210"))
    row = table.row(0, named=True)
    assert (row["model_flop"], row["model_bytes"]) == (51_539_607_552, 432_013_824)
    assert row["model_intensity"] == pytest.approx(51_539_607_552 / 432_013_824)


# The workflow: config `model_checks` ------------------------------------------------------


def _plan(tmp_path, monkeypatch, **entry):
    from rooflow.defaults import config_defaults, plot_defaults
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.workflow.planning import Plan

    monkeypatch.chdir(tmp_path)
    for rel in ("resources/roofline/run.csv", "resources/roofline/model.csv"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    checks = {"gemm": {"measured": "roofline-run", "model": "roofline-model",
                       "map": {"sgemm": "gemm_1024"}} | entry}
    config = {**config_defaults(), "plot_defaults": plot_defaults(),
              "presets": ["h100-sxm"], "model_checks": checks}
    return Plan(config, load_hardware())


def test_workflow_plans_a_model_check(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    assert plan.model_check_presets("gemm") == ["h100-sxm"]  # the measured dataset's
    assert {"results/model/h100-sxm/gemm.png", "results/model/h100-sxm/gemm.csv"} <= set(
        plan.targets())
    assert _plan(tmp_path, monkeypatch, presets=["mi210"]).model_check_presets("gemm") == [
        "mi210"]
    with pytest.raises(ValueError, match="model check 'gemm': 'roofline-nosuch' is not a "
                                         "dataset"):
        _plan(tmp_path, monkeypatch, model="roofline-nosuch").targets()
    with pytest.raises(ValueError, match=r"unknown presets \['nosuch'\]"):
        _plan(tmp_path, monkeypatch, presets=["nosuch"]).targets()


def test_config_schema_takes_model_checks():
    from rooflow.defaults import schema_error

    entry = {"measured": "ncu-run", "model": "roofline-model", "map": {"dgemm": "dgemm_4096"}}
    assert schema_error("config", {"presets": ["h100-sxm"], "model_checks": {"g": entry}}) is None
    for bad in ({**entry, "map": {}}, {k: v for k, v in entry.items() if k != "model"},
                {**entry, "extra": 1}):
        assert schema_error("config", {"presets": ["h100-sxm"], "model_checks": {"g": bad}})


@pytest.mark.workflow
def test_workflow_builds_a_model_check(tmp_path):
    """Config model_checks: its plot and table, and its sentence in results/summary.md."""
    from workflow_copy import copy_workflow, snakemake

    work = copy_workflow(tmp_path / "wf", resources=False)
    for folder in ("ncu", "roofline"):
        (work / "resources" / folder).mkdir(parents=True)
    (work / "resources" / "ncu" / NCU.name).write_bytes(NCU.read_bytes())
    (work / "resources" / "roofline" / "dgemm_model.csv").write_text(
        "kernel,flop,bytes\ndgemm_4096,137438953472,402653184\n")
    (work / "config" / "config.yaml").write_text(
        "presets: [a100-sxm]\nmodel_checks:\n  dgemm:\n"
        "    measured: ncu-a100_dgemm_triad_hgemm\n    model: roofline-dgemm_model\n"
        "    map:\n      '^dgemm': dgemm_4096\n  bad:\n"
        "    measured: ncu-a100_dgemm_triad_hgemm\n    model: roofline-dgemm_model\n"
        "    map:\n      '^dgemm': nosuch\n")
    snakemake(work, "results/summary.md", "results/model/a100-sxm/dgemm.png", cores=1)
    table = pl.read_csv(work / "results" / "model" / "a100-sxm" / "dgemm.csv")
    assert table["excess_traffic"].to_list() == pytest.approx(
        [v / 402_653_184 for v in (1.21e9, 9.87e9, 35.16e9)])
    summary_md = (work / "results" / "summary.md").read_text()
    assert "## Model vs measurement" in summary_md
    assert ("- a100-sxm/dgemm: Model vs measurement, 1 kernel: largest excess traffic "
            "dgemm_nn_kernel(…) at L1") in summary_md  # short_name: parameters elided
    assert "87.3× the model's compulsory bytes" in summary_md
    # a check that cannot be made is its own problem: placeholders, a line in the summary
    assert "- a100-sxm/bad: not built: rooflow: error: --map: no model point is named " \
           "'nosuch'" in summary_md
    assert (work / "results" / "model" / "a100-sxm" / "bad.png").exists()


def test_markdown_section_escapes_and_says_what_failed():
    table = pl.DataFrame({"kernel": ["k|*x"], "level": ["DRAM"], "excess_traffic": [2.0],
                          "flop_ratio": [1.5]})
    failed = pl.DataFrame({"dataset": ["c"], "error": ["bad <input>"]})
    text = markdown_section({"p/a": table, "p/b": failed})
    assert "- p/a: Model vs measurement, 1 kernel: largest excess traffic k\\|\\*x at DRAM, " \
           "2× the model's compulsory bytes; largest FLOP ratio k\\|\\*x, 1.5× the model's " \
           "FLOP." in text
    assert "- p/b: not built: bad &lt;input&gt;" in text
    assert markdown_section({}) == ""


# ------------------------------------------------------------ per call (issue 31, item 2)

# STREAM triad a[i] = b[i] + q·c[i] in fp64 (McCalpin, https://www.cs.virginia.edu/stream/
# ref.html: 2 FLOP and 24 bytes per iteration): per call of N elements, 2N FLOP (a multiply
# and an add) and 24N compulsory bytes (read b and c, write a, 8 B each).
# N = 2²⁶ = 67,108,864: 134,217,728 FLOP and 1,610,612,736 B per call.
TRIAD_MODEL = "kernel,flop,bytes\ntriad_2^26,134217728,1610612736\n"


def test_two_launches_against_an_exact_per_call_model(tmp_path):
    # Two launches of that exact triad, 1 ms each: summed they are 2 × the model (FLOP ratio
    # 2.0, excess traffic 2.0); per call 268,435,456 / 2 = 134,217,728 FLOP and
    # 3,221,225,472 / 2 = 1,610,612,736 B: ratio 1.0 and excess traffic 1.0; the time per
    # call 1 ms → 134.2 GFLOP/s either way.
    model, measured = tmp_path / "model.csv", tmp_path / "measured.csv"
    model.write_text(TRIAD_MODEL)
    measured.write_text("name,flop,time_us,bytes_dram,precision\n"
                        "stream_triad,134217728,1000,1610612736,fp64\n"
                        "stream_triad,134217728,1000,1610612736,fp64\n")
    table = reconcile(load_points("roofline", measured), load_points("roofline", model),
                      [parse_mapping("triad=triad_2^26")], A100)
    (row,) = table.iter_rows(named=True)
    assert row["calls"] == 2
    assert row["measured_flop"] == 134_217_728 and row["flop_ratio"] == pytest.approx(1.0)
    assert row["measured_bytes"] == 1_610_612_736
    assert row["excess_traffic"] == pytest.approx(1.0)
    assert row["measured_performance"] == pytest.approx(134_217_728 / 1e-3)


def test_shipped_two_launch_triad_is_set_against_its_model_per_call(tmp_path):
    # resources/ncu: stream_triad launched twice, each 2·2²⁶ FLOP; DRAM bytes 1,610,612,736
    # (exactly 24N) and 1.62e9 (the export's rounded figure). Per call: FLOP ratio
    # 134,217,728 / 134,217,728 = 1.0 (2.0 summed over both launches); DRAM excess
    # (1,610,612,736 + 1,620,000,000) / 2 / 1,610,612,736 = 1.0029142 (2.0058283 summed).
    model = tmp_path / "model.csv"
    model.write_text(TRIAD_MODEL)
    table = tmp_path / "mc.csv"
    done = subprocess.run([ROOFLOW, "model-check", str(NCU), "--model", str(model), "--map",
                           "stream_triad=triad_2^26", "--hardware", "a100-sxm", "--table",
                           str(table)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = {r["level"]: r for r in pl.read_csv(table).iter_rows(named=True)}
    assert rows["DRAM"]["calls"] == 2
    assert rows["DRAM"]["flop_ratio"] == pytest.approx(1.0)
    assert rows["DRAM"]["excess_traffic"] == pytest.approx(1.0029142, rel=1e-6)
    assert "largest FLOP ratio stream_triad" in done.stderr and "1× the model's FLOP" in \
        done.stderr
