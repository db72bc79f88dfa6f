"""The steps the CLI and the Snakemake rule scripts share: analyze and write a report.

Loading inputs is :func:`rooflow.adapters.load_points` (the registry of input kinds);
presets come from :func:`rooflow.roofs.load_preset`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import polars as pl

from rooflow.kinds import KINDS
from rooflow.roofs.preset import Preset

MAX_WARNINGS = 20  # above-roof points listed one by one; the rest are counted
_WARNING_COLUMNS = ["source", "row", "attainable", "pct_of_roof", "achieved_bandwidth",
                    "memory_roof", "pct_of_memory_roof"]


def report(
    points: pl.DataFrame,
    preset: Preset,
    *,
    table_path: str | Path | None,
    plot_path: str | Path | None,
    options=None,
    log: Callable[[str], None] = print,
    full_table: bool = False,
) -> pl.DataFrame:
    """Analyze ``points`` on ``preset``, write the table (CSV) and the plot.

    Args:
        points: canonical points (:mod:`rooflow.points`).
        preset: the roofs.
        table_path: analysis table (CSV; JSON for a .json name or ``--format json``:
            :mod:`rooflow.export`), "-" for stdout, or None.
        plot_path: image (.png, .svg, .pdf), or None.
        options: :class:`rooflow.plotting.PlotOptions` (default: the schema defaults).
        log: where warnings go (above-roof points, levels without a roof).
        full_table: return every analysis column even when no table is written.

    Returns:
        The analysis table: :data:`rooflow.analysis.TABLE_COLUMNS` when a table is
        written or ``full_table``; else only what the plot draws
        (:func:`rooflow.plotting.drawn_columns`) and ``source``, ``row``, which on 10⁶
        points skips the costly per-kernel and pair columns; the warnings' roof figures
        are then computed for the above-roof rows alone.

    Raises:
        InputError: ``options.trajectory`` is a dim no point has
            (:func:`rooflow.plotting.trajectory.check_dim`).
    """
    from rooflow.analysis import TABLE_COLUMNS, above_roof, analyze
    from rooflow.clocks import clock_note
    from rooflow.export import write_table

    if plot_path is not None and options is not None and options.trajectory:
        from rooflow.plotting.trajectory import check_dim

        check_dim(points, options.trajectory)  # before any file is written
    columns = TABLE_COLUMNS
    if table_path is None and plot_path is not None and not full_table:
        from rooflow.plotting import drawn_columns

        columns = drawn_columns(points) + ["source", "row"]
    table = analyze(points, preset, columns)
    above = above_roof(table)
    if above.height and not set(_WARNING_COLUMNS) <= set(columns):
        # The warnings' roof columns, for the above-roof rows alone (same row order).
        above = analyze(points.filter(table["above_roof"]), preset, TABLE_COLUMNS)
    if above.height > MAX_WARNINGS:
        log(f"warning: {above.height} points are above the roof of {preset.key}; "
            f"the first {MAX_WARNINGS} follow (all are flagged in the table's above_roof column)")
    for r in above.head(MAX_WARNINGS).iter_rows(named=True):
        if r["attainable"] is None:  # a bandwidth-only row: faster than the memory roof
            beyond = (f"{r['achieved_bandwidth'] / 1e9:.4g} GB/s > "
                      f"{r['memory_roof'] / 1e9:.4g} GB/s ({r['pct_of_memory_roof']:.0f}% of "
                      "the memory roof)")
        else:
            beyond = (f"{r['performance'] / 1e12:.4g} TFLOP/s > "
                      f"{r['attainable'] / 1e12:.4g} TFLOP/s ({r['pct_of_roof']:.0f}% of roof)")
        log(
            f"warning: {r['source']} row {r['row']} ({r['label'] or r['kernel']}, {r['series']}, "
            f"{r['level']}) is above the roof of {preset.key}: {beyond}; drawn, not clipped"
        )
    unroofed = (table.filter(pl.col("memory_roof_name").is_null())["level"]
                .unique(maintain_order=True).to_list())
    if unroofed:
        log(f"note: {preset.key} has no memory roof for level(s) {', '.join(unroofed)}")
    line = clock_note(table, preset)[1] if "clock_hz" in table.columns else ""
    if line:
        log(f"note: {line}")
    for kind in KINDS.values():  # a kind's own notes (a PyTorch trace's GPU time coverage)
        if kind.extras:
            kind.hooks().notes(points, table, preset, log)
    if plot_path is not None and options is not None and options.trajectory:
        from rooflow.plotting.trajectory import trajectories

        if not trajectories(table, options.trajectory):
            log(f"note: trajectory {options.trajectory}: no two points of one family differ "
                f"only in {options.trajectory}; no path drawn")
    if table_path is not None:
        write_table(table, table_path)
    if plot_path is not None:
        from rooflow.plotting import PlotOptions, plot_roofline

        plot_roofline(table, preset, plot_path, options=options or PlotOptions())
    return table


def axis_range(value, preset: str) -> tuple[float, float] | None:
    """A config ``xlim``/``ylim`` (schema-checked) as the axis range for ``preset``.

    ``[low, high]``: for every preset; ``{PRESET: [low, high]}``: for the presets it
    names (None for the others); None: fitted to the data.
    """
    if isinstance(value, Mapping):
        value = value.get(preset)
    return None if value is None else (float(value[0]), float(value[1]))


def plot_options(options: Mapping):
    """:class:`rooflow.plotting.PlotOptions` from a config ``plot_defaults``-style mapping.

    Keys that are not plot options (``presets``, ``peak_tflops``, ...) are ignored.
    """
    from rooflow.plotting import PlotOptions

    known = set(PlotOptions.__dataclass_fields__) - {"xlim", "ylim"}  # per preset: axis_range
    return PlotOptions(**{k: v for k, v in options.items() if k in known})
