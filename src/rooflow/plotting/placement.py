"""Label placement: adjustText 1.4.0's ``adjust_text``, as :mod:`.labels` calls it.

adjustText imports ``scipy.spatial`` (with scipy.sparse, scipy.linalg, scipy.special,
numpy.fft and numpy.f2py) and pyplot when it is imported, for one k-d tree query that
finds the label centres within a radius of each other. This is its algorithm for the one
call rooflow makes (default forces, ``only_move="xy"``, not expanding the axes), with that
query done by numpy on the few labels a plot has (at most ``top_n``), so a labelled plot
loads neither; the labels land where adjustText puts them.

Derived from adjustText 1.4.0 (https://github.com/Phlya/adjustText; ``overlap_intervals``
from bioframe), MIT License, Copyright (c) 2017 Ilya Flyamer:

    Permission is hereby granted, free of charge, to any person obtaining a copy of this
    software and associated documentation files (the "Software"), to deal in the Software
    without restriction, including without limitation the rights to use, copy, modify,
    merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
    permit persons to whom the Software is furnished to do so, subject to the following
    conditions: The above copyright notice and this permission notice shall be included in
    all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS",
    WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
    WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
    NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR
    OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
    OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""

from __future__ import annotations

import logging
from timeit import default_timer as timer
from typing import Any

import numpy as np
from matplotlib.patches import FancyArrowPatch

logger = logging.getLogger(__name__)

FORCE_TEXT = (0.1, 0.2)
FORCE_STATIC = (0.1, 0.2)
FORCE_PULL = (0.01, 0.01)
FORCE_EXPLODE = (0.1, 0.5)
PULL_THRESHOLD = 10.0
EXPAND = (1.05, 1.2)
MAX_MOVE = (10, 10)
MIN_ARROW_LEN = 5.0
TIME_LIM = 1.0  # s: adjustText's limit when neither a time nor an iteration limit is given


def _intersect(seg1, seg2) -> bool:
    x1, y1, x2, y2 = seg1
    x3, y3, x4, y4 = seg2
    denom = (y4 - y3) * (x2 - x1) - (x4 - x3) * (y2 - y1)
    if denom == 0:  # parallel
        return False
    ua = ((x4 - x3) * (y1 - y3) - (y4 - y3) * (x1 - x3)) / denom
    if ua < 0 or ua > 1:
        return False
    ub = ((x2 - x1) * (y1 - y3) - (y2 - y1) * (x1 - x3)) / denom
    return not (ub < 0 or ub > 1)


def _arange_multi(starts, stops):
    lengths = stops - starts
    cat_start = np.repeat(starts, lengths)
    cat_counter = np.arange(lengths.sum()) - np.repeat(lengths.cumsum() - lengths, lengths)
    return cat_start + cat_counter


def _overlap_intervals(starts1, ends1, starts2, ends2):
    """Index pairs (into set 1, into set 2) of the open intervals that overlap."""
    starts1, ends1 = np.asarray(starts1), np.asarray(ends1)
    starts2, ends2 = np.asarray(starts2), np.asarray(ends2)
    ids1, ids2 = np.arange(0, len(starts1)), np.arange(0, len(starts2))
    order1, order2 = np.lexsort([ends1, starts1]), np.lexsort([ends2, starts2])
    starts1, ends1, ids1 = starts1[order1], ends1[order1], ids1[order1]
    starts2, ends2, ids2 = starts2[order2], ends2[order2], ids2[order2]
    s21 = np.searchsorted(starts2, starts1, "left")
    e21 = np.searchsorted(starts2, ends1, "left")
    s12 = np.searchsorted(starts1, starts2, "right")
    e12 = np.searchsorted(starts1, ends2, "left")
    m21, m12 = e21 > s21, e12 > s12
    s21, e21, s12, e12 = s21[m21], e21[m21], s12[m12], e12[m12]
    return np.block([
        [np.repeat(ids1[m21], e21 - s21)[:, None], ids2[_arange_multi(s21, e21)][:, None]],
        [ids1[_arange_multi(s12, e12)][:, None], np.repeat(ids2[m12], e12 - s12)[:, None]],
    ])


def _coordinates(texts, ax):
    """Each text's box in display coordinates: columns xmin, xmax, ymin, ymax."""
    renderer = ax.get_figure().canvas.get_renderer()
    boxes = [t.get_window_extent(renderer).expanded(1.0, 1.0) for t in texts]
    xs = [(ax.convert_xunits(b.xmin), ax.convert_yunits(b.xmax)) for b in boxes]
    ys = [(ax.convert_xunits(b.ymin), ax.convert_yunits(b.ymax)) for b in boxes]
    return np.hstack([np.array(xs), np.array(ys)])


def _shifts_texts(coords):
    n = coords.shape[0]
    xo = _overlap_intervals(coords[:, 0], coords[:, 1], coords[:, 0], coords[:, 1])
    xo = xo[xo[:, 0] != xo[:, 1]]
    yo = _overlap_intervals(coords[:, 2], coords[:, 3], coords[:, 2], coords[:, 3])
    yo = yo[yo[:, 0] != yo[:, 1]]
    overlaps = yo[(yo[:, None] == xo).all(-1).any(-1)]
    if len(overlaps) == 0:
        return np.zeros(n), np.zeros(n)
    diff = coords[overlaps[:, 1]] - coords[overlaps[:, 0]]
    xs = np.where(np.abs(diff[:, 0]) < np.abs(diff[:, 1]), diff[:, 0], diff[:, 1])
    ys = np.where(np.abs(diff[:, 2]) < np.abs(diff[:, 3]), diff[:, 2], diff[:, 3])
    return (np.bincount(overlaps[:, 0], xs, minlength=n),
            np.bincount(overlaps[:, 0], ys, minlength=n))


def _shifts_extra(coords, extra):
    n = coords.shape[0]
    xo = _overlap_intervals(coords[:, 0], coords[:, 1], extra[:, 0], extra[:, 1])
    yo = _overlap_intervals(coords[:, 2], coords[:, 3], extra[:, 2], extra[:, 3])
    overlaps = yo[(yo[:, None] == xo).all(-1).any(-1)]
    if len(overlaps) == 0:
        return np.zeros(n), np.zeros(n)
    diff_x = coords[overlaps[:, 0], :2] - extra[overlaps[:, 1], -3::-1]
    diff_y = coords[overlaps[:, 0], 2:] - extra[overlaps[:, 1], -1:-3:-1]
    xs = np.where(np.abs(diff_x[:, 0]) < np.abs(diff_x[:, 1]), diff_x[:, 0], diff_x[:, 1])
    ys = np.where(np.abs(diff_y[:, 0]) < np.abs(diff_y[:, 1]), diff_y[:, 0], diff_y[:, 1])
    return (np.bincount(overlaps[:, 0], xs, minlength=n),
            np.bincount(overlaps[:, 0], ys, minlength=n))


def _expand(coords, x_frac, y_frac):
    mid_x = np.mean(coords[:, :2], axis=1)
    mid_y = np.mean(coords[:, 2:], axis=1)
    x = np.subtract(coords[:, :2], mid_x[:, np.newaxis]) * x_frac + mid_x[:, np.newaxis]
    y = np.subtract(coords[:, 2:], mid_y[:, np.newaxis]) * y_frac + mid_y[:, np.newaxis]
    return np.hstack([x, y])


def _apply_shifts(coords, shifts_x, shifts_y):
    coords[:, :2] = np.subtract(coords[:, :2], shifts_x[:, np.newaxis])
    coords[:, 2:] = np.subtract(coords[:, 2:], shifts_y[:, np.newaxis])
    return coords


def _force_into_bbox(coords, bbox):
    xmin, xmax, ymin, ymax = bbox
    dx, dy = np.zeros(coords.shape[0]), np.zeros(coords.shape[0])
    if np.any((coords[:, 0] < xmin) & (coords[:, 1] > xmax)):
        logger.warning("Some labels are too long, can't fit inside the X axis")
    if np.any((coords[:, 2] < ymin) & (coords[:, 3] > ymax)):
        logger.warning("Some labels are too tall, can't fit inside the Y axis")
    dx[coords[:, 0] < xmin] = (xmin - coords[:, 0])[coords[:, 0] < xmin]
    dx[coords[:, 1] > xmax] = (xmax - coords[:, 1])[coords[:, 1] > xmax]
    dy[coords[:, 2] < ymin] = (ymin - coords[:, 2])[coords[:, 2] < ymin]
    dy[coords[:, 3] > ymax] = (ymax - coords[:, 3])[coords[:, 3] > ymax]
    return _apply_shifts(coords, -dx, -dy)


def _random_shifts(coords):
    """Texts at exactly the same centre nudged apart (seeded: the same every run)."""
    mids = np.hstack([np.mean(coords[:, :2], axis=1)[:, np.newaxis],
                      np.mean(coords[:, 2:], axis=1)[:, np.newaxis]])
    unq, count = np.unique(mids, axis=0, return_counts=True)
    repeated_groups = unq[count > 1]
    if len(repeated_groups) == 0:
        return coords
    rng = np.random.default_rng(42)
    for group in repeated_groups:
        for idx in np.argwhere(np.all(mids == group, axis=1)).flatten():
            shifts = (rng.random(2) - 0.5) * 2
            coords[idx] += np.asarray([shifts[0], shifts[0], shifts[1], shifts[1]])
    return coords


def _pull_back(coords, targets):
    dx = np.max(np.subtract(targets[:, 0][:, np.newaxis], coords[:, :2]), axis=1)
    dy = np.max(np.subtract(targets[:, 1][:, np.newaxis], coords[:, 2:]), axis=1)
    return dx, dy


def _close_pairs(points, r: float):
    """Index pairs ``i < j`` of the points at most ``r`` apart (scipy's ``query_pairs``)."""
    diff = points[:, None, :] - points[None, :, :]
    close = np.triu((diff ** 2).sum(axis=-1) <= r * r, k=1)
    return np.argwhere(close)


def _explode(coords, static_coords, r: float):
    n = coords.shape[0]
    points = np.vstack([coords[:, [0, 1]].mean(axis=1), coords[:, [2, 3]].mean(axis=1)]).T
    if static_coords.shape[0] > 0:
        static_centers = np.vstack([np.mean(static_coords[:, [0, 1]], axis=1),
                                    np.mean(static_coords[:, [2, 3]], axis=1)]).T
        points = np.vstack([points, static_centers])
    pairs = _close_pairs(points, r)
    pairs = pairs[pairs[:, 0] < n]
    diff = points[pairs[:, 0]] - points[pairs[:, 1]]
    xs = np.clip(np.bincount(pairs[:, 0], diff[:, 0], minlength=n), -MAX_MOVE[0], MAX_MOVE[0])
    ys = np.clip(np.bincount(pairs[:, 0], diff[:, 1], minlength=n), -MAX_MOVE[1], MAX_MOVE[1])
    return xs, ys


def _iterate(coords, target_coords, static_coords, bbox):
    coords = _random_shifts(coords)
    text_x, text_y = _shifts_texts(_expand(coords, *EXPAND))
    if static_coords.shape[0] > 0:
        static_x, static_y = _shifts_extra(_expand(coords, *EXPAND), static_coords)
    else:
        static_x, static_y = np.zeros(1), np.zeros(1)
    error_x = np.abs(text_x) + np.abs(static_x)
    error_y = np.abs(text_y) + np.abs(static_y)
    error = np.sum(np.append(error_x, error_y))
    pull_x, pull_y = _pull_back(coords, target_coords)
    pull_x[np.abs(pull_x) < PULL_THRESHOLD] = 0
    pull_y[np.abs(pull_y) < PULL_THRESHOLD] = 0
    text_x *= FORCE_TEXT[0]
    text_y *= FORCE_TEXT[1]
    static_x *= FORCE_STATIC[0]
    static_y *= FORCE_STATIC[1]
    pull_x *= -FORCE_PULL[0]  # a pull is towards the target
    pull_y *= -FORCE_PULL[1]
    pull_x[error_x != 0] = 0
    pull_y[error_y != 0] = 0
    shifts_x = text_x + static_x + pull_x
    shifts_y = text_y + static_y + pull_y
    shifts_x = np.clip(np.sign(shifts_x) * np.ceil(np.abs(shifts_x)), -MAX_MOVE[0], MAX_MOVE[0])
    shifts_y = np.clip(np.sign(shifts_y) * np.ceil(np.abs(shifts_y)), -MAX_MOVE[1], MAX_MOVE[1])
    coords = _apply_shifts(coords, shifts_x, shifts_y)
    return _force_into_bbox(coords, bbox), error


def _remove_crossings(coords, target_coords):
    connections = np.hstack([np.mean(coords[:, :2], axis=1)[:, np.newaxis],
                             np.mean(coords[:, 2:], axis=1)[:, np.newaxis], target_coords])
    for i, seg1 in enumerate(connections):
        for j, seg2 in enumerate(connections):
            if i > j and _intersect(seg1, seg2):
                coords[i], coords[j] = coords[j].copy(), coords[i].copy()
    return coords


def adjust_text(texts: list, ax, arrowprops: dict[str, Any]) -> None:
    """Move ``texts`` (on ``ax``) off each other and off their points; a line to each moved one.

    adjustText's ``adjust_text(texts, ax=ax, arrowprops=arrowprops)``: the texts are
    exploded apart, then pushed apart, off their anchor points and inside the axes until
    none overlaps (at most :data:`TIME_LIM` seconds), crossing leader lines are swapped,
    and a text at least :data:`MIN_ARROW_LEN` pixels from its point gets a line to it.
    """
    if not texts:
        return
    transform = texts[0].get_transform()
    start_time = timer()
    coords = _coordinates(texts, ax)
    original = [text.get_unitless_position() for text in texts]
    target_xy = transform.transform(original)
    static_coords = np.vstack([np.empty((0, 2)), target_xy])[:, [0, 0, 1, 1]]
    radius = max((coords[:, 1] - coords[:, 0]).mean(), (coords[:, 3] - coords[:, 2]).mean())
    if radius > 0:
        explode_x, explode_y = _explode(coords, static_coords, radius)
        coords = _apply_shifts(coords, -explode_x * FORCE_EXPLODE[0],
                               -explode_y * FORCE_EXPLODE[1])
    extent = ax.patch.get_extents()
    bbox = extent.xmin, extent.xmax, extent.ymin, extent.ymax
    error = np.inf
    while error > 0:
        coords, error = _iterate(coords, target_xy, static_coords, bbox)
        coords = _remove_crossings(coords, target_xy)
        if timer() - start_time > TIME_LIM:
            break
    xdists = np.min(np.abs(np.subtract(coords[:, :2], target_xy[:, 0][:, np.newaxis])), axis=1)
    ydists = np.min(np.abs(np.subtract(coords[:, 2:], target_xy[:, 1][:, np.newaxis])), axis=1)
    display_dists = np.max(np.vstack([xdists, ydists]), axis=0)
    connections = np.hstack([np.mean(coords[:, :2], axis=1)[:, np.newaxis],
                             np.mean(coords[:, 2:], axis=1)[:, np.newaxis], target_xy])
    back = transform.inverted()
    mids, targets = back.transform(connections[:, :2]), back.transform(connections[:, 2:])
    for i, text in enumerate(texts):
        text.set_verticalalignment("center")
        text.set_horizontalalignment("center")
        text.set_position(mids[i])
        if arrowprops and display_dists[i] >= MIN_ARROW_LEN:
            ax.add_patch(FancyArrowPatch(posA=mids[i], posB=targets[i], patchA=text,
                                         transform=transform, **arrowprops))
