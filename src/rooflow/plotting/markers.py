"""Point markers, pair arrows and the kernels × levels view, each drawn as few artists.

Every function splits rows into groups with one stable argsort (O(n log n) however
many groups) and draws one Line2D per group: no per-point Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
from matplotlib.path import Path

from rooflow.levels import marker as level_marker
from rooflow.plotting.core import NO_ROOF_COLOR, measurement_key

ABOVE_ROOF: dict[str, Any] = {"marker": "X", "ms": 9, "mfc": "none", "mec": "red", "mew": 1.6}


def _circle_x() -> Path:
    """⊗, the page's Bokeh ``circle_x``: a circle and its diagonals (no matplotlib marker)."""
    d = 0.5**0.5
    cross = Path([(-d, -d), (d, d), (-d, d), (d, -d)],
                 [Path.MOVETO, Path.LINETO, Path.MOVETO, Path.LINETO])
    return Path.make_compound_path(Path.unit_circle(), cross)


NO_ROOF: dict[str, Any] = {"marker": _circle_x(), "ms": 9, "mfc": "none", "mec": NO_ROOF_COLOR,
                           "mew": 1.1}
"""Style of a point without a compute roof of its precision (:func:`.core.split_no_roof`)."""


def codes(values: pl.Series, names: Sequence[str]) -> np.ndarray:
    """Each row's index in ``names`` (vectorized: no per-row Python lookup).

    A Categorical column is mapped through its integer codes: ``replace_strict`` on it
    builds a string per row.
    """
    if values.dtype == pl.Categorical and values.len() and not values.null_count():
        # By slices: one unique() of all the codes holds far more (bench/NOTES.md).
        distinct = pl.concat([values.slice(i, 1 << 20).unique()
                              for i in range(0, values.len(), 1 << 20)]).unique()
        ids, found = distinct.to_physical().to_list(), distinct.cast(pl.String).to_list()
        index = {name: i for i, name in enumerate(names)}
        missing = set(found) - set(index)
        if missing:
            raise ValueError(f"values not in names: {sorted(missing)}")
        lookup = np.full(max(ids) + 1, -1, dtype=np.int8 if len(names) < 128 else np.int32)
        lookup[ids] = [index[name] for name in found]
        # Chunk by chunk: indexing by all codes at once would copy them whole, then to
        # 64-bit indices.
        return np.concatenate([lookup[c.to_physical().to_numpy()]
                               for c in values.get_chunks()])
    return values.replace_strict(list(names), list(range(len(names))),
                                 return_dtype=pl.Int32).to_numpy()


def apart(x, y) -> tuple[np.ndarray, np.ndarray]:
    """``x``, ``y`` with a NaN after each point: the data of a marker-only Line2D.

    A Line2D's points are one path whatever its line style; a tool reading the figure's
    lines (the plot-overlap probe) joins them, and a label between two points reads as
    crossed. NaN breaks the path at every point; the markers are drawn as before.
    """
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    gap = np.full(len(x), np.nan)
    return np.column_stack([x, gap]).ravel(), np.column_stack([y, gap]).ravel()


def draw_markers(ax, x: np.ndarray, y: np.ndarray, marker: str, color, *, hollow: bool,
                 size: float = 6.0, zorder: float = 4, gid: str | None = None) -> None:
    """All points of one group as a single Line2D.

    Agg stamps one cached marker per point, far faster than a
    scatter's per-point paths on 10⁵–10⁶ points.
    """
    if not len(x):
        return
    ax.plot(*apart(x, y), ls="", marker=marker, ms=size, mfc="none" if hollow else color,
            mec=color if hollow else "black", mew=1.0 if hollow else 0.4, zorder=zorder,
            gid=gid)


AREA_PER_SHARE = 1000.0
"""pt² of marker area per whole of the time: a point taking 10 % of it is 100 pt² (a
10 pt disc; the plain marker is 6 pt), as Intel Advisor sizes its dots by time."""
AREA_MIN = 12.0  # pt²: a point of almost no time stays visible
SIZE_KEY = (0.01, 0.05, 0.2)  # shares of the time shown in the size legend


def time_share_areas(table: pl.DataFrame) -> np.ndarray | None:
    """Marker areas (pt²) in proportion to each point's share of the drawn points' time.

    :data:`AREA_PER_SHARE` × time_s / Σ time_s, at least :data:`AREA_MIN`. None (plain
    markers) where the points have no times, or any measured point lacks one, or they are
    all theoretical: a size must mean the same for every point drawn.
    """
    if "time_s" not in table.columns or not table.height or table["theoretical"].all():
        return None
    measured = table.filter(~pl.col("theoretical"))
    if measured["time_s"].null_count() or not (measured["time_s"] > 0).all():
        return None
    total = measured["time_s"].sum()
    share = table.select(pl.when(pl.col("theoretical")).then(None)
                         .otherwise(pl.col("time_s") / total)).to_series()
    # A theoretical point has no time: the plain marker's area (6 pt across).
    return np.maximum(share.fill_null(36.0 / AREA_PER_SHARE).to_numpy() * AREA_PER_SHARE,
                      AREA_MIN)


def size_handles() -> list:
    """Legend entries of :func:`time_share_areas`: a marker per share of :data:`SIZE_KEY`."""
    from matplotlib.lines import Line2D

    head = Line2D([], [], ls="", label="— area: share of time —")
    return [head] + [Line2D([], [], ls="", marker="o", mfc="none", mec="0.3",
                            ms=float(np.sqrt(max(s * AREA_PER_SHARE, AREA_MIN))),
                            label=f"{s:.0%}") for s in SIZE_KEY]


def draw_groups(ax, x: np.ndarray, y: np.ndarray, series_code: np.ndarray,
                hollow: np.ndarray, color_code: np.ndarray, markers: Sequence[str],
                palette: Sequence, sizes: np.ndarray | None = None) -> None:
    """One artist per (series, hollow, colour) present: stable sort, then split.

    ``sizes``: marker areas (pt², :func:`time_share_areas`): a scatter per group.
    """
    n_colors = len(palette)
    key = (series_code * 2 + hollow.astype(np.int64)) * n_colors + color_code
    idx = np.argsort(key, kind="stable")
    for run in np.split(idx, np.flatnonzero(np.diff(key[idx])) + 1):
        if not len(run):
            continue
        k = int(key[run[0]])
        marker, color, is_hollow = (markers[k // (2 * n_colors)], palette[k % n_colors],
                                    bool(k // n_colors % 2))
        if sizes is None:
            draw_markers(ax, x[run], y[run], marker, color, hollow=is_hollow)
        else:
            ax.scatter(x[run], y[run], s=sizes[run], marker=marker,
                       facecolors="none" if is_hollow else color,
                       edgecolors=color if is_hollow else "black",
                       linewidths=1.0 if is_hollow else 0.4, zorder=4, alpha=0.85)


def draw_arrows(ax, table: pl.DataFrame, scale: float) -> None:
    """Arrow Original → Optimized (else first → last) per pair, drawn vectorized."""
    first = pl.col("series") != "Original"
    last = pl.col("series") == "Optimized"
    pairs = (
        table.filter((pl.col("pair") != "") & ~pl.col("theoretical"))
        .group_by("pair", maintain_order=True)
        .agg(x0=pl.col("arithmetic_intensity").sort_by(first).first(),
             y0=pl.col("performance").sort_by(first).first(),
             x1=pl.col("arithmetic_intensity").sort_by(last).last(),
             y1=pl.col("performance").sort_by(last).last(), n=pl.len())
        .filter(pl.col("n") > 1)
    )
    if not pairs.height:
        return
    x0, y0 = pairs["x0"].to_numpy(), pairs["y0"].to_numpy() / scale
    x1, y1 = pairs["x1"].to_numpy(), pairs["y1"].to_numpy() / scale
    # All shafts as one NaN-separated line: one path instead of one per segment.
    gap = np.full(len(x0), np.nan)
    ax.plot(np.column_stack([x0, x1, gap]).ravel(), np.column_stack([y0, y1, gap]).ravel(),
            color="0.35", lw=0.9, solid_capstyle="butt", zorder=3, gid="arrows")
    # Arrowheads: a triangle marker at the head, pointing along the dominant log-space axis.
    dx, dy = np.log10(x1 / x0), np.log10(y1 / y0)
    heads = np.where(np.abs(dy) >= np.abs(dx), np.where(dy >= 0, "^", "v"),
                     np.where(dx >= 0, ">", "<"))
    for m in ("^", "v", ">", "<"):
        sel = heads == m
        if sel.any():
            ax.plot(*apart(x1[sel], y1[sel]), ls="", marker=m, ms=3.75, color="0.35",
                    zorder=3)


def draw_kernels(ax, table: pl.DataFrame, levels: Sequence[str], top: Sequence[str],
                 palette: Sequence[str], grey: str, scale: float) -> None:
    """Kernels × levels: kernel ``top[i]`` in ``palette[i]``, the others ``grey``.

    Marker by level; one measurement's dots (:func:`.core.measurement_key`: a kernel's,
    or a launch's with ``--per-launch``) are joined by a faint line (one NaN-broken line
    per colour), in intensity order: joined by name alone, a kernel's launches were one
    line zig-zagging from launch to launch.
    """
    joined = measurement_key(table)
    table = table.with_columns(
        _c=pl.col("kernel").replace_strict(list(top), list(range(len(top))), default=-1,
                                           return_dtype=pl.Int64)
    ).sort(["_c", *joined, "arithmetic_intensity"])
    x = table["arithmetic_intensity"].to_numpy()
    y = table["performance"].to_numpy() / scale
    color_code = table["_c"].to_numpy()
    level_code = codes(table["level"], levels)
    breaks = table.select(~pl.all_horizontal(
        pl.col(c).eq_missing(pl.col(c).shift(1)) for c in joined)).to_series().to_numpy()
    bounds = np.flatnonzero(np.diff(color_code)) + 1
    for run in np.split(np.arange(table.height), bounds):
        if not len(run):
            continue
        c = int(color_code[run[0]])
        color = grey if c < 0 else palette[c]
        cut = np.flatnonzero(breaks[run][1:]) + 1
        ax.plot(np.insert(x[run], cut, np.nan), np.insert(y[run], cut, np.nan), color=color,
                lw=0.8, alpha=0.35, zorder=3, gid="kernel-levels")
        for li, lv in enumerate(levels):
            sel = run[level_code[run] == li]
            draw_markers(ax, x[sel], y[sel], level_marker(lv), color, hollow=False, size=6.3)
