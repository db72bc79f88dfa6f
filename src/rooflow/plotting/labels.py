"""Point labels, the numbered key and the notes drawn on a plot.

Kernel names are shortened by :func:`rooflow.escape.short_names`, as in messages.
"""

from __future__ import annotations

import polars as pl

from rooflow.escape import short_names
from rooflow.plotting.core import ranked_by, top_points
from rooflow.points import distinct

KEY_MAX = 18  # characters of a name in the numbered key
AUTO_LABEL_MAX = 20  # annotate=None (auto): label a plot of at most this many points
KEY_TOP = 0.40  # axes fraction where the numbered key starts, below the legend
KEY_FONT = 6  # pt
NUMBER_RISE = (3.0, 11.0, 19.0, 27.0, 35.0)  # pt: rows a key number may take above a point
LABEL_FONT = 7  # pt


def point_text(table: pl.DataFrame) -> pl.Series:
    """Each row's label: ``label``, else ``pair``, else the shortened ``kernel``."""
    return short_names(pl.select(
        pl.coalesce(*(pl.when(table[c] != "").then(table[c]) for c in ("label", "pair")),
                    table["kernel"])).to_series())


def number_places(ax, x, y) -> list[tuple[float, float]]:
    """Offsets (points: right or left, up) of the key numbers beside the points ``(x, y)``.

    Greedy, in key order: each number takes the first of right of its point, left of it,
    one :data:`NUMBER_RISE` row higher, … where its box (a 2-digit number at
    :data:`KEY_FONT`) overlaps no number placed before, else the last. At most ``top_n``
    numbers, so the pairwise test stays small.
    """
    import numpy as np

    px = ax.figure.dpi / 72  # display pixels per point
    width, height = 2.2 * KEY_FONT, 1.2 * KEY_FONT  # points
    candidates = [(side, rise) for rise in NUMBER_RISE for side in (3.0, -3.0 - width)]
    at = ax.transData.transform(np.column_stack([x, y])) / px if len(x) else np.empty((0, 2))
    placed: list[tuple[float, float]] = []  # lower-left corners of the boxes, points
    offsets = []
    for x0, y0 in at:
        for dx, rise in candidates:
            corner = (x0 + dx, y0 + rise)
            if all(abs(corner[0] - bx) >= width or abs(corner[1] - by) >= height
                   for bx, by in placed):
                break
        placed.append(corner)
        offsets.append((dx, rise))
    return offsets


def _leader_lines(ax, x, y, places: list[tuple[float, float]]) -> None:
    """A faint line from each point to its number when the number sits rows above it.

    One NaN-separated Line2D in data coordinates: an offset in points is a fixed part of
    the fixed-size axes, so the ends hold at any dpi (an arrow patch per number
    was slow).
    """
    import numpy as np

    lifted = [i for i, (_, rise) in enumerate(places) if rise > NUMBER_RISE[0]]
    if not lifted:
        return
    px = ax.figure.dpi / 72
    start = ax.transData.transform(np.column_stack([x[lifted], y[lifted]]))
    shift = np.array([(places[i][0] + (KEY_FONT if places[i][0] > 0 else 1.2 * KEY_FONT),
                       places[i][1]) for i in lifted]) * px
    end = ax.transData.inverted().transform(start + shift)
    gap = np.full(len(lifted), np.nan)
    ax.plot(np.column_stack([x[lifted], end[:, 0], gap]).ravel(),
            np.column_stack([y[lifted], end[:, 1], gap]).ravel(), color="0.6", lw=0.4,
            zorder=3, gid="key-leaders")


def place_labels(ax, x, y, text: list[str]) -> None:
    """Each point's label beside it, where it covers no text, marker or line.

    :func:`.layout.place_point_texts`: a greedy search of places around each point,
    nearest first, with a leader line to a label set apart. adjustText was used before;
    it left labels over each other and over the roofs of clustered points, and drew the
    whole figure before moving anything.
    """
    from rooflow.plotting.layout import place_point_texts
    from rooflow.plotting.roofs import settle_labels

    settle_labels(ax, final=False)  # the roof and ridge labels first: few places to go
    place_point_texts(ax, x, y, text, fontsize=LABEL_FONT, gid="point-label")


def key_capacity(ax) -> int:
    """Lines of the numbered key that fit between its top and the bottom of the canvas."""
    pos = ax.get_position()
    room_pt = (pos.y0 + KEY_TOP * pos.height) * ax.figure.get_figheight() * 72
    return max(2, int(room_pt / (KEY_FONT * 1.2)) - 1)  # matplotlib's line spacing: 1.2


def label_points(ax, shown: pl.DataFrame, left_out: int, scale: float, *, annotate: bool,
                 key: bool, top_n: int) -> None:
    """``annotate``: text beside points (de-overlapped); ``key``: numbered side key.

    ``shown`` holds at most ``top_n`` rows, so the one Text per label is bounded. The key
    lists (and numbers on the plot) as many of them as fit on the canvas, those that
    matter most (:func:`.core.top_points`); the rest are counted in its last line.
    """
    if key:
        fits = key_capacity(ax)
        if shown.height + bool(left_out) > fits:
            shown, cut = top_points(shown, fits - 1)
            left_out += cut
    text = point_text(shown).to_list()
    x = shown["arithmetic_intensity"].to_numpy()
    y = shown["performance"].to_numpy() / scale
    if key:
        places = number_places(ax, x, y)
        for i, (xi, yi, (dx, rise)) in enumerate(zip(x, y, places, strict=True), 1):
            ax.annotate(str(i), (xi, yi), xytext=(dx, rise), textcoords="offset points",
                        fontsize=KEY_FONT)
        _leader_lines(ax, x, y, places)
        # The key sits in the ~2 inches right of the axes: entries cut to fit the canvas.
        lines = pl.select(pl.format("{}  {} [{}]", pl.int_range(1, shown.height + 1).cast(
            pl.String).str.pad_start(3), short_names(pl.Series(text, dtype=pl.String), KEY_MAX),
            short_names(shown["series"], 10))).to_series().to_list()
        if left_out:
            lines.append(f"… {left_out:,} more not listed")  # listed: those that matter most
        ax.text(1.02, KEY_TOP, "\n".join(lines), transform=ax.transAxes, fontsize=KEY_FONT,
                va="top", family="monospace", gid="key")
    if annotate:
        place_labels(ax, x, y, text)
        if left_out:
            ax.text(0.01, 0.01, f"{left_out} labels left out (top {top_n} {ranked_by(shown)})",
                    transform=ax.transAxes, fontsize=7, color="0.4")


def notes(table: pl.DataFrame, n_above: int, n_op: int) -> list[str]:
    """Lines drawn in the plot's upper-left corner: above-roof count, missing roofs, OP rows.

    A row's notes joined by "; " are a line each (a roof note, and bytes of the inputs only).
    """
    out = []
    if n_above:
        out.append(f"{n_above} point{'s' if n_above > 1 else ''} above the roof: "
                   "check peaks, units or clocks")
    if "roof_note" in table.columns:  # a row's notes are joined by "; ": one line each
        out += list(dict.fromkeys(
            part for n in distinct(table, "roof_note").drop_nulls().to_list()
            for part in str(n).split("; ") if part))
    if n_op:
        out.append(f"{n_op} integer-OP point{'s' if n_op > 1 else ''} drawn as ◆ in OP/s "
                   "against integer roofs")
    return out


LEFT_OUT_MAX = 3
"""Left-out notes drawn on a plot; more are counted (all are on stderr)."""


def left_out_lines(left_out) -> list[str]:
    """The notes box's lines on what the readers left out: at most :data:`LEFT_OUT_MAX`.

    ``["3 kernel(s) left out, no FLOP (…)"]``; past the third, "+N more notes on what
    was left out (stderr)".
    """
    out = list(left_out[:LEFT_OUT_MAX])
    if len(left_out) > LEFT_OUT_MAX:
        out.append(f"+{len(left_out) - LEFT_OUT_MAX} more notes on what was left out "
                   "(stderr)")
    return out
