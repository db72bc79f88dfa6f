"""The roofs on a matplotlib axes: lines, labels, ridge point; minor log ticks.

Which roofs, their labels and the axis limits are :mod:`.core`'s, shared with the pages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rooflow.plotting import core
from rooflow.plotting.core import Limits, roof_labels, roofs
from rooflow.roofs.preset import Preset


def roofline_axes(fig, rect: tuple[float, float, float, float], preset: Preset,
                  frames: Sequence, levels: Sequence[str], precisions: Sequence[str],
                  op: str = "FLOP"):
    """Log-log roofline axes on ``fig`` at ``rect``, with the roofs drawn: one for every plot.

    Args:
        fig: the matplotlib figure.
        rect: the axes' (left, bottom, width, height) in figure fractions.
        preset: the device whose roofs are drawn.
        frames: tables with ``arithmetic_intensity`` (FLOP/byte) and ``performance``
            (FLOP/s) columns; the axis limits hold all of them and the roofs.
        levels: the memory levels whose roofs are drawn (:func:`.core.roof_keys`).
        precisions: the precisions (or compute-roof keys) whose compute roofs are drawn.
        op: "FLOP" or "OP", the unit of the y axis.

    Returns:
        ``(ax, limits, scale, unit)``: performance is drawn divided by ``scale``, in
        ``unit`` (TFLOP/s, ...). Decades are labelled as plain text (10²), since figures
        are built with math text off (:func:`.roofline.plain_text`).
    """
    from matplotlib.ticker import FuncFormatter

    limits = core.axis_limits(preset, list(frames))
    scale, unit = core.perf_unit(limits, op)
    xlabel, ylabel = core.axis_titles(op, unit)
    ax = fig.add_axes(rect)
    ax.set(xscale="log", yscale="log", xlim=(limits.xmin, limits.xmax),
           ylim=(limits.ymin / scale, limits.ymax / scale), xlabel=xlabel, ylabel=ylabel)
    ax.grid(True, which="major", ls=":", lw=0.6, color="0.8")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(core.decade_label))
    draw_minor_ticks(ax)
    draw_roofs(ax, preset, *core.roof_keys(preset, levels, precisions), limits, scale, unit)
    return ax, limits, scale, unit


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
    # (size, width, colour) of each axis' minor ticks; rcParams keys spelt out for mypy.
    x_style = rcParams["xtick.minor.size"], rcParams["xtick.minor.width"], rcParams["xtick.color"]
    y_style = rcParams["ytick.minor.size"], rcParams["ytick.minor.width"], rcParams["ytick.color"]
    for lim, transform, marker, key, (size, width, color) in (
            (ax.get_xlim(), ax.get_xaxis_transform(), TICKDOWN, "xtick", x_style),
            (ax.get_ylim(), ax.get_yaxis_transform(), TICKLEFT, "ytick", y_style)):
        lo, hi = math.floor(math.log10(lim[0])), math.ceil(math.log10(lim[1]))
        ticks = [v for e in range(lo, hi) for v in (2 * 10.0**e, 5 * 10.0**e)
                 if lim[0] < v < lim[1]]
        at = [0.0] * len(ticks)
        xy = (ticks, at) if key == "xtick" else (at, ticks)
        ax.plot(*xy, transform=transform, ls="", marker=marker, clip_on=False,
                ms=size, mew=width, color=color, zorder=2.5, gid=f"minor-ticks:{key[0]}")


def draw_roofs(ax, preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str],
               limits: Limits, scale: float, unit: str) -> None:
    """The roofs of :func:`.core.roof_keys`, their labels and the ridge point.

    The preset's default pair is drawn bold; other combinations thin and dashed.
    ``scale``, ``unit``: :func:`.core.perf_unit`.
    """
    x = np.geomspace(limits.xmin, limits.xmax, 512)
    for roof in roofs(preset, compute_keys, memory_keys):
        ax.plot(x, np.minimum(roof.peak, x * roof.bandwidth) / scale,
                color="black" if roof.main else "0.45", lw=2.0 if roof.main else 1.0,
                ls="-" if roof.main else "--", zorder=2, gid=f"roof:{roof.compute}:{roof.memory}")
    for label in roof_labels(preset, compute_keys, memory_keys, limits, scale, unit):
        if label.kind == "memory":  # along the roof's slope: one decade up per decade right
            p1 = ax.transData.transform((label.x, label.y))
            p2 = ax.transData.transform((label.x * 10, label.y * 10))
            angle = math.degrees(math.atan2(p2[1] - p1[1], p2[0] - p1[0]))
            ax.text(label.x, label.y, label.text, rotation=angle, rotation_mode="anchor",
                    fontsize=8, va="bottom")
        elif label.kind == "compute":
            ax.text(label.x, label.y, label.text, ha="right", va="bottom", fontsize=8)
        else:
            ax.plot([label.x], [label.y], marker="o", ms=7, mfc="white", mec="black",
                    zorder=3, gid="ridge")
            ax.annotate(label.text, (label.x, label.y), xytext=(6, -24),
                        textcoords="offset points", fontsize=8)
