"""What planning opens, links out of resources/, bad presets and points files (issue 32, items
8, 9, 10 and 12).

- Every file opened at planning is checked first: a FIFO beside ncu passes, as a rocprof
  workload's ``sysinfo.csv`` or as a rocprofv3 ``agent_info`` hung ``snakemake -n`` at
  "Building DAG".
- A link in ``resources/`` that leads out of it is skipped with a warning (a link to a
  secret file put its first line into summary.md); an error line quotes one cell, never
  a line.
- One bad dataset or preset never blocks the rest: a row no plot can place fails its own
  points job; a measured preset that cannot be built (ERT JSON cut short, pti-gpu config
  without roofs, ncu peaks -1 or ``n/a``) is one warning, and its datasets are drawn on
  their other presets.
- A truncated points file is rebuilt by the next run.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.errors import InputError
from rooflow.failed import is_whole_parquet
from rooflow.planning import Plan, preset_problem
from rooflow.roofs.datasheet import load_hardware

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RTX3060_CSV = DATA / "ncu" / "raw-wide-rtx3060" / "vector_add.csv"
CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: {}\n"
SECRET = "root:x:0:0:SECRET-FIRST-LINE:/root:/bin/bash\nSECRET-SECOND-LINE,a,b,c\n"


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


def _fifo_tree(res: Path) -> None:
    """A FIFO where planning reads: beside ncu passes, as sysinfo.csv and as agent_info."""
    (res / "ncu/run").mkdir(parents=True)
    (res / "ncu/run/a.csv").write_text('"ID","Kernel Name","Metric Name","Metric Value"\n')
    os.mkfifo(res / "ncu/run/0pass.csv")  # sorted first: the pass read for the GPU
    (res / "rocprof/w").mkdir(parents=True)
    (res / "rocprof/w/pmc_perf.csv").write_text("Dispatch_ID,Kernel_Name\n0,k\n")
    os.mkfifo(res / "rocprof/w/sysinfo.csv")
    (res / "rocprofv3").mkdir()
    (res / "rocprofv3/q_counter_collection.csv").write_text("Agent_Id,Kernel_Name\n1,k\n")
    os.mkfifo(res / "rocprofv3/q_agent_info.csv")


# Item 9: files opened at planning --------------------------------------------------------


def test_planning_opens_no_fifo(tmp_path):
    # In a child with a time limit: before, Plan blocked forever in open() of a FIFO.
    res = tmp_path / "resources"
    _fifo_tree(res)
    script = ("import json; from rooflow.defaults import config_defaults, plot_defaults; "
              "from rooflow.planning import Plan; from rooflow.roofs.datasheet import "
              "load_hardware; p = Plan({**config_defaults(), 'plot_defaults': "
              "plot_defaults(), 'presets': ['h100-sxm']}, load_hardware()); "
              "print(json.dumps([sorted(p.datasets), p.gpus, p.warnings]))")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    datasets, gpus, warnings = json.loads(proc.stdout)
    assert datasets == ["ncu-run", "rocprof-w", "rocprofv3-q"] and gpus == {}
    assert warnings == ["skipped 'resources/ncu/run/0pass.csv': not a regular file (a FIFO, "
                        "socket or device)"]


@pytest.mark.workflow
def test_snakemake_dry_run_finishes_beside_fifos(tmp_path):
    work = copy_workflow(tmp_path / "w", resources=False)
    (work / "config/config.yaml").write_text(CONFIG.format("[h100-sxm]"))
    _fifo_tree(work / "resources")
    proc = snakemake(work, "-n", timeout=300)  # subprocess.TimeoutExpired: the old hang
    assert "points" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr


# Item 8: links out of resources/ ---------------------------------------------------------


def test_a_link_out_of_resources_is_skipped_with_a_warning(res, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    (res / "roofline").mkdir()
    (res / "roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    (res / "roofline/inside.csv").symlink_to("k.csv")  # a link within the tree: read
    (res / "roofline/passwd.csv").symlink_to(secret)
    (res / "ncu/run").mkdir(parents=True)
    shutil.copy(RTX3060_CSV, res / "ncu/run/a.csv")
    (res / "ncu/run/b.csv").symlink_to(secret)  # one pass of a folder: the folder skipped
    (res / "rocprof/w").mkdir(parents=True)
    (res / "rocprof/w/pmc_perf.csv").write_text("Dispatch_ID,Kernel_Name\n0,k\n")
    (res / "rocprof/w/sysinfo.csv").symlink_to(secret)  # a file the job reads beside it
    plan = _plan()
    assert sorted(plan.datasets) == ["roofline-inside", "roofline-k"]
    assert plan.warnings == [  # one per dataset, in the kinds' order
        "skipped 'resources/roofline/passwd.csv': 'resources/roofline/passwd.csv' is a link "
        "out of resources/ (inputs are read from there only)",
        "skipped 'resources/ncu/run/': 'resources/ncu/run/b.csv' is a link out of "
        "resources/ (inputs are read from there only)",
        "skipped 'resources/rocprof/w/': 'resources/rocprof/w/sysinfo.csv' is a link out of "
        "resources/ (inputs are read from there only)"]
    assert not any("SECRET" in line for line in plan.warnings)


def test_a_resources_folder_that_is_itself_a_link_is_read(tmp_path, monkeypatch):
    data = tmp_path / "elsewhere"
    (data / "roofline").mkdir(parents=True)
    (data / "roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "resources").symlink_to(data)
    monkeypatch.chdir(work)
    assert list(_plan().datasets) == ["roofline-k"]


@pytest.mark.parametrize("text, cell", [
    # The /etc/passwd shape: a header of one field, a line with commas in it.
    (SECRET, "a"),
    ("series,ai,tflops\nk,10,5,EXTRA,SECRET-REST-OF-LINE\n", "EXTRA"),
    ("series,ai,tflops\nSECRET-ONLY-CELL\n", "SECRET-ONLY-CELL"),
])
def test_a_row_of_the_wrong_length_quotes_one_cell(tmp_path, text, cell):
    from rooflow.adapters import load_points

    path = tmp_path / "x.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_points("roofline", path)
    assert err.value.value == cell
    assert "SECRET" not in str(err.value).replace(cell, "")


def test_a_pti_gpu_config_line_quotes_one_cell(tmp_path):
    from rooflow.roofs.intel_config import intel_preset

    path = tmp_path / "dev.csv"
    path.write_text("FP32_GFLOPS,100,THIRD,SECRET-REST\n")
    with pytest.raises(InputError) as err:
        intel_preset(path)
    assert err.value.value == "THIRD" and "SECRET" not in str(err.value)


# Item 10: a bad preset is one warning ----------------------------------------------------


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


def test_a_point_no_plot_can_place_fails_its_points_check(tmp_path):
    # AI 1e300 FLOP/byte passes the canonical contract (finite, > 0) but no plot places it
    # (PLOT_RANGE 1e-30 … 1e30): the points job refuses it, naming row and column.
    from rooflow.adapters import load_points
    from rooflow.plotting.core import check_plottable

    path = tmp_path / "huge.csv"
    path.write_text("series,ai,tflops\nk,10,5\nj,1e300,5\n")
    points = load_points("roofline", path)
    with pytest.raises(InputError) as err:
        check_plottable(points, performance="flop_per_s")
    assert (err.value.row, err.value.column, err.value.check) == (
        2, "arithmetic_intensity", "plottable range")
    check_plottable(points.head(1), performance="flop_per_s")  # 10 FLOP/byte, 5 TFLOP/s: ok


# Items 10 and 12 in a real run -----------------------------------------------------------


@pytest.mark.workflow
@pytest.mark.shared
def test_bad_rows_and_presets_block_nothing_and_cut_points_are_rebuilt(tmp_path):
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
    (res / "roofline/huge.csv").unlink()
    snakemake(work)
    # A points file cut short, nothing else changed: rebuilt by this run, not left missing.
    points = work / "results/points/roofline/k.parquet"
    points.write_bytes(points.read_bytes()[:100])
    proc = snakemake(work)
    assert "results/points/roofline/k.parquet was not a whole Parquet file" in proc.stderr
    assert is_whole_parquet(points) and pl.read_parquet(points).height == 1
