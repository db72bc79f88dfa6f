"""Max 1550: a unitrace profile of one stack is judged on the one-stack preset."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.formats.devices import unitrace_stacks
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.planning import Plan

HEADER = "Kernel,Device,SubDeviceId,GpuTime[ns],XVE_INST_EXECUTED_FP32[events],"


def report(path: Path, *stacks: int) -> Path:
    """A unitrace report: one kernel row per stack in ``stacks`` (a comma in the name)."""
    rows = [f"gemm<float, 2>,0,{s},1000,96," for s in stacks]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(["== Kernel Metrics ==", "", HEADER, *rows]) + "\n")
    return path


def test_one_stack_preset_is_pti_gpus_pvc_1tile():
    # intel/pti-gpu tools/unitrace/scripts/roofline/device_configs/PVC_1tile.csv @fcd0ca81:
    # FP64_GFLOPS 32000, FP32_GFLOPS 32000, FP16_GFLOPS 39000, FP16/BF16_XMX_GFLOPS 314000,
    # GPU_MEMORY_BW 1055 GB/s, L3_BW 2043 GB/s.
    p = load_hardware()["max-1550-1stack"]
    assert (p.compute["fp32"], p.compute["fp16"], p.compute["fp16-tensor"]) == (
        pytest.approx(32e12), pytest.approx(39e12), pytest.approx(314e12))
    assert (p.memory["HBM"], p.memory["L3"]) == (pytest.approx(1055e9), pytest.approx(2043e9))


def test_stacks_are_counted_from_subdevice_ids(tmp_path):
    assert unitrace_stacks(report(tmp_path / "one.txt", 0, 0)) == 1
    # Implicit scaling: each kernel has a row per stack.
    assert unitrace_stacks(report(tmp_path / "two.txt", 0, 1)) == 2
    assert unitrace_stacks(tmp_path / "missing.txt") is None


@pytest.mark.parametrize(("stacks", "preset"), [((0,), "max-1550-1stack"),
                                                ((0, 1), "max-1550")])
def test_a_max_1550_dataset_on_one_stack_is_drawn_on_the_one_stack_preset(
        tmp_path, monkeypatch, stacks, preset):
    monkeypatch.chdir(tmp_path)
    report(tmp_path / "resources" / "unitrace" / "g" / "flops.txt", *stacks)
    config = {**config_defaults(), "plot_defaults": plot_defaults(), "presets": ["h100-sxm"],
              "datasets": {"unitrace-g": {"device": "max-1550"}}}
    plan = Plan(config, load_hardware())
    assert plan.dataset_presets("unitrace-g") == [preset]
    assert any("one stack" in w for w in plan.warnings) == (preset == "max-1550-1stack")
