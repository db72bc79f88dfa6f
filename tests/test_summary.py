"""summary_markdown on hand-built analysis tables: tables, ranking, number formatting."""

from __future__ import annotations

import re

import polars as pl

from rooflow.summary import summary_markdown

TIMED_HEADER = ("| # | dataset | kernel | series | bound | achieved | attainable | % of roof "
                "| headroom | time (ms) | potential saved (ms) |")
UNTIMED_HEADER = ("| # | dataset | kernel | series | bound | achieved | attainable | % of roof "
                  "| headroom |")


def _row(kernel: str, **over) -> dict:
    """One analysis-table row (the columns summary_markdown reads), a binding measured row.

    Empty ``pair``/``label`` are None, as ``pl.read_csv`` gives them back from ``all.csv``.
    """
    row = {
        "dataset": "ncu-a", "source": "a.csv", "row": 1, "kernel": kernel, "series": "Measured",
        "pair": None, "label": None, "level": "DRAM", "precision": "fp32",
        "compute_roof_name": "fp32", "unit": "FLOP", "bandwidth_only": False,
        "theoretical": False, "binding": True, "above_roof": False, "kernel_bound": "DRAM",
        "performance": None, "attainable": None, "achieved_bandwidth": None,
        "memory_roof": None, "pct_of_roof": None, "pct_of_memory_roof": None,
        "kernel_headroom": None, "time_s": None, "potential_time_saved_s": None,
        "pair_speedup": None,
    }
    return {**row, **over}


def _table(*rows: dict) -> pl.DataFrame:
    return pl.DataFrame(list(rows), infer_schema_length=None)


def _lines_after(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    i = lines.index(header)
    out = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        out.append(line)
    return out


# saved = time × (1 − 1/headroom):
#   mem_copy  2 ms × (1 − 1/4)    = 1.5 ms   (bandwidth-only: 500 GB/s of a 2 TB/s roof, 25 %)
#   gemm_b    4 ms × (1 − 1/1.25) = 0.8 ms   (0.8 of 1 TFLOP/s, 80 %)
#   gemm_a    1 ms × (1 − 1/2)    = 0.5 ms   (50 of 100 TFLOP/s, 50 %)
# so the ranking by time saved is mem_copy, gemm_b, gemm_a although gemm_a has more
# headroom than gemm_b.
GEMM_A = _row("gemm_a", performance=5e13, attainable=1e14, pct_of_roof=50.0,
              kernel_headroom=2.0, time_s=1e-3, potential_time_saved_s=5e-4, row=1)
GEMM_B = _row("gemm_b", label="GEMM 64×64", performance=8e11, attainable=1e12,
              pct_of_roof=80.0, kernel_headroom=1.25, time_s=4e-3,
              potential_time_saved_s=8e-4, row=2, kernel_bound="compute")
COPY = _row("mem_copy", bandwidth_only=True, performance=0.0, achieved_bandwidth=5e11,
            memory_roof=2e12, pct_of_memory_roof=25.0, kernel_headroom=4.0, time_s=2e-3,
            potential_time_saved_s=1.5e-3, row=3)
# The same kernel at a non-binding level, and a theoretical point: never ranked.
GEMM_A_L2 = {**GEMM_A, "level": "L2", "binding": False, "pct_of_roof": 10.0}
THEORY = _row("spec_pt", dataset="specs-s", theoretical=True, performance=1e14,
              attainable=1e14, pct_of_roof=100.0, kernel_headroom=1.0)


def test_timed_kernels_ranked_by_potential_time_saved():
    text = summary_markdown({"h100-sxm": _table(GEMM_A, GEMM_A_L2, GEMM_B, COPY, THEORY)})
    assert "## h100-sxm" in text
    assert _lines_after(text, TIMED_HEADER) == [
        "| 1 | ncu-a | mem_copy | Measured | DRAM | 500 GB/s | 2 TB/s | 25.0 | 4.00× "
        "| 2 | 1.5 |",
        "| 2 | ncu-a | GEMM 64×64 | Measured | compute | 800 GFLOP/s | 1 TFLOP/s | 80.0 "
        "| 1.25× | 4 | 0.8 |",
        "| 3 | ncu-a | gemm_a | Measured | DRAM | 50 TFLOP/s | 100 TFLOP/s | 50.0 | 2.00× "
        "| 1 | 0.5 |",
    ]
    # 2 datasets (ncu-a, specs-s); the L2 row and the theoretical point are not kernels.
    assert ("2 datasets, 3 measured kernels ranked (3 with times); not ranked: 0 superseded "
            "within their pair, 0 without a compute roof of their precision; 0 points above "
            "the roof." in text)
    assert "Without measured time" not in text
    assert "## Points above the roof" not in text


def test_number_formatting_three_significant_digits_and_op_units():
    # 123 456 GFLOP/s → "123 TFLOP/s"; 999.9 GB/s stays giga ("1e+03" at 3 digits);
    # 1e15 → "1 POP/s"; an integer kernel is in OP/s; 12.345 % → "12.3"; headroom 8.1004 →
    # "8.10×"; one time unit for the table, the largest the biggest time (123.456 µs) is
    # ≥ 1 in: µs. time 123.456 µs → "123.5" (4 significant), saved 123.456 × (1 − 1/8.1004)
    # = 108.215 µs → "108.2"; copy 1 µs, saved 1 × (1 − 1/3.35) = 0.7015 µs.
    row = _row("igemm", unit="OP", performance=1.23456e14, attainable=1.0e15,
               pct_of_roof=12.345, kernel_headroom=8.1004, time_s=1.23456e-4,
               potential_time_saved_s=1.23456e-4 * (1 - 1 / 8.1004))
    copy = _row("copy", bandwidth_only=True, achieved_bandwidth=9.999e11, memory_roof=3.35e12,
                pct_of_memory_roof=29.85, kernel_headroom=3.35, time_s=1e-6,
                potential_time_saved_s=1e-6 * (1 - 1 / 3.35), row=2)
    header = TIMED_HEADER.replace("(ms)", "(µs)")
    lines = _lines_after(summary_markdown({"p": _table(row, copy)}), header)
    assert lines[0] == ("| 1 | ncu-a | igemm | Measured | DRAM | 123 TOP/s | 1 POP/s "
                        "| 12.3 | 8.10× | 123.5 | 108.2 |")
    assert lines[1] == ("| 2 | ncu-a | copy | Measured | DRAM | 1e+03 GB/s | 3.35 TB/s | 29.9 "
                        "| 3.35× | 1 | 0.7015 |")


def test_untimed_kernels_ranked_by_headroom_and_missing_values_are_dashes():
    low = _row("low", kernel_headroom=1.5, performance=2e12, attainable=3e12,
               pct_of_roof=66.67, row=1)
    high = _row("high", kernel_headroom=3.0, performance=1e12, attainable=3e12,
                pct_of_roof=33.33, row=2)
    bare = _row("bare", row=3)  # no roof: no attainable, no % and no headroom
    text = summary_markdown({"p": _table(low, high, bare)})
    assert TIMED_HEADER not in text
    assert "Without measured time (ranked by headroom):" in text
    rows = _lines_after(text, UNTIMED_HEADER)
    assert [r.split(" | ")[2] for r in rows] == ["high", "low", "bare"]
    assert rows[0] == ("| 1 | ncu-a | high | Measured | DRAM | 1 TFLOP/s | 3 TFLOP/s | 33.3 "
                       "| 3.00× |")
    assert rows[2] == "| 3 | ncu-a | bare | Measured | DRAM | – | – | – | –× |"


def test_points_above_the_roof_are_findings_and_not_ranked():
    above = _row("fast", above_roof=True, performance=1.25e14, attainable=1e14,
                 pct_of_roof=125.0, kernel_headroom=0.8, time_s=1e-3, row=5)
    # The same kernel at another level is not above its roof there; still never ranked.
    above_l2 = {**above, "level": "L2", "above_roof": False, "binding": False}
    text = summary_markdown({"h100-sxm": _table(GEMM_A, above, above_l2)})
    assert _lines_after(text, "| preset | dataset | kernel | series | level | % of roof |") == [
        "| h100-sxm | ncu-a | fast | Measured | DRAM | 125 |"]
    assert text.index("## Points above the roof") < text.index("## h100-sxm")
    ranked = _lines_after(text, TIMED_HEADER)
    assert len(ranked) == 1 and "| gemm_a |" in ranked[0]
    assert "1 measured kernel ranked (1 with times); not ranked: 0 superseded" in text
    assert "0 without a compute roof of their precision; 1 point above the roof." in text


def test_top_limits_rows_per_ranking_and_presets_keep_their_order():
    tables = {"mi300x": _table(GEMM_A, GEMM_B, COPY), "a100-sxm": _table(GEMM_A)}
    text = summary_markdown(tables, top=2)
    assert text.index("## mi300x") < text.index("## a100-sxm")
    first = text[text.index("## mi300x"):text.index("## a100-sxm")]
    ranked = _lines_after(first, TIMED_HEADER)
    assert [r.split(" | ")[2] for r in ranked] == ["mem_copy", "GEMM 64×64"]
    assert text.startswith("# rooflow summary\n") and text.endswith("\n")


SUPERSEDED_HEADER = "| dataset | kernel | series | pair | achieved | pair speedup |"
NO_ROOF_HEADER = "| dataset | kernel | series | precision | achieved | time (ms) |"


def test_a_pair_ranks_only_its_optimized_kernel_and_lists_the_others_as_superseded():
    # A benchmark pair shares one row, Original first. Original: 25 TFLOP/s of 100, 3.2 ms →
    # saved 3.2 × (1 − 1/4) = 2.4 ms, most of all, but its code is replaced: never ranked.
    # Optimized: 50 TFLOP/s, 1.6 ms → 1.6 × (1 − 1/2) = 0.8 ms. Speedup 50 / 25 = 2.
    pair = {"dataset": "benchmarks-b", "source": "b.csv", "row": 7, "pair": "fa:gpu",
            "label": "fa 2k", "pair_speedup": 2.0, "attainable": 1e14}
    original = _row("fa", series="Original", performance=2.5e13, pct_of_roof=25.0,
                    kernel_headroom=4.0, time_s=3.2e-3, potential_time_saved_s=2.4e-3, **pair)
    optimized = _row("fa", series="Optimized", performance=5e13, pct_of_roof=50.0,
                     kernel_headroom=2.0, time_s=1.6e-3, potential_time_saved_s=8e-4, **pair)
    # A pair without an Optimized row ranks its last by row: v2 (row 3) supersedes v1 (row 2).
    # v1: 1 ms × (1 − 1/3) = 0.667 ms; v2: 0.5 ms × (1 − 1/1.5) = 0.1667 ms.
    v1 = _row("tri", series="v1", pair="tri", row=2, performance=1e12, attainable=3e12,
              pct_of_roof=33.3, kernel_headroom=3.0, time_s=1e-3,
              potential_time_saved_s=1e-3 * (1 - 1 / 3), pair_speedup=2.0)
    v2 = _row("tri", series="v2", pair="tri", row=3, performance=2e12, attainable=3e12,
              pct_of_roof=66.7, kernel_headroom=1.5, time_s=5e-4,
              potential_time_saved_s=5e-4 * (1 - 1 / 1.5), pair_speedup=2.0)
    # The same pair id in another dataset is another pair: its one kernel is its latest.
    alone = _row("fa", dataset="benchmarks-c", source="c.csv", series="Original", pair="fa:gpu",
                 row=7, performance=8e13, attainable=1e14, pct_of_roof=80.0,
                 kernel_headroom=1.25, time_s=1e-3, potential_time_saved_s=2e-4)
    text = summary_markdown({"arc-pro-b70": _table(original, optimized, GEMM_A, v1, v2, alone)})
    ranked = _lines_after(text, TIMED_HEADER)
    assert [r.split(" | ")[1:4] for r in ranked] == [
        ["benchmarks-b", "fa 2k", "Optimized"],  # 0.8 ms
        ["ncu-a", "gemm_a", "Measured"],  # 0.5 ms
        ["benchmarks-c", "fa", "Original"],  # 0.2 ms
        ["ncu-a", "tri", "v2"],  # 0.1667 ms
    ]
    assert _lines_after(text, SUPERSEDED_HEADER) == [
        "| benchmarks-b | fa 2k | Original | fa:gpu | 25 TFLOP/s | 2.00× |",
        "| ncu-a | tri | v1 | tri | 1 TFLOP/s | 2.00× |",
    ]
    assert ("4 measured kernels ranked (4 with times); not ranked: 2 superseded within their "
            "pair, 0 without a compute roof of their precision; 0 points above the roof."
            in text)


def test_kernels_without_a_compute_roof_are_listed_apart_and_counted_apart(tmp_path):
    # Through analyze and all.csv, as the workflow does, on an fp64-only preset (fp64
    # 10 TFLOP/s, HBM 1000 GB/s): like v100-nersc, where fp32 kernels were "DRAM-bound".
    from rooflow.analysis import analyze
    from rooflow.points import to_points
    from rooflow.roofs.preset import preset_from_mapping

    preset = preset_from_mapping("fp64-only", {
        "name": "fp64 only", "source": "test", "compute": {"fp64": 10}, "memory": {"HBM": 1000},
        "default_compute": "fp64", "default_memory": "HBM"}, source="test")
    points = to_points(pl.DataFrame({
        "kernel": ["dgemm", "sgemm", "saxpy", "fast"],
        "precision": ["fp64", "fp32", "fp32", "fp64"],
        # dgemm: min(10, 20 × 1) = 10 TFLOP/s; 5 → headroom 2, saved 1 ms × ½ = 0.5 ms.
        # sgemm 20 TFLOP/s, saxpy: no fp32 roof, not judged (sgemm above the fp64 peak is
        # no finding). fast: AI 1 → roof 1 TFLOP/s, 2 achieved: above the roof, a finding.
        "arithmetic_intensity": [20.0, 50.0, 0.1, 1.0],
        "performance": [5e12, 20e12, 5e10, 2e12], "time_s": [1e-3, 2e-3, 1e-4, 1e-3],
        "row": [1, 2, 3, 4]}))
    path = tmp_path / "all.csv"
    analyze(points, preset).insert_column(0, pl.lit("ncu-a").alias("dataset")).write_csv(path)
    text = summary_markdown({"fp64-only": pl.read_csv(path)})
    ranked = _lines_after(text, TIMED_HEADER)
    assert ranked == ["| 1 | ncu-a | dgemm | kernel | compute | 5 TFLOP/s | 10 TFLOP/s | 50.0 "
                      "| 2.00× | 1 | 0.5 |"]
    assert "- no fp32 roof on fp64-only: 2 kernels" in text
    assert _lines_after(text, NO_ROOF_HEADER) == [
        "| ncu-a | sgemm | kernel | fp32 | 20 TFLOP/s | 2 |",
        "| ncu-a | saxpy | kernel | fp32 | 50 GFLOP/s | 0.1 |",
    ]
    assert ("1 measured kernel ranked (1 with times); not ranked: 0 superseded within their "
            "pair, 2 without a compute roof of their precision; 1 point above the roof."
            in text)
    findings = _lines_after(text, "| preset | dataset | kernel | series | level | % of roof |")
    assert findings == ["| fp64-only | ncu-a | fast | kernel | DRAM | 200 |"]


def test_a_kernel_without_precision_is_listed_apart_last_as_precision_not_given(tmp_path):
    from rooflow.analysis import analyze
    from rooflow.points import to_points
    from rooflow.roofs import load_preset

    # "mystery" gives no precision: no roof is assumed for it (the default fp16-tensor
    # 989.4 TFLOP/s would have called it 0.5 % of roof). It is not ranked, and is listed
    # after the kernels whose precision the preset has no roof for (int4-tensor).
    points = to_points(pl.DataFrame({
        "kernel": ["mystery", "sgemm", "i4"], "precision": ["", "fp32", "int4-tensor"],
        "arithmetic_intensity": [20.0, 20.0, 20.0], "performance": [5e12, 5e12, 5e12],
        "time_s": [1e-3, 1e-3, 1e-3], "row": [1, 2, 3]}))
    path = tmp_path / "all.csv"
    table = analyze(points, load_preset("h100-sxm"))
    assert table["roof_note"].to_list() == ["precision not given", "",
                                            "no int4-tensor roof on h100-sxm"]
    table.insert_column(0, pl.lit("ncu-a").alias("dataset")).write_csv(path)
    text = summary_markdown({"h100-sxm": pl.read_csv(path)})
    # sgemm: min(67, 20 × 3.35) = 67 TFLOP/s; 5 / 67 = 7.46 %, headroom 13.4.
    assert [line.split(" | ")[2] for line in _lines_after(text, TIMED_HEADER)] == ["sgemm"]
    assert ("- no int4-tensor roof on h100-sxm: 1 kernel\n- precision not given: 1 kernel"
            in text)
    assert [line.split(" | ")[1:4] for line in _lines_after(text, NO_ROOF_HEADER)] == [
        ["i4", "kernel", "int4-tensor"], ["mystery", "kernel", "not given"]]


def test_legend_entry_of_points_without_precision_says_so():
    from rooflow.plotting.core import no_roof_label

    rows = pl.DataFrame({"precision": ["", "fp32", ""]})
    assert no_roof_label(rows) == "no fp32 roof, precision not given: 3 points, not judged"
    assert no_roof_label(rows.head(1), "\n") == "precision not given:\n1 point, not judged"


def test_times_in_one_unit_names_as_written_and_counts_agree():
    # Issue 34, item 9. saved = time × (1 − 1/headroom), headroom 2: 20 ms → 10 ms,
    # 6 ms → 3 ms, 1 ms → 0.5 ms; ranked 10, 3, 0.5, all in ms (the biggest, 20 ms, is
    # ≥ 1 ms and < 1 s).
    rows = [_row(k, performance=1e12, attainable=2e12, pct_of_roof=50.0, kernel_headroom=2.0,
                 time_s=t, potential_time_saved_s=t / 2, row=i)
            for i, (k, t) in enumerate([("gemm<float>", 6e-3), ("a|b & c", 20e-3),
                                        ("copy", 1e-3)], 1)]
    one = summary_markdown({"p": _table(*rows)})
    assert [line.split(" | ")[-2:] for line in _lines_after(one, TIMED_HEADER)] == [
        ["20", "10 |"], ["6", "3 |"], ["1", "0.5 |"]]
    # A name with <, > or & is a code span, shown as written: no entity anywhere outside
    # code (a "|" still escaped: GFM splits the cells first).
    assert "| `a\\|b & c` |" in one and "| `gemm<float>` |" in one
    outside = re.sub(r"`[^`]*`", "", one)
    assert not re.search(r"&(gt|lt|amp);", outside) and "<" not in outside
    assert "1 dataset, 3 measured kernels ranked" in one and "0 points above" in one
    two = summary_markdown({"p": _table(*rows, {**rows[2], "dataset": "ncu-b"})})
    assert "2 datasets, 4 measured kernels ranked" in two


def test_scanned_tables_give_the_same_summary_one_preset_at_a_time(tmp_path):
    """The workflow's rule summary scans each preset's all.parquet (a LazyFrame) so that
    one preset's table is in memory at a time: the text is the one of the tables read
    whole, on two presets, the above-roof findings (read before the presets) included."""
    above = _row("hot", dataset="ncu-a", performance=3e15, attainable=1e15, pct_of_roof=300.0,
                 above_roof=True, row=4)
    tables = {"h100-sxm": _table(GEMM_A, GEMM_A_L2, GEMM_B, COPY, THEORY),
              "mi300x": _table(GEMM_B, above)}
    for key, table in tables.items():
        table.write_parquet(tmp_path / f"{key}.parquet")
    scanned = {key: pl.scan_parquet(tmp_path / f"{key}.parquet") for key in tables}
    text = summary_markdown(tables)
    assert "## Points above the roof" in text and "## mi300x" in text
    assert summary_markdown(scanned) == text


def test_points_above_the_roof_are_listed_up_to_top_then_counted():
    """Three points above the roof, top 2: the first two listed, then "… and 1 more on p"
    (a preset whose roofs sit below a 10⁷-row dataset listed all 10⁷ before)."""
    rows = [_row(f"hot{i}", dataset="ncu-a", performance=3e15, attainable=1e15,
                 pct_of_roof=300.0, above_roof=True, row=i) for i in range(1, 4)]
    text = summary_markdown({"p": _table(*rows)}, top=2)
    found = [line for line in text.splitlines() if line.startswith("| p | ncu-a | hot")]
    assert found == ["| p | ncu-a | hot1 | Measured | DRAM | 300 |",
                     "| p | ncu-a | hot2 | Measured | DRAM | 300 |"]
    assert "… and 1 more on p" in text.splitlines()
