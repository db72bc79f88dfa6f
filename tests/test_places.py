"""Where a page's texts go (rooflow.html.places): estimated boxes, overlap, settled labels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rooflow.html.places import CHAR_PX, LINE_PX, covered, overlap, text_corners


def test_overlap_is_the_separating_axis_test():
    """Two 10 px squares: 5 px apart overlap, 10 px apart touch (not overlapping). A square
    turned 45° about (0, 0) (corners at distance 10·√2/2 ≈ 7.07 on the axes) and a box
    whose corner is at (6, 6): their bounding boxes overlap, yet the line x + y = 7.07
    separates them (6 + 6 = 12 > 7.07)."""
    square = np.array([(0, 0), (10, 0), (10, 10), (0, 10)], float)
    assert overlap(square, square + 5) and not overlap(square, square + (10, 0))
    r = 10 * math.sqrt(2) / 2
    diamond = np.array([(r, 0), (0, r), (-r, 0), (0, -r)])
    assert not overlap(diamond, square + 6)
    assert overlap(diamond, square + 3)  # corner (3, 3): 3 + 3 = 6 < 7.07


def test_a_text_box_is_its_longest_line_wide_and_its_lines_high():
    """"ab\\ncdef" right-aligned, bottom at (100, 50): 4 × 5.6 = 22.4 px wide, 2 × 12 = 24
    px high, so x 77.6 … 100, y 50 … 74. Turned 90° about its anchor: x 76 … 100 (the
    height, to the left), y 27.6 … 50 (the width, down)."""
    assert (CHAR_PX, LINE_PX) == (5.6, 12.0)
    box = text_corners(np.array([100.0, 50.0]), "ab\ncdef", "right", "bottom")
    assert box.min(axis=0) == pytest.approx([77.6, 50]) and box.max(axis=0) == pytest.approx(
        [100, 74])
    turned = text_corners(np.array([100.0, 50.0]), "ab\ncdef", "right", "bottom", math.pi / 2)
    assert turned.min(axis=0) == pytest.approx([76, 27.6])
    assert turned.max(axis=0) == pytest.approx([100, 50])


def test_covered_counts_what_a_box_covers_and_the_frame_it_leaves():
    """A 10 px box at (100, 100) over one of two obstacles: 1. Left of a region starting at
    105 px, or past the frame's right edge (760 px): 1 + (2 obstacles + 1) = 4."""
    box = np.array([(100, 100), (110, 100), (110, 110), (100, 110)], float)
    obstacles = np.stack([box + 5, box + 50])
    assert covered(box, obstacles) == 1
    assert covered(box, obstacles, region=105) == 4
    assert covered(box + (655, 0), obstacles) == 3  # x 755 … 765, past 760; covers none


# Real files whose pages had a label over points or another label (their estimated boxes):
# the sglang trace's bf16 ridge label lay over its GEMMs; on the MI300A workload the
# fp64-tensor and fp32 labels (roofs 0.3 decades apart) lay over each other until the
# second pass let the first make room; on the MI308X workload and the rocprof-compute
# database a label of a roof above the axes was drawn outside the frame (the PNG leaves
# such roofs unlabelled: plotting.roofs.seen).
REAL_PAGES = {
    "sglang trace": ["pytorch/tracelens-mi300x-sglang-qwen3-8b/"
                     "sglang_Qwen3-8B_prefilldecode.json.gz", "mi300x"],
    "mi300a workload": ["omniperf/mi300a-fortran-collapse", "mi300a"],
    "mi308x workload": ["omniperf/mi308x-montecarlo-pi", "mi300x"],
    "rocprof-compute db": ["rocprof-compute-db/mi350-montecarlo-pi/rocprof_compute_23ed6f36.db",
                           "mi350x"],
    # Two ridges (L2, HBM): the fp64 / HBM ridge label sat across the thin roofs' dashed
    # slope rising past the L2 ridge (the PNG kept it clear).
    "ncu three levels": ["ncu/raw-wide-rtx3060/vector_add.csv", "a100-sxm"],
}


@pytest.mark.shared
@pytest.mark.parametrize("path, preset", REAL_PAGES.values(), ids=REAL_PAGES.keys())
def test_real_pages_keep_every_label_clear(shared_data, tmp_path, monkeypatch, path, preset):
    """``rooflow plot FILE --preset P --html``: on the page every roof, ridge and end label's
    estimated box covers no marker and no other label, and stays in the frame; an upright
    one (a compute roof's, a ridge's) crosses no roof line either, as on the PNG."""
    from bokeh.models.annotations import Label

    import rooflow.html.page as page
    from rooflow.cli.main import main
    from rooflow.html.places import crossed, label_corners, obstacles, roof_samples

    figures = []
    write = page.write_page
    monkeypatch.setattr(page, "write_page", lambda items, out, title, bokehjs=None: (
        figures.append(items[0]), write(items, out, title, bokehjs))[1])
    try:
        main(["plot", str(shared_data / path), "--preset", preset, "-o",
              str(tmp_path / "x.png"), "--html", str(tmp_path / "x.html")])
    except SystemExit as done:
        assert done.code in (0, None)
    assert len(figures) == 1
    fig = figures[0]
    labels = [a for a in fig.center if a.is_a(Label)]
    assert any(a.name == "ridge-label" for a in labels)
    lines = roof_samples(fig)
    assert len(lines) > 500  # every roof, sampled every 3 px or closer
    for label in labels:
        clear = covered(label_corners(fig, label), obstacles(fig, leave_out=[label]))
        assert clear == 0, label.text
        if not label.angle:
            assert crossed(label_corners(fig, label), lines) == 0, label.text


@pytest.mark.shared
def test_a_real_trace_page_keeps_roof_and_ridge_labels_off_the_points(shared_data):
    """The sglang Qwen3-8B trace on mi300x: GEMMs at 1,700–2,800 FLOP/byte, 600–800
    TFLOP/s, just under the bf16-tensor roof (1,307 TFLOP/s). The page drew the bf16
    ridge label below-right of its ridge, over those GEMMs; every roof and ridge label now
    takes the PNG's candidate places in turn and settles where it covers no marker and no
    other text. Its compute label "bf16-tensor, fp16-tensor: 1,307 TFLOP/s" (39 × 5.6 =
    218 px) is wider than the roof's flat part right of its ridge (under 200 px of the 760
    px frame): as on the PNG, the value goes on a line of its own."""
    from bokeh.models.annotations import Label

    from rooflow.adapters import load_points
    from rooflow.analysis import analyze
    from rooflow.html.page import page_items
    from rooflow.html.places import label_corners, obstacles
    from rooflow.roofs import load_preset

    mi300x = load_preset("mi300x")
    trace = (shared_data / "pytorch/tracelens-mi300x-sglang-qwen3-8b/"
             "sglang_Qwen3-8B_prefilldecode.json.gz")
    table = analyze(load_points("pytorch", trace), mi300x)
    fig = page_items(table, mi300x, title="t", color_by="family", max_points=4000, top_n=10,
                     series_order=())[0]
    labels = [a for a in fig.center if a.is_a(Label)]
    named = {a.name for a in labels}
    assert {"ridge-label", "roof-label:compute", "roof-label:memory"} <= named
    for label in labels:
        clear = covered(label_corners(fig, label), obstacles(fig, leave_out=[label]))
        assert clear == 0, label.text
    assert "bf16-tensor, fp16-tensor:\n1,307 TFLOP/s" in [a.text for a in labels]


@pytest.mark.shared
def test_a_ridge_label_sits_beside_its_own_point_not_by_the_next(shared_data):
    """bert_flashattn on a100-sxm: fp32 ridges at 1.85 (L2) and 6.56 FLOP/byte (HBM), at
    13.4 TFLOP/s (roofs at the 968 MHz held). The L2 label on one line (31 × 5.6 = 174 px
    on the page) has no room up-left of its point (161 px from the frame's left edge:
    1.27 decades of 6 over 760 px) and crosses the dashed roof rising up-right from it; it
    took the first clear one-line place, 40 pt right and 18 pt down: under the HBM ridge
    point, reading as that one's label. Places beside a ridge point now come first in
    every wording: two lines, up-left of its own point, on the page and the PNG alike."""
    from bokeh.models.annotations import Label

    from rooflow.adapters import load_points
    from rooflow.analysis import analyze
    from rooflow.html.page import page_items
    from rooflow.plotting import PlotOptions, figure
    from rooflow.roofs import load_preset

    a100 = load_preset("a100-sxm")
    table = analyze(load_points(
        "ncu", shared_data / "ncu/legacy-kerneltime-a100/bert_flashattn_nsight.csv"), a100)
    page = page_items(table, a100, title="t", color_by="family", max_points=4000, top_n=10,
                      series_order=())[0]
    label = next(a for a in page.center if a.is_a(Label) and "L2 ridge" in a.text)
    assert label.text == "fp32 / L2 ridge:\n1.85 FLOP/byte"
    assert (label.x_offset, label.y_offset) == (-8.0, 8.0)  # 6 pt × 4/3 px a point
    png = figure(table, a100, PlotOptions())
    text = next(t for t in png.axes[0].texts if "L2 ridge" in t.get_text())
    assert text.get_text() == label.text and tuple(text.get_position()) == (-6, 6)
