"""Density rendering: many points as one 2-D histogram image per group on log-log axes.

Bins are uniform in log10(x) and log10(y) over the axis limits (so each cell is the
same size on screen); counts come from one ``np.histogram2d`` per group and are drawn
with ``pcolormesh`` (a single QuadMesh), empty cells transparent.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import LinearSegmentedColormap, LogNorm

BINS = (240, 160)  # x, y cells: about 4 px per cell on the default canvas


def use_density(n_points: int, density: bool | None, threshold: int) -> bool:
    """Density rendering: forced by ``density``, else when ``n_points`` > ``threshold``."""
    return density if density is not None else n_points > threshold


def draw_density(ax, x: np.ndarray, y: np.ndarray, color, xlim: tuple[float, float],
                 ylim: tuple[float, float], *, gid: str | None = None) -> int:
    """One histogram image of the points (x, y) in ``color``, alpha growing with log count.

    Returns:
        The number of points binned (all finite positive points inside the limits).
    """
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    lx, ly = np.log10(x[ok]), np.log10(y[ok])
    ex = np.linspace(np.log10(xlim[0]), np.log10(xlim[1]), BINS[0] + 1)
    ey = np.linspace(np.log10(ylim[0]), np.log10(ylim[1]), BINS[1] + 1)
    counts, _, _ = np.histogram2d(lx, ly, bins=(ex, ey))
    if not counts.any():
        return 0
    cmap = LinearSegmentedColormap.from_list(
        "density", [(*color[:3], 0.25), (*color[:3], 1.0)]).with_extremes(bad=(0, 0, 0, 0))
    masked = np.ma.masked_equal(counts.T, 0)
    ax.pcolormesh(10**ex, 10**ey, masked, cmap=cmap,
                  norm=LogNorm(vmin=1, vmax=max(counts.max(), 2)), shading="flat", zorder=3,
                  rasterized=True, gid=gid)
    return int(counts.sum())
