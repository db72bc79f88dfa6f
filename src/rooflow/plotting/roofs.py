"""The roofs on a matplotlib axes: lines, labels, ridge point; minor log ticks.

Which roofs, their labels and the axis limits are :mod:`.core`'s, shared with the pages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from weakref import WeakKeyDictionary

import numpy as np

from rooflow.plotting import core
from rooflow.plotting.core import COMPUTE_LIFT, MEMORY_LIFT, Limits, roof_labels, roofs
from rooflow.roofs.preset import Preset


def roofline_axes(fig, rect: tuple[float, float, float, float], preset: Preset,
                  frames: Sequence, levels: Sequence[str], precisions: Sequence[str],
                  op: str = "FLOP",
                  fixed: tuple[tuple[float, float] | None, tuple[float, float] | None]
                  = (None, None)):
    """Log-log roofline axes on ``fig`` at ``rect``, with the roofs drawn: one for every plot.

    Args:
        fig: the matplotlib figure.
        rect: the axes' (left, bottom, width, height) in figure fractions.
        preset: the device whose roofs are drawn.
        frames: tables with ``arithmetic_intensity`` (FLOP/byte) and ``performance``
            (FLOP/s) columns; the axis limits hold all of them and the roofs.
        levels: the memory levels whose roofs are drawn (:func:`.core.roof_keys`).
        precisions: the precisions (or compute-roof keys) whose compute roofs are drawn.
        op: "FLOP" or "OP", the unit of the y axis.
        fixed: (xlim, ylim) given by the user (FLOP/byte, FLOP/s), else fitted
            (:func:`.core.axis_limits`).

    Returns:
        ``(ax, limits, scale, unit)``: performance is drawn divided by ``scale``, in
        ``unit`` (TFLOP/s, ...). Decades are labelled as plain text (10²), since figures
        are built with math text off (:func:`.roofline.plain_text`).
    """
    from matplotlib.ticker import FuncFormatter

    from rooflow.plotting.canvas import static_layer  # matplotlib: the pages import this module

    bold = core.bold_keys(preset, levels, precisions)
    ridges = [(r.intensity, r.performance) for r in core.ridge_points(preset, bold)]
    limits = core.axis_limits(preset, list(frames), ridges, fixed)
    scale, unit = core.perf_unit(limits, op)
    xlabel, ylabel = core.axis_titles(op, unit)
    ax = fig.add_axes(rect)
    ax.set(xscale="log", yscale="log", xlim=(limits.xmin, limits.xmax),
           ylim=(limits.ymin / scale, limits.ymax / scale), xlabel=xlabel, ylabel=ylabel)
    ax.grid(True, which="major", ls=":", lw=0.6, color="0.8")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(core.decade_label))
    ticks = draw_minor_ticks(ax)
    drawn, lines = draw_roofs(ax, preset, *core.roof_keys(preset, levels, precisions), limits,
                              scale, unit, bold)
    # What the plots of a batch job draw alike (rooflow.plotting.canvas): the frame, ticks,
    # grid, axis titles, roofs and ridge points, each drawn from these values alone; the
    # roof labels move with the data (settle_labels).
    static_layer(ax, (rect, limits, scale, xlabel, ylabel, drawn),
                 [ax.xaxis, ax.yaxis, *ax.spines.values(), *ticks, *lines])
    return ax, limits, scale, unit


def draw_minor_ticks(ax) -> list:
    """Minor ticks at 2× and 5× of each decade on the bottom and left log axes; their lines.

    Drawn as two lines of tick-shaped markers, in the style of matplotlib's minor ticks
    (rcParams ``xtick.minor.*``): as ``Tick`` objects (five artists each, two of them
    Text) the 30 of a typical roofline slow down every plot. Call after the limits
    are set.
    """
    from matplotlib import rcParams
    from matplotlib.markers import TICKDOWN, TICKLEFT

    ax.minorticks_off()
    lines = []
    # (size, width, colour) of each axis' minor ticks; rcParams keys spelt out for mypy.
    x_style = rcParams["xtick.minor.size"], rcParams["xtick.minor.width"], rcParams["xtick.color"]
    y_style = rcParams["ytick.minor.size"], rcParams["ytick.minor.width"], rcParams["ytick.color"]
    for lim, transform, marker, key, (size, width, color) in (
            (ax.get_xlim(), ax.get_xaxis_transform(), TICKDOWN, "xtick", x_style),
            (ax.get_ylim(), ax.get_yaxis_transform(), TICKLEFT, "ytick", y_style)):
        lo, hi = math.floor(math.log10(lim[0])), math.ceil(math.log10(lim[1]))
        ticks = [v for e in range(lo, hi) for v in (2 * 10.0**e, 5 * 10.0**e)
                 if lim[0] < v < lim[1]]
        at = [0.0] * len(ticks)
        xy = (ticks, at) if key == "xtick" else (at, ticks)
        lines += ax.plot(*xy, transform=transform, ls="", marker=marker, clip_on=False,
                         ms=size, mew=width, color=color, zorder=2.5,
                         gid=f"minor-ticks:{key[0]}")
    return lines


def draw_roofs(ax, preset: Preset, compute_keys: Sequence[str], memory_keys: Sequence[str],
               limits: Limits, scale: float, unit: str,
               bold: tuple[Sequence[str], Sequence[str]] | None = None) -> tuple[tuple, list]:
    """The roofs of :func:`.core.roof_keys`, their labels and the ridge points.

    The data's roofs (``bold``, :func:`.core.bold_keys`) are drawn bold, each with its
    ridge point; the others thin and dashed. ``scale``, ``unit``: :func:`.core.perf_unit`.
    The labels' places are tried along their roof by :func:`settle_labels`.

    Returns:
        ``(drawn, lines)``: the roofs (:class:`.core.Roof`) and ridge points (x, y) drawn,
        and their lines (the labels are not among them).
    """
    x = np.geomspace(limits.xmin, limits.xmax, 512)
    lines, ridges = [], []
    drawn_roofs = roofs(preset, compute_keys, memory_keys, bold)
    for roof in drawn_roofs:
        # The thin roofs under the bold: where a memory roof's slope is shared, the data's
        # roof reads solid, not dashed over.
        lines += ax.plot(x, np.minimum(roof.peak, x * roof.bandwidth) / scale,
                         color="black" if roof.main else "0.45", lw=2.0 if roof.main else 1.0,
                         ls="-" if roof.main else "--", zorder=2 if roof.main else 1.9,
                         gid=f"roof:{roof.compute}:{roof.memory}")
    for label in roof_labels(preset, compute_keys, memory_keys, limits, scale, unit, bold):
        if not seen(label, limits, scale, max(preset.memory[m] for m in memory_keys)):
            continue  # a roof above the fitted axes, or flat only past their right end
        if label.kind == "memory":  # along the roof's slope: one decade up per decade right
            p1 = ax.transData.transform((label.x, label.y))
            p2 = ax.transData.transform((label.x * 10, label.y * 10))
            angle = math.degrees(math.atan2(p2[1] - p1[1], p2[0] - p1[0]))
            text = ax.text(label.x, label.y, label.text, rotation=angle, rotation_mode="anchor",
                           fontsize=8, va="bottom", gid="roof-label:memory")
            low = min((preset.compute[c] for c in compute_keys if c in preset.compute),
                      default=math.inf) / scale
            register(ax, text, [{"x": x, "y": y, "va": va} for x, y, va
                                in memory_label_places(label, limits, scale, low)])
        elif label.kind == "compute":
            text = ax.text(label.x, label.y, label.text, ha="right", va="bottom", fontsize=8,
                           gid="roof-label:compute")
            flat, clear_pt = compute_label_region(label, preset, memory_keys, scale)
            register(ax, text, [{"x": x, "y": y, "va": va, "text": t}
                                for t, x, y, va in compute_label_places(label, limits)],
                     region=ax.transData.transform((flat, label.roof))[0]
                     + clear_pt * ax.figure.dpi / 72, optional=not label.main)
        else:
            lines += ax.plot([label.x], [label.y], marker="o", ms=7, mfc="white",
                             mec="black", zorder=3, gid="ridge")
            ridges.append((label.x, label.y))
            # Up and left of the ridge is above the roof, where no measured point is.
            text = ax.annotate(label.text, (label.x, label.y),
                               xytext=(-RIDGE_BESIDE_PT, RIDGE_BESIDE_PT),
                               textcoords="offset points", fontsize=8, ha="right",
                               va="bottom", gid="ridge-label")
            register(ax, text, [{"position": (dx, dy), "ha": ha, "va": va, "text": t}
                                for t, dx, dy, ha, va in ridge_label_places(label)])
    return (tuple(drawn_roofs), tuple(ridges)), lines


def _steps(limits: Limits) -> np.ndarray:
    """Candidate anchors along a roof: eleven steps of the axis width, right to left."""
    lx = np.log10(limits.xmin), np.log10(limits.xmax)
    return 10 ** np.linspace(lx[1] - 0.08, lx[0] + 0.1, 11)


def memory_label_places(label, limits: Limits, scale: float,
                        low: float) -> list[tuple[float, float, str]]:
    """A memory roof label's places (x, y in axis units, vertical alignment), best first.

    ``label``: a :func:`.core.roof_labels` memory label; ``low``: the lowest compute roof
    drawn, in axis units. Along the roof's sloped part (up to where it meets ``low``),
    just above or below it, else a step further off it (points crowd it). The PNG's
    (:func:`draw_roofs`) and the page's (:mod:`rooflow.html.places`).
    """
    bw = label.y / label.x  # axis unit per FLOP/byte, along the anchor's line
    xs = [label.x, *(v for v in _steps(limits)[::-1] if label.x < v < low / bw / 1.5
                     and v * bw * 1.8 < limits.ymax / scale),
          limits.xmin * 1.15]  # from the left edge: a short sloped part
    # One lift over the anchor's line (the anchor is MEMORY_LIFT over the roof), or one
    # under it: the text's top on the roof; then further off.
    return [(v, v * bw * k, va) for k, va in ((MEMORY_LIFT, "bottom"), (1 / MEMORY_LIFT, "top"),
                                              (1.8, "bottom"), (1 / 1.8, "top")) for v in xs]


def compute_label_region(label, preset: Preset, memory_keys: Sequence[str],
                         scale: float) -> tuple[float, float]:
    """Where a compute roof's label may start: (x in FLOP/byte, then points right of it).

    Its roof is flat from where it meets the steepest memory roof drawn (``label.roof`` ×
    ``scale`` / that bandwidth); the data's roof has its ridge marker (7 pt) there, which
    its label keeps 6 pt clear of; a thin roof has none. The PNG's and the page's.
    """
    flat = label.roof * scale / max(preset.memory[m] for m in memory_keys)
    return flat, (RIDGE_BESIDE_PT if label.main else 0.0)


def compute_label_places(label, limits: Limits) -> list[tuple[str, float, float, str]]:
    """A compute roof label's places: (text, x, y in axis units, alignment), best first.

    Right-aligned at eleven steps along its flat roof, right to left, just above it
    (:data:`.core.COMPUTE_LIFT`), then just below it; then the same with the value on a
    line of its own, for a flat part too short for one line. The PNG's and the page's, as
    :func:`memory_label_places`.
    """
    texts = (label.text, label.text.replace(": ", ":\n"))
    return [(t, v, y, va) for t in texts
            for y, va in ((label.roof * COMPUTE_LIFT, "bottom"),
                          (label.roof / COMPUTE_LIFT, "top"))
            for v in _steps(limits)]


def ridge_label_places(label) -> list[tuple[str, float, float, str, str]]:
    """A ridge label's places: (text, x and y offset in points, alignments), best first.

    The offsets and alignments of :data:`RIDGE_NEAR` and :data:`RIDGE_FAR`, with the text
    on one line, then with the value on a line of its own, then a long name ("fp32 per
    instruction / HBM ridge") cut after its "/" too: first at the places beside the
    point, in every wording, then at those further off. A label 40 pt off its point can
    sit beside the next ridge point and read as its label; on two lines beside its own it
    cannot. The PNG's and the page's.
    """
    texts = dict.fromkeys((label.text, label.text.replace(": ", ":\n"),
                           label.text.replace(" / ", " /\n").replace(": ", ":\n")))
    return [(t, dx, dy, ha, va) for group in (RIDGE_NEAR, RIDGE_FAR) for t in texts
            for dx, dy, ha, va in group]


def seen(label, limits: Limits, scale: float, bandwidth: float) -> bool:
    """Whether the roof (or ridge point) ``label`` names is inside the axes (PNG and page).

    A compute roof is seen where it is flat: below the top and, met by the steepest
    memory roof (``bandwidth``, byte/s), left of the right end.
    """
    top = limits.ymax / scale
    if label.kind == "compute":
        return label.roof < top and label.roof * scale / bandwidth < limits.xmax / 1.5
    if label.kind == "ridge":
        return limits.xmin < label.x < limits.xmax and label.y < top
    return label.y < top


RIDGE_BESIDE_PT = 6
"""A ridge label beside its point: this many points off it sideways."""
RIDGE_OFF_PT = 40
"""A ridge label further off its point sideways, where there is no room beside it."""


def _ridge_places(dx: float) -> list[tuple[float, float, str, str]]:
    return [(x, dy, "right" if x < 0 else "left", "bottom" if dy > 0 else "top")
            for dy in (6, 18, 30, 42, 54, 66, -6, -18, -30, -42) for x in (-dx, dx)]


RIDGE_NEAR = _ridge_places(RIDGE_BESIDE_PT)
"""A ridge label's places beside its point (offset points from it, alignment), best first:
up (above the roof, where no measured point is), then down; left, then right."""
RIDGE_FAR = _ridge_places(RIDGE_OFF_PT)
"""The same places :data:`RIDGE_OFF_PT` off the point sideways, tried after
:data:`RIDGE_NEAR` in every wording (:func:`ridge_label_places`)."""
NOTE_PLACES = [(0.01, 0.99, "left", "top"), (0.99, 0.01, "right", "bottom"),
               (0.01, 0.01, "left", "bottom"), (0.99, 0.99, "right", "top"),
               (0.5, 0.01, "center", "bottom"), (0.5, 0.99, "center", "top")]
"""The notes box's places (axes fraction, alignment), best first."""

_PLACES: WeakKeyDictionary = WeakKeyDictionary()
_REGIONS: WeakKeyDictionary = WeakKeyDictionary()
_OPTIONAL: WeakKeyDictionary = WeakKeyDictionary()


def register(ax, text, places: list[dict], region: float | None = None,
             optional: bool = False) -> None:
    """Remember ``text``'s candidate places for :func:`settle_labels`, best first.

    ``region``: the least x (display pixels) its box may start at; None: the axes'.
    ``optional``: left out where none of its places is clear (a thin roof's label).
    """
    _PLACES.setdefault(ax, {})[text] = places
    if region is not None:
        _REGIONS.setdefault(ax, {})[text] = region
    if optional:
        _OPTIONAL.setdefault(ax, set()).add(text)


NOTE_EM = 0.62
"""The widest mean character width of the notes' words, in em (DejaVu Sans: digits and
lower case 0.55–0.64 em, a space 0.32), for :func:`notes_text`'s line length."""


def notes_text(ax, lines: Sequence[str], fontsize: float, width_pt: float | None = None
               ) -> str:
    """The notes box's text: ``lines``, each wrapped at spaces to fit the axes' width.

    A line longer than the axes (a clock note naming three clocks is ≈ 270 characters)
    would run off the canvas on both sides of a box placed by its centre or edge.
    ``width_pt``: another width to fit (points).
    """
    box = (ax.get_position().width * ax.figure.get_figwidth() * 72 if width_pt is None
           else width_pt)  # pt
    width = max(20, int(box / (NOTE_EM * fontsize)) - 2)  # the box's round pad
    return "\n".join(part for line in lines for part in wrap(line, width))


_BREAKS = frozenset("_:,.<(/")
"""Characters after which a word longer than a line may break (a kernel's name)."""


def wrap(text: str, width: int) -> list[str]:
    """``text`` wrapped at spaces to lines of at most ``width`` characters, filled greedily.

    A word longer than a line (a kernel's templated name) is cut into parts after the
    last of :data:`_BREAKS` that keeps each part within ``width`` ("at::native::" |
    "vectorized_"), else at ``width``; its first part goes on the line before when it
    fits there, and the line after its last part goes on filling. Runs of spaces count
    as one.
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        parts = [word]
        while len(parts[-1]) > width:
            rest = parts.pop()
            cut = max((i + 1 for i, c in enumerate(rest[:width]) if c in _BREAKS and i),
                      default=width)
            parts += [rest[:cut], rest[cut:]]
        for i, part in enumerate(parts):
            joined = f"{line} {part}" if line and i == 0 else line + part
            if len(joined) <= width:
                line = joined
            else:
                lines.append(line)
                line = part
    return [*lines, line] if line else lines


def register_notes(ax, text) -> None:
    """The notes box: tried in the corners and edges of the axes (:data:`NOTE_PLACES`)."""
    register(ax, text, [{"x": x, "y": y, "ha": ha, "va": va} for x, y, ha, va in NOTE_PLACES])


def settle_labels(ax, final: bool = True) -> None:
    """Move the roof, ridge and notes texts of ``ax`` to where the data is not.

    Called before the point labels (``final`` False: the fixed texts take their places
    first, having fewest), and once more at the end (``final``), when each takes again
    the best of its places among every text, marker and leader line drawn by then. A thin
    roof's compute label (registered ``optional``) with no clear place then is removed.
    """
    from rooflow.plotting.layout import place_fixed_texts

    places = _PLACES.pop(ax, {}) if final else _PLACES.get(ax, {})
    regions = _REGIONS.pop(ax, {}) if final else _REGIONS.get(ax, {})
    # The ridge labels first (fewest places), then compute, memory, notes, path ends.
    rank = {"ridge-label": 0, "roof-label:compute": 1, "roof-label:memory": 2, "notes": 3}
    order = sorted(places, key=lambda t: rank.get(t.get_gid() or "", 4))
    left = place_fixed_texts(ax, {t: places[t] for t in order}, regions, keep=final)
    if final:
        # A thin roof's label with no clear place is left out, as one above the axes is:
        # over a line or the data it would misname what it crosses.
        for text in left & _OPTIONAL.pop(ax, set()):
            text.remove()
