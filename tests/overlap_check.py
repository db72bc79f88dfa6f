"""Where a figure's texts overlap: text over text, over a marker, over a line, off the canvas.

Measured from the figure's artists after a draw, as the plot-overlap probe
(../shared/tools/plot-overlap) measures them from outside the process; the same
thresholds: boxes overlapping by more than 6 px² and 10 % of the smaller; a marker's
radius 0.6 × its size; a line through a text's box 2 px inside its edges. Tick labels
are left out; legend texts are checked against other texts and the canvas only.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.legend import Legend
from matplotlib.text import Text


def overlaps(fig) -> dict[str, list]:
    """{"text_text": [(a, b)], "off_canvas": [a], "text_marker": [a], "text_line": [(a, gid)]}."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    legend = set()
    for leg in fig.findobj(Legend):
        legend.update(id(t) for t in leg.get_texts())
        legend.add(id(leg.get_title()))
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks.update(id(t) for t in axis.get_ticklabels(which="both"))
            for tk in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((id(tk.label1), id(tk.label2)))
    texts = []
    for t in fig.findobj(Text):
        if id(t) in ticks or not t.get_visible() or not t.get_text().strip():
            continue
        b = t.get_window_extent(r)
        if b.width <= 0 or b.height <= 0:
            continue
        texts.append((t.get_text().strip()[:40], b, id(t) in legend,
                      abs(t.get_rotation() % 180) > 1))
    out: dict[str, list] = {"text_text": [], "off_canvas": [], "text_marker": [],
                            "text_line": []}
    for i, (na, a, _, _) in enumerate(texts):
        if a.x0 < -2 or a.y0 < -2 or a.x1 > width + 2 or a.y1 > height + 2:
            out["off_canvas"].append(na)
        for nb, b, _, _ in texts[i + 1:]:
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            if w > 0 and h > 0 and w * h > max(6.0, 0.1 * min(a.width * a.height,
                                                               b.width * b.height)):
                out["text_text"].append((na, nb))
    free = [(n, b) for n, b, in_legend, _ in texts if not in_legend]
    level = [(n, b) for n, b, in_legend, rotated in texts if not in_legend and not rotated]
    for ax in fig.axes:
        for c in ax.collections:  # scatter markers (sized by time share)
            if not isinstance(c, PathCollection) or not 0 < len(c.get_offsets()) <= 200:
                continue
            d = c.get_offset_transform().transform(c.get_offsets())
            sizes = c.get_sizes() if len(c.get_sizes()) else [36.0]
            for k, (x, y) in enumerate(d):
                rad = math.sqrt(sizes[k % len(sizes)]) / 2 * fig.dpi / 72 * 0.6
                out["text_marker"] += [n for n, b in free if
                                       (min(max(x, b.x0), b.x1) - x) ** 2
                                       + (min(max(y, b.y0), b.y1) - y) ** 2 < rad * rad]
        for ln in ax.get_lines():
            xy = np.asarray(ln.get_xydata(), float)
            if not ln.get_visible() or not len(xy):
                continue
            d = ln.get_transform().transform(xy)
            if ln.get_marker() not in (None, "None", "", " ") and len(d) <= 200:
                rad = ln.get_markersize() / 2 * fig.dpi / 72 * 0.6
                for x, y in d[np.isfinite(d).all(1)]:
                    out["text_marker"] += [n for n, b in free if
                                           (min(max(x, b.x0), b.x1) - x) ** 2
                                           + (min(max(y, b.y0), b.y1) - y) ** 2 < rad * rad]
            # A marker-only line is still a path the probe follows (rooflow NaN-separates
            # its points, markers.apart): measured as the probe does.
            if len(d) < 2:
                continue
            box = ax.bbox
            for (x0, y0), (x1, y1) in zip(d[:-1], d[1:], strict=True):
                if not all(map(math.isfinite, (x0, y0, x1, y1))):
                    continue
                n = int(min(2000, max(2, math.hypot(x1 - x0, y1 - y0) / 2)))
                t = np.linspace(0, 1, n + 1)
                px, py = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
                inside = (px >= box.x0) & (px <= box.x1) & (py >= box.y0) & (py <= box.y1)
                px, py = px[inside], py[inside]
                for name, b in level:
                    if np.any((px > b.x0 + 2) & (px < b.x1 - 2) & (py > b.y0 + 2)
                              & (py < b.y1 - 2)):
                        out["text_line"].append((name, ln.get_gid()))
    out["text_marker"] = sorted(set(out["text_marker"]))
    out["text_line"] = sorted(set(out["text_line"]), key=str)
    return out
