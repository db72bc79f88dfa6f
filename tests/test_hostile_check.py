"""Hostile kernel names in every sink of `rooflow check` (issue 32, items 3 and 11).

A kernel name comes from a profile rooflow does not control. The reproducers are made
here: a name that closes a Markdown code span and starts a heading and an HTML tag, names
with the terminal's control characters (ESC sequences, NUL, BEL, newlines), and names XML
1.0 cannot hold. Each must reach the Markdown page, the JUnit report, the result lines and
the summary on stderr as inert text.
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest

from rooflow.analysis import analyze
from rooflow.check import check_runs, junit, markdown
from rooflow.points import to_points
from rooflow.roofs.preset import select_preset

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
PEAKS = ("--peak-tflops", "100", "--peak-bandwidth", "1000")
PRESET = select_preset({}, None, peak_tflops=100, peak_bandwidth_gbs=1000)

BREAKOUT = "gemm`\n# Injected heading\n<img src=x onerror=alert(1)> `x"
TERMINAL = "k\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x00nul\rcr\u202eevil"
XML_BAD = "k\x00\x01\x08\x0b\x0c\x1f\ufffe\uffff"
CONTROLS = ("\x1b", "\x00", "\x07", "\r", "\u202e")


def _run(names: list[str], factor: float = 1.0) -> pl.DataFrame:
    """Canonical points: three 1 ms calls (× factor) of each kernel name."""
    rows = [(n, t * factor) for n in names for t in (1.0, 1.0, 1.0)]
    frame = pl.DataFrame(rows, schema=["kernel", "ms"], orient="row")
    return to_points(frame.with_columns(
        flop=pl.lit(1e9), bytes=pl.lit(1e6), time_s=pl.col("ms") / 1e3,
        row=pl.int_range(1, pl.len() + 1, dtype=pl.Int64), arithmetic_intensity=pl.lit(1e3),
        performance=1e9 / (pl.col("ms") / 1e3), source=pl.lit("run.csv")))


def _result(names: list[str]):
    return check_runs(analyze(_run(names), PRESET), analyze(_run(names, 1.5), PRESET))


def test_markdown_escapes_a_name_that_breaks_out_of_its_cell():
    page = markdown(_result([BREAKOUT]), "rooflow check: a -> b")
    lines = page.splitlines()
    # One heading (the title), one table row per kernel: the newlines did not end the row.
    assert [line for line in lines if line.startswith("#")] == ["## rooflow check: a -&gt; b"]
    (row,) = [line for line in lines if "regressed" in line and line.startswith("|")]
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in row
    assert "\\`" in row and "`" not in row.replace("\\`", "")  # no code span opens
    assert row.count(" | ") == 11  # 12 cells: the name holds no cell break


@pytest.mark.parametrize("name", [TERMINAL, XML_BAD, BREAKOUT])
def test_junit_is_well_formed_for_any_name(name):
    root = ET.fromstring(junit(_result([name, "plain"]), "rooflow.check"))
    names = [c.get("name") for c in root.iter("testcase")]
    assert len(names) == 2 and "plain" in names
    hostile = next(n for n in names if n != "plain")
    assert not any(c in hostile for c in "\x00\x01\x07\x1b\ufffe")
    failure = root.find(".//failure")
    assert failure is not None and "\x1b" not in (failure.get("message") or "")


def test_result_lines_are_terminal_safe():
    lines = _result([TERMINAL, BREAKOUT]).lines()
    assert len(lines) == 2
    for line in lines:
        assert not any(c in line for c in (*CONTROLS, "\n"))
    assert any(line.startswith("REGRESSED k\\x1b]0;pwned\\x07\\x1b[2J") for line in lines)
    assert any("gemm`\\n# Injected heading\\n<img" in line for line in lines)


def test_cli_stdout_stderr_and_reports_stay_inert(tmp_path):
    # A CSV can carry ESC, BEL, CR and newlines in a quoted name (NUL is the library
    # tests' case: CSV readers stop at it).
    name = "k\x1b[2J\x1b[31mred\x07\r\nforged line"
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    _run([name]).write_csv(base)
    _run([name], 1.5).write_csv(new)
    xml, md = tmp_path / "gate.xml", tmp_path / "gate.md"
    proc = subprocess.run([ROOFLOW, "check", str(base), str(new), *PEAKS, "--junit",
                           str(xml), "--markdown", str(md)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    for text in (proc.stdout, proc.stderr):
        assert not any(c in text for c in CONTROLS)
    (line,) = proc.stdout.splitlines()
    assert line.startswith("REGRESSED k\\x1b[2J\\x1b[31mred\\x07\\r\\nforged line: time")
    assert proc.stderr.splitlines()[-1].startswith("1 of 1 kernels regressed")
    ET.parse(xml)
    assert "\x1b" not in md.read_text() and "\x1b" not in xml.read_text()


def test_an_error_line_quoting_a_name_is_terminal_safe(tmp_path):
    # The error line quotes the file it cannot read; its name carries ESC and BEL (exit 2).
    base = tmp_path / "base.csv"
    _run(["gemm"]).write_csv(base)
    missing = tmp_path / "new\x1b[2J\x07.csv"
    proc = subprocess.run([ROOFLOW, "check", str(base), str(missing), *PEAKS],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("rooflow: error: ") and proc.stderr.count("\n") == 1
    assert not any(c in proc.stderr for c in CONTROLS)
    assert "new\\x1b[2J\\x07.csv" in proc.stderr
