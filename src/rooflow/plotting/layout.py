"""Where the fixed texts of a roofline axes go: roof, ridge and note texts where the data is not.

The point labels are placed first (:func:`place_point_texts`, on rings around their
points); then each fixed text tries its candidate places (:func:`place_fixed_texts`), in
order of preference, and takes the first that covers no other text, marker or line and
stays inside its region of the axes, else the one covering least. Everything is measured
in display pixels from the figure's own artists, once, with numpy: no draw of the
figure (its cost: bench/NOTES.md, the layout pass).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.text import Text
from matplotlib.transforms import Bbox

CLEARANCE = 14.0
"""pt around a fixed text kept clear of markers where a place allows (a point label's room)."""
MAX_LINE_POINTS = 4000
"""Vertices of one line sampled as an obstacle; longer lines (10⁵ arrows) are thinned."""
_EVERYWHERE = Bbox([[-1e9, -1e9], [1e9, 1e9]])


def line_samples(ax, step_px: float = 2.0, skip: Sequence[str] = ("minor-ticks",)) -> np.ndarray:
    """Points (display pixels) every ``step_px`` along the drawn lines of ``ax``, markers apart.

    Lines drawn with a line style only (roofs, leaders, trajectories); minor ticks (drawn
    outside the frame) are left out.
    """
    out = []
    for ln in ax.get_lines():
        gid = ln.get_gid() or ""
        if (not ln.get_visible() or ln.get_linestyle() in ("None", "", " ")
                or any(gid.startswith(s) for s in skip)):
            continue
        xy = np.asarray(ln.get_xydata(), float)
        if len(xy) < 2:
            continue
        if len(xy) > MAX_LINE_POINTS:
            xy = xy[:: len(xy) // MAX_LINE_POINTS + 1]
        with np.errstate(all="ignore"):
            d = ln.get_transform().transform(xy)
        a, b = d[:-1], d[1:]
        ok = np.isfinite(a).all(1) & np.isfinite(b).all(1)
        a, b = a[ok], b[ok]
        if not len(a):
            continue
        n = np.clip(np.ceil(np.hypot(*(b - a).T) / step_px), 1, 2000).astype(int)
        # k/n of each segment, k = 0 … n-1, without a Python loop over segments
        first = np.repeat(np.cumsum(n) - n, n)
        t = (np.arange(n.sum()) - first) / np.repeat(n, n)
        start = np.repeat(a, n, axis=0)
        out.append(start + (np.repeat(b, n, axis=0) - start) * t[:, None])
        out.append(b[-1:])
    return np.concatenate(out) if out else np.empty((0, 2))


def marker_points(ax, skip: Sequence[str] = ("minor-ticks",)) -> tuple[np.ndarray, np.ndarray]:
    """(centres in display pixels, radii in pixels) of the markers drawn on ``ax``.

    Line2D markers (rooflow draws its points so) and scatter collections; lines whose gid
    starts with one of ``skip`` left out.
    """
    px = ax.figure.dpi / 72
    centres, radii = [], []
    for ln in ax.get_lines():
        if not ln.get_visible() or ln.get_marker() in (None, "None", "", " "):
            continue
        if (ln.get_gid() or "").startswith(tuple(skip)):
            continue
        xy = np.asarray(ln.get_xydata(), float)
        xy = xy[np.isfinite(xy).all(1)]  # markers.apart's NaN between points
        if len(xy) > MAX_LINE_POINTS:  # 10⁵ above-roof X of a dense plot: a sample of them
            xy = xy[:: len(xy) // MAX_LINE_POINTS + 1]
        with np.errstate(all="ignore"):
            d = ln.get_transform().transform(xy) if len(xy) else np.empty((0, 2))
        d = d[np.isfinite(d).all(1)]
        centres.append(d)
        radii.append(np.full(len(d), (ln.get_markersize() / 2 + 1) * px))
    for c in ax.collections:
        offs = np.asarray(c.get_offsets(), float)
        if not len(offs) or not hasattr(c, "get_sizes"):
            continue
        if len(offs) > MAX_LINE_POINTS:
            offs = offs[:: len(offs) // MAX_LINE_POINTS + 1]
        d = c.get_offset_transform().transform(offs)
        sizes = c.get_sizes() if len(c.get_sizes()) else np.array([36.0])
        r = np.sqrt(np.resize(sizes, len(d))) / 2 * px
        ok = np.isfinite(d).all(1)
        centres.append(d[ok])
        radii.append(r[ok])
    if not centres:
        return np.empty((0, 2)), np.empty(0)
    return np.concatenate(centres), np.concatenate(radii)


def _covered(box: Bbox, boxes: Sequence[Bbox], lines: np.ndarray, markers, frame: Bbox,
             check_lines: bool) -> float:
    """How much ``box`` covers: a cost, 0 where it covers nothing.

    Per text overlapped 5,000 plus the area (px²); per marker 1,000; per line point
    inside (lines checked only for ``check_lines``) 300; per pixel outside ``frame`` 10⁴.
    """
    cost = 0.0
    for b in boxes:
        w = min(box.x1, b.x1) - max(box.x0, b.x0)
        h = min(box.y1, b.y1) - max(box.y0, b.y0)
        if w > 0 and h > 0:
            cost += 5e3 + w * h
    centres, radii = markers
    if len(centres):
        cx = np.clip(centres[:, 0], box.x0, box.x1) - centres[:, 0]
        cy = np.clip(centres[:, 1], box.y0, box.y1) - centres[:, 1]
        cost += 1e3 * np.count_nonzero(cx * cx + cy * cy < radii * radii)
    if check_lines and len(lines):
        inside = ((lines[:, 0] > box.x0 + 1) & (lines[:, 0] < box.x1 - 1)
                  & (lines[:, 1] > box.y0 + 1) & (lines[:, 1] < box.y1 - 1))
        cost += 300 * np.count_nonzero(inside)
    out = (max(frame.x0 - box.x0, 0) + max(box.x1 - frame.x1, 0)
           + max(frame.y0 - box.y0, 0) + max(box.y1 - frame.y1, 0))
    return cost + 1e4 * out


KEEP_PASSES = 3
"""Passes of :func:`place_fixed_texts` with ``keep``: enough for one text to make room."""


def place_fixed_texts(ax, candidates: dict[Text, list[dict]],
                      regions: dict[Text, float] | None = None, *,
                      keep: bool = False) -> set[Text]:
    """Give each text of ``candidates`` the first of its places that covers nothing.

    Args:
        ax: the axes; its lines, markers and other texts are the obstacles.
        candidates: text → places, best first; a place is ``Text.set`` keywords (``x``,
            ``y`` or ``position``, ``ha``, ``va``, ...). Its first place is where it is now.

        regions: text → the least x (display pixels) its box may start at (a compute
            roof's label stays over the flat part of its roof); others: the axes.

        keep: a text whose place covers nothing stays there (a second pass). Every other
            text of ``candidates`` is then an obstacle where it is now, and the pass is
            repeated (at most :data:`KEEP_PASSES` times) while a text moves, so a text
            placed first makes room for a later one that found no clear place (the fp32
            label under the two-line label of the roof above it).

    The texts are placed in the order given, each then an obstacle for the next.

    Returns:
        The texts left covering a text or marker, a line (upright texts: a rotated one's
        box is no rectangle round it), or out of their region, where they are placed.
    """
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    lines = line_samples(ax)
    markers = marker_points(ax)
    data = marker_points(ax, ("minor-ticks", "ridge"))  # a ridge label sits by its point
    moving = set(candidates)
    boxes = [t.get_window_extent(renderer) for t in _all_texts(fig)
             if t not in moving and t.get_visible() and t.get_text().strip()]
    frame = ax.bbox

    def region_of(text: Text) -> Bbox:
        if regions and text in regions:
            return Bbox([[max(frame.x0, regions[text]), frame.y0], [frame.x1, frame.y1]])
        return frame

    def place(text: Text, places: list[dict], obstacles: list[Bbox]) -> bool:
        """Put ``text`` at its best place; whether that covers a text, marker or line."""
        rotated = abs(text.get_rotation() % 180) > 1
        region = region_of(text)
        best, best_cost, covers = places[0], np.inf, True
        measured: dict[tuple, tuple[Bbox, np.ndarray]] = {}
        for where in places:
            text.set(**where)
            # A text's box moves with its anchor: measured once per wording and alignment.
            key = (text.get_text(), text.get_horizontalalignment(),
                   text.get_verticalalignment())
            anchor = _anchor(text)
            if key not in measured:
                measured[key] = text.get_window_extent(renderer), anchor
            box = measured[key][0].translated(*(anchor - measured[key][1]))
            over = _covered(box, obstacles, lines, markers, region, not rotated)
            if rotated:  # its box is no rectangle round its text: lines through the text
                over += 300 * _through_rotated(text, anchor, lines, renderer)
            # Kept clear of the data too: a point's label needs room beside it.
            cost = over + _covered(box.padded(CLEARANCE * fig.dpi / 72), [], lines[:0],
                                   data, _EVERYWHERE, False) / 1e3
            if cost < best_cost:
                best, best_cost, covers = where, cost, over > 0
            if cost == 0:
                break
        text.set(**best)
        return covers

    if not keep:
        left = set()
        for text, places in candidates.items():
            if place(text, places, boxes):
                left.add(text)
            boxes.append(text.get_window_extent(renderer))
        return left
    # The first pass as above, a text clear of those before it staying; while one is left
    # covering another, more passes, each text against every other where it is now (a
    # few: a crowded plot may never settle).
    now = {t: t.get_window_extent(renderer) for t in candidates}
    for n in range(KEEP_PASSES):
        done: list[Bbox] = []  # the first pass: the texts placed before this one
        covering = False
        for text, places in candidates.items():
            others = boxes + (done if n == 0 else
                              [b for t, b in now.items() if t is not text])
            rotated = abs(text.get_rotation() % 180) > 1
            if _covered(now[text], others, lines, markers, region_of(text), not rotated):
                covering |= place(text, places, others)
                now[text] = text.get_window_extent(renderer)
            done.append(now[text])
        if not covering:
            return set()
    return {t for t in candidates
            if _covered(now[t], boxes + [b for o, b in now.items() if o is not t], lines,
                        markers, region_of(t), abs(t.get_rotation() % 180) <= 1)}


def _through_rotated(text: Text, anchor: np.ndarray, lines: np.ndarray, renderer) -> int:
    """Line samples inside a rotated one-line text: a memory roof's label.

    It is anchored at its left end (``rotation_mode="anchor"``, ``va`` bottom or top).
    The samples are turned into the text's own frame, where it is a ``w`` × ``h``
    rectangle; 1 px inside its edges, as :func:`_covered` counts.
    """
    if not len(lines):
        return 0
    w, h, _ = renderer.get_text_width_height_descent(text.get_text(),
                                                     text.get_fontproperties(), False)
    a = np.radians(text.get_rotation())
    d = lines - anchor
    u = d[:, 0] * np.cos(a) + d[:, 1] * np.sin(a)
    v = -d[:, 0] * np.sin(a) + d[:, 1] * np.cos(a)
    lo = -h if text.get_verticalalignment() == "top" else 0.0
    return int(np.count_nonzero((u > 1) & (u < w - 1) & (v > lo + 1) & (v < lo + h - 1)))


def _anchor(text: Text) -> np.ndarray:
    """Where ``text`` is anchored, in display pixels.

    Its position; for an annotation, its point moved by its offset (points,
    ``textcoords="offset points"``, as the ridge labels are drawn).
    """
    from matplotlib.text import Annotation

    if isinstance(text, Annotation) and text.axes is not None:
        offset = np.asarray(text.get_position(), float) * text.axes.figure.dpi / 72
        return text.axes.transData.transform(text.xy) + offset
    return text.get_transform().transform(text.get_position())


def covers(ax, text: Text) -> bool:
    """Whether ``text`` covers a text, a marker or a line, or runs off the canvas.

    As :func:`place_fixed_texts` counts them: every text of the figure, the markers and
    lines of ``ax``.
    """
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    others = [t.get_window_extent(renderer) for t in _all_texts(fig)
              if t is not text and t.get_visible() and t.get_text().strip()]
    return _covered(text.get_window_extent(renderer), others, line_samples(ax),
                    marker_points(ax), fig.bbox, True) > 0


def _all_texts(fig) -> list[Text]:
    """The figure's texts, tick labels left out (they sit outside the frame).

    Gathered from each axes (its texts and three titles, its direct children; axis
    labels; legend) and the figure: ``findobj`` walks every artist, tick by tick, and
    costs more than the whole pass.
    """
    out: list[Text] = list(fig.texts)
    for ax in fig.axes:
        out += [c for c in ax.get_children() if isinstance(c, Text)]
        out += [ax.xaxis.label, ax.yaxis.label]
        legend = ax.get_legend()
        if legend is not None:
            out += [*legend.get_texts(), legend.get_title()]
    return out


def fit_legend(ax, past_px: float = 2.0) -> None:
    """Cut the legend texts that run off the canvas in the middle until they end on it.

    A legend right of the axes holds names from the input (families, datasets, series):
    one longer than the room left runs off the canvas. The texts that do are cut to one
    width, a character less each time one still does not fit (at first by the overflow's
    estimated characters), never below 8 characters, by
    :func:`rooflow.escape.short_names` (head, "…", the longer tail; no brackets elided),
    over all of them at once, so two names cut alike are numbered apart. Texts that fit
    (the legend's own words) are left whole. A text may reach ``past_px`` past the edge:
    a glyph's advance, no ink (the plot-overlap probe's tolerance too).
    """
    import polars as pl

    from rooflow.escape import short_names

    legend = ax.get_legend()
    if legend is None:
        return
    renderer = ax.figure.canvas.get_renderer()
    texts = legend.get_texts()
    widths = [t.get_window_extent(renderer).width for t in texts]
    if not widths:
        return
    # The texts are one column ending a border pad inside the legend's box.
    pad = legend.borderpad * legend.prop.get_size_in_points() * ax.figure.dpi / 72
    room = ax.figure.bbox.x1 + past_px - (legend.get_window_extent(renderer).x1 - pad
                                          - max(widths))
    long = [(t, t.get_text().split("\n")) for t, w in zip(texts, widths, strict=True)
            if w > room]
    if not long:
        return
    flat = pl.Series([line for _, lines in long for line in lines], dtype=pl.String)
    per_char = max(widths) / max(len(line) for _, lines in long for line in lines)
    width = max(len(line) for _, lines in long for line in lines) - math.ceil(
        (max(widths) - room) / per_char)
    while width >= 8:
        cut = iter(short_names(flat, width, elide=False).to_list())
        for text, lines in long:
            text.set_text("\n".join(next(cut) for _ in lines))
        if all(t.get_window_extent(renderer).width <= room for t, _ in long):
            return
        width -= 1


RINGS = (9.0, 16.0, 26.0, 38.0, 54.0, 74.0, 100.0, 130.0, 170.0, 220.0, 280.0)
"""pt: distances from a point at which its label is tried, nearest first."""
DIRECTIONS = 24
"""Directions tried on each ring, starting up-right (a label's usual place)."""


def ring_places() -> list[tuple[float, float, str, str]]:
    """(dx, dy in points, ha, va) of the places around a point, nearest ring first.

    First a label's usual place: its lower-left corner 4 pt right of and 3 pt above its
    point, clear of a 6 pt marker.
    """
    out = [(4.0, 3.0, "left", "bottom")]
    for r in RINGS:
        for k in range(DIRECTIONS):
            a = np.pi / 4 + 2 * np.pi * k / DIRECTIONS
            c, s = np.cos(a), np.sin(a)
            ha = "left" if c > 0.3 else "right" if c < -0.3 else "center"
            va = "bottom" if s > 0.3 else "top" if s < -0.3 else "center"
            out.append((r * c, r * s, ha, va))
    return out


_SHIFT = {"left": 0.0, "bottom": 0.0, "center": 0.5, "right": 1.0, "top": 1.0}
"""Share of an unrotated text's width (height) left of (below) its anchor, by alignment."""


def _moved(box: Bbox, at: tuple, to: tuple, px: float) -> Bbox:
    """The box of a text placed at ``at`` (dx, dy in points, ha, va), moved to ``to``.

    An unrotated text's box only moves with its offset and alignment: measured once
    (``get_window_extent`` lays the text out, the costly step: bench/NOTES.md), each of a
    label's ~270 places is then a sum.
    """
    w, h = box.width, box.height
    x0 = box.x0 + (to[0] - at[0]) * px - (_SHIFT[to[2]] - _SHIFT[at[2]]) * w
    y0 = box.y0 + (to[1] - at[1]) * px - (_SHIFT[to[3]] - _SHIFT[at[3]]) * h
    return Bbox.from_bounds(x0, y0, w, h)


def _leader(at, box: Bbox, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """A leader line's (start, end), display pixels.

    From ``gap`` past the point ``at`` to 1 px short of the box's edge: a line into a
    text's box reads as crossing it.
    """
    edge = np.array([np.clip(at[0], box.x0, box.x1), np.clip(at[1], box.y0, box.y1)])
    d = edge - at
    unit = d / max(float(np.hypot(*d)), 1e-9)
    return at + unit * gap, edge - unit


def _samples(a, b, step: float = 2.0) -> np.ndarray:
    """Points every ``step`` pixels from ``a`` to ``b``."""
    n = max(int(np.hypot(*(b - a)) / step), 1)
    return a + (b - a) * (np.arange(n + 1) / n)[:, None]


def _crosses(segment, box: Bbox) -> bool:
    """Whether the segment passes through ``box`` (its samples, 2 px apart)."""
    p = _samples(*segment)
    return bool(np.any((p[:, 0] > box.x0 - 1) & (p[:, 0] < box.x1 + 1)
                       & (p[:, 1] > box.y0 - 1) & (p[:, 1] < box.y1 + 1)))


def place_point_texts(ax, x, y, texts: Sequence[str], *, fontsize: float, gid: str,
                      color="black", clear_only: bool = False) -> list:
    """Each text beside its point ``(x[i], y[i])`` (data) where it covers nothing.

    Greedy, in the order given (the points that matter first): each text takes the first
    place on rings around its point (:data:`RINGS`, :data:`DIRECTIONS`) that covers no
    text placed before, no marker, no line and stays in the axes, else the place covering
    least; ``clear_only``: else none, the text is left out (a crowded plot's labels). A
    text off its first ring gets a faint leader line to its point. No draw of the figure:
    boxes come from the text renderer alone. The fixed texts (roof and ridge labels,
    notes) are settled before (:func:`rooflow.plotting.roofs.settle_labels`).

    Returns:
        The texts placed, in the order given (all of them unless ``clear_only``).
    """
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    lines = line_samples(ax)
    markers = marker_points(ax)
    boxes = [t.get_window_extent(renderer) for t in _all_texts(fig)
             if t.get_visible() and t.get_text().strip()]
    frame = ax.bbox
    places = ring_places()
    out, leaders = [], []
    px = fig.dpi / 72
    for xi, yi, text in zip(x, y, texts, strict=True):
        label = ax.annotate(text, (xi, yi), xytext=places[0][:2], textcoords="offset points",
                            fontsize=fontsize, ha=places[0][2], va=places[0][3], gid=gid,
                            color=color)
        at = ax.transData.transform((xi, yi))
        first = label.get_window_extent(renderer)  # measured once, then moved per place
        best, best_cost, best_leader = places[0], np.inf, None
        for place in places:
            box = _moved(first, places[0], place, px)
            cost = _covered(box, boxes, lines, markers, frame, True)
            leader = None
            if cost < best_cost and np.hypot(*place[:2]) > RINGS[0] - 1:
                leader = _leader(at, box, 3 * px)
                # A leader crossing a text placed before is as bad as the text over it.
                cost += 1e3 * sum(_crosses(leader, b) for b in boxes)
            if cost < best_cost:
                best, best_cost, best_leader = place, cost, leader
            if cost == 0:
                break
        if clear_only and best_cost > 0:
            label.remove()
            continue
        label.set(position=best[:2], ha=best[2], va=best[3])
        boxes.append(label.get_window_extent(renderer))
        out.append(label)
        if best_leader is not None:
            leaders.append(best_leader)
            lines = np.concatenate([lines, _samples(*best_leader)])
    if leaders:
        inv = ax.transData.inverted()
        seg = [np.vstack([inv.transform(np.vstack([a, b])), [np.nan, np.nan]])
               for a, b in leaders]
        xy = np.vstack(seg)
        ax.plot(xy[:, 0], xy[:, 1], color="0.6", lw=0.5, zorder=3, gid=f"{gid}-leaders")
    return out
