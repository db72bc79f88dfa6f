"""Density rendering: many points as one 2-D histogram image per group on log-log axes.

Bins are uniform in log10(x) and log10(y) over the axis limits (so each cell is the
same size on screen); counts come from ``np.bincount`` of computed cell indices
(``np.histogram2d`` bisects the edges, which is slower), every group in one
pass over the rows, :data:`CHUNK` rows at a time so the temporaries stay small
on 10⁷ points. Each group is drawn with ``pcolormesh`` (a single QuadMesh), empty cells
transparent.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.colors import LinearSegmentedColormap, LogNorm, to_rgb

BINS = (240, 160)  # x, y cells: about 4 px per cell on the default canvas
CHUNK = 1 << 18  # rows binned at a time


def use_density(n_points: int, density: bool | None, threshold: int) -> bool:
    """Density rendering: forced by ``density``, else when ``n_points`` > ``threshold``."""
    return density if density is not None else n_points > threshold


def log_counts(x: np.ndarray | pl.Series, y: np.ndarray | pl.Series, xlim: tuple[float, float],
               ylim: tuple[float, float], group: np.ndarray | None = None,
               n_groups: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts of the points (x, y) in :data:`BINS` cells uniform in log10 over the limits.

    Args:
        x: arithmetic intensities (or any positive x), one per point: a numpy array, or
            a polars Series (converted a chunk at a time: no copy of 10⁷ rows).
        y: performances, same length, in the unit of ``ylim``.
        xlim: the x axis limits (positive).
        ylim: the y axis limits (positive).
        group: each point's group index in ``0 … n_groups - 1`` (None: one group).
        n_groups: number of groups.

    Returns:
        counts (shape ``(n_groups, *BINS)``, float; ``BINS`` alone when ``group`` is None),
        and the log10 cell edges along x and y. Points that are not finite and positive,
        or outside the limits, are not counted.
    """
    ex = np.linspace(np.log10(xlim[0]), np.log10(xlim[1]), BINS[0] + 1)
    ey = np.linspace(np.log10(ylim[0]), np.log10(ylim[1]), BINS[1] + 1)
    cells = BINS[0] * BINS[1]
    counts = np.zeros(n_groups * cells, dtype=np.int64)
    for start in range(0, len(x), CHUNK):
        part = slice(start, start + CHUNK)
        with np.errstate(divide="ignore", invalid="ignore"):  # x, y ≤ 0 or NaN: dropped
            lx, ly = np.log10(np.asarray(x[part])), np.log10(np.asarray(y[part]))
            ok = (lx >= ex[0]) & (lx <= ex[-1]) & (ly >= ey[0]) & (ly <= ey[-1])
        # Cell index by arithmetic; a point on the upper limit is in the last cell.
        ix = np.minimum(((lx[ok] - ex[0]) / (ex[1] - ex[0])).astype(np.int64), BINS[0] - 1)
        iy = np.minimum(((ly[ok] - ey[0]) / (ey[1] - ey[0])).astype(np.int64), BINS[1] - 1)
        index = ix * BINS[1] + iy
        if group is not None:
            index += group[part][ok].astype(np.int64) * cells
        counts += np.bincount(index, minlength=counts.size)
    shape = BINS if group is None else (n_groups, *BINS)
    return counts.reshape(shape).astype(float), ex, ey


def draw_density(ax, counts: np.ndarray, ex: np.ndarray, ey: np.ndarray, color, *,
                 gid: str | None = None, max_alpha: float = 1.0) -> tuple[int, int]:
    """One histogram image of ``counts`` (:func:`log_counts` cells) in ``color``.

    Alpha grows with log count; ``max_alpha`` < 1 lets images of several groups show
    through each other.

    Returns:
        The number of points in the image and the most in one cell (its darkest shade).
    """
    if not counts.any():
        return 0, 0
    rgb = to_rgb(color)
    cmap = LinearSegmentedColormap.from_list(
        "density", [(*rgb, 0.25 * max_alpha), (*rgb, max_alpha)]).with_extremes(bad=(0, 0, 0, 0))
    masked = np.ma.masked_equal(counts.T, 0)
    ax.pcolormesh(10**ex, 10**ey, masked, cmap=cmap,
                  norm=LogNorm(vmin=1, vmax=max(counts.max(), 2)), shading="flat", zorder=3,
                  rasterized=True, gid=gid)
    return int(counts.sum()), int(counts.max())
