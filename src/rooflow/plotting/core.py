"""What the PNG (:mod:`.roofline`, :mod:`.compare`) and the pages (:mod:`rooflow.html`) share.

Axis limits, units and titles; number formats; which roofs are drawn and their labels;
the one ranking of the points that matter; the points without a compute roof of their
precision, drawn apart; one colour per group or kernel; markers; the comparison's colours.
Both outputs take these from here, so they agree. Imports neither matplotlib, Bokeh nor
numpy: a page is made without loading matplotlib.

Roofline model (Williams, Waterman, Patterson, CACM 52(4), 2009): the roof at arithmetic
intensity x is min(compute roof, x × memory roof); the ridge point is compute roof /
memory roof (FLOP/byte).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from rooflow.analysis import NO_PRECISION, no_compute_roof
from rooflow.errors import InputError
from rooflow.points import PRECISIONS
from rooflow.roofs.preset import Preset

# --- axes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Axis limits: arithmetic intensity (FLOP/byte) and performance (FLOP/s)."""

    xmin: float
    xmax: float
    ymin: float
    ymax: float


PLOT_RANGE = (1e-30, 1e30)
"""Intensities (FLOP/byte) and performances (FLOP/s) a plot places: far beyond any GPU's
(10⁻³ … 10⁵ FLOP/byte, 10⁹ … 10¹⁹ FLOP/s); a value outside is a unit mistake, refused
with its row rather than drawn on an axis of 60 decades."""


def _decade_floor(v: float) -> float:
    # 10.0, not 10: an int power past int64 breaks numpy's isfinite on the axis limits.
    return 10.0 ** math.floor(math.log10(v))


def _decade_ceil(v: float) -> float:
    return 10.0 ** math.ceil(math.log10(v))


def check_plottable(table: pl.DataFrame, performance: str = "performance") -> None:
    """Every point's intensity and performance, where positive, within :data:`PLOT_RANGE`.

    Args:
        table: an analysis table, or canonical points (``performance="flop_per_s"``: the
            workflow's ``points`` job checks them, so a point no plot can place fails its
            own dataset, not every plot of its presets).
        performance: the column of the performance (FLOP/s).

    Raises:
        InputError: the first point outside, naming its source file, row and value.
    """
    lo, hi = PLOT_RANGE
    for column, what, unit in (("arithmetic_intensity", "arithmetic intensity", "FLOP/byte"),
                               (performance, "performance", "FLOP/s")):
        outside = table.lazy().filter(
            (pl.col(column) > 0)
            & ((pl.col(column) < lo) | (pl.col(column) > hi) | ~pl.col(column).is_finite())
        ).head(1).collect()
        if outside.height:
            row = outside.row(0, named=True)
            kernel = f"kernel {row['kernel']!r}: " if row.get("kernel") else ""
            raise InputError(
                str(row["source"]) if row.get("source") else None,
                f"{kernel}{what} {row[column]:g} {unit} is outside what a roofline plot "
                f"shows ({lo:g} … {hi:g}); a unit mistake?", row=row.get("row") or None,
                column=column, check="plottable range")


def axis_limits(preset: Preset, tables: Sequence[pl.DataFrame] = ()) -> Limits:
    """Limits from the roof (ridge/1000 … ridge×100, roof/1e4 … peak×3), widened to the data.

    Snapped to decades, so every plot of one preset shares them unless its data fall
    outside the roof's window. Rows without a positive intensity and performance
    (bandwidth-only rows) do not widen them.

    Raises:
        InputError: a point outside :data:`PLOT_RANGE`, or roofs too close to zero to draw.
    """
    peak = max(preset.compute.values())
    ridge = preset.ridge_point
    xmin, xmax = ridge / 1000, ridge * 100
    ymin, ymax = preset.peak_bytes_per_s * xmin / 10, peak * 3
    for t in tables:
        # Streaming engine: the filter runs in morsels, no filtered copy of 10⁷ rows.
        lo_x, hi_x, lo_y, hi_y = t.lazy().filter(
            (pl.col("arithmetic_intensity") > 0) & (pl.col("performance") > 0)
        ).select(
            pl.col("arithmetic_intensity").min().alias("x0"),
            pl.col("arithmetic_intensity").max().alias("x1"),
            pl.col("performance").min().alias("y0"), pl.col("performance").max().alias("y1"),
        ).collect(engine="streaming").row(0)
        if lo_x is not None:
            if not (PLOT_RANGE[0] <= min(lo_x, lo_y) and max(hi_x, hi_y) <= PLOT_RANGE[1]):
                check_plottable(t)
            xmin, xmax = min(xmin, lo_x / 2), max(xmax, hi_x * 2)
            ymin, ymax = min(ymin, lo_y / 2), max(ymax, hi_y * 2)
    if not all(1e-300 < v < 1e300 for v in (xmin, xmax, ymin, ymax)):
        raise InputError(preset.source, f"the roofs of preset {preset.key} give axes a plot "
                         "cannot draw (a peak near zero?)", check="plottable range")
    return Limits(_decade_floor(xmin), _decade_ceil(xmax), _decade_floor(ymin), _decade_ceil(ymax))


def op_rows(table: pl.DataFrame) -> pl.Series:
    """Boolean mask of integer-OP rows (``unit`` "OP", else an integer ``precision``)."""
    ops = [p for p, u in PRECISIONS.items() if u == "OP"]
    # An expression: `table["unit"]` would materialise a constant column held as a scalar.
    mask = ((pl.col("unit") == "OP").fill_null(False) if "unit" in table.columns
            else pl.col("precision").is_in(ops))
    return table.select(mask).to_series()


def operation(tables: Sequence[pl.DataFrame]) -> str:
    """What the axes count: "OP" when every row of ``tables`` is an integer-OP row, else "FLOP"."""
    tables = [t for t in tables if t.height]
    return "OP" if tables and all(op_rows(t).all() for t in tables) else "FLOP"


def perf_unit(limits: Limits, op: str = "FLOP") -> tuple[float, str]:
    """Scale and unit of the y axis: T<op>/s from 10 T<op>/s up, else G<op>/s."""
    return (1e12, f"T{op}/s") if limits.ymax >= 1e13 else (1e9, f"G{op}/s")


def axis_titles(op: str, unit: str) -> tuple[str, str]:
    """(x, y) axis titles: intensity in ``op``/byte; achieved performance in ``unit``.

    The y axis holds the achieved points, so it says "Performance", not "Attainable".
    """
    return f"Arithmetic intensity ({op}/byte)", f"Performance ({unit})"


# --- number formats -----------------------------------------------------------------------


def fmt(v: float) -> str:
    """A roof value as text: thousands separators from 100 up, else 3 significant digits."""
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(v: float, _pos: object = None) -> str:
    """A major log-axis tick as plain text: 0.001 … 1,000 as numbers, else 10ⁿ.

    Plain text, not matplotlib's mathtext ``$10^{n}$``: its parser is slow on first
    use (a large share of a 10⁶-point plot), and readers of roofline plots read 0.1 or 1,000
    faster than 10⁻¹ or 10³. ``_pos``: matplotlib's formatter argument, unused.
    """
    exponent = round(math.log10(v)) if v > 0 else 0
    if -3 <= exponent <= 3:
        return f"{v:,.3g}" if exponent < 3 else f"{v:,.0f}"
    return "10" + str(exponent).translate(_SUPERSCRIPT)


# --- roofs --------------------------------------------------------------------------------


def roof_keys(preset: Preset, levels: Sequence[str],
              precisions: Sequence[str]) -> tuple[list[str], list[str]]:
    """(compute keys, memory keys) drawn: the preset's defaults first, then the data's roofs.

    ``precisions``: the points' precisions, or the compute-roof keys they were judged on
    (an analysis table's ``compute_roof_name``: ``fp32 per instruction`` is a key too).
    """
    compute = list(dict.fromkeys([preset.default_compute] + [
        c[0] for p in precisions if (c := preset.compute_roof(p))]))
    memory = list(dict.fromkeys([preset.default_memory] + [
        m[0] for lv in levels if (m := preset.memory_roof(lv))]))
    return compute, memory


class Roof(NamedTuple):
    """One roof line, min(``peak``, x × ``bandwidth``): FLOP/s (OP/s) and byte/s.

    ``main``: the preset's default pair, drawn bold; the others thin and dashed.
    """

    compute: str
    memory: str
    peak: float
    bandwidth: float
    main: bool


def roofs(preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str]) -> list[Roof]:
    """Every compute × memory roof of :func:`roof_keys`, memory roof by memory roof."""
    return [Roof(c, m, preset.compute[c], preset.memory[m], i == 0 and j == 0)
            for i, m in enumerate(memory_keys) for j, c in enumerate(compute_keys)]


def compute_label_groups(preset: Preset, compute_keys: Sequence[str]) -> dict[float, list[str]]:
    """Compute-roof labels: roofs within 10 % of each other share one.

    Returns:
        Peak (FLOP/s of the lowest roof of the group) → roof keys, lowest peak first.
    """
    by_peak: dict[float, list[str]] = {}
    for ckey in sorted(compute_keys, key=preset.compute.__getitem__):
        peak = preset.compute[ckey]
        near = next((p for p in by_peak if abs(p - peak) <= 0.1 * p), peak)
        by_peak.setdefault(near, []).append(ckey)
    return by_peak


class RoofLabel(NamedTuple):
    """A label's anchor (x in FLOP/byte, y in the axis unit) and text.

    ``kind``: "memory" (left end of the text on the anchor, along its roof's slope),
    "compute" (right end of the text on the anchor, above its roof) or "ridge" (the ridge
    point; its text sits below right of it).
    """

    kind: str
    x: float
    y: float
    text: str


def roof_labels(preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str],
                limits: Limits, scale: float, unit: str) -> list[RoofLabel]:
    """The labels of the roofs of :func:`roof_keys` and of the ridge point.

    A memory roof is labelled just above its line at 3 × the left limit, unless that part
    of it lies above the compute roof; compute roofs just above their line near the right
    edge, grouped by :func:`compute_label_groups`. ``scale``, ``unit``: :func:`perf_unit`.
    """
    out = []
    x0 = limits.xmin * 3
    for mkey in memory_keys:
        bw = preset.memory[mkey]
        if x0 * bw < preset.peak_flop_per_s:
            out.append(RoofLabel("memory", x0, x0 * bw / scale * 1.25,
                                 f"{mkey}: {fmt(bw / 1e9)} GB/s"))
    for peak, keys in compute_label_groups(preset, compute_keys).items():
        out.append(RoofLabel("compute", limits.xmax / 1.2, peak / scale * 1.08,
                             f"{', '.join(keys)}: {fmt(peak / scale)} {unit}"))
    ridge = preset.ridge_point
    out.append(RoofLabel("ridge", ridge, preset.peak_flop_per_s / scale,
                         f"ridge point\n{fmt(ridge)} FLOP/byte"))
    return out


# --- the points that matter ---------------------------------------------------------------

RANK_COLUMNS = ("potential_time_saved_s", "kernel_headroom", "headroom")
"""The points that matter most: most potential time saved, then most kernel headroom, then
most headroom (of these columns, those a table has); null and NaN last, ties in table order."""


def _ranked(table: pl.DataFrame, k: int, extra: Sequence[str] = ()) -> pl.DataFrame:
    """Row index ``_i`` and ``extra`` columns of the ``k`` rows ranked first, best first.

    ``top_k`` keeps only ``k`` candidates and streams the rows: no sort and no copy of a
    10⁷-row table (bench/NOTES.md).
    """
    keys = [c for c in RANK_COLUMNS if c in table.columns]
    by = [*keys, "_i"]
    return (table.lazy().with_row_index("_i")
            # NaN sorts above every number in polars: as null it ranks last.
            .select("_i", *extra, *(pl.col(c).cast(pl.Float64).fill_nan(None) for c in keys))
            .top_k(k, by=by, reverse=[False] * len(keys) + [True])
            .sort(by, descending=[True] * len(keys) + [False], nulls_last=True)
            .collect(engine="streaming"))


def top_rows(table: pl.DataFrame, n: int) -> pl.Series:
    """Row indices (ascending) of the ``n`` rows that matter most (:data:`RANK_COLUMNS`)."""
    return _ranked(table, n)["_i"].sort()


def top_points(table: pl.DataFrame, n: int) -> tuple[pl.DataFrame, int]:
    """The ``n`` rows that matter most, in table order, and how many were left out."""
    if table.height <= n:
        return table, 0
    return table[top_rows(table, n)], table.height - n


def ranked_by(table: pl.DataFrame) -> str:
    """What ranked ``table``'s rows, for legends and notes: time saved only where known."""
    saved = "potential_time_saved_s"
    timed = saved in table.columns and table[saved].is_not_null().any()
    return "by potential time saved, then headroom" if timed else "by headroom"


def top_kernels(table: pl.DataFrame, n: int) -> list[str]:
    """The ``n`` kernels that matter most, best first: a kernel ranks where its best row does.

    The first ``n`` distinct kernels of the ranked rows; the top ``k`` rows hold them as
    soon as they name ``n`` kernels, so ``k`` grows from ``n`` only while they do not.
    """
    k = n
    while True:
        kernels = _ranked(table, k, ["kernel"])["kernel"].unique(maintain_order=True)
        if kernels.len() >= n or k >= table.height:
            return kernels.head(n).cast(pl.String).to_list()
        k *= 4


# --- groups, colours and markers ---------------------------------------------------------

TABLEAU_10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf")
"""matplotlib's tab10, Bokeh's Category10_10."""
TABLEAU_20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
              "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
              "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")
"""matplotlib's tab20, Bokeh's Category20_20."""
GREY = "#b3b3b3"  # groups and kernels past the coloured ones


def palette(n: int) -> list[str]:
    """``n`` colours of Tableau 10 (Tableau 20 past ten), repeating past the palette's size."""
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


# --- points without a compute roof -------------------------------------------------------

NO_ROOF_MARKER = "circle_x"
"""Bokeh's ⊗, hollow, in :data:`NO_ROOF_COLOR`: a point without a compute roof of its
precision. matplotlib has no such marker: the PNG draws the shape as a path
(:data:`rooflow.plotting.markers.NO_ROOF`)."""
NO_ROOF_COLOR = "#4d4d4d"


def split_no_roof(table: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(judged rows, rows without a compute roof of their precision) of an analysis table.

    The latter are not judged (:func:`rooflow.analysis.no_compute_roof`: no attainable or
    headroom), so they are drawn apart in their own style, never ranked or coloured with
    the points that matter (labels and keys name them after those), and never counted
    above the roof.
    """
    mask = table.select(no_compute_roof()).to_series()
    if not mask.any():
        return table, table.clear()
    return table.filter(~mask), table.filter(mask)


def no_roof_label(rows: pl.DataFrame, sep: str = " ") -> str:
    """Legend text of the drawn points without a compute roof: why, and their count.

    "no fp8-tensor roof", and "precision not given" for points without a precision (no
    roof is assumed for them). ``sep`` goes after the reason (a line break where the legend
    is narrow: "precision not given: 200,000 points" does not fit its width).
    """
    precisions = rows["precision"].cast(pl.String).fill_null("").unique(maintain_order=True)
    names = ", ".join(p for p in precisions.to_list() if p)
    why = [f"no {names} roof"] if names else []
    if (precisions == "").any():
        why.append(NO_PRECISION)
    n = rows.height
    return f"{', '.join(why)}:{sep}{n:,} point{'s' if n != 1 else ''}, not judged"


# --- comparisons --------------------------------------------------------------------------

SPEEDUP_COLORS = {"faster or same": "#1a9850", "slower": "#d73027",
                  "no speedup (theoretical)": "#737373"}
"""Arrow (segment) colour of a matched kernel by :func:`speedup_group`."""


def speedup_group(speedup: float | None) -> str:
    """Key of :data:`SPEEDUP_COLORS`: speedup ≥ 1, < 1, or none (a theoretical point)."""
    if speedup is None or math.isnan(speedup):
        return "no speedup (theoretical)"
    return "faster or same" if speedup >= 1 else "slower"


def side(table: pl.DataFrame, suffix: str) -> pl.DataFrame:
    """One run's points of a comparison table, renamed to analysis-table columns.

    Args:
        table: a :class:`rooflow.compare.Comparison` table.
        suffix: "_baseline" or "_new".

    Returns:
        level, precision, arithmetic_intensity, performance (and kernel: its ``name``, for
        errors) of the rows with both numbers.
    """
    return table.select(level="level", precision=f"precision{suffix}",
                        arithmetic_intensity=f"arithmetic_intensity{suffix}",
                        performance=f"performance{suffix}",
                        **({"kernel": "name"} if "name" in table.columns else {})).drop_nulls(
        ["arithmetic_intensity", "performance"])
