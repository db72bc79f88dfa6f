"""Interactive pages: content, offline, escaping of input names, rendering in Chromium,
and the Snakemake report of the shared build of the shipped examples."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from page_models import spec
from workflow_copy import EXAMPLE_CONFIG, snakemake

from rooflow.analysis import analyze
from rooflow.html.page import roofline_page
from rooflow.roofs import load_preset

CHROMIUM = Path("/usr/bin/chromium")
XSS = "<img src=x onerror=\"document.title='pwned'\">"


@pytest.fixture(scope="module")
def chromium() -> Path:
    """Headless Chromium; its absence fails (`make test` installs it), never skips."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} missing: `make chromium` (as root) or apt-get install -y "
                    "chromium")
    return CHROMIUM


def headless(chromium: Path, profile: Path, page: Path, *args: str) -> str:
    cmd = [str(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}", "--window-size=1300,800",
           "--virtual-time-budget=4000", *args, page.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def points(kernels: list[str], family: str = "gemm", series: str = "run") -> pl.DataFrame:
    """Canonical points on DRAM: kernel i has intensity 10^(i mod 5 - 1) FLOP/byte and runs
    at half its B70 roof, 0.5 × min(183.5 TFLOP/s, AI × 608 GB/s)."""
    n = len(kernels)
    ai = [10.0 ** (i % 5 - 1) for i in range(n)]
    perf = [0.5 * min(183.5e12, a * 608e9) for a in ai]
    return pl.DataFrame({
        "series": [series] * n, "family": [family] * n, "label": kernels, "pair": [""] * n,
        "kernel": kernels, "dims": [""] * n, "level": ["DRAM"] * n,
        "precision": ["fp16-tensor"] * n, "precision_mix": [""] * n,
        "flop": [a * 1e9 for a in ai], "bytes": [1e9] * n,
        "time_s": [a * 1e9 / p for a, p in zip(ai, perf, strict=True)],
        "arithmetic_intensity": ai, "performance": perf, "bytes_model": ["given"] * n,
        "source": ["t.csv"] * n,
        "row": list(range(1, n + 1)), "device": [""] * n,
    }).with_columns(pl.lit(None, pl.Float64).alias("clock_hz"),  # no clock, launches known
                    pl.lit(None, pl.Float64).alias("memory_clock_hz"),
                    pl.lit(None, pl.Float64).alias("l2_clock_hz"),
                    pl.lit(None, pl.Int64).alias("launches"))


@pytest.fixture(scope="module")
def b70():
    return load_preset("arc-pro-b70")


def test_page_is_one_offline_file_with_the_numbers(tmp_path, b70):
    table = analyze(points(["gemm_a", "gemm_b", "gemm_c"]), b70)
    page = roofline_page(table, b70, tmp_path / "p.html", title="t").read_text()
    assert not re.search(r"<script[^>]*\bsrc=", page)  # JS inlined: no script to fetch
    assert "Bokeh" in page and len(page) < 5_000_000
    for name in ("gemm_a", "gemm_b", "gemm_c"):
        assert name in page
    # hover text of gemm_c: AI 10 × 608 GB/s = 6.08 TFLOP/s attainable, half of it achieved
    assert "3.04 TFLOP/s" in page and "6.08 TFLOP/s" in page and "50.0 %" in page
    # ridge point of the B70: 183.5 TFLOP/s / 608 GB/s = 301.8 FLOP/byte
    assert "301.8 FLOP/byte" in page


SCRIPT_SRC = re.compile(r"<script[^>]*\bsrc=\"([^\"]*)\"")


def shared_page(tmp_path: Path, table: pl.DataFrame, preset, name: str = "x") -> Path:
    """A page as the workflow writes it: results/html/PRESET/NAME.html, loading the BokehJS
    bundles of results/html/bokeh-VERSION/ (rule bokehjs)."""
    from rooflow.html.bokehjs import write_bundles
    from rooflow.workflow import paths
    from rooflow.workflow.draw import bokehjs_files

    files = [str(tmp_path / f) for f in bokehjs_files()]
    write_bundles(files)
    page = tmp_path / paths.fill(paths.DATASET_PAGE, preset=preset.key, kind="roofline",
                                 name=name)
    return roofline_page(table, preset, page, title=name, bokehjs=files)


def test_workflow_page_loads_the_shared_bokehjs_by_relative_paths(tmp_path, b70):
    import shutil

    from bokeh.util.paths import bokehjs_path

    table = analyze(points(["gemm_a", "gemm_b"]), b70)
    page = shared_page(tmp_path / "a", table, b70)
    text = page.read_text()
    # Bokeh's core and its widgets (the notes are Div widgets), from the folder beside
    # the preset's: results/html/arc-pro-b70/x.html → ../bokeh-VERSION/js/
    srcs = SCRIPT_SRC.findall(text)
    assert [s.rsplit("/", 1)[1] for s in srcs] == ["bokeh.min.js", "bokeh-widgets.min.js"]
    assert all(s.startswith("../bokeh-") for s in srcs)
    for src in srcs:  # Bokeh's own files, found relative to the page
        assert (page.parent / src).read_bytes() == (
            bokehjs_path() / "js" / src.rsplit("/", 1)[1]).read_bytes()
    assert "/* BEGIN bokeh" not in text and len(text) < 100_000  # nothing inlined
    assert "gemm_a" in text and "301.8 FLOP/byte" in text  # the page's own content kept
    # The results folder moved as a whole: the page still finds its scripts.
    moved = tmp_path / "moved"
    shutil.copytree(tmp_path / "a", moved)
    shutil.rmtree(tmp_path / "a")
    copy = moved / page.relative_to(tmp_path / "a")
    assert all((copy.parent / src).is_file() for src in SCRIPT_SRC.findall(copy.read_text()))


def test_a_page_that_needs_mathjax_finds_it_among_the_shared_bundles(tmp_path, b70):
    # A preset's name with TeX delimiters reaches a note (a Div): Bokeh loads its MathJax
    # bundle for that page, so the shared folder holds every bundle a page may load.
    from dataclasses import replace

    tex = replace(b70, name="Arc $$B_{70}$$")
    page = shared_page(tmp_path, analyze(points(["gemm_a"]), tex), tex)
    srcs = SCRIPT_SRC.findall(page.read_text())
    assert "bokeh-mathjax.min.js" in {s.rsplit("/", 1)[1] for s in srcs}
    assert all((page.parent / s).is_file() for s in srcs)


def test_the_shared_bundles_are_bokehs_standalone_components_in_their_layout(tmp_path):
    from bokeh.resources import Resources

    from rooflow.html.bokehjs import BUNDLES, root

    assert list(BUNDLES) == Resources(mode="relative").components
    files = [tmp_path / "r" / "js" / f"{b}.min.js" for b in BUNDLES]
    assert root(files) == tmp_path / "r"
    with pytest.raises(ValueError, match="not the BokehJS bundles"):
        root(files[:-1])  # one missing: a page could look for it
    with pytest.raises(ValueError, match="not the BokehJS bundles"):
        root([tmp_path / "r" / f"{b}.min.js" for b in BUNDLES])  # not under js/


def test_pages_pass_bokehs_document_validation(b70):
    """Bokeh validates a document (a glyph's column missing from its source, an empty
    layout...) only when it writes the page from its own objects; rooflow writes the
    JSON (rooflow.html.bokehdoc), so Bokeh's checks run here, on each page read back.

    Pages of every shape: one level; two levels with several series and a dataset colour
    (an overview); a precision without a roof (⊗); more points than drawn (density cells);
    bandwidth-only rows (the side panel).
    """
    from bokeh.core.validation.check import check_integrity
    from bokeh.layouts import column
    from page_models import page_items

    two_levels = pl.concat([points(["a", "b"]), points(["a", "b"], series="other").with_columns(
        level=pl.lit("L2"))]).with_columns(dataset=pl.lit("ds"))
    tables = {
        "one level": analyze(points(["a", "b", "c"]), b70),
        "overview": analyze(two_levels, b70),
        "no roof": analyze(points(["a", "b"]).with_columns(
            precision=pl.Series(["fp16-tensor", "int2"])), b70),
        "density": analyze(points([f"k{i}" for i in range(60)]), b70),
        "bandwidth panel": analyze(points(["a", "copy"]).with_columns(  # a copy: no FLOP
            flop=pl.Series([1e9, 0.0]), arithmetic_intensity=pl.Series([1.0, None]),
            performance=pl.Series([304e9, None])), b70),
    }
    for shape, table in tables.items():
        items = page_items(table, b70, title=shape, color_by="dataset" if shape == "overview"
                           else "family", max_points=20, top_n=10, series_order=["run"])
        models = list(column(*items).references())
        assert len(models) > 50, shape  # the whole page, not an empty column
        issues = check_integrity(models)
        assert issues.error == [] and issues.warning == [], (shape, issues)


def test_cli_page_inlines_bokehjs(tmp_path, capsys):
    from cli_run import run

    csv = tmp_path / "k.csv"
    csv.write_text("label,ai,tflops,precision\ngemm,10,5,fp16-tensor\n")
    code, err = run(capsys, "plot", csv, "--hardware", "arc-pro-b70", "-o", tmp_path / "p.png",
                    "--html", tmp_path / "p.html")
    assert code == 0, err
    page = (tmp_path / "p.html").read_text()
    assert SCRIPT_SRC.findall(page) == []  # one file, handed around alone
    assert "/* BEGIN bokeh.min.js */" in page and "/* BEGIN bokeh-widgets.min.js */" in page


def test_big_tables_keep_the_top_points_and_bin_the_rest(tmp_path, b70):
    table = analyze(points([f"k{i}" for i in range(5)] * 3000), b70)  # 15 000 rows
    path = roofline_page(table, b70, tmp_path / "big.html", title="big", max_points=4000)
    page = path.read_text()
    assert "4000 points drawn" in page and "11000 more as grey density cells" in page
    assert path.stat().st_size < 5_000_000


@pytest.mark.browser
def test_input_names_are_escaped_and_no_script_runs(tmp_path, b70, chromium):
    table = analyze(points([XSS, "ok"], family=XSS, series=XSS), b70)
    path = roofline_page(table, b70, tmp_path / "x.html", title=XSS)
    page = path.read_text()
    head = page[: page.index("<script")]
    assert "&lt;img src=x" in head and "<img" not in head  # the <title>
    dom = headless(chromium, tmp_path / "profile", path, "--dump-dom")
    title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert title.startswith("&lt;img src=x") and title != "pwned"  # onerror never ran
    outside_scripts = re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    assert "<img" not in outside_scripts
    assert "bk-root" in dom or "bk-" in dom  # Bokeh did render (the check is not vacuous)


@pytest.mark.browser
def test_screenshot_shows_roof_and_points(tmp_path, b70, chromium):
    from PIL import Image

    table = analyze(points(["a", "b", "c", "d"]), b70)
    path = roofline_page(table, b70, tmp_path / "s.html", title="screenshot")
    shot = tmp_path / "s.png"
    headless(chromium, tmp_path / "profile", path, f"--screenshot={shot}")
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    plot = img[40:500, 70:810]  # inside the plot frame (FRAME 760 × 480 at top left)
    black = (plot.max(axis=2) < 60).sum()  # the default roof: a 2 px black line
    blue = ((abs(plot[..., 0] - 0x1F) < 40) & (abs(plot[..., 1] - 0x77) < 40)
            & (abs(plot[..., 2] - 0xB4) < 40)).sum()  # Category10 blue: the points
    assert black > 500, black
    assert blue > 100, blue


@pytest.mark.browser
def test_workflow_page_renders_with_the_shared_bokehjs(tmp_path, b70, chromium):
    # Opened from file://, offline: the roof and the points are drawn only if the
    # relative <script src> of the shared bundles loaded.
    from PIL import Image

    path = shared_page(tmp_path, analyze(points(["a", "b", "c", "d"]), b70), b70)
    shot = tmp_path / "s.png"
    headless(chromium, tmp_path / "profile", path, f"--screenshot={shot}")
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    plot = img[40:500, 70:810]
    black = (plot.max(axis=2) < 60).sum()
    blue = ((abs(plot[..., 0] - 0x1F) < 40) & (abs(plot[..., 1] - 0x77) < 40)
            & (abs(plot[..., 2] - 0xB4) < 40)).sum()
    assert black > 500, black
    assert blue > 100, blue


@pytest.mark.workflow
def test_snakemake_report_is_one_file(examples_build, tmp_path):
    # The report of the shared build of the shipped examples (it only reads that build).
    path = tmp_path / "report.html"
    snakemake(examples_build, "--report", str(path), *EXAMPLE_CONFIG)
    report = path.read_text()
    assert not re.search(r"<script[^>]*\bsrc=\"?https?:", report)
    for text in ("flash_attention_tuning", "roofline-flash_attention_tuned", "arc-pro-b70",
                 "ranked by potential time saved", "Interactive pages"):
        assert text in report, text
    for out in ("html/arc-pro-b70/roofline-flash_attention.html", "html/arc-pro-b70/all.html",
                "compare/arc-pro-b70/flash_attention_tuning.html",
                "compare/arc-pro-b70/flash_attention_tuning.csv"):
        assert (examples_build / "results" / out).stat().st_size > 1000, out


def test_hover_gives_calls_and_time_per_call(tmp_path, b70):
    # three calls of 1, 2 and 6 ms: mean 3 ms, median 2 ms, std (ddof 1) sqrt(7) ms
    # = 2.646 ms, min 1 ms, max 6 ms
    from rooflow.html.page import hover_columns

    per_call = {"calls": [3], "time_per_call_s": [3e-3], "time_per_call_median_s": [2e-3],
                "time_per_call_std_s": [7 ** 0.5 * 1e-3], "time_per_call_min_s": [1e-3],
                "time_per_call_max_s": [6e-3]}
    table = analyze(points(["gemm_a"]).with_columns(
        pl.Series(k, v) for k, v in per_call.items()), b70)
    cols = hover_columns(table)
    assert cols["calls_txt"] == ["3"]
    assert cols["per_call_txt"] == [
        "mean 3 ms, median 2 ms, std 2.646 ms, min 1 ms, max 6 ms"]
    page = roofline_page(table, b70, tmp_path / "p.html", title="t").read_text()
    assert "median 2 ms, std 2.646 ms" in page
    # points without per-call columns: a dash, never a made-up figure
    assert hover_columns(analyze(points(["gemm_b"]), b70))["per_call_txt"] == ["–"]


def test_page_draws_the_pngs_bold_roofs_each_with_its_ridge():
    """The page bolds the roofs the points are judged against, one ridge each, as the PNG.

    h100-sxm (NVIDIA H100 datasheet, hardware.yaml): FP64 34 TFLOP/s, FP16 Tensor 989.4
    TFLOP/s, HBM3 3,350 GB/s. An fp64 kernel and an fp16-tensor kernel on HBM: two bold
    roofs with ridges at 34e12 / 3.35e12 = 10.149 and 989.4e12 / 3.35e12 = 295.34
    FLOP/byte; the preset's other precisions' roofs are not drawn solid.
    """
    from bokeh.models import GlyphRenderer
    from page_models import roofline_figure

    h100 = load_preset("h100-sxm")
    table = analyze(points(["dgemm", "hgemm"]).with_columns(
        level=pl.lit("HBM"), precision=pl.Series(["fp64", "fp16-tensor"])), h100)
    fig, _, _ = roofline_figure(h100, [table], "two precisions")
    glyphs = [r.glyph for r in fig.renderers if isinstance(r, GlyphRenderer)]
    solid = [g for g in glyphs if type(g).__name__ == "Line" and spec(g.line_width) == 2]
    assert len(solid) == 2
    ridges = sorted(x for r in fig.renderers if isinstance(r, GlyphRenderer)
                    and type(r.glyph).__name__ == "Scatter" and spec(r.glyph.fill_color) == "white"
                    for x in r.data_source.data["x"])
    assert ridges == pytest.approx([34 / 3.35, 989.4 / 3.35], rel=1e-6)


def many_long_names(b70) -> pl.DataFrame:
    """14 kernels named 54 characters on DRAM and L2, two series: a level, a kernel (the
    colour, 14 > 10 coloured: Tableau 20), a series and a points legend."""
    names = [f"very_long_kernel_name_number_{i:02d}_with_suffix_xyz_abc" for i in range(14)]
    one = pl.concat([points(names, series="Original run with a long name"),
                     points(names, series="Optimized").with_columns(pl.col("row") + 100)])
    return analyze(pl.concat([one, one.with_columns(level=pl.lit("L2"))]), b70)


def test_legends_past_the_window_go_below_the_plot_in_columns(b70):
    """Right of the 760 px frame a 1,400 px window (figure.WINDOW) leaves 1400 − 760 − 160
    = 480 px (estimated). The level legend takes 142 (its title: 21 characters × 5.8 +
    20), the kernel legend 269 (labels cut to 40 characters: 45 + 40 × 5.6): 69 px left.
    The series legend (45 + 29 × 5.6 = 207) and the points legend (title 148) go below,
    in as many columns as fit the frame: 760 // 207 = 3."""
    from bokeh.models import Legend
    from page_models import page_items

    fig = page_items(many_long_names(b70), b70, title="t", color_by="family", max_points=100,
                     top_n=20, series_order=())[0]
    right = [x.title for x in fig.right if isinstance(x, Legend)]
    below = {x.title: x for x in fig.below if isinstance(x, Legend)}
    assert right == ["level (click to hide)", "kernel (click to hide)"]
    assert list(below) == ["series (click to hide)", "points (click to hide)"]
    series = below["series (click to hide)"]
    assert (series.orientation, series.ncols) == ("horizontal", 3)
    # A renderer per series: each series' entry hides its own points only (and the lines
    # joining their levels, drawn per series too).
    assert [item.label.value for item in series.items] == ["Original run with a long name",
                                                           "Optimized"]
    for item in series.items:
        points = [r for r in item.renderers if r.name != "kernel-levels"]
        assert {r.data_source.data["series"][0] for r in points} == {item.label.value}


@pytest.mark.browser
def test_a_page_of_many_long_names_fits_a_1400_pixel_window(tmp_path, b70, chromium):
    """Its legends used to sit side by side right of the plot: 1,700 px wide, scrolled
    sideways. The page's width is read in Chromium after Bokeh laid it out (a script
    added to a copy of the page, after Bokeh's, sets the title to the document's width)."""
    from rooflow.html.figure import WINDOW

    page = roofline_page(many_long_names(b70), b70, tmp_path / "wide.html", title="wide")
    html = page.read_text()
    end = html.rindex("</body>")  # the last: Bokeh's inlined JS holds the string too
    probe = tmp_path / "probe.html"
    probe.write_text(html[:end] + "<script>setTimeout(() => {document.title = 'width ' + "
                     "document.documentElement.scrollWidth}, 2500)</script>" + html[end:])
    dom = headless(chromium, tmp_path / "profile", probe, "--dump-dom",
                   f"--window-size={WINDOW},900")
    width = int(re.search(r"<title>width (\d+)</title>", dom).group(1))
    assert 1000 < width <= WINDOW, width


def test_the_page_says_what_the_pngs_notes_box_says(b70):
    """A level without a roof on the preset, and what the reader left out: the PNG's notes
    box says both; the page had said neither (its L1 points looked judged)."""
    import html as html_text

    from bokeh.models import Div
    from page_models import page_items

    from rooflow.html.page import MAX_POINTS
    from rooflow.plotting import PlotOptions, figure

    pts = points(["gemm", "copy"])
    table = analyze(pl.concat([pts, pts.with_columns(level=pl.lit("L1"))]), b70)
    left = ["left out: kernel 'void k<…>(…)' (launch 3) ran no FLOP"]
    png = next(t for t in figure(table, b70, PlotOptions(annotate=False, left_out=left))
               .axes[0].texts if t.get_gid() == "notes").get_text().split("\n")
    items = page_items(table, b70, title="t", color_by="family", max_points=MAX_POINTS,
                       top_n=10, series_order=(), left_out=left)
    said = [html_text.unescape(d.text) for d in items if isinstance(d, Div)]
    assert png == ["no L1 roof on arc-pro-b70", *left]
    assert "<p>no L1 roof on arc-pro-b70.</p>" in said and f"<p>{left[0]}</p>" in said
