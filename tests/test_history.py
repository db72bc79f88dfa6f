"""`rooflow history`: kernels across runs, each step judged by check (issue 36, item 3)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from page_models import bokeh_models

from rooflow.analysis import analyze
from rooflow.history import FIRST, history
from rooflow.points import to_points
from rooflow.roofs.preset import select_preset

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
PRESET = select_preset({}, None, peak_tflops=100, peak_bandwidth_gbs=1000)
GEMM_US = [2000, 2000, 2600]
# Five calls a run, ±0.5 % apart: median m, MAD 0.005 m → σ = 1.4826 × 0.5 % = 0.7413 %;
# se of a median = 1.2533 × 0.7413 % / √5 = 0.41549 %, combined √2 × that = 0.58760 %;
# t(99.9 %, 4 df) = 7.1732 → allowed max(5 %, 7.1732 × 0.58760 % = 4.2150 %) = 5 %.
SPREAD = [1.0, 1.005, 0.995, 1.0, 1.0]


def run(gemm_us: float) -> pl.DataFrame:
    """One run's points, a row per call: gemm (10⁹ FLOP, 10⁸ B) and copy (10⁸ B, no FLOP)."""
    rows = ([("gemm", 1e9, 1e8, gemm_us * f) for f in SPREAD]
            + [("copy", 0.0, 1e8, 2000 * f) for f in SPREAD])
    frame = pl.DataFrame(rows, schema=["kernel", "flop", "bytes", "us"], orient="row")
    return analyze(to_points(frame.with_columns(
        time_s=pl.col("us") / 1e6, row=pl.int_range(1, pl.len() + 1, dtype=pl.Int64),
        arithmetic_intensity=pl.when(pl.col("flop") > 0).then(pl.col("flop") / pl.col("bytes")),
        performance=pl.col("flop") / (pl.col("us") / 1e6), source=pl.lit("run.csv"))), PRESET)


def fifteen_kernels_k14_slower(also: tuple[int, ...] = ()) -> pl.DataFrame:
    """History of KERNELS + 5 = 15 kernels over runs a and b: kernel i takes 15 - i ms, but
    k14 1 ms in a and 1.3 ms in b (30 % slower: regressed), and so the kernels ``also``."""
    from rooflow.plotting.history import KERNELS

    n = KERNELS + 5

    def one(slower: float) -> pl.DataFrame:
        times = [(n - i) * 1e-3 * (slower if i in (*also, n - 1) else 1.0) for i in range(n)]
        frame = pl.DataFrame({"kernel": [f"k{i:02d}" for i in range(n)], "flop": [1e9] * n,
                              "bytes": [1e8] * n, "time_s": times})
        return analyze(to_points(frame.with_columns(
            row=pl.int_range(1, pl.len() + 1, dtype=pl.Int64), arithmetic_intensity=10.0,
            performance=pl.col("flop") / pl.col("time_s"), source=pl.lit("run.csv"))), PRESET)

    return history([one(1.0), one(1.3)], ["a", "b"])


def test_only_the_third_gemm_step_regresses():
    table = history([run(us) for us in GEMM_US], ["a1", "b2", "c3"])
    rows = {(r["run"], r["kernel"]): r for r in table.iter_rows(named=True)}
    # gemm 2,000 → 2,000 µs: 0 % slower; 2,000 → 2,600 µs: +30 % > 5 % allowed.
    assert [r["regressed"] for r in table.filter(kernel="gemm").iter_rows(named=True)] == [
        False, False, True]
    assert not table.filter(kernel="copy")["regressed"].any()
    assert rows["c3", "gemm"]["slowdown_pct"] == pytest.approx(30.0)
    assert rows["c3", "gemm"]["allowed_pct"] == pytest.approx(5.0)
    assert rows["a1", "gemm"]["status"] == FIRST
    # Time per call is the median of the calls; % of roof from 100 / kernel headroom:
    # gemm AI = 10 FLOP/B, attainable min(100, 10 × 1) = 10 TFLOP/s; at 2,000 µs it does
    # 10⁹ / 2e-3 = 0.5 TFLOP/s = 5 % of roof, at 2,600 µs 0.3846 TFLOP/s = 3.846 %.
    assert rows["c3", "gemm"]["time_s"] == pytest.approx(2.6e-3)
    assert rows["a1", "gemm"]["pct_of_roof"] == pytest.approx(5.0)
    assert rows["c3", "gemm"]["pct_of_roof"] == pytest.approx(3.8462, rel=1e-4)
    assert rows["a1", "gemm"]["performance"] == pytest.approx(0.5e12)
    # copy, bandwidth only: 10⁸ B / 2e-3 s = 50 GB/s.
    assert rows["a1", "copy"]["performance"] == pytest.approx(5e10)
    assert rows["a1", "copy"]["unit"] == "byte/s"


def test_trend_figure_rings_the_regressed_step():
    from rooflow.plotting.history import REGRESSED_COLOR, figure

    table = history([run(us) for us in GEMM_US], ["a1", "b2", "c3"])
    fig = figure(table, title="t")
    time_ax = fig.axes[0]
    rings = [line for line in time_ax.lines if line.get_markeredgecolor() == REGRESSED_COLOR
             and len(line.get_xdata())]
    # One ring, on gemm's third run (step 2) at 2.6 ms.
    # Each point is followed by a NaN (markers.apart: no path joins the rings).
    assert [(list(r.get_xdata()[::2]), list(r.get_ydata()[::2])) for r in rings] == [
        ([2], [2.6e-3])]
    # 2 → 2.6 ms, within one decade: the minor ticks are labelled too, as the major ones.
    fig.canvas.draw()
    assert {"2 ms", "2.6 ms"} <= {t.get_text() for t in time_ax.yaxis.get_minorticklabels()}


def test_labels_must_match_the_runs():
    with pytest.raises(ValueError, match="2 labels for 3 runs"):
        history([run(us) for us in GEMM_US], ["a", "b"])


def test_cli_history_table_and_labels(tmp_path):
    paths = []
    for name, us in zip(("r1.csv", "r2.csv", "r3.csv"), GEMM_US, strict=True):
        lines = ["kernel,flop,bytes,time_us"]
        lines += [f"gemm,1e9,1e8,{us * f}" for f in SPREAD]
        lines += [f"copy,1e9,1e9,{2000 * f}" for f in SPREAD]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        paths.append(str(tmp_path / name))
    out, png, page = tmp_path / "h.csv", tmp_path / "h.png", tmp_path / "h.html"
    proc = subprocess.run([ROOFLOW, "history", *paths, "--peak-tflops", "100",
                           "--peak-bandwidth", "1000", "--label", "c1,c2,c3", "-o", str(out),
                           "--plot", str(png), "--html", str(page)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    table = pl.read_csv(out)
    assert {"run", "kernel", "time_s", "pct_of_roof", "regressed"} <= set(table.columns)
    flagged = table.filter(pl.col("regressed"))
    assert flagged.select("run", "kernel").rows() == [("c3", "gemm")]
    assert "1 regressed" in proc.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "c3" in page.read_text() and "gemm" in page.read_text()
    bad = subprocess.run([ROOFLOW, "history", *paths, "--peak-tflops", "100",
                          "--peak-bandwidth", "1000", "--label", "a,b"],
                         capture_output=True, text=True, timeout=120)
    # A usage error (the options disagree): exit 2.
    assert bad.returncode == 2 and "2 labels for 3 runs" in bad.stderr


def test_kernels_past_the_coloured_ones_are_one_grey_line_broken_between_kernels():
    """KERNELS + 2 kernels over 2 runs: KERNELS coloured lines of 2 points each, then the
    two least timed kernels (the last run's order, slowest first) in one grey line:
    their 2 points each, a NaN between them, no segment joining one kernel to the next."""
    from rooflow.plotting.history import KERNELS, figure

    n = KERNELS + 2
    frame = pl.DataFrame({"kernel": [f"k{i:02d}" for i in range(n)], "flop": [1e9] * n,
                          "bytes": [1e8] * n, "time_s": [(n - i) * 1e-3 for i in range(n)]})
    one = analyze(to_points(frame.with_columns(
        row=pl.int_range(1, pl.len() + 1, dtype=pl.Int64), arithmetic_intensity=10.0,
        performance=pl.col("flop") / pl.col("time_s"), source=pl.lit("run.csv"))), PRESET)
    time_ax = figure(history([one, one], ["a", "b"]), title="t").axes[0]
    lines = [line for line in time_ax.lines if line.get_linestyle() != "None"]
    grey = [line for line in lines if line.get_color() == "0.75"]
    assert len(lines) == KERNELS + 1 and len(grey) == 1
    # k10 at 2 ms and k11 at 1 ms, steps 0 and 1 each, sorted by name.
    assert np.array_equal(grey[0].get_xdata(), [0, 1, np.nan, 0, 1], equal_nan=True)
    assert np.array_equal(grey[0].get_ydata(), [2e-3, 2e-3, np.nan, 1e-3, 1e-3],
                          equal_nan=True)


def test_the_png_draws_as_many_grey_kernels_as_the_page_and_counts_the_rest():
    """KERNELS + 5 kernels over 2 runs, k14 30 % slower in the second (regressed), at most
    4 grey points: 4 // 2 runs = 2 grey kernels, k14 first (its regression), then k10 by
    name; 3 left out and said so on the figure. The grey line is the page's kernels
    (grey_kernels, one selection for both)."""
    from rooflow.plotting.history import figure, grey_kernels

    table = fifteen_kernels_k14_slower()
    fig = figure(table, title="t", max_points=4)
    grey = [line for line in fig.axes[0].lines if line.get_color() == "0.75"]
    # k14: 1.0 → 1.3 ms; k10: 5 ms both runs (times n - i ms).
    assert np.allclose(grey[0].get_ydata(), [1e-3, 1.3e-3, np.nan, 5e-3, 5e-3],
                       rtol=1e-12, equal_nan=True)
    assert "3 more kernels not drawn (the table lists them)" in [t.get_text() for t in fig.texts]
    # Times 1 … 15 ms span more than a decade: the minor ticks (2 ms … 9 ms) unlabelled,
    # the decades labelled (their labels ran into each other on a 1-90 ms axis).
    fig.canvas.draw()
    time_axis = fig.axes[0].yaxis
    assert not any(t.get_text() for t in time_axis.get_minorticklabels())
    assert {"1 ms", "10 ms"} <= {t.get_text() for t in time_axis.get_majorticklabels()}
    from rooflow.plotting.history import coloured, kernel_names, trend

    named = kernel_names(table)
    shown, left = grey_kernels(named, coloured(named, trend(named)[0]), 2, 4)
    assert shown["name"].unique(maintain_order=True).to_list() == ["k14", "k10"] and left == 3


def test_a_regressed_kernel_left_out_of_the_grey_ones_gets_no_ring():
    """k09, k12, k13 and k14 30 % slower in run b, all regressed (+30 % > the 5 % floor,
    one call each). Coloured: k00 … k09 (k09 at 7.8 ms still above k10's 5 ms). Grey,
    regressed first then by name: k12, k13, k14, k10, k11; max_points 4 // 2 runs = 2 kept:
    k12 and k13. Rings on each axes: k09, k12 and k13 at step 1 = 3, each point followed
    by a NaN (markers.apart): 6 values; k14, regressed but not drawn, has none (as on the
    page, whose rings are on its drawn points only)."""
    from rooflow.plotting.history import REGRESSED_COLOR, figure

    table = fifteen_kernels_k14_slower(also=(9, 12, 13))
    assert sorted(table.filter(pl.col("regressed"))["kernel"]) == ["k09", "k12", "k13", "k14"]
    fig = figure(table, title="t", max_points=4)
    for ax in fig.axes[:2]:
        # Hollow, red-edged: the rings (no kernel's line is red: kernel_colors).
        (rings,) = [line for line in ax.lines if line.get_markeredgecolor() == REGRESSED_COLOR
                    and line.get_markerfacecolor() == "none"]
        assert len(rings.get_xdata()) == len(rings.get_ydata()) == 6
        assert list(rings.get_xdata()[::2]) == [1, 1, 1]
        if ax is fig.axes[0]:  # k09 7.8 ms, k12 3.9 ms, k13 2.6 ms; not k14's 1.3 ms
            assert sorted(rings.get_ydata()[::2]) == pytest.approx([2.6e-3, 3.9e-3, 7.8e-3])
    # The legend counts the 3 rings drawn; k14's regressed step is said with the 3 left out.
    texts = [t.get_text() for t in fig.texts]
    assert "red ring: a regression by check's noise model (3)" in texts
    assert ("3 more kernels not drawn (the table lists them); 1 regressed steps among them"
            in texts)


def test_no_kernel_is_drawn_in_the_rings_red(monkeypatch):
    """Ten coloured kernels took Tableau 10, whose 4th colour is the regression rings' red
    (#d62728): k03's line read as regressed. History colours leave it out, on the PNG and
    the page: Tableau 10's nine others, then Tableau 20's first light tint (#aec7e8)."""
    from bokeh.models import Line

    from rooflow.html import history as page
    from rooflow.plotting.history import KERNELS, REGRESSED_COLOR, figure, kernel_colors

    colors = kernel_colors(KERNELS)
    assert REGRESSED_COLOR not in colors and len(set(colors)) == KERNELS == 10
    assert colors == ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                      "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8"]
    table = fifteen_kernels_k14_slower()
    fig = figure(table, title="t")
    lines = {line.get_color() for ax in fig.axes[:2] for line in ax.lines
             if line.get_linestyle() != "None"}
    assert REGRESSED_COLOR not in lines and set(colors) <= lines
    written = []
    monkeypatch.setattr(page, "write_page",
                        lambda items, out, title: written.append(bokeh_models(items)))
    page.history_page(table, "h.html", title="t")
    page_lines = {r.glyph.line_color for r in written[0][0].renderers
                  if isinstance(r.glyph, Line)}
    assert REGRESSED_COLOR not in page_lines and set(colors) <= page_lines
    # Times in ms, as the PNG's tick labels: k00 takes 15 ms (n − 0 with n = 15).
    fig = written[0][0]
    assert fig.yaxis[0].axis_label == "Time per call (ms)"
    k00 = [r.data_source.data for r in fig.renderers
           if "name" in r.data_source.data and r.data_source.data["name"][0] == "k00"]
    assert k00 and k00[0]["y"] == pytest.approx([15.0, 15.0])


def test_the_summary_names_ten_regressed_steps_and_counts_the_rest():
    from rooflow.history import SUMMARY_STEPS, summary

    table = pl.DataFrame({"run": ["b"] * 13, "kernel": [f"k{i}" for i in range(13)],
                          "series": "s", "pair": "", "regressed": True,
                          "slowdown_pct": [10.0] * 13})
    line = summary(table)
    # 13 regressed: k0 … k9 named (SUMMARY_STEPS = 10), then "3 more".
    assert SUMMARY_STEPS == 10 and line.count(" at b (+10.0 %)") == 10
    assert line.startswith("1 runs, 13 kernels: 13 regressed: k0 at b") and line.endswith(
        ", and 3 more (the table lists every step)")


def test_a_large_history_page_draws_the_coloured_kernels_and_few_grey_ones(monkeypatch):
    """KERNELS + 5 kernels over 2 runs (one call each), k(i) at (n − i) ms; in run b k14,
    the fastest, takes 1.3 ms: +30 % > check's 5 % floor, regressed. max_points 4: grey
    kernels get 4 // 2 runs = 2 whole kernels, the regressed k14 first, then k10 by name;
    k11 … k13 are counted, not drawn. The KERNELS slowest (k00 … k09) keep a line and a
    legend entry each, the grey ones share one."""
    from bokeh.models import ColumnDataSource, Legend

    from rooflow.html import history as page
    from rooflow.plotting.history import KERNELS

    table = fifteen_kernels_k14_slower()
    assert table.filter(pl.col("regressed"))["kernel"].to_list() == ["k14"]
    written = []
    monkeypatch.setattr(page, "write_page",
                        lambda items, out, title: written.append(bokeh_models(items)))
    page.history_page(table, "h.html", title="t", max_points=4)
    fig = written[0][0]
    sources = {id(r.data_source): r.data_source.data for r in fig.renderers  # line + dot
               if isinstance(r.data_source, ColumnDataSource) and "name" in r.data_source.data}
    drawn = [list(dict.fromkeys(data["name"])) for data in sources.values()]
    assert ["k14", "k10"] in drawn
    assert sorted(n for names in drawn for n in names if n not in ("k14", "k10")) == [
        f"k{i:02d}" for i in range(KERNELS)]
    (legend,) = [x for x in fig.right if isinstance(x, Legend)]
    labels = [i.label.value for i in legend.items]
    assert labels[:KERNELS] == [f"k{i:02d}" for i in range(KERNELS)]
    assert labels[KERNELS:] == ["2 other kernels"]
    notes = " ".join(x.text for x in written[0][1:])
    assert "3 more kernels not drawn (the table lists them)" in notes


def test_a_kernel_of_two_series_is_two_lines_in_tflops():
    """The shipped flash-attention runs: each kernel has an Original and an Optimized row
    per run. Named by kernel alone, the two were one line, joined up and down within each
    run; now each series is its own line, "A=72 S=2k (Original)". Without times the upper
    panel is achieved performance: its top, 102 TFLOP/s (A=64 S=8k Optimized,
    flash_attention_tuned.csv), is ≥ 10 TFLOP/s, so it reads in TFLOP/s
    (core.perf_scale), scale 1e12."""
    from rooflow.adapters import load_points
    from rooflow.plotting.history import kernel_names, trend
    from rooflow.roofs import load_preset

    res = Path(__file__).resolve().parents[1] / "resources" / "roofline"
    preset = load_preset("arc-pro-b70")
    runs = [analyze(load_points("roofline", res / f), preset)
            for f in ("flash_attention.csv", "flash_attention_tuned.csv")]
    table = kernel_names(history(runs, ["before", "tuned"]))
    names = table.filter(run="before")["name"].to_list()
    assert sorted(names) == ["A=32 S=4k (Optimized)", "A=32 S=4k (Original)",
                             "A=72 S=2k (Optimized)", "A=72 S=2k (Original)"]
    assert table.group_by("run", "name").len()["len"].max() == 1  # one point per run and line
    assert trend(table) == ("performance", "Performance (TFLOP/s)", 1e12)
    # The PNG's key lists the kernels in the page's order (coloured(): the last run's
    # first, highest performance first without times): A=64 S=8k at 102 TFLOP/s first.
    from rooflow.plotting.history import coloured, figure

    fig = figure(history(runs, ["before", "tuned"]), title="t")
    key = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert key == coloured(table, "performance") and key[0] == "A=64 S=8k (Optimized)"
    assert table["performance"].max() == pytest.approx(102e12)


def test_long_kernel_names_keep_their_series_in_the_key():
    """Names of 45 characters plus " (Original)"/" (Optimized)": cut to 40 at their end
    they were two identical entries. Cut in the middle (key_names: head, "…", the longer
    tail) each keeps its series, and no bracket is elided."""
    from rooflow.escape import short_names
    from rooflow.plotting.history import KEY_CHARS, key_names

    base = "flash_attention_forward_kernel_bf16_causal_x4"
    names = [f"{base} (Original)", f"{base} (Optimized)"]
    key = key_names(names)
    assert KEY_CHARS == 40 and all(len(k) <= 40 for k in key)
    assert key[0].endswith("(Original)") and key[1].endswith("(Optimized)")
    assert short_names(pl.Series(["v1.2 (base)"]), 16, elide=False)[0] == "v1.2 (base)"


def test_the_history_page_counts_the_regressed_steps_it_leaves_out(monkeypatch):
    """As the PNG: k09, k12, k13 and k14 regressed; at most 4 grey points (2 kernels: k12,
    k13 regressed first) drawn; k10, k11 and k14 left out, k14's step among them."""
    from rooflow.html import history as page

    table = fifteen_kernels_k14_slower(also=(9, 12, 13))
    written = []
    monkeypatch.setattr(page, "write_page",
                        lambda items, out, title: written.append(bokeh_models(items)))
    page.history_page(table, "h.html", title="t", max_points=4)
    notes = " ".join(x.text for x in written[0][1:])
    assert ("3 more kernels not drawn (the table lists them); 1 regressed steps among them."
            in notes)
