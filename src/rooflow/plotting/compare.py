"""The comparison plot (PNG/SVG/PDF): an arrow per matched kernel from baseline to new.

Past :data:`ARROWS` kernels, the least changed are drawn as plain segments.

Axes are :func:`.core.axis_limits` of both runs, so both points sit on one frame fixed
by the roofs (the same roofs as the roofline plots and the comparison page). Arrow colour
(:data:`.core.SPEEDUP_COLORS`, as on the page): green faster (speedup ≥ 1), red slower,
grey without a speedup (theoretical). Rows of one run only are grey (hollow: baseline
only; filled: new only).

Columns in: a :class:`rooflow.compare.Comparison` table.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.lines import Line2D

from rooflow.compare import ONLY_BASELINE, ONLY_NEW, Comparison, only_label
from rooflow.io import atomic_path
from rooflow.plotting import core
from rooflow.plotting.labels import place_labels, short_names
from rooflow.plotting.markers import apart
from rooflow.plotting.roofline import new_figure, plain_text, save
from rooflow.plotting.roofs import roofline_axes, settle_labels
from rooflow.roofs.preset import Preset
from rooflow.style import SPEEDUP_LEGEND

AXES_RECT = (0.1, 0.1, 0.59, 0.82)  # the legend and notes take the right-hand side

LABELS = 12  # matched kernels named on the plot: the largest |ln speedup|
ARROWS = 500  # matched kernels drawn with an arrow head, the largest |ln speedup| first
GREY = "0.7"  # rows of one run only


def plot_comparison(comp: Comparison, preset: Preset, out: str | Path, *, title: str,
                    dpi: int = 150, xlim: tuple[float, float] | None = None,
                    ylim: tuple[float, float] | None = None) -> Path:
    """Write the comparison plot of ``comp`` on ``preset`` to ``out`` (format by suffix).

    Both runs share one axes, fitted to both (or ``xlim`` FLOP/byte, ``ylim`` FLOP/s, as
    ``plot``'s). Names are drawn as written, never as math text
    (:func:`.roofline.plain_text`).
    """
    with plain_text():
        return _plot_comparison(comp, preset, out, title=title, dpi=dpi, limits=(xlim, ylim))


def _plot_comparison(comp: Comparison, preset: Preset, out: str | Path, *, title: str,
                     dpi: int, limits: tuple) -> Path:
    t = comp.table
    base, new = core.side(t, "_baseline"), core.side(t, "_new")
    levels = pl.concat([base["level"], new["level"]]).unique(maintain_order=True).to_list()
    precisions = pl.concat([base["precision"], new["precision"]]).unique(
        maintain_order=True).to_list()
    fig = new_figure(dpi)
    ax, _, scale, unit = roofline_axes(fig, AXES_RECT, preset, [base, new], levels,
                                       precisions, fixed=limits)
    drawn = t.drop_nulls(["arithmetic_intensity_baseline", "performance_baseline",
                          "arithmetic_intensity_new", "performance_new"])
    # Most changed first: those get an arrow each; past ARROWS, a plain segment (an arrow
    # is one patch and one layout per kernel, which a run of 10⁶ kernels cannot afford).
    drawn = drawn.with_columns(_d=pl.col("speedup").log().abs().fill_nan(0).fill_null(0)).sort(
        "_d", descending=True)
    drawn = drawn.with_columns(_group=core.speedup_group(pl.col("speedup")))
    for key, color in core.SPEEDUP_COLORS.items():
        rows = drawn.filter(pl.col("_group") == key)
        x0, x1 = rows["arithmetic_intensity_baseline"], rows["arithmetic_intensity_new"]
        y0 = rows["performance_baseline"].to_numpy() / scale
        y1 = rows["performance_new"].to_numpy() / scale
        ax.plot(*apart(x0, y0), ls="", marker="o", ms=6, mfc="none", mec=color, zorder=4)
        ax.plot(*apart(x1, y1), ls="", marker="o", ms=6, color=color, mec="black", mew=0.4,
                zorder=4)
    for i, r in enumerate(drawn.iter_rows(named=True)):
        if i == ARROWS:
            break
        ax.annotate("", (r["arithmetic_intensity_new"], r["performance_new"] / scale),
                    (r["arithmetic_intensity_baseline"], r["performance_baseline"] / scale),
                    arrowprops={"arrowstyle": "-|>", "color": core.SPEEDUP_COLORS[r["_group"]],
                                "lw": 1.0, "shrinkA": 3, "shrinkB": 3}, zorder=3)
    rest = drawn.slice(ARROWS)
    if rest.height:
        from matplotlib.collections import LineCollection

        segments = np.stack([
            np.column_stack([rest["arithmetic_intensity_baseline"],
                             rest["performance_baseline"].to_numpy() / scale]),
            np.column_stack([rest["arithmetic_intensity_new"],
                             rest["performance_new"].to_numpy() / scale])], axis=1)
        ax.add_collection(LineCollection(
            list(segments), colors=[core.SPEEDUP_COLORS[g] for g in rest["_group"]], lw=0.5,
            alpha=0.5, zorder=2), autolim=False)
    only: dict[str, str] = {}  # legend words: how many, and how many the plot shows
    for status, hollow, total in ((ONLY_BASELINE, True, comp.only_baseline),
                                  (ONLY_NEW, False, comp.only_new)):
        s = "_baseline" if hollow else "_new"
        rows = core.side(t.filter(pl.col("status") == status), s)  # those with a place
        ax.plot(*apart(rows["arithmetic_intensity"].to_numpy(),
                       rows["performance"].to_numpy() / scale),
                ls="", marker="s", ms=6, mfc="none" if hollow else GREY, mec=GREY, zorder=4)
        only[status] = only_label(status, total, rows.height)
    ranked = drawn.filter(pl.col("speedup") > 0).head(LABELS)
    crowded = 0
    if ranked.height:
        names = short_names(ranked["name"], 30)
        crowded = place_labels(
            ax, ranked["arithmetic_intensity_new"].to_numpy(),
            ranked["performance_new"].to_numpy() / scale,
            [f"{n} {s:.2f}×" for n, s in zip(names, ranked["speedup"], strict=True)])
    handles = [
        Line2D([], [], ls="", marker="o", mfc="none", mec="0.3", label="baseline"),
        Line2D([], [], ls="", marker="o", color="0.3", label="new"),
        *(Line2D([], [], color=core.SPEEDUP_COLORS[g], label=SPEEDUP_LEGEND[g])
          for g in ("faster or same", "slower")),
        Line2D([], [], ls="", marker="s", mfc="none", mec=GREY,
                   label=only[ONLY_BASELINE]),
        Line2D([], [], ls="", marker="s", color=GREY, label=only[ONLY_NEW]),
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    summary = comp.summary().replace("; ", "\n")
    if crowded:  # the labels of the most changed kernels that found no clear place
        summary += f"\n{crowded} of {ranked.height} labels left out: no clear place"
    ax.text(1.02, 0.55, summary, transform=ax.transAxes, fontsize=7.5, va="top")
    ax.set_title(title, fontsize=11)
    settle_labels(ax)
    out = Path(out)
    with atomic_path(out) as tmp:
        save(fig, tmp, out.suffix.lstrip(".") or "png", dpi)
    return out
