"""Roofline plots (matplotlib, log-log) from analysis tables.

Single-level data: series → marker shape, family (or another column) → colour.
Hierarchical data (several memory levels): one memory roof per level, one compute
roof per precision; each kernel one colour, marker by level, its dots joined by a
faint line. Points above the roof are drawn (and listed by the caller), never clipped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from rooflow.defaults import plot_defaults  # noqa: E402
from rooflow.io import atomic_path  # noqa: E402
from rooflow.roofs.preset import Preset  # noqa: E402

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]
LEVEL_MARKERS = {"DRAM": "o", "HBM": "o", "L3": "D", "L2": "s", "L1": "^", "LDS": "v", "SLM": "v"}
_AXES_RECT = (0.09, 0.1, 0.6, 0.82)  # fixed, so roof-label angles are exact


_D = plot_defaults()


@dataclass(frozen=True)
class PlotOptions:
    """Per-dataset plot options; defaults are the config schema's ``plot_options`` defaults.

    ``color_by`` is the column that picks colours (``family``; ``dataset`` on overviews).
    """

    connect: bool = _D["connect"]
    annotate: bool = _D["annotate"]
    key: bool = _D["key"]
    series_order: Sequence[str] = tuple(_D["series_order"])
    dpi: int = _D["dpi"]
    title: str | None = _D["title"]
    formats: Sequence[str] = tuple(_D["formats"])
    top_n: int = _D["top_n"]
    color_by: str = "family"


@dataclass(frozen=True)
class Limits:
    """Axis limits: arithmetic intensity (FLOP/byte) and performance (FLOP/s)."""

    xmin: float
    xmax: float
    ymin: float
    ymax: float


def _decade_floor(v: float) -> float:
    return 10 ** math.floor(math.log10(v))


def _decade_ceil(v: float) -> float:
    return 10 ** math.ceil(math.log10(v))


def axis_limits(preset: Preset, tables: Sequence[pl.DataFrame] = ()) -> Limits:
    """Limits from the roof (ridge/1000 … ridge×100, roof/1e4 … peak×3), widened to the data.

    Snapped to decades, so every plot of one preset shares them unless its data
    fall outside the roof's window.
    """
    peak = max(preset.compute.values())
    ridge = preset.ridge_point
    xmin, xmax = ridge / 1000, ridge * 100
    ymin, ymax = preset.peak_bytes_per_s * xmin / 10, peak * 3
    for t in tables:
        if t.height:
            xmin = min(xmin, t["arithmetic_intensity"].min() / 2)
            xmax = max(xmax, t["arithmetic_intensity"].max() * 2)
            ymin = min(ymin, t["performance"].min() / 2)
            ymax = max(ymax, t["performance"].max() * 2)
    return Limits(_decade_floor(xmin), _decade_ceil(xmax), _decade_floor(ymin), _decade_ceil(ymax))


def _perf_unit(limits: Limits) -> tuple[float, str]:
    return (1e12, "TFLOP/s") if limits.ymax >= 1e13 else (1e9, "GFLOP/s")


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _draw_roofs(ax, preset: Preset, levels: Sequence[str], precisions: Sequence[str],
                limits: Limits, scale: float, unit: str) -> None:
    """Compute roofs per precision, memory roofs per level, ridge point of the defaults."""
    x = np.geomspace(limits.xmin, limits.xmax, 512)
    compute_keys = list(dict.fromkeys([preset.default_compute] + [
        c[0] for p in precisions if (c := preset.compute_roof(p))]))
    memory_keys = list(dict.fromkeys([preset.default_memory] + [
        m[0] for lv in levels if (m := preset.memory_roof(lv))]))
    for i, mkey in enumerate(memory_keys):
        bw = preset.memory[mkey]
        for j, ckey in enumerate(compute_keys):
            y = np.minimum(preset.compute[ckey], x * bw) / scale
            main = i == 0 and j == 0
            ax.plot(x, y, color="black" if main else "0.45", lw=2.0 if main else 1.0,
                    ls="-" if main else "--", zorder=2)
        # Memory-roof label along its slope, in the lower-left part of the plot.
        x0 = limits.xmin * 3
        y0 = x0 * bw / scale
        if y0 < preset.peak_flop_per_s / scale:
            p1 = ax.transData.transform((x0, y0))
            p2 = ax.transData.transform((x0 * 10, x0 * 10 * bw / scale))
            angle = math.degrees(math.atan2(p2[1] - p1[1], p2[0] - p1[0]))
            ax.text(x0, y0 * 1.25, f"{mkey}: {_fmt(bw / 1e9)} GB/s", rotation=angle,
                    rotation_mode="anchor", fontsize=8, va="bottom")
    # Compute-roof labels; roofs within 10 % of each other share one label.
    by_peak: dict[float, list[str]] = {}
    for ckey in sorted(compute_keys, key=preset.compute.get):
        peak = preset.compute[ckey]
        near = next((p for p in by_peak if abs(p - peak) <= 0.1 * p), peak)
        by_peak.setdefault(near, []).append(ckey)
    for peak, keys in by_peak.items():
        ax.text(limits.xmax / 1.2, peak / scale * 1.08,
                f"{', '.join(keys)}: {_fmt(peak / scale)} {unit}", ha="right", va="bottom",
                fontsize=8)
    ridge = preset.ridge_point
    ax.plot([ridge], [preset.peak_flop_per_s / scale], marker="o", ms=7, mfc="white",
            mec="black", zorder=3)
    ax.annotate(f"ridge point\n{_fmt(ridge)} FLOP/byte", (ridge, preset.peak_flop_per_s / scale),
                xytext=(6, -24), textcoords="offset points", fontsize=8)


def _order(values: pl.Series, preferred: Sequence[str] = ()) -> list[str]:
    """Distinct values: those in ``preferred`` first (in its order), then first-seen order."""
    first_seen = values.unique(maintain_order=True).to_list()
    return [v for v in preferred if v in first_seen] + [v for v in first_seen
                                                        if v not in preferred]


def _codes(values: pl.Series, order: Sequence[str]) -> np.ndarray:
    """Each row's index in ``order`` (vectorized: no per-row Python lookup)."""
    return values.replace_strict(list(order), list(range(len(order))),
                                 return_dtype=pl.Int64).to_numpy()


def _colors(n: int) -> list:
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def _markers(ax, x: np.ndarray, y: np.ndarray, marker: str, color, *, hollow: bool,
             size: float = 6.0, zorder: float = 4) -> None:
    """One marker per point as a single Line2D.

    Agg stamps one cached marker per point, an order of magnitude faster than a
    scatter's per-point paths on 10⁵–10⁶ points.
    """
    if not len(x):
        return
    face = "none" if hollow else color
    edge = color if hollow else "black"
    ax.plot(x, y, ls="", marker=marker, ms=size, mfc=face, mec=edge,
            mew=1.0 if hollow else 0.4, zorder=zorder)


def _top(table: pl.DataFrame, n: int) -> tuple[pl.DataFrame, int]:
    """The ``n`` points with most headroom (ties: file order) and how many were left out."""
    if table.height <= n:
        return table, 0
    ranked = table.with_row_index("_i").sort(["headroom", "_i"], descending=[True, False],
                                             nulls_last=True)
    return ranked.head(n).sort("_i").drop("_i"), table.height - n


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
    limits = axis_limits(preset, [table])
    scale, unit = _perf_unit(limits)
    fig = plt.figure(figsize=(11, 6.5))
    ax = fig.add_axes(_AXES_RECT)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(limits.xmin, limits.xmax)
    ax.set_ylim(limits.ymin / scale, limits.ymax / scale)
    ax.set_xlabel("Arithmetic intensity (FLOP/byte)")
    ax.set_ylabel(f"Attainable performance ({unit})")
    ax.grid(True, which="major", ls=":", lw=0.6, color="0.8")
    levels = _order(table["level"])
    hierarchical = len(levels) > 1
    _draw_roofs(ax, preset, levels, table["precision"].unique().to_list(), limits, scale, unit)
    if hierarchical:
        _draw_hierarchical(ax, table, levels, scale, options)
    else:
        _draw_points(ax, table, scale, options)
    title = options.title or f"{preset.name}"
    if preset.overridden:
        title += f" (overridden: {', '.join(preset.overridden)})"
    ax.set_title(title, fontsize=11)
    written = []
    for fmt in options.formats:
        path = Path(out).with_suffix(f".{fmt}")
        # Chunked paths: Agg refuses one path over its cell limit (10⁵+ arrow shafts).
        with atomic_path(path) as tmp, plt.rc_context({"agg.path.chunksize": 20_000}):
            fig.savefig(tmp, dpi=options.dpi, format=fmt)
        written.append(path)
    plt.close(fig)
    return written


def _draw_points(ax, table: pl.DataFrame, scale: float, options: PlotOptions) -> None:
    series = _order(table["series"], options.series_order)
    color_col = options.color_by if options.color_by in table.columns else "family"
    color_values = table[color_col].fill_null("")
    groups = _order(color_values)
    palette = dict(zip(groups, _colors(len(groups)), strict=True))
    marker = {s: MARKERS[i % len(MARKERS)] for i, s in enumerate(series)}
    x = table["arithmetic_intensity"].to_numpy()
    y = table["performance"].to_numpy() / scale
    # Colours repeat past the colour map's size, so points are grouped by colour index.
    distinct = len(set(palette.values()))
    color_index = _codes(color_values, groups) % distinct
    colors = list(palette.values())[:distinct]
    # One artist per (series, measured/theoretical, colour): a stable sort then split,
    # O(n log n) whatever the number of groups; draw order is series order.
    hollow = table["theoretical"].to_numpy().astype(np.int64)
    key = (_codes(table["series"], series) * 2 + hollow) * distinct + color_index
    order = np.argsort(key, kind="stable")
    for run in np.split(order, np.flatnonzero(np.diff(key[order])) + 1):
        k = int(key[run[0]])
        s, c = series[k // (2 * distinct)], k % distinct
        _markers(ax, x[run], y[run], marker[s], colors[c], hollow=bool(k // distinct % 2))
    if options.connect:
        _draw_arrows(ax, table, scale)
    handles = [plt.Line2D([], [], ls="", marker=marker[s], color="0.3", label=s) for s in series]
    leg = ax.legend(handles=handles, title="series", loc="upper left",
                    bbox_to_anchor=(1.01, 1.0), fontsize=8, title_fontsize=8, frameon=False)
    ax.add_artist(leg)
    if len(groups) > 1 or groups[0] != "":
        fam = [plt.Line2D([], [], ls="", marker="o", color=palette[g], label=g or "(none)")
               for g in groups[: options.top_n]]
        ax.legend(handles=fam, title=color_col, loc="upper left", bbox_to_anchor=(1.01, 0.62),
                  fontsize=8, title_fontsize=8, frameon=False)
    _label_points(ax, table, scale, options)


def _draw_arrows(ax, table: pl.DataFrame, scale: float) -> None:
    """Arrow Original → Optimized (else first → last) per pair, drawn vectorized."""
    pairs = (
        table.filter((pl.col("pair") != "") & ~pl.col("theoretical"))
        .with_row_index("_i")
        .group_by("pair", maintain_order=True)
        .agg(
            x0=pl.col("arithmetic_intensity").sort_by(pl.col("series") != "Original").first(),
            y0=pl.col("performance").sort_by(pl.col("series") != "Original").first(),
            x1=pl.col("arithmetic_intensity").sort_by(pl.col("series") == "Optimized").last(),
            y1=pl.col("performance").sort_by(pl.col("series") == "Optimized").last(),
            n=pl.len(),
        )
        .filter(pl.col("n") > 1)
    )
    if not pairs.height:
        return
    x0, y0 = pairs["x0"].to_numpy(), pairs["y0"].to_numpy() / scale
    x1, y1 = pairs["x1"].to_numpy(), pairs["y1"].to_numpy() / scale
    # All shafts as one NaN-separated line: ~3× faster to render than a LineCollection
    # on 10⁵–10⁶ pairs (one path instead of one per segment).
    gap = np.full(len(x0), np.nan)
    ax.plot(np.column_stack([x0, x1, gap]).ravel(), np.column_stack([y0, y1, gap]).ravel(),
            color="0.35", lw=0.9, solid_capstyle="butt", zorder=3)
    # Arrowheads: a triangle marker at the head, pointing along the dominant log-space axis.
    dx, dy = np.log10(x1 / x0), np.log10(y1 / y0)
    heads = np.where(np.abs(dy) >= np.abs(dx), np.where(dy >= 0, "^", "v"),
                     np.where(dx >= 0, ">", "<"))
    for m in ("^", "v", ">", "<"):
        sel = heads == m
        if sel.any():
            ax.plot(x1[sel], y1[sel], ls="", marker=m, ms=3.75, color="0.35", zorder=3)


def _label_points(ax, table: pl.DataFrame, scale: float, options: PlotOptions) -> None:
    """``annotate``: text beside points (de-overlapped); ``key``: numbered side key."""
    if not (options.annotate or options.key):
        return
    shown, left_out = _top(table, options.top_n)
    text = [lbl or pair or kernel for lbl, pair, kernel in
            zip(shown["label"], shown["pair"], shown["kernel"], strict=True)]
    x = shown["arithmetic_intensity"].to_numpy()
    y = shown["performance"].to_numpy() / scale
    if options.key:
        lines = []
        for i, (xi, yi, t, s) in enumerate(zip(x, y, text, shown["series"], strict=True), 1):
            ax.annotate(str(i), (xi, yi), xytext=(3, 3), textcoords="offset points", fontsize=6)
            lines.append(f"{i:>3}  {t} [{s}]")
        if left_out:
            lines.append(f"… {left_out} more not listed (top {options.top_n} by headroom)")
        ax.text(1.02, 0.38, "\n".join(lines), transform=ax.transAxes, fontsize=6, va="top",
                family="monospace")
    if options.annotate:
        from adjustText import adjust_text

        labels = [ax.text(xi, yi, t, fontsize=7) for xi, yi, t in zip(x, y, text, strict=True)]
        adjust_text(labels, ax=ax, arrowprops={"arrowstyle": "-", "color": "0.5", "lw": 0.5})
        if left_out:
            ax.text(0.01, 0.01, f"{left_out} labels left out (top {options.top_n} by headroom)",
                    transform=ax.transAxes, fontsize=7, color="0.4")


def _draw_hierarchical(ax, table: pl.DataFrame, levels: list[str], scale: float,
                       options: PlotOptions) -> None:
    """One colour per kernel, marker by level, a kernel's dots joined by a faint line.

    Many kernels stay readable: the top-N kernels by potential time saved (else by
    headroom) get colours and a numbered key; the rest are grey.
    """
    kernels = table.group_by(["source", "kernel"], maintain_order=True).agg(
        saved=pl.col("potential_time_saved_s").max(), headroom=pl.col("kernel_headroom").max())
    ranked = kernels.sort(["saved", "headroom"], descending=True, nulls_last=True)
    top = ranked.head(options.top_n)["kernel"].to_list()
    palette = dict(zip(top, _colors(len(top)), strict=True))
    # The grey kernels are drawn together (a constant number of artists however many),
    # then each coloured kernel on top.
    is_top = table["kernel"].is_in(list(palette))
    _kernel_dots(ax, table.filter(~is_top), levels, (0.7, 0.7, 0.7, 1.0), scale)
    for (name,), sub in table.filter(is_top).group_by("kernel", maintain_order=True):
        _kernel_dots(ax, sub, levels, palette[name], scale)
    handles = [plt.Line2D([], [], ls="", marker=LEVEL_MARKERS.get(lv, "P"), color="0.3",
                          label=lv) for lv in levels]
    leg = ax.legend(handles=handles, title="memory level", loc="upper left",
                    bbox_to_anchor=(1.01, 1.0), fontsize=8, title_fontsize=8, frameon=False)
    ax.add_artist(leg)
    lines = []
    for i, name in enumerate(top, 1):
        row = table.filter((pl.col("kernel") == name) & pl.col("binding")).head(1)
        info = ""
        if row.height:
            r = row.row(0, named=True)
            info = f" — {r['kernel_bound']}-bound, {r['kernel_headroom']:.2g}× headroom"
        short = name if len(name) <= 30 else name[:29] + "…"
        lines.append((f"{i:>2} {short}{info}", palette[name]))
    left_out = kernels.height - len(top)
    y = 0.7
    for text, color in lines:
        ax.text(1.02, y, text, transform=ax.transAxes, fontsize=6.5, color=color, va="top")
        y -= 0.035
    if left_out:
        ax.text(1.02, y, f"+{left_out} more kernels (grey)", transform=ax.transAxes,
                fontsize=6.5, color="0.4", va="top")


def _kernel_dots(ax, table: pl.DataFrame, levels: list[str], color, scale: float) -> None:
    """Each kernel's dots (marker by level) joined by a faint line, in one colour."""
    if not table.height:
        return
    table = table.sort(["kernel", "arithmetic_intensity"], maintain_order=True)
    x = table["arithmetic_intensity"].to_numpy()
    y = table["performance"].to_numpy() / scale
    # One line for all kernels, broken (NaN) where the kernel changes.
    names = table["kernel"]
    breaks = np.flatnonzero((names != names.shift(1)).fill_null(False).to_numpy())
    ax.plot(np.insert(x, breaks, np.nan), np.insert(y, breaks, np.nan), color=color, lw=0.8,
            alpha=0.35, zorder=3)
    level = table["level"].to_numpy()
    for lv in levels:
        sel = level == lv
        _markers(ax, x[sel], y[sel], LEVEL_MARKERS.get(lv, "P"), color, hollow=False,
                 size=6.3)
