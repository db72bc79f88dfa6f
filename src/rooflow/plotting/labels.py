"""Point labels, the numbered key and the notes drawn on a plot.

Kernel names are shortened by :func:`rooflow.escape.short_names`, as in messages.
"""

from __future__ import annotations

import polars as pl

from rooflow.escape import short_names
from rooflow.plotting.bandwidth import key_floor
from rooflow.plotting.core import ranked_by, top_points

KEY_MAX = 18  # characters of a name in the numbered key, beside its series' (10 + brackets)
KEY_MAX_ONE_SERIES = KEY_MAX + 8  # most of the series' room, where all rows are of one series
AUTO_LABEL_MAX = 20  # annotate=None (auto): label a plot of at most this many points
KEY_FONT = 6  # pt
LABEL_FONT = 7  # pt


def point_text(table: pl.DataFrame) -> pl.Series:
    """Each row's label: ``label``, else ``pair``, else the shortened ``kernel``."""
    return short_names(pl.select(
        pl.coalesce(*(pl.when(table[c] != "").then(table[c]) for c in ("label", "pair")),
                    table["kernel"])).to_series())


def place_labels(ax, x, y, text: list[str]) -> int:
    """Each point's label beside it, where it covers no text, marker or line.

    Returns how many found no such place and were left out.
    :func:`.layout.place_point_texts`: a greedy search of places around each point,
    nearest first, with a leader line to a label set apart. adjustText was used before;
    it left labels over each other and over the roofs of clustered points, and drew the
    whole figure before moving anything.
    """
    from rooflow.plotting.layout import place_point_texts
    from rooflow.plotting.roofs import settle_labels

    settle_labels(ax, final=False)  # the roof and ridge labels first: few places to go
    return len(text) - len(place_point_texts(ax, x, y, text, fontsize=LABEL_FONT,
                                             gid="point-label", clear_only=True))


def key_capacity(ax, top: float) -> int:
    """Lines of the numbered key that fit from its ``top`` (axes fraction) to its end.

    Its end: the bottom of the canvas, or the top of the bandwidth-only panel where one is
    drawn (:func:`.bandwidth.key_floor`). 0 where the legend reaches below it.
    """
    pos = ax.get_position()
    room = pos.y0 + top * pos.height - key_floor(ax.figure)  # figure fraction
    room_pt = room * ax.figure.get_figheight() * 72
    return max(0, int(room_pt / (KEY_FONT * 1.2)) - 1)  # matplotlib's line spacing: 1.2


def label_points(ax, shown: pl.DataFrame, left_out: int, scale: float, *, annotate: bool,
                 key: bool, top_n: int, key_top: float = 1.0) -> None:
    """``annotate``: text beside points (de-overlapped); ``key``: numbered side key.

    ``shown`` holds at most ``top_n`` rows, so the one Text per label is bounded. The key
    starts at ``key_top`` (axes fraction: below the legend) and lists (and numbers on the
    plot) as many of them as fit above its end (:func:`key_capacity`), those that matter
    most (:func:`.core.top_points`); the rest are counted in its last line. Without room
    for one entry and that line (a legend reaching the canvas's bottom), no key: a note
    says so, as it counts the labels left out.
    """
    said = []  # a note in a corner of the axes
    if key:
        fits = key_capacity(ax, key_top)
        if fits < 2:
            key = False
            said.append("no numbered key: the legend leaves it no room")
        elif shown.height + bool(left_out) > fits:
            shown, cut = top_points(shown, fits - 1)
            left_out += cut
    text = point_text(shown).to_list()
    x = shown["arithmetic_intensity"].to_numpy()
    y = shown["performance"].to_numpy() / scale
    if key:
        from rooflow.plotting.layout import place_point_texts
        from rooflow.plotting.roofs import settle_labels

        # Each number beside its point, clear of the markers, lines and other texts, as
        # the point labels (a leader line to a number set apart).
        settle_labels(ax, final=False)  # the roof and ridge labels first: few places to go
        place_point_texts(ax, x, y, [str(i) for i in range(1, len(x) + 1)],
                          fontsize=KEY_FONT, gid="key-number")
        # The key sits in the ~2 inches right of the axes: entries cut to fit the canvas;
        # a series named only where there are several (the legend names a lone one).
        numbers = pl.int_range(1, shown.height + 1).cast(pl.String).str.pad_start(3)
        names = pl.Series(text, dtype=pl.String)
        several = shown["series"].n_unique() > 1

        def key_text(cut: int) -> str:
            """The key's lines, names cut to ``cut`` characters less than their room."""
            if several:
                entry = pl.format("{}  {} [{}]", numbers, short_names(names, KEY_MAX - cut),
                                  short_names(shown["series"], 10))
            else:
                entry = pl.format("{}  {}", numbers,
                                  short_names(names, KEY_MAX_ONE_SERIES - cut))
            lines = pl.select(entry).to_series().to_list()
            if left_out:  # listed: those that matter most
                lines.append(f"… {left_out:,} more not listed")
            return "\n".join(lines)

        key_artist = ax.text(1.02, key_top, key_text(0), transform=ax.transAxes,
                             fontsize=KEY_FONT, va="top", family="monospace", gid="key")
        # Names made unique ("#12") or of wide characters can still run past the edge.
        renderer = ax.figure.canvas.get_renderer()
        for cut in (4, 8):
            if key_artist.get_window_extent(renderer).x1 <= ax.figure.bbox.x1:
                break
            key_artist.set_text(key_text(cut))
    if annotate:
        crowded = place_labels(ax, x, y, text)
        said += ([f"{left_out} labels left out (top {top_n} {ranked_by(shown)})"]
                 * bool(left_out)
                 + [f"{crowded} label{'s' * (crowded > 1)} left out: no place clear of the "
                    "points, lines and other labels"] * bool(crowded))
    if said:  # in a corner clear of the data, as the notes box (the layout's last pass)
        from rooflow.plotting.roofs import register_notes

        register_notes(ax, ax.text(0.01, 0.01, "; ".join(said), transform=ax.transAxes,
                                   fontsize=7, color="0.4", gid="labels-left-out"))


LEFT_OUT_MAX = 3
"""Left-out notes drawn on a plot; more are counted (all are on stderr)."""
LEFT_OUT_WIDTH = 90
"""Characters of one left-out note in a PNG's notes box (the page and stderr have it whole)."""


def left_out_lines(left_out) -> list[str]:
    """The notes box's lines on what the readers left out: at most :data:`LEFT_OUT_MAX`.

    ``["3 kernel(s) left out, no FLOP (…)"]``, each cut to :data:`LEFT_OUT_WIDTH`
    characters; past the third, "+N more notes on what was left out (stderr)".
    """
    # Notes that read alike once cut are drawn once.
    cut = dict.fromkeys(n if len(n) <= LEFT_OUT_WIDTH else n[: LEFT_OUT_WIDTH - 1].rstrip()
                        + "…" for n in left_out)
    out = list(cut)[:LEFT_OUT_MAX]
    if len(cut) > LEFT_OUT_MAX:
        out.append(f"+{len(cut) - LEFT_OUT_MAX} more notes on what was left out "
                   "(stderr)")
    return out
