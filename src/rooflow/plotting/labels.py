"""Point labels, the numbered key, short kernel names and the notes drawn on a plot."""

from __future__ import annotations

import polars as pl

from rooflow.plotting.core import ranked_by, top_points
from rooflow.points import distinct

KEY_MAX = 18  # characters of a name in the numbered key
AUTO_LABEL_MAX = 20  # annotate=None (auto): label a plot of at most this many points
NAME_MAX = 40  # characters of a shortened kernel name
KEY_TOP = 0.40  # axes fraction where the numbered key starts, below the legend
KEY_FONT = 6  # pt
NUMBER_RISE = (3.0, 11.0, 19.0, 27.0, 35.0)  # pt: rows a key number may take above a point
LABEL_FONT = 7  # pt
LABEL_OFFSET = (4.0, 3.0)  # pt: a label's lower-left corner, right of and above its point
MARKER_REACH = 3.5  # pt: half a 6 pt marker, with its edge


def short_names(names: pl.Series, width: int = NAME_MAX) -> pl.Series:
    """Kernel names with template arguments ``<…>`` and parameter lists ``(…)`` elided.

    ``void gemm<float, 128>(float*, int)`` → ``void gemm<…>(…)``; still longer than
    ``width`` → cut with "…". Vectorized: innermost brackets are replaced first, as many
    passes as the deepest nesting (each pass is one polars string operation).
    """
    s = names.cast(pl.String).fill_null("")
    for inner, mark in ((r"<[^<>]*>", "\x01"), (r"\([^()]*\)", "\x02")):
        while s.str.contains(inner).any():
            s = s.str.replace_all(inner, mark)
    s = s.str.replace_all("\x01", "<…>", literal=True).str.replace_all("\x02", "(…)",
                                                                           literal=True)
    long = s.str.len_chars() > width
    return pl.select(pl.when(long).then(s.str.slice(0, width - 1) + "…").otherwise(s)
                     .alias(names.name)).to_series()


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
    """Each point's label up and right of it; de-overlapped by adjustText when they crowd.

    adjustText only runs when a label so placed would overlap another label or a
    labelled point, or leave the axes: it imports scipy and draws the whole figure
    before it moves anything, the most of a small plot's time.
    """
    labels = [ax.annotate(t, (xi, yi), xytext=LABEL_OFFSET, textcoords="offset points",
                          fontsize=LABEL_FONT) for xi, yi, t in zip(x, y, text, strict=True)]
    if not _crowded(ax, labels, x, y):
        return
    for label in labels:
        label.remove()
    from adjustText import adjust_text

    texts = [ax.text(xi, yi, t, fontsize=LABEL_FONT) for xi, yi, t in zip(x, y, text, strict=True)]
    adjust_text(texts, ax=ax, arrowprops={"arrowstyle": "-", "color": "0.5", "lw": 0.5})


def _crowded(ax, labels: list, x, y) -> bool:
    """Whether a label's box overlaps another's or another point's marker, or leaves the axes.

    A label's own point is left out of the test: the label sits beside it by
    construction (:data:`LABEL_OFFSET`), with only half a point to spare past its marker.
    """
    import numpy as np

    renderer = ax.figure.canvas.get_renderer()
    boxes = [label.get_window_extent(renderer) for label in labels]
    reach = MARKER_REACH * ax.figure.dpi / 72  # display pixels around a point's centre
    at = ax.transData.transform(np.column_stack([x, y])) if len(x) else np.empty((0, 2))
    frame = ax.bbox
    for i, box in enumerate(boxes):
        near = ((np.abs(at[:, 0] - np.clip(at[:, 0], box.x0, box.x1)) < reach)
                & (np.abs(at[:, 1] - np.clip(at[:, 1], box.y0, box.y1)) < reach))
        near[i] = False
        if (box.x0 < frame.x0 or box.x1 > frame.x1 or box.y0 < frame.y0 or box.y1 > frame.y1
                or box.count_overlaps(boxes[:i]) or near.any()):
            return True
    return False


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
