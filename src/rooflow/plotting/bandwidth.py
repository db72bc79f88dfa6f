"""Side panel for bandwidth-only rows (copies, memsets: bytes and time, no operations).

They have no arithmetic intensity, so they cannot sit on the roofline; the panel shows
each row's achieved bandwidth (bytes / time_s, byte/s) against the memory roof of its
level, one line per level.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl
from matplotlib.ticker import FuncFormatter, NullFormatter

from rooflow.plotting.core import decade_label, fmt
from rooflow.plotting.markers import apart
from rooflow.style import BANDWIDTH_AXIS, BANDWIDTH_COLOR, bandwidth_title

PANEL_RECT = (0.835, 0.08, 0.155, 0.22)
PANEL_TITLE_ROOM = 0.04
"""Figure fraction above :data:`PANEL_RECT` that the panel's title takes."""


def key_floor(fig) -> float:
    """Where a key right of the axes must end, in figure fraction.

    The top of the bandwidth-only panel's title where the panel is drawn, else the
    canvas's bottom edge.
    """
    return max((a.get_position().y1 + PANEL_TITLE_ROOM for a in fig.axes
                if a.get_gid() == "bandwidth-only"), default=0.0)


def bandwidth_only_rows(table: pl.DataFrame) -> pl.Series:
    """Boolean mask of bandwidth-only rows (``bandwidth_only`` column, else AI null, bytes > 0)."""
    if "bandwidth_only" in table.columns:
        return table["bandwidth_only"].fill_null(False)
    return table.select(pl.col("arithmetic_intensity").is_null()
                        & (pl.col("bytes").fill_null(0) > 0)).to_series()


def draw_bandwidth_panel(fig, rows: pl.DataFrame, levels: Sequence[str]) -> None:
    """Achieved GB/s (dots) vs the memory roof (bar) per level, in an axes of its own."""
    achieved = (pl.col("achieved_bandwidth") if "achieved_bandwidth" in rows.columns
                else pl.col("bytes") / pl.col("time_s"))
    rows = rows.select("level", "memory_roof", gbs=achieved / 1e9).filter(
        pl.col("gbs") > 0)
    ax = fig.add_axes(PANEL_RECT, gid="bandwidth-only")
    ax.set_title(bandwidth_title(rows.height), fontsize=7, loc="left")
    levels = [lv for lv in levels if lv in set(rows["level"].to_list())]
    code = rows["level"].replace_strict(levels, list(range(len(levels))),
                                        return_dtype=pl.Int64).to_numpy()
    ax.plot(*apart(rows["gbs"].to_numpy(), code), ls="", marker="o", ms=4, color=BANDWIDTH_COLOR,
            alpha=0.6, gid="achieved")
    roofs = rows.group_by("level").agg(pl.col("memory_roof").first() / 1e9)
    roof = dict(zip(roofs["level"], roofs["memory_roof"], strict=True))
    for i, lv in enumerate(levels):
        if roof.get(lv):
            ax.plot([roof[lv]] * 2, [i - 0.35, i + 0.35], color="black", lw=2, gid=f"roof:{lv}")
            # Left of the bar's top, clear of the 2-pt bar (a text on its end read as crossed).
            ax.annotate(fmt(roof[lv]), (roof[lv], i + 0.35), xytext=(-2, 1.5),
                        textcoords="offset points", fontsize=5, ha="right", va="bottom")
    ax.set_xscale("log")
    # Whole decades, so at least two are labelled: matplotlib labels minor ticks (as math
    # text, and figures are built with math text off) when a panel spans less than one.
    values = [v for v in (*rows["gbs"].to_list(), *roof.values()) if v]
    ax.set_xlim(10.0 ** math.floor(math.log10(min(values))),
                10.0 ** math.ceil(math.log10(max(values)) + 1e-9))
    ax.xaxis.set_major_formatter(FuncFormatter(decade_label))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(np.arange(len(levels)), levels, fontsize=6)
    ax.set_ylim(-0.6, len(levels) - 0.3)
    ax.tick_params(axis="x", labelsize=6)
    ax.set_xlabel(BANDWIDTH_AXIS, fontsize=6)
