"""The history plot (PNG/SVG/PDF): each kernel's time per call and % of roof, run by run.

Two panels sharing the run axis (in the runs' order): time per call (log scale; runs
without times: achieved performance) and % of roof. One line per kernel, the
:data:`KERNELS` slowest in the last run named and coloured, the rest grey; a step
``check`` judged a regression is ringed in red where it is drawn.

Columns in: :data:`rooflow.history.COLUMNS`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.ticker import FuncFormatter, NullFormatter

from rooflow.escape import short_names
from rooflow.io import atomic_path
from rooflow.plotting import core
from rooflow.plotting.markers import apart
from rooflow.plotting.roofline import new_figure, plain_text, save

KERNELS = 10
RUN_CHARS = 16  # a run's name under the axis: cut in the middle past this
KEY_CHARS = 40  # a kernel's name in the key: cut in the middle past this
REGRESSED_COLOR = "#d62728"
GREY_POINTS = 4000
"""Points of grey kernels drawn at most, on the PNG and the page (whole kernels): Agg
cannot draw one path through 10⁷ kernels' runs, and a grey blob of them says nothing."""


def key_names(names: list[str]) -> list[str]:
    """The coloured kernels' names in the key, PNG and page: :data:`KEY_CHARS` at most.

    Cut in the middle, so the series at their end stays and two cut alike are numbered.
    """
    return short_names(pl.Series(names, dtype=pl.String), KEY_CHARS, elide=False).to_list()


def kernel_colors(n: int) -> list[str]:
    """The colours of ``n`` coloured kernels (PNG and page): never the rings' red."""
    return core.palette(n, avoid=(REGRESSED_COLOR,))


def kernel_names(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` with ``name``: a kernel's shown name (kernel, else pair).

    With its series in brackets where the table has several: a run's Original and
    Optimized rows of one kernel are two lines, never one joined across them.
    """
    name = pl.coalesce(pl.col("kernel").replace("", None), pl.col("pair").replace("", None),
                       pl.lit(""))
    if table["series"].drop_nulls().n_unique() > 1:
        name = name + pl.lit(" (") + pl.col("series").fill_null("") + pl.lit(")")
    return table.with_columns(name=name)


def trend(table: pl.DataFrame) -> tuple[str, str, float]:
    """(column, axis title, scale) of the upper panel: time per call, else performance.

    Times are in s (labelled in ms). Runs without times are drawn by their achieved
    performance, divided by ``scale`` into T- or G-units of its first value's unit
    (:func:`rooflow.plotting.core.perf_scale`, as the roofline axes).
    """
    if table["time_s"].is_not_null().any():
        return "time_s", "Time per call", 1.0
    unit = table["unit"].drop_nulls()
    op = (unit[0] if unit.len() else "FLOP/s").removesuffix("/s")
    top = table.select(pl.col("performance").max().fill_null(0.0).cast(pl.Float64)).item()
    scale, text = core.perf_scale(top, op)
    return "performance", f"Performance ({text})", scale


def coloured(table: pl.DataFrame, column: str) -> list[str]:
    """The :data:`KERNELS` kernel names drawn in colour: the slowest in the last run first.

    ``table``: :func:`kernel_names`' columns; ``column``: the trend's (:func:`trend`).
    Short of :data:`KERNELS` in the last run, then the others in the table's order.
    """
    last = table.filter(pl.col("step") == pl.col("step").max())
    names = (last.sort(column, descending=True, nulls_last=True, maintain_order=True)["name"]
             .unique(maintain_order=True).head(KERNELS).to_list())
    if len(names) < KERNELS:
        others = table.filter(~pl.col("name").is_in(names))["name"].unique(maintain_order=True)
        names += others.head(KERNELS - len(names)).to_list()
    return names


def grey_kernels(table: pl.DataFrame, names: list[str], runs: int,
                 max_points: int = GREY_POINTS) -> tuple[pl.DataFrame, int]:
    """The rows of the kernels drawn grey, and how many other kernels are left out.

    ``table``: :func:`kernel_names`' columns; ``names``: the coloured kernels
    (:func:`coloured`); ``runs``: the runs drawn. Kernels with a regressed step first, then
    by name; whole kernels, ``max_points // runs`` of them (at least one). Rows sorted by
    kernel, then step (:func:`broken_paths`).
    """
    grey = (table.filter(~pl.col("name").is_in(names))
            .with_columns(_bad=pl.col("regressed").any().over("name"))
            .sort("_bad", "name", "step", descending=[True, False, False]))
    kernels = grey["name"].unique(maintain_order=True)
    keep = kernels.head(max(max_points // max(runs, 1), 1))
    shown = grey.filter(pl.col("name").is_in(keep.implode())).drop("_bad")
    return shown, kernels.len() - keep.len()


def broken_paths(rows: pl.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """(step, ``column``) of ``rows`` (sorted by name, then step), NaN between two kernels."""
    x, y = rows["step"].to_numpy().astype(float), rows[column].to_numpy().astype(float)
    # Where the name changes, in polars: no Python string per row.
    breaks = np.flatnonzero((rows["name"] != rows["name"].shift(1)).fill_null(False).to_numpy())
    return np.insert(x, breaks, np.nan), np.insert(y, breaks, np.nan)


def figure(table: pl.DataFrame, *, title: str, dpi: int = 150,
           max_points: int = GREY_POINTS):
    """The figure of :func:`plot_history`, not saved: axes 0 time per call, 1 % of roof.

    ``max_points``: points of grey kernels drawn at most (:func:`grey_kernels`).
    """
    table = kernel_names(table)
    runs = table["run"].unique(maintain_order=True).to_list()
    column, axis_title, scale = trend(table)
    names = coloured(table, column)
    colors = dict(zip(names, kernel_colors(len(names)), strict=True))
    key = dict(zip(names, key_names(names), strict=True))
    fig = new_figure(dpi)
    # Room below for the runs' names (16 characters, turned 30°) and the axis title.
    time_ax = fig.add_axes((0.1, 0.58, 0.6, 0.34))
    pct_ax = fig.add_axes((0.1, 0.18, 0.6, 0.33), sharex=time_ax)
    # The kernels past the coloured ones: grey, one line per axes, broken between kernels
    # (a line each would make a run of 10⁶ kernels 10⁶ artists), up to GREY_POINTS points.
    rest, left = grey_kernels(table, names, len(runs), max_points)
    # Rings only on drawn points: a regressed grey kernel left out has none (as on the page).
    drawn = pl.col("name").is_in(names) | pl.col("name").is_in(rest["name"].unique().implode())
    bad = table.filter(pl.col("regressed") & drawn)
    for ax, col in ((time_ax, column), (pct_ax, "pct_of_roof")):
        if rest.height:
            ax.plot(*broken_paths(rest, col), marker="o", ms=4, color="0.75")
        for name in reversed(list(colors)):
            rows = table.filter(name=name).sort("step")
            ax.plot(rows["step"].to_list(), rows[col].to_list(), marker="o", ms=4,
                    color=colors[name], label=key[name] if ax is time_ax else None)
        ax.plot(*apart(bad["step"].to_numpy(), bad[col].to_numpy()), ls="", marker="o",
                ms=11, mfc="none", mec=REGRESSED_COLOR, mew=2, zorder=5)
    time_ax.set(yscale="log", ylabel=axis_title, title=title)
    # As text (plain_text shows no math text: no 10^{-3} from the log formatter).
    text = ((lambda v: f"{v * 1e3:.3g} ms") if column == "time_s"
            else (lambda v: f"{v / scale:.3g}"))
    # One instance for major and minor: both set its axis to this same y axis, and it keeps
    # no state from one tick list to the next (a FuncFormatter's offset is a fixed "").
    labels = FuncFormatter(lambda v, _pos: text(v))
    time_ax.yaxis.set_major_formatter(labels)
    # Minor ticks (2 … 9 × a decade) labelled only within one decade: across more, the
    # labels of the upper ones run into each other (they are a few pixels apart).
    low, high = time_ax.get_ylim()
    time_ax.yaxis.set_minor_formatter(labels if high < 10 * low else NullFormatter())
    pct_ax.set(ylabel="% of roof", xlabel="Run")
    # Cut in the middle, so runs named alike up to their ends stay apart.
    pct_ax.set_xticks(range(len(runs)), short_names(pl.Series(runs, dtype=pl.String),
                                                    RUN_CHARS, elide=False).to_list(),
                      rotation=30, ha="right", fontsize=8)
    time_ax.tick_params(labelbottom=False)
    for ax in (time_ax, pct_ax):
        ax.grid(True, ls=":", lw=0.6, color="0.8")
    # Drawn last first (the first on top); keyed first first, in the page's order.
    handles, texts = time_ax.get_legend_handles_labels()
    time_ax.legend(handles[::-1], texts[::-1], loc="upper left", bbox_to_anchor=(1.01, 1.0),
                   fontsize=8, frameon=False)
    # The count is of the rings drawn; regressed steps of kernels left out are said apart.
    fig.text(0.72, 0.1, f"red ring: a regression by check's noise model ({bad.height})",
             fontsize=8, color=REGRESSED_COLOR)
    if left:
        fig.text(0.72, 0.135, left_out_text(left, int(table["regressed"].sum()) - bad.height),
                 fontsize=8, color="0.4")
    return fig


def left_out_text(left: int, hidden: int) -> str:
    """What the PNG and the page say of the ``left`` grey kernels not drawn.

    ``hidden``: the regressed steps among them (rings neither draws).
    """
    return (f"{left:,} more kernels not drawn (the table lists them)"
            + (f"; {hidden:,} regressed steps among them" if hidden else ""))


def plot_history(table: pl.DataFrame, out: str | Path, *, title: str, dpi: int = 150) -> Path:
    """Write the history plot of ``table`` to ``out``."""
    with plain_text():
        fig = figure(table, title=title, dpi=dpi)
        out = Path(out)
        with atomic_path(out) as tmp:
            save(fig, tmp, out.suffix.lstrip(".") or "png", dpi)
    return out
