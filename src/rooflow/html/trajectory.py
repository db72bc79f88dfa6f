"""Sweep trajectories on a page (Bokeh): the PNG's paths (:mod:`rooflow.plotting.trajectory`).

Per path a line in its group's colour, a vee arrowhead halfway along each segment
pointing the way the dim grows, and its two ends labelled with the dim's values. The
paths have their own legend; clicking an entry hides a path with its arrows and labels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from rooflow.escape import short_names
from rooflow.html.figure import add_glyph, canvas_text
from rooflow.html.places import (
    FRAME,
    covered,
    first_clear,
    label_corners,
    obstacles,
    screen_xy,
    text_corners,
)
from rooflow.plotting import core
from rooflow.plotting.trajectory import (
    MAX_PATHS,
    arrow_segments,
    label_place,
    legend_names,
    outward,
    paths_text,
    trajectories,
)


def draw_page_trajectories(fig, table: pl.DataFrame, dim: str, scale: float, color_col: str,
                           colors: dict[str, str]) -> tuple[str, list[tuple[str, list]]]:
    """Draw the paths of ``table`` (an analysis table) on ``fig``; return their legend.

    The legend is (title, [(label, renderers)]) for :func:`rooflow.html.figure.add_legends`,
    one entry per path drawn.

    Each path takes the colour of its ``color_col`` value in ``colors`` (grey when it has
    none); performance is divided by ``scale`` (the axis unit). The first
    :data:`~rooflow.plotting.trajectory.MAX_PATHS` paths are drawn.

    Raises:
        InputError: no row has ``dim`` (:func:`rooflow.plotting.trajectory.check_dim`).
    """
    # Annotations from their subpackage: bokeh.models re-exports them through an __all__
    # mypy can't read.
    from bokeh.models import ColumnDataSource, Line
    from bokeh.models.annotations import Arrow, Label
    from bokeh.models.annotations.arrows import VeeHead

    from rooflow.html.bokehdoc import Model

    every = trajectories(table, dim, color_col)
    blocked = obstacles(fig)
    paths = every[:MAX_PATHS]
    # Screen pixels per decade of each axis: an end's label goes outward on screen.
    px = [n / math.log10(r.end / r.start) for n, r in ((FRAME[0], fig.x_range),
                                                       (FRAME[1], fig.y_range))]
    entries: list[tuple[str, list]] = []
    # Cut in the middle, kept distinct (:func:`rooflow.escape.short_names`), as the page's
    # other legends: never cut off at the end.
    names = short_names(pl.Series(legend_names(paths), dtype=pl.String), 50, elide=False)
    for path, name in zip(paths, names, strict=True):
        color = colors.get(path.group, core.GREY)
        y = [v / scale for v in path.y]
        line = add_glyph(fig, Model(Line, x="x", y="y", line_color=color, line_width=2,
                                   line_alpha=0.85), {"x": list(path.x), "y": y},
                         name="trajectory")
        mid = path.midpoints()
        heads = arrow_segments(len(mid))
        # The shaft's line properties: Bokeh's type stubs name them otherwise.
        shaft: dict[str, Any] = {"line_color": color, "line_width": 2, "line_alpha": 0.85}
        arrows = Model(Arrow, end=Model(VeeHead, size=9, fill_color=color, line_color=color),
                       **shaft, name="trajectory-arrow",
                       source=Model(ColumnDataSource, data={
                           "x0": [path.x[i] for i in heads], "y0": [y[i] for i in heads],
                           "x1": [mid[i][0] for i in heads],
                           "y1": [mid[i][1] / scale for i in heads]}),
                       x_start="x0", y_start="y0", x_end="x1", y_end="y1")
        fig.add_layout(arrows)
        for i, text in zip((0, -1), path.end_labels if path.labelled else (), strict=False):
            j = 1 if i == 0 else -2
            (dx, dy), ha, va = _clear_place(
                screen_xy(fig, path.x[i], y[i]), text, blocked,
                outward(px[0] * math.log10(path.x[i] / path.x[j]),
                        px[1] * math.log10(y[i] / y[j])))
            align: dict[str, Any] = {"text_align": ha,
                                     "text_baseline": _BASELINE.get(va, va)}
            label = Model(Label, x=path.x[i], y=y[i], text=text, x_offset=dx, y_offset=dy, **align,
                          text_font_size="8pt", text_color=color, name="trajectory-label",
                          background_fill_color="white", background_fill_alpha=0.7)
            fig.add_layout(label)
            blocked = np.concatenate([blocked, label_corners(fig, label)[None]])
            line.js_link("visible", label, "visible")
        line.js_link("visible", arrows, "visible")
        entries.append((canvas_text(name), [line]))
    title = paths_text(every) if len(every) > MAX_PATHS else f"{dim} grows →"
    return f"{title} (click to hide)", entries


# An end label's places, tried in turn: outward from the path, then turned by 45°, 90°,
# 135° either way, then back along it.
_TURNS = tuple(math.radians(45 * k) for k in (0, 1, -1, 2, -2, 3, -3, 4))
_BASELINE = {"center": "middle"}  # matplotlib's vertical alignment → Bokeh's baseline


def _clear_place(end: np.ndarray, text: str, blocked: np.ndarray,
                 out: tuple[float, float]) -> tuple[tuple[float, float], str, str]:
    """An end label's offset and alignment (:func:`label_place`), clear of ``blocked``.

    The first of :data:`_TURNS` of the outward direction ``out`` where the label's
    estimated box (:func:`rooflow.html.places.text_corners`) covers nothing and stays in
    the frame (:func:`rooflow.html.places.covered`); none clear: the one covering least.
    """
    def cost(place: tuple[tuple[float, float], str, str]) -> int:
        (dx, dy), ha, va = place
        return covered(text_corners(end + (dx, dy), text, ha, _BASELINE.get(va, va)),
                       blocked)

    return first_clear((label_place(out[0] * math.cos(t) - out[1] * math.sin(t),
                                    out[0] * math.sin(t) + out[1] * math.cos(t))
                        for t in _TURNS), cost)
