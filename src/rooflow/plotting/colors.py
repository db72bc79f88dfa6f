"""One colour per group or kernel, and the series markers, for the PNG and the pages.

Re-exported by :mod:`.core`. Imports neither matplotlib, Bokeh nor numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import polars as pl

TABLEAU_10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf")
"""matplotlib's tab10, Bokeh's Category10_10."""
TABLEAU_20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
              "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
              "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")
"""matplotlib's tab20, Bokeh's Category20_20."""
GREY = "#b3b3b3"  # groups and kernels past the coloured ones


def palette(n: int, avoid: Sequence[str] = ()) -> list[str]:
    """``n`` colours of Tableau 10 (Tableau 20 past ten), repeating past the palette's size.

    ``avoid``: colours that mean something else on the plot (the history's red regression
    ring), left out: then Tableau 10's others come first, then Tableau 20's light tints.
    """
    if avoid:
        tints = [c for c in TABLEAU_20 if c not in TABLEAU_10]
        colors = tuple(c for c in (*TABLEAU_10, *tints) if c not in avoid)
    else:
        colors = TABLEAU_10 if n <= 10 else TABLEAU_20
    return [colors[i % len(colors)] for i in range(n)]


def order(values: pl.Series, preferred: Sequence[str] = ()) -> list[str]:
    """Distinct values: those in ``preferred`` first (in its order), then first-seen order.

    Series by ``series_order``, levels by :data:`rooflow.levels.LEVELS` (farthest first).
    """
    first_seen = values.unique(maintain_order=True).to_list()
    return [v for v in preferred if v in first_seen] + [v for v in first_seen
                                                        if v not in preferred]


def groups(values: pl.Series) -> list[str]:
    """Distinct values as text in first-seen order; null reads as "" (named "(none)").

    The distinct values are cast, never every row: a string per row of 10⁷ is slow.
    """
    distinct = values.unique(maintain_order=True).cast(pl.String).fill_null("")
    return distinct.unique(maintain_order=True).to_list()


def group_colors(names: Sequence[str], n: int) -> dict[str, str]:
    """Colour per name: the first ``n`` take :func:`palette` colours in order, the rest grey.

    Names are groups (:func:`groups` of the colour column) or kernels (:func:`top_kernels`).
    """
    colors = palette(min(len(names), n))
    return {name: colors[i] if i < n else GREY for i, name in enumerate(names)}


class Marker(NamedTuple):
    """One marker shape as matplotlib and Bokeh name it."""

    mpl: str
    bokeh: str


SERIES_MARKERS = [Marker("o", "circle"), Marker("s", "square"), Marker("^", "triangle"),
                  Marker("D", "diamond"), Marker("v", "inverted_triangle"), Marker("P", "plus"),
                  Marker("*", "star"),
                  # Bokeh has no ◀ ▶ ⬠: shapes of its own that the others do not use
                  Marker("<", "triangle_pin"), Marker(">", "square_pin"), Marker("h", "hex"),
                  Marker("p", "circle_cross")]
"""Series markers, in order of the series."""


def series_marker(i: int) -> Marker:
    """Marker of the ``i``-th series (:data:`SERIES_MARKERS`, repeating).

    A memory level's marker is :func:`rooflow.levels.marker`'s.
    """
    return SERIES_MARKERS[i % len(SERIES_MARKERS)]
