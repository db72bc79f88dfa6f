"""One bad dataset is only its own problem (issue 20, items 1 and 4), without Snakemake: the
failed points file and its placeholders, the rule scripts' one line (traceback apart),
config files read as one line before any job."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from rooflow.points import POINT_SCHEMA, read_points
from rooflow.workflow.failed import (
    failure,
    is_whole_parquet,
    left_out,
    left_out_metadata,
    write_failed,
    write_placeholders,
)

LINE = ("rooflow: error: resources/roofline/bad.csv, row 1, column 'tflops': value fails "
        "validation [check: greater_than(0)] (value: '-5.0') <script>alert(1)</script> $x$")


def test_failed_points_file_holds_the_line_and_no_points(tmp_path):
    path = tmp_path / "bad.parquet"
    write_failed(path, LINE)
    assert failure(path) == LINE
    points = read_points(path)  # a reader that does not ask sees an empty table
    assert points.is_empty() and points.schema == pl.Schema(POINT_SCHEMA)
    good = tmp_path / "good.parquet"
    pl.DataFrame({"a": [1]}).write_parquet(good)
    assert failure(good) is None
    assert is_whole_parquet(path) and is_whole_parquet(good)


def test_what_a_reader_left_out_travels_with_the_points_to_the_draw_job(tmp_path, monkeypatch):
    """The points job keeps the reader's left-out notes in the Parquet's metadata; the draw
    job gives them to every plot of the dataset (its notes box), as `rooflow plot` does."""
    from rooflow.points import empty_points
    from rooflow.workflow import draw

    notes = ("3 kernel(s) left out, no FLOP: k1, k2, k3", "row 7 left out: time 0 <b>")
    path = tmp_path / "points.parquet"
    empty_points().write_parquet(path, metadata=left_out_metadata(notes))
    assert left_out(path) == notes
    plain = tmp_path / "plain.parquet"
    empty_points().write_parquet(plain, metadata=left_out_metadata(()) or None)
    assert left_out(plain) == ()

    seen = []
    monkeypatch.setattr("rooflow.pipeline.report",  # the points as the table it returns
                        lambda points, preset, *, options, **kw: seen.append(options.left_out)
                        or points)
    monkeypatch.setattr("rooflow.html.page.roofline_page", lambda *a, **kw: None)
    monkeypatch.setattr("rooflow.selection.select_points", lambda points, *a: points)
    target = draw.Target("h100-sxm", "config/hardware.yaml", None, str(tmp_path / "t.csv"),
                         str(tmp_path / "p.png"), str(tmp_path / "p.html"),
                         str(tmp_path / "o.parquet"))
    options = {"formats": ["png"], "top_n": 40, "series_order": [], "select": None}
    draw.draw_dataset(str(path), "roofline-x", [target], options, lambda line: None)
    assert seen == [notes]


def test_a_cut_or_overwritten_parquet_is_not_whole(tmp_path):
    path = tmp_path / "p.parquet"
    pl.DataFrame({"a": list(range(1000))}).write_parquet(path)
    data = path.read_bytes()
    for cut in (0, 4, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:cut])
        assert not is_whole_parquet(path), cut
    path.write_bytes(b"\0" * len(data))
    assert not is_whole_parquet(path)
    path.write_bytes(b"PAR1" + b"\xff" * 100 + b"PAR1")  # footer longer than the file
    assert not is_whole_parquet(path)
    assert not is_whole_parquet(tmp_path / "missing.parquet")


def test_placeholders_say_what_failed_in_each_format(tmp_path):
    paths = [tmp_path / n for n in ("t.csv", "p.png", "p.svg", "p.pdf", "page.html")]
    write_placeholders(paths, "roofline-bad", LINE)
    table = pl.read_csv(paths[0])
    assert table.columns == ["dataset", "error"]
    assert table.row(0) == ("roofline-bad", LINE)
    assert paths[1].read_bytes().startswith(b"\x89PNG")
    assert "roofline-bad: not built" in paths[2].read_text()  # drawn as text, $x$ too
    assert paths[3].read_bytes().startswith(b"%PDF")
    page = paths[4].read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_parquet_placeholder_holds_the_line_as_written(tmp_path):
    """all.parquet of a preset with no dataset read: rule summary reads it as it is, the
    line unguarded (a CSV cell would start with ' before the =)."""
    path = tmp_path / "all.parquet"
    write_placeholders([path], "h100-sxm: all datasets", "=1+1 " + LINE)
    table = pl.read_parquet(path)
    assert table.rows() == [("h100-sxm: all datasets", "=1+1 " + LINE)]
    assert "kernel" not in table.columns  # what rule summary takes for "none built"


def _script(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    code = ("from rooflow.workflow.rulescript import run\n"
            "from rooflow.errors import InputError\n" + body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)


def test_rule_script_sends_stderr_to_the_log_while_its_step_runs(tmp_path):
    # The step's stderr (a library's warning) goes to the log; after the step, the
    # process' stderr is its own again, not the closed log file.
    proc = _script(tmp_path, "import sys\ndef step(log):\n    print('warned', file=sys.stderr)\n"
                             "run(step, 'job.log')\nprint('after', file=sys.stderr)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "after\n"
    assert (tmp_path / "job.log").read_text().splitlines()[0] == "warned"


def test_rule_script_internal_error_is_one_line_its_traceback_apart(tmp_path):
    proc = _script(tmp_path, "def step(log):\n    log('working')\n    1 / 0\n"
                             "run(step, 'job.log')")
    assert proc.returncode == 2
    assert proc.stderr == ""  # the profiles' show-failed-logs shows the log: nothing else
    log = (tmp_path / "job.log").read_text()
    assert log.splitlines() == [
        "working", "rooflow: internal error: ZeroDivisionError: division by zero (details "
        "in job.log.traceback)"]
    assert "Traceback" in (tmp_path / "job.log.traceback").read_text()


def test_rule_script_input_error_is_one_line_and_an_old_traceback_goes(tmp_path):
    (tmp_path / "job.log.traceback").write_text("Traceback of an earlier run")
    proc = _script(tmp_path, "def step(log):\n    raise InputError('x.csv', 'bad', row=2)\n"
                             "run(step, 'job.log')")
    assert proc.returncode == 1 and proc.stderr == ""
    assert (tmp_path / "job.log").read_text() == "rooflow: error: x.csv, row 2: bad\n"
    assert not (tmp_path / "job.log.traceback").exists()


def test_rule_script_with_failed_records_the_line_and_succeeds(tmp_path):
    proc = _script(tmp_path, "got = []\n"
                             "def step(log):\n    raise InputError('x.csv', 'bad')\n"
                             "run(step, 'job.log', failed=got.append)\n"
                             "print(got)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['rooflow: error: x.csv: bad']"
    # and if recording it fails too: one internal-error line, exit 2
    proc = _script(tmp_path, "def step(log):\n    raise InputError('x.csv', 'bad')\n"
                             "def full(line):\n    raise OSError(28, 'No space left')\n"
                             "run(step, 'job.log', failed=full)")
    assert proc.returncode == 2 and proc.stderr == ""
    assert (tmp_path / "job.log").read_text().splitlines()[-1].startswith(
        "rooflow: internal error: OSError: [Errno 28] No space left")


# Config files: one line before any job ----------------------------------------------------


@pytest.mark.parametrize("content", [
    b"\xff\xfe\x00binary\x00",  # not UTF-8
    b"presets: [" * 1 + b"[" * 5000 + b"]" * 5001,  # nested past the parser's recursion
    b"presets: [a\n",  # malformed
])
def test_a_config_or_hardware_file_that_cannot_be_read_is_one_line(tmp_path, content):
    from rooflow.models.families import load_families
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.workflow.preflight import config_file_error, load_checked

    path = tmp_path / "x.yaml"
    path.write_bytes(content)
    line = config_file_error(str(path))
    assert line.startswith(f"rooflow: error: {path}: cannot be read (") and "\n" not in line
    for load in (load_hardware, load_families):
        with pytest.raises(ValueError) as err:
            load_checked(load, str(path))
        message = str(err.value)
        assert message.startswith("rooflow: error: ") and "\n" not in message
        assert str(path) in message


def test_config_schema_violation_is_one_line():
    from rooflow.workflow.preflight import config_error

    assert config_error({"presets": ["h100-sxm"]}) is None
    assert config_error({"presets": 5}) == (
        "rooflow: error: config, key 'presets': 5 is not of type 'array' [check: config "
        "schema]")
