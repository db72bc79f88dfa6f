"""The model-vs-measurement plot (PNG/SVG/PDF): an arrow per kernel and level, model → measured.

Each mapped kernel's model point is hollow (its compulsory-traffic intensity; a model
without a time sits on its roof), its measured points filled, one per memory level and
coloured by level; an arrow joins the model point to each, and each measured point is
labelled with its excess traffic. Kernels are told apart by marker shape and numbered
(K1, K2, ...), named with their model in the legend. Axes: :func:`.core.axis_limits` of both.

Columns in: :data:`rooflow.model_vs_measured.COLUMNS`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.lines import Line2D

from rooflow.escape import short_name
from rooflow.io import atomic_path
from rooflow.model_vs_measured import summary
from rooflow.plotting import core
from rooflow.plotting.compare import AXES_RECT
from rooflow.plotting.layout import place_point_texts
from rooflow.plotting.roofline import new_figure, plain_text, save
from rooflow.plotting.roofs import roofline_axes, settle_labels
from rooflow.roofs.preset import Preset, per_instruction_key

KERNELS = 10  # kernels drawn (each its marker shape); the others are counted in the note


def plot_model_vs_measured(table: pl.DataFrame, preset: Preset, out: str | Path, *,
                           title: str, dpi: int = 150) -> Path:
    """Write the model-vs-measurement plot of ``table`` on ``preset`` to ``out``.

    Names are drawn as written, never as math text (:func:`.roofline.plain_text`).
    """
    with plain_text():
        return _plot(table, preset, out, title=title, dpi=dpi)


def _plot(table: pl.DataFrame, preset: Preset, out: str | Path, *, title: str,
          dpi: int) -> Path:
    model = table.select(arithmetic_intensity="model_intensity",
                         performance="model_performance")
    meas = table.select(arithmetic_intensity="measured_intensity",
                        performance="measured_performance")
    levels = table["level"].unique(maintain_order=True).to_list()
    precisions = table["precision"].unique(maintain_order=True).to_list()
    # Measured points meet a precision's per-instruction roof where the preset has one
    # (AMD fp32), model points its datasheet roof: both are drawn.
    roofs = precisions + [per_instruction_key(p) for p in precisions]
    fig = new_figure(dpi)
    ax, limits, scale, unit = roofline_axes(fig, AXES_RECT, preset, [model, meas],
                                            ["DRAM", *levels], roofs)
    level_color = dict(zip(levels, core.palette(len(levels)), strict=True))
    kernels = table["kernel"].unique(maintain_order=True).to_list()
    handles = []
    # Labels (text, x, y) placed by the layout pass once every marker is drawn.
    names: list[tuple[str, float, float]] = []
    excess: list[tuple[str, float, float]] = []
    for i, kernel in enumerate(kernels[:KERNELS]):
        rows = table.filter(pl.col("kernel") == kernel)
        marker = core.series_marker(i).mpl
        first = rows.row(0, named=True)
        xy0 = (first["model_intensity"], (first["model_performance"] or 0) / scale)
        if first["model_performance"]:
            ax.plot(*xy0, ls="", marker=marker, ms=9, mfc="none", mec="black", mew=1.4,
                    zorder=5)
            names.append((f"K{i + 1}", *xy0))
        for r in rows.iter_rows(named=True):
            if not (r["measured_intensity"] and r["measured_performance"]):
                continue
            xy1 = (r["measured_intensity"], r["measured_performance"] / scale)
            color = level_color[r["level"]]
            ax.plot(*xy1, ls="", marker=marker, ms=8, color=color, mec="black", mew=0.5,
                    zorder=5)
            if first["model_performance"]:
                arrow = ax.annotate("", xy1, xy0, arrowprops={
                    "arrowstyle": "-|>", "color": color, "lw": 1.2, "shrinkA": 5,
                    "shrinkB": 5}, zorder=4)
                if arrow.arrow_patch is not None:  # named, to be found in an SVG
                    arrow.arrow_patch.set_gid(f"arrow:{i}:{r['level']}")
            if r["excess_traffic"] is not None:
                excess.append((f"K{i + 1} {r['level']} {r['excess_traffic']:.3g}×", *xy1))
        handles.append(Line2D([], [], ls="", marker=marker, mfc="none", mec="black",
                              label=f"K{i + 1} {short_name(kernel, 34)}\n"
                                    f"    model: {short_name(first['model'], 34)}"))
    handles += [Line2D([], [], ls="", marker="o", mfc="none", mec="black",
                       label="model (compulsory bytes)")]
    handles += [Line2D([], [], ls="", marker="o", color=level_color[lv], mec="black",
                       mew=0.5, label=f"measured, {lv}") for lv in levels]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    note = summary(table)
    if len(kernels) > KERNELS:
        note += f" {len(kernels) - KERNELS} more kernels in the table, not drawn."
    ax.text(1.02, 0.02, _wrap(note), transform=ax.transAxes, fontsize=7.5, va="bottom")
    ax.set_title(title, fontsize=11)
    settle_labels(ax, final=False)  # the roof and ridge labels first: few places to go
    for labels, size, color in ((names, 7.5, "black"), (excess, 6.5, "0.25")):
        if labels:
            text, x, y = zip(*labels, strict=True)
            place_point_texts(ax, np.array(x), np.array(y), list(text), fontsize=size,
                              gid="model-label", color=color)
    settle_labels(ax)
    out = Path(out)
    with atomic_path(out) as tmp:
        save(fig, tmp, out.suffix.lstrip(".") or "png", dpi)
    return out


def _wrap(text: str, width: int = 44) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))
