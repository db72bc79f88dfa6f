"""A projection (:mod:`rooflow.project`) as an interactive page.

One roofline figure per preset, in the ranking's order, one under the other (a page
fits a 1,400-pixel window), on identical axes (as the PNG, :mod:`rooflow.plotting.project`,
in its grid): each kernel at its projected performance (filled) or its roofline bound
(hollow, no measured time); hover gives its limiter, its roofline and projected times and
its measured % of roof. The totals follow as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl

from rooflow.html.figure import note, roofline_figure, write_page
from rooflow.html.page import num_text, time_text
from rooflow.html.places import settle_labels
from rooflow.plotting import core
from rooflow.plotting.project import drawn
from rooflow.project import PROJECTED, Projection, display_name
from rooflow.roofs.preset import Preset

TOOLTIPS = [("kernel", "@name"), ("preset", "@preset"), ("limiter", "@limiter"),
            ("roofline time", "@roofline"), ("projected time", "@projected"),
            ("measured % of roof", "@pct")]


def projection_page(result: Projection, presets: Mapping[str, Preset], out: str | Path) -> Path:
    """Write the projection page of ``result`` (on ``presets``, by key) to ``out``."""
    from bokeh.models import ColumnDataSource, HoverTool, Scatter

    from rooflow.html.bokehdoc import Model

    points = drawn(result)
    order = result.totals["preset"].to_list()
    windows = [core.axis_limits(presets[p], [points.filter(preset=p)]) for p in order]
    # In table order: a run of the same inputs draws the same page.
    precisions = (result.kernels["precision"].drop_nulls().unique(maintain_order=True)
                  .to_list() or [""])
    # The corners of every preset's window: every figure opens on the same axes.
    corners = pl.DataFrame({
        "arithmetic_intensity": [min(w.xmin for w in windows) * 2.0001,
                                 max(w.xmax for w in windows) / 2.0001],
        "performance": [min(w.ymin for w in windows) * 2.0001,
                        max(w.ymax for w in windows) / 2.0001],
        "level": ["DRAM", "DRAM"], "precision": [precisions[0]] * 2})
    kernels = result.kernels.filter((pl.col("status") == PROJECTED) & (pl.col("flop") > 0))
    figures = []
    for key in order:
        rows = kernels.filter(preset=key)
        shown = rows.with_columns(level=pl.lit("DRAM"), performance=pl.col("flop") / pl.coalesce(
            "projected_time_s", "roofline_time_s"))
        total = result.totals.filter(preset=key).row(0, named=True)
        proj = total["projected_time_s"]
        fig, scale, _ = roofline_figure(
            presets[key], [corners, shown.select(corners.columns)],
            f"{total['rank']}. {key}: " + (time_text(proj) if proj is not None else "—"))
        src = Model(ColumnDataSource, data={
            "x": shown["arithmetic_intensity"].to_list(),
            "y": (shown["performance"] / scale).to_list(),
            "fill": ["#1f77b4" if t is not None else "white"
                     for t in shown["projected_time_s"].to_list()],
            "name": shown.select(display_name())["kernel"].to_list(),
            "preset": shown["preset"].to_list(),
            "limiter": shown["limiter"].to_list(),
            "roofline": [time_text(v) for v in shown["roofline_time_s"].to_list()],
            "projected": [time_text(v) for v in shown["projected_time_s"].to_list()],
            "pct": [num_text(v, ".1f", " %") for v in shown["pct_of_roof"].to_list()],
        })
        dots = fig.add_glyph(src, Model(Scatter, x="x", y="y", size=9, fill_color="fill",
                                        line_color="#1f77b4"))
        fig.add_tools(Model(HoverTool, renderers=[dots], tooltips=TOOLTIPS))
        settle_labels(fig)  # roof and ridge labels clear of the kernels
        figures.append(fig)
    notes = [line.strip() for line in result.summary().splitlines()]
    apart = result.kernels.filter(pl.col("status") != PROJECTED)
    if apart.height:
        notes.append(f"{apart.height} kernel × preset rows not projected (no roof of their "
                     "precision there); see the table.")
    return write_page([*figures] + [note(n) for n in notes], out,
                      f"Projection from {result.measured_on}")
