"""A history (:mod:`rooflow.history`) as an interactive page: time per call, run by run.

One line per kernel over the runs in order, time per call (runs without times: achieved
performance) on a log axis; a step ``check`` judged a regression is ringed in red. The
PNG's :data:`~rooflow.plotting.history.KERNELS` coloured kernels
(:func:`rooflow.plotting.history.coloured`) each have a legend entry (click it to hide the
kernel); the other kernels are grey, one line broken between kernels, with one legend
entry. Hover gives the run, the kernel, its time, % of roof, slowdown and the allowed
slowdown.

Big histories stay small, as :mod:`rooflow.html.page`'s pages: grey kernels are drawn up
to ``max_points`` points, those with a regressed step first; a note counts the kernels
left out (the table and the PNG have them all).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rooflow.html.figure import add_glyph, canvas_text, note, write_page
from rooflow.html.page import num_text, time_text
from rooflow.plotting.history import (
    GREY_POINTS,
    REGRESSED_COLOR,
    broken_paths,
    coloured,
    grey_kernels,
    kernel_colors,
    kernel_names,
    key_names,
    left_out_text,
    trend,
)

TOOLTIPS = [("run", "@run"), ("kernel", "@name"), ("time per call", "@time"),
            ("% of roof", "@pct"), ("slowdown", "@slowdown"), ("allowed", "@allowed"),
            ("status", "@status")]
GREY = "#bfbfbf"


def _source(rows: pl.DataFrame, column: str, scale: float) -> dict[str, list]:
    """The hover source of ``rows``: one point per row, y its ``column`` / ``scale``."""
    return {
        "x": rows["step"].to_list(), "y": (rows[column] / scale).to_list(),
        "run": rows["run"].to_list(), "name": rows["name"].to_list(),
        "time": [time_text(v) for v in rows["time_s"].to_list()],
        "pct": [num_text(v, ".1f", " %") for v in rows["pct_of_roof"].to_list()],
        "slowdown": [num_text(v, "+.1f", " %") for v in rows["slowdown_pct"].to_list()],
        "allowed": [num_text(v, ".1f", " %") for v in rows["allowed_pct"].to_list()],
        "status": rows["status"].to_list(),
        "ring": [REGRESSED_COLOR if r else None for r in rows["regressed"].to_list()],
    }


def history_page(table: pl.DataFrame, out: str | Path, *, title: str,
                 max_points: int = GREY_POINTS) -> Path:
    """Write the history page of ``table`` (:data:`rooflow.history.COLUMNS`) to ``out``.

    ``max_points``: points of grey kernels drawn at most (whole kernels,
    :func:`rooflow.plotting.history.grey_kernels`).
    """
    from bokeh.models import ColumnDataSource, FixedTicker, HoverTool, Line, Scatter
    from bokeh.models.annotations import Legend

    from rooflow.history import summary
    from rooflow.html.bokehdoc import Model, figure, legend_item

    column, axis_title, scale = trend(table)
    if column == "time_s":  # in ms, as the PNG's tick labels
        axis_title, scale = "Time per call (ms)", 1e-3
    table = kernel_names(table).filter(pl.col(column).is_not_null())
    runs = table["run"].unique(maintain_order=True).to_list()
    fig = figure(title=canvas_text(title), y_axis_type="log", frame_width=760,
                 frame_height=420, x_axis_label="Run", y_axis_label=axis_title,
                 tools="pan,wheel_zoom,box_zoom,reset,save")
    fig.xaxis[0].update(ticker=Model(FixedTicker, ticks=list(range(len(runs)))),
                        major_label_overrides={i: canvas_text(r) for i, r in enumerate(runs)})
    names = coloured(table, column)
    items: list = []
    dots: list = []
    # Grey kernels: those with a regressed step first, whole kernels, as on the PNG.
    shown, left = grey_kernels(table, names, len(runs), max_points)
    grey_item: list = []
    if shown.height:  # drawn first: under the coloured kernels
        x, y = broken_paths(shown, column)
        line = add_glyph(fig, Model(Line, x="x", y="y", line_color=GREY, line_width=1.0),
                         {"x": x, "y": y / scale})
        dot = fig.add_glyph(Model(ColumnDataSource, data=_source(shown, column, scale)),
                            Model(Scatter, x="x", y="y", size=6, fill_color=GREY,
                                  line_color="ring", line_width=3))
        kernels = shown["name"].n_unique()
        grey_item.append(legend_item(f"{kernels} other kernel{'s' if kernels > 1 else ''}",
                                     [line, dot]))
        dots.append(dot)
    key = dict(zip(names, key_names(names), strict=True))
    for name, color in zip(names, kernel_colors(len(names)), strict=True):
        rows = table.filter(name=name).sort("step")
        src = Model(ColumnDataSource, data=_source(rows, column, scale))
        line = fig.add_glyph(src, Model(Line, x="x", y="y", line_color=color, line_width=1.5))
        dot = fig.add_glyph(src, Model(Scatter, x="x", y="y", size=8, fill_color=color,
                                       line_color="ring", line_width=3))
        items.append(legend_item(canvas_text(key[name]), [line, dot]))
        dots.append(dot)
    items += grey_item
    if dots:
        fig.add_tools(Model(HoverTool, renderers=dots, tooltips=TOOLTIPS))
        fig.add_layout(Model(Legend, items=items, title="click to hide", click_policy="hide",
                             label_text_font_size="8pt"), "right")
    notes = [summary(table.drop("name"))]
    if left:
        drawn_names = pl.col("name").is_in([*names, *shown["name"].unique().to_list()])
        hidden = int(table.filter(pl.col("regressed") & ~drawn_names).height)
        notes.append(left_out_text(left, hidden) + ".")
    return write_page([fig, *(note(n) for n in notes)], out, title)
