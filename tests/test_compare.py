"""Run-to-run comparison: matching, hand-worked speedups, geomean, unmatched kernels."""

from __future__ import annotations

import math

import polars as pl
import pytest
from page_models import bokeh_models

from rooflow.compare import (
    ONLY_BASELINE,
    ONLY_NEW,
    compare_tables,
    geomean,
    normalize_name,
    only_label,
)


def table(rows: list[dict]) -> pl.DataFrame:
    """A minimal analysis table: the columns compare_tables reads."""
    base = {"label": "", "series": "run", "level": "DRAM", "precision": "fp32",
            "attainable": 100e12, "bound": "compute", "time_s": None, "theoretical": False}
    frame = pl.DataFrame([base | r for r in rows], schema_overrides={"time_s": pl.Float64})
    return frame.with_columns(pct_of_roof=pl.col("performance") / pl.col("attainable") * 100)


BASE = table([
    {"kernel": "k1", "arithmetic_intensity": 10.0, "performance": 10e12, "time_s": 2e-3},
    {"kernel": "k2", "arithmetic_intensity": 50.0, "performance": 40e12, "time_s": 1e-3},
    {"kernel": "k3", "arithmetic_intensity": 5.0, "performance": 1e12},
])
NEW = table([
    {"kernel": "k2", "arithmetic_intensity": 50.0, "performance": 10e12, "time_s": 4e-3},
    {"kernel": "k1", "arithmetic_intensity": 15.0, "performance": 20e12, "time_s": 1e-3},
    {"kernel": "k4", "arithmetic_intensity": 8.0, "performance": 2e12},
])


def test_hand_worked_speedups_and_geomean():
    comp = compare_tables(BASE, NEW)
    m = {r["name"]: r for r in comp.table.filter(pl.col("status") == "matched").to_dicts()}
    # k1: 20 / 10 TFLOP/s = 2.0; intensity 15 / 10 = 1.5; time 2 ms − 1 ms = 1 ms saved
    assert m["k1"]["speedup"] == pytest.approx(2.0)
    assert m["k1"]["intensity_change"] == pytest.approx(1.5)
    assert m["k1"]["time_saved_s"] == pytest.approx(1e-3)
    # pct of roof 10 % → 20 % (attainable 100 TFLOP/s)
    assert (m["k1"]["pct_of_roof_baseline"], m["k1"]["pct_of_roof_new"]) == pytest.approx((10, 20))
    # k2: 10 / 40 = 0.25, slower: time 1 ms → 4 ms, "saved" −3 ms
    assert m["k2"]["speedup"] == pytest.approx(0.25)
    assert m["k2"]["time_saved_s"] == pytest.approx(-3e-3)
    # geomean = sqrt(2 × 0.25) = sqrt(0.5) = 0.7071
    assert comp.geomean_speedup == pytest.approx(math.sqrt(0.5))
    assert comp.kernels == 2
    assert "0.707× over 2 kernels" in comp.summary()


def test_unmatched_kernels_are_listed_not_dropped():
    comp = compare_tables(BASE, NEW)
    t = comp.table
    assert t.height == 4  # k1, k2 matched; k3 baseline only; k4 new only
    assert t.filter(pl.col("status") == ONLY_BASELINE)["name"].to_list() == ["k3"]
    assert t.filter(pl.col("status") == ONLY_NEW)["name"].to_list() == ["k4"]
    assert (comp.only_baseline, comp.only_new) == (1, 1)
    k4 = t.filter(pl.col("name") == "k4").row(0, named=True)
    assert k4["speedup"] is None and k4["performance_new"] == 2e12
    # matched rows first, in the baseline's order
    assert t["name"].to_list() == ["k1", "k2", "k3", "k4"]


def test_levels_match_separately_and_a_kernel_counts_once_in_the_geomean():
    rows = [{"kernel": "g", "level": lv, "arithmetic_intensity": ai, "performance": 10e12}
            for lv, ai in (("DRAM", 10.0), ("L2", 2.0))]
    new = [r | {"performance": 30e12} for r in rows]
    comp = compare_tables(table(rows), table(new))
    assert comp.table["level"].to_list() == ["DRAM", "L2"]
    assert comp.table["speedup"].to_list() == pytest.approx([3.0, 3.0])
    assert comp.kernels == 1 and comp.geomean_speedup == pytest.approx(3.0)


def test_series_named_after_the_tool_do_not_block_matching():
    a = table([{"kernel": "k", "series": "ncu", "arithmetic_intensity": 1.0,
                "performance": 1e12}])
    b = table([{"kernel": "k", "series": "rocprof", "arithmetic_intensity": 1.0,
                "performance": 3e12}])
    assert compare_tables(a, b).table["speedup"].to_list() == pytest.approx([3.0])


def test_repeated_names_match_in_order_of_occurrence():
    a = table([{"kernel": "k", "arithmetic_intensity": 1.0, "performance": p}
               for p in (1e12, 2e12)])
    b = table([{"kernel": "k", "arithmetic_intensity": 1.0, "performance": p}
               for p in (2e12, 8e12)])
    # 1st ↔ 1st: 2/1 = 2; 2nd ↔ 2nd: 8/2 = 4; geomean sqrt(8) = 2.828
    comp = compare_tables(a, b)
    assert comp.table["speedup"].to_list() == pytest.approx([2.0, 4.0])
    assert comp.geomean_speedup == pytest.approx(math.sqrt(8))


def test_theoretical_points_have_no_speedup():
    a = table([{"kernel": "k", "arithmetic_intensity": 1.0, "performance": 1e12,
                "theoretical": True}])
    b = table([{"kernel": "k", "arithmetic_intensity": 1.0, "performance": 2e12}])
    comp = compare_tables(a, b)
    assert comp.table["speedup"].to_list() == [None]
    assert comp.geomean_speedup is None and "no speedup" in comp.summary()


@pytest.mark.parametrize(("name", "want"), [
    ("void gemm<float, 128>(float*, int)", "gemm"),
    ("void ns::k<std::pair<int, int>>(int) [grid 8,1,1]", "ns::k"),
    ("ampere_h16816gemm_128x128_ldg8", "ampere_h16816gemm_128x128_ldg8"),
    ("(weird)", "(weird)"),  # nothing left: kept as given
])
def test_normalize_name(name, want):
    assert normalize_name(name) == want


def test_normalize_option_matches_template_instances():
    a = table([{"kernel": "void k<float>(float*)", "arithmetic_intensity": 1.0,
                "performance": 1e12}])
    b = table([{"kernel": "void k<float>(float*, int)", "arithmetic_intensity": 1.0,
                "performance": 2e12}])
    assert compare_tables(a, b).table["status"].to_list() == [ONLY_BASELINE, ONLY_NEW]
    assert compare_tables(a, b, normalize=True).table["speedup"].to_list() == [2.0]


def test_geomean_skips_non_positive():
    # exp((ln 4 + ln 1) / 2) = 2; 0 and None are not speedups
    assert geomean([4.0, 1.0, 0.0, None]) == pytest.approx(2.0)
    assert geomean([]) is None


def test_cli_compare_writes_plot_table_page(tmp_path, repo, capsys):
    from rooflow.cli.main import main

    base = repo / "resources/roofline/flash_attention.csv"
    new = repo / "resources/roofline/flash_attention_tuned.csv"
    out = tmp_path / "c.png"
    main(["compare", str(base), str(new), "--hardware", "arc-pro-b70", "-o", str(out),
          "--table", str(tmp_path / "c.csv"), "--html", str(tmp_path / "c.html")])
    stderr = capsys.readouterr().err
    # Optimized A=72: 96/74; A=32: 88/71; Originals unchanged:
    # geomean = (96/74 × 88/71)^(1/4) = (1.2973 × 1.2394)^(1/4) = 1.1296
    assert "geometric-mean speedup 1.13× over 4 kernels" in stderr
    assert "1 only in new" in stderr
    assert out.stat().st_size > 10_000
    t = pl.read_csv(tmp_path / "c.csv")
    assert t.filter(pl.col("status") == ONLY_NEW)["name"].to_list() == ["A=64 S=8k"]
    page = (tmp_path / "c.html").read_text()
    assert "A=64 S=8k" in page and '<script src="http' not in page


def test_a_large_comparison_draws_arrows_for_the_most_changed_and_segments_for_the_rest(
        tmp_path, monkeypatch):
    """Kernel i of ARROWS + 3 runs at 1 TFLOP/s, then at (1 + i/100) TFLOP/s: speedup
    1 + i/100, so the ARROWS most changed are i = 3 … ARROWS + 2 (|ln speedup| grows with
    i). Each of those gets an arrow head; i = 0, 1, 2 a plain segment, one collection."""
    from matplotlib.collections import LineCollection

    from rooflow.plotting import compare as plot
    from rooflow.roofs import load_preset

    n = plot.ARROWS + 3
    rows = [{"kernel": f"k{i}", "arithmetic_intensity": 10.0} for i in range(n)]
    base = table([r | {"performance": 1e12} for r in rows])
    new = table([r | {"performance": (1 + i / 100) * 1e12} for i, r in enumerate(rows)])
    figures, real = [], plot.new_figure  # the figure drawn, to read its artists
    monkeypatch.setattr(plot, "new_figure", lambda dpi: figures.append(real(dpi)) or figures[-1])
    plot.plot_comparison(compare_tables(base, new), load_preset("h100-sxm"),
                         tmp_path / "c.png", title="many")
    ax = figures[0].axes[0]
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == plot.ARROWS
    # TFLOP/s on the axes: the lowest arrowed kernel is i = 3, at 1.03 TFLOP/s
    assert min(a.xy[1] for a in arrows) == pytest.approx(1.03)
    (segments,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert sorted(s[1][1] for s in segments.get_segments()) == pytest.approx([1.0, 1.01, 1.02])



def test_a_large_comparison_page_draws_the_most_changed_and_bins_the_rest(monkeypatch):
    """Kernel i of 6 at 1 TFLOP/s, then at (1 + i/100) TFLOP/s, and 3 kernels only in new;
    max_points 2. Drawn one by one: k5 and k4 (the largest |ln speedup|: 1.05, 1.04) and
    n0, n1 (the first 2 new-only rows). Binned: k0 … k3 at their new point and n2, 5
    points; the legend still counts all 6 matched kernels (every speedup ≥ 1)."""
    from bokeh.models import ColumnDataSource, Legend

    from rooflow.html import compare as page
    from rooflow.roofs import load_preset

    rows = [{"kernel": f"k{i}", "arithmetic_intensity": 10.0} for i in range(6)]
    only = [{"kernel": f"n{i}", "arithmetic_intensity": 20.0, "performance": 5e12}
            for i in range(3)]
    base = table([r | {"performance": 1e12} for r in rows])
    new = table([r | {"performance": (1 + i / 100) * 1e12} for i, r in enumerate(rows)]
                + only)
    written = []
    monkeypatch.setattr(page, "write_page",
                        lambda items, out, title: written.append(bokeh_models(items)))
    page.comparison_page(compare_tables(base, new), load_preset("h100-sxm"), "c.html",
                         title="many", max_points=2)
    fig = written[0][0]
    sources = [r.data_source.data for r in fig.renderers
               if isinstance(r.data_source, ColumnDataSource)]
    names = {n for data in sources if "name" in data for n in data["name"]}
    assert names == {"k5", "k4", "n0", "n1"}
    (cells,) = [data for data in sources if "count" in data]
    assert sum(cells["count"]) == 5
    (legend,) = [x for x in fig.right if isinstance(x, Legend)]
    assert [i.label.value for i in legend.items] == ["6 faster (speedup ≥ 1)", "only in new (3)"]
    notes = " ".join(getattr(x, "text", "") for x in written[0][1:])
    assert "the 2 matched kernels that changed most" in notes
    assert "5 more as grey density cells" in notes


def test_one_run_rows_without_a_place_are_counted_not_drawn():
    # The sglang decode and prefill traces: 22 rows only in the new run, 8 of them
    # bandwidth-only (no intensity): the legend counts 22 and says 14 are drawn.
    assert only_label("only in new", 22, 14) == "only in new (22, 14 drawn)"
    assert only_label("only in baseline", 4, 4) == "only in baseline (4)"
