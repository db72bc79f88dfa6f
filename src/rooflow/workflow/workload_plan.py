"""Workflow planning of config ``projections`` and ``history`` (rules project, history).

Kept beside :mod:`rooflow.workflow.planning` (whose :class:`rooflow.workflow.planning.Plan`
knows the datasets and presets): each entry checked against them, its outputs listed.
"""

from __future__ import annotations

from collections.abc import Mapping

from rooflow.workflow import paths
from rooflow.workflow.planning import Plan


def projections(config: Mapping, plan: Plan) -> dict[str, dict]:
    """Config ``projections``, checked: name → dataset, presets, measured_on.

    Raises:
        ValueError: a dataset that is none, or a preset not in hardware.yaml (one line).
    """
    out = {}
    for name, entry in config.get("projections", {}).items():
        if entry["dataset"] not in plan.datasets:
            raise ValueError(f"config: projection {name!r}: dataset {entry['dataset']!r} is "
                             f"not a dataset; known: {sorted(plan.datasets)}")
        presets = list(entry["presets"])
        home = entry.get("measured_on") or presets[0]
        if unknown := sorted({*presets, home} - set(plan.datasheet_presets)):
            raise ValueError(f"config: projection {name!r}: presets {unknown} are not in "
                             f"{plan.config['hardware']}")
        out[name] = {"dataset": entry["dataset"], "presets": presets, "measured_on": home}
    return out


def histories(config: Mapping, plan: Plan) -> dict[str, dict]:
    """Config ``history``, checked: name → runs, labels, preset, max_slowdown, confidence.

    Raises:
        ValueError: a run that is no dataset, labels not one per run, no or unknown preset.
    """
    out = {}
    for name, entry in config.get("history", {}).items():
        runs = list(entry["runs"])
        if lost := [r for r in runs if r not in plan.datasets]:
            raise ValueError(f"config: history {name!r}: {lost[0]!r} is not a dataset; "
                             f"known: {sorted(plan.datasets)}")
        labels = list(entry.get("labels") or runs)
        if len(labels) != len(runs):
            raise ValueError(f"config: history {name!r}: {len(labels)} labels for "
                             f"{len(runs)} runs")
        drawn = plan.dataset_presets(runs[0])
        preset = entry.get("preset") or (drawn[0] if drawn else None)
        if preset is None or preset not in plan.known_presets:
            raise ValueError(f"config: history {name!r}: no known preset ({preset!r})")
        out[name] = {"runs": runs, "labels": labels, "preset": preset,
                     "max_slowdown": entry.get("max_slowdown", 0.05),
                     "confidence": entry.get("confidence", 0.999)}
    return out


def targets(config: Mapping, plan: Plan) -> list[str]:
    """The outputs of every projection and history of ``config``."""
    return ([paths.fill(p, projection=n) for n in projections(config, plan)
             for p in (paths.PROJECT_PLOT, paths.PROJECT_TABLE, paths.PROJECT_KERNELS,
                       paths.PROJECT_PAGE)]
            + [paths.fill(p, history=n) for n in histories(config, plan)
               for p in (paths.HISTORY_PLOT, paths.HISTORY_TABLE, paths.HISTORY_PAGE)])


def project_input(plan: Plan, entry: Mapping) -> dict[str, str]:
    """Rule project's inputs: the projected dataset's points and hardware.yaml."""
    from rooflow.workflow.planning import points_file

    return {"points": points_file(*plan.datasets[entry["dataset"]]),
            "hardware": plan.config["hardware"]}


def history_input(plan: Plan, entry: Mapping) -> dict:
    """Rule history's inputs: the runs' points files, in order, and the preset's files."""
    from rooflow.workflow.planning import points_file

    return {"runs": [points_file(*plan.datasets[r]) for r in entry["runs"]],
            **plan.preset_input(entry["preset"])}
