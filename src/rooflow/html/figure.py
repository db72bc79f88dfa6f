"""The roofline figure of a page (Bokeh, log-log) and writing a page to one file.

The roofs are those of the PNG, from :mod:`rooflow.plotting.core`: per memory level
present a memory roof ``AI × bandwidth``, per precision present a compute roof, each
capped by the other (attainable = min(compute roof, AI × memory roof), Williams et al.,
CACM 2009); the roofs the points are judged against drawn solid, each with its ridge point
(compute / memory, FLOP/byte) marked, the others dashed. Axis limits, units, titles, decade
labels and roof labels are the PNG's too, so the page opens on the same window as the PNG
and reads the same.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from rooflow.html.places import CHAR_PX, FRAME, PX_PER_PT, ROOF, register, screen_xy
from rooflow.io import atomic_path
from rooflow.levels import LEVELS
from rooflow.plotting import core
from rooflow.plotting.roofs import (
    compute_label_places,
    compute_label_region,
    memory_label_places,
    ridge_label_places,
    seen,
)
from rooflow.roofs.preset import Preset

WINDOW = 1400
"""Window width in pixels a page fits with no sideways scrolling (:func:`add_legends`)."""
# Estimated: a 10 pt italic legend title's pixels per character, a little over what
# Chromium draws in Bokeh's default font (5.2 measured on a screenshot; an 8 pt label's:
# places.CHAR_PX); a legend item's glyph, spacing and padding; and what else a page's
# width holds (the y axis and its label, the toolbar, gaps, a scroll bar).
_TITLE_PX, _ITEM_PX, _BESIDE_PX = 5.8, 45, 160


def roofline_figure(preset: Preset, tables: Sequence[pl.DataFrame], title: str):
    """A log-log Bokeh figure with the preset's roofs for the levels/precisions in ``tables``.

    Args:
        preset: the roofs.
        tables: analysis tables (:data:`rooflow.analysis.TABLE_COLUMNS`); their
            arithmetic_intensity/performance widen the axes, their level/precision pick
            the roofs drawn.
        title: figure title (canvas text: never parsed as HTML).

    Returns:
        (figure, scale, unit): performance values are divided by ``scale`` to plot.
    """
    # Label from its subpackage: bokeh.models re-exports it through an __all__ mypy can't read.
    from bokeh.models import Line, Range1d, Scatter
    from bokeh.models.annotations import Label

    from rooflow.html.bokehdoc import Model, figure

    title = canvas_text(title)

    drawn = [t.filter(pl.col("arithmetic_intensity").is_not_null()
                      & pl.col("performance").is_not_null()) for t in tables]
    levels = core.order(pl.concat([t["level"] for t in tables]), list(LEVELS)) if tables else []
    # The roofs the points were judged on where the tables say (an AMD counter point's fp32
    # per instruction), else their precisions' roofs.
    judged = [t["compute_roof_name" if "compute_roof_name" in t.columns else "precision"]
              .cast(pl.String) for t in tables]
    precisions = (pl.concat(judged).drop_nulls().unique(maintain_order=True).to_list()
                  if tables else [])
    compute_keys, memory_keys = core.roof_keys(preset, levels, precisions)
    # The PNG's bold roofs (those the points are judged against), each with its ridge, and
    # its axes, which cover the data and those ridges (rooflow.plotting.roofs.roof_axes).
    bold = core.bold_keys(preset, levels, precisions)
    ridges = [(r.intensity, r.performance) for r in core.ridge_points(preset, bold)]
    limits = core.axis_limits(preset, [t for t in drawn if t.height], ridges)
    per = core.operation(drawn)
    scale, unit = core.perf_unit(limits, per)
    xlabel, ylabel = core.axis_titles(per, unit)
    fig = figure(
        title=title, x_axis_type="log", y_axis_type="log",
        x_range=Model(Range1d, start=limits.xmin, end=limits.xmax),
        y_range=Model(Range1d, start=limits.ymin / scale, end=limits.ymax / scale),
        frame_width=FRAME[0], frame_height=FRAME[1], x_axis_label=xlabel, y_axis_label=ylabel,
        tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom",
    )
    _decade_labels(fig, limits, scale)
    x = np.geomspace(limits.xmin, limits.xmax, 256)
    # The thin roofs first, under the bold (as the PNG's): a shared slope reads solid.
    for roof in sorted(core.roofs(preset, compute_keys, memory_keys, bold),
                       key=lambda r: r.main):
        add_glyph(fig, Model(Line, x="x", y="y", line_color="black" if roof.main else "#737373",
                            line_width=2 if roof.main else 1,
                            line_dash="solid" if roof.main else "dashed"),
                  {"x": x, "y": np.minimum(roof.peak, x * roof.bandwidth) / scale},
                  name=ROOF)
    # Slope of a memory roof on screen: one decade of y per decade of x, in pixels.
    px_x = FRAME[0] / math.log10(limits.xmax / limits.xmin)
    px_y = FRAME[1] / math.log10(limits.ymax / limits.ymin)
    angle = math.degrees(math.atan2(px_y, px_x))
    # The labels take the PNG's candidate places (plotting.roofs), settled clear of the
    # markers and of each other once the points are drawn (places.settle_labels).
    low = min((preset.compute[c] for c in compute_keys if c in preset.compute),
              default=math.inf) / scale
    steepest = max(preset.memory[m] for m in memory_keys)
    for label in core.roof_labels(preset, compute_keys, memory_keys, limits, scale, unit,
                                   bold):
        if not seen(label, limits, scale, steepest):
            continue  # as on the PNG: a roof above the axes, or flat only past their right end
        if label.kind == "memory":
            text = Model(Label, x=label.x, y=label.y, text=label.text, angle=angle,
                         angle_units="deg", text_font_size="8pt", name="roof-label:memory")
            register(text, [{"x": x, "y": y, "text_baseline": va} for x, y, va
                            in memory_label_places(label, limits, scale, low)])
        elif label.kind == "compute":
            text = Model(Label, x=label.x, y=label.y, text=label.text, text_align="right",
                         text_font_size="8pt", name="roof-label:compute")
            flat, clear_pt = compute_label_region(label, preset, memory_keys, scale)
            register(text, [{"x": x, "y": y, "text_baseline": va, "text": t}
                            for t, x, y, va in compute_label_places(label, limits)],
                     region=screen_xy(fig, flat, label.roof)[0] + clear_pt * PX_PER_PT,
                     optional=not label.main)
        else:
            add_glyph(fig, Model(Scatter, x="x", y="y", size=9, fill_color="white",
                                 line_color="black"), {"x": [label.x], "y": [label.y]})
            places: list[dict[str, Any]] = [
                {"x_offset": dx * PX_PER_PT, "y_offset": dy * PX_PER_PT, "text_align": ha,
                 "text_baseline": va, "text": t}
                for t, dx, dy, ha, va in ridge_label_places(label)]
            text = Model(Label, x=label.x, y=label.y, text_font_size="8pt", name="ridge-label",
                         **places[0])
            register(text, places)
        fig.add_layout(text)
    return fig, scale, unit


def add_glyph(fig, glyph, data: Mapping[str, Any], **renderer: Any):
    """Draw ``glyph`` on ``fig`` from ``data`` (column name → values), its own source.

    Returns the GlyphRenderer (``renderer``: its properties, e.g. ``name``). Unlike
    ``bokeh.plotting``'s glyph methods (``fig.scatter``), no non-selection and muted copy of
    the glyph is made: two models fewer per renderer (what that saves: bench/NOTES.md,
    ``add_glyph``). The pages have no selection tool and their legends hide, never
    mute, so those copies were never drawn. Unlike those methods too, a colour not given is
    the glyph's own default (Scatter: grey fill, black line), not Bokeh's palette blue.
    """
    from bokeh.models import ColumnDataSource

    from rooflow.html.bokehdoc import Model

    return fig.add_glyph(Model(ColumnDataSource, data=dict(data)), glyph, **renderer)


def add_legends(fig, legends: Sequence[tuple[str, Sequence[tuple[str, list]]]]) -> None:
    """Add click-to-hide legends, right of the plot while the page fits :data:`WINDOW`.

    ``legends``: (title, [(label, renderers)]) each, in order. A legend right of the plot
    widens the page by its width (estimated from its longest text); those that would take
    the page past ``WINDOW`` go below the plot, laid out in as many columns as fit the
    frame's width, so a page of many long kernel names grows down, never sideways.
    """
    # From its subpackage: bokeh.models re-exports it through an __all__ mypy can't read.
    from bokeh.models.annotations import Legend

    from rooflow.html.bokehdoc import Model, legend_item

    room: float = WINDOW - FRAME[0] - _BESIDE_PX
    for title, entries in legends:
        item = _ITEM_PX + CHAR_PX * max(len(label) for label, _ in entries)
        width = max(item, _TITLE_PX * len(title) + 20)
        legend = Model(Legend, items=[legend_item(label, r) for label, r in entries],
                       title=title, click_policy="hide", label_text_font_size="8pt")
        if width <= room:
            room -= width
            fig.add_layout(legend, "right")
        else:
            legend.update(orientation="horizontal", ncols=max(1, int(FRAME[0] // item)))
            fig.add_layout(legend, "below")


def _decade_labels(fig, limits: core.Limits, scale: float) -> None:
    """Decade ticks written as on the PNG (:func:`rooflow.plotting.core.decade_label`).

    Bokeh's log ticks keep their places; a decade's text is overridden (zoomed in, the
    ticks between decades keep Bokeh's own text). The decades of ten times the axis
    range, so a zoom out finds its labels too.
    """
    for axis, lo, hi in ((fig.xaxis[0], limits.xmin, limits.xmax),
                         (fig.yaxis[0], limits.ymin / scale, limits.ymax / scale)):
        decades = range(round(math.log10(lo)) - 10, round(math.log10(hi)) + 11)
        axis.major_label_overrides = {10.0**e: core.decade_label(10.0**e) for e in decades}


def canvas_text(text: str) -> str:
    """``text`` for canvas (title, legend): "$$" broken, so Bokeh never reads it as TeX.

    Bokeh typesets ``$$…$$`` with MathJax fetched from a CDN; an input name holding it
    would make an offline page reach for the network.
    """
    return text.replace("$$", "$\u200b$")


def note(text: str):
    """A paragraph of page text; ``text`` is escaped (it may hold input names)."""
    # From its subpackage: bokeh.models re-exports it through an __all__ mypy can't read.
    from bokeh.models.widgets import Div

    from rooflow.html.bokehdoc import Model

    return Model(Div, text=f"<p>{html.escape(text)}</p>", width=FRAME[0] + 300)


def write_page(items: Sequence, path: str | Path, title: str,
               bokehjs: Sequence[str | Path] | None = None) -> Path:
    """Write ``items`` (Bokeh models, top to bottom) as one HTML file, atomically.

    Args:
        items: the page's models.
        path: the HTML file.
        title: the page's title (any text: escaped).
        bokehjs: None: Bokeh's JS inlined, one self-contained file that opens offline.
            Else the shared bundle files (:mod:`rooflow.html.bokehjs`, the workflow's)
            that the page loads by paths relative to ``path``.
    """
    from bokeh.models import Column
    from bokeh.resources import INLINE

    from rooflow.html.bokehdoc import Model, page_html
    from rooflow.html.bokehjs import resources

    js = INLINE if bokehjs is None else resources(bokehjs, path)
    page = page_html([Model(Column, children=list(items))], title, js)
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(page, encoding="utf-8")  # shared as any output (atomic_path)
    return path
