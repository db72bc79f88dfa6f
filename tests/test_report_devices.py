"""The GPU a `.ncu-rep` report names picks its preset at planning time (issue 19, item 1)."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import pytest

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.formats.devices import REPORT_LIMIT
from rooflow.kinds import device_names
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.planning import Plan

LAPTOP = "NVIDIA GeForce RTX 3060 Laptop GPU"

pytestmark = pytest.mark.shared


def _report(shared_data: Path, folder: str = "rtx3060-vector-add") -> Path:
    (path,) = (shared_data / "ncu-rep" / folder).glob("*.ncu-rep")
    return path


def test_reports_name_their_gpu_like_their_csv_export(shared_data):
    report = _report(shared_data)
    csv = shared_data / "ncu" / "raw-wide-rtx3060" / "vector_add.csv"
    assert device_names("ncu", report) == device_names("ncu", csv) == (LAPTOP,)
    assert device_names("ncu", _report(shared_data, "nersc-gpp")) == (
        "NVIDIA GeForce RTX 4060 Laptop GPU",)


def test_a_report_s_gpu_is_read_cheaply(shared_data):
    device_names("ncu", _report(shared_data))  # the reader's native library starts once
    start = time.perf_counter()
    for _ in range(5):
        device_names("ncu", _report(shared_data))
    assert time.perf_counter() - start < 2.5  # about 15 ms each (2026-11-24)


def test_broken_or_oversized_reports_name_no_gpu(shared_data, tmp_path):
    data = _report(shared_data).read_bytes()
    cut, noise, empty, big = (tmp_path / f"{n}.ncu-rep" for n in ("cut", "noise", "empty", "big"))
    cut.write_bytes(data[: len(data) // 2])
    noise.write_bytes(bytes(range(256)) * 20)
    empty.write_bytes(b"")
    with open(big, "wb") as f:  # a sparse file past the limit: never handed to the reader
        f.write(data)
        f.truncate(REPORT_LIMIT + 1)
    for path in (cut, noise, empty, big, tmp_path / "missing.ncu-rep"):
        assert device_names("ncu", path) == (), path


def test_a_report_is_drawn_on_the_preset_of_its_gpu(shared_data, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "resources" / "ncu").mkdir(parents=True)
    shutil.copy(_report(shared_data), tmp_path / "resources" / "ncu" / "laptop.ncu-rep")
    shutil.copy(shared_data / "ncu" / "raw-wide-rtx3060" / "vector_add.csv",
                tmp_path / "resources" / "ncu" / "export.csv")
    # Its own peaks would come first (test_planning): here only the datasheet match counts.
    monkeypatch.setattr("rooflow.roofs.ncu.has_peaks", lambda path: False)
    hardware = dict(load_hardware())
    hardware["b200"] = dataclasses.replace(hardware["b200"], devices=(LAPTOP,))
    config = {**config_defaults(), "plot_defaults": plot_defaults(), "presets": ["h100-sxm"]}
    plan = Plan(config, hardware)
    assert plan.gpus["ncu-laptop"] == plan.gpus["ncu-export"] == (LAPTOP,)
    assert plan.dataset_presets("ncu-laptop") == plan.dataset_presets("ncu-export") == ["b200"]
    assert plan.warnings == []
