"""A history (:mod:`rooflow.history`) as an interactive page: time per call, run by run.

One line per kernel (click its legend entry to hide it) over the runs in order, time per
call (runs without times: achieved performance) on a log axis; a step ``check`` judged a
regression is ringed in red. Hover gives the run, the kernel, its time, % of roof,
slowdown and the allowed slowdown.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rooflow.html.figure import canvas_text, note, write_page
from rooflow.html.page import num_text, time_text
from rooflow.plotting import core
from rooflow.plotting.history import KERNELS, REGRESSED_COLOR, kernel_names, trend

TOOLTIPS = [("run", "@run"), ("kernel", "@name"), ("time per call", "@time"),
            ("% of roof", "@pct"), ("slowdown", "@slowdown"), ("allowed", "@allowed"),
            ("status", "@status")]


def history_page(table: pl.DataFrame, out: str | Path, *, title: str) -> Path:
    """Write the history page of ``table`` (:data:`rooflow.history.COLUMNS`) to ``out``."""
    from bokeh.models import ColumnDataSource, FixedTicker, HoverTool
    from bokeh.models.annotations import Legend, LegendItem
    from bokeh.plotting import figure

    from rooflow.history import summary

    column, axis_title = trend(table)
    table = kernel_names(table).filter(pl.col(column).is_not_null())
    runs = table["run"].unique(maintain_order=True).to_list()
    fig = figure(title=canvas_text(title), y_axis_type="log", frame_width=760,
                 frame_height=420, x_axis_label="Run", y_axis_label=axis_title,
                 tools="pan,wheel_zoom,box_zoom,reset,save")
    fig.xaxis.ticker = FixedTicker(ticks=list(range(len(runs))))
    fig.xaxis.major_label_overrides = {i: canvas_text(r) for i, r in enumerate(runs)}
    names = table["name"].unique(maintain_order=True).to_list()
    colors = core.palette(min(len(names), KERNELS))
    items: list = []
    dots: list = []
    for i, name in enumerate(names):
        rows = table.filter(name=name).sort("step")
        src = ColumnDataSource({
            "x": rows["step"].to_list(), "y": rows[column].to_list(),
            "run": rows["run"].to_list(), "name": rows["name"].to_list(),
            "time": [time_text(v) for v in rows["time_s"].to_list()],
            "pct": [num_text(v, ".1f", " %") for v in rows["pct_of_roof"].to_list()],
            "slowdown": [num_text(v, "+.1f", " %") for v in rows["slowdown_pct"].to_list()],
            "allowed": [num_text(v, ".1f", " %") for v in rows["allowed_pct"].to_list()],
            "status": rows["status"].to_list(),
            "ring": [REGRESSED_COLOR if r else None for r in rows["regressed"].to_list()],
        })
        color = colors[i] if i < KERNELS else "#bfbfbf"
        line = fig.line("x", "y", source=src, line_color=color, line_width=1.5)
        dot = fig.scatter("x", "y", source=src, size=8, fill_color=color,
                          line_color="ring", line_width=3)
        drawn: list = [line, dot]
        items.append(LegendItem(label=canvas_text(name[:40]), renderers=drawn))
        dots.append(dot)
    if dots:
        fig.add_tools(HoverTool(renderers=dots, tooltips=TOOLTIPS))
        fig.add_layout(Legend(items=items, title="click to hide", click_policy="hide",
                              label_text_font_size="8pt"), "right")
    return write_page([fig, note(summary(table.drop("name")))], out, title)
