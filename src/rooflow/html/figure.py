"""The roofline figure of a page (Bokeh, log-log) and writing a page to one file.

The roofs are those of the PNG (:mod:`rooflow.plotting`): per memory level present a
memory roof ``AI × bandwidth``, per precision present a compute roof, each capped by the
other (attainable = min(compute roof, AI × memory roof), Williams et al., CACM 2009); the
default pair drawn solid, the others dashed; the ridge point of the default roofs
(compute / memory, FLOP/byte) marked. Axis limits are :func:`rooflow.plotting.axis_limits`,
so the page opens on the same window as the PNG.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from rooflow.io import atomic_path
from rooflow.plotting import axis_limits
from rooflow.plotting.roofs import compute_label_groups, fmt, perf_unit
from rooflow.roofs.preset import Preset

FRAME = (760, 480)  # plot frame in pixels (width, height): fixes the roof-label angles


def roof_keys(preset: Preset, levels: Sequence[str], precisions: Sequence[str]):
    """(compute keys, memory keys) drawn: the defaults first, then those the data use."""
    compute = list(dict.fromkeys([preset.default_compute] + [
        c[0] for p in precisions if (c := preset.compute_roof(p))]))
    memory = list(dict.fromkeys([preset.default_memory] + [
        m[0] for lv in levels if (m := preset.memory_roof(lv))]))
    return compute, memory


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
    from bokeh.models import Label
    from bokeh.plotting import figure

    title = canvas_text(title)

    drawn = [t.filter(pl.col("arithmetic_intensity").is_not_null()
                      & pl.col("performance").is_not_null()) for t in tables]
    limits = axis_limits(preset, [t for t in drawn if t.height])
    scale, unit = perf_unit(limits)
    fig = figure(
        title=title, x_axis_type="log", y_axis_type="log",
        x_range=(limits.xmin, limits.xmax), y_range=(limits.ymin / scale, limits.ymax / scale),
        frame_width=FRAME[0], frame_height=FRAME[1],
        x_axis_label="Arithmetic intensity (FLOP/byte)",
        y_axis_label=f"Attainable performance ({unit})",
        tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom",
    )
    levels = pl.concat([t["level"] for t in tables]).unique().to_list() if tables else []
    precisions = pl.concat([t["precision"] for t in tables]).unique().to_list() if tables else []
    compute_keys, memory_keys = roof_keys(preset, levels, precisions)
    x = np.geomspace(limits.xmin, limits.xmax, 256)
    # Slope of a memory roof on screen: one decade of y per decade of x, in pixels.
    px_x = FRAME[0] / math.log10(limits.xmax / limits.xmin)
    px_y = FRAME[1] / math.log10(limits.ymax / limits.ymin)
    angle = math.degrees(math.atan2(px_y, px_x))
    for i, mkey in enumerate(memory_keys):
        bw = preset.memory[mkey]
        for j, ckey in enumerate(compute_keys):
            main = i == 0 and j == 0
            fig.line(x, np.minimum(preset.compute[ckey], x * bw) / scale,
                     line_color="black" if main else "#737373", line_width=2 if main else 1,
                     line_dash="solid" if main else "dashed")
        x0 = limits.xmin * 3
        if x0 * bw < preset.peak_flop_per_s:
            fig.add_layout(Label(x=x0, y=x0 * bw / scale * 1.25, text=f"{mkey}: "
                                 f"{fmt(bw / 1e9)} GB/s", angle=angle, angle_units="deg",
                                 text_font_size="8pt"))
    for peak, keys in compute_label_groups(preset, compute_keys).items():
        fig.add_layout(Label(x=limits.xmax / 1.2, y=peak / scale * 1.08, text_align="right",
                             text=f"{', '.join(keys)}: {fmt(peak / scale)} {unit}",
                             text_font_size="8pt"))
    ridge, top = preset.ridge_point, preset.peak_flop_per_s / scale
    fig.scatter([ridge], [top], size=9, fill_color="white", line_color="black")
    fig.add_layout(Label(x=ridge, y=top, x_offset=6, y_offset=-26, text_font_size="8pt",
                         text=f"ridge point\n{fmt(ridge)} FLOP/byte"))
    return fig, scale, unit


def canvas_text(text: str) -> str:
    """``text`` for canvas (title, legend): "$$" broken, so Bokeh never reads it as TeX.

    Bokeh typesets ``$$…$$`` with MathJax fetched from a CDN; an input name holding it
    would make an offline page reach for the network.
    """
    return text.replace("$$", "$\u200b$")


def note(text: str):
    """A paragraph of page text; ``text`` is escaped (it may hold input names)."""
    from bokeh.models import Div

    return Div(text=f"<p>{html.escape(text)}</p>", width=FRAME[0] + 300)


def write_page(items: Sequence, path: str | Path, title: str) -> Path:
    """Write ``items`` (Bokeh models, top to bottom) as one self-contained HTML file.

    Bokeh's JS is inlined, so the page opens offline; the file is written atomically.
    """
    from bokeh.embed import file_html
    from bokeh.layouts import column
    from bokeh.resources import INLINE

    page = file_html(column(*items), INLINE, title=title)
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(page, encoding="utf-8")
        # mkstemp makes the file private; a page is for sharing (umask still applies).
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)
    return path
