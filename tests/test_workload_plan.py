"""Config `projections` and `history` in the workflow's plan (issue 36, items 1 and 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.planning import Plan
from rooflow.workflow.workload_plan import histories, projections, targets


def plan_of(tmp_path: Path, monkeypatch, **over) -> tuple[dict, Plan]:
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b", "c"):
        path = tmp_path / "resources" / "roofline" / f"{name}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    config = {**config_defaults(), "plot_defaults": plot_defaults(),
              "presets": ["h100-sxm"]} | over
    return config, Plan(config, load_hardware())


def test_outputs_and_defaults(tmp_path, monkeypatch):
    config, plan = plan_of(
        tmp_path, monkeypatch,
        projections={"gpus": {"dataset": "roofline-a", "presets": ["h100-sxm", "mi300x"]}},
        history={"runs": {"runs": ["roofline-a", "roofline-b", "roofline-c"]}})
    assert projections(config, plan)["gpus"]["measured_on"] == "h100-sxm"
    entry = histories(config, plan)["runs"]
    # Labels default to the dataset ids; the preset to the first run's first preset.
    assert entry["labels"] == ["roofline-a", "roofline-b", "roofline-c"]
    assert entry["preset"] == "h100-sxm"
    assert targets(config, plan) == [
        "results/project/gpus.png", "results/project/gpus.csv",
        "results/project/gpus.kernels.csv", "results/project/gpus.html",
        "results/history/runs.png", "results/history/runs.csv", "results/history/runs.html"]


@pytest.mark.parametrize(("over", "message"), [
    ({"projections": {"p": {"dataset": "roofline-z", "presets": ["h100-sxm"]}}},
     "'roofline-z' is not a dataset"),
    ({"projections": {"p": {"dataset": "roofline-a", "presets": ["h100-sxm", "nope"]}}},
     "presets ['nope'] are not in"),
    ({"history": {"h": {"runs": ["roofline-a", "roofline-b"], "labels": ["x"]}}},
     "1 labels for 2 runs"),
    ({"history": {"h": {"runs": ["roofline-a", "roofline-q"]}}}, "'roofline-q' is not a dataset"),
])
def test_bad_entries_are_one_line(tmp_path, monkeypatch, over, message):
    config, plan = plan_of(tmp_path, monkeypatch, **over)
    with pytest.raises(ValueError) as err:
        targets(config, plan)
    assert message in str(err.value) and "\n" not in str(err.value)
