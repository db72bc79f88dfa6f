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

from rooflow.analysis import KERNEL_KEY, NO_PRECISION, no_compute_roof
from rooflow.errors import InputError
from rooflow.escape import short_name

# Re-exported: both outputs read the ranking, colours and markers from here.
from rooflow.plotting.colors import (  # noqa: F401
    GREY,
    SERIES_MARKERS,
    TABLEAU_10,
    TABLEAU_20,
    Marker,
    group_colors,
    groups,
    order,
    palette,
    series_marker,
)
from rooflow.plotting.ranking import RANK_COLUMNS, ranked_by, top_kernels, top_points, top_rows  # noqa: F401
from rooflow.points import PRECISIONS, distinct
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


def check_plottable(table: pl.DataFrame) -> None:
    """Every point's intensity and performance, where positive, within :data:`PLOT_RANGE`.

    Args:
        table: an analysis table, or canonical points (the workflow's batch jobs
            check them, so a point no plot can place fails its own dataset, not every
            plot of its presets); ``performance`` in FLOP/s.

    Raises:
        InputError: the first point outside, naming its source file, row and value.
    """
    lo, hi = PLOT_RANGE
    for column, what, unit in (("arithmetic_intensity", "arithmetic intensity", "FLOP/byte"),
                               ("performance", "performance", "FLOP/s")):
        outside = table.lazy().filter(
            (pl.col(column) > 0)
            & ((pl.col(column) < lo) | (pl.col(column) > hi) | ~pl.col(column).is_finite())
        ).head(1).collect()
        if outside.height:
            row = outside.row(0, named=True)
            kernel = f"kernel {short_name(row['kernel'])!r}: " if row.get("kernel") else ""
            raise InputError(
                str(row["source"]) if row.get("source") else None,
                f"{kernel}{what} {row[column]:g} {unit} is outside what a roofline plot "
                f"shows ({lo:g} … {hi:g}); a unit mistake?", row=row.get("row") or None,
                column=column, check="plottable range")


def _data_extent(tables: Sequence[pl.DataFrame]) -> tuple[float, float, float, float] | None:
    """(min, max intensity, min, max performance) of the placed points, or None."""
    out = None
    for t in tables:
        # Streaming engine: the filter runs in morsels, no filtered copy of 10⁷ rows.
        lo_x, hi_x, lo_y, hi_y = t.lazy().filter(
            (pl.col("arithmetic_intensity") > 0) & (pl.col("performance") > 0)
        ).select(
            pl.col("arithmetic_intensity").min().alias("x0"),
            pl.col("arithmetic_intensity").max().alias("x1"),
            pl.col("performance").min().alias("y0"), pl.col("performance").max().alias("y1"),
        ).collect(engine="streaming").row(0)
        if lo_x is None:
            continue
        if not (PLOT_RANGE[0] <= min(lo_x, lo_y) and max(hi_x, hi_y) <= PLOT_RANGE[1]):
            check_plottable(t)
        out = ((lo_x, hi_x, lo_y, hi_y) if out is None else
               (min(out[0], lo_x), max(out[1], hi_x), min(out[2], lo_y), max(out[3], hi_y)))
    return out


MARGIN = 3.0
"""Factor of room past the data and the ridges on each side of a fitted axis, before
the limits are snapped out to whole decades."""
FLAT_ROOM = 30.0
"""Factor of room right of a ridge point: 1.5 decades of its compute roof's flat part
at least, where the roof's label ("fp32 per instruction: 72.1 TFLOP/s", on two lines
where needed) sits; at :data:`MARGIN` (and at 10) a ridge at 9–11.5 FLOP/byte left the
axes ending at 100, too short a flat part for the label."""


def axis_limits(preset: Preset, tables: Sequence[pl.DataFrame] = (),
                ridges: Sequence[tuple[float, float]] = (),
                fixed: tuple[tuple[float, float] | None, tuple[float, float] | None] = (None, None),
                ) -> Limits:
    """Axis limits fitted to the data and the ridge points of its roofs.

    With points: the placed points and ``ridges`` ((FLOP/byte, FLOP/s) of the bold roofs'
    ridge points, :func:`ridge_points`), :data:`MARGIN` × beyond them on each side and
    :data:`FLAT_ROOM` × right of the ridges, snapped out to decades. Without points: the
    preset's window around its default ridge point (ridge/1000 … ridge×100, roof/1e4 …
    peak×3). Rows without a positive intensity and performance (bandwidth-only rows) do
    not count. ``fixed``: (xlim, ylim), in
    FLOP/byte and FLOP/s, that replace the fitted ones (``--xlim``/``--ylim``, the
    config), so plots can be compared on one frame.

    Raises:
        InputError: a point outside :data:`PLOT_RANGE`, or roofs too close to zero to draw.
    """
    extent = _data_extent(tables)
    if extent is None:
        peak = max(preset.compute.values())
        ridge = preset.ridge_point
        xmin, xmax = ridge / 1000, ridge * 100
        ymin, ymax = preset.peak_bytes_per_s * xmin / 10, peak * 3
    else:
        xs = [extent[0], extent[1], *(r[0] for r in ridges)]
        ys = [extent[2], extent[3], *(r[1] for r in ridges)]
        xmin = min(xs) / MARGIN
        xmax = max([max(xs) * MARGIN, *(r[0] * FLAT_ROOM for r in ridges)])
        ymin, ymax = min(ys) / MARGIN, max(ys) * MARGIN
    if not all(1e-300 < v < 1e300 for v in (xmin, xmax, ymin, ymax)):
        raise InputError(preset.source, f"the roofs of preset {preset.key} give axes a plot "
                         "cannot draw (a peak near zero?)", check="plottable range")
    xlim, ylim = fixed
    xmin, xmax = xlim or (_decade_floor(xmin), _decade_ceil(xmax))
    ymin, ymax = ylim or (_decade_floor(ymin), _decade_ceil(ymax))
    return Limits(xmin, xmax, ymin, ymax)


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
    """Scale and unit of the y axis: :func:`perf_scale` of its top."""
    return perf_scale(limits.ymax, op)


def perf_scale(top: float, op: str = "FLOP") -> tuple[float, str]:
    """Scale and unit of performance up to ``top`` (<op>/s).

    T<op>/s from 10 T<op>/s up, else G<op>/s.
    """
    return (1e12, f"T{op}/s") if top >= 1e13 else (1e9, f"G{op}/s")


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


def _data_roofs(preset: Preset, levels: Sequence[str],
                precisions: Sequence[str]) -> tuple[list[str], list[str]]:
    """(compute keys, memory keys) of the roofs the points are judged against."""
    compute = list(dict.fromkeys(c[0] for p in precisions if (c := preset.compute_roof(p))))
    memory = list(dict.fromkeys(m[0] for lv in levels if (m := preset.memory_roof(lv))))
    return compute, memory


def roof_keys(preset: Preset, levels: Sequence[str],
              precisions: Sequence[str]) -> tuple[list[str], list[str]]:
    """(compute keys, memory keys) drawn: the data's roofs first, then the preset's defaults.

    ``precisions``: the points' precisions, or the compute-roof keys they were judged on
    (an analysis table's ``compute_roof_name``: ``fp32 per instruction`` is a key too).
    """
    compute, memory = _data_roofs(preset, levels, precisions)
    return (list(dict.fromkeys([*compute, preset.default_compute])),
            list(dict.fromkeys([*memory, preset.default_memory])))


def bold_keys(preset: Preset, levels: Sequence[str],
              precisions: Sequence[str]) -> tuple[list[str], list[str]]:
    """(compute keys, memory keys) drawn bold: the roofs the points are judged against.

    Where the points name no compute (memory) roof the preset has, its default is bold,
    so a plot without points still shows one roofline.
    """
    compute, memory = _data_roofs(preset, levels, precisions)
    return compute or [preset.default_compute], memory or [preset.default_memory]


class Roof(NamedTuple):
    """One roof line, min(``peak``, x × ``bandwidth``): FLOP/s (OP/s) and byte/s.

    ``main``: a roof of the data (:func:`bold_keys`), drawn bold; the others thin and dashed.
    """

    compute: str
    memory: str
    peak: float
    bandwidth: float
    main: bool


def roofs(preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str],
          bold: tuple[Sequence[str], Sequence[str]] | None = None) -> list[Roof]:
    """Every compute × memory roof of :func:`roof_keys`, memory roof by memory roof.

    ``bold``: :func:`bold_keys`; None: the first compute and memory key only.
    """
    bold = bold or (compute_keys[:1], memory_keys[:1])
    return [Roof(c, m, preset.compute[c], preset.memory[m], c in bold[0] and m in bold[1])
            for m in memory_keys for c in compute_keys]


class Ridge(NamedTuple):
    """The ridge point of one bold roof: intensity (FLOP/byte) and performance (FLOP/s)."""

    compute: str
    memory: str
    intensity: float
    performance: float


def ridge_points(preset: Preset, bold: tuple[Sequence[str], Sequence[str]]) -> list[Ridge]:
    """One ridge point per bold roof (:func:`bold_keys`): compute roof / memory roof.

    As Nsight Compute marks one per roof. Two roofs of equal peaks share one point.
    """
    out: dict[tuple[float, float], Ridge] = {}
    for m in bold[1]:
        for c in bold[0]:
            peak, bw = preset.compute[c], preset.memory[m]
            out.setdefault((peak, bw), Ridge(c, m, peak / bw, peak))
    return list(out.values())


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
    point; its text sits below right of it). The PNG moves memory, compute and ridge
    texts along their roof to where the data is not (:mod:`.layout`). ``roof``: the
    roof's own value at ``x`` in the axis unit (a compute label's ``y`` is
    :data:`COMPUTE_LIFT` times it; a ridge label's is it). ``main``: it names one of the
    data's roofs (bold, :func:`bold_keys`) or their ridge point; a thin roof's compute
    label with no clear place is left out (``rooflow.plotting.roofs.settle_labels``,
    ``rooflow.html.places.settle_labels``), as a roof above the axes has no label.
    """

    kind: str
    x: float
    y: float
    text: str
    roof: float
    main: bool = True


COMPUTE_LIFT = 1.08
"""A compute label's anchor above its flat roof (below it: divided), as a factor on the
log axis: clear of the 2-pt roof line at any axis height."""
MEMORY_LIFT = 1.25
"""A memory label's anchor above its sloped roof, as :data:`COMPUTE_LIFT`."""


def roof_labels(preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str],
                limits: Limits, scale: float, unit: str,
                bold: tuple[Sequence[str], Sequence[str]] | None = None) -> list[RoofLabel]:
    """The labels of the roofs of :func:`roof_keys` and of the bold roofs' ridge points.

    A memory roof is labelled just above its line at 3 × the left limit, unless that part
    of it lies above the compute roof; compute roofs just above their line near the right
    edge, grouped by :func:`compute_label_groups`; each ridge point
    (:func:`ridge_points`) with its intensity. ``scale``, ``unit``: :func:`perf_unit`.
    ``bold``: :func:`bold_keys`; None: the first compute and memory key.
    """
    bold = bold or (compute_keys[:1], memory_keys[:1])
    out = []
    x0 = limits.xmin * 3
    top = max(preset.compute[c] for c in compute_keys)
    for mkey in memory_keys:
        bw = preset.memory[mkey]
        if x0 * bw < top:
            out.append(RoofLabel("memory", x0, x0 * bw / scale * MEMORY_LIFT,
                                 f"{mkey}: {fmt(bw / 1e9)} GB/s", x0 * bw / scale,
                                 mkey in bold[1]))
    for peak, keys in compute_label_groups(preset, compute_keys).items():
        out.append(RoofLabel("compute", limits.xmax / 1.2, peak / scale * COMPUTE_LIFT,
                             f"{', '.join(keys)}: {fmt(peak / scale)} {unit}", peak / scale,
                             any(k in bold[0] for k in keys)))
    ridges = ridge_points(preset, bold)
    for r in ridges:
        # Several ridges: each names its roofs.
        name = ("ridge point" if len(ridges) == 1 else f"{r.compute} ridge"
                if len(bold[1]) == 1 else f"{r.compute} / {r.memory} ridge")
        op = "OP" if unit.startswith(("TOP", "GOP")) else "FLOP"
        out.append(RoofLabel("ridge", r.intensity, r.performance / scale,
                             f"{name}: {fmt(r.intensity)} {op}/byte", r.performance / scale))
    return out


# --- points without a compute roof -------------------------------------------------------

NO_ROOF_MARKER = "circle_x"
"""Bokeh's ⊗, hollow, in :data:`NO_ROOF_COLOR`: a point without a compute roof of its
precision. matplotlib has no such marker: the PNG draws the shape as a path
(:data:`rooflow.plotting.markers.NO_ROOF`)."""
NO_ROOF_COLOR = "#4d4d4d"


def measurement_key(table: pl.DataFrame) -> list[str]:
    """The columns of ``table`` that name one measurement, whose levels are its rows.

    :data:`rooflow.analysis.KERNEL_KEY` (input file and row, kernel, series, pair, label)
    and, on an overview, ``dataset``: those present. The faint lines joining a kernel's
    levels join these rows (PNG and page), so two launches or two datasets of one kernel
    are never one line, whatever their performance.
    """
    return [c for c in (*KERNEL_KEY, "dataset") if c in table.columns]


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


def speedup_group(speedup: pl.Expr) -> pl.Expr:
    """Key of :data:`SPEEDUP_COLORS` per row: speedup ≥ 1, < 1, or none (null, NaN)."""
    none = speedup.is_null() | speedup.is_nan()
    return (pl.when(none).then(pl.lit("no speedup (theoretical)"))
            .when(speedup >= 1).then(pl.lit("faster or same")).otherwise(pl.lit("slower")))


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


def notes(table: pl.DataFrame, n_above: int, n_op: int) -> list[str]:
    """The notes box's lines: above-roof count, roof notes (missing roofs), OP rows.

    The PNG's box draws them; the page says the roof notes among its own (no matplotlib
    here: pages are built without it).

    A row's notes joined by "; " are a line each (a roof note, and bytes of the inputs only).
    """
    out = []
    if n_above:
        out.append(f"{n_above} point{'s' if n_above > 1 else ''} above the roof: "
                   "check peaks, units or clocks")
    if "roof_note" in table.columns:  # a row's notes are joined by "; ": one line each
        out += list(dict.fromkeys(
            part for n in distinct(table, "roof_note").drop_nulls().to_list()
            for part in str(n).split("; ") if part))
    if n_op:
        out.append(f"{n_op} integer-OP point{'s' if n_op > 1 else ''} drawn as ◆ in OP/s "
                   "against integer roofs")
    return out
