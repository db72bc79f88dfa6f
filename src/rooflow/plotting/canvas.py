"""The Agg canvas rooflow's figures draw on, and a block in which a job's plots share work.

Inside a :func:`shared_renderer` block (a workflow batch job drawing many plots one after
another, :func:`rooflow.workflow.batches.build_batch`) the figures share two things:

- **one Agg renderer** per pixel size and dpi. Agg's canvas makes a renderer per figure:
  an 11 MB picture buffer at 200 dpi and, keyed by that renderer, matplotlib's cache of
  text metrics (``matplotlib.text._get_text_metrics_with_cache``), so each plot measured
  its tick labels, titles and roof labels anew. Shared, the texts the plots have in
  common are measured once (bench/NOTES.md, ``shared_renderer``).
- **the pixels of their static layer**: what a figure draws first that another figure
  of the block drew alike. :func:`static_layer` names it (the roofline axes: their frame,
  ticks, tick labels, grid, axis titles and roofs, :func:`rooflow.plotting.roofs.roofline_axes`)
  with a key of everything it is drawn from. Saved as a PNG (``savefig`` to ``rgba``),
  a figure whose layer's key is one the block has drawn starts from those pixels and
  draws the rest on them; else it draws its layer alone first and keeps its pixels
  (bench/NOTES.md, static layers). Axis ticks and their labels are half of a small
  plot's Agg drawing.

The pictures are the same: Agg draws a figure's artists one after another onto its
buffer, the figure's background patch first, then each axes' patch, then its artists by
zorder (``Figure.draw``, ``Axes.draw``); the static layer is kept only when it is the
first of those draws, so its pixels are the buffer's state at that point of the draw,
and the draws after it are the same draws on the same pixels. A canvas clears its
renderer's pixels before it draws a figure (``FigureCanvasAgg.draw``); Agg also keeps the
mask of the last clip path it drew through, and rooflow's plots clip to rectangles only,
so no mask is carried over. ``tests/test_plotting.py`` checks the pictures byte for byte.

Outside a block, :class:`Canvas` is Agg's canvas: a renderer of its own, made again when
the figure's pixel size or dpi changes, and every figure drawn whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any
from weakref import WeakKeyDictionary, ref

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure

LAYER_BYTES = 64 * 2**20
"""The static layers a block keeps, the last drawn, hold at most this many bytes: each
is a copy of the canvas (11.4 MB at the default 200 dpi: five, one per preset of a batch
job, whose config names four). A canvas larger than this is drawn whole."""


@dataclass
class _Block:
    renderers: dict = field(default_factory=dict)  # (width, height, dpi) → RendererAgg
    layers: list = field(default_factory=list)  # (key, rcParams, pixels, bytes), oldest first

    def pixels(self, key: tuple, rc: Any):
        """The kept pixels of the layer drawn with ``key`` under ``rc``; None if not kept."""
        return next((pixels for k, r, pixels, _ in self.layers if k == key and r == rc), None)

    def keep(self, key: tuple, rc: Any, pixels, size: int) -> None:
        self.layers.append((key, rc, pixels, size))
        while sum(layer[3] for layer in self.layers) > LAYER_BYTES:
            del self.layers[0]


_SHARED: ContextVar[_Block | None] = ContextVar("rooflow_shared_renderer", default=None)
"""The block the figures drawn now share work in; None outside one."""


@dataclass(frozen=True)
class _Layer:
    key: tuple
    # As made, in the order made; weak, as the artists lead back to their axes, the
    # registry's key: held strongly, every figure would stay alive.
    artists: tuple[ref, ...]


_LAYERS: WeakKeyDictionary[Axes, _Layer] = WeakKeyDictionary()


@contextmanager
def shared_renderer() -> Iterator[None]:
    """Within it, figures share one Agg renderer per pixel size and dpi, and static layers.

    Made for a job that draws many plots one after another (a workflow batch job). The
    figures must be drawn one at a time (one thread), each saved before the next is
    drawn: they draw on one buffer. Only figures made in the block share; nothing lasts
    after it (a figure drawn after the block draws on a renderer of its own, whole).
    """
    token = _SHARED.set(_Block())
    try:
        yield
    finally:
        _SHARED.reset(token)


def static_layer(ax: Axes, key: tuple, artists: Iterable) -> None:
    """Declare ``artists`` of ``ax`` (with its patch) drawn from ``key`` alone.

    ``key``: hashable values that, with the figure's pixel size, dpi and face colours,
    ``ax``'s position, limits and patch, and matplotlib's rcParams when the artists were
    made and when they are drawn (each part of the key :class:`Canvas` looks up), give
    these artists' every pixel. Call it when they are made: whoever changes one of them
    afterwards must not draw ``ax`` in a :func:`shared_renderer` block. Outside a block it
    does nothing: only the figures made in one share.
    """
    if _SHARED.get() is not None:
        _LAYERS[ax] = _Layer((key, matplotlib.rcParams.copy()), tuple(ref(a) for a in artists))


class Canvas(FigureCanvasAgg):
    """Agg's canvas, drawing on the :func:`shared_renderer` block's renderer inside one.

    Outside a block it keeps a renderer of its own, as Agg's canvas does: one at a time,
    made again when the figure's pixel size or dpi changes.
    """

    def __init__(self, figure: Figure) -> None:
        super().__init__(figure)
        self._own: dict = {}  # (width, height, dpi) → this canvas's renderer, one at a time

    def get_renderer(self) -> RendererAgg:
        """The renderer this figure draws on now (the block's, inside one)."""
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        block = _SHARED.get()
        held = self._own if block is None else block.renderers
        if key not in held:
            held.clear()  # one at a time: a figure of another size or dpi replaces it
            held[key] = RendererAgg(w, h, self.figure.dpi)
        self.renderer = held[key]
        return self.renderer

    def print_raw(self, filename_or_obj, *, metadata=None, **_applied) -> None:
        """Agg's ``print_raw`` (RGBA bytes), drawn on a kept static layer where there is one.

        A figure that draws a new layer draws twice (its layer alone, then the rest): a
        ``draw_event`` callback is called twice. One that starts from a kept layer does
        not draw the layer's artists: their tick and axis-title positions are those of
        before the save until the figure is drawn whole.

        ``_applied``: what ``print_figure`` passes a print method not matplotlib's own
        (dpi, face and edge colour, ...), already set on the figure by it.
        """
        from matplotlib import cbook

        if metadata is not None:
            raise ValueError("metadata not supported for raw/rgba")
        self._draw_layered()
        with cbook.open_file_cm(filename_or_obj, "wb") as fh:
            fh.write(self.renderer.buffer_rgba())

    print_rgba = print_raw

    def _draw_layered(self) -> None:
        renderer = self.get_renderer()
        block = _SHARED.get()
        w, h = self.get_width_height(physical=True)
        size = 4 * w * h  # RGBA
        # A canvas of a fractional pixel size: copy_from_bbox would keep a pixel less.
        whole = (w, h) == (self.figure.bbox.width, self.figure.bbox.height)
        layer = (None if block is None or size > LAYER_BYTES or not whole
                 else _first_drawn(self.figure))
        if block is None or layer is None:
            FigureCanvasAgg.draw(self)
            return
        ax, key, rc, drawn = layer
        pixels = block.pixels(key, rc)
        if pixels is None:
            renderer.clear()
            with _hidden(a for a in [*self.figure.get_children(), *ax.get_children()]
                         if a is not ax and a not in drawn):
                self.figure.draw(renderer)
            pixels = renderer.copy_from_bbox(self.figure.bbox)
            block.keep(key, rc, pixels, size)
        else:
            renderer.restore_region(pixels)
        with _hidden(drawn):
            self.figure.draw(renderer)
        self.figure.stale = False  # drawn, as after Agg's draw (showing the layer again set it)
        FigureCanvasBase.draw(self)  # as Agg's draw ends (a GUI canvas updates there)


def _first_drawn(fig: Figure) -> tuple[Axes, tuple, Any, set] | None:
    """The axes, key, rcParams and artists of what ``fig`` draws first: a static layer.

    Follows ``Figure.draw`` and ``Axes.draw``: the figure's patch, then its children by
    zorder (the axes first, here), and in it its patch, then its children by zorder. The
    layer is the figure's and the axes' patches and the longest run of the axes'
    :func:`static_layer` artists its draw starts with (invisible artists draw nothing
    and are passed over). None where ``fig`` draws nothing first that can be kept, or
    where hiding the layer could move what is drawn after it (a title matplotlib places).
    """
    if fig.get_layout_engine() is not None or fig.suppressComposite is not None:
        return None
    children = sorted((a for a in fig.get_children() if a is not fig.patch),
                      key=attrgetter("zorder"))
    ax = children[0] if children else None
    if not isinstance(ax, Axes):
        return None
    layer = _LAYERS.get(ax)
    # A title matplotlib places itself (set_title without y; no public getter says so)
    # goes above the tick labels it measures: hidden, they would not move it.
    placed = getattr(ax, "_autotitlepos", True)
    if (layer is None or not ax.get_visible() or not ax.axison or not ax.get_frame_on()
            or ax.get_rasterization_zorder() is not None or ax.get_axes_locator() is not None
            or (placed and any(ax.get_title(loc) for loc in ("left", "center", "right")))):
        return None
    static = {id(a()): i for i, a in enumerate(layer.artists) if a() is not None}
    run: list = []
    for a in sorted((a for a in ax.get_children() if a is not ax.patch),
                    key=attrgetter("zorder")):
        if id(a) in static and not a.get_rasterized():
            run.append(a)
        elif a.get_visible():
            break
    if not run:
        return None
    patches = fig.patch, ax.patch
    key = (layer.key, fig.canvas.get_width_height(physical=True), fig.dpi,
           tuple(_patch_look(p) for p in patches), tuple(ax.get_position().bounds),
           ax.get_xlim(), ax.get_ylim(), tuple((static[id(a)], a.get_visible()) for a in run))
    return ax, key, matplotlib.rcParams.copy(), {*patches, *run}


def _patch_look(patch) -> tuple:
    return (patch.get_visible(), tuple(patch.get_facecolor()), tuple(patch.get_edgecolor()),
            patch.get_linewidth(), patch.get_alpha())


@contextmanager
def _hidden(artists: Iterable) -> Iterator[None]:
    """The visible ones of ``artists`` hidden for the block."""
    hidden = [a for a in artists if a.get_visible()]
    for a in hidden:
        a.set_visible(False)
    try:
        yield
    finally:
        for a in hidden:
            a.set_visible(True)
