"""Workflow planning (rooflow.workflow.planning) without Snakemake: resource trees in tmp_path.

Each test builds a `resources/` folder, changes into its parent (the workflow's paths are
relative) and checks discovery, conflicts, presets, comparisons and targets.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
import yaml

from rooflow.defaults import (
    DATA,
    DEFAULT_HARDWARE,
    config_defaults,
    plot_defaults,
    safe_load,
    schema,
    schema_error,
)
from rooflow.errors import InputError
from rooflow.kinds import DATASET_NAME, KINDS, device_names
from rooflow.roofs.datasheet import load_hardware
from rooflow.roofs.preset import device_preset
from rooflow.workflow.batches import batch_of, outputs_on_disk
from rooflow.workflow.planning import Plan, discover, points_file, source_input, sources

REPO = Path(__file__).resolve().parents[1]


@cache
def _hardware():
    return load_hardware()


def _tree(root: Path, *paths: str) -> None:
    """Empty files at ``paths`` (relative to ``root``); a path ending in / is a folder."""
    for rel in paths:
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")


def _config(**over) -> dict:
    """A config as the workflow's validation leaves it (schema defaults filled in)."""
    return {**config_defaults(), "plot_defaults": plot_defaults(), "presets": ["h100-sxm"]} | over


@pytest.fixture
def res(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "resources").mkdir()
    return tmp_path / "resources"


@pytest.fixture(autouse=True)
def peaks_unchecked(monkeypatch):
    """The policy tests here stand empty files in for peaks files: the check that a measured
    preset builds (tests/test_hostile_planning.py) is left out."""
    monkeypatch.setattr("rooflow.workflow.planning.preset_problem", lambda key, path: None)


@pytest.fixture
def ncu_peaks(monkeypatch):
    """ncu exports whose name holds "peaks" count as having "Theoretical" peak rows."""
    monkeypatch.setattr("rooflow.roofs.ncu.has_peaks", lambda path: "peaks" in str(path))


# Discovery ---------------------------------------------------------------------------------


def test_discover_names_one_level_sorted_and_ignores_subfolders(res):
    _tree(res, "roofline/b.csv", "roofline/a.v2.csv", "roofline/old/c.csv", "roofline/d.txt")
    assert discover("resources/roofline/{name}.csv") == ["a.v2", "b"]


def test_discover_folder_form_names_each_folder_once(res):
    _tree(res, "ncu/run/flops.csv", "ncu/run/bytes.csv", "ncu/empty/", "ncu/deep/x/y.csv")
    assert discover("resources/ncu/{name}/*.csv") == ["run"]


def test_discover_missing_folder_is_empty(res):
    assert discover("resources/ert/{name}.json") == []


@pytest.mark.parametrize("bad", ["bad name", ".hidden", "-dash", "ümlaut", "my data", "._flash",
                                 ".#flash", "~$flash"])
def test_discover_skips_a_name_it_cannot_build_with_one_line(res, bad):
    # macOS ._x, Emacs .#x, Office ~$x droppings and names with spaces: one line each, and
    # the other files of the folder are still datasets.
    _tree(res, "roofline/ok.csv", f"roofline/{bad}.csv")
    skipped = []
    assert discover("resources/roofline/{name}.csv", skipped) == ["ok"]
    assert skipped == [(bad, f"skipped 'resources/roofline/{bad}.csv': a file name may hold "
                             "only letters, digits, '_', '.', '-' and must start with a letter "
                             "or digit")]


def test_discover_a_folder_named_like_a_file_is_found(res):
    # As Snakemake's glob_wildcards: folders match too (the job then fails on reading it).
    _tree(res, "roofline/odd.csv/")
    assert discover("resources/roofline/{name}.csv") == ["odd"]


def test_sources_alternate_and_folder_forms(res):
    _tree(res, "roofline/a.csv", "roofline/b.parquet", "ncu/x.csv", "ncu/y/p1.csv")
    assert sources("roofline", "roofline/{name}.csv", alternate="roofline/{name}.parquet") == {
        "a": "resources/roofline/a.csv", "b": "resources/roofline/b.parquet"}
    assert sources("ncu", "ncu/{name}.csv", folder="ncu/{name}/*.csv") == {
        "x": "resources/ncu/x.csv", "y": "resources/ncu/y"}


def test_sources_skips_a_name_in_two_file_forms(res):
    _tree(res, "roofline/a.csv", "roofline/a.parquet", "roofline/b.csv")
    with pytest.raises(ValueError, match=re.escape(
            "cannot build roofline-a: it is both resources/roofline/a.csv and "
            "resources/roofline/a.parquet; keep one of them")):
        sources("roofline", "roofline/{name}.csv", alternate="roofline/{name}.parquet")
    plan = Plan(_config(), _hardware())  # which one is meant is not guessed: neither
    assert list(plan.datasets) == ["roofline-b"]
    assert plan.warnings == ["skipped roofline-a: it is both resources/roofline/a.csv and "
                             "resources/roofline/a.parquet; keep one of them"]


def test_sources_skips_a_file_and_a_folder_of_one_name(res):
    _tree(res, "ncu/a.csv", "ncu/a/p1.csv")
    plan = Plan(_config(), _hardware())
    assert plan.datasets == {}
    assert plan.skipped == ["skipped ncu-a: it is both resources/ncu/a.csv and the folder "
                            "resources/ncu/a/; keep one of them"]


def test_links_to_nothing_and_fifos_are_skipped_with_one_line_each(res):
    _tree(res, "roofline/ok.csv", "ncu/run/p1.csv", "specs/s.yaml")
    (res / "roofline/dangling.csv").symlink_to(res / "nowhere.csv")
    (res / "roofline/loop_a.csv").symlink_to(res / "roofline/loop_b.csv")
    (res / "roofline/loop_b.csv").symlink_to(res / "roofline/loop_a.csv")
    (res / "roofline/.#ok.csv").symlink_to("user@host.1234:1700000000")  # an Emacs lock
    (res / "ncu/run/p2.csv").symlink_to(res / "gone.csv")  # in a folder dataset
    os.mkfifo(res / "roofline/fifo.csv")  # reading it would block the job for ever
    plan = Plan(_config(), _hardware())
    assert sorted(plan.datasets) == ["ncu-run", "roofline-ok", "specs-s"]
    nothing = "a link to nothing (its target is missing, or a loop)"
    assert sorted(plan.skipped) == sorted([
        f"skipped 'resources/roofline/dangling.csv': {nothing}",
        f"skipped 'resources/roofline/loop_a.csv': {nothing}",
        f"skipped 'resources/roofline/loop_b.csv': {nothing}",
        "skipped 'resources/roofline/.#ok.csv': a file name may hold only letters, digits, "
        "'_', '.', '-' and must start with a letter or digit",
        f"skipped 'resources/ncu/run/p2.csv': {nothing}",
        "skipped 'resources/roofline/fifo.csv': not a regular file (a FIFO, socket or device)",
    ])
    assert plan.warnings[:len(plan.skipped)] == plan.skipped
    # the folder dataset keeps its readable files only: no missing input for Snakemake
    assert plan.raw_input("ncu", "run") == {
        "raw": "resources/ncu/run", "raw_files": ["resources/ncu/run/p1.csv"]}


def test_unreadable_files_are_skipped(res, monkeypatch):
    _tree(res, "roofline/ok.csv", "roofline/secret.csv")
    real = os.access
    monkeypatch.setattr("os.access", lambda p, m: "secret" not in str(p) and real(p, m))
    plan = Plan(_config(), _hardware())
    assert list(plan.datasets) == ["roofline-ok"]
    assert plan.skipped == ["skipped 'resources/roofline/secret.csv': a file that cannot be "
                            "read"]


def test_a_comparison_of_a_skipped_dataset_is_left_out_not_an_error(res):
    _tree(res, "roofline/a.csv")
    (res / "roofline/b.csv").symlink_to(res / "nowhere.csv")
    plan = Plan(_config(comparisons={"t": {"baseline": "roofline-a", "new": "roofline-b"}}),
                _hardware())
    assert plan.comparisons == {}
    assert plan.skipped[-1] == "skipped comparison 't': its dataset 'roofline-b' was skipped"
    assert "results/compare/h100-sxm/t.png" not in plan.targets()


def test_corrupt_points_files_are_removed_to_be_rebuilt(res):
    import polars as pl

    _tree(res, "roofline/a.csv", "roofline/b.csv", "roofline/c.csv", "roofline/d.csv")
    plan = Plan(_config(), _hardware())
    points = {d: Path(p) for d, p in plan.points_files().items()}
    for path in points.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    pl.DataFrame({"x": [1.0, 2.0]}).write_parquet(points["roofline-a"])
    whole = points["roofline-a"].read_bytes()
    points["roofline-b"].write_bytes(whole[: len(whole) // 2])  # a killed run
    points["roofline-c"].write_bytes(b"garbage" * 100)  # overwritten
    # roofline-d: not built yet
    lines = plan.remove_corrupt_points()
    assert [p.exists() for p in points.values()] == [True, False, False, False]
    assert lines == [
        f"{points[d].as_posix()} was not a whole Parquet file (a killed run, a full disk?): "
        "removed, rebuilt in this run" for d in ("roofline-b", "roofline-c")]
    # Asked for, so rebuilt in this run even when no other job needs them.
    assert {points[d].as_posix() for d in ("roofline-b", "roofline-c")} <= set(plan.targets())
    assert plan.remove_corrupt_points() == []


def test_source_input_lists_a_folders_files(res):
    _tree(res, "ncu/y/p2.csv", "ncu/y/p1.csv", "ncu/y/notes.txt")
    assert source_input("raw", "resources/ncu/y", "ncu/{name}/*.csv") == {
        "raw": "resources/ncu/y",
        "raw_files": ["resources/ncu/y/p1.csv", "resources/ncu/y/p2.csv"],
    }
    assert source_input("raw", "resources/ncu/x.csv", "ncu/{name}/*.csv") == {
        "raw": "resources/ncu/x.csv"}


def test_plan_finds_every_kind_with_ids_built_not_parsed(res):
    _tree(res, "roofline/flash-v2.csv", "benchmarks/moe.csv", "specs/s.yaml", "ncu/run/a.csv",
          "rocprof/w/pmc_perf.csv", "rocprofv1/p/results.csv",
          "rocprofv3/q_counter_collection.csv", "unitrace/u/bytes.txt", "unitrace/u/flops.txt",
          "pytorch/t.json.gz")
    plan = Plan(_config(), _hardware())
    assert plan.datasets == {
        "roofline-flash-v2": ("roofline", "flash-v2"),  # "-" in a NAME stays in the NAME
        "benchmarks-moe": ("benchmarks", "moe"),
        "specs-s": ("specs", "s"),
        "ncu-run": ("ncu", "run"),
        "rocprof-w": ("rocprof", "w"),
        "rocprofv1-p": ("rocprofv1", "p"),
        "rocprofv3-q": ("rocprofv3", "q"),
        "unitrace-u": ("unitrace", "u"),
        "pytorch-t": ("pytorch", "t"),
    }
    assert list(plan.datasets) == [f"{k}-{n}" for k, n in plan.datasets.values()]
    assert [k for k, _ in plan.datasets.values()] == list(KINDS)  # registry order


# Measured presets --------------------------------------------------------------------------


def test_measured_peaks_files_become_presets(res, ncu_peaks):
    _tree(res, "ert/node.json", "intel/b70.csv", "rocprof/w/roofline.csv",
          "rocprof/w/pmc_perf.csv", "ncu/peaks_run/a.csv", "ncu/plain.csv")
    plan = Plan(_config(), _hardware())
    assert plan.measured == {
        "ert-node": {"measured": "resources/ert/node.json"},
        "omniperf-w": {"measured": "resources/rocprof/w/roofline.csv"},
        "intel-b70": {"measured": "resources/intel/b70.csv"},
        "ncu-peaks_run": {"measured": "resources/ncu/peaks_run",
                          "measured_files": ["resources/ncu/peaks_run/a.csv"]},
    }
    assert plan.own_preset == {"ncu-peaks_run": "ncu-peaks_run"}
    assert plan.known_presets == set(_hardware()) | set(plan.measured)
    assert plan.preset_input("ert-node") == {"hardware": "config/hardware.yaml",
                                             "measured": "resources/ert/node.json"}
    assert plan.preset_input("h100-sxm") == {"hardware": "config/hardware.yaml"}


# Dataset → presets -------------------------------------------------------------------------


def test_dataset_presets_default_device_and_explicit(res):
    _tree(res, "roofline/a.csv", "roofline/b.csv", "roofline/c.csv")
    plan = Plan(_config(presets=["h100-sxm", "mi300x"], datasets={
        "roofline-b": {"device": "a100-sxm"},
        "roofline-c": {"device": "a100-sxm", "presets": ["a100-sxm", "h100-sxm"]},
    }), _hardware())
    assert plan.dataset_presets("roofline-a") == ["h100-sxm", "mi300x"]
    assert plan.dataset_presets("roofline-b") == ["a100-sxm"]
    assert plan.dataset_presets("roofline-c") == ["a100-sxm", "h100-sxm"]
    assert plan.all_presets == ["a100-sxm", "h100-sxm", "mi300x"]
    assert plan.preset_datasets("h100-sxm") == ["roofline-a", "roofline-c"]
    assert plan.preset_datasets("mi300x") == ["roofline-a"]


def test_dataset_with_own_peaks_is_drawn_on_them_unless_told(res, ncu_peaks):
    _tree(res, "ncu/peaks_a.csv", "ncu/peaks_b.csv", "ncu/peaks_c.csv")
    plan = Plan(_config(datasets={
        "ncu-peaks_b": {"presets": ["h100-sxm"]},
        "ncu-peaks_c": {"device": "a100-sxm"},
    }), _hardware())
    assert plan.dataset_presets("ncu-peaks_a") == ["ncu-peaks_a"]
    assert plan.dataset_presets("ncu-peaks_b") == ["h100-sxm"]
    assert plan.dataset_presets("ncu-peaks_c") == ["a100-sxm"]


def test_device_not_among_the_datasets_presets_is_an_error(res):
    _tree(res, "roofline/a.csv")
    with pytest.raises(ValueError, match=re.escape(
            "config: dataset 'roofline-a' was measured on 'mi300x', which is not among its "
            "presets ['h100-sxm']")):
        Plan(_config(datasets={"roofline-a": {"device": "mi300x", "presets": ["h100-sxm"]}}),
             _hardware())


def test_unknown_preset_is_an_error_naming_the_known_ones(res):
    _tree(res, "roofline/a.csv")
    with pytest.raises(ValueError, match=r"config: dataset 'roofline-a' names unknown preset\(s\) "
                       r"\['nosuch'\]; known: \['a100-sxm', "):
        Plan(_config(presets=["h100-sxm", "nosuch"]), _hardware())


def test_config_entry_of_a_missing_dataset_is_no_error(res):
    plan = Plan(_config(datasets={"roofline-gone": {"device": "nosuch"}}), _hardware())
    assert plan.datasets == {}
    assert plan.all_presets == []
    assert plan.targets() == []


# The GPU a dataset ran on ------------------------------------------------------------------


def _workload(res: Path, name: str, **sysinfo: str) -> None:
    """A rocprof-compute workload folder: a pmc_perf.csv header and a one-row sysinfo.csv."""
    _tree(res, f"rocprof/{name}/pmc_perf.csv")
    (res / f"rocprof/{name}/pmc_perf.csv").write_text("Dispatch_ID,Kernel_Name\n0,k\n")
    (res / f"rocprof/{name}/sysinfo.csv").write_text(
        ",".join(sysinfo) + "\n" + ",".join(sysinfo.values()) + "\n")


def test_gfx950_workload_is_drawn_on_the_preset_its_sysinfo_names(res):
    # Issue 18's done-when: no `device:` entry, gfx950 both; rocprof-compute 3.x writes the
    # series as gpu_model, so the PCI chip id decides: 30115 is MI355X, 30112 MI350X.
    _workload(res, "w355", gpu_model="MI350", gpu_arch="gfx950", chip_id="30115")
    _workload(res, "w350", gpu_model="MI350", gpu_arch="gfx950", chip_id="30112")
    _tree(res, "roofline/theory.csv")
    plan = Plan(_config(presets=["h100-sxm", "mi300x"]), _hardware())
    assert plan.gpus["rocprof-w355"] == ("MI355X", "MI350", "gfx950")
    assert plan.dataset_presets("rocprof-w355") == ["mi355x"]
    assert plan.dataset_presets("rocprof-w350") == ["mi350x"]
    assert plan.dataset_presets("roofline-theory") == ["h100-sxm", "mi300x"]  # names no GPU
    assert plan.preset_datasets("mi355x") == ["rocprof-w355"]
    assert plan.preset_datasets("mi350x") == ["rocprof-w350"]
    assert plan.preset_datasets("mi300x") == plan.preset_datasets("h100-sxm") == [
        "roofline-theory"]
    assert plan.all_presets == ["h100-sxm", "mi300x", "mi350x", "mi355x"]
    assert plan.warnings == []


def test_older_sysinfo_names_the_gpu_by_model(res):
    _workload(res, "a", gpu_model="MI300X_A1", gpu_arch="gfx942")  # no chip_id column
    _workload(res, "b", gpu_model="MI200", gpu_arch="gfx90a")  # MI210 or MI250X: no preset
    plan = Plan(_config(), _hardware())
    assert plan.dataset_presets("rocprof-a") == ["mi300x"]
    assert plan.dataset_presets("rocprof-b") == ["h100-sxm"]
    assert plan.warnings == [
        "dataset 'rocprof-b' ran on 'MI200' (gfx90a), which no preset lists under `devices`; "
        "drawn on the configured presets ['h100-sxm'] (give it a `device:` entry)"]


def test_config_device_wins_and_another_gpus_preset_warns_once(res):
    _workload(res, "w", gpu_model="MI350", gpu_arch="gfx950", chip_id="30115")
    _workload(res, "v", gpu_model="MI350", gpu_arch="gfx950", chip_id="30115")
    _workload(res, "u", gpu_model="MI350", gpu_arch="gfx950", chip_id="30115")
    _tree(res, "ert/node.json")
    plan = Plan(_config(datasets={
        "rocprof-w": {"device": "mi300x"},
        "rocprof-v": {"presets": ["mi355x", "ert-node"]},  # its own GPU and a measured preset
        "rocprof-u": {"presets": ["mi355x", "h100-sxm", "mi300x"]},
    }), _hardware())
    assert plan.dataset_presets("rocprof-w") == ["mi300x"]
    assert plan.dataset_presets("rocprof-v") == ["mi355x", "ert-node"]
    assert plan.targets()  # every input function asked: still one warning per dataset
    assert plan.warnings == [  # in discovery order
        "dataset 'rocprof-u' ran on 'MI355X' (MI350, gfx950) (preset mi355x) but config draws "
        "it on h100-sxm, mi300x, whose `devices` do not name it: another GPU's roofs",
        "dataset 'rocprof-w' ran on 'MI355X' (MI350, gfx950) (preset mi355x) but config draws "
        "it on mi300x, whose `devices` do not name it: another GPU's roofs",
    ]


def test_ncu_exports_name_their_gpu_in_either_page(res, ncu_peaks):
    raw = ('"ID","Kernel Name","device__attribute_display_name","gpu__time_duration.sum"\n'
           '"","","","nsecond"\n"0","k","NVIDIA B200","1000"\n')
    details = ('==PROF== Connected\n"ID","Kernel Name","Section Name","Metric Name",'
               '"Metric Unit","Metric Value"\n'
               '"0","k","Command line profiler metrics","gpu__time_duration.sum","ns","1"\n'
               '"0","k","Command line profiler metrics","device__attribute_display_name","",'
               '"nvidia h100 80gb hbm3"\n')
    unknown = raw.replace("NVIDIA B200", "NVIDIA GeForce RTX 3060 Laptop GPU")
    for name, text in [("raw.csv", raw), ("details.csv", details), ("laptop.csv", unknown),
                       ("peaks_b.csv", raw), ("run/p1.csv", "x\n"), ("run/p2.csv", raw)]:
        _tree(res, f"ncu/{name}")
        (res / "ncu" / name).write_text(text)
    plan = Plan(_config(), _hardware())
    assert plan.dataset_presets("ncu-raw") == ["b200"]
    assert plan.dataset_presets("ncu-details") == ["h100-sxm"]  # matched case-insensitively
    assert plan.dataset_presets("ncu-run") == ["b200"]  # any pass of a folder may name it
    assert plan.dataset_presets("ncu-peaks_b") == ["ncu-peaks_b"]  # its own peaks come first
    assert plan.dataset_presets("ncu-laptop") == ["h100-sxm"]
    assert plan.warnings == [
        "dataset 'ncu-laptop' ran on 'NVIDIA GeForce RTX 3060 Laptop GPU', which no preset "
        "lists under `devices`; drawn on the configured presets ['h100-sxm'] (give it a "
        "`device:` entry)"]


def test_rocprofv3_agent_info_and_roofline_device_column(res):
    _tree(res, "rocprofv3/q_counter_collection.csv", "rocprofv3/q_agent_info.csv",
          "roofline/one.csv", "roofline/two.csv")
    (res / "rocprofv3/q_counter_collection.csv").write_text(
        '"Dispatch_Id","Agent_Id","Kernel_Name","Counter_Name","Counter_Value"\n'
        '1,"Agent 2","k","SQ_WAVES",1\n')
    (res / "rocprofv3/q_agent_info.csv").write_text(
        '"Logical_Node_Id","Agent_Type","Device_Id","Name","Product_Name"\n'
        '0,"CPU",0,"AMD EPYC","AMD EPYC"\n2,"GPU",30112,"gfx950","AMD Radeon Graphics"\n')
    (res / "roofline/one.csv").write_text("ai,tflops,gpu\n10,1,NVIDIA L40S\n20,2,NVIDIA L40S\n")
    (res / "roofline/two.csv").write_text("ai,tflops,device\n10,1,h100-sxm\n20,2,l40s\n")
    plan = Plan(_config(), _hardware())
    assert plan.gpus["rocprofv3-q"] == ("MI350X", "AMD Radeon Graphics", "gfx950")
    assert plan.dataset_presets("rocprofv3-q") == ["mi350x"]
    assert plan.dataset_presets("roofline-one") == ["l40s"]  # the `gpu` alias of `device`
    assert plan.dataset_presets("roofline-two") == ["h100-sxm"]  # two GPUs: none guessed
    assert "roofline-two" not in plan.gpus


@pytest.mark.shared
@pytest.mark.parametrize("kind, sample, preset", [
    ("ncu", "ncu/raw-wide-b200", "b200"),  # "NVIDIA B200" in the raw page's column
    ("ncu", "ncu/raw-wide-rtx3060/vector_add.csv", None),  # a laptop GPU: no preset
    ("rocprofv3", "rocprofv3/mi355x-hipkittens-lds/lds_conflict_counter_collection.csv",
     "mi355x"),  # Agent 2: Device_Id 30115, Product_Name "AMD Radeon Graphics"
    ("rocprof", "omniperf/mi325x-hipkittens-gemm", "mi325x"),  # chip_id 29861, model MI300
    ("rocprof", "omniperf/mi300x-kernel", "mi300x"),  # gpu_model MI300X_A1
    ("rocprof", "omniperf/mi300a-fortran-collapse", "mi300a"),  # gpu_model MI300A_A1
    ("rocprof", "omniperf/mi200-dispatch_0_1", None),  # MI200: MI210 or MI250X
])
def test_real_exports_find_their_preset(shared_data, kind, sample, preset):
    assert device_preset(_hardware(), device_names(kind, shared_data / sample)) == preset


def test_device_preset_first_name_decides_case_insensitively():
    hw = _hardware()
    assert device_preset(hw, ("MI358X", "mi355x", "gfx950")) == "mi355x"  # a preset id too
    assert device_preset(hw, ("nvidia geforce rtx 4090",)) == "rtx4090"
    assert device_preset(hw, ("gfx950",)) is None  # an architecture names no one GPU
    assert device_preset(hw, ()) is None


def test_a_device_name_of_two_presets_is_an_error(tmp_path):
    data = safe_load(DEFAULT_HARDWARE.read_text())
    data["presets"]["mi350x"]["devices"].append("mi355x")
    path = tmp_path / "hardware.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(InputError, match=re.escape(
            "column 'presets.mi350x.devices': device name also identifies preset 'mi355x' "
            "[check: one preset per device] (value: 'mi355x')")):
        load_hardware(path)


def test_reading_the_gpu_needs_nothing_heavy(res):
    """The planner reads a workload's GPU with polars, pandera, numpy, yaml and the
    adapters unimportable (a module set to None in ``sys.modules``)."""
    code = ("import sys; sys.modules.update(dict.fromkeys(('polars', 'pandera', 'numpy', "
            "'yaml', 'rooflow.adapters'))); from pathlib import Path; from "
            "rooflow.kinds import device_names; "
            "print(device_names('rocprof', Path('resources/rocprof/w')))")
    _workload(res, "w", gpu_model="MI300X_A1", gpu_arch="gfx942")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=res.parent).stdout.splitlines()
    assert out == ["('MI300X_A1', 'gfx942')"]


# Comparisons -------------------------------------------------------------------------------


def _comparing(res, **entry) -> Plan:
    _tree(res, "roofline/a.csv", "roofline/b.csv", "roofline/c.csv")
    return Plan(_config(presets=["h100-sxm", "mi300x"],
                        datasets={"roofline-c": {"device": "a100-sxm"}},
                        comparisons={"tune": {"baseline": "roofline-a", "new": "roofline-b"}
                                     | entry}), _hardware())


def test_comparison_is_drawn_on_the_shared_presets_or_its_own(res):
    assert _comparing(res).comparison_presets("tune") == ["h100-sxm", "mi300x"]
    assert _comparing(res, presets=["mi210"]).comparison_presets("tune") == ["mi210"]


def test_comparison_of_an_unknown_dataset_is_an_error(res):
    plan = _comparing(res, new="roofline-nosuch")
    with pytest.raises(ValueError, match=re.escape(
            "config: comparison 'tune': new 'roofline-nosuch' is not a dataset; known: "
            "['roofline-a', 'roofline-b', 'roofline-c']")):
        plan.targets()


def test_comparison_without_a_preset_is_an_error(res):
    plan = _comparing(res, new="roofline-c")
    with pytest.raises(ValueError, match=re.escape(
            "config: comparison 'tune': no preset to draw on (unknown: [], shared by both "
            "datasets: [])")):
        plan.comparison_presets("tune")
    with pytest.raises(ValueError, match=re.escape("(unknown: ['nosuch'], shared by both")):
        _comparing(res, presets=["nosuch"]).comparison_presets("tune")


# Targets and inputs ------------------------------------------------------------------------


def test_targets(res):
    _tree(res, "roofline/a.csv", "roofline/b.csv")
    plan = Plan(_config(datasets={"roofline-b": {"formats": ["png", "svg"]}},
                        comparisons={"t": {"baseline": "roofline-a", "new": "roofline-b"}}),
                _hardware())
    # Each dataset is its group's only one: one batch each, numbered by its id.
    a, b = (batch_of(d, 16) for d in ("roofline-a", "roofline-b"))
    assert plan.targets() == [
        f"results/datasets/datasets_on_h100_sxm_{a:02d}.json",
        "results/points/roofline/a.parquet",
        "results/tables/h100-sxm/roofline-a.csv",
        "results/plots/h100-sxm/roofline-a.png",
        "results/html/h100-sxm/roofline-a.html",
        "results/overview/h100-sxm/roofline-a.parquet",
        f"results/datasets/datasets_on_h100_sxm_with_svg_{b:02d}.json",
        "results/points/roofline/b.parquet",
        "results/tables/h100-sxm/roofline-b.csv",
        "results/plots/h100-sxm/roofline-b.png",
        "results/plots/h100-sxm/roofline-b.svg",
        "results/html/h100-sxm/roofline-b.html",
        "results/overview/h100-sxm/roofline-b.parquet",
        "results/plots/h100-sxm/all.png",
        "results/tables/h100-sxm/all.csv",
        "results/html/h100-sxm/all.html",
        "results/compare/h100-sxm/t.png",
        "results/compare/h100-sxm/t.csv",
        "results/compare/h100-sxm/t.html",
        "results/summary.md",
        "results/datasets_read.txt",
    ]
    assert plan.aggregate_rows("h100-sxm") == [
        "results/overview/h100-sxm/roofline-a.parquet",
        "results/overview/h100-sxm/roofline-b.parquet"]
    assert points_file("ncu", "x") == "results/points/ncu/x.parquet"


def test_rule_all_asks_for_a_batch_by_its_manifest_and_one_missing_output(res):
    _tree(res, "roofline/a.csv", "roofline/b.csv")
    plan = Plan(_config(presets=["h100-sxm", "mi300x"], batches=1), _hardware())
    every = set(plan.targets())
    manifest = "results/datasets/datasets_on_h100_sxm_mi300x_0.json"
    rest = [t for t in plan.targets() if "/all." in t or t.startswith("results/datasets_")
            or ("results/datasets/" not in t and "roofline" not in t)]
    # Nothing on disk: the manifest (its job runs to write it, and writes all).
    kinds = ("roofline",)
    assert plan.targets(outputs_on_disk(plan.all_presets, kinds)) == [manifest, *rest]
    # Built, then a.png on mi300x deleted: asked for beside the manifest (Snakemake checks
    # only the outputs asked for; the job remakes every dataset with a missing output).
    for path in every:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("x")
    assert plan.targets(outputs_on_disk(plan.all_presets, kinds)) == [manifest, *rest]
    os.remove("results/plots/mi300x/roofline-a.png")
    os.remove("results/plots/mi300x/roofline-b.png")
    on_disk = outputs_on_disk(plan.all_presets, kinds)
    assert {p for p in every if "roofline" in p} - on_disk == {
        "results/plots/mi300x/roofline-a.png",
                               "results/plots/mi300x/roofline-b.png"}
    assert plan.targets(on_disk) == [manifest, "results/plots/mi300x/roofline-a.png", *rest]
    # A link to nothing is missing, as Snakemake judges it: asked for, so it is remade.
    os.symlink("/nonexistent/gone.html", "results/html/h100-sxm/roofline-c.html")
    assert "results/html/h100-sxm/roofline-c.html" not in outputs_on_disk(
        plan.all_presets, kinds)


def test_a_draw_folder_that_cannot_be_listed_means_every_output_is_asked_for(res, monkeypatch):
    _tree(res, "roofline/a.csv")
    plan = Plan(_config(), _hardware())
    Path("results/plots/h100-sxm").mkdir(parents=True)

    def scandir(path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "scandir", scandir)
    on_disk = outputs_on_disk(plan.all_presets, ("roofline",))
    assert on_disk is None
    assert plan.targets(on_disk) == plan.targets()


def test_raw_input_follows_the_registry(res):
    _tree(res, "benchmarks/m.csv", "specs/s2.yaml", "specs/s1.yaml", "unitrace/u/bytes.txt",
          "unitrace/u/flops.txt", "unitrace/v/app_flops.1799853", "unitrace/v/app_bytes.1799860",
          "unitrace/both.txt", "ncu/f/p1.csv", "roofline/r.parquet")
    plan = Plan(_config(), _hardware())
    # Benchmarks read every spec and the family models; a spec reads only its own file.
    assert plan.raw_input("benchmarks", "m") == {
        "raw": "resources/benchmarks/m.csv", "families": "config/families.yaml",
        "specs": ["resources/specs/s1.yaml", "resources/specs/s2.yaml"]}
    assert plan.raw_input("specs", "s1") == {
        "raw": "resources/specs/s1.yaml", "families": "config/families.yaml"}
    # unitrace: a folder of reports under any names (NAME.<pid> as exported), or one report.
    assert plan.raw_input("unitrace", "u") == {
        "raw": "resources/unitrace/u",
        "raw_files": ["resources/unitrace/u/bytes.txt", "resources/unitrace/u/flops.txt"]}
    assert plan.raw_input("unitrace", "v") == {
        "raw": "resources/unitrace/v", "raw_files": [
            "resources/unitrace/v/app_bytes.1799860", "resources/unitrace/v/app_flops.1799853"]}
    assert plan.raw_input("unitrace", "both") == {"raw": "resources/unitrace/both.txt"}
    assert plan.raw_input("ncu", "f") == {
        "raw": "resources/ncu/f", "raw_files": ["resources/ncu/f/p1.csv"]}
    assert plan.raw_input("roofline", "r") == {"raw": "resources/roofline/r.parquet"}
    # Asked for by hand, not on disk: the pattern's path (Snakemake says it is missing).
    assert plan.raw_input("roofline", "nosuch") == {"raw": "resources/roofline/nosuch.csv"}


def test_roofs_text(res):
    _tree(res, "ert/node.json")
    plan = Plan(_config(), _hardware())
    assert plan.roofs_text("ert-node") == "peaks from resources/ert/node.json"
    text = plan.roofs_text("h100-sxm")
    assert re.fullmatch(r".+: \S+ [\d.]+ TFLOP/s, \S+ [\d.]+ GB/s, ridge point [\d.]+ "
                        r"FLOP/byte \(source: .+\)", text), text


# The one name pattern ----------------------------------------------------------------------


def test_schemas_hold_the_one_name_pattern():
    config = schema("config")
    assert config["$defs"]["name"]["pattern"] == f"^{DATASET_NAME}$"
    assert config["properties"]["datasets"]["propertyNames"]["pattern"] == (
        f"^({'|'.join(KINDS)})-{DATASET_NAME}$")
    assert schema("hardware")["properties"]["presets"]["propertyNames"] == {
        "$ref": "config.schema.yaml#/$defs/name"}
    # Written nowhere else: every other id check refers to $defs/name.
    written = sum(p.read_text().count(DATASET_NAME) for p in DATA.glob("*.schema.yaml"))
    assert written == 2


@pytest.mark.parametrize("name, ok", [("h100-sxm", True), ("ert-a.b_c", True),
                                      ("bad name", False), ("-x", False), ("", False)])
def test_schemas_check_ids_with_the_name_pattern(name, ok):
    assert (re.fullmatch(DATASET_NAME, name) is not None) is ok
    assert (schema_error("config", {"presets": [name]}) is None) is ok
    assert (schema_error("config", {"presets": ["h100-sxm"], "comparisons": {
        name: {"baseline": "roofline-a", "new": "roofline-b"}}}) is None) is ok
    preset = next(iter(safe_load(DEFAULT_HARDWARE.read_text())["presets"].values()))
    assert (schema_error("hardware", {"presets": {name: preset}}) is None) is ok


def test_common_smk_keeps_only_input_functions():
    text = (REPO / "workflow" / "rules" / "common.smk").read_text()
    assert len(text.splitlines()) < 150
    assert DATASET_NAME not in text  # imported, not written again
