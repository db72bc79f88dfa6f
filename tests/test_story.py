"""One story in PNG and HTML (issue 34, item 7): for one dataset, the PNG's artists and the
page's Bokeh model (built in-process, no browser) hold the same legend words, the same
colour per family, the same marker per series, and both show the bandwidth-only rows."""

from __future__ import annotations

import polars as pl
import pytest
from page_models import page_items, spec

from rooflow.analysis import analyze
from rooflow.plotting import core
from rooflow.plotting.roofline import PlotOptions, figure
from rooflow.points import to_points
from rooflow.roofs.preset import preset_from_mapping
from rooflow.style import MEASURED, bandwidth_title

PRESET = preset_from_mapping("p", {
    "name": "p", "source": "test", "compute": {"fp32": 100}, "memory": {"HBM": 1000},
    "default_compute": "fp32", "default_memory": "HBM"}, source="test")


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    # Two families × Original/Optimized on one level, and two bandwidth-only copies (no
    # operations: 1 GB in 2 ms = 500 GB/s, 0.8 GB in 1 ms = 800 GB/s of the 1000 GB/s roof).
    points = to_points(pl.DataFrame({
        "kernel": ["gemm", "gemm", "attn", "attn", "copy_a", "copy_b"],
        "series": ["Original", "Optimized"] * 2 + ["Measured"] * 2,
        "family": ["GEMM", "GEMM", "Attention", "Attention", "", ""],
        "precision": ["fp32"] * 4 + ["", ""],
        "arithmetic_intensity": [100.0, 100.0, 10.0, 10.0, None, None],
        "performance": [20e12, 50e12, 2e12, 5e12, 0.0, 0.0],
        "flop": [2e12, 2e12, 2e10, 2e10, 0.0, 0.0],
        "bytes": [2e10, 2e10, 2e9, 2e9, 1e9, 8e8],
        "time_s": [0.1, 0.04, 0.01, 0.004, 2e-3, 1e-3], "row": [1, 2, 3, 4, 5, 6]}))
    return analyze(points, PRESET)


def _bokeh(table: pl.DataFrame):
    from bokeh.models import GlyphRenderer, Legend

    items = page_items(table, PRESET, title="t", color_by="family", max_points=1000,
                       top_n=10, series_order=["Original", "Optimized"])
    fig = items[0]
    legends = [item.label.value for lg in fig.select(type=Legend) for item in lg.items]
    glyphs = [r for r in fig.select(type=GlyphRenderer)
              if "group" in r.data_source.data]  # the points, not roofs or labels
    return items, legends, glyphs


def test_png_and_page_share_legend_words_colours_and_markers(table):
    png = figure(table, PRESET, PlotOptions(annotate=False, color_by="family"))
    legend = png.axes[0].get_legend()
    png_labels = [t.get_text() for t in legend.get_texts()]
    handles = dict(zip(png_labels, legend.legend_handles, strict=True))
    _, page_labels, glyphs = _bokeh(table)
    # Every word the PNG's legend says for the points is on the page: series, families,
    # filled = measured.
    for word in ("Original", "Optimized", "GEMM", "Attention", MEASURED):
        assert word in png_labels and word in page_labels, word
    for glyph in glyphs:
        data = glyph.data_source.data
        family, series = data["group"][0], data["series"][0]
        # One colour per family: the page's fill is the PNG legend's colour of the family.
        assert spec(glyph.glyph.fill_color) == handles[family].get_color(), family
        # One marker per series: the same entry of core.SERIES_MARKERS on both.
        i = ["Original", "Optimized"].index(series)
        assert spec(glyph.glyph.marker) == core.series_marker(i).bokeh
        assert handles[series].get_marker() == core.series_marker(i).mpl


def test_bandwidth_only_rows_appear_in_both(table):
    png = figure(table, PRESET, PlotOptions(annotate=False))
    panel = next(ax for ax in png.axes if ax.get_gid() == "bandwidth-only")
    items, _, _ = _bokeh(table)
    page_panel = items[1]
    assert panel.get_title(loc="left") == page_panel.title.text == bandwidth_title(2)
    achieved = next(a for a in panel.lines if a.get_gid() == "achieved")
    dots = page_panel.renderers[0].data_source.data["x"]
    drawn = achieved.get_xdata()[::2]  # each dot followed by a NaN (markers.apart)
    assert sorted(drawn) == pytest.approx(sorted(dots)) == [500, 800]  # GB/s


def test_page_hover_ranks_points_as_the_png(table):
    # saved = time × (1 − 1/headroom) ranks the points; the hover says each one's place.
    _, _, glyphs = _bokeh(table)
    ranks = {d["kernel"][i] + "/" + d["series"][i]: d["rank_txt"][i]
             for g in glyphs for d in [g.data_source.data] for i in range(len(d["x"]))}
    saved = table.filter(~pl.col("bandwidth_only")).sort(
        "potential_time_saved_s", descending=True)
    first = f"{saved['kernel'][0]}/{saved['series'][0]}"
    assert ranks[first].startswith("1 of 4 (by potential time saved")


def test_overview_hover_names_the_dataset_of_a_point_not_judged(table):
    from bokeh.models import GlyphRenderer

    # roofline-b's point gives no precision: no compute roof, drawn as ⊗ (uncoloured), so
    # on an overview only the hover tells whose it is.
    overview = pl.concat([table.with_columns(dataset=pl.lit("roofline-a")),
                          analyze(to_points(pl.DataFrame({
                              "kernel": ["k"], "precision": [""],
                              "arithmetic_intensity": [10.0], "performance": [1e12],
                              "time_s": [1e-3], "row": [1]})), PRESET)
                          .with_columns(dataset=pl.lit("roofline-b"))], how="diagonal_relaxed")
    fig = page_items(overview, PRESET, title="t", color_by="dataset", max_points=1000,
                     top_n=10, series_order=[])[0]
    sources = [r.data_source.data for r in fig.select(type=GlyphRenderer)]
    assert ["roofline-b"] in [d.get("dataset") for d in sources]
