"""The pages' Bokeh documents, written by rooflow as Bokeh's document JSON.

A page is Bokeh models (figures, glyphs, legends, notes) that BokehJS draws in the
browser. Made as Bokeh's Python objects, a page of ≈ 70 models cost most of its time in
Bokeh's Python side, not in what rooflow decides: every property of every model checked
and its default computed when made and again when serialised (bench/NOTES.md, "the pages
written as Bokeh's document JSON"). Here a model is a light :class:`Model`: a Bokeh model
class and the properties set on it. Each value set is checked and converted by that
class's own Bokeh property (``HasProps.lookup(name).property.prepare_value``, the check a
Bokeh object runs when a property is set), written as Bokeh writes it (a data spec's field
or value by the property's descriptor, ``get_value``) and encoded by Bokeh's
:class:`~bokeh.core.serialization.Serializer`. What is not set is left out, as Bokeh
leaves out a default; BokehJS makes any model a property holds by default (a source's
selection, a renderer's view, a tool's overlay) itself, as it does for Bokeh's own pages.
So a page is the document Bokeh would write for the same models: Bokeh reads it back with
``bokeh.document.Document.from_json`` into its own objects (tests inspect and validate
those), and its HTML is Bokeh's standalone template and JS bundles
(:func:`page_html`).

:func:`figure` makes the figure ``bokeh.plotting.figure`` makes for the arguments the pages
use (tests compare the two); :class:`Figure` has its ``add_glyph``, ``add_layout`` and
``add_tools``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from bokeh.core.has_props import HasProps
from bokeh.core.property.descriptors import DataSpecPropertyDescriptor
from bokeh.core.serialization import Serializable, Serializer
from bokeh.util.serialization import make_id

if TYPE_CHECKING:
    from bokeh.resources import Resources


class Model(Serializable):
    """A Bokeh model of a page: a Bokeh model class and the properties set on it.

    ``Model(Scatter, x="x", size=9)`` is the model ``Scatter(x="x", size=9)`` would be in
    a document. Properties read as a Bokeh object's (a property not set reads as the
    class's default); set by attribute or :meth:`update`, each checked by the class's
    Bokeh property.

    Raises:
        AttributeError: the class has no such property (Bokeh's message).
        ValueError: a value the property does not accept (Bokeh's message).
    """

    model: type[HasProps]
    props: dict[str, Any]
    id: str

    def __init__(self, model: type[HasProps], /, **props: Any) -> None:
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "props", {})
        object.__setattr__(self, "id", make_id())
        self.update(**props)

    def update(self, **props: Any) -> None:
        """Set ``props``, each checked and converted by the class's property."""
        for name, value in props.items():
            prop = self.model.lookup(name).property
            # A value holding page models (renderers, tools, items; only a property that
            # can refer to a model may) is kept as given, its containers copied as Bokeh
            # copies them; its references are checked when Bokeh reads the page back.
            if prop.has_ref and _holds_models(value):
                value = (list(value) if isinstance(value, (list, tuple))
                         else dict(value) if isinstance(value, dict) else value)
            else:
                value = prop.prepare_value(self.model, name, value)
            self.props[name] = value

    def js_link(self, attr: str, other: Model, other_attr: str) -> None:
        """Set ``other``'s ``other_attr`` to this model's ``attr`` whenever it changes.

        Bokeh's ``Model.js_link``, by its documented equivalent: a ``CustomJS``
        ``other.OTHER_ATTR = this.ATTR`` run on ``change:ATTR`` in the browser.
        """
        from bokeh.models import CustomJS

        self.model.lookup(attr)  # each a property of its model, else AttributeError
        other.model.lookup(other_attr)
        event = f"change:{attr}"
        callbacks = dict(self.props.get("js_property_callbacks", {}))
        callbacks[event] = [*callbacks.get(event, []), Model(
            CustomJS, args={"other": other}, code=f"other.{other_attr} = this.{attr}")]
        self.update(js_property_callbacks=callbacks)

    def is_a(self, model: type[HasProps]) -> bool:
        """Whether this is a ``model`` (that Bokeh class or a subclass)."""
        return issubclass(self.model, model)

    def __getattr__(self, name: str) -> Any:
        props = object.__getattribute__(self, "props")
        if name in props:
            return props[name]
        descriptor = self.model.lookup(name, raises=False)
        if descriptor is None:
            raise AttributeError(f"{self.model.__name__} has no property {name!r}")
        default = descriptor.class_default(self.model)
        # A default is a fresh copy: changed in place, the change would be lost. Read-only,
        # such a change fails; a model a property holds by default is made by BokehJS.
        if isinstance(default, list):
            return tuple(default)
        if isinstance(default, dict):
            return MappingProxyType(dict(default))
        if isinstance(default, HasProps):
            raise AttributeError(f"{self.model.__name__}.{name} is not set: its default "
                                 "model is made in the browser")
        return default

    def __setattr__(self, name: str, value: Any) -> None:
        self.update(**{name: value})

    def __repr__(self) -> str:
        return f"{self.model.__name__}({self.id})"

    def to_serializable(self, serializer: Serializer) -> dict[str, Any]:
        """Bokeh's object representation: type, name, id and the properties set."""
        serializer.add_ref(self, cast(Any, {"id": self.id}))
        rep: dict[str, Any] = {"type": "object", "name": self.model.__qualified_model__,
                               "id": self.id}
        attributes = {}
        for name, value in self.props.items():
            descriptor = self.model.lookup(name)
            if not descriptor.serialized:  # e.g. a spec's units: part of the spec's value
                continue
            if isinstance(descriptor, DataSpecPropertyDescriptor):
                # A field name to a field, a constant to a value: Bokeh's rule, which
                # reads this model's properties as it would a Bokeh object's.
                value = descriptor.get_value(cast(Any, self))
            attributes[name] = serializer.encode(value)
        if attributes:
            rep["attributes"] = attributes
        return rep


def _models_in(value: Any) -> Iterator[Model]:
    """The page models ``value`` holds: itself, or those in its lists, tuples and dicts.

    Not those the models themselves hold.
    """
    if isinstance(value, Model):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _models_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _models_in(v)


def _holds_models(value: Any) -> bool:
    return next(_models_in(value), None) is not None


class Figure(Model):
    """A figure (``bokeh.plotting.figure``'s model) with its methods the pages use."""

    def add_glyph(self, source: Model, glyph: Model, **renderer: Any) -> Model:
        """Draw ``glyph`` from ``source``, as ``Plot.add_glyph``.

        Returns the new GlyphRenderer (``renderer``: its properties).
        """
        from bokeh.models.renderers import GlyphRenderer

        r = Model(GlyphRenderer, data_source=source, glyph=glyph, **renderer)
        self.update(renderers=[*self.props.get("renderers", []), r])
        return r

    def add_layout(self, obj: Model, place: str = "center") -> None:
        """Put ``obj`` (an annotation, an axis) in the figure's ``place`` panel."""
        setattr(self, place, [*getattr(self, place), obj])

    def add_tools(self, *tools: Model) -> None:
        """Add ``tools`` to the figure's toolbar."""
        self.toolbar.tools = [*self.toolbar.tools, *tools]

    @property
    def xaxis(self) -> list[Model]:
        """The x axes (below the plot)."""
        from bokeh.models import Axis

        return [m for m in self.below if m.is_a(Axis)]

    @property
    def yaxis(self) -> list[Model]:
        """The y axes (left of the plot)."""
        from bokeh.models import Axis

        return [m for m in self.left if m.is_a(Axis)]


def legend_item(label: str, renderers: Sequence[Model]) -> Model:
    """A legend entry: ``label`` for ``renderers``.

    ``label`` is text, a value: ``LegendItem``'s constructor makes a string label a value,
    not a column name.
    """
    from bokeh.core.properties import value
    from bokeh.models.annotations import LegendItem

    return Model(LegendItem, label=value(label), renderers=list(renderers))


_TOOLS = {"pan": ("PanTool", {}), "wheel_zoom": ("WheelZoomTool", {"renderers": "auto"}),
          "box_zoom": ("BoxZoomTool", {"dimensions": "both"}), "reset": ("ResetTool", {}),
          "save": ("SaveTool", {})}
"""The tools of a ``tools`` string, as ``bokeh.plotting``'s ``process_tools_arg`` makes them."""


def _axis(kind: str, label: str | None) -> tuple[Model, Model]:
    """An axis of ``kind`` (log, linear, categorical) and its scale, as ``bokeh.plotting``."""
    import bokeh.models as bm

    ticker, ticks, formatter, axis, scale = cast(Any, {
        "log": (bm.LogTicker, {"num_minor_ticks": 10, "mantissas": [1, 5]},
                bm.LogTickFormatter, bm.LogAxis, bm.LogScale),
        "linear": (bm.BasicTicker, {"mantissas": [1, 2, 5]}, bm.BasicTickFormatter,
                   bm.LinearAxis, bm.LinearScale),
        "categorical": (bm.CategoricalTicker, {}, bm.CategoricalTickFormatter,
                        bm.CategoricalAxis, bm.CategoricalScale),
    }[kind])
    made = Model(axis, ticker=Model(ticker, **ticks), formatter=Model(formatter),
                 **({} if label is None else {"axis_label": label}))
    return made, Model(scale)


def figure(*, title: str, frame_width: int, frame_height: int, tools: str,
           x_axis_type: str = "linear", y_axis_type: str = "linear",
           x_range: Model | None = None, y_range: Model | None = None,
           x_axis_label: str | None = None, y_axis_label: str | None = None,
           active_scroll: str | None = None) -> Figure:
    """The figure ``bokeh.plotting.figure`` makes for these arguments.

    Args:
        title: the figure's title (canvas text).
        frame_width: the plot frame's width, pixels.
        frame_height: its height, pixels.
        tools: comma-separated tool names (pan, wheel_zoom, box_zoom, reset, save).
        x_axis_type: "log" or "linear"; a FactorRange's axis is categorical.
        y_axis_type: the same for y.
        x_range: a Range1d or FactorRange model; None: a DataRange1d.
        y_range: the same for y.
        x_axis_label: the x axis title.
        y_axis_label: the y axis title.
        active_scroll: the tool name the wheel drives; None: Bokeh's choice.

    Raises:
        KeyError: a tool name not above.
    """
    import bokeh.models as bm
    from bokeh.models.annotations import Title
    from bokeh.plotting import figure as bokeh_figure

    x_range = x_range or Model(bm.DataRange1d)
    y_range = y_range or Model(bm.DataRange1d)
    xaxis, xscale = _axis("categorical" if x_range.is_a(bm.FactorRange) else x_axis_type,
                          x_axis_label)
    yaxis, yscale = _axis("categorical" if y_range.is_a(bm.FactorRange) else y_axis_type,
                          y_axis_label)
    made = {name: Model(cast(Any, getattr(bm, _TOOLS[name][0])), **_TOOLS[name][1])
            for name in tools.split(",")}
    toolbar = Model(bm.Toolbar, tools=list(made.values()),
                    **({} if active_scroll is None else {"active_scroll": made[active_scroll]}))
    return Figure(bokeh_figure, x_range=x_range, y_range=y_range, x_scale=xscale,
                  y_scale=yscale, title=Model(Title, text=title), toolbar=toolbar,
                  left=[yaxis], below=[xaxis],
                  center=[Model(bm.Grid, axis=xaxis), Model(bm.Grid, dimension=1, axis=yaxis)],
                  frame_width=frame_width, frame_height=frame_height)


def document(roots: Sequence[Model], title: str) -> dict[str, Any]:
    """Bokeh's document JSON (``Document.to_json``'s shape) of ``roots``."""
    from bokeh import __version__
    from bokeh.document.config import DocumentConfig
    from bokeh.models.ui.notifications import Notifications

    # The serializer knows what it wrote by id(): what it encodes lives until it is done.
    config = Model(DocumentConfig, notifications=Model(Notifications))
    serializer = Serializer(deferred=False)
    return {"version": __version__, "title": title, "config": serializer.encode(config),
            "roots": serializer.encode(list(roots))}


# Bokeh's MathJax delimiters ($$…$$, \[…\], \(…\)): ``bokeh.embed.util.contains_tex_string``.
_TEX = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]|\\\(.*?\\\)", flags=re.S)


def _models(roots: Sequence[Model]) -> list[Model]:
    seen: dict[int, Model] = {}
    todo = list(roots)
    while todo:
        m = todo.pop()
        if id(m) not in seen:
            seen[id(m)] = m
            # Only a property that can refer to a model may hold one (not a source's
            # data: thousands of values).
            todo.extend(held for name, v in m.props.items()
                        if m.model.lookup(name).property.has_ref for held in _models_in(v))
    return list(seen.values())


def components(roots: Sequence[Model]) -> list[str]:
    """The BokehJS bundles a page of ``roots`` loads.

    Bokeh's own rule (``bokeh.embed.bundle.bundle_for_objs_and_resources``) for the models
    the pages use: ``bokeh`` always; ``bokeh-widgets`` for a widget (the notes' Div);
    ``bokeh-mathjax`` where a text Bokeh would typeset holds TeX delimiters: an
    annotation's text, an axis title or tick label, a Div's text unless it is drawn as
    text.
    """
    # From their subpackages: bokeh.models re-exports them through an __all__ mypy can't read.
    from bokeh.models import Axis
    from bokeh.models.annotations import TextAnnotation
    from bokeh.models.widgets import Div, Paragraph, Widget

    def tex(text: Any) -> bool:
        return isinstance(text, str) and _TEX.search(text) is not None

    def needs_mathjax(m: Model) -> bool:
        if m.is_a(TextAnnotation):
            return tex(m.text)
        if m.is_a(Axis):
            return tex(m.axis_label) or any(tex(v) for v in m.major_label_overrides.values())
        if m.is_a(Div):
            return not m.disable_math and not m.render_as_text and tex(m.text)
        if m.is_a(Paragraph):
            return not m.disable_math and tex(m.text)
        return False

    models = _models(roots)
    return (["bokeh"] + (["bokeh-widgets"] if any(m.is_a(Widget) for m in models) else [])
            + (["bokeh-mathjax"] if any(needs_mathjax(m) for m in models) else []))


def page_html(roots: Sequence[Model], title: str, resources: Resources) -> str:
    """A standalone HTML page of ``roots``, top to bottom, as ``bokeh.embed.file_html``.

    Bokeh's template, the bundles :func:`components` names from ``resources``, and the
    document JSON (:func:`document`).
    """
    from bokeh.embed.elements import html_page_for_render_items
    from bokeh.embed.util import RenderItem
    from bokeh.util.serialization import make_globally_unique_css_safe_id, make_globally_unique_id

    docid = make_globally_unique_id()
    # The components' files alone, as file_html's bundle for these models: no scan of every
    # Bokeh model class the process has imported (another package's extensions).
    res = resources.clone(components=cast(Any, components(roots)))
    items = [RenderItem(docid, roots={cast(Any, r): make_globally_unique_css_safe_id()
                                      for r in roots})]
    return html_page_for_render_items((res.render_js(), res.render_css()),
                                      {docid: cast(Any, document(roots, title))}, items,
                                      title=title)
