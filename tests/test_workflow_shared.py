"""Every real input of ../shared/data in one real Snakemake run (one build for the module).

Each file or folder of the shared data is placed into a throwaway copy of the workflow, in
the layout of its kind under resources/ (README, "Inputs"); the shipped examples are left
out. The run may end with exit 1 only in rule `datasets_read` (a dataset that could not be
read); every placed dataset has its table and plot on each of its presets, or is listed
under "Datasets not built" in results/summary.md with one `rooflow: error:` line; the
screen holds no traceback; the summary and the per-preset aggregates (all.*) are built.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate
from workflow_copy import copy_workflow, snakemake

from rooflow.defaults import schema_path
from rooflow.escape import markdown_cell
from rooflow.kinds import DATASET_NAME
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.failed import failure
from rooflow.workflow.planning import Plan, points_file

pytestmark = [pytest.mark.workflow, pytest.mark.shared]

# The shipped config without its examples' datasets, comparisons and model checks; one
# configured preset, so a dataset whose GPU is not known is drawn once (the build time).
CONFIG = """hardware: config/hardware.yaml
families: config/families.yaml
presets: [h100-sxm]
family_map:
  4_UnifiedAttention_MixedDtype: UnifiedAttention
"""
# Files of the shared data that are documentation of a capture, not profiler output:
# SOURCES.md, and ncu's notes of the version and metrics of bytes-time-rtx5070.
# The graph-capture folders' execution_details.json: the batch size and mode of a capture.
NOT_INPUTS = {"SOURCES.md", "ncu/bytes-time-rtx5070/ncu_version.txt",
              "ncu/bytes-time-rtx5070/metrics_used.txt",
              "pytorch/tracelens-mi300x-vllm-graph-replay/capture_traces/execution_details.json",
              "pytorch/tracelens-mi300x-sglang-decode-graph/capture_traces/execution_details.json"}
NAME = re.compile(DATASET_NAME)


def _name(*parts: str) -> str:
    """A dataset NAME from parts of a shared path, checked against the NAME pattern."""
    name = "-".join(parts)
    assert NAME.fullmatch(name), f"not a dataset name: {name!r}"
    return name


def _place(data: Path, res: Path) -> tuple[dict[str, str], set[str]]:
    """Copy every input of `data` into `res` in the layout of its kind.

    Returns dataset id (or measured preset id) → the shared path it came from, and the
    shared paths (relative to `data`) placed.
    """
    placed: dict[str, str] = {}
    used: set[str] = set()

    def put(src: Path, dest: Path, key: str | None) -> None:
        assert key not in placed, f"two inputs named {key}: {placed[key]}, {src}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest)
            used.update(str(f.relative_to(data)) for f in src.rglob("*") if f.is_file())
        else:
            shutil.copy(src, dest)
            used.add(str(src.relative_to(data)))
        if key:
            placed[key] = str(src.relative_to(data))

    # ncu CSV exports: each file is one profile of its own program (SOURCES.md), so one
    # dataset each, not passes of one run.
    for csv in sorted((data / "ncu").glob("*/*.csv")):
        stem = csv.name.removesuffix(".csv").removesuffix(".ncu")
        name = _name(csv.parent.name, stem)
        put(csv, res / "ncu" / f"{name}.csv", f"ncu-{name}")
    # Nsight Compute reports: a distinct name from the CSV of the same program (one name in
    # two forms would be skipped).
    for rep in sorted((data / "ncu-rep").glob("*/*.ncu-rep")):
        name = _name("rep", rep.parent.name, rep.name.removesuffix(".ncu-rep"))
        put(rep, res / "ncu" / f"{name}.ncu-rep", f"ncu-{name}")
    # rocprof-compute / Omniperf workload folders.
    for folder in sorted(p for p in (data / "omniperf").iterdir() if p.is_dir()):
        name = _name(folder.name)
        put(folder, res / "rocprof" / name, f"rocprof-{name}")
    # rocprof v1: the CSVs (and pmc input) of one program, one folder.
    for folder in sorted(p for p in (data / "rocprof").iterdir() if p.is_dir()):
        name = _name(folder.name)
        put(folder, res / "rocprofv1" / name, f"rocprofv1-{name}")
    # rocprofv3: PREFIX_counter_collection.csv + PREFIX_agent_info.csv, renamed after the folder.
    for counters in sorted((data / "rocprofv3").glob("*/*_counter_collection.csv")):
        name = _name(counters.parent.name)
        prefix = counters.name.removesuffix("_counter_collection.csv")
        put(counters.parent / f"{prefix}_agent_info.csv",
            res / "rocprofv3" / f"{name}_agent_info.csv", None)
        put(counters, res / "rocprofv3" / f"{name}_counter_collection.csv", f"rocprofv3-{name}")
    # Intel: unitrace reports (NAME.<pid>) as one folder; a pti-gpu device config as a preset.
    for folder in sorted(p for p in (data / "intel").iterdir() if p.is_dir()):
        name = _name(folder.name.removeprefix("unitrace-"))
        for f in sorted(folder.iterdir()):
            if f.suffix == ".csv":
                put(f, res / "intel" / f.name, f"intel-{_name(f.stem)}")
            else:
                dest = res / "unitrace" / name / f.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(f, dest)
                used.add(str(f.relative_to(data)))
                placed[f"unitrace-{name}"] = str(folder.relative_to(data))
    # ERT: a roofline.json at the top (named by its file) or in a folder (named by it).
    for js in sorted((data / "ert").rglob("*.json")):
        name = _name(js.stem if js.parent.name == "ert" else js.parent.name)
        put(js, res / "ert" / f"{name}.json", f"ert-{name}")
    # Xe-Forge kernel specs.
    for spec in sorted((data / "xe-forge").rglob("*.yaml")):
        name = _name(spec.stem)
        put(spec, res / "specs" / f"{name}.yaml", f"specs-{name}")
    # PyTorch profiler traces: one per folder, named by it.
    for trace in sorted((data / "pytorch").glob("*/*.json*")):
        name = _name(trace.parent.name)
        ext = ".json.gz" if trace.name.endswith(".gz") else ".json"
        put(trace, res / "pytorch" / f"{name}{ext}", f"pytorch-{name}")
    # The capture half of a graph capture/replay pair: a trace of its own.
    for trace in sorted((data / "pytorch").glob("*/capture_traces/*.json.gz")):
        name = _name(trace.parent.parent.name, "capture")
        put(trace, res / "pytorch" / f"{name}.json.gz", f"pytorch-{name}")
    # rocprof-compute 3.5 analysis databases: kind rocprof, one file each.
    for db in sorted((data / "rocprof-compute-db").glob("*/*.db")):
        name = _name("db", db.parent.name)
        put(db, res / "rocprof" / f"{name}.db", f"rocprof-{name}")
    return placed, used


@pytest.fixture(scope="module")
def shared_build(tmp_path_factory, shared_data):
    work = copy_workflow(tmp_path_factory.mktemp("shared"), resources=False)
    (work / "config/config.yaml").write_text(CONFIG)
    placed, used = _place(shared_data, work / "resources")
    every = {str(f.relative_to(shared_data)) for f in shared_data.rglob("*") if f.is_file()}
    proc = snakemake(work, "--keep-going", check=False, timeout=900)
    return work, placed, used, every, proc


def _plan(work: Path) -> Plan:
    """The workflow's plan of the copy, as common.smk makes it (config defaults filled in)."""
    config = yaml.safe_load((work / "config/config.yaml").read_text())
    with contextlib.chdir(work):
        validate(config, str(schema_path("config")))
        return Plan(config, load_hardware(config["hardware"]))


def test_every_shared_file_is_placed(shared_build):
    _, _, used, every, _ = shared_build
    assert every - used == NOT_INPUTS
    assert not used & NOT_INPUTS


def test_run_ends_without_traceback(shared_build):
    work, _, _, _, proc = shared_build
    screen = proc.stdout + proc.stderr
    assert "Traceback" not in screen, screen[-6000:]
    assert 'File "' not in screen, screen[-6000:]
    if proc.returncode != 0:
        assert proc.returncode == 1, screen[-6000:]
        assert "Error in rule datasets_read" in screen, screen[-6000:]
        failed_rules = set(re.findall(r"Error in rule (\w+)", screen))
        assert failed_rules == {"datasets_read"}, screen[-6000:]
    assert not list((work / "logs").rglob("*.traceback")), screen[-6000:]


def test_every_dataset_built_or_listed(shared_build):
    work, placed, _, _, proc = shared_build
    plan = _plan(work)
    datasets = {k for k in placed if k.split("-", 1)[0] not in ("ert", "intel")}
    assert datasets <= set(plan.datasets), sorted(datasets - set(plan.datasets))
    assert not plan.skipped, plan.skipped
    # ERT files and the pti-gpu config are measured presets, not datasets.
    presets = {k for k in placed if k not in datasets}
    assert presets <= set(plan.measured), sorted(presets - set(plan.measured))
    summary = (work / "results/summary.md").read_text()
    not_built = summary.split("## Datasets not built", 1)[1].split("\n## ", 1)[0] \
        if "## Datasets not built" in summary else ""
    screen = proc.stdout + proc.stderr
    for dataset in sorted(datasets):
        kind, name = plan.datasets[dataset]
        line = failure(work / points_file(kind, name))
        if line is None:
            for preset in plan.dataset_presets(dataset):
                for out in (f"tables/{preset}/{dataset}.csv", f"plots/{preset}/{dataset}.png"):
                    assert (work / "results" / out).is_file(), f"{dataset}: {out} missing"
            assert f"| {markdown_cell(dataset)} |" not in not_built, dataset
        else:
            assert line.startswith("rooflow: error: ") and "\n" not in line, (dataset, line)
            assert "Traceback" not in line and "internal error" not in line.lower(), line
            cell = f"| {markdown_cell(dataset)} |"
            rows = [r for r in not_built.splitlines() if r.startswith(cell)]
            assert len(rows) == 1, (dataset, not_built)
            assert rows[0].count("rooflow: error:") == 1, rows[0]
            assert screen.count(line) >= 1, (dataset, line)


def test_summary_and_aggregates(shared_build):
    work, _, _, _, _ = shared_build
    plan = _plan(work)
    assert (work / "results/summary.md").is_file()
    assert plan.all_presets
    for preset in plan.all_presets:
        for out in ("tables/{p}/all.csv", "plots/{p}/all.png", "html/{p}/all.html"):
            path = work / "results" / out.format(p=preset)
            assert path.is_file(), f"{path} missing"
