"""The roofline plot (matplotlib, log-log) of an analysis table: PNG, SVG or PDF.

Single-level data: series → marker shape, family (or another column) → colour; filled
markers are measured points, hollow ones theoretical (drawn on the roof). Hierarchical
data (several memory levels): one memory roof per level, one compute roof per
precision; each kernel one colour, marker by level, its dots joined by a faint line.
Limits, units, roofs and labels, the ranking of the points that matter, colours and
markers are :mod:`.core`'s, shared with the pages (:mod:`rooflow.html`).

More points than ``PlotOptions.density_threshold`` (or ``density=True``): each series
(level) becomes a 2-D histogram image (:mod:`.density`) with its exact count in the
legend; the top-N points that matter and every above-roof point stay markers.

Points above the roof are drawn as red-edged X (and counted on the plot), never
clipped. Points without a compute roof of their precision are not judged: grey ⊗, named
and counted in the legend, never ranked or coloured, labelled or keyed after the ranked
points (:func:`.core.split_no_roof`). Bandwidth-only rows (no operations) go to a side
panel (:mod:`.bandwidth`).
Integer-OP rows (``unit`` "OP") sharing a plot with FLOP rows are drawn as a separate
diamond group and said so in a note; a plot of OP rows only is labelled OP/s.

Figures are made outside pyplot, on an Agg canvas: the matplotlib backend is left as it
is (rooflow's commands choose Agg themselves).

Table columns read: :func:`drawn_columns` (and ``color_by``); the optional ones are used
when present.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from rooflow.clocks import clock_note
from rooflow.defaults import plot_defaults
from rooflow.io import atomic_path
from rooflow.levels import LEVELS
from rooflow.levels import marker as level_marker
from rooflow.plotting import core
from rooflow.plotting import markers as mk
from rooflow.plotting.bandwidth import bandwidth_only_rows, draw_bandwidth_panel, key_floor
from rooflow.plotting.canvas import Canvas
from rooflow.plotting.density import draw_density, log_counts, use_density
from rooflow.plotting.labels import (
    AUTO_LABEL_MAX,
    KEY_FONT,
    label_points,
    left_out_lines,
)
from rooflow.plotting.layout import fit_legend
from rooflow.plotting.png import write_png
from rooflow.plotting.roofs import notes_text, register_notes, roofline_axes, settle_labels
from rooflow.plotting.trajectory import draw_trajectories, png_colors
from rooflow.points import distinct
from rooflow.roofs.preset import Preset
from rooflow.style import ABOVE_ROOF, MEASURED, THEORETICAL

AXES_RECT = (0.07, 0.09, 0.745, 0.84)  # fixed, so roof-label angles are exact
LEGEND_X = 1.01  # legends and key start just right of the axes
_D = plot_defaults()


@dataclass(frozen=True)
class PlotOptions:
    """Per-dataset plot options; defaults are the config schema's ``plot_defaults``.

    ``annotate`` None: label the points when there are at most 20, no ``key`` and no
    ``trajectory``. ``density`` None: density rendering above ``density_threshold`` points;
    True/False force it.
    ``color_by`` is the column that picks colours (``family``; ``dataset`` on overviews).
    ``trajectory``: a dim whose sweeps are drawn as paths (:mod:`.trajectory`); None: none.
    ``xlim`` (FLOP/byte), ``ylim`` (FLOP/s): fixed axes, so plots compare; None: fitted to
    the data and its ridge points (:func:`.core.axis_limits`).
    ``left_out``: the readers' notes on kernels or rows left out
    (:class:`rooflow.errors.LeftOut`), drawn in the notes box.
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
    trajectory: str | None = _D["trajectory"]
    color_by: str = "family"
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    left_out: Sequence[str] = ()


DRAWN_COLUMNS = [
    "series", "family", "label", "pair", "kernel", "dims", "level", "precision", "unit",
    "arithmetic_intensity", "performance", "theoretical", "bandwidth_only",
    "compute_roof_name", "memory_roof_name", "headroom", "above_roof", "roof_note", "time_s",
    "clock_hz", "memory_clock_hz", "l2_clock_hz", "device",
]  # fmt: skip
BANDWIDTH_COLUMNS = ["bytes", "memory_roof", "achieved_bandwidth"]
"""Read by the bandwidth-only panel alone."""


def drawn_columns(points: pl.DataFrame) -> list[str]:
    """The analysis columns :func:`figure` reads for ``points`` (canonical points).

    Per-kernel columns (``rooflow.analysis.KERNEL_COLUMNS``) for hierarchical data, where
    they colour and list the kernels, and for timed data, where potential time saved ranks
    the points that matter (:data:`.core.RANK_COLUMNS`, as on the pages); otherwise they
    would cost windows over every point and change nothing drawn. The bandwidth panel's
    columns only when there are bandwidth-only rows (``flop`` = 0): each is a full-length
    column.
    """
    from rooflow.analysis import KERNEL_COLUMNS

    levels, timed, bandwidth = points.select(  # expressions keep constant columns scalar
        pl.col("level").n_unique(), pl.col("time_s").is_not_null().any(),
        (pl.col("flop") == 0).any()).row(0)
    per_kernel = levels > 1 or bool(timed)
    return (DRAWN_COLUMNS + (BANDWIDTH_COLUMNS if bandwidth else [])
            + (KERNEL_COLUMNS if per_kernel else []))


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
        with atomic_path(path) as tmp, plain_text(), matplotlib.rc_context(
                {"agg.path.chunksize": 20_000}):
            save(fig, tmp, fmt, options.dpi)
        written.append(path)
    return written


def new_figure(dpi: float = _D["dpi"]) -> Figure:
    """An 11 × 6.5 in figure on an Agg canvas, outside pyplot, at the ``dpi`` it is saved at.

    The layout pass measures texts at the figure's dpi: glyph widths do not scale exactly
    with it (hinting), so a place found clear at 100 dpi could touch a line at 200.

    No pyplot: no global figure manager, so a figure needs no closing (chosen for that,
    not for speed: an A/B showed no difference; bench/NOTES.md). Made inside a
    :func:`rooflow.plotting.canvas.shared_renderer` block, it draws on that block's
    renderer and static layers.
    """
    fig = Figure(figsize=(11, 6.5), dpi=dpi)
    Canvas(fig)  # a renderer for text extents (the layout pass) before saving
    return fig


def save(fig: Figure, path: str | Path, fmt: str, dpi: int) -> None:
    """Write ``fig`` as ``fmt``; a PNG in RGB (no alpha channel), on white (:mod:`.png`).

    matplotlib writes RGBA; the figure is opaque, so its alpha is 255 everywhere and the
    RGB pixels are the same. The PNG is encoded from Agg's own buffer (no copy of it;
    11 MB at 200 dpi), its rows unfiltered (:func:`.png.write_png`).
    """
    if fmt != "png":
        fig.savefig(path, dpi=dpi, format=fmt)
        return
    rgba = _Buffer()
    fig.savefig(rgba, dpi=dpi, format="rgba", facecolor="white", transparent=False)
    write_png(path, rgba.data, dpi)


class _Buffer(BytesIO):
    """A file for ``savefig(format="rgba")`` that keeps what it is given: Agg's buffer.

    Agg hands over a ``(height, width, 4)`` view of its canvas: its own size, which the
    figure's inches × dpi can miss by a pixel in floating point (20.4 in × 100 dpi is
    2,039.99…; Agg's canvas is 2,040 px wide).
    """

    data: np.ndarray

    def write(self, data, /) -> int:
        self.data = np.asarray(data)  # a view, no copy
        return self.data.size


def plain_text():
    """``rc_context`` in which every text drawn is shown as written.

    Kernel, label, series and preset names hold ``$`` (Fortran/OpenMP ``main_$ck_L12_$``)
    that matplotlib would parse as math text and fail on, and a user's matplotlibrc must
    not hand them to LaTeX. Artists take these settings when they are made, so figures
    are built (and saved) inside it.
    """
    return matplotlib.rc_context({"text.parse_math": False, "text.usetex": False})


def figure(table: pl.DataFrame, preset: Preset, options: PlotOptions = PlotOptions()):
    """The roofline figure of :func:`plot_roofline`, not saved (tests inspect its artists).

    Its texts are plain (:func:`plain_text`).
    """
    with plain_text():
        return _figure(table, preset, options)


def _figure(table: pl.DataFrame, preset: Preset, options: PlotOptions):
    bw_mask = bandwidth_only_rows(table)
    bw_rows = table.filter(bw_mask)
    if bw_rows.height:  # a filter copies every column: only when there is something to drop
        table = table.filter(~bw_mask)
    roof_notes = table
    # The compute roofs drawn at the clock the kernels held (analysis.clock_note).
    preset, clock_line = clock_note(table, preset)
    # Not judged (no compute roof of their precision): drawn apart, never ranked or keyed; a
    # theoretical one has no performance, no place on the plot.
    table, unjudged = core.split_no_roof(table)
    unjudged = unjudged.filter(pl.col("performance").is_not_null())
    op = core.op_rows(table)
    per = core.operation([table, unjudged])
    only_op = per == "OP"
    levels = core.order(distinct(table, "level"), list(LEVELS)) if table.height else []
    fig = new_figure(options.dpi)
    # The limits hold the unjudged points too: never clipped, judged or not.
    # The roofs the points were judged on (an AMD counter point's fp32 per instruction).
    ax, limits, scale, unit = roofline_axes(
        fig, AXES_RECT, preset, [table, unjudged], levels,
        distinct(table, "compute_roof_name").drop_nulls().to_list(), per,
        (options.xlim, options.ylim))
    dense = use_density(table.height, options.density, options.density_threshold)
    mixed_op = op.any() and not only_op
    # The unjudged and above-roof markers first: the point labels keep off them.
    dense_unjudged = use_density(unjudged.height, options.density, options.density_threshold)
    no_roof_handles = _draw_no_roof(ax, unjudged, scale, limits if dense_unjudged else None)
    n_above = _draw_above_roof(ax, table, scale)
    # The bandwidth-only panel first: the kernel key beside it ends above it.
    if bw_rows.height:
        draw_bandwidth_panel(fig, bw_rows, core.order(bw_rows["level"], list(LEVELS)))
    handles: list = []
    key: tuple[list[str], list] | None = None  # a multi-level plot's kernels and colours
    labels: dict | None = None  # a single-level plot's labels and key: after the legend
    if table.height and len(levels) > 1:
        handles, key = _draw_hierarchical(ax, table, levels, scale, options, dense, limits)
    elif table.height:
        handles, labels = _draw_points(ax, table.filter(~op) if mixed_op else table, scale,
                                       options, dense, limits, unjudged)
    if mixed_op:
        ops = table.filter(op)
        mk.draw_markers(ax, ops["arithmetic_intensity"].to_numpy(),
                        ops["performance"].to_numpy() / scale, "d", "tab:olive", hollow=False,
                        gid="integer-op")
        handles.append(Line2D([], [], ls="", marker="d", color="tab:olive",
                              label=f"integer OP ({ops.height:,}), OP/s"))
    if options.trajectory:  # the unjudged points' sweeps too: `roof_notes` holds every row
        handles += draw_trajectories(ax, roof_notes, options.trajectory, scale,
                                     *png_colors(table, options.color_by, options.top_n))
    handles += no_roof_handles
    if n_above:
        handles.append(Line2D([], [], ls="", **mk.ABOVE_ROOF, label=ABOVE_ROOF))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(LEGEND_X, 1.0), fontsize=7.5,
              frameon=False, borderaxespad=0, handletextpad=0.4)
    fit_legend(ax)  # names from the input (datasets, families) cut to the canvas
    if labels is not None:  # every marker drawn: the labels keep off them all
        label_points(ax, **labels, key_top=_below_legend(ax, KEY_FONT))
    lines = core.notes(roof_notes, n_above, int(op.sum()) if mixed_op else 0)
    lines += [clock_line] if clock_line else []
    lines += left_out_lines(options.left_out)
    note = None
    if lines:
        note = ax.text(0.01, 0.99, notes_text(ax, lines, 8), transform=ax.transAxes,
                       fontsize=8, va="top", color="firebrick", gid="notes",
                       bbox={"boxstyle": "round", "fc": "white", "ec": "0.8", "alpha": 0.9})
        register_notes(ax, note)
    if key is not None:  # after the legend: the key starts below it
        _kernel_key(ax, table, key[0], key[1], unjudged, scale)
    settle_labels(ax)
    if note is not None:
        _notes_aside(ax, note, lines)
    title = options.title or f"{preset.name}"
    if preset.overridden:
        title += f" (overridden: {', '.join(preset.overridden)})"
    # A fixed y: automatic title placement measures every tick label first.
    ax.set_title(title, fontsize=11, y=1.0)
    return fig


def _draw_no_roof(ax, rows: pl.DataFrame, scale: float, limits: core.Limits | None) -> list:
    """The points without a compute roof of their precision, ⊗ in grey; their legend entry.

    With ``limits`` (as many as the judged points draw as density) a grey density image:
    a whole file without a precision is not judged, and is as many points as it is.
    """
    if not rows.height:
        return []
    if limits is None:
        ax.plot(*mk.apart(rows["arithmetic_intensity"].to_numpy(),
                          rows["performance"].to_numpy() / scale),
                ls="", zorder=5, gid="no-compute-roof", **mk.NO_ROOF)
    else:
        counts, ex, ey = log_counts(rows["arithmetic_intensity"], rows["performance"],
                                    (limits.xmin, limits.xmax), (limits.ymin, limits.ymax))
        draw_density(ax, counts, ex, ey - np.log10(scale), core.NO_ROOF_COLOR,
                     gid="no-compute-roof", max_alpha=0.6)
    return [Line2D([], [], ls="", **mk.NO_ROOF, label=core.no_roof_label(rows, "\n"))]


def _draw_above_roof(ax, table: pl.DataFrame, scale: float) -> int:
    if "above_roof" not in table.columns:
        return 0
    above = table.filter(pl.col("above_roof").fill_null(False))
    if above.height:
        ax.plot(*mk.apart(above["arithmetic_intensity"].to_numpy(),
                          above["performance"].to_numpy() / scale), ls="", zorder=6,
                gid="above-roof",
                **mk.ABOVE_ROOF)
    return above.height


def _style_handles(table: pl.DataFrame) -> list:
    """Legend entries explaining filled (measured) vs hollow (theoretical) markers."""
    theoretical = table["theoretical"]
    out = []
    if not theoretical.all():
        out.append(Line2D([], [], ls="", marker="o", mfc="0.4", mec="black", mew=0.4,
                          label=MEASURED))
    if theoretical.any():
        out.append(Line2D([], [], ls="", marker="o", mfc="none", mec="0.4",
                          label=THEORETICAL))
    return out


def _density_groups(ax, table: pl.DataFrame, column: str, groups: list[str], scale: float,
                    limits: core.Limits, colors: dict[str, str]) -> list:
    """One density image per value of ``column`` (series or level); its legend patches."""
    counts, ex, ey = log_counts(table["arithmetic_intensity"], table["performance"],
                                (limits.xmin, limits.xmax), (limits.ymin, limits.ymax),
                                mk.codes(table[column], groups), len(groups))
    ey = ey - np.log10(scale)  # cell edges in the axis unit
    handles = []
    for i, group in enumerate(groups):
        n, peak = draw_density(ax, counts[i], ex, ey, colors[group], gid=f"density:{group}",
                         max_alpha=1.0 if len(groups) == 1 else 0.6)
        # The shade scale: palest = 1 point per cell, darkest = `peak` (log).
        handles.append(Patch(color=colors[group], alpha=0.7,
                             label=f"{group}: {n:,} (density)\n1 … {peak:,} per cell"))
    return handles


def _draw_points(ax, table: pl.DataFrame, scale: float, options: PlotOptions, dense: bool,
                 limits: core.Limits, unjudged: pl.DataFrame) -> tuple[list, dict | None]:
    """Single-level points; returns the legend handles and the labels to draw.

    The labels (:func:`.labels.label_points`' arguments; None: no labels, no key) are
    drawn once the legend is, so the key starts below it and the labels keep off every
    marker. ``unjudged`` (drawn by :func:`_draw_no_roof`) are labelled after the ranked
    points, so a ⊗ can be named; at most ``top_n`` labels in all.
    """
    series = core.order(table["series"], options.series_order)
    color_col = options.color_by if options.color_by in table.columns else "family"
    if dense:  # the markers left take their series' density colour
        color_col = "series"
    groups = series if dense else core.groups(distinct(table, color_col))
    colors = core.group_colors(groups, options.top_n)
    # Points are grouped by distinct colour: every group past the coloured ones is grey.
    palette = list(dict.fromkeys(colors.values()))
    color_index = np.array([palette.index(colors[g]) for g in groups])
    markers = [core.series_marker(i).mpl for i in range(len(series))]
    handles = []
    shown, left_out = core.top_points(table, options.top_n)
    drawn = table
    if dense:
        handles += _density_groups(ax, table, "series", series, scale, limits, colors)
        drawn = shown
    else:
        handles += [Line2D([], [], ls="", marker=m, color="0.3", label=s)
                    for s, m in zip(series, markers, strict=True)]
    sizes = None if dense else mk.time_share_areas(drawn)
    mk.draw_groups(ax, drawn["arithmetic_intensity"].to_numpy(),
                   drawn["performance"].to_numpy() / scale, mk.codes(drawn["series"], series),
                   drawn["theoretical"].to_numpy(),
                   color_index[mk.codes(drawn[color_col].cast(pl.String).fill_null(""), groups)],
                   markers, palette, sizes)
    if dense:
        handles.append(Line2D([], [], ls="", marker="o", color="0.3",
                              label=f"markers: top {shown.height:,} {core.ranked_by(table)}"))
    if options.connect:
        mk.draw_arrows(ax, drawn, scale)
    handles += _style_handles(table)
    if not dense and (len(groups) > 1 or groups[0] != ""):  # dense: the images name them
        handles.append(Line2D([], [], ls="", label=f"— {color_col} —"))
        handles += [Line2D([], [], ls="", marker="o", color=colors[g], label=g or "(none)")
                    for g in groups[: options.top_n]]
        if len(groups) > options.top_n:
            handles.append(Line2D([], [], ls="", marker="o", color=core.GREY,
                                  label=f"+{len(groups) - options.top_n} more"))
    if sizes is not None:
        handles += mk.size_handles()
    annotate = options.annotate
    if annotate is None:  # auto: a small plot gets labels, unless it has a key or paths
        annotate = table.height <= AUTO_LABEL_MAX and not options.key and not options.trajectory
    labels: dict | None = None
    if annotate or options.key:
        extra = unjudged.head(max(options.top_n - shown.height, 0))
        labels = {"shown": pl.concat([shown, extra]),
                  "left_out": left_out + unjudged.height - extra.height, "scale": scale,
                  "annotate": annotate, "key": options.key, "top_n": options.top_n}
    return handles, labels


def _draw_hierarchical(ax, table: pl.DataFrame, levels: list[str], scale: float,
                       options: PlotOptions, dense: bool, limits: core.Limits,
                       ) -> tuple[list, tuple[list[str], list]]:
    """One colour per kernel that matters most (:func:`.core.top_kernels`), marker by level.

    The rest are grey; with density rendering they become one image per level instead.
    Returns the legend handles and (the coloured kernels, their colours) for
    :func:`_kernel_key`.
    """
    top = core.top_kernels(table, options.top_n)
    colors = core.group_colors(top, options.top_n)
    palette = [colors[k] for k in top]
    handles = [Line2D([], [], ls="", marker=level_marker(lv), color="0.3", label=lv)
               for lv in levels]
    drawn = table
    if dense:
        handles += _density_groups(ax, table, "level", levels, scale, limits,
                                   core.group_colors(levels, len(levels)))
        drawn = table.filter(pl.col("kernel").is_in(top))
    mk.draw_kernels(ax, drawn, levels, top, palette, core.GREY, scale)
    return handles, (top, palette)


def _kernel_key(ax, table: pl.DataFrame, top: list[str], palette: list,
                unjudged: pl.DataFrame, scale: float) -> None:
    """Numbered list of the coloured kernels, then the kernels not judged (⊗).

    Each entry is two lines, the name then its bound and headroom (or missing roof): one
    line ran off the canvas. The list starts just below the legend (measured: a legend
    of two levels leaves more room than one of five) and holds as many entries as fit
    above the canvas's bottom edge, or above the bandwidth-only panel where one is
    drawn; the rest are counted. Each listed kernel's number is drawn at its binding
    point (else its first), placed by the layout pass (:func:`.layout.place_point_texts`).
    """
    from rooflow.plotting.labels import short_names
    from rooflow.plotting.layout import place_point_texts

    info = pl.DataFrame({"kernel": top}, schema={"kernel": pl.String})
    if {"binding", "kernel_bound", "kernel_headroom"} <= set(table.columns):
        binding = table.filter(pl.col("binding")).unique("kernel", keep="first").select(
            "kernel", "kernel_bound", "kernel_headroom")
        info = info.join(binding, on="kernel", how="left", maintain_order="left")
        detail = pl.format("\n    {}-bound, {}× headroom", pl.col("kernel_bound"),
                           pl.col("kernel_headroom").round_sig_figs(2)).fill_null("")
    else:
        detail = pl.lit("")
    texts = info.select(pl.format("{} {}{}", pl.int_range(1, pl.len() + 1), pl.lit(
        short_names(info["kernel"], 30)), detail)).to_series().to_list()
    entries = list(zip(texts, palette, strict=True))
    no_roof = unjudged.unique("kernel", keep="first", maintain_order=True)
    entries += [(f"⊗ {name}\n    no {precision} roof", core.NO_ROOF_COLOR) for name, precision
                in zip(short_names(no_roof["kernel"], 30), no_roof["precision"], strict=True)]
    n_more = table["kernel"].n_unique() - len(top)
    line = _line(ax, 6.5)
    bottom = (key_floor(ax.figure) - AXES_RECT[1]) / AXES_RECT[3]  # in axes fraction
    y, more = _below_legend(ax, 6.5), f"+{n_more} more kernels (grey)"
    listed = 0
    for i, (text, color) in enumerate(entries):
        # Room for this entry and, unless it is the last, the count line.
        need = (text.count("\n") + 1 + (i + 1 < len(entries) or n_more > 0)) * line
        if y - need < bottom:
            n_more += len(entries) - i
            more = f"+{n_more} more kernels not listed"
            break
        ax.text(LEGEND_X + 0.01, y, text, transform=ax.transAxes, fontsize=6.5, color=color,
                va="top", gid="kernel-key")
        y -= (text.count("\n") + 1.3) * line
        listed += i < len(top)
    if listed:
        at = _key_points(table, top[:listed])
        settle_labels(ax, final=False)  # the roof and ridge labels first: few places to go
        numbers = place_point_texts(
            ax, at["arithmetic_intensity"].to_numpy(), at["performance"].to_numpy() / scale,
            [str(i) for i in range(1, listed + 1)], fontsize=7, gid="key-number")
        for number, color in zip(numbers, palette, strict=False):
            number.set_color(color)
    if n_more > 0:
        ax.text(LEGEND_X + 0.01, y, more, transform=ax.transAxes, fontsize=6.5, color="0.4",
                va="top", gid="kernel-key")


def _line(ax, fontsize: float) -> float:
    """A text line at ``fontsize`` (matplotlib's spacing: 1.2), in axes fraction."""
    return fontsize * 1.2 / (ax.figure.get_figheight() * 72 * ax.get_position().height)


def _below_legend(ax, fontsize: float) -> float:
    """Where a key right of the axes starts, in axes fraction.

    A line of ``fontsize`` below the legend, else the axes' top.
    """
    legend = ax.get_legend()
    if legend is None or not legend.get_texts():
        return 1.0
    box = legend.get_window_extent(ax.figure.canvas.get_renderer())
    return ax.transAxes.inverted().transform((0, box.y0))[1] - _line(ax, fontsize)


def _notes_aside(ax, note, lines: list[str]) -> None:
    """The notes box moved right of the axes, below the legend and key, if it covers data.

    A long box (a clock note, kernels the reader left out) over a plot whose corners and
    edges all hold points or lines covers some wherever :func:`settle_labels` put it. The
    column right of the axes, the legend's, has room below the legend and key: the box
    goes there, wrapped to the column's width, when it then covers nothing and ends
    above the canvas's bottom edge (or the bandwidth-only panel's title); else it stays.
    """
    from rooflow.plotting.layout import covers

    if not covers(ax, note):
        return
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    right = ax.bbox.x1
    column = [t.get_window_extent(renderer) for t in ax.texts
              if t is not note and t.get_visible() and t.get_text().strip()]
    column = [b for b in column if b.x0 > right]
    legend = ax.get_legend()
    if legend is not None and legend.get_texts():
        column.append(legend.get_window_extent(renderer))
    pad = 0.3 * note.get_fontsize() * fig.dpi / 72  # the round box's pad
    top = (min((b.y0 for b in column), default=ax.bbox.y1) - 2 * pad
           - _line(ax, note.get_fontsize()) * ax.bbox.height)
    x = LEGEND_X + 0.01
    width = (fig.bbox.x1 - ax.transAxes.transform((x, 0))[0] - 2 * pad) * 72 / fig.dpi
    before = {"text": note.get_text(), "position": note.get_position(),
              "ha": note.get_horizontalalignment(), "va": note.get_verticalalignment()}
    note.set(text=notes_text(ax, lines, note.get_fontsize(), width), ha="left", va="top",
             position=(x, ax.transAxes.inverted().transform((0, top))[1]))
    box = note.get_window_extent(renderer)
    floor = key_floor(fig) * fig.bbox.height
    if box.y0 - pad < floor or box.x1 + pad > fig.bbox.x1 or covers(ax, note):
        note.set(**before)


def _key_points(table: pl.DataFrame, kernels: list[str]) -> pl.DataFrame:
    """One row per kernel of ``kernels``, in their order: its binding row, else its first."""
    rows = table.filter(pl.col("kernel").is_in(kernels))
    if "binding" in rows.columns:
        rows = rows.sort("binding", descending=True, maintain_order=True)
    rows = rows.unique("kernel", keep="first")
    return pl.DataFrame({"kernel": kernels}).join(rows, on="kernel", how="left",
                                                   maintain_order="left")
