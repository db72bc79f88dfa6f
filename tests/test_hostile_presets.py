"""One bad dataset or measured preset never blocks the rest (issue 32, item 10).

These passed their points job and then failed every draw, aggregate and page job of their
presets, so summary.md and the report were not built: a row no plot can place (AI 1e300),
now refused by its own points job; a measured preset that cannot be built (ERT JSON cut
short, pti-gpu config without roofs, ncu peaks -1 or ``n/a``: ``ncu-NAME`` is planned from
the metric names alone), now built at planning (:func:`rooflow.workflow.planning.preset_problem`):
one warning, and its datasets are drawn on their other presets.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.errors import InputError
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.planning import Plan, preset_problem

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RTX3060_CSV = DATA / "ncu" / "raw-wide-rtx3060" / "vector_add.csv"
CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: {}\n"


@pytest.fixture
def res(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "resources").mkdir()
    return tmp_path / "resources"


def _plan(**config) -> Plan:
    return Plan({**config_defaults(), "plot_defaults": plot_defaults(),
                 "presets": ["h100-sxm"]} | config, load_hardware())


def _peaks_export(path: Path, value: str) -> Path:
    """The RTX 3060 raw-page export with every ``…peak_sustained`` cell of its launch set to
    ``value`` (its units row kept): the metric names a preset needs, no usable value."""
    rows = list(csv.reader(RTX3060_CSV.open(newline="")))
    header = rows[0]
    peaks = [i for i, h in enumerate(header) if h.endswith(".peak_sustained")]
    for row in rows[2:]:
        for i in peaks:
            row[i] = value
    with path.open("w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)
    return path


@pytest.mark.parametrize("rel, content, why", [
    ("ert/cut.json", '{"empirical": {"gflops": {"data": [["FP64", 7', "not JSON"),
    ("ert/empty.json", "{}", "no empirical.gbytes.data list"),
    ("intel/dev.csv", "FP32_GFLOPS,-5\n", "FP32_GFLOPS"),
    ("intel/nomem.csv", "FP32_GFLOPS,100\n", "no memory roof"),
])
def test_a_broken_measured_preset_is_one_warning(res, rel, content, why):
    path = res / rel
    path.parent.mkdir(parents=True)
    path.write_text(content)
    (res / "roofline").mkdir()
    (res / "roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    key = f"{rel.split('/')[0]}-{Path(rel).stem}"
    # Named by config, as a preset of every dataset and of the dataset: left out there.
    plan = _plan(presets=[key, "h100-sxm"], datasets={"roofline-k": {"presets": [key]}})
    assert key not in plan.measured and why in plan.broken[key]
    assert plan.warnings == [f"preset {key!r} not built: {plan.broken[key]}; its datasets "
                             "are drawn on their other presets"]
    assert plan.dataset_presets("roofline-k") == ["h100-sxm"] == plan.all_presets


@pytest.mark.shared
@pytest.mark.parametrize("value", ["-1", "n/a"])
def test_ncu_peaks_minus_one_or_na_fall_back_to_the_other_presets(res, value):
    (res / "ncu").mkdir()
    _peaks_export(res / "ncu/va.csv", value)
    plan = _plan()
    assert "no Theoretical peaks" in plan.broken["ncu-va"]
    assert plan.own_preset == {} and plan.measured == {}
    # The RTX 3060 Laptop GPU is in no preset's `devices`: the configured presets.
    assert plan.dataset_presets("ncu-va") == ["h100-sxm"]
    assert plan.warnings[0].startswith("preset 'ncu-va' not built: resources/ncu/va.csv: "
                                       "no Theoretical peaks")


@pytest.mark.shared
def test_good_ncu_peaks_still_make_the_preset(res):
    # RTX 3060 Laptop, by hand from the export (Nsight Compute roofline sections, as
    # rooflow.roofs.ncu): fp64 = 60 DFMA/cycle (…dfma_pred_on.sum.peak_sustained) × 2 FLOP
    # × SM 817.173377 cycle/µs = 98,060,805,240 FLOP/s; DRAM = 48 byte/cycle × 5.992585
    # cycle/ns = 287.64408 GB/s. preset_problem builds this preset and finds it whole.
    from rooflow.roofs import load_preset

    (res / "ncu").mkdir()
    shutil.copy(RTX3060_CSV, res / "ncu/va.csv")
    assert preset_problem("ncu-va", "resources/ncu/va.csv") is None
    preset = load_preset("ncu-va", measured_file="resources/ncu/va.csv")
    assert preset.compute["fp64"] == pytest.approx(98_060_805_240)
    assert preset.memory["DRAM"] == pytest.approx(287.64408e9)
    plan = _plan()
    assert plan.broken == {} and plan.dataset_presets("ncu-va") == ["ncu-va"]


@pytest.mark.shared
def test_a_whole_preset_is_built_once_until_its_file_changes(res, monkeypatch):
    # Planning runs on every Snakemake invocation: a preset found whole is noted with its
    # file's size and time stamp, and built again only when they change.
    (res / "ncu").mkdir()
    export = res / "ncu/va.csv"
    shutil.copy(RTX3060_CSV, export)
    assert _plan().broken == {}
    built: list[str] = []
    with monkeypatch.context() as patch:
        patch.setattr("rooflow.workflow.planning.preset_problem",
                      lambda key, path: built.append(key) or None)
        assert _plan().measured and built == []
    _peaks_export(export, "-1")  # another size: checked again
    plan = _plan()
    assert "ncu-va" in plan.broken and plan.measured == {}


def test_a_point_no_plot_can_place_fails_its_points_check(tmp_path):
    # AI 1e300 FLOP/byte passes the canonical contract (finite, > 0) but no plot places it
    # (PLOT_RANGE 1e-30 … 1e30): the points job refuses it, naming row and column.
    from rooflow.adapters import load_points
    from rooflow.plotting.core import check_plottable

    path = tmp_path / "huge.csv"
    path.write_text("series,ai,tflops\nk,10,5\nj,1e300,5\n")
    points = load_points("roofline", path)
    with pytest.raises(InputError) as err:
        check_plottable(points)
    assert (err.value.row, err.value.column, err.value.check) == (
        2, "arithmetic_intensity", "plottable range")
    check_plottable(points.head(1))  # 10 FLOP/byte, 5 TFLOP/s: ok


@pytest.mark.workflow
@pytest.mark.shared
def test_bad_rows_and_presets_block_nothing_in_a_real_run(tmp_path):
    work = copy_workflow(tmp_path / "w", resources=False)
    (work / "config/config.yaml").write_text(CONFIG.format("[ert-cut, h100-sxm]"))
    res = work / "resources"
    for kind in ("roofline", "ncu", "ert"):
        (res / kind).mkdir(parents=True)
    (res / "roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    (res / "roofline/huge.csv").write_text("series,ai,tflops\nk,1e300,5\n")
    _peaks_export(res / "ncu/va.csv", "-1")
    (res / "ert/cut.json").write_text('{"empirical": {"gflops": {"data": [["FP64", 7')
    proc = snakemake(work, check=False)
    screen = proc.stdout + proc.stderr
    assert "Traceback" not in screen
    for key in ("ert-cut", "ncu-va"):
        assert screen.count(f"rooflow: warning: preset {key!r} not built: ") == 1, key
    summary = (work / "results/summary.md").read_text()
    assert "roofline-huge" in summary and "plottable range" in summary
    for dataset in ("roofline-k", "ncu-va"):  # ncu-va: on the configured preset
        table = pl.read_csv(work / f"results/tables/h100-sxm/{dataset}.csv")
        assert table.height >= 1, dataset
    assert (work / "results/html/h100-sxm/all.html").exists()
    assert proc.returncode != 0  # rule datasets_read: roofline-huge was not read
