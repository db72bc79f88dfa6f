"""The roofs on a matplotlib axes: lines, labels, ridge point; minor log ticks.

Which roofs, their labels and the axis limits are :mod:`.core`'s, shared with the pages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rooflow.plotting.core import Limits, roof_labels, roofs
from rooflow.roofs.preset import Preset


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
