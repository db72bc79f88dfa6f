"""A run-to-run comparison (:mod:`rooflow.compare`) as an interactive page.

Each matched kernel: a segment from its baseline point (hollow) to its new point (filled),
green faster, red slower, grey without a speedup; rows of one run only are grey squares.
Legend entries toggle these groups; hover gives both runs' numbers and the speedup.

Big comparisons stay small, as :mod:`rooflow.html.page`'s pages: the ``max_points``
matched kernels that changed most (the largest absolute log speedup, the PNG's arrow order) are
drawn one by one, and as many rows of each run only; the rest (matched kernels by their
new point) are grey density cells whose hover gives the count
(:func:`rooflow.html.page.density`).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rooflow.compare import MATCHED, ONLY_BASELINE, ONLY_NEW, Comparison, only_label
from rooflow.html.figure import note, roofline_figure, write_page
from rooflow.html.page import MAX_POINTS, density, num_text, rate_text, time_text
from rooflow.html.places import settle_labels
from rooflow.plotting.core import SPEEDUP_COLORS, side, speedup_group
from rooflow.roofs.preset import Preset
from rooflow.style import SPEEDUP_LEGEND

TOOLTIPS = [("kernel", "@name"), ("status", "@status"), ("level", "@level"),
            ("series", "@series"), ("speedup", "@speedup_txt"),
            ("intensity", "@ai_txt"), ("performance", "@perf_txt"),
            ("% of roof", "@pct_txt"), ("time", "@time_txt"), ("time saved", "@saved_txt")]


def _columns(t: pl.DataFrame, scale: float) -> dict[str, list]:
    rows = t.to_dicts()

    def both(r, col, fmt):
        return f"{fmt(r[col + '_baseline'])} → {fmt(r[col + '_new'])}"

    def scaled(col):
        return [None if r[col] is None else r[col] / scale for r in rows]

    return {
        "name": [r["name"] for r in rows], "status": [r["status"] for r in rows],
        "level": [r["level"] for r in rows],
        "series": [r["series_baseline"] or r["series_new"] or "" for r in rows],
        "speedup_txt": [num_text(r["speedup"], ".3g", "×") for r in rows],
        "ai_txt": [both(r, "arithmetic_intensity", lambda v: num_text(v, ".4g")) + " FLOP/byte"
                   for r in rows],
        "perf_txt": [both(r, "performance", lambda v: rate_text(v, "FLOP")) for r in rows],
        "pct_txt": [both(r, "pct_of_roof", lambda v: num_text(v, ".1f", " %")) for r in rows],
        "time_txt": [both(r, "time_s", time_text) for r in rows],
        "saved_txt": [time_text(r["time_saved_s"]) if (r["time_saved_s"] or 0) >= 0
                      else "−" + time_text(-r["time_saved_s"]) for r in rows],
        "x0": [r["arithmetic_intensity_baseline"] for r in rows],
        "x1": [r["arithmetic_intensity_new"] for r in rows],
        "y0": scaled("performance_baseline"), "y1": scaled("performance_new"),
    }


def comparison_page(comp: Comparison, preset: Preset, out: str | Path, *, title: str,
                    max_points: int = MAX_POINTS) -> Path:
    """Write the interactive comparison page of ``comp`` on ``preset`` to ``out``.

    ``max_points``: matched kernels drawn one by one (the most changed), and rows of each
    run only; the rest are density cells.
    """
    # Legend from its subpackage: bokeh.models re-exports it through an __all__ mypy can't read.
    from bokeh.models import ColumnDataSource, HoverTool, Scatter, Segment
    from bokeh.models.annotations import Legend

    from rooflow.html.bokehdoc import Model, legend_item

    t = comp.table
    fig, scale, _ = roofline_figure(
        preset, [side(t, "_baseline"), side(t, "_new")], title)
    matched = t.filter(pl.col("status") == MATCHED).drop_nulls(
        ["arithmetic_intensity_baseline", "performance_baseline", "arithmetic_intensity_new",
         "performance_new"]).with_columns(
        _g=speedup_group(pl.col("speedup")),
        _d=pl.col("speedup").log().abs().fill_nan(0).fill_null(0))
    # Most changed first (the PNG's arrows); past max_points, density cells.
    matched = matched.sort("_d", descending=True, maintain_order=True)
    xy = ["arithmetic_intensity", "performance"]
    rest = [side(matched.slice(max_points), "_new").select(xy)]
    shown = matched.head(max_points)
    items, hover = [], []
    for group, color in SPEEDUP_COLORS.items():
        part = shown.filter(pl.col("_g") == group)
        if not part.height:
            continue
        src = Model(ColumnDataSource, data=_columns(part, scale))
        seg = fig.add_glyph(src, Model(Segment, x0="x0", y0="y0", x1="x1", y1="y1",
                                       line_color=color, line_width=1.5))
        b = fig.add_glyph(src, Model(Scatter, x="x0", y="y0", size=8, fill_color="white",
                                     line_color=color))
        n = fig.add_glyph(src, Model(Scatter, x="x1", y="y1", size=9, fill_color=color,
                                     line_color="black"))
        total = matched.filter(pl.col("_g") == group).height
        items.append(legend_item(f"{total} {SPEEDUP_LEGEND[group]}", [seg, b, n]))
        hover += [b, n]
    one_run = 0
    for status, suffix, fill, total in (
            (ONLY_BASELINE, "_baseline", "white", comp.only_baseline),
            (ONLY_NEW, "_new", "#b3b3b3", comp.only_new)):
        part = t.filter(pl.col("status") == status).drop_nulls(
            [f"arithmetic_intensity{suffix}", f"performance{suffix}"])
        one_run += part.height
        if not part.height:
            continue
        rest.append(side(part.slice(max_points), suffix).select(xy))
        src = Model(ColumnDataSource, data=_columns(part.head(max_points), scale))
        r = fig.add_glyph(src, Model(Scatter, x=f"x{suffix == '_new':d}",
                                     y=f"y{suffix == '_new':d}", marker="square", size=8,
                                     fill_color=fill, line_color="#999999"))
        items.append(legend_item(only_label(status, total, part.height), [r]))
        hover.append(r)
    if hover:
        fig.add_tools(Model(HoverTool, renderers=hover, tooltips=TOOLTIPS))
    settle_labels(fig)  # roof and ridge labels clear of both runs' points
    notes = [comp.summary() + ".",
             f"Roofs: {preset.name} ({preset.key}), {preset.source}; hollow = baseline, "
             "filled = new; both runs on the same axes."]
    cells = pl.concat(rest)
    if cells.height:
        drawn = density(fig, cells, scale)
        fig.add_tools(Model(HoverTool, renderers=[drawn],
                            tooltips=[("more points here", "@count")]))
        notes.append(f"Drawn one by one: the {min(matched.height, max_points)} matched kernels "
                     f"that changed most and up to {max_points} rows of each run only; "
                     f"{cells.height} more as grey density cells (hover: count; matched "
                     "kernels at their new point).")
    if items:
        fig.add_layout(Model(Legend, items=items, title="click to hide", click_policy="hide",
                             label_text_font_size="8pt"), "right")
    undrawn = t.height - matched.height - one_run
    if undrawn:
        notes.append(f"{undrawn} rows not drawn (bandwidth-only or no roof); see the table.")
    return write_page([fig] + [note(n) for n in notes], out, title)
