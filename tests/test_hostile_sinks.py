"""Every sink gets its own escaping, the same wherever it is written (issue 32, items 3, 11).

A kernel name made at test time holds ESC sequences (a window title, a colour, a screen
clear), NUL, BEL, a newline, a bidi override, Markdown and HTML. Per sink:

- the terminal and logs (error lines, the stderr notes, a job's log): no control character
  reaches them raw (:func:`rooflow.escape.terminal_text`);
- summary.md: :func:`rooflow.escape.markdown_cell` (one line, controls written ``\\xNN``);
- CSV: the name round-trips exactly (CSV quoting), a formula start is neutralised;
- JSON: the name round-trips exactly (``json`` escapes controls itself).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from cli_run import run_full as run

from rooflow.errors import InputError, internal_error_line
from rooflow.escape import markdown_cell, terminal_lines, terminal_text

PEAKS = ["--peak-tflops", "100", "--peak-bandwidth", "1000"]
EVIL = ("evil\x1b]0;pwned\x07\x1b[31mred\x1b[2J\x00nul\nline\u202eevil|<b>*x*</b>")
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What must never reach a terminal or a log raw (newline and tab excepted: line ends)."""




@pytest.fixture
def hostile(tmp_path) -> Path:
    path = tmp_path / "h.csv"
    frame = pl.DataFrame({"name": [EVIL, "=HYPERLINK(\"http://x\")", "ok"],
                          "ai": [10.0, 10.0, 10.0], "tflops": [500.0, 5.0, 5.0]})
    frame.write_csv(path)  # quoted: the newline stays inside the cell
    return path


def test_terminal_text_escapes_every_control_and_keeps_the_rest():
    assert terminal_text("a\x1b[31mb\x00c\x07d\ne\tf\rg\x7fh\x9bi") == \
        r"a\x1b[31mb\x00c\x07d\ne\tf\rg\x7fh\x9bi"
    assert terminal_text("x\u202ey\u2028z") == r"x\u202ey\u2028z"
    assert terminal_text("Grüße 東京 ∞ µs") == "Grüße 東京 ∞ µs"  # printable: unchanged
    assert terminal_lines("a\x1b\nb\x07") == "a\\x1b\nb\\x07"  # line ends kept


def test_an_error_line_escapes_file_message_and_value():
    err = InputError(f"in/{EVIL}.csv", f"kernel {EVIL} is bad", row=2, column="name",
                     value=EVIL)
    line = str(err)
    assert not RAW.search(line) and "\n" not in line
    assert r"\x1b]0;pwned\x07" in line and r"\u202e" in line
    internal = internal_error_line(ValueError(EVIL), "/dev/null")
    assert not RAW.search(internal) and "\n" not in internal


def test_the_command_line_prints_no_control_character(capsys, hostile, tmp_path):
    code, _, err = run(capsys, "table", hostile, *PEAKS, "-o", tmp_path / "t.csv")
    assert code == 0, err
    assert not RAW.search(err), err  # the above-the-roof warning names the kernel
    assert r"nul\nline" in err  # its newline escaped: the note stays one line
    assert r"\x1b" in err or r"\x07" in err  # the name is there, escaped (not dropped)
    # The error line of a bad value in the same file: escaped too.
    bad = tmp_path / "bad.csv"
    bad.write_text(hostile.read_text().replace("500.0", "-1"))
    code, _, err = run(capsys, "table", bad, *PEAKS, "-o", tmp_path / "u.csv")
    assert code == 1 and len(err.splitlines()) == 1 and not RAW.search(err), err


def test_csv_and_json_round_trip_the_name(capsys, hostile, tmp_path):
    csv, js = tmp_path / "t.csv", tmp_path / "t.json"
    assert run(capsys, "table", hostile, *PEAKS, "-o", csv)[0] == 0
    assert run(capsys, "table", hostile, *PEAKS, "-o", js)[0] == 0
    names = pl.read_csv(csv)["kernel"].to_list()
    assert EVIL in names  # CSV quoting keeps every character
    assert "'=HYPERLINK(\"http://x\")" in names  # a formula start neutralised (OWASP)
    text = js.read_text()
    assert not re.search("[\x00-\x1f]", text.replace("\n", ""))  # json writes \u001b
    labels = [r["kernel"] for r in json.loads(text)["records"]]
    assert EVIL in labels


def test_summary_markdown_cells_hold_no_control_character():
    from rooflow.summary import summary_markdown

    cell = markdown_cell(EVIL)
    assert not RAW.search(cell) and "\n" not in cell
    # ESC written \x1b, its backslash escaped for Markdown: it renders as the text \x1b.
    assert r"\\x1b\]0;pwned\\x07" in cell
    assert r"\|&lt;b&gt;\*x\*&lt;/b&gt;" in cell
    text = summary_markdown({}, failed={"roofline-x": f"rooflow: error: {EVIL}"},
                            skipped=[f"skipped 'resources/roofline/{EVIL}.csv'"])
    assert not RAW.search(text)


@pytest.mark.parametrize("recorded", [False, True])
def test_a_jobs_log_holds_no_control_character(tmp_path, recorded):
    """A job that fails on the bad input, and one that records it (``failed=``, a model
    check's placeholders) and ends well."""
    from rooflow.workflow.rulescript import run as run_job

    log = tmp_path / "job.log"

    def step(say):
        say(f"read {EVIL}")
        raise InputError("x.csv", f"bad kernel {EVIL}")

    lines: list[str] = []
    if recorded:
        run_job(step, str(log), failed=lines.append)
        assert len(lines) == 1 and not RAW.search(lines[0])
    else:
        with pytest.raises(SystemExit):
            run_job(step, str(log))
    text = log.read_text()
    assert not RAW.search(text), text
    # The note, the error line (and, ending well, the peak RSS line).
    assert text.count("\n") == (3 if recorded else 2)
    assert r"nul\nline" in text  # the name's newline written as \n: one line per note
