"""Roofline plots (matplotlib, log-log) from analysis tables.

Single-level data: series → marker shape, family (or another column) → colour; filled
markers are measured points, hollow ones theoretical (drawn on the roof). Hierarchical
data (several memory levels): one memory roof per level, one compute roof per
precision; each kernel one colour, marker by level, its dots joined by a faint line.

More points than ``PlotOptions.density_threshold`` (or ``density=True``): each series
(level) becomes a 2-D histogram image (:mod:`.density`) with its exact count in the
legend; the top-N points by headroom and every above-roof point stay markers.

Points above the roof are drawn as red-edged X (and counted on the plot), never
clipped. Bandwidth-only rows (no operations) go to a side panel (:mod:`.bandwidth`).
Integer-OP rows (``unit`` "OP") sharing a plot with FLOP rows are drawn as a separate
diamond group and said so in a note; a plot of OP rows only is labelled OP/s.

Table columns read: :func:`drawn_columns` (and ``color_by``); the optional ones are used
when present.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

# adjustText (labels) imports pyplot: its backend must not be a GUI one on a desktop.
matplotlib.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from rooflow.defaults import plot_defaults  # noqa: E402
from rooflow.io import atomic_path  # noqa: E402
from rooflow.levels import LEVELS  # noqa: E402
from rooflow.levels import marker as level_marker  # noqa: E402
from rooflow.plotting import markers as mk  # noqa: E402
from rooflow.plotting.bandwidth import bandwidth_only_rows, draw_bandwidth_panel  # noqa: E402
from rooflow.plotting.density import CHUNK, draw_density, log_counts, use_density  # noqa: E402
from rooflow.plotting.labels import AUTO_LABEL_MAX, label_points, notes  # noqa: E402
from rooflow.plotting.roofs import (  # noqa: E402
    Limits,
    axis_limits,
    decade_label,
    draw_minor_ticks,
    draw_roofs,
    perf_unit,
)
from rooflow.points import PRECISIONS  # noqa: E402
from rooflow.roofs.preset import Preset  # noqa: E402

__all__ = ["Limits", "PlotOptions", "axis_limits", "plot_roofline"]

AXES_RECT = (0.07, 0.09, 0.745, 0.84)  # fixed, so roof-label angles are exact
LEGEND_X = 1.01  # legends and key start just right of the axes
_D = plot_defaults()


@dataclass(frozen=True)
class PlotOptions:
    """Per-dataset plot options; defaults are the config schema's ``plot_defaults``.

    ``annotate`` None: label the points when there are at most 20 and no ``key``. ``density`` None:
    density rendering above ``density_threshold`` points; True/False force it.
    ``color_by`` is the column that picks colours (``family``; ``dataset`` on overviews).
    """

    connect: bool = _D["connect"]
    annotate: bool | None = _D["annotate"]
    key: bool = _D["key"]
    series_order: Sequence[str] = tuple(_D["series_order"])
    dpi: int = _D["dpi"]
    title: str | None = _D["title"]
    formats: Sequence[str] = tuple(_D["formats"])
    top_n: int = _D["top_n"]
    density: bool | None = _D["density"]
    density_threshold: int = _D["density_threshold"]
    color_by: str = "family"


DRAWN_COLUMNS = [
    "series", "family", "label", "pair", "kernel", "level", "precision", "unit",
    "arithmetic_intensity", "performance", "theoretical", "bandwidth_only",
    "compute_roof_name", "memory_roof_name", "headroom", "above_roof", "roof_note",
]  # fmt: skip
BANDWIDTH_COLUMNS = ["bytes", "time_s", "memory_roof", "achieved_bandwidth"]
"""Read by the bandwidth-only panel alone."""


def drawn_columns(points: pl.DataFrame) -> list[str]:
    """The analysis columns :func:`figure` reads for ``points`` (canonical points).

    Per-kernel columns (``rooflow.analysis.KERNEL_COLUMNS``) only for hierarchical data,
    where they colour and list the kernels: on one level they would cost windows over
    every point and draw nothing. The bandwidth panel's columns only when there are
    bandwidth-only rows (``flop`` = 0): each is a full-length column.
    """
    from rooflow.analysis import KERNEL_COLUMNS

    hierarchical = points["level"].n_unique() > 1
    bandwidth = bool((points["flop"] == 0).any())
    return (DRAWN_COLUMNS + (BANDWIDTH_COLUMNS if bandwidth else [])
            + (KERNEL_COLUMNS if hierarchical else []))


def _top(table: pl.DataFrame, n: int) -> tuple[pl.DataFrame, int]:
    """The ``n`` points with most headroom (ties: file order) and how many were left out.

    O(rows) and chunked: each chunk's own top ``n`` are candidates (a point of the overall
    top ``n`` is in its chunk's top ``n`` under the same order), then the candidates'.
    ``top_k`` on (headroom, row index) sorts the whole table.
    """
    if table.height <= n:
        return table, 0
    headroom = table["headroom"]
    chunks = [start + _top_indices(_ranked(headroom.slice(start, CHUNK)), n)
              for start in range(0, table.height, CHUNK)]
    candidates = np.concatenate(chunks)
    best = candidates[_top_indices(_ranked(headroom.gather(candidates)), n)]
    return table[best], table.height - n


def _ranked(headroom: pl.Series) -> np.ndarray:
    """Headroom as numbers to rank: null and NaN last (-inf)."""
    return headroom.fill_nan(None).fill_null(-np.inf).to_numpy()


def _top_indices(values: np.ndarray, n: int) -> np.ndarray:
    """Indices (ascending) of the ``n`` largest ``values``, ties broken by lower index."""
    if values.size <= n:
        return np.arange(values.size)
    kth = np.partition(values, values.size - n)[values.size - n]  # n-th largest
    above = np.flatnonzero(values > kth)
    ties = np.flatnonzero(values == kth)[: n - above.size]
    return np.sort(np.concatenate([above, ties]))


def _op_rows(table: pl.DataFrame) -> pl.Series:
    if "unit" in table.columns:
        return (table["unit"] == "OP").fill_null(False)
    ops = [p for p, u in PRECISIONS.items() if u == "OP"]
    return table["precision"].is_in(ops)


def plot_roofline(table: pl.DataFrame, preset: Preset, out: str | Path, *,
                  options: PlotOptions = PlotOptions()) -> list[Path]:
    """Draw one roofline plot of an analysis table; write it in every requested format.

    Args:
        table: :func:`rooflow.analysis.analyze` output (optionally with a ``dataset``
            column, used when ``options.color_by == "dataset"``).
        preset: the roofs to draw.
        out: output path; its suffix is replaced per format.
        options: plot options.

    Returns:
        The files written (atomically: a temporary name renamed into place).
    """
    fig = figure(table, preset, options)
    written = []
    for fmt in options.formats:
        path = Path(out).with_suffix(f".{fmt}")
        # Chunked paths: Agg refuses one path over its cell limit (10⁵+ arrow shafts).
        with atomic_path(path) as tmp, matplotlib.rc_context({"agg.path.chunksize": 20_000}):
            fig.savefig(tmp, dpi=options.dpi, format=fmt, **_save_options(fmt))
        written.append(path)
    return written


def new_figure() -> Figure:
    """An 11 × 6.5 in figure on an Agg canvas, outside pyplot.

    No pyplot: no global figure manager, so a figure needs no closing (chosen for that,
    not for speed: an A/B showed no difference; bench/NOTES.md).
    """
    fig = Figure(figsize=(11, 6.5))
    FigureCanvasAgg(fig)  # a renderer for text extents (adjustText) before saving
    return fig


def _save_options(fmt: str) -> dict:
    """PNG at zlib level 1: quicker to encode than the default, files somewhat larger."""
    return {"pil_kwargs": {"compress_level": 1}} if fmt == "png" else {}


def figure(table: pl.DataFrame, preset: Preset, options: PlotOptions = PlotOptions()):
    """The roofline figure of :func:`plot_roofline`, not saved (tests inspect its artists)."""
    bw_mask = bandwidth_only_rows(table)
    bw_rows = table.filter(bw_mask)
    if bw_rows.height:  # a filter copies every column: only when there is something to drop
        table = table.filter(~bw_mask)
    op = _op_rows(table)
    only_op = table.height > 0 and bool(op.all())
    limits = axis_limits(preset, [table])
    scale, unit = perf_unit(limits, "OP" if only_op else "FLOP")
    fig = new_figure()
    ax = fig.add_axes(AXES_RECT)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(limits.xmin, limits.xmax)
    ax.set_ylim(limits.ymin / scale, limits.ymax / scale)
    per = "OP" if only_op else "FLOP"
    ax.set_xlabel(f"Arithmetic intensity ({per}/byte)")
    ax.set_ylabel(f"Performance ({unit})")
    ax.grid(True, which="major", ls=":", lw=0.6, color="0.8")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(decade_label))
    draw_minor_ticks(ax)
    names = [c for c in ("compute_roof_name", "memory_roof_name") if c in table.columns]
    keys = {c: table[c].drop_nulls().unique(maintain_order=True).to_list() for c in names}
    levels = mk.order(table["level"], list(LEVELS)) if table.height else []
    draw_roofs(ax, preset, [k for k in keys.get("compute_roof_name", []) if k in preset.compute],
               [k for k in keys.get("memory_roof_name", []) if k in preset.memory] if
               len(levels) > 1 else [], limits, scale, unit)
    dense = use_density(table.height, options.density, options.density_threshold)
    mixed_op = op.any() and not only_op
    handles: list = []
    if table.height and len(levels) > 1:
        handles = _draw_hierarchical(ax, table, levels, scale, options, dense, limits)
    elif table.height:
        handles = _draw_points(ax, table.filter(~op) if mixed_op else table, scale, options,
                               dense, limits)
    if mixed_op:
        ops = table.filter(op)
        mk.draw_markers(ax, ops["arithmetic_intensity"].to_numpy(),
                        ops["performance"].to_numpy() / scale, "d", "tab:olive", hollow=False,
                        gid="integer-op")
        handles.append(Line2D([], [], ls="", marker="d", color="tab:olive",
                              label=f"integer OP ({ops.height:,}), OP/s"))
    n_above = _draw_above_roof(ax, table, scale)
    if n_above:
        handles.append(Line2D([], [], ls="", **mk.ABOVE_ROOF, label="above the roof"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(LEGEND_X, 1.0), fontsize=7.5,
              frameon=False, borderaxespad=0, handletextpad=0.4)
    lines = notes(table, n_above, int(op.sum()) if mixed_op else 0)
    if lines:
        ax.text(0.01, 0.99, "\n".join(lines), transform=ax.transAxes, fontsize=8, va="top",
                color="firebrick", gid="notes",
                bbox={"boxstyle": "round", "fc": "white", "ec": "0.8", "alpha": 0.9})
    if bw_rows.height:
        draw_bandwidth_panel(fig, bw_rows, mk.order(bw_rows["level"]))
    title = options.title or f"{preset.name}"
    if preset.overridden:
        title += f" (overridden: {', '.join(preset.overridden)})"
    # A fixed y: automatic title placement measures every tick label first.
    ax.set_title(title, fontsize=11, y=1.0)
    return fig


def _draw_above_roof(ax, table: pl.DataFrame, scale: float) -> int:
    if "above_roof" not in table.columns:
        return 0
    above = table.filter(pl.col("above_roof").fill_null(False))
    if above.height:
        ax.plot(above["arithmetic_intensity"].to_numpy(),
                above["performance"].to_numpy() / scale, ls="", zorder=6, gid="above-roof",
                **mk.ABOVE_ROOF)
    return above.height


def _style_handles(table: pl.DataFrame) -> list:
    """Legend entries explaining filled (measured) vs hollow (theoretical) markers."""
    theoretical = table["theoretical"]
    out = []
    if not theoretical.all():
        out.append(Line2D([], [], ls="", marker="o", mfc="0.4", mec="black", mew=0.4,
                          label="filled: measured"))
    if theoretical.any():
        out.append(Line2D([], [], ls="", marker="o", mfc="none", mec="0.4",
                          label="hollow: theoretical (on the roof)"))
    return out


def _density_groups(ax, table: pl.DataFrame, column: str, groups: list[str], scale: float,
                    limits: Limits) -> list:
    """One density image per value of ``column`` (series or level); its legend patches."""
    counts, ex, ey = log_counts(table["arithmetic_intensity"], table["performance"],
                                (limits.xmin, limits.xmax), (limits.ymin, limits.ymax),
                                mk.codes(table[column], groups), len(groups))
    ey = ey - np.log10(scale)  # cell edges in the axis unit
    colors, handles = mk.colors(len(groups)), []
    for i, group in enumerate(groups):
        n, peak = draw_density(ax, counts[i], ex, ey, colors[i], gid=f"density:{group}",
                         max_alpha=1.0 if len(groups) == 1 else 0.6)
        # The shade scale: palest = 1 point per cell, darkest = `peak` (log).
        handles.append(Patch(color=colors[i], alpha=0.7,
                             label=f"{group}: {n:,} (density)\n1 … {peak:,} per cell"))
    return handles


def _draw_points(ax, table: pl.DataFrame, scale: float, options: PlotOptions, dense: bool,
                 limits: Limits) -> list:
    """Single-level points; returns the legend handles."""
    series = mk.order(table["series"], options.series_order)
    color_col = options.color_by if options.color_by in table.columns else "family"
    if dense:  # the markers left take their series' density colour
        color_col = "series"
    # Distinct values first: a cast of every row to String costs seconds on 10⁷ rows.
    groups = mk.order(table[color_col].unique(maintain_order=True).cast(pl.String).fill_null(""))
    palette = mk.colors(len(groups))
    # Colours repeat past the colour map's size, so points are grouped by colour index.
    distinct = len(set(palette))
    markers = [mk.MARKERS[i % len(mk.MARKERS)] for i in range(len(series))]
    handles = []
    shown, left_out = _top(table, options.top_n)
    drawn = table
    if dense:
        handles += _density_groups(ax, table, "series", series, scale, limits)
        drawn = shown
    else:
        handles += [Line2D([], [], ls="", marker=m, color="0.3", label=s)
                    for s, m in zip(series, markers, strict=True)]
    mk.draw_groups(ax, drawn["arithmetic_intensity"].to_numpy(),
                   drawn["performance"].to_numpy() / scale, mk.codes(drawn["series"], series),
                   drawn["theoretical"].to_numpy(),
                   mk.codes(drawn[color_col].cast(pl.String).fill_null(""), groups) % distinct,
                   markers, palette[:distinct])
    if dense:
        handles.append(Line2D([], [], ls="", marker="o", color="0.3",
                              label=f"markers: top {shown.height:,} by headroom"))
    if options.connect:
        mk.draw_arrows(ax, drawn, scale)
    handles += _style_handles(table)
    if not dense and (len(groups) > 1 or groups[0] != ""):  # dense: the images name them
        handles.append(Line2D([], [], ls="", label=f"— {color_col} —"))
        handles += [Line2D([], [], ls="", marker="o", color=palette[i], label=g or "(none)")
                    for i, g in enumerate(groups[: options.top_n])]
    annotate = options.annotate
    if annotate is None:  # auto: a small plot gets labels, unless it has a numbered key
        annotate = table.height <= AUTO_LABEL_MAX and not options.key
    if annotate or options.key:
        label_points(ax, shown, left_out, scale, annotate=annotate, key=options.key,
                     top_n=options.top_n)
    return handles


def _draw_hierarchical(ax, table: pl.DataFrame, levels: list[str], scale: float,
                       options: PlotOptions, dense: bool, limits: Limits) -> list:
    """One colour per top kernel (by potential time saved, else headroom), marker by level.

    The rest are grey; with density rendering they become one image per level instead.
    """
    saved = ("potential_time_saved_s" if "potential_time_saved_s" in table.columns
             else "headroom")
    head = "kernel_headroom" if "kernel_headroom" in table.columns else "headroom"
    kernels = table.group_by("kernel", maintain_order=True).agg(
        saved=pl.col(saved).max(), headroom=pl.col(head).max())
    top = kernels.sort(["saved", "headroom"], descending=True, nulls_last=True).head(
        options.top_n)["kernel"].to_list()
    handles = [Line2D([], [], ls="", marker=level_marker(lv), color="0.3", label=lv)
               for lv in levels]
    drawn = table
    if dense:
        handles += _density_groups(ax, table, "level", levels, scale, limits)
        drawn = table.filter(pl.col("kernel").is_in(top))
    palette = mk.draw_kernels(ax, drawn, levels, top, scale)
    _kernel_key(ax, table, kernels.height, top, palette)
    return handles


def _kernel_key(ax, table: pl.DataFrame, n_kernels: int, top: list[str], palette: list) -> None:
    """Numbered list of the coloured kernels with their bound and headroom (one join)."""
    from rooflow.plotting.labels import short_names

    info = pl.DataFrame({"kernel": top}, schema={"kernel": pl.String})
    if {"binding", "kernel_bound", "kernel_headroom"} <= set(table.columns):
        binding = table.filter(pl.col("binding")).unique("kernel", keep="first").select(
            "kernel", "kernel_bound", "kernel_headroom")
        info = info.join(binding, on="kernel", how="left", maintain_order="left")
        detail = pl.format(" — {}-bound, {}× headroom", pl.col("kernel_bound"),
                           pl.col("kernel_headroom").round_sig_figs(2)).fill_null("")
    else:
        detail = pl.lit("")
    texts = info.select(pl.format("{} {}{}", pl.int_range(1, pl.len() + 1), pl.lit(
        short_names(info["kernel"], 30)), detail)).to_series().to_list()
    y = 0.55
    for text, color in zip(texts, palette, strict=True):
        ax.text(LEGEND_X + 0.01, y, text, transform=ax.transAxes, fontsize=6.5, color=color,
                va="top")
        y -= 0.032
    if n_kernels > len(top):
        ax.text(LEGEND_X + 0.01, y, f"+{n_kernels - len(top)} more kernels (grey)",
                transform=ax.transAxes, fontsize=6.5, color="0.4", va="top")
