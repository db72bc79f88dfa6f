"""The projection plot (PNG/SVG/PDF): the workload on each preset, in a grid.

One roofline panel per preset, in the ranking's order by rows (one column for one
preset, two up to four, three past), every panel on identical axes (the union of
:func:`.core.axis_limits` of every preset and point): a kernel sits at its
arithmetic intensity and its projected performance there (FLOP / projected time, filled),
or, without a measured time, at its roofline bound (hollow). Kernels are coloured alike
in every panel; bandwidth-only kernels (no FLOP) and kernels without a roof on a preset
are not drawn there, and the panel's title counts them.

Columns in: a :class:`rooflow.project.Projection`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl
from matplotlib.lines import Line2D

from rooflow.escape import short_names
from rooflow.io import atomic_path
from rooflow.plotting import core
from rooflow.plotting.roofline import new_figure, plain_text, save
from rooflow.plotting.roofs import roofline_axes, settle_labels
from rooflow.project import PROJECTED, Projection, display_name
from rooflow.roofs.preset import Preset

KERNELS = 12  # kernels coloured and named, the longest measured first; the rest grey
KEY_CHARS = 40  # a kernel's name in the key: cut in the middle past this (escape.short_names)
# Inches: left of the first column (y label, ticks), a panel's width, between columns
# (their tick labels), the key's width (KEY_CHARS at 7 pt and its marker); a panel's
# height, between rows (x ticks and label, the next title), above the grid (the title,
# the first panels' titles) and below it (x ticks and label).
LEFT_IN, PANEL_IN, GAP_IN, KEY_IN = 0.8, 5.0, 0.75, 2.9
PANEL_H_IN, VGAP_IN, TOP_IN, BOTTOM_IN = 3.4, 1.0, 0.75, 0.65


def drawn(result: Projection) -> pl.DataFrame:
    """The points drawn: preset, arithmetic_intensity, name, performance, projected."""
    k = result.kernels.filter((pl.col("status") == PROJECTED) & (pl.col("flop") > 0))
    time = pl.coalesce("projected_time_s", "roofline_time_s")
    return k.select("preset", "arithmetic_intensity", name=display_name(),
                    performance=pl.col("flop") / time,
                    projected=pl.col("projected_time_s").is_not_null())


def plot_projection(result: Projection, presets: Mapping[str, Preset], out: str | Path, *,
                    dpi: int = 150) -> Path:
    """Write the side-by-side projection plot of ``result`` to ``out``."""
    with plain_text():
        fig = figure(result, presets, dpi)
        out = Path(out)
        with atomic_path(out) as tmp:
            save(fig, tmp, out.suffix.lstrip(".") or "png", dpi)
    return out


def figure(result: Projection, presets: Mapping[str, Preset], dpi: int = 150):
    """The figure of :func:`plot_projection`, not saved: one axes per preset, ranked."""
    points = drawn(result)
    order = result.totals["preset"].to_list()
    # Identical axes: a frame of the corners of every preset's own window, halved and
    # doubled back by axis_limits (its margin) onto the same decades.
    windows = [core.axis_limits(presets[p], [points.filter(preset=p)]) for p in order]
    corners = pl.DataFrame({
        "arithmetic_intensity": [min(w.xmin for w in windows) * 2.0001,
                                 max(w.xmax for w in windows) / 2.0001],
        "performance": [min(w.ymin for w in windows) * 2.0001,
                        max(w.ymax for w in windows) / 2.0001]})
    names = (result.kernels.filter(preset=result.measured_on)
             .sort("measured_time_s", descending=True, nulls_last=True)
             .with_columns(name=display_name())
             ["name"].unique(maintain_order=True).to_list())
    colors = dict(zip(names[:KERNELS], core.palette(min(len(names), KERNELS)), strict=True))
    fig = new_figure(dpi)
    # Laid out in inches: a grid of panels of one size, in rank order by rows, the
    # kernels' key right of the grid.
    cols = 1 if len(order) == 1 else 2 if len(order) <= 4 else 3
    rows_n = -(-len(order) // cols)
    key_left = LEFT_IN + cols * PANEL_IN + (cols - 1) * GAP_IN + 0.2
    width = key_left + KEY_IN
    height = TOP_IN + rows_n * PANEL_H_IN + (rows_n - 1) * VGAP_IN + BOTTOM_IN
    fig.set_size_inches(width, height)
    precisions = result.kernels["precision"].drop_nulls().unique(maintain_order=True).to_list()
    for i, key in enumerate(order):
        row, col = divmod(i, cols)
        bottom = BOTTOM_IN + (rows_n - 1 - row) * (PANEL_H_IN + VGAP_IN)
        rect = ((LEFT_IN + col * (PANEL_IN + GAP_IN)) / width, bottom / height,
                PANEL_IN / width, PANEL_H_IN / height)
        ax, _, scale, _ = roofline_axes(fig, rect, presets[key], [corners], ["DRAM"],
                                        precisions)
        rows = points.filter(preset=key)
        for r in rows.iter_rows(named=True):
            color = colors.get(r["name"], "0.6")
            ax.plot(r["arithmetic_intensity"], r["performance"] / scale, ls="", marker="o",
                    ms=7, color=color, mfc=color if r["projected"] else "none", mec=color,
                    zorder=5)
        total = result.totals.filter(preset=key).row(0, named=True)
        proj = total["projected_time_s"]
        apart = f", {total['not_projected']} not projected" if total["not_projected"] else ""
        ax.set_title(f"{total['rank']}. {key}: "
                     + (f"{proj * 1e3:.4g} ms" if proj is not None else "no projected time")
                     + apart, fontsize=9)
        if col:
            ax.set_ylabel("")
        settle_labels(ax)  # the roof and ridge labels clear of the kernels and each other
    shown = short_names(pl.Series(list(colors), dtype=pl.String), KEY_CHARS).to_list()
    handles = [Line2D([], [], ls="", marker="o", color=c, label=n)
               for n, c in zip(shown, colors.values(), strict=True)]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(key_left / width, 0.5),
               fontsize=7, frameon=False)
    fig.suptitle(f"Workload projected from {result.measured_on} (filled: at its measured "
                 "% of roof; hollow: roofline bound)", fontsize=10)
    return fig
