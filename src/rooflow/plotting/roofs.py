"""Axis limits, roof lines, ridge point and roof labels.

Roofline model (Williams, Waterman, Patterson, CACM 52(4), 2009): the roof at
arithmetic intensity x is min(compute roof, x × memory roof); the ridge point is
compute roof / memory roof (FLOP/byte).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from rooflow.roofs.preset import Preset


@dataclass(frozen=True)
class Limits:
    """Axis limits: arithmetic intensity (FLOP/byte) and performance (FLOP/s)."""

    xmin: float
    xmax: float
    ymin: float
    ymax: float


def _decade_floor(v: float) -> float:
    return 10 ** math.floor(math.log10(v))


def _decade_ceil(v: float) -> float:
    return 10 ** math.ceil(math.log10(v))


def axis_limits(preset: Preset, tables: Sequence[pl.DataFrame] = ()) -> Limits:
    """Limits from the roof (ridge/1000 … ridge×100, roof/1e4 … peak×3), widened to the data.

    Snapped to decades, so every plot of one preset shares them unless its data fall
    outside the roof's window. Rows without a positive intensity and performance
    (bandwidth-only rows) do not widen them.
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
            xmin, xmax = min(xmin, lo_x / 2), max(xmax, hi_x * 2)
            ymin, ymax = min(ymin, lo_y / 2), max(ymax, hi_y * 2)
    return Limits(_decade_floor(xmin), _decade_ceil(xmax), _decade_floor(ymin), _decade_ceil(ymax))


def perf_unit(limits: Limits, op: str = "FLOP") -> tuple[float, str]:
    """Scale and unit of the y axis: T<op>/s from 10 T<op>/s up, else G<op>/s."""
    return (1e12, f"T{op}/s") if limits.ymax >= 1e13 else (1e9, f"G{op}/s")


def fmt(v: float) -> str:
    """A roof value as text: thousands separators from 100 up, else 3 significant digits."""
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(v: float, _pos: object = None) -> str:
    """A major log-axis tick as plain text: 0.001 … 1,000 as numbers, else 10ⁿ.

    Plain text, not matplotlib's mathtext ``$10^{n}$``: its parser is slow on first
    use (a large share of a 10⁶-point plot), and readers of roofline plots read 0.1 or 1,000
    faster than 10⁻¹ or 10³.
    """
    exponent = round(math.log10(v)) if v > 0 else 0
    if -3 <= exponent <= 3:
        return f"{v:,.3g}" if exponent < 3 else f"{v:,.0f}"
    return "10" + str(exponent).translate(_SUPERSCRIPT)


def draw_minor_ticks(ax) -> None:
    """Minor ticks at 2× and 5× of each decade on the bottom and left log axes.

    Drawn as two lines of tick-shaped markers, in the style of matplotlib's minor ticks
    (rcParams ``xtick.minor.*``): as ``Tick`` objects (five artists each, two of them
    Text) the 30 of a typical roofline slow down every plot. Call after the limits
    are set.
    """
    from matplotlib import rcParams
    from matplotlib.markers import TICKDOWN, TICKLEFT

    ax.minorticks_off()
    for lim, transform, marker, key in (
            (ax.get_xlim(), ax.get_xaxis_transform(), TICKDOWN, "xtick"),
            (ax.get_ylim(), ax.get_yaxis_transform(), TICKLEFT, "ytick")):
        lo, hi = math.floor(math.log10(lim[0])), math.ceil(math.log10(lim[1]))
        ticks = [v for e in range(lo, hi) for v in (2 * 10.0**e, 5 * 10.0**e)
                 if lim[0] < v < lim[1]]
        at = [0.0] * len(ticks)
        xy = (ticks, at) if key == "xtick" else (at, ticks)
        ax.plot(*xy, transform=transform, ls="", marker=marker, clip_on=False,
                ms=rcParams[f"{key}.minor.size"], mew=rcParams[f"{key}.minor.width"],
                color=rcParams[f"{key}.color"], zorder=2.5, gid=f"minor-ticks:{key[0]}")


def compute_label_groups(preset: Preset, compute_keys: Sequence[str]) -> dict[float, list[str]]:
    """Compute-roof labels, PNG and HTML alike: roofs within 10 % of each other share one.

    Returns:
        Peak (FLOP/s of the lowest roof of the group) → roof keys, lowest peak first.
    """
    by_peak: dict[float, list[str]] = {}
    for ckey in sorted(compute_keys, key=preset.compute.get):
        peak = preset.compute[ckey]
        near = next((p for p in by_peak if abs(p - peak) <= 0.1 * p), peak)
        by_peak.setdefault(near, []).append(ckey)
    return by_peak


def draw_roofs(ax, preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str],
               limits: Limits, scale: float, unit: str) -> None:
    """Compute roofs (keys of ``preset.compute``) × memory roofs, labels and the ridge point.

    The preset's default pair is drawn bold; other combinations thin and dashed.
    """
    x = np.geomspace(limits.xmin, limits.xmax, 512)
    compute_keys = list(dict.fromkeys([preset.default_compute, *compute_keys]))
    memory_keys = list(dict.fromkeys([preset.default_memory, *memory_keys]))
    for i, mkey in enumerate(memory_keys):
        bw = preset.memory[mkey]
        for j, ckey in enumerate(compute_keys):
            y = np.minimum(preset.compute[ckey], x * bw) / scale
            main = i == 0 and j == 0
            ax.plot(x, y, color="black" if main else "0.45", lw=2.0 if main else 1.0,
                    ls="-" if main else "--", zorder=2, gid=f"roof:{ckey}:{mkey}")
        # Memory-roof label along its slope, in the lower-left part of the plot.
        x0 = limits.xmin * 3
        y0 = x0 * bw / scale
        if y0 < preset.peak_flop_per_s / scale:
            p1 = ax.transData.transform((x0, y0))
            p2 = ax.transData.transform((x0 * 10, x0 * 10 * bw / scale))
            angle = math.degrees(math.atan2(p2[1] - p1[1], p2[0] - p1[0]))
            ax.text(x0, y0 * 1.25, f"{mkey}: {fmt(bw / 1e9)} GB/s", rotation=angle,
                    rotation_mode="anchor", fontsize=8, va="bottom")
    for peak, keys in compute_label_groups(preset, compute_keys).items():
        ax.text(limits.xmax / 1.2, peak / scale * 1.08,
                f"{', '.join(keys)}: {fmt(peak / scale)} {unit}", ha="right", va="bottom",
                fontsize=8)
    ridge = preset.ridge_point
    ax.plot([ridge], [preset.peak_flop_per_s / scale], marker="o", ms=7, mfc="white",
            mec="black", zorder=3, gid="ridge")
    ax.annotate(f"ridge point\n{fmt(ridge)} FLOP/byte", (ridge, preset.peak_flop_per_s / scale),
                xytext=(6, -24), textcoords="offset points", fontsize=8)
