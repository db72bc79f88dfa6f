"""One dataset drawn on its presets.

Per preset an analysis table (CSV), a roofline plot (PNG, and the config's other
``formats``), an interactive page (HTML) and the dataset's rows of the preset's overview
(Parquet, :data:`rooflow.workflow.paths.DATASET_OVERVIEW_ROWS`).

The workflow's batch jobs (:mod:`rooflow.workflow.batches`) call :func:`draw_dataset`
for each dataset of theirs that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rooflow.workflow import paths

DRAW_OUTPUTS = {"table": paths.DATASET_TABLE, "plot": paths.DATASET_PLOT,
                "page": paths.DATASET_PAGE, "overview": paths.DATASET_OVERVIEW_ROWS}
"""Output → its pattern (:mod:`rooflow.workflow.paths`), one folder per preset."""


def draw_paths(kind: str, name: str, preset: str) -> tuple[str, str, str, str]:
    """Dataset ``kind-name``'s outputs on ``preset`` (:data:`DRAW_OUTPUTS`).

    Its table, plot (PNG), page and overview rows, in that order.
    """
    table, plot, page, overview = (
        paths.fill(DRAW_OUTPUTS[o], preset=preset, kind=kind, name=name)
        for o in ("table", "plot", "page", "overview"))
    return table, plot, page, overview


def points_file(kind: str, name: str) -> str:
    """The canonical points table of dataset ``kind-name`` (its batch job writes it)."""
    return paths.fill(paths.POINTS, kind=kind, name=name)


def bokehjs_files() -> list[str]:
    """The BokehJS bundles every page under ``results/html/`` loads (rule ``bokehjs``).

    One copy of each (:data:`rooflow.workflow.paths.BOKEHJS`) for the installed Bokeh's
    version: a page written by another Bokeh keeps the files of its own version.
    """
    from rooflow.html.bokehjs import BUNDLES, version

    return [paths.fill(paths.BOKEHJS, version=version(), bundle=b) for b in BUNDLES]


@dataclass(frozen=True)
class Target:
    """What :func:`draw_dataset` writes for one preset.

    Attributes:
        preset: preset id.
        hardware: ``hardware.yaml``.
        measured: a measured preset's file or folder, else None.
        table: analysis table (CSV).
        plot: roofline plot (PNG); the other formats beside it, same stem.
        page: interactive page (HTML).
        overview: the dataset's rows of the preset's overview table (Parquet,
            :data:`rooflow.workflow.paths.DATASET_OVERVIEW_ROWS`).
    """

    preset: str
    hardware: str
    measured: str | None
    table: str
    plot: str
    page: str
    overview: str


def draw_dataset(points_path: str, dataset: str, targets: Sequence[Target],
                 options: Mapping, log: Callable[[str], None], *,
                 roofs_at: str = "clock", bokehjs: Sequence[str] | None = None,
                 datasheets: dict[str, Mapping] | None = None) -> None:
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
        datasheets: the presets of each ``hardware.yaml`` read so far, by path
            (:func:`rooflow.roofs.datasheet.load_hardware`), filled here: a batch job's
            datasets share one read of it. None: read for this dataset alone.

    Raises:
        InputError: an option does not fit the data (e.g. ``trajectory`` names no dim), or
            a selection selects nothing (:func:`rooflow.selection.select_points`).
    """
    from rooflow.workflow.failed import failure, left_out, write_placeholders

    extra = [f for f in options["formats"] if f != "png"]
    if line := failure(points_path):  # its input could not be read: say so, in its place
        write_placeholders([p for t in targets for p in (
            t.table, t.plot, *(str(Path(t.plot).with_suffix(f".{f}")) for f in extra),
            t.page, t.overview)], dataset, line)
        log(f"not built: {line}")
        return
    from rooflow.analysis import analyze
    from rooflow.html.page import roofline_page
    from rooflow.io import write_parquet
    from rooflow.pipeline import axis_range, plot_options, report
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.selection import Selection, select_points

    plot = replace(plot_options(options), formats=("png", *extra),
                   left_out=left_out(points_path))  # what its reader left out
    selection = Selection.from_mapping(options.get("select"))
    points = read_points(points_path)
    # hardware.yaml read and checked once for all datasheet presets, not once per preset.
    datasheet: Mapping = {}
    if sheet := next((t.hardware for t in targets if t.measured is None), None):
        datasheets = {} if datasheets is None else datasheets
        if sheet not in datasheets:
            datasheets[sheet] = load_hardware(sheet)
        datasheet = datasheets[sheet]
    overridden = (options.get("peak_tflops"), options.get("peak_bandwidth")) != (None, None)
    for t in targets:
        config_preset = (datasheet[t.preset] if t.measured is None and t.preset in datasheet
                         else load_preset(t.preset, t.hardware, t.measured)
                         ).with_roofs_at(roofs_at)
        preset = config_preset.with_override(options.get("peak_tflops"),
                                             options.get("peak_bandwidth"))
        selected = select_points(points, selection, preset, points_path)
        fixed = replace(plot, xlim=axis_range(options.get("xlim"), t.preset),
                        ylim=axis_range(options.get("ylim"), t.preset))
        table = report(selected, preset, table_path=t.table, plot_path=t.plot, options=fixed,
                       log=log)
        roofline_page(table, preset, t.page,
                      title=options.get("title") or f"{dataset} on {preset.name}",
                      top_n=options["top_n"], series_order=options["series_order"],
                      trajectory=options.get("trajectory"), bokehjs=bokehjs,
                      left_out=plot.left_out)
        # The overview (rule aggregate) puts every dataset on the config's roofs.
        write_parquet(analyze(select_points(points, selection, config_preset, points_path),
                              config_preset) if overridden else table, t.overview)
        log(f"{selected.height} points on {preset.key}")
        del selected, table  # not held while the next preset's table is made
