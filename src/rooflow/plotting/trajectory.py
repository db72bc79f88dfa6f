"""Sweep trajectories: the path a kernel family takes across the roofline as one dim grows.

A sweep (benchmark rows over M, spec variants over the context length, ...) gives points
that differ in one dim. :func:`trajectories` groups the points of an analysis table that
share ``family``, ``series``, ``level``, ``precision``, ``source`` (one input file) and
the values of every dim but the chosen one (the ``dims`` column, :mod:`rooflow.dims`),
and orders each group by the chosen dim's value (numerically). A group holding one value
twice (two kernels of a family at one shape) is parted by label or kernel. A group of two
or more points is a path: on the PNG (:func:`draw_trajectories`) and the page
(:func:`draw_page_trajectories`) a line in the group's colour with small arrowheads
halfway along its segments, pointing the way the dim grows, and its two ends labelled
with the dim's values (``M=64``, ``M=4096``). Original and Optimized benchmark points are
two series, so two paths. Points without the dim, or alone in their group, stay points.

Columns in: ``dims``, ``family``, ``series``, ``level``, ``precision``,
``arithmetic_intensity`` (FLOP/byte), ``performance`` (FLOP/s or OP/s), ``source``, and
the colour column. Import matplotlib-free: the pages use the same paths.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import polars as pl

from rooflow.dims import parse_dims
from rooflow.errors import InputError
from rooflow.plotting import core
from rooflow.points import distinct

KEY = ["family", "series", "level", "precision", "source"]
"""Columns a path's points share, besides the other dims."""
SPLIT = ["label", "kernel"]
"""Columns that part a group holding a dim value twice (two kernels of one family at the
same shape), tried in turn: a path never joins two points of one value."""
MAX_PATHS = 60
"""Paths drawn at the most (the first ones); the legend says how many there are."""
MAX_ARROWS = 12
"""Arrowheads per path at the most, on evenly spaced segments."""
LABEL_OFFSET = 7.0  # points between a path's end and its label


@dataclass(frozen=True)
class Trajectory:
    """One path: a group's points in the order of the dim's values.

    ``group``: the colour column's value at the first point; ``others``: the other dims,
    names sorted (``E=128,K=2048``); ``values``: the dim's values as written, ascending;
    ``x``: arithmetic intensity (FLOP/byte); ``y``: performance (FLOP/s or OP/s);
    ``labelled``: its ends get labels, unless an earlier path of another series has the
    same family, level, precision, other dims, end values and end intensities (the same
    sweep, its ends in the same place: one pair of labels says it).
    """

    dim: str
    family: str
    series: str
    level: str
    precision: str
    others: str
    group: str
    values: tuple[str, ...]
    x: tuple[float, ...]
    y: tuple[float, ...]
    labelled: bool = True

    @property
    def end_labels(self) -> tuple[str, str]:
        """The labels of the first and the last point: ``("M=64", "M=4096")``."""
        return f"{self.dim}={self.values[0]}", f"{self.dim}={self.values[-1]}"

    def midpoints(self) -> list[tuple[float, float]]:
        """Per segment, its middle on the log-log axes (geometric means): the arrowheads."""
        return [(math.sqrt(x0 * x1), math.sqrt(y0 * y1)) for x0, x1, y0, y1 in zip(
            self.x, self.x[1:], self.y, self.y[1:], strict=False)]


def available_dims(table: pl.DataFrame) -> list[str]:
    """The dim names of any row of ``table``, sorted."""
    return sorted({name for cell in _dims_cells(table) for name in parse_dims(cell)})


def _dims_cells(table: pl.DataFrame) -> list[str]:
    """The distinct ``dims`` cells of ``table`` as text (a file's one value kept a scalar)."""
    return distinct(table, "dims").cast(pl.String).drop_nulls().to_list()


def check_dim(table: pl.DataFrame, dim: str) -> None:
    """Nothing when a row of ``table`` (points or analysis table) has dim ``dim``.

    Raises:
        InputError: no row has it, naming the sources and the dims there are.
    """
    names = available_dims(table)
    if dim in names:
        return
    sources = table["source"].unique(maintain_order=True).cast(pl.String).to_list()
    where = ", ".join(sources[:3]) + (f" and {len(sources) - 3} more" if len(sources) > 3
                                      else "")
    there = (f"dims: {', '.join(names)}" if names else "no point has dims: benchmark and "
             "spec inputs give them, a roofline CSV in a 'dims' column")
    raise InputError(where or None, f"trajectory {dim}: no point has dim {dim} ({there})")


def trajectories(table: pl.DataFrame, dim: str,
                 color_col: str = "family") -> tuple[Trajectory, ...]:
    """The paths of ``table`` (an analysis table) as ``dim`` grows, in first-seen order.

    Rows without a place on the log-log plot (no or no positive intensity or performance)
    are left out. A group holding a value of ``dim`` twice is parted by :data:`SPLIT`; one
    no column parts is no path.

    The last call's paths are kept (beside a weak reference to its table, so the table is
    not): a report asks for one table's paths three times, for its note, its PNG and its
    page (:func:`rooflow.pipeline.report`, :mod:`rooflow.workflow.draw`).

    Raises:
        InputError: no row has ``dim`` (:func:`check_dim`).
    """
    global _last
    if _last is not None and _last[0]() is table and _last[1:3] == (dim, color_col):
        return _last[3]
    paths = _trajectories(table, dim, color_col)
    _last = (weakref.ref(table), dim, color_col, paths)
    return paths


_last: tuple[weakref.ref, str, str, tuple[Trajectory, ...]] | None = None
"""The last :func:`trajectories` call: its table (weakly), dim, colour column and paths."""


def _trajectories(table: pl.DataFrame, dim: str, color_col: str) -> tuple[Trajectory, ...]:
    rows = table.filter((pl.col("arithmetic_intensity") > 0) & (pl.col("performance") > 0))
    parsed = {cell: parse_dims(cell) for cell in _dims_cells(rows)}
    having = {cell: dims for cell, dims in parsed.items() if dim in dims}
    if not having:
        check_dim(table, dim)  # the rows left out may have it: then no path, no error
        return ()
    value = {cell: dims[dim] for cell, dims in having.items()}
    # The other dims by value: N=064, N=64.0 and N=64 are one shape.
    others = {cell: ",".join(f"{k}={format(Decimal(v).normalize(), 'f')}"
                             for k, v in sorted(dims.items()) if k != dim)
              for cell, dims in having.items()}
    rows = rows.with_columns(_cell=pl.col("dims").cast(pl.String)).filter(
        pl.col("_cell").is_in(list(having)))
    rows = rows.with_columns(
        _value=pl.col("_cell").replace_strict(value, return_dtype=pl.String),
        _others=pl.col("_cell").replace_strict(others, return_dtype=pl.String),
        _group=pl.col(color_col).cast(pl.String).fill_null(""),
        **{c: pl.col(c).cast(pl.String).fill_null("") for c in KEY},
    ).with_columns(_number=pl.col("_value").cast(pl.Float64))
    split = [c for c in SPLIT if c in rows.columns]
    groups = rows.group_by([*KEY, "_others"], maintain_order=True).agg(
        "_group", "_value", "_number", "arithmetic_intensity", "performance", *split)
    paths, labelled = [], set()
    # One pass over the groups as lists, not a DataFrame per group (bench/NOTES.md).
    for g in groups.iter_rows(named=True):
        number = g["_number"]
        for part in _parts(number, [g[c] for c in split]):
            part.sort(key=number.__getitem__)  # stable: rows of one value keep their order
            first = part[0]
            values = tuple(g["_value"][i] for i in part)
            x = tuple(g["arithmetic_intensity"][i] for i in part)
            sweep = (g["family"], g["level"], g["precision"], g["_others"],
                     values[0], values[-1], x[0], x[-1])
            paths.append(Trajectory(
                dim=dim, **{c: g[c] for c in KEY if c != "source"},
                others=g["_others"], group=g["_group"][first], values=values, x=x,
                y=tuple(g["performance"][i] for i in part), labelled=sweep not in labelled))
            labelled.add(sweep)
    return tuple(paths)


def _parts(number: list[float], splits: list[list]) -> list[list[int]]:
    """The paths of one group, as lists of its row positions.

    The whole group, or its parts by the first of ``splits`` (the :data:`SPLIT` columns'
    values) that leaves no dim value twice in a part; parts of one point are no path.
    """
    if len(set(number)) == len(number):
        return [list(range(len(number)))] if len(number) > 1 else []
    for column in splits:
        if len(set(zip(column, number, strict=True))) == len(number):
            parts: dict[object, list[int]] = {}
            for i, value in enumerate(column):
                parts.setdefault(value, []).append(i)
            return [part for part in parts.values() if len(part) > 1]
    return []


def arrow_segments(segments: int) -> list[int]:
    """The segments of a path that get an arrowhead.

    All, or :data:`MAX_ARROWS` evenly spaced ones (the first and the last among them).
    """
    if segments <= MAX_ARROWS:
        return list(range(segments))
    return sorted({round(i * (segments - 1) / (MAX_ARROWS - 1)) for i in range(MAX_ARROWS)})


def png_colors(table: pl.DataFrame, color_by: str, top_n: int) -> tuple[str, dict[str, str]]:
    """The colour column of the PNG's points and its colours (:mod:`.roofline`'s choice).

    On several levels each kernel that matters most (:func:`.core.top_kernels`) has a
    colour; else each group of ``color_by`` (``family``) in first-seen order. The first
    ``top_n`` are coloured, the rest grey.
    """
    if table["level"].n_unique() > 1:
        return "kernel", core.group_colors(core.top_kernels(table, top_n), top_n)
    column = color_by if color_by in table.columns else "family"
    return column, core.group_colors(core.groups(table[column]), top_n)


def draw_trajectories(ax, table: pl.DataFrame, dim: str, scale: float, color_col: str,
                      colors: dict[str, str]) -> list:
    """Draw the paths of ``table`` on a matplotlib axes; their legend entry (none: [ ]).

    Each path takes the colour of its ``color_col`` value in ``colors`` (grey when it
    has none). Performance is divided by ``scale`` (the axis unit). Artists carry gid
    ``trajectory`` (lines), ``trajectory-arrow`` and ``trajectory-label``.

    Raises:
        InputError: no row has ``dim`` (:func:`check_dim`).
    """
    from matplotlib.lines import Line2D

    from rooflow.plotting.layout import ring_places
    from rooflow.plotting.roofs import register

    paths = trajectories(table, dim, color_col)
    if not paths:
        return []
    for path in paths[:MAX_PATHS]:
        color = colors.get(path.group, core.GREY)
        x, y = np.array(path.x), np.array(path.y) / scale
        ax.plot(x, y, color=color, lw=1.3, alpha=0.85, zorder=3.5, gid="trajectory",
                solid_capstyle="round")
        mid = path.midpoints()
        for i in arrow_segments(len(mid)):
            ax.annotate("", xy=(mid[i][0], mid[i][1] / scale), xytext=(x[i], y[i]), zorder=3.5,
                        arrowprops={"arrowstyle": "-|>", "color": color, "lw": 0,
                                    "mutation_scale": 10, "shrinkA": 0, "shrinkB": 0},
                        gid="trajectory-arrow")
        for i, text in zip((0, -1), path.end_labels if path.labelled else (), strict=False):
            (dx, dy), ha, va = _outward(ax, x, y, i)
            label = ax.annotate(text, (x[i], y[i]), xytext=(dx, dy), textcoords="offset points",
                                ha=ha, va=va, fontsize=7, color=color, zorder=3.6,
                                gid="trajectory-label",
                                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                      "alpha": 0.75})
            # Outward first; else around its end, off the roofs (roofs.settle_labels).
            register(ax, label, [{"position": (dx, dy), "ha": ha, "va": va}] + [
                {"position": p[:2], "ha": p[2], "va": p[3]} for p in ring_places()
                if np.hypot(*p[:2]) < 30])
    return [Line2D([], [], color="0.3", lw=1.3, marker=">", ms=4, label=paths_text(paths, ",\n"))]


def paths_text(paths: Sequence[Trajectory], sep: str = ", ") -> str:
    """The legend's words for ``paths``: ``4 paths as M grows`` (``, first 60 drawn``).

    ``sep`` goes before "first" (a line break where the legend is narrow).
    """
    text = f"{len(paths):,} path{'s' * (len(paths) > 1)} as {paths[0].dim} grows"
    return text + (f"{sep}first {MAX_PATHS} drawn" if len(paths) > MAX_PATHS else "")


def label_place(ux: float, uy: float) -> tuple[tuple[float, float], str, str]:
    """Where an end's label goes, and its horizontal and vertical alignment.

    ``LABEL_OFFSET`` points along the outward unit direction (``ux``, ``uy``; screen, y up).
    """
    ha = "left" if ux > 0.3 else "right" if ux < -0.3 else "center"
    va = "bottom" if uy > 0.3 else "top" if uy < -0.3 else "center"
    return (LABEL_OFFSET * ux, LABEL_OFFSET * uy), ha, va


def outward(dx: float, dy: float) -> tuple[float, float]:
    """The unit vector of (``dx``, ``dy``): from a path's inner point to its end, on screen."""
    norm = math.hypot(dx, dy) or 1.0
    return dx / norm, dy / norm


def legend_names(paths: Sequence[Trajectory]) -> list[str]:
    """A name per path: family and series, with the other dims where those repeat."""
    short = [" ".join(p for p in (t.family or "(no family)", t.series) if p) for t in paths]
    return [f"{name} {t.others}" if short.count(name) > 1 else name
            for name, t in zip(short, paths, strict=True)]


def _outward(ax, x: np.ndarray, y: np.ndarray, i: int) -> tuple[tuple[float, float], str, str]:
    """Offset (points) and alignment of the label at end ``i`` (0, -1): away from the path."""
    (px, py), (qx, qy) = ax.transData.transform([(x[1 if i == 0 else -2], y[1 if i == 0 else -2]),
                                                 (x[i], y[i])])
    return label_place(*outward(qx - px, qy - py))
