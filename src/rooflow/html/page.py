"""One analysis table as an interactive roofline page.

Points: marker by memory level (several levels) or by series, colour by ``color_by``
(family; dataset on the overview) or, on several levels, by kernel; hollow = theoretical
(drawn on the roof). Hover shows the kernel's numbers; clicking a legend entry hides/shows
its points; wheel/box zoom, pan. Markers, colours (the first ``top_n`` groups or kernels
that matter most, the rest grey) and the ranking are the PNG's
(:mod:`rooflow.plotting.core`), so a kernel has one colour in both; legend words are
:mod:`rooflow.style`'s, the PNG's. The hover gives each point's rank in the PNG's ranking;
points above their roof get the PNG's red X; bandwidth-only rows (no operations) are the
PNG's side panel, a second figure below (:func:`bandwidth_figure`).

Big tables stay small (< ~5 MB a page): the ``max_points`` points that matter most
(:data:`rooflow.plotting.core.RANK_COLUMNS`) are drawn one by one; the rest are binned in
a log-space grid drawn as grey cells whose hover gives the count.

Columns in: :data:`rooflow.analysis.TABLE_COLUMNS` (optional ones used when present) and,
on overviews, ``dataset``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from rooflow.clocks import clock_note
from rooflow.defaults import plot_defaults
from rooflow.escape import short_names
from rooflow.guidance import sentence
from rooflow.html.figure import (
    FRAME,
    add_glyph,
    add_legends,
    canvas_text,
    note,
    roofline_figure,
    write_page,
)
from rooflow.html.places import settle_labels
from rooflow.levels import LEVELS
from rooflow.levels import marker as level_marker
from rooflow.plotting import core
from rooflow.roofs.preset import Preset
from rooflow.style import (
    ABOVE_ROOF,
    BANDWIDTH_AXIS,
    BANDWIDTH_COLOR,
    MEASURED,
    THEORETICAL,
    bandwidth_title,
)

if TYPE_CHECKING:
    from rooflow.html.bokehdoc import Model

MAX_POINTS = 4000
_D = plot_defaults()
NAME_CHARS = 160  # longer kernel names are cut in tooltips (the table keeps them whole)

TOOLTIPS = [("kernel", "@kernel"), ("label", "@label"), ("dims", "@dims"),
            ("series", "@series"), ("group", "@group"), ("level", "@level"),
            ("precision", "@precision"), ("rank", "@rank_txt"),
            ("operations", "@flop_txt"), ("bytes", "@bytes_txt"), ("time", "@time_txt"),
            ("calls", "@calls_txt"), ("time per call", "@per_call_txt"),
            ("intensity", "@ai_txt"), ("performance", "@perf_txt"),
            ("attainable", "@att_txt"), ("% of roof", "@pct_txt"), ("bound", "@bound"),
            ("headroom", "@headroom_txt"), ("guidance", "@guidance")]


def num_text(v, fmt: str, suffix: str = "") -> str:
    """``v`` formatted with ``fmt`` and ``suffix``; "–" when missing."""
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else \
        f"{format(v, fmt)}{suffix}"


def rate_text(v, unit: str) -> str:
    """A rate in T/G ``unit``/s; "–" when missing."""
    if v is None:
        return "–"
    return f"{v / 1e12:.4g} T{unit}/s" if v >= 1e12 else f"{v / 1e9:.4g} G{unit}/s"


def time_text(v) -> str:
    """Seconds in s, ms, µs or ns; "–" when missing."""
    if v is None:
        return "–"
    for factor, name in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if v >= factor:
            return f"{v / factor:.4g} {name}"
    return f"{v / 1e-9:.4g} ns"


def per_call_text(row: dict) -> str:
    """Mean, median, std, min and max of a row's call times; "–" without per-call columns."""
    if row.get("time_per_call_s") is None:
        return "–"
    parts = [("mean", "time_per_call_s"), ("median", "time_per_call_median_s"),
             ("std", "time_per_call_std_s"), ("min", "time_per_call_min_s"),
             ("max", "time_per_call_max_s")]
    return ", ".join(f"{name} {time_text(row.get(column))}" for name, column in parts)


def _cut(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def hover_columns(table: pl.DataFrame) -> dict[str, list]:
    """The text columns the tooltips show, one entry per row (units spelled out)."""
    units = table["unit"].to_list() if "unit" in table.columns else ["FLOP"] * table.height
    rows = table.to_dicts()
    return {
        "kernel": [_cut(r["kernel"] or "") for r in rows],
        "label": [_cut(r["label"] or "") for r in rows],
        "dims": [_cut(r.get("dims") or "") for r in rows],
        "series": [r["series"] or "" for r in rows],
        "level": [r["level"] or "" for r in rows],
        "precision": [r["precision"] or "(not given)" for r in rows],
        "bound": [r["bound"] or "–" for r in rows],
        "flop_txt": [num_text(r["flop"], ".4g", f" {u}") for r, u in zip(rows, units, strict=True)],
        "bytes_txt": [num_text(r["bytes"], ".4g", " B") for r in rows],
        "time_txt": [time_text(r["time_s"]) for r in rows],
        "calls_txt": [num_text(r.get("calls"), ",d") for r in rows],
        "per_call_txt": [per_call_text(r) for r in rows],
        "ai_txt": [num_text(r["arithmetic_intensity"], ".4g", f" {u}/byte")
                   for r, u in zip(rows, units, strict=True)],
        "perf_txt": [rate_text(r["performance"], u) + (" (theoretical: on the roof)"
                                                   if r["theoretical"] else "")
                     for r, u in zip(rows, units, strict=True)],
        "att_txt": [rate_text(r["attainable"], u) for r, u in zip(rows, units, strict=True)],
        "pct_txt": [num_text(r["pct_of_roof"], ".1f", " %") for r in rows],
        "headroom_txt": [num_text(r["headroom"], ".3g", "×") for r in rows],
        # The kernel's limiter, next limiter and reuse pattern (rooflow.guidance).
        "guidance": [sentence(r) or "–" for r in rows],
    }


def density(fig, rest: pl.DataFrame, scale: float, bins: int = 60):
    """The binned rows as grey log-space cells (alpha grows with the count); the renderer."""
    from bokeh.models import Quad

    from rooflow.html.bokehdoc import Model

    x = np.log10(rest["arithmetic_intensity"].to_numpy())
    y = np.log10(rest["performance"].to_numpy() / scale)
    counts, xe, ye = np.histogram2d(x, y, bins=bins)
    ix, iy = np.nonzero(counts)
    n = counts[ix, iy]
    source = {
        "left": 10 ** xe[ix], "right": 10 ** xe[ix + 1], "bottom": 10 ** ye[iy],
        "top": 10 ** ye[iy + 1], "count": n.astype(int),
        "alpha": 0.15 + 0.75 * np.log1p(n) / np.log1p(n.max()),
    }
    return add_glyph(fig, Model(Quad, left="left", right="right", bottom="bottom", top="top",
                               fill_color="#808080", fill_alpha="alpha", line_alpha=0), source)


def roofline_page(table: pl.DataFrame, preset: Preset, out: str | Path, *, title: str,
                  color_by: str = "family", max_points: int = MAX_POINTS,
                  top_n: int = _D["top_n"],
                  series_order: Sequence[str] = tuple(_D["series_order"]),
                  trajectory: str | None = None,
                  bokehjs: Sequence[str | Path] | None = None,
                  left_out: Sequence[str] = ()) -> Path:
    """Write the interactive page of one analysis table.

    Args:
        table: an analysis table (:func:`rooflow.analysis.analyze`), with ``dataset``
            on overviews.
        preset: the roofs (those the table was analysed on).
        out: the HTML file.
        title: page and figure title (any text: escaped).
        color_by: column that picks colours (``family``, ``dataset``).
        max_points: points drawn one by one; the rest as density cells.
        top_n: groups (kernels, on several levels) coloured; the rest grey. The PNG's
            ``PlotOptions.top_n``, so both colour the same ones alike.
        series_order: series whose markers come first, as the PNG's.
        trajectory: a dim whose sweeps are drawn as paths, as the PNG's
            (:mod:`rooflow.html.trajectory`); None: none.
        bokehjs: None: Bokeh's JS inlined (one self-contained file). Else the shared
            bundle files the page loads by relative paths (the workflow's,
            :mod:`rooflow.html.bokehjs`).
        left_out: what the readers left out (:meth:`rooflow.errors.LeftOut.lines`), a
            note each, whole (the PNG's notes box cuts each and counts those past its
            third).

    Returns:
        ``out``.
    """
    return write_page(page_items(table, preset, title=title, color_by=color_by,
                                 max_points=max_points, top_n=top_n,
                                 series_order=series_order, trajectory=trajectory,
                                 left_out=left_out), out, title,
                      bokehjs)


def page_items(table: pl.DataFrame, preset: Preset, *, title: str, color_by: str,
               max_points: int, top_n: int, series_order: Sequence[str],
               trajectory: str | None = None, left_out: Sequence[str] = ()) -> list:
    """The Bokeh models of :func:`roofline_page`, top to bottom: the figure, then notes."""
    from bokeh.models import HoverTool, Scatter

    from rooflow.html.bokehdoc import Model

    bandwidth = (table.filter(pl.col("bandwidth_only").fill_null(False))
                 if "bandwidth_only" in table.columns else table.clear())
    drawable = table.filter(pl.col("arithmetic_intensity").is_not_null()
                            & pl.col("performance").is_not_null())
    placed = drawable.height + bandwidth.height
    # Not judged (no compute roof of their precision): drawn apart as ⊗, never ranked.
    drawable, unjudged = core.split_no_roof(drawable)
    # The roofs drawn at the clocks the kernels held, as the PNG's (analysis.clock_note).
    preset, clock_line = clock_note(table, preset)
    drawable = _with_rank(drawable)
    unjudged = unjudged.with_columns(_rank=pl.lit("not ranked"))
    fig, scale, unit = roofline_figure(preset, [table], title)
    shown, rest = drawable, drawable.clear()
    if drawable.height > max_points:
        top = pl.repeat(False, drawable.height, eager=True).scatter(
            core.top_rows(drawable, max_points), True)
        shown, rest = drawable.filter(top), drawable.filter(~top)
    hierarchical = drawable["level"].n_unique() > 1
    shape_col = "level" if hierarchical else "series"
    shapes = core.order(drawable[shape_col], list(LEVELS) if hierarchical else series_order)
    marker = {v: level_marker(v, bokeh=True) if hierarchical else core.series_marker(i).bokeh
              for i, v in enumerate(shapes)}
    # Several levels: one colour per kernel (as the PNG), so a kernel's levels read together.
    by_kernel = hierarchical and color_by == "family"
    color_col = "kernel" if by_kernel else color_by
    color_col = color_col if color_col in drawable.columns else "family"
    names = (core.top_kernels(drawable, top_n) if by_kernel
             else core.groups(drawable[color_col]))
    colored = names[:top_n]
    total = drawable["kernel"].n_unique() if by_kernel else len(names)
    other = f"+{total - len(colored)} more"
    color = core.group_colors(colored, top_n) | {other: core.GREY}
    shown = shown.with_columns(_group=pl.col(color_col).cast(pl.String).fill_null("")
                               .replace_strict(colored, colored, default=other))
    data = shown.with_columns(_x=pl.col("arithmetic_intensity"),
                              _y=pl.col("performance") / scale)
    renderers: list[tuple[dict, Model]] = []
    # Under the points; hidden with their colour's legend entry, never hovered.
    by_series = hierarchical and shown["series"].n_unique() > 1
    joins = _level_joins(fig, data, color, by_series) if hierarchical else []
    # Several levels and series (by_series): a series legend, so a renderer per series
    # too, else hiding one series hid the other's points of the same level and colour.
    keys = [shape_col, "_group", "theoretical"] + (["series"] if by_series else [])
    for (shape, group, theo, *_), part in data.group_by(keys, maintain_order=True):
        cols = hover_columns(part) | {"group": part["_group"].to_list(),
                                      "rank_txt": part["_rank"].to_list(),
                                      "x": part["_x"].to_list(), "y": part["_y"].to_list()}
        r = add_glyph(fig, Model(Scatter, x="x", y="y", marker=marker[shape], size=9,
                                   fill_color="white" if theo else color[group],
                                   line_color=color[group], fill_alpha=0.85,
                                   line_width=1.5 if theo else 1), cols)
        renderers.append(({shape_col: shape, "_group": group, "_style": theo,
                           "series": part["series"][0]}, r))
    fig.add_tools(Model(HoverTool, renderers=[r for _, r in renderers], tooltips=TOOLTIPS))
    legends: list[tuple[str, list[Any]]] = [(shape_col, shapes), ("_group", [*colored, other])]
    if by_series:
        legends.append(("series", shown["series"].unique(maintain_order=True).to_list()))
    legends.append(("_style", [False, True]))  # filled / hollow, worded as on the PNG
    words: dict[str, dict[Any, str]] = {"_style": {False: MEASURED, True: THEORETICAL}}
    placed_legends: list[tuple[str, list[tuple[str, list]]]] = []
    for col, values in legends:
        name = {"_group": color_col, "_style": "points"}.get(col, col)
        texts = [words.get(col, {}).get(v, str(v)) or "(none)" for v in values]
        # Cut in the middle, kept distinct, as the PNG's names; kernels' brackets elided too.
        texts = [t if v == other else s for v, t, s in zip(values, texts, short_names(
            pl.Series(texts, dtype=pl.String), 40, elide=col == "_group" and color_col == "kernel"),
            strict=True)]
        entries = [(canvas_text(text), [r for k, r in renderers + joins
                                        if col in k and k[col] == v])
                   for v, text in zip(values, texts, strict=True)]
        entries = [(text, drawn) for text, drawn in entries if drawn]
        if entries:
            placed_legends.append((f"{name} (click to hide)", entries))
    if unjudged.height:  # past max_points, density cells as the ranked points'
        rest = pl.concat([rest, unjudged.slice(max_points)])
        placed_legends.append(_draw_no_roof(fig, unjudged.head(max_points), scale))
    placed_legends.append(_draw_above_roof(fig, drawable, scale))
    settle_labels(fig)  # roof and ridge labels clear of the points
    if trajectory:
        from rooflow.html.trajectory import draw_page_trajectories

        placed_legends.append(
            draw_page_trajectories(fig, table, trajectory, scale, color_col, color))
    add_legends(fig, [(title, entries) for title, entries in placed_legends if entries])
    levels = drawable["level"].n_unique()
    notes = [f"{preset.name} ({preset.key}): roofs from {preset.source}; ridge point "
             f"{preset.ridge_point:.4g} FLOP/byte ({preset.default_compute} / "
             f"{preset.default_memory}). {table.height} rows, {levels} level(s)."]
    notes += [clock_line + "."] if clock_line else []
    if rest.height:
        cells = density(fig, rest, scale)
        fig.add_tools(Model(HoverTool, renderers=[cells],
                            tooltips=[("more points here", "@count")]))
        notes.append(f"{shown.height} points drawn ({core.ranked_by(drawable)}); "
                     f"{rest.height} more as grey density cells (hover: count).")
    if unjudged.height:
        missing = ", ".join(unjudged["roof_note"].cast(pl.String).unique(maintain_order=True))
        notes.append(f"{unjudged.height} points not judged ({missing}): no attainable, bound "
                     "or headroom; drawn as ⊗.")
    if "roof_note" in table.columns:
        from rooflow.analysis import INPUTS_ONLY_NOTE

        said = table["roof_note"].cast(pl.String)
        no_clock = said.filter(said.str.contains("gives no clock for its roofs", literal=True))
        if no_clock.len():  # the note after "; " when a roof note comes first
            notes.append(no_clock[0].split("; ")[-1] + ".")
        bound = said.str.contains(INPUTS_ONLY_NOTE, literal=True)
        if bound.any():
            notes.append(f"{int(bound.sum())} points: {INPUTS_ONLY_NOTE} (bytes_model "
                         "inputs-only: outputs and weights not counted).")
    skipped = table.height - placed
    if skipped:
        notes.append(f"{skipped} rows not drawn: without a roof to place them on; see the "
                     "table.")
    # The PNG's roof notes ("no L1 roof on a100-sxm") these have not said yet, and what
    # the readers left out: the page tells what the PNG's notes box does.
    notes += [f"{n}." for n in core.notes(table, 0, 0)
              if not any(n in said for said in notes)]
    notes += list(left_out)
    panel = [bandwidth_figure(bandwidth)] if bandwidth.height else []
    return [fig, *panel] + [note(n) for n in notes]


def _level_joins(fig, data: pl.DataFrame, color: dict[str, str],
                 by_series: bool) -> list[tuple[dict, Model]]:
    """The PNG's faint lines joining one measurement's levels, in intensity order.

    A measurement is :func:`rooflow.plotting.core.measurement_key`'s rows, as
    :func:`rooflow.plotting.markers.draw_kernels` joins them. ``data``: the points drawn
    (``_x``, ``_y``, ``_group``, ``theoretical``). One renderer per colour, style and (with
    ``by_series``) series, returned with its legend key (as the points' renderers), so a
    legend entry that hides the points hides their lines.
    """
    from bokeh.models import MultiLine

    from rooflow.html.bokehdoc import Model

    keys = ["_group", "theoretical", *(["series"] if by_series else [])]
    measurement = list(dict.fromkeys([*keys, *core.measurement_key(data)]))
    lines = (data.select(*measurement, "_x", "_y").sort("_x")
             .group_by(measurement, maintain_order=True)
             .agg("_x", "_y").filter(pl.col("_x").list.len() > 1))
    out: list[tuple[dict, Model]] = []
    for (group, theoretical, *series), part in lines.group_by(keys, maintain_order=True):
        r = add_glyph(fig, Model(MultiLine, xs="xs", ys="ys", line_color=color[group],
                                     line_width=1, line_alpha=0.35),
                      {"xs": part["_x"].to_list(), "ys": part["_y"].to_list()},
                      name="kernel-levels")
        # The keys the legends look up, as the points' renderers have them.
        out.append(({"_group": group, "_style": theoretical}
                    | ({"series": series[0]} if series else {}), r))
    return out


def _with_rank(drawable: pl.DataFrame) -> pl.DataFrame:
    """``drawable`` with ``_rank``: each point's place in the PNG's ranking, as hover text.

    The ranking is :data:`rooflow.plotting.core.RANK_COLUMNS` (most potential time saved,
    then kernel headroom, then headroom; missing last, ties in table order), the one that
    picks the PNG's labelled and coloured points, so "1 of 40" is the point that matters
    most on both.
    """
    keys = [c for c in core.RANK_COLUMNS if c in drawable.columns]
    if not keys:
        return drawable.with_columns(_rank=pl.lit("–"))
    order = (drawable.select(keys).with_row_index("_i")
             .with_columns(pl.col(c).cast(pl.Float64).fill_nan(None) for c in keys)
             .sort(keys, descending=True, nulls_last=True, maintain_order=True)
             .with_row_index("_r", offset=1).sort("_i")["_r"])
    text = f" of {drawable.height} ({core.ranked_by(drawable)})"
    return drawable.with_columns(_rank=order.cast(pl.String) + text)


def _draw_no_roof(fig, rows: pl.DataFrame, scale: float) -> tuple[str, list[tuple[str, list]]]:
    """The points without a compute roof of their precision: ⊗ and hover; their legend.

    Uncoloured, so on an overview the hover names each one's dataset.
    """
    from bokeh.models import HoverTool, Scatter

    from rooflow.html.bokehdoc import Model

    cols = hover_columns(rows) | {
        "note": rows["roof_note"].cast(pl.String).fill_null("").to_list(),
        "rank_txt": rows["_rank"].to_list(),
        "x": rows["arithmetic_intensity"].to_list(),
        "y": (rows["performance"] / scale).to_list()}
    tooltips = [*TOOLTIPS, ("not judged", "@note")]
    if "dataset" in rows.columns:
        cols["dataset"] = rows["dataset"].cast(pl.String).to_list()
        tooltips.insert(0, ("dataset", "@dataset"))
    r = add_glyph(fig, Model(Scatter, x="x", y="y", marker=core.NO_ROOF_MARKER, size=11,
                             fill_alpha=0, line_color=core.NO_ROOF_COLOR, line_width=1.3), cols)
    fig.add_tools(Model(HoverTool, renderers=[r], tooltips=tooltips))
    return "not judged (click to hide)", [(canvas_text(core.no_roof_label(rows)), [r])]


def _draw_above_roof(fig, drawable: pl.DataFrame,
                     scale: float) -> tuple[str, list[tuple[str, list]]]:
    """Points above their roof marked as on the PNG (a red X over the point); their legend.

    The legend has no entry when no point is above its roof.
    """
    from bokeh.models import Scatter

    from rooflow.html.bokehdoc import Model

    if "above_roof" not in drawable.columns:
        return "", []
    above = drawable.filter(pl.col("above_roof").fill_null(False))
    if not above.height:
        return "", []
    r = add_glyph(fig, Model(Scatter, x="x", y="y", marker="x", size=13, line_color="red",
                               line_width=2),
                  {"x": above["arithmetic_intensity"].to_list(),
                   "y": (above["performance"] / scale).to_list()})
    return "", [(ABOVE_ROOF, [r])]


def bandwidth_figure(rows: pl.DataFrame):
    """The PNG's bandwidth-only panel as a figure: achieved GB/s (dots), memory roof (bar).

    One row per memory level, log x; hover names the kernel. Bandwidth-only rows (copies,
    memsets: bytes and time, no operations) have no arithmetic intensity, so no place on
    the roofline.
    """
    from bokeh.models import FactorRange, HoverTool, Scatter

    from rooflow.html.bokehdoc import Model, figure

    rows = rows.filter(pl.col("achieved_bandwidth") > 0)
    levels = core.order(rows["level"], list(LEVELS))
    fig = figure(title=bandwidth_title(rows.height), x_axis_type="log",
                 y_range=Model(FactorRange, factors=levels[::-1]),
                 frame_width=FRAME[0] // 2, frame_height=40 + 30 * len(levels),
                 x_axis_label=BANDWIDTH_AXIS, tools="pan,wheel_zoom,reset,save")
    source = {
        "x": (rows["achieved_bandwidth"] / 1e9).to_list(), "level": rows["level"].to_list(),
        "kernel": [_cut(k or "") for k in rows["kernel"].to_list()],
        "series": [s or "" for s in rows["series"].to_list()],
        "time_txt": [time_text(t) for t in rows["time_s"].to_list()],
        "pct_txt": [num_text(p, ".1f", " %") for p in rows["pct_of_memory_roof"].to_list()]}
    dots = add_glyph(fig, Model(Scatter, x="x", y="level", size=7, fill_color=BANDWIDTH_COLOR,
                                  line_color=BANDWIDTH_COLOR, fill_alpha=0.6), source)
    roofs = rows.group_by("level", maintain_order=True).agg(pl.col("memory_roof").first() / 1e9)
    roofs = roofs.filter(pl.col("memory_roof") > 0)
    # A bar across the level's row, as the PNG's: a dash marker turned upright.
    add_glyph(fig, Model(Scatter, x="x", y="level", marker="dash", angle=math.pi / 2, size=22,
                           line_color="black", line_width=3),
              {"x": roofs["memory_roof"].to_list(), "level": roofs["level"].to_list()})
    fig.add_tools(Model(HoverTool, renderers=[dots], tooltips=[
        ("kernel", "@kernel"), ("series", "@series"), ("level", "@level"),
        ("achieved", "@x{0.[000]} GB/s"), ("% of memory roof", "@pct_txt"),
        ("time", "@time_txt")]))
    return fig
