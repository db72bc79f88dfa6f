"""The workflow's `draw` jobs: one job per dataset writes its outputs on every preset.

A dataset drawn on P presets has, per preset, an analysis table (CSV), a roofline plot
(PNG, and the config's other ``formats``) and an interactive page (HTML). One job writes
them all: Snakemake spends about the same planning time per job whatever it writes, so
one job per dataset instead of one per output and preset keeps a project of thousands of
results files plannable (docs/speed.md), while a new or changed results file still reruns
only its own `points` and `draw` jobs and the per-preset aggregates.

Snakemake output patterns are fixed per rule, so datasets are grouped by what they write
(their presets and image formats): one rule per group (:func:`draw_rules`). Groups after
the largest are limited to their own datasets by a wildcard constraint; the largest takes
the rest, at the lowest rule order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rooflow.workflow import paths

if TYPE_CHECKING:
    from rooflow.workflow.planning import Plan

DRAW_OUTPUTS = {"table": paths.DATASET_TABLE, "plot": paths.DATASET_PLOT,
                "page": paths.DATASET_PAGE}
"""Output → its pattern (:mod:`rooflow.workflow.paths`), one folder per preset."""


def points_file(kind: str, name: str) -> str:
    """The canonical points table the ``points`` job writes for dataset ``kind-name``."""
    return paths.fill(paths.POINTS, kind=kind, name=name)

RULE = "draw"
"""Name of the draw rule of the largest group; the others are named by what they write
(:func:`rule_name`: ``draw_on_a100_sxm``, ``draw_on_h100_sxm_mi300x_with_svg``...)."""


@dataclass(frozen=True)
class DrawRule:
    """One draw rule: the datasets that write the same outputs.

    Attributes:
        name: the Snakemake rule name.
        presets: the presets each of its datasets is drawn on, in config order.
        formats: image formats besides PNG (config ``formats``: ``svg``, ``pdf``).
        datasets: dataset ids ``KIND-NAME``.
        constraint: regular expression for the ``name`` wildcard that matches exactly
            these datasets (each name behind its own ``/KIND-``), or None: any dataset.
    """

    name: str
    presets: tuple[str, ...]
    formats: tuple[str, ...]
    datasets: tuple[str, ...]
    constraint: str | None

    def outputs(self) -> dict[str, str]:
        """Named output patterns, with wildcards ``{kind}`` and ``{name}``.

        Per preset index ``i``: ``table_i``, ``plot_i`` (PNG), ``plot_i_FORMAT`` and
        ``page_i``.
        """
        return {key: path for key, path, _, _ in self.described_outputs()}

    def described_outputs(self) -> list[tuple[str, str, str, str | None]]:
        """:meth:`outputs` as ``(key, pattern, preset, report)`` tuples.

        ``report``: ``"table"`` or ``"plot"`` for the outputs shown in the Snakemake
        report (CSV, PNG), else None (other image formats; pages, which load the shared
        BokehJS beside them, :func:`bokehjs_files`).
        """
        outputs: list[tuple[str, str, str, str | None]] = []
        for i, preset in enumerate(self.presets):
            table, plot, page = (paths.fill(DRAW_OUTPUTS[o], preset=preset)
                                 for o in ("table", "plot", "page"))
            outputs += [(f"table_{i}", table, preset, "table"),
                        (f"plot_{i}", plot, preset, "plot")]
            outputs += [(f"plot_{i}_{ext}", f"{plot.removesuffix('.png')}.{ext}", preset, None)
                        for ext in self.formats]
            outputs.append((f"page_{i}", page, preset, None))
        return outputs


def draw_rules(plan: Plan) -> list[DrawRule]:
    """The draw rules of ``plan``: datasets grouped by presets and extra formats.

    Returns:
        The largest group first (unconstrained, named :data:`RULE`), then the others in
        first-seen order, each constrained to its datasets; empty without datasets.
    """
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for dataset in plan.datasets:
        # Sorted: [svg, pdf] and [pdf, svg] write the same outputs, one rule.
        formats = tuple(sorted(f for f in plan.dataset_options(dataset)["formats"] if f != "png"))
        groups.setdefault((tuple(plan.dataset_presets(dataset)), formats), []).append(dataset)
    ordered = sorted(groups.items(), key=lambda g: -len(g[1]))  # stable: ties keep order
    rules: list[DrawRule] = []
    for i, ((presets, formats), datasets) in enumerate(ordered):
        constraint = None if i == 0 else name_constraint(
            [plan.datasets[d] for d in datasets])
        name = RULE if i == 0 else rule_name(presets, formats, {r.name for r in rules})
        rules.append(DrawRule(name, presets, formats, tuple(datasets), constraint))
    return rules


def rule_name(presets: Sequence[str], formats: Sequence[str], taken: Set[str]) -> str:
    """A draw rule's name from what it writes: ``draw_on_PRESET..._with_FORMAT...``.

    Snakemake shows rule names on screen and in the report, so they say what the rule
    draws instead of a number. A rule name is a Python identifier: every other character
    of a preset is ``_``. Two groups whose presets differ only there get ``_2``, ``_3``...
    """
    words = ["draw_on", *presets, *(["with", *formats] if formats else [])]
    base = re.sub(r"\W", "_", "_".join(words), flags=re.ASCII)
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def asked_for(patterns: Sequence[str], kind: str, name: str, on_disk: Set[str] | None
              ) -> list[str]:
    """The outputs of dataset ``kind-name``'s draw job that ``rule all`` asks for.

    ``patterns``: its rule's output patterns (:meth:`DrawRule.outputs`), made once per
    rule; only those asked for are filled in (every job parses the Snakefile).
    Every one when ``on_disk`` is None. Else (the draw outputs present:
    :func:`outputs_on_disk`) its first output, plus every other one that is missing while
    the first is there. Snakemake plans a job once per file asked for, and a draw job
    writes 3 files or more per preset: asked for by one (it runs when that one is
    missing, or its inputs, code or params changed), the dry run of 10,000 files took a
    quarter less (docs/speed.md). Snakemake checks only the outputs asked for, hence the
    missing ones: a deleted plot is still remade.
    """
    first = patterns[0].format(kind=kind, name=name)
    if on_disk is not None and first not in on_disk:
        return [first]
    others = (p.format(kind=kind, name=name) for p in patterns[1:])
    return [first, *(others if on_disk is None else (p for p in others if p not in on_disk))]


def outputs_on_disk(presets: Sequence[str]) -> set[str] | None:
    """The files in the draw jobs' folders of ``presets`` (``results/tables/PRESET/``...).

    Paths as :func:`asked_for` writes them: one folder listing per preset and output, not
    one check per file. A link to nothing is not there (as Snakemake judges it). None
    when a folder cannot be listed (no permission): then what is there is not known.
    """
    found: set[str] = set()
    for folder in (paths.folder(out, preset=preset) for preset in presets
                   for out in DRAW_OUTPUTS.values()):
        try:
            with os.scandir(folder) as entries:
                found.update(f"{folder}/{e.name}" for e in entries
                             if not e.is_symlink() or os.path.exists(e.path))
        except FileNotFoundError:
            continue
        except OSError:
            return None
    return found


def bokehjs_files() -> list[str]:
    """The BokehJS bundles every page under ``results/html/`` loads (rule ``bokehjs``).

    One copy of each (:data:`rooflow.workflow.paths.BOKEHJS`) for the installed Bokeh's
    version: a page written by another Bokeh keeps the files of its own version.
    """
    from rooflow.html.bokehjs import BUNDLES, version

    return [paths.fill(paths.BOKEHJS, version=version(), bundle=b) for b in BUNDLES]


def draw_inputs(plan: Plan, presets: Sequence[str]) -> dict[str, str | list[str]]:
    """Named inputs of a draw rule whose datasets are drawn on ``presets``.

    ``points`` (the points file, wildcards ``{kind}`` and ``{name}``), ``hardware`` and,
    per preset index ``i`` of a measured preset, ``measured_i`` and ``measured_i_files``
    (:meth:`rooflow.workflow.planning.Plan.preset_input`). The same for every dataset of the
    rule: fixed paths, not an input function, which Snakemake would call once per job.
    """
    inputs: dict[str, str | list[str]] = {"points": points_file("{kind}", "{name}")}
    for i, preset in enumerate(presets):
        for key, files in plan.preset_input(preset).items():
            inputs[key.replace("measured", f"measured_{i}")] = files
    return inputs


def shared_options(plan: Plan, datasets: Sequence[str]) -> dict | None:
    """The plot options every one of ``datasets`` has, or None where they differ.

    One value for a draw rule's ``options`` param instead of a function per job
    (:meth:`rooflow.workflow.planning.Plan.dataset_options` gives each dataset's own).
    """
    options = [plan.dataset_options(d) for d in datasets]
    return options[0] if options and all(o == options[0] for o in options) else None


def name_constraint(kind_names: Sequence[tuple[str, str]]) -> str:
    """A regex for the ``name`` wildcard matching exactly these ``(kind, name)`` datasets.

    A name alone may belong to datasets of two kinds in different groups, so each
    alternative checks the ``/KIND-`` before it (a fixed-width lookbehind: every output
    and log pattern has ``/{kind}-{name}``), one per kind. Names are matched literally.
    """
    by_kind: dict[str, list[str]] = {}
    for kind, name in kind_names:
        by_kind.setdefault(kind, []).append(re.escape(name))
    return "(?:" + "|".join(f"(?<=/{re.escape(k)}-)(?:{'|'.join(names)})"
                            for k, names in by_kind.items()) + ")"


@dataclass(frozen=True)
class Target:
    """What a draw job writes for one preset.

    Attributes:
        preset: preset id.
        hardware: ``hardware.yaml``.
        measured: a measured preset's file or folder, else None.
        table: analysis table (CSV).
        plot: roofline plot (PNG); the other formats beside it, same stem.
        page: interactive page (HTML).
    """

    preset: str
    hardware: str
    measured: str | None
    table: str
    plot: str
    page: str


def draw_dataset(points_path: str, dataset: str, targets: Sequence[Target],
                 options: Mapping, log: Callable[[str], None], *,
                 roofs_at: str = "clock", bokehjs: Sequence[str] | None = None) -> None:
    """Write every target of one dataset from its canonical points.

    Args:
        points_path: the dataset's points file (a failed points file,
            :mod:`rooflow.workflow.failed`, gives placeholder outputs that say why).
        dataset: dataset id ``KIND-NAME`` (page titles).
        targets: one per preset.
        options: the dataset's plot options (config ``plot_defaults`` and its own entry),
            ``formats`` among them.
        log: where warnings go.
        roofs_at: config ``roofs_at`` (:attr:`rooflow.roofs.preset.Preset.roofs_at`).
        bokehjs: the shared BokehJS bundles the pages load (:func:`bokehjs_files`, the
            job's ``bokehjs`` input); None: inlined in each page.

    Raises:
        InputError: an option does not fit the data (e.g. ``trajectory`` names no dim), or
            a selection selects nothing (:func:`rooflow.selection.select_points`).
    """
    from rooflow.workflow.failed import failure, left_out, write_placeholders

    extra = [f for f in options["formats"] if f != "png"]
    if line := failure(points_path):  # its input could not be read: say so, in its place
        write_placeholders([p for t in targets for p in (
            t.table, t.plot, *(str(Path(t.plot).with_suffix(f".{f}")) for f in extra),
            t.page)], dataset, line)
        log(f"not built: {line}")
        return
    from rooflow.html.page import roofline_page
    from rooflow.pipeline import axis_range, plot_options, report
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.selection import Selection, select_points

    plot = replace(plot_options(options), formats=("png", *extra),
                   left_out=left_out(points_path))  # what its points job's reader left out
    selection = Selection.from_mapping(options.get("select"))
    points = read_points(points_path)
    # hardware.yaml read and checked once for all datasheet presets, not once per preset.
    datasheet = next((load_hardware(t.hardware) for t in targets if t.measured is None), {})
    for t in targets:
        preset = (datasheet[t.preset] if t.measured is None and t.preset in datasheet
                  else load_preset(t.preset, t.hardware, t.measured))
        preset = preset.with_override(options.get("peak_tflops"),
                                      options.get("peak_bandwidth")).with_roofs_at(roofs_at)
        selected = select_points(points, selection, preset, points_path)
        fixed = replace(plot, xlim=axis_range(options.get("xlim"), t.preset),
                        ylim=axis_range(options.get("ylim"), t.preset))
        table = report(selected, preset, table_path=t.table, plot_path=t.plot, options=fixed,
                       log=log)
        roofline_page(table, preset, t.page,
                      title=options.get("title") or f"{dataset} on {preset.name}",
                      top_n=options["top_n"], series_order=options["series_order"],
                      trajectory=options.get("trajectory"), bokehjs=bokehjs)
        log(f"{selected.height} points on {preset.key}")
        del selected, table  # not held while the next preset's table is made
