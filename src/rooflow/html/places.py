"""Where a page's texts go: estimated text boxes, and roof and ridge labels kept clear.

A page is drawn in the browser, so its texts' sizes are estimated here from their
characters (:data:`CHAR_PX`, :data:`LINE_PX`: Bokeh's default font at 8 pt, a little
over what Chromium draws). The roof and ridge labels have the PNG's candidate places
(:func:`rooflow.plotting.roofs.memory_label_places`, ``compute_label_places``,
``ridge_label_places``); :func:`settle_labels` gives each the first that covers no marker and
no other text and stays in the frame, as the PNG's layout pass does with exact boxes; an
upright text (a compute roof's or a ridge's label) crosses no roof line either.
"""

from __future__ import annotations

import math
from weakref import WeakKeyDictionary

import numpy as np

FRAME = (760, 480)  # plot frame in pixels (width, height): fixes the roof-label angles
CHAR_PX = 5.6
"""Estimated width of an 8 pt character, pixels (5.4 measured in Chromium)."""
LINE_PX = 12.0
"""Estimated height of an 8 pt line, pixels."""
PX_PER_PT = 4 / 3
"""CSS pixels per point: the PNG's offsets (points) on the page."""

ROOF = "roof"
"""The ``name`` of a roof line's renderer: the lines an upright label keeps off."""
LINE_STEP_PX = 3.0
"""Spacing of a roof line's samples, pixels: under a text's height, so none passes through
a text unsampled."""

_PLACES: WeakKeyDictionary = WeakKeyDictionary()


def screen_xy(fig, x, y) -> np.ndarray:
    """Where data points (``x``, ``y``: numbers or arrays) are drawn on ``fig``'s log-log frame.

    Pixels from the frame's lower left corner, y up (the frame is :data:`FRAME`, its
    ranges as first drawn): shape (2,) for a point, (n, 2) for n points; NaN off the axes.
    """
    xr, yr = fig.x_range, fig.y_range
    with np.errstate(divide="ignore", invalid="ignore"):  # ≤ 0: off the log axes, NaN
        return np.stack([
            FRAME[0] * np.log10(np.asarray(x, float) / xr.start) / math.log10(xr.end / xr.start),
            FRAME[1] * np.log10(np.asarray(y, float) / yr.start) / math.log10(yr.end / yr.start),
        ], axis=-1)


def label_corners(fig, label) -> np.ndarray:
    """The four corners of a Label's text box: 4 × 2, screen pixels as :func:`screen_xy`.

    As Bokeh draws it: placed by its offsets and alignment, turned by its angle about its
    anchor (:func:`text_corners`).
    """
    angle = float(label.angle or 0.0)
    anchor = screen_xy(fig, label.x, label.y) + (label.x_offset or 0.0, label.y_offset or 0.0)
    return text_corners(anchor, label.text, label.text_align, label.text_baseline,
                        math.radians(angle) if label.angle_units == "deg" else angle)


def text_corners(anchor: np.ndarray, text: str, align: str = "left",
                 baseline: str = "bottom", angle: float = 0.0) -> np.ndarray:
    """The corners of an 8 pt text's box anchored at ``anchor`` (screen pixels).

    Turned by ``angle`` (radians) about the anchor. Its width is estimated from its
    longest line's characters (:data:`CHAR_PX` each), its height from its lines.
    """
    lines = text.split("\n")
    w, h = CHAR_PX * max(len(line) for line in lines), LINE_PX * len(lines)
    x0 = {"left": 0.0, "center": -w / 2, "right": -w}.get(align, 0.0)
    y0 = {"bottom": 0.0, "middle": -h / 2, "top": -h}.get(baseline, -0.2 * h)
    box = np.array([(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)])
    turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return box @ turn.T + anchor


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex polygons (n × 2 corners in order) overlap.

    They do when no edge of either separates them (the separating axis theorem); touching
    is not overlapping.
    """
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for nx, ny in np.column_stack([-edges[:, 1], edges[:, 0]]):
            pa, pb = a @ (nx, ny), b @ (nx, ny)
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def register(label, places: list[dict], region: float = 0.0, optional: bool = False) -> None:
    """Remember ``label``'s candidate places for :func:`settle_labels`, best first.

    A place is Label properties (``x``, ``y``, ``x_offset``, ``text_align`` ...), the
    PNG's candidates in its order. ``region``: the least x (frame pixels) its box may
    start at. ``optional``: left out where none of its places is clear (a thin roof's
    label, as on the PNG: ``rooflow.plotting.roofs.settle_labels``).
    """
    _PLACES[label] = (places, region, optional)


def roof_samples(fig) -> np.ndarray:
    """Points along the roof lines of ``fig`` (renderers named :data:`ROOF`): n × 2 pixels.

    Each polyline sampled every :data:`LINE_STEP_PX` pixels or closer, as the PNG's
    layout samples its lines (``rooflow.plotting.layout.line_samples``); those inside the
    frame.
    """
    samples = [np.empty((0, 2))]
    for r in fig.renderers:
        if r.name != ROOF:
            continue
        data = r.data_source.data
        path = screen_xy(fig, data[r.glyph.x], data[r.glyph.y])
        path = path[np.isfinite(path).all(axis=1)]
        if len(path) < 2:
            continue
        step = np.diff(path, axis=0)
        n = np.maximum(1, np.ceil(np.hypot(*step.T) / LINE_STEP_PX)).astype(int)
        at = np.repeat(np.arange(len(n)), n)
        frac = np.arange(len(at)) - np.repeat(np.cumsum(n) - n, n)
        samples += [path[:-1][at] + step[at] * (frac / n[at])[:, None], path[-1:]]
    out = np.concatenate(samples)
    # Only what is drawn: a thin roof's flat part above the top is no obstacle.
    return out[((out >= 0) & (out <= FRAME)).all(axis=1)]


def crossed(box: np.ndarray, samples: np.ndarray) -> int:
    """How many line ``samples`` (n × 2) lie inside the upright ``box`` (4 × 2 corners).

    1 px inside its edges, as the PNG's layout counts them.
    """
    low, high = box.min(axis=0) + 1, box.max(axis=0) - 1
    return int(np.count_nonzero(((samples > low) & (samples < high)).all(axis=1)))


def markers(fig) -> np.ndarray:
    """The figure's markers as boxes: n × 4 × 2 corners, frame pixels.

    Each Scatter's points, a square of its size (9 px where the size is a data column).
    """
    from bokeh.models import Scatter

    boxes = [np.empty((0, 4, 2))]
    for r in fig.renderers:
        glyph, data = r.glyph, r.data_source.data
        if not (glyph.is_a(Scatter) and isinstance(glyph.x, str)
                and isinstance(glyph.y, str) and glyph.x in data and glyph.y in data):
            continue
        half = float(glyph.size) / 2 if isinstance(glyph.size, (int, float)) else 4.5
        square = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
        boxes.append(screen_xy(fig, data[glyph.x], data[glyph.y]).reshape(-1, 1, 2) + square)
    return np.concatenate(boxes)


def covered(box: np.ndarray, obstacles: np.ndarray, region: float = 0.0,
            lines: np.ndarray | None = None) -> int:
    """How many of ``obstacles`` (n × 4 × 2) ``box`` overlaps: 0 where it is clear.

    With ``lines`` (line samples, m × 2; an upright ``box``), plus the samples inside it
    (:func:`crossed`). Plus n + m + 1 when it leaves the frame or starts left of
    ``region``: a place outside costs more than any inside. Obstacles whose bounding
    boxes meet ``box``'s are tested exactly (:func:`overlap`); thousands of points cost
    one array test.
    """
    low, high = box.min(axis=0), box.max(axis=0)
    outside = (low[0] < region or (low < 0).any() or high[0] > FRAME[0]
               or high[1] > FRAME[1])
    samples = 0 if lines is None else len(lines)
    hits = 0 if lines is None else crossed(box, lines)
    if len(obstacles):
        near = np.flatnonzero(((obstacles.min(axis=1) < high)
                               & (obstacles.max(axis=1) > low)).all(axis=1))
        hits += sum(overlap(box, obstacles[i]) for i in near)
    return hits + (len(obstacles) + samples + 1) * outside


def obstacles(fig, leave_out=()) -> np.ndarray:
    """What a text must not cover: n × 4 × 2 corners in frame pixels.

    The markers (:func:`markers`) and every Label of ``fig`` but those in ``leave_out``.
    """
    from bokeh.models.annotations import Label

    texts = [label_corners(fig, a) for a in fig.center
             if a.is_a(Label) and a not in leave_out]
    return np.concatenate([markers(fig), np.array(texts).reshape(-1, 4, 2)])


def first_clear(candidates, cost):
    """The first of ``candidates`` whose ``cost`` is 0, else the first of least cost.

    ``cost``: candidate → int, as :func:`covered`.
    """
    best, least = None, math.inf
    for candidate in candidates:
        c = cost(candidate)
        if c == 0:
            return candidate
        if c < least:
            best, least = candidate, c
    return best


def settle_labels(fig) -> None:
    """Move the registered labels of ``fig`` (roof and ridge labels) to clear places.

    Ridge labels first, then compute, then memory roof labels (the PNG's order); each takes
    its first place that covers no obstacle, else the one covering least. The obstacles
    are the markers drawn so far (:func:`markers`), the other texts and, for a compute
    roof's or ridge's label, the roof lines (:func:`roof_samples`); each label
    settled is one for the next. Then, as the PNG's layout pass does, a second pass: a
    label that still covers another (placed before the other was) takes again the best
    of its places among every text, so the first can make room for the second. A label
    registered ``optional`` (a thin roof's) that is still not clear then is removed.
    """
    from bokeh.models.annotations import Label

    moving = [a for a in fig.center if a.is_a(Label) and a in _PLACES]
    rank = {"ridge-label": 0, "roof-label:compute": 1, "roof-label:memory": 2}
    moving.sort(key=lambda a: rank.get(a.name or "", 3))
    registered = {a: _PLACES.pop(a) for a in moving}
    fixed = obstacles(fig, leave_out=registered)
    lines = roof_samples(fig)
    boxes: dict = {}

    def others_of(label) -> np.ndarray:  # the fixed obstacles and the other labels' boxes
        return np.concatenate([fixed, np.array(
            [b for a, b in boxes.items() if a is not label]).reshape(-1, 4, 2)])

    def cost_at(label, box: np.ndarray, others: np.ndarray, region: float) -> int:
        # A memory roof's label runs along its own line: lines count for upright labels.
        return covered(box, others, region, None if label.angle else lines)

    for second in (False, True):
        for label in moving:
            places, region, _ = registered[label]
            others = others_of(label)
            if second and not cost_at(label, boxes[label], others, region):
                continue

            def cost(place: dict, label=label, others=others, region=region) -> int:
                label.update(**place)
                return cost_at(label, label_corners(fig, label), others, region)

            label.update(**first_clear(places, cost))
            boxes[label] = label_corners(fig, label)
    # A thin roof's label with no clear place is left out, as on the PNG: judged where
    # every label now is.
    left = [a for a in moving
            if registered[a][2] and cost_at(a, boxes[a], others_of(a), registered[a][1])]
    for label in left:
        fig.center.remove(label)
