"""The pages' Bokeh documents written by rooflow (:mod:`rooflow.html.bokehdoc`) are those
Bokeh writes for the same models: each read back by Bokeh and compared, model by model,
with every property (defaults included), against what Bokeh's own Python objects give."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import polars as pl
import pytest
from page_models import bokeh_models

from rooflow.analysis import analyze
from rooflow.html.bokehdoc import Model, components, figure, legend_item, page_html
from rooflow.roofs import load_preset


def canon(obj, seen: dict | None = None):
    """A Bokeh object as nested plain values: every property, models by type, each model
    after its first visit as a reference to its visit number (so two documents built in
    the same order compare equal whatever their ids)."""
    from bokeh.model import Model as BokehModel

    seen = {} if seen is None else seen
    if isinstance(obj, BokehModel):
        if id(obj) in seen:
            return ("ref", seen[id(obj)])
        seen[id(obj)] = len(seen)
        props = obj.properties_with_values(include_defaults=True)
        return (type(obj).__name__, {k: canon(v, seen) for k, v in sorted(props.items())})
    if isinstance(obj, np.ndarray):
        return canon(obj.tolist(), seen)
    if isinstance(obj, (list, tuple)):
        return [canon(v, seen) for v in obj]
    if isinstance(obj, dict):
        return {str(k): canon(v, seen) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, float) and math.isnan(obj):
        return "nan"
    return obj


def read_back(bokeh_model):
    """A Bokeh object through Bokeh's own JSON and back: what a page of it holds."""
    from bokeh.document import Document

    doc = Document()
    doc.add_root(bokeh_model)
    return Document.from_json(doc.to_json(deferred=False)).roots[0]


FIGURES = {
    "roofline (log-log, fixed ranges, wheel zoom active)": dict(
        title="T", x_axis_type="log", y_axis_type="log", frame_width=760, frame_height=480,
        x_axis_label="Arithmetic intensity", y_axis_label="Performance",
        tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom"),
    "bandwidth panel (log x, levels on y)": dict(
        title="B", x_axis_type="log", frame_width=380, frame_height=100,
        x_axis_label="GB/s", tools="pan,wheel_zoom,reset,save"),
    "history (runs on a linear x, log y)": dict(
        title="H", y_axis_type="log", frame_width=760, frame_height=420, x_axis_label="Run",
        y_axis_label="Time per call (ms)", tools="pan,wheel_zoom,box_zoom,reset,save"),
}


@pytest.mark.parametrize("shape", list(FIGURES))
def test_a_figure_is_bokeh_plottings_with_its_glyphs_and_annotations(shape):
    """``figure`` and ``bokeh.plotting.figure`` with the pages' arguments, each given a
    glyph from a source, a label, a legend entry, a tool and linked visibility the way the
    pages add them: Bokeh reads both back into the same models, property for property."""
    import bokeh.models as bm
    from bokeh.plotting import figure as bokeh_figure

    args = dict(FIGURES[shape])
    ranges = {"x_range": (bm.Range1d, dict(start=0.1, end=1e4)),
              "y_range": (bm.Range1d, dict(start=1.0, end=1e3))}
    if shape.startswith("bandwidth"):
        ranges = {"y_range": (bm.FactorRange, dict(factors=["L2", "HBM"]))}
    if shape.startswith("history"):
        ranges = {}
    data = {"x": [1.0, 10.0], "y": [2.0, 20.0], "kernel": ["a", "b"]}

    def build(make, fig):
        r = fig.add_glyph(make(bm.ColumnDataSource, data=dict(data)),
                          make(bm.Scatter, x="x", y="y", marker="square", size=9,
                               fill_color="white", line_color="#1f77b4"), name="points")
        label = make(bm.Label, x=1.0, y=2.0, text="HBM: 3,350 GB/s", angle=30,
                     angle_units="deg", text_font_size="8pt")
        fig.add_layout(label)
        r.js_link("visible", label, "visible")
        fig.add_tools(make(bm.HoverTool, renderers=[r], tooltips=[("kernel", "@kernel")]))
        if shape.startswith("history"):
            fig.xaxis[0].update(ticker=make(bm.FixedTicker, ticks=[0, 1]),
                                major_label_overrides={0: "run a", 1: "run b"})
        return fig, r

    theirs, their_r = build(lambda cls, **kw: cls(**kw), bokeh_figure(
        **args, **{k: cls(**kw) for k, (cls, kw) in ranges.items()}))
    theirs.add_layout(bm.Legend(items=[bm.LegendItem(label="a", renderers=[their_r])]))
    ours, our_r = build(Model, figure(
        **args, **{k: Model(cls, **kw) for k, (cls, kw) in ranges.items()}))
    ours.add_layout(Model(bm.Legend, items=[legend_item("a", [our_r])]))
    assert canon(bokeh_models(ours)) == canon(read_back(theirs))


def test_a_pages_html_is_bokehs_file_html_of_the_same_models(tmp_path):
    """A whole roofline page (levels, ridges, legends, notes): ``page_html`` against
    ``bokeh.embed.file_html`` of its models as Bokeh objects, with the shared bundles. The
    same scripts load, in order, and the same document is drawn."""
    from bokeh.document import Document
    from bokeh.embed import file_html
    from bokeh.models import Column
    from test_html import points

    from rooflow.html.bokehdoc import document
    from rooflow.html.bokehjs import BUNDLES, resources, write_bundles
    from rooflow.html.page import page_items

    b70 = load_preset("arc-pro-b70")
    pts = points(["gemm_a", "gemm_b"])
    table = analyze(pl.concat([pts, pts.with_columns(level=pl.lit("L2"))]), b70)
    items = page_items(table, b70, title="two levels", color_by="family", max_points=100,
                       top_n=10, series_order=())
    shared = [str(tmp_path / "bokeh" / "js" / f"{b}.min.js") for b in BUNDLES]
    write_bundles(shared)
    js = resources(shared, tmp_path / "p.html")
    page = [Model(Column, children=items)]
    ours = page_html(page, "two levels", js)
    theirs = file_html(Document.from_json(document(page, "two levels")), js,
                       title="two levels")

    def scripts(html: str) -> list[str]:
        return re.findall(r"<script src=\"([^\"]+)\">", html)

    def doc(html: str):
        text = re.search(r'<script type="application/json" id="[^"]+">\s*(.*?)\s*</script>',
                         html, re.S).group(1)
        return Document.from_json(list(json.loads(text).values())[0]).roots[0]

    assert scripts(ours) == scripts(theirs) == ["bokeh/js/bokeh.min.js",
                                                 "bokeh/js/bokeh-widgets.min.js"]
    assert "<title>two levels</title>" in ours
    assert canon(doc(ours)) == canon(doc(theirs))


@pytest.mark.parametrize("text, tex", [("plain roof", False), ("$$\\beta$$ roof", True),
                                       ("\\(x^2\\) roof", True)])
def test_the_bundles_a_page_loads_are_those_bokeh_picks(text, tex):
    """MathJax's bundle only where a text Bokeh would typeset holds TeX delimiters (a
    preset's own label text), widgets' only for a Div: Bokeh's own choice
    (``bundle_for_objs_and_resources``) for the same models, read back."""
    import bokeh.models as bm
    from bokeh.embed.bundle import bundle_for_objs_and_resources
    from bokeh.resources import Resources

    fig = figure(title="t", frame_width=100, frame_height=100, tools="pan")
    fig.add_layout(Model(bm.Label, x=1.0, y=1.0, text=text))
    for roots in ([fig], [fig, Model(bm.Div, text="<p>note</p>")]):
        want = bundle_for_objs_and_resources(bokeh_models(roots), Resources(mode="cdn"))
        got = bundle_for_objs_and_resources(
            None, Resources(mode="cdn", components=components(roots)))
        assert [str(u) for u in got.js_files] == [str(u) for u in want.js_files]
        assert any("mathjax" in str(u) for u in got.js_files) == tex


def test_a_property_is_checked_by_bokeh_when_set():
    """An unknown property and a value its Bokeh property refuses are Bokeh's own errors,
    raised where the page sets them; a property not set reads as Bokeh's default."""
    import bokeh.models as bm

    with pytest.raises(AttributeError, match="Scatter.colour property descriptor does not exist"):
        Model(bm.Scatter, colour="red")
    with pytest.raises(ValueError, match="failed to validate Div.*width"):
        Model(bm.Div, width="wide")
    scatter = Model(bm.Scatter, x="x", size=9)
    assert (scatter.x, scatter.size, scatter.marker) == ("x", 9, "circle")
    scatter.update(marker="square")
    assert scatter.marker == "square" and scatter.is_a(bm.Marker)
