"""Direct tests of the roofline figure: roofs, axes, legend, density, above-roof, panels."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from page_models import spec

from rooflow.plotting import PlotOptions, axis_limits, figure, plot_roofline
from rooflow.plotting.labels import short_names
from rooflow.points import to_points
from rooflow.roofs.preset import custom_preset

# 100 TFLOP/s, 1000 GB/s → ridge point 1e14 / 1e12 = 100 FLOP/byte
PRESET = custom_preset(100, 1000)


def table(n: int = 4, **extra) -> pl.DataFrame:
    """A hand-built analysis table with the lead's new columns (unit, bandwidth_only, ...)."""
    ai = np.geomspace(1, 1000, n)
    attainable = np.minimum(1e14, ai * 1e12)
    perf = attainable / 2
    base = {
        "series": ["Original", "Optimized"] * (n // 2), "family": "", "label": "",
        "pair": [f"p{i // 2}" for i in range(n)], "kernel": [f"k{i}" for i in range(n)],
        "level": "DRAM", "precision": "fp32", "arithmetic_intensity": ai, "performance": perf,
        "theoretical": False, "compute_roof_name": "peak", "compute_roof": 1e14,
        "memory_roof_name": "DRAM", "memory_roof": 1e12, "attainable": attainable,
        "headroom": attainable / perf, "above_roof": False, "unit": "FLOP",
        "bandwidth_only": False, "bytes": 1e9, "time_s": 1e-3,
        "achieved_bandwidth": None, "roof_note": None,
    }
    frame = pl.DataFrame(base).with_columns(achieved_bandwidth=pl.lit(None, pl.Float64),
                                            roof_note=pl.lit(None, pl.String))
    return frame.with_columns(**{k: pl.Series(v) if isinstance(v, list) else pl.lit(v)
                                 for k, v in extra.items()})


def xs(line) -> list[float]:
    """A marker line's x values; the NaN after each point (``markers.apart``) left out."""
    x = np.asarray(line.get_xdata(), float)
    return list(x[np.isfinite(x)])


def xy(line) -> list[tuple[float, float]]:
    """A marker line's points; the NaN after each (``markers.apart``) left out."""
    return [(x, y) for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
            if np.isfinite(x) and np.isfinite(y)]


def gids(fig) -> list[str]:
    return [a.get_gid() for ax in fig.axes for a in ax.get_children() if a.get_gid()]


def test_roof_line_is_min_of_peak_and_ai_times_bandwidth():
    fig = figure(table(), PRESET, PlotOptions(annotate=False))
    ax = fig.axes[0]
    roof = next(a for a in ax.lines if a.get_gid() == "roof:peak:DRAM")
    x, y = roof.get_xdata(), roof.get_ydata()
    # y in TFLOP/s: at AI 10, min(100, 10 × 1 TB/s = 10) = 10; at AI 1000, 100
    assert np.interp(np.log10(10), np.log10(x), y) == pytest.approx(10, rel=0.02)
    assert y[-1] == pytest.approx(100)
    ridge = next(a for a in ax.lines if a.get_gid() == "ridge")
    assert ridge.get_xdata()[0] == pytest.approx(100)  # 1e14 / 1e12


def test_axes_scales_limits_and_labels():
    fig = figure(table(), PRESET, PlotOptions(annotate=False))
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # x: ridge/1000 = 0.1 … ridge×100 = 1e4; y top: peak×3 = 3e14 → decade 1e15 = 1000 TFLOP/s
    assert ax.get_xlim() == pytest.approx((0.1, 1e4))
    assert ax.get_ylim()[1] == pytest.approx(1000)
    assert ax.get_ylabel() == "Performance (TFLOP/s)"
    assert ax.get_xlabel() == "Arithmetic intensity (FLOP/byte)"
    lims = axis_limits(PRESET, [table()])
    assert lims.xmin == pytest.approx(0.1)


def test_legend_explains_markers_and_series():
    t = table().with_columns(theoretical=pl.Series([False, True, False, False]))
    fig = figure(t, PRESET, PlotOptions(annotate=False))
    labels = [x.get_text() for x in fig.axes[0].get_legend().get_texts()]
    assert labels[:2] == ["Original", "Optimized"]
    assert "filled: measured" in labels and "hollow: theoretical (on the roof)" in labels


def test_markers_below_threshold_density_above():
    t = table(200, time_s=None)  # no times: plain markers (sized ones: a test below)
    small = figure(t, PRESET, PlotOptions(annotate=False))
    assert not any(g.startswith("density") for g in gids(small))
    # 2 series (Original, Optimized) × 1 colour × measured → 2 marker artists of 100 points
    points = [a for a in small.axes[0].lines if a.get_marker() in ("o", "s")
              and len(xs(a)) == 100]
    assert len(points) == 2
    dense = figure(t, PRESET, PlotOptions(annotate=False, density_threshold=100, top_n=5))
    assert {"density:Original", "density:Optimized"} <= set(gids(dense))
    labels = [x.get_text() for x in dense.axes[0].get_legend().get_texts()]
    # Exact count per series, and the darkest shade's count per cell: 1 here (Original is
    # every other of 200 points log-spaced over 3 decades, 0.030 decade apart; the
    # 0.1 … 10⁴ axis has 240 cells, 0.021 decade each).
    assert "Original: 100 (density)\n1 … 1 per cell" in labels
    one_cell = figure(table(200, arithmetic_intensity=[50.0] * 200,
                            performance=[2.5e13] * 200), PRESET,
                      PlotOptions(annotate=False, density=True))
    labels = [x.get_text() for x in one_cell.axes[0].get_legend().get_texts()]
    assert "Original: 100 (density)\n1 … 100 per cell" in labels  # every point in one cell
    drawn = sum(len(xs(a)) for a in dense.axes[0].lines
                if a.get_marker() in ("o", "s") and not a.get_gid())
    assert drawn == 5  # the top 5 (by headroom here) stay markers
    forced = figure(table(4), PRESET, PlotOptions(annotate=False, density=True))
    assert "density:Original" in gids(forced)


def test_above_roof_marker_and_count_text():
    t = table(4).with_columns(above_roof=pl.Series([True, False, True, True]))
    fig = figure(t, PRESET, PlotOptions(annotate=False))
    ax = fig.axes[0]
    above = next(a for a in ax.lines if a.get_gid() == "above-roof")
    assert above.get_marker() == "X" and len(xs(above)) == 3
    note = next(a for a in ax.texts if a.get_gid() == "notes").get_text()
    assert "3 points above the roof: check peaks, units or clocks" in note


def test_roof_note_and_integer_op_group():
    t = table(4, roof_note="no fp8-tensor roof on h100-sxm").with_columns(
        unit=pl.Series(["FLOP", "FLOP", "OP", "OP"]))
    fig = figure(t, PRESET, PlotOptions(annotate=False))
    note = next(a for a in fig.axes[0].texts if a.get_gid() == "notes").get_text()
    assert "no fp8-tensor roof on h100-sxm" in note and "2 integer-OP points" in note
    ops = next(a for a in fig.axes[0].lines if a.get_gid() == "integer-op")
    assert len(xs(ops)) == 2
    only_op = figure(table(4, unit="OP"), PRESET, PlotOptions(annotate=False))
    assert only_op.axes[0].get_ylabel() == "Performance (TOP/s)"


def test_bandwidth_only_panel():
    t = table(4).with_columns(
        bandwidth_only=pl.Series([False, False, True, True]),
        arithmetic_intensity=pl.Series([1.0, 10.0, None, None]),
        achieved_bandwidth=pl.Series([None, None, 5e11, 8e11]))
    fig = figure(t, PRESET, PlotOptions(annotate=False))
    assert len(fig.axes) == 2
    panel = fig.axes[1]
    assert panel.get_gid() == "bandwidth-only" and "bandwidth only" in panel.get_title(loc="left")
    achieved = next(a for a in panel.lines if a.get_gid() == "achieved")
    assert sorted(xs(achieved)) == pytest.approx([500, 800])  # GB/s
    assert not any(g == "bandwidth-only" for g in gids(figure(table(), PRESET)))


def test_small_table_is_labelled_by_default_and_key_lists_points():
    fig = figure(table(4), PRESET)
    texts = [a.get_text() for a in fig.axes[0].texts]
    assert "p0" in texts  # label falls back to pair
    keyed = figure(table(4), PRESET, PlotOptions(annotate=False, key=True))
    key = next(a for a in keyed.axes[0].texts if a.get_gid() == "key").get_text()
    assert "  1  p0 [Original]" in key.splitlines()


def test_short_names():
    got = short_names(pl.Series(["void gemm<float, tile<128, 64>>(float*, int)", "copy"]))
    assert got.to_list() == ["void gemm<…>(…)", "copy"]
    assert len(short_names(pl.Series(["x" * 80]))[0]) == 40


def test_labels_that_crowd_nothing_sit_beside_their_points():
    from matplotlib.text import Annotation

    t = table(2, time_s=None).with_columns(label=pl.Series(["first", "second"]))
    ax = figure(t, PRESET, PlotOptions(annotate=True)).axes[0]
    labels = {a.get_text(): (a.xy, a.xyann) for a in ax.texts if isinstance(a, Annotation)
              and a.get_text() in ("first", "second")}
    # Up and right of its point (TFLOP/s: half the roof), no leader line, not moved.
    assert labels == {"first": ((1.0, 0.5), (4.0, 3.0)), "second": ((1000.0, 50.0), (4.0, 3.0))}


def test_crowded_labels_are_moved_apart():
    t = table(4).with_columns(arithmetic_intensity=pl.lit(10.0), performance=pl.lit(5e12),
                              label=pl.Series(["a", "b", "c", "d"]))
    ax = figure(t, PRESET, PlotOptions(annotate=True)).axes[0]
    placed = [a for a in ax.texts if a.get_text() in ("a", "b", "c", "d")]
    assert len({a.get_position() for a in placed}) == 4  # adjustText moved them apart


def test_writes_png(tmp_path):
    out = plot_roofline(table(), PRESET, tmp_path / "r.png", options=PlotOptions(annotate=False))
    assert out == [tmp_path / "r.png"] and out[0].read_bytes()[:4] == b"\x89PNG"


def test_density_counts_match_numpy_histogram2d():
    """The bincount binning gives np.histogram2d's counts on log10 edges (same cells)."""
    import numpy as np

    from rooflow.plotting.density import log_counts

    rng = np.random.default_rng(1)
    x = 10 ** rng.uniform(-3, 6, 200_000)  # beyond the limits on both sides
    y = 10 ** rng.uniform(8, 17, 200_000)
    x[:5], y[5:10] = [0.0, -1.0, np.nan, np.inf, 1e-2], [np.nan, 0.0, -5.0, np.inf, 1e16]
    counts, ex, ey = log_counts(x, y, (1e-2, 1e5), (1e9, 1e16))
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    expected, _, _ = np.histogram2d(np.log10(x[ok]), np.log10(y[ok]), bins=(ex, ey))
    # Floating-point cell edges may move a point sitting on an edge to its neighbour.
    assert abs(counts.sum() - expected.sum()) <= 2 and np.abs(counts - expected).sum() <= 4
    assert counts.sum() > 50_000


def test_top_points_by_headroom_keep_file_order_on_ties():
    from rooflow.plotting.core import top_points

    table = pl.DataFrame({"headroom": [3.0, 5.0, None, 5.0, 5.0, 1.0], "i": range(6)})
    top, left_out = top_points(table, 2)
    assert top["i"].to_list() == [1, 3] and left_out == 4  # the first two 5× in file order
    top, _ = top_points(table, 5)
    assert top["i"].to_list() == [0, 1, 3, 4, 5]  # a null headroom ranks last


def test_key_lists_only_what_fits_on_the_canvas():
    from rooflow.plotting.labels import key_capacity

    t = table(100).with_columns(headroom=pl.Series(np.arange(100, 0, -1, dtype=float)))
    fig = figure(t, PRESET, PlotOptions(annotate=False, key=True, top_n=80))
    ax = fig.axes[0]
    key = next(a for a in ax.texts if a.get_gid() == "key")
    lines = key.get_text().splitlines()
    # 6 pt lines from a line below the legend down to the canvas edge.
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    top = key.get_position()[1]
    assert ax.transAxes.inverted().transform((0, legend.y0))[1] > top
    fits = key_capacity(ax, top)
    assert fits < 81 and len(lines) == fits
    assert key.get_window_extent(fig.canvas.get_renderer()).y0 >= 0  # on the canvas
    assert lines[-1] == f"… {100 - (fits - 1)} more not listed"
    # Listed: the most headroom (rows 0 … fits-2 here), each numbered once on the plot.
    assert lines[0].split()[:2] == ["1", "p0"]
    assert [a.get_text() for a in ax.texts if a.get_text().isdigit()] == [
        str(i) for i in range(1, fits)]


def test_key_lines_stay_on_the_canvas():
    # 40 names alike at both ends, cut alike in the middle: each is made unique by its
    # number ("kernel_0…ix_name #12"), and the 10-character series in brackets follow; the
    # lines are cut shorter until the key ends inside the canvas.
    t = table(80).with_columns(
        headroom=pl.Series(np.arange(80, 0, -1, dtype=float)),
        label=pl.Series([f"kernel_0{i:02d}_with_a_long_common_suffix_name" for i in range(80)]),
        series=pl.Series(["Optimizedx", "Original12"] * 40))
    fig = figure(t, PRESET, PlotOptions(annotate=False, key=True, top_n=40))
    key = next(a for a in fig.axes[0].texts if a.get_gid() == "key")
    assert "#1" in key.get_text()
    assert key.get_window_extent(fig.canvas.get_renderer()).x1 <= fig.bbox.x1


def test_no_key_where_the_legend_leaves_it_no_room():
    # 60 families, 40 of them coloured: the legend runs past the canvas's bottom, so no
    # key entry fits below it; no key, no numbers on the plot, and a note says why.
    t = table(60).with_columns(family=pl.Series([f"family_{i}" for i in range(60)]))
    fig = figure(t, PRESET, PlotOptions(annotate=False, key=True, top_n=40))
    ax = fig.axes[0]
    assert not [a for a in ax.texts if a.get_gid() in ("key", "key-number")]
    note = next(a for a in ax.texts if a.get_gid() == "labels-left-out")
    assert note.get_text() == "no numbered key: the legend leaves it no room"


def test_minor_ticks_at_2_and_5_of_each_decade():
    # PRESET's ridge point is 100 FLOP/byte: x axis 0.1 … 10⁴ (ridge / 1000 … ridge × 100),
    # so 2 and 5 × 10⁻¹ … 10³: 0.2, 0.5, 2, 5, …, 5000 (10 ticks).
    fig = figure(table(4), PRESET, PlotOptions(annotate=False))
    ax = fig.axes[0]
    x = next(a for a in ax.lines if a.get_gid() == "minor-ticks:x")
    assert ax.get_xlim() == (0.1, 1e4)
    assert list(x.get_xdata()) == pytest.approx([0.2, 0.5, 2, 5, 20, 50, 200, 500, 2000, 5000])
    y = next(a for a in ax.lines if a.get_gid() == "minor-ticks:y")
    lo, hi = ax.get_ylim()
    assert all(lo < v < hi for v in y.get_ydata()) and len(y.get_ydata()) > 0
    assert ax.xaxis.get_minorticklocs().size == 0  # no Tick objects for them


def test_key_numbers_of_clustered_points_do_not_overlap():
    # Five points on one spot and one far away: each point's number sits clear of the
    # other numbers and of every marker (the layout pass), the lone one beside its point.
    t = table(6).with_columns(
        arithmetic_intensity=pl.Series([10.0] * 5 + [1000.0]),
        performance=pl.Series([1e12] * 5 + [1e13]))
    fig = figure(t, PRESET, PlotOptions(annotate=False, key=True))
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    numbers = [a for a in ax.texts if a.get_gid() == "key-number"]
    assert sorted(a.get_text() for a in numbers) == ["1", "2", "3", "4", "5", "6"]
    boxes = [a.get_window_extent(renderer) for a in numbers]
    for i, box in enumerate(boxes):
        assert not any(box.overlaps(other) for other in boxes[i + 1:])
    markers = ax.transData.transform([(10.0, 1.0), (1000.0, 10.0)])
    assert not any(box.contains(*m) for box in boxes for m in markers)


def timed_points(kernels: int, levels: tuple[str, ...] = ("DRAM",), seed: int = 0) -> pl.DataFrame:
    """Canonical points of ``kernels`` fp32 kernels, each at every level of ``levels``
    (bytes doubling level by level), with random intensities, efficiencies and times, so
    that the most time to save is not the most headroom."""
    rng = np.random.default_rng(seed)
    flop = 10 ** rng.uniform(9, 12, kernels)
    ai = 10 ** rng.uniform(-1, 3, kernels)
    time = flop / (np.minimum(19.5e12, ai * 2.039e12) * 10 ** rng.uniform(-2, -0.1, kernels))
    return to_points(pl.DataFrame({
        "kernel": [f"k{i:03d}" for i in range(kernels) for _ in levels],
        "level": list(levels) * kernels, "precision": "fp32",
        "flop": np.repeat(flop, len(levels)),
        "bytes": np.concatenate([f / a * 2.0 ** np.arange(len(levels))
                                 for f, a in zip(flop, ai, strict=True)]),
        "time_s": np.repeat(time, len(levels)), "row": np.repeat(np.arange(kernels), len(levels)),
    }).with_columns(arithmetic_intensity=pl.col("flop") / pl.col("bytes"),
                    performance=pl.col("flop") / pl.col("time_s")))


def page_renderers(items) -> list:
    """The point renderers of a page's figure (those whose data name kernels)."""
    return [r for r in items[0].renderers if "kernel" in getattr(r.data_source, "data", {})]


def test_png_and_page_draw_the_same_top_points():
    from page_models import page_items

    from rooflow.analysis import analyze
    from rooflow.plotting import drawn_columns
    from rooflow.roofs import load_preset

    a100 = load_preset("a100-sxm")
    points = timed_points(300)
    assert "potential_time_saved_s" in drawn_columns(points)  # timed: ranked by time saved
    t = analyze(points, a100)
    expected = t.sort("potential_time_saved_s", descending=True).head(15)
    assert set(expected["kernel"]) != set(t.sort("headroom", descending=True).head(15)["kernel"])
    fig = figure(t, a100, PlotOptions(annotate=False, density=True, top_n=15))
    png = {(x, y) for a in fig.axes[0].lines if a.get_marker() == "o" and not a.get_gid()
           for x, y in xy(a)}
    items = page_items(t, a100, title="t", color_by="family", max_points=15, top_n=15,
                       series_order=())
    page = {(x, y) for r in page_renderers(items)
            for x, y in zip(r.data_source.data["x"], r.data_source.data["y"], strict=True)}
    scale = 1e12  # both in TFLOP/s
    assert len(png) == len(page) == 15
    want = set(zip(expected["arithmetic_intensity"], expected["performance"] / scale,
                   strict=True))
    for drawn in (png, page):
        np.testing.assert_allclose(sorted(drawn), sorted(want), rtol=1e-12)


def test_png_and_page_give_a_kernel_the_same_colour():
    from matplotlib.colors import to_hex
    from page_models import page_items

    from rooflow.analysis import analyze
    from rooflow.plotting.core import GREY
    from rooflow.roofs import load_preset

    a100 = load_preset("a100-sxm")
    t = analyze(timed_points(12, ("DRAM", "L2")), a100)
    saved = t.group_by("kernel").agg(pl.col("potential_time_saved_s").max())
    top = saved.sort("potential_time_saved_s", descending=True)["kernel"].head(5).to_list()
    fig = figure(t, a100, PlotOptions(annotate=False, top_n=5))
    # The PNG's numbered kernel key: "1 k007 — compute-bound, …" in the kernel's colour.
    key = {a.get_text().split()[1]: to_hex(a.get_color()) for a in fig.axes[0].texts
           if a.get_text()[:1].isdigit() and " k0" in a.get_text()}
    assert list(key) == top
    items = page_items(t, a100, title="t", color_by="family", max_points=4000, top_n=5,
                       series_order=())
    page: dict[str, set] = {}
    for r in page_renderers(items):
        for kernel in r.data_source.data["kernel"]:
            page.setdefault(kernel, set()).add(spec(r.glyph.line_color))
    assert {k: page[k] for k in top} == {k: {c} for k, c in key.items()}
    assert len(set(key.values())) == 5
    assert all(page[k] == {GREY} for k in page if k not in top)


BACKEND_CHECK = """
import sys
sys.modules["matplotlib"] = None  # cannot be imported: the pages and plotting core need none
import rooflow.html.compare, rooflow.html.page, rooflow.plotting
del sys.modules["matplotlib"]
import matplotlib
matplotlib.use("svg")
import polars as pl
from rooflow.analysis import analyze
from rooflow.plotting import PlotOptions, figure
from rooflow.points import to_points
from rooflow.roofs.preset import custom_preset
sys.modules["matplotlib.pyplot"] = None  # label placement works without pyplot
points = to_points(pl.DataFrame({"kernel": ["a", "b", "c"],  # labels that crowd
                                 "arithmetic_intensity": [1.0, 1.0, 1.01],
                                 "performance": [1e12, 1e12, 1.01e12]}))
figure(analyze(points, custom_preset(100, 1000)), custom_preset(100, 1000),
       PlotOptions(annotate=True))
print(matplotlib.get_backend())
"""


def test_the_library_leaves_the_matplotlib_backend_alone():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", BACKEND_CHECK], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "svg"


# rooflow draws on Agg canvases outside pyplot: every entry leaves the backend as the user
# set it (the program, the CLI's main called in-process, the rule scripts, the library).
@pytest.mark.parametrize("entry", [
    "import runpy, sys\nsys.argv = ['rooflow', '--version']\ntry:\n"
    "    runpy.run_module('rooflow', run_name='__main__')\nexcept SystemExit:\n    pass",
    "from rooflow.workflow.rulescript import run\nrun(lambda log: None, {log!r})",
    "from rooflow.cli.main import main\n"
    "try:\n    main(['--version'])\nexcept SystemExit:\n    pass",
])
def test_rooflow_entry_points_leave_the_backend_alone(entry, tmp_path):
    import os
    import subprocess
    import sys

    # The program ends the process itself: the backend is printed by an atexit handler
    # registered first (rooflow.cli.quick_exit then leaves the ending to Python).
    code = ("import atexit\natexit.register(lambda: print("
            "__import__('matplotlib').get_backend(), flush=True))\n")
    code += entry.format(log=str(tmp_path / "log"))
    env = os.environ | {"MPLBACKEND": "svg"}  # the user's choice
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env).stdout
    assert out.strip().splitlines()[-1] == "svg"


def fp64_only_table(levels: tuple[str, ...] = ("DRAM",), suffix: str = "") -> tuple:
    """Analysed on an fp64-only preset (fp64 10 TFLOP/s, HBM 1000 GB/s, L2 4000), like
    v100-nersc; the same intensity at each of ``levels``, ``suffix`` on the kernel names.

    dgemm is judged; fast is above its roof (AI 1 → 1 TFLOP/s, 2 achieved); sgemm and saxpy
    (fp32) have no compute roof, sgemm at 2000 TFLOP/s far above every roof; spec, a
    theoretical fp32 point, has no roof to be placed on.
    """
    from rooflow.analysis import analyze
    from rooflow.roofs.preset import preset_from_mapping

    preset = preset_from_mapping("fp64-only", {
        "name": "fp64 only", "source": "test", "compute": {"fp64": 10},
        "memory": {"HBM": 1000, "L2": 4000}, "default_compute": "fp64",
        "default_memory": "HBM"}, source="test")
    kernels = pl.DataFrame({
        "kernel": [k + suffix for k in ("dgemm", "fast", "sgemm", "saxpy", "spec")],
        "precision": ["fp64", "fp64", "fp32", "fp32", "fp32"],
        "arithmetic_intensity": [20.0, 1.0, 50.0, 0.1, 5.0],
        "performance": [5e12, 2e12, 2000e12, 5e10, None], "row": [1, 2, 3, 4, 5]})
    points = to_points(kernels.join(pl.DataFrame({"level": list(levels)}), how="cross"))
    return analyze(points, preset), preset


def test_points_without_a_compute_roof_are_drawn_apart_and_named_in_the_legend():
    from rooflow.plotting.core import NO_ROOF_COLOR

    t, preset = fp64_only_table()
    fig = figure(t, preset, PlotOptions(annotate=False, key=True))
    ax = fig.axes[0]
    unjudged = next(a for a in ax.lines if a.get_gid() == "no-compute-roof")
    # sgemm and saxpy; the theoretical spec point has no performance: not drawn
    assert sorted(xs(unjudged)) == [0.1, 50.0]
    assert unjudged.get_markerfacecolor() == "none"
    assert unjudged.get_markeredgecolor() == NO_ROOF_COLOR
    # Judged points only as ordinary markers: dgemm and fast (AI 20 and 1)
    ordinary = [x for a in ax.lines if a.get_marker() == "o" and not a.get_gid()
                for x in xs(a)]
    assert sorted(ordinary) == [1.0, 20.0]
    labels = [x.get_text() for x in ax.get_legend().get_texts()]
    assert "no fp32 roof:\n2 points, not judged" in labels and "above the roof" in labels
    # Above-roof and no-roof counts apart: fast alone is above the roof, not sgemm
    above = next(a for a in ax.lines if a.get_gid() == "above-roof")
    assert xs(above) == [1.0]
    note = next(a for a in ax.texts if a.get_gid() == "notes").get_text()
    assert "1 point above the roof" in note and "no fp32 roof on fp64-only" in note
    # Never clipped: 2000 TFLOP/s × 2 widens the axis to the 10⁴ TFLOP/s decade
    assert ax.get_ylim()[1] == pytest.approx(1e4)
    # Keyed after the ranked points, so a ⊗ can be named
    key = next(a for a in ax.texts if a.get_gid() == "key").get_text().splitlines()
    assert [line.split()[1] for line in key] == ["dgemm", "fast", "sgemm", "saxpy"]


def test_page_draws_points_without_a_compute_roof_apart_with_a_legend_entry():
    from page_models import page_items

    from rooflow.plotting.core import NO_ROOF_COLOR, NO_ROOF_MARKER

    t, preset = fp64_only_table()
    items = page_items(t, preset, title="t", color_by="family", max_points=4000, top_n=5,
                       series_order=())
    fig = items[0]
    unjudged = [r for r in page_renderers(items) if spec(r.glyph.marker) == NO_ROOF_MARKER]
    assert len(unjudged) == 1 and spec(unjudged[0].glyph.line_color) == NO_ROOF_COLOR
    assert sorted(unjudged[0].data_source.data["kernel"]) == ["saxpy", "sgemm"]
    others = {k for r in page_renderers(items) if spec(r.glyph.marker) != NO_ROOF_MARKER
              for k in r.data_source.data["kernel"]}
    assert others == {"dgemm", "fast"}
    legend = [i.label.value for lg in fig.legend for i in lg.items]
    assert "no fp32 roof: 2 points, not judged" in legend
    notes = " ".join(i.text for i in items[1:])
    assert "2 points not judged (no fp32 roof on fp64-only)" in notes


def test_hierarchical_key_names_kernels_without_a_roof_and_nothing_is_clipped():
    from matplotlib.figure import Figure

    # Two levels per kernel, long names: the key's text must stay on the canvas.
    t, preset = fp64_only_table(("DRAM", "L2"), "_" + "x" * 50)
    fig: Figure = figure(t, preset, PlotOptions(annotate=False))
    fig.canvas.draw()
    texts = [a for a in fig.axes[0].texts] + fig.axes[0].get_legend().get_texts()
    assert any(a.get_text().startswith("⊗ sgemm_x") and "no fp32 roof" in a.get_text()
               for a in texts)
    canvas = fig.bbox
    for a in texts:
        box = a.get_window_extent()
        assert canvas.x0 <= box.x0 and box.x1 <= canvas.x1, a.get_text()
        assert canvas.y0 <= box.y0 and box.y1 <= canvas.y1, a.get_text()


def test_every_log_axis_labels_its_decades_as_plain_text():
    """Figures are built with math text off (names hold ``$``): no tick may print TeX."""
    from matplotlib.figure import Figure

    from rooflow.plotting.bandwidth import draw_bandwidth_panel
    from rooflow.plotting.roofline import plain_text
    from rooflow.plotting.roofs import roofline_axes

    frame = pl.DataFrame({"arithmetic_intensity": [1.0, 100.0], "performance": [1e12, 5e13]})
    rows = pl.DataFrame({"level": ["DRAM"], "memory_roof": [1e12], "bytes": [1e9],
                         "time_s": [1e-3]})
    with plain_text():
        fig = Figure()
        ax, *_ = roofline_axes(fig, (0.1, 0.1, 0.5, 0.8), PRESET, [frame], ["DRAM"], [])
        draw_bandwidth_panel(fig, rows, ["DRAM"])
        fig.canvas.draw()
    labels = [t.get_text() for a in fig.axes for t in
              (*a.xaxis.get_ticklabels(), *a.yaxis.get_ticklabels()) if t.get_text()]
    assert labels and not [t for t in labels if "$" in t or "mathdefault" in t]
    # PRESET: ridge 100 FLOP/byte, x axis 0.1 … 10⁴: decades read 0.1 … 1,000, then 10⁴.
    assert {"0.1", "1", "10", "100", "1,000", "10⁴"} <= {t.get_text()
                                                      for t in ax.xaxis.get_ticklabels()}


def test_many_points_without_precision_are_a_grey_density_image():
    from rooflow.analysis import analyze
    from rooflow.roofs import load_preset

    # 1,000 points with no precision on h100-sxm: none is judged (no roof is assumed), and
    # above the density threshold (here 100) they are one image, not 1,000 markers.
    n = 1000
    ai = np.geomspace(0.1, 1000, n)
    points = to_points(pl.DataFrame({"arithmetic_intensity": ai,
                                     "performance": np.minimum(ai * 1e12, 5e14) / 2}))
    fig = figure(analyze(points, load_preset("h100-sxm")), load_preset("h100-sxm"),
                 PlotOptions(annotate=False, density_threshold=100))
    ax = fig.axes[0]
    assert [c.get_gid() for c in ax.collections] == ["no-compute-roof"]  # a pcolormesh
    assert not [a for a in ax.lines if a.get_gid() == "no-compute-roof"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["precision not given:\n1,000 points, not judged"]


def _mi300a():
    from rooflow.defaults import DEFAULT_HARDWARE
    from rooflow.roofs import read_presets

    return read_presets(DEFAULT_HARDWARE)["mi300a"]


def test_the_datas_roofs_are_bold_each_with_its_ridge():
    from rooflow.plotting import core

    preset = _mi300a()  # default compute roof fp64-tensor (122.6 TFLOP/s)
    bold = core.bold_keys(preset, ["DRAM"], ["fp64"])
    # fp64-only kernels: the fp64 vector roof is bold, the default fp64-tensor roof thin.
    assert bold == (["fp64"], ["HBM"])
    compute, memory = core.roof_keys(preset, ["DRAM"], ["fp64"])
    assert compute == ["fp64", "fp64-tensor"] and memory == ["HBM"]
    main = {(r.compute, r.memory): r.main for r in core.roofs(preset, compute, memory, bold)}
    assert main == {("fp64", "HBM"): True, ("fp64-tensor", "HBM"): False}
    # AMD CDNA 3 white paper: fp64 vector 61.3 TFLOP/s, HBM3 5.325 TB/s →
    # ridge 61.3e12 / 5.325e12 = 11.51 FLOP/byte, at 61.3 TFLOP/s.
    (ridge,) = core.ridge_points(preset, bold)
    assert ridge.intensity == pytest.approx(11.51, abs=0.01)
    assert ridge.performance == pytest.approx(61.3e12)
    # Two precisions judged: two bold roofs, two ridges, each labelled with its roof.
    both = core.bold_keys(preset, ["DRAM"], ["fp64", "bf16-tensor"])
    ridges = core.ridge_points(preset, both)
    # bf16-tensor 980.6 TFLOP/s / 5.325 TB/s = 184.2 FLOP/byte
    assert [round(r.intensity, 1) for r in ridges] == [11.5, 184.2]
    labels = core.roof_labels(preset, *core.roof_keys(preset, ["DRAM"], ["fp64", "bf16-tensor"]),
                              core.Limits(0.01, 1e4, 1e9, 1e16), 1e12, "TFLOP/s", both)
    assert [lb.text for lb in labels if lb.kind == "ridge"] == [
        "fp64 ridge: 11.5 FLOP/byte", "bf16-tensor ridge: 184 FLOP/byte"]


def test_axes_fit_the_data_and_its_ridge_or_are_fixed():
    # PRESET: ridge 100 FLOP/byte at 100 TFLOP/s. Points at 0.01 and 0.1 FLOP/byte, 1 and
    # 10 GFLOP/s: x from 0.01 / 3 → 10⁻³ to the ridge 100 × 30 (1.5 decades of flat roof
    # for its label) = 3000 → 10⁴; y from 1e9 / 3 → 10⁸ to 1e14 × 3 → 10¹⁵.
    t = pl.DataFrame({"arithmetic_intensity": [0.01, 0.1], "performance": [1e9, 1e10]})
    lims = axis_limits(PRESET, [t], [(100.0, 1e14)])
    assert (lims.xmin, lims.xmax, lims.ymin, lims.ymax) == pytest.approx((1e-3, 1e4, 1e8, 1e15))
    # A ridge at 400: 400 × 3 = 1200 would end at 10⁴, 1.4 decades; 400 × 30 = 12,000 → 10⁵.
    assert axis_limits(PRESET, [t], [(400.0, 1e14)]).xmax == pytest.approx(1e5)
    fixed = axis_limits(PRESET, [t], [(100.0, 1e14)], ((0.5, 5e3), None))
    assert (fixed.xmin, fixed.xmax) == (0.5, 5e3) and fixed.ymax == pytest.approx(1e15)
    ax = figure(table(), PRESET, PlotOptions(annotate=False, xlim=(0.5, 5e3),
                                              ylim=(1e12, 1e15))).axes[0]
    assert ax.get_xlim() == pytest.approx((0.5, 5e3))
    assert ax.get_ylim() == pytest.approx((1, 1000))  # TFLOP/s


def test_short_names_cut_in_the_middle_and_stay_distinct():
    names = pl.Series(["__omp_offloading_32_6b6b__QQmain_l123_kernel_body",
                       "__omp_offloading_32_6b6b__QQmain_l124_kernel_body",
                       "gemm<float>(int)", "gemm<half>(int)", "gemm<half>(int)", "short"])
    # width 20: head (20 - 1) × 2 // 5 = 7 characters, "…", tail 12.
    assert short_names(names, 20).to_list() == [
        "__omp_o…_kernel_body #1", "__omp_o…_kernel_body #2",
        "gemm<…>(…) #1", "gemm<…>(…) #2", "gemm<…>(…) #2", "short"]


def test_short_names_with_nothing_to_shorten_are_the_names_themselves():
    # No bracket to elide, none over the width: each its own (a null as ""), repeats kept,
    # no "#n" (two equal names are one kernel); a bracket left unelided when elide is off.
    names = pl.Series("kernel", ["aten::mm", None, "k0", "aten::mm", "x" * 40])
    got = short_names(names)
    assert got.name == "kernel" and got.to_list() == ["aten::mm", "", "k0", "aten::mm", "x" * 40]
    assert short_names(pl.Series(["run (base)", "f<a>"]), elide=False).to_list() == [
        "run (base)", "f<a>"]
    assert short_names(pl.Series(["run (base)", "f<a>"])).to_list() == ["run (…)", "f<…>"]
    # The control characters elision marks brackets with: shown as their escapes, whatever
    # the other names; kept as they are where nothing is elided.
    for names in (["a\x01b(x)"], ["a\x01b(x)", "x" * 50]):
        assert short_names(pl.Series(names))[0] == "a\\x01b(…)"
    assert short_names(pl.Series(["a\x02b"]), elide=False)[0] == "a\x02b"
    assert short_names(pl.Series(["a\x02b", "y" * 50]), elide=False)[0] == "a\x02b"


def test_hardware_name_lists_every_ridge():
    from click.testing import CliRunner

    from rooflow.cli.main import cli

    out = CliRunner().invoke(cli, ["hardware", "mi300a"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("mi300a: ") and "\nmi300x:" not in out.output
    ridges = next(line for line in out.output.splitlines() if "ridge points on HBM" in line)
    # 61.3 / 5.325 = 11.5; 122.6 / 5.325 = 23.0; 980.6 / 5.325 = 184
    assert "fp64 11.5, fp64-tensor 23," in ridges and "bf16-tensor 184" in ridges
    assert CliRunner().invoke(cli, ["hardware", "no-such"]).exit_code != 0


def test_marker_area_is_the_points_share_of_time_with_a_size_legend():
    from matplotlib.collections import PathCollection

    from rooflow.plotting.markers import AREA_MIN, AREA_PER_SHARE

    # Times 1, 3 (Original) and 6, 0 ms … of 4 points: shares 0.1, 0.3, 0.6 and 0 of 10 ms.
    t = table(4, time_s=[1e-3, 3e-3, 6e-3, 1e-9])
    ax = figure(t, PRESET, PlotOptions(annotate=False)).axes[0]
    sizes = sorted(s for c in ax.collections if isinstance(c, PathCollection)
                   for s in c.get_sizes())
    # 1000 pt² per whole: 100, 300, 600 pt²; ~0 s → the 12 pt² floor.
    assert sizes == pytest.approx([AREA_MIN, 0.1 * AREA_PER_SHARE, 0.3 * AREA_PER_SHARE,
                                   0.6 * AREA_PER_SHARE], rel=1e-3)
    labels = [x.get_text() for x in ax.get_legend().get_texts()]
    assert labels[-4:] == ["— area: share of time —", "1%", "5%", "20%"]


def test_a_kernels_launches_are_joined_each_across_its_own_levels():
    # Two launches of one kernel (--per-launch), each at DRAM and L2: launch 1 at 1 TFLOP/s
    # (AI 1 at DRAM, 10 at L2), launch 2 at 0.5 TFLOP/s (AI 2, 20). Each launch's levels
    # are joined, at its own performance; no segment runs from one launch to the other
    # (joined by name, the line ran 1 → 2 → 10 → 20 across both launches).
    from rooflow.analysis import analyze

    kernels = pl.DataFrame({"kernel": ["k"] * 4, "level": ["DRAM", "L2"] * 2,
                            "precision": "fp32", "arithmetic_intensity": [1.0, 10.0, 2.0, 20.0],
                            "performance": [1e12, 1e12, 5e11, 5e11], "row": [1, 1, 2, 2]})
    preset = custom_preset(100, 1000)
    fig = figure(analyze(to_points(kernels), preset), preset, PlotOptions(annotate=False))
    join = next(a for a in fig.axes[0].lines if a.get_gid() == "kernel-levels")
    x, y = np.asarray(join.get_xdata(), float), np.asarray(join.get_ydata(), float)
    segments = [(x[i], y[i], x[i + 1], y[i + 1]) for i in range(len(x) - 1)
                if np.isfinite(x[i]) and np.isfinite(x[i + 1])]
    assert sorted(segments) == [(1.0, 1.0, 10.0, 1.0), (2.0, 0.5, 20.0, 0.5)]  # TFLOP/s
    # The page joins them alike: the same two segments, in the kernel's colour, hidden by
    # its colour's legend entry and never hovered (a line has no kernel's numbers).
    from bokeh.models import HoverTool, Legend
    from page_models import page_items

    page = page_items(analyze(to_points(kernels), preset), preset, title="t",
                      color_by="family", max_points=4000, top_n=5, series_order=())[0]
    joins = [r for r in page.renderers if r.name == "kernel-levels"]
    assert [sorted(zip(xs, ys, strict=True)) for r in joins
            for xs, ys in zip(r.data_source.data["xs"], r.data_source.data["ys"], strict=True)
            ] == [[(1.0, 1.0), (10.0, 1.0)], [(2.0, 0.5), (20.0, 0.5)]]
    (join,) = joins
    assert join.glyph.line_color == next(r.glyph.line_color for r in page_renderers([page]))
    entry = next(item for lg in page.select(type=Legend) for item in lg.items
                 if join in item.renderers)
    assert entry.renderers[0] is not join  # the entry's icon is the points' marker
    assert all(join not in h.renderers for h in page.select(type=HoverTool))


def test_the_datas_roofs_are_drawn_over_the_thin_ones_in_png_and_page():
    # fp32 points on a100-sxm: the fp32 × HBM roof is bold; the thin dashed roofs (other
    # precisions, other levels) share its slope below their ridges. Drawn after it, their
    # dashes striped the bold slope; now they lie under it, in both.
    from bokeh.models import Line
    from page_models import page_items

    from rooflow.analysis import analyze
    from rooflow.roofs import load_preset

    a100 = load_preset("a100-sxm")
    t = analyze(timed_points(3), a100)
    ax = figure(t, a100, PlotOptions(annotate=False)).axes[0]
    roofs = [ln for ln in ax.lines if (ln.get_gid() or "").startswith("roof:")]
    bold = [ln.get_zorder() for ln in roofs if ln.get_linestyle() == "-"]
    thin = [ln.get_zorder() for ln in roofs if ln.get_linestyle() == "--"]
    assert bold and thin and max(thin) < min(bold)
    fig = page_items(t, a100, title="t", color_by="family", max_points=100, top_n=5,
                     series_order=())[0]
    dashes = [r.glyph.line_dash for r in fig.renderers if isinstance(r.glyph, Line)]
    solid = [i for i, d in enumerate(dashes) if d == []]  # Bokeh's "solid"
    dashed = [i for i, d in enumerate(dashes) if d != []]
    assert solid and dashed and max(dashed) < min(solid)  # drawn first: under


def test_launches_of_equal_performance_are_still_joined_apart_and_hide_with_their_series():
    # Two launches of k at the same 1 TFLOP/s (rows 1 and 2), DRAM and L2 each, in series
    # A; one launch in series B. Joined by measurement (input row, kernel, series, …), not
    # by performance: two lines for A, never one from launch 1's DRAM to launch 2's L2.
    from bokeh.models import Legend
    from page_models import page_items

    from rooflow.analysis import analyze

    kernels = pl.DataFrame({
        "kernel": ["k"] * 6, "series": ["A"] * 4 + ["B"] * 2, "level": ["DRAM", "L2"] * 3,
        "precision": "fp32", "arithmetic_intensity": [1.0, 10.0, 2.0, 20.0, 3.0, 30.0],
        "performance": [1e12] * 4 + [2e12] * 2, "row": [1, 1, 2, 2, 3, 3]})
    preset = custom_preset(100, 1000)
    table = analyze(to_points(kernels), preset)
    join = next(a for a in figure(table, preset, PlotOptions(annotate=False)).axes[0].lines
                if a.get_gid() == "kernel-levels")
    x, y = np.asarray(join.get_xdata(), float), np.asarray(join.get_ydata(), float)
    segments = sorted((x[i], x[i + 1], y[i]) for i in range(len(x) - 1)
                      if np.isfinite(x[i]) and np.isfinite(x[i + 1]))
    assert segments == [(1.0, 10.0, 1.0), (2.0, 20.0, 1.0), (3.0, 30.0, 2.0)]
    page = page_items(table, preset, title="t", color_by="family", max_points=4000,
                      top_n=5, series_order=())[0]
    joins = [r for r in page.renderers if r.name == "kernel-levels"]
    assert sorted(tuple(xs) for r in joins for xs in r.data_source.data["xs"]) == [
        (1.0, 10.0), (2.0, 20.0), (3.0, 30.0)]
    # The series legend's entry "B" hides B's points and B's line, not A's.
    series = next(lg for lg in page.select(type=Legend) if lg.title.startswith("series"))
    b = next(item for item in series.items if item.label.value == "B")
    hidden = [r for r in b.renderers if r.name == "kernel-levels"]
    assert [list(map(tuple, r.data_source.data["xs"])) for r in hidden] == [[(3.0, 30.0)]]


def test_plots_drawn_on_a_shared_renderer_have_the_pixels_of_their_own(tmp_path):
    # shared_renderer (a batch job's plots): the figures made in it draw on one renderer
    # per size, and every picture is the one drawn alone. Two tables with other texts and
    # limits, a third plot of another size (its renderer replaces the first), then the
    # first again; each PNG byte for byte as drawn outside the block.
    from rooflow.plotting.canvas import shared_renderer
    from rooflow.plotting.roofline import new_figure

    plots = [(table(4), 60), (table(6, family=["a", "b"] * 3), 60), (table(4), 50),
             (table(4), 60)]

    def draw(folder) -> list[bytes]:
        folder.mkdir()
        return [plot_roofline(t, PRESET, folder / f"{i}.png",
                              options=PlotOptions(dpi=dpi))[0].read_bytes()
                for i, (t, dpi) in enumerate(plots)]

    alone = draw(tmp_path / "alone")
    with shared_renderer():
        shared = draw(tmp_path / "shared")
        first, second = new_figure(60), new_figure(60)
        assert first.canvas.get_renderer() is second.canvas.get_renderer()
    assert shared == alone
    assert new_figure(60).canvas.get_renderer() is not first.canvas.get_renderer()


def test_a_figure_saved_at_other_dpis_in_a_shared_renderer_block_is_drawn_at_each(tmp_path):
    # A figure measured at 60 dpi (its layout pass), saved at 50 dpi after another figure
    # of 50 dpi, then at its own 60 again: each picture as the same saves make outside the
    # block (not the 50-dpi renderer's 550 × 325 pixels for the 60-dpi save).
    from rooflow.plotting.canvas import shared_renderer
    from rooflow.plotting.roofline import save

    def saves(folder) -> list[bytes]:
        folder.mkdir()
        first = figure(table(4), PRESET, PlotOptions(dpi=60))
        other = figure(table(6), PRESET, PlotOptions(dpi=50))
        for name, fig, dpi in (("other", other, 50), ("first-50", first, 50),
                               ("first-60", first, 60)):
            save(fig, folder / f"{name}.png", "png", dpi)
        return [(folder / f"{n}.png").read_bytes() for n in ("other", "first-50", "first-60")]

    alone = saves(tmp_path / "alone")
    with shared_renderer():
        shared = saves(tmp_path / "shared")
    assert shared == alone


def test_plots_of_a_block_drawn_on_kept_static_layers_have_the_pixels_of_their_own(
        tmp_path, monkeypatch):
    # In a shared_renderer block a plot whose axes, roofs and ridges were drawn alike by an
    # earlier plot starts from that plot's pixels (rooflow.plotting.canvas). Every kind of
    # plot, in an order where layers are kept, reused, pushed out and told apart, must be
    # byte for byte the picture drawn alone: single-level, hierarchical (three levels),
    # dense, above-roof, integer-OP, bandwidth-only panel, unjudged points; the same
    # limits with other roofs (mi300a on fp64 vs fp64 and bf16-tensor data), the same
    # table under another matplotlib style (thicker frame), another dpi, and OP/s on the
    # FLOP/s window. Kept layers are pushed out (room for two here) and drawn again.
    import matplotlib
    from matplotlib.backends.backend_agg import RendererAgg

    from rooflow.analysis import analyze
    from rooflow.plotting import canvas
    from rooflow.plotting.canvas import shared_renderer

    monkeypatch.setattr(canvas, "LAYER_BYTES", 2 * 4 * 660 * 390)  # two 60-dpi canvases
    restored = []
    real = RendererAgg.restore_region
    monkeypatch.setattr(RendererAgg, "restore_region",
                        lambda self, *a: restored.append(1) or real(self, *a))

    mi300a = _mi300a()
    fp64 = to_points(pl.DataFrame({"arithmetic_intensity": [2.0, 30.0],
                                   "performance": [5e12, 4e13], "precision": "fp64"}))
    both = to_points(pl.DataFrame({"arithmetic_intensity": [2.0, 30.0],
                                   "performance": [5e12, 4e13],
                                   "precision": ["fp64", "bf16-tensor"]}))
    unjudged, fp64_preset = fp64_only_table(("HBM", "L2"))
    bandwidth = table(4).with_columns(
        bandwidth_only=pl.Series([False, False, True, True]),
        arithmetic_intensity=pl.Series([1.0, 10.0, None, None]),
        achieved_bandwidth=pl.Series([None, None, 5e11, 8e11]))
    plots = [
        (table(4), PRESET, {}), (table(6, family=["a", "b"] * 3), PRESET, {}),
        (analyze(timed_points(12, ("DRAM", "L2", "L1")), _mi300a()), mi300a, {}),
        (table(4), PRESET, {}), (table(200, time_s=None), PRESET, {"density": True}),
        (table(4).with_columns(above_roof=pl.Series([True, False, True, True])), PRESET, {}),
        (table(4, unit=pl.Series(["FLOP", "FLOP", "OP", "OP"])), PRESET, {}),
        (bandwidth, PRESET, {}), (unjudged, fp64_preset, {"key": True}),
        (analyze(fp64, mi300a), mi300a, {}), (analyze(both, mi300a), mi300a, {}),
        (analyze(fp64, mi300a), mi300a, {}), (table(4), PRESET, {"dpi": 50}),
        (table(4), PRESET, {"style": {"axes.linewidth": 3.0}}), (table(4), PRESET, {}),
        (table(4, unit="OP"), PRESET, {}), (table(4), PRESET, {}),
    ]

    def draw(folder) -> list[bytes]:
        folder.mkdir()
        out = []
        for i, (t, preset, opts) in enumerate(plots):
            opts = dict(opts)
            with matplotlib.rc_context(opts.pop("style", {})):
                (png,) = plot_roofline(t, preset, folder / f"{i}.png",
                                       options=PlotOptions(dpi=opts.pop("dpi", 60), **opts))
            out.append(png.read_bytes())
        return out

    alone = draw(tmp_path / "alone")
    assert not restored
    with shared_renderer():
        shared = draw(tmp_path / "shared")
    assert [i for i, (a, b) in enumerate(zip(alone, shared, strict=True)) if a != b] == []
    # Drawn on kept layers: 1 and 3–7 on 0's (the 4-row, 6-row, dense, above-roof,
    # integer-OP and bandwidth-panel plots share one window), 11 on 9's, 16 on 14's. New
    # layers: 2, 8, 9, 10 (two bold roofs), 12 (dpi), 13 (style), 14 (0's pushed out by
    # 12 and 13), 15 (OP/s).
    assert len(restored) == 8
    # Each its own picture but the repeats: table(4) on PRESET four times, fp64 on mi300a
    # twice.
    assert len(set(alone)) == len(plots) - 4


def test_a_block_draws_the_axes_of_plots_alike_once(tmp_path, monkeypatch):
    # Three plots on one preset with one window: in a block, their axes' ticks are drawn
    # for the first alone (the others start from its pixels); outside, for each.
    from matplotlib.axis import Tick

    from rooflow.plotting.canvas import shared_renderer

    drawn: list[Tick] = []
    real = Tick.draw
    monkeypatch.setattr(Tick, "draw", lambda self, renderer: drawn.append(self)
                        or real(self, renderer))

    def ticks_drawn(folder) -> int:
        folder.mkdir()
        drawn.clear()
        for i, t in enumerate((table(4), table(6, family=["a", "b"] * 3), table(4))):
            plot_roofline(t, PRESET, folder / f"{i}.png", options=PlotOptions(dpi=60))
        return len(drawn)

    alone = ticks_drawn(tmp_path / "alone")
    with shared_renderer():
        shared = ticks_drawn(tmp_path / "shared")
    assert alone > 0 and shared * 3 == alone


def test_a_plot_saved_in_a_block_is_freed_and_left_as_it_was(tmp_path):
    # The layer registry holds no figure alive, and a save on a kept layer leaves every
    # artist shown or hidden as before; saved again (PNG, then SVG) it is the same plot.
    import gc
    import weakref

    from rooflow.plotting.canvas import shared_renderer
    from rooflow.plotting.roofline import save

    def visibility(fig) -> list[bool]:
        return [a.get_visible() for a in fig.findobj()]

    with shared_renderer():
        plot_roofline(table(4), PRESET, tmp_path / "first.png", options=PlotOptions(dpi=60))
        fig = figure(table(6), PRESET, PlotOptions(dpi=60))
        fig.axes[0].get_legend().set_visible(False)
        before = visibility(fig)
        save(fig, tmp_path / "a.png", "png", 60)
        assert visibility(fig) == before
        save(fig, tmp_path / "b.png", "png", 60)
        save(fig, tmp_path / "c.svg", "svg", 60)
        assert visibility(fig) == before
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert b"<svg" in (tmp_path / "c.svg").read_bytes()[:400]
    gone = weakref.ref(fig)
    del fig
    gc.collect()
    assert gone() is None
