"""Bokeh's own objects for a page's models (:mod:`rooflow.html.bokehdoc`), for tests to
inspect: the models' document JSON read back by Bokeh (``Document.from_json``), which
checks every property and reference as it reads them."""

from __future__ import annotations

from typing import Any


def bokeh_models(models: Any) -> Any:
    """``models`` (one page model, or a list of them) as Bokeh objects, in the same shape."""
    from bokeh.document import Document
    from bokeh.models import Column

    from rooflow.html.bokehdoc import Model, document

    many = isinstance(models, (list, tuple))
    roots = list(models) if many else [models]
    doc = Document.from_json(document([Model(Column, children=roots)], "test"))
    read = list(doc.roots[0].children)
    return read if many else read[0]


def page_items(*args: Any, **kwargs: Any) -> list:
    """:func:`rooflow.html.page.page_items`, as Bokeh objects (:func:`bokeh_models`)."""
    from rooflow.html import page

    return bokeh_models(page.page_items(*args, **kwargs))


def roofline_figure(*args: Any, **kwargs: Any) -> tuple:
    """:func:`rooflow.html.figure.roofline_figure`, its figure as a Bokeh object."""
    from rooflow.html import figure

    fig, scale, unit = figure.roofline_figure(*args, **kwargs)
    return bokeh_models(fig), scale, unit


def spec(value: Any) -> Any:
    """A glyph property as set: Bokeh reads a data spec back as a Value or Field object."""
    from bokeh.core.property.vectorization import Field, Value

    if isinstance(value, Value):
        return value.value
    return value.field if isinstance(value, Field) else value


def bokeh_objects(models: Any) -> Any:
    """``models`` (one page model, or a list) made by Bokeh's own constructors from the same
    properties: the objects Bokeh would have for the page, serialised by Bokeh itself.

    A figure is made as a ``Plot``: ``bokeh.plotting.figure``'s constructor adds axes and
    tools of its own, and a page's figure already holds them.
    """
    from bokeh.models import Plot
    from bokeh.plotting import figure

    from rooflow.html.bokehdoc import Model

    made: dict[int, Any] = {}

    def make(value: Any) -> Any:
        if isinstance(value, Model):
            if id(value) not in made:
                cls = Plot if value.model is figure else value.model
                made[id(value)] = cls(**{k: make(v) for k, v in value.props.items()})
            return made[id(value)]
        if isinstance(value, (list, tuple)):
            return [make(v) for v in value]
        if isinstance(value, dict):
            return {k: make(v) for k, v in value.items()}
        return value

    return [make(m) for m in models] if isinstance(models, (list, tuple)) else make(models)
