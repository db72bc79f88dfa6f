"""Attacks on the command line (issue 20): every broken or hostile input is one line, exit 1.

Each case builds its inputs in ``in/``, runs ``rooflow`` in this process (``rooflow.cli.main``,
as the console script does, without a subprocess per case) with its outputs in ``out/``,
and asserts: exit code 1, exactly one stderr line and it starts ``rooflow: error:``, no file
left in ``out/`` (no partial output, no temporary file), every input unchanged. Classes:
math text in names (drawn as written: a plot, exit 0), plottable ranges, formula literals,
nesting depth and alias expansion of every YAML/JSON read, NaN/inf in schemas, FIFOs,
devices, dangling links, unreadable and oversized files, CSVs of only commas, Parquet
column types, the canonical points check, header-only inputs, cells named as written,
outputs equal to inputs, all-or-none outputs and stale temporary files.
"""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from cli_run import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "resources" / "specs"
PEAKS = ["--peak-tflops", "100", "--peak-bandwidth", "1000"]
PNG = b"\x89PNG\r\n\x1a\n"
ALIAS_BOMB = "".join(
    f"  {k}: &{k} [{', '.join([f'*{p}'] * 10 if p else ['1'] * 10)}]\n"
    for p, k in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True))




def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry of ``folder`` (links not followed): its kind, mode and content hash."""
    out = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        digest = (hashlib.sha256(path.read_bytes()).hexdigest()
                  if stat.S_ISREG(info.st_mode) and info.st_size < 2**20 else info.st_size)
        out[str(path.relative_to(folder))] = (stat.S_IFMT(info.st_mode), info.st_mode, digest)
    return out


@pytest.fixture
def dirs(tmp_path) -> tuple[Path, Path]:
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    out.mkdir()
    return inp, out


def assert_refused(capsys, inp: Path, out: Path, args: list, fragment: str = "") -> str:
    """Run ``args``: exit 1, one ``rooflow: error:`` line, ``out/`` empty, ``in/`` unchanged."""
    before = snapshot(inp)
    code, lines = run(capsys, *args)
    assert code == 1, lines
    assert len(lines) == 1 and lines[0].startswith("rooflow: error:"), lines
    assert "Traceback" not in lines[0]
    assert sorted(p.name for p in out.iterdir()) == [], "output left behind"
    assert snapshot(inp) == before, "an input was changed"
    assert fragment in lines[0], lines[0]
    return lines[0]


# --- the cases: (inputs in `inp`, outputs to `out`) → argv, and a fragment of the line ------

Case = Callable[[Path, Path], list]


def _w(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _spec(inp: Path, flop: str, dims: str = "{M: 100000, K: 4}") -> Path:
    return _w(inp / "9_Attack.yaml", "inputs:\n  A: {shape: [M, K], dtype: float32}\n"
              f"bench-gpu:\n  - params: [A]\n    dims: {dims}\n    flop: \"{flop}\"\n")


def _plot(src: Path, out: Path, *extra: object) -> list:
    return ["plot", src, *PEAKS, "-o", out / "p.png", "--table", out / "t.csv",
            "--html", out / "p.html", *extra]


def _hardware(inp: Path, text: str) -> Path:
    return _w(inp / "hardware.yaml", text)


def _preset(memory: str = "{HBM: 3350}", compute: str = "{fp64: 67}") -> str:
    return ("presets:\n  x:\n    name: X\n    source: s\n    compute: " + compute
            + "\n    memory: " + memory + "\n    default_compute: fp64\n"
            "    default_memory: HBM\n")


def _measured(inp: Path, name: str = "measured.csv") -> Path:
    """A roofline CSV of one kernel ``k1`` with its FLOP and bytes (a model-check side)."""
    return _w(inp / name, "label,ai,tflops,flop,bytes\nk1,10,1,100,10\n")


def _deep_trace(inp: Path, depth: int, before: int = 0) -> Path:
    """A PyTorch trace whose event ``before + 1`` has ``Input Dims`` nested ``depth`` deep.

    ``before`` operator events of 60 bytes come first (20,000: 1.2 MB, past the head).
    """
    op = '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}'
    deep = ('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2, "args": '
            '{"Input Dims": ' + "[" * depth + "]" * depth + "}}")
    return _w(inp / "trace.json", '{"traceEvents": [' + ", ".join([op] * before + [deep])
              + "]}")


def _fifo(inp: Path, name: str = "x.csv") -> Path:
    os.mkfifo(inp / name)
    return inp / name


def _points(inp: Path, **columns) -> Path:
    from rooflow.points import to_points

    path = inp / "points.parquet"
    base = {"kernel": ["k"], "level": ["DRAM"], "flop": [None], "bytes": [1e6],
            "time_s": [1e-3], "arithmetic_intensity": [1.0], "performance": [1e12]}
    to_points(pl.DataFrame({**base, **columns})).write_parquet(path)
    return path


CASES: dict[str, tuple[Case, str]] = {
    # plottable ranges (a Python int past int64 broke the axis limits): table not left
    "intensity 1e35": (lambda i, o: _plot(_w(i / "r.csv", "kernel,ai,tflops\nk,1e35,5\n"), o),
                       "outside what a roofline plot shows"),
    "performance 1e19 TFLOP/s": (
        lambda i, o: _plot(_w(i / "r.csv", "kernel,ai,tflops\nk,10,1e19\n"), o),
        "column 'performance'"),
    "spec formula M**8": (lambda i, o: _plot(_spec(i, "M**8"), o, "--kind", "specs"),
                          "arithmetic intensity 6.25e+33"),
    # formula literals bounded
    "401-digit literal": (lambda i, o: ["convert", _spec(i, "1" + "0" * 400 + "*M"),
                                        "-o", o / "x.csv"], "finite int/float literals"),
    "literal 1e19": (lambda i, o: ["convert", _spec(i, "1e19*M"), "-o", o / "x.csv"],
                     "a literal is at most 1e+18"),
    # nesting depth of every YAML/JSON read
    "deep spec": (lambda i, o: ["convert", "--kind", "specs",
                                _w(i / "s.yaml", "inputs: " + "[" * 3000 + "]" * 3000 + "\n"),
                                "-o", o / "x.csv"], "YAML nested deeper than 64"),
    "deep hardware.yaml": (lambda i, o: ["hardware", "--hardware-file", _hardware(
        i, "presets: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n")], "nested deeper"),
    "deep families.yaml": (lambda i, o: ["from-spec", _spec(i, "M*K"), "--families",
                                         _w(i / "f.yaml", "families: " + "[" * 900
                                            + "]" * 900), "-o", o / "x.csv"], "nested deeper"),
    "deep ERT JSON": (lambda i, o: ["plot", _w(i / "r.csv", "ai,tflops\n1,1\n"),
                                    "--hardware-file", _w(i / "roofline.json", '{"empirical": '
                                                          + "[" * 5000 + "]" * 5000 + "}"),
                                    "-o", o / "p.png"], "JSON nested deeper than 64"),
    "deep PyTorch trace": (lambda i, o: ["convert", _deep_trace(i, 10_000), "-o", o / "x.csv"],
                           "JSON nested deeper than 64 levels [check: json depth]"),
    # past the 1 MiB head read for the devices: the event reached is named
    "deep PyTorch trace, late event": (lambda i, o: ["convert", _deep_trace(i, 100, 20_000),
                                                     "-o", o / "x.csv"],
                                       "row 20001: JSON nested deeper than 64 levels"),
    # model-check's outputs never over its inputs (check's: tests/test_check.py, exit 2)
    "model-check --table over the measured file": (
        lambda i, o: ["model-check", _measured(i), "--model", _measured(i, "model.csv"), "--map",
                      "k1=k1", *PEAKS, "--table", i / "measured.csv"], "is also an input"),
    "model-check -o over the model": (
        lambda i, o: ["model-check", _measured(i), "--model", _measured(i, "model.csv"), "--map",
                      "k1=k1", *PEAKS, "-o", i / "model.csv"], "is also an input"),
    # alias expansion guarded for every YAML (713 bytes grew to 19 GB while checked)
    "alias bomb hardware.yaml": (lambda i, o: ["hardware", "--hardware-file",
                                               _hardware(i, "presets:\n" + ALIAS_BOMB)],
                                 "alias bomb"),
    "alias bomb families.yaml": (lambda i, o: ["from-spec", _spec(i, "M*K"), "--families",
                                               _w(i / "f.yaml", "families:\n" + ALIAS_BOMB),
                                               "-o", o / "x.csv"], "alias bomb"),
    # NaN and infinities refused by every schema
    "hardware HBM .nan": (lambda i, o: ["hardware", "--hardware-file",
                                        _hardware(i, _preset("{HBM: .nan}"))],
                          "presets.x.memory.HBM': nan is not a finite number"),
    "hardware fp64 .inf": (lambda i, o: ["plot", _w(i / "r.csv", "ai,tflops\n1,1\n"),
                                         "--hardware", "x", "--hardware-file",
                                         _hardware(i, _preset(compute="{fp64: .inf}")),
                                         "-o", o / "p.png"], "inf is not a finite number"),
    "ERT NaN": (lambda i, o: ["hardware", "--hardware-file", _w(
        i / "roofline.json", '{"empirical": {"gbytes": {"data": [["DRAM", NaN]]}, '
        '"gflops": {"data": [["FP64 GFLOPs", 1000]]}}}')], "NaN is not a number JSON allows"),
    # non-regular, unreadable and oversized files refused before reading
    "FIFO x.csv": (lambda i, o: ["convert", _fifo(i), "-o", o / "x.csv"], "is a FIFO"),
    "FIFO x.csv --kind": (lambda i, o: ["convert", "--kind", "roofline", _fifo(i),
                                        "-o", o / "x.csv"], "is a FIFO"),
    "FIFO benchmark": (lambda i, o: ["from-benchmark", _fifo(i), "--specs", SPECS,
                                     "-o", o / "x.csv"], "is a FIFO"),
    "FIFO hardware file": (lambda i, o: ["hardware", "--hardware-file",
                                         _fifo(i, "hardware.yaml")], "is a FIFO"),
    "FIFO families": (lambda i, o: ["from-spec", _spec(i, "M*K"), "--families",
                                    _fifo(i, "f.yaml"), "-o", o / "x.csv"], "is a FIFO"),
    "FIFO in a workload folder": (
        lambda i, o: [(i / "wl").mkdir(), _fifo(i / "wl", "pmc_perf.csv"),
                      "convert", "--kind", "rocprof", i / "wl", "-o", o / "x.csv"][2:],
        "is a FIFO"),
    "/dev/zero behind a link": (
        lambda i, o: [(i / "zero.csv").symlink_to("/dev/zero"), "convert", "--kind",
                      "benchmarks", i / "zero.csv", "-o", o / "x.csv"][1:], "is a device"),
    "dangling link": (lambda i, o: [(i / "gone.csv").symlink_to(i / "nowhere.csv"),
                                    "convert", i / "gone.csv", "-o", o / "x.csv"][1:],
                      "a link to a missing file"),
    "a folder named x.csv": (lambda i, o: [(i / "x.csv").mkdir(), "convert", "--kind",
                                           "roofline", i / "x.csv", "-o", o / "x.csv"][1:],
                             "is a folder"),
    "3 GiB sparse CSV": (lambda i, o: [os.truncate(_w(i / "big.csv", "ai,tflops\n"), 3 << 30),
                                       "convert", "--kind", "roofline", i / "big.csv",
                                       "-o", o / "x.csv"][1:], "GB"),
    # a CSV of only commas, forced kinds (IndexError before)
    "only commas --kind roofline": (lambda i, o: ["convert", "--kind", "roofline",
                                                  _w(i / "c.csv", ",,,\n,,\n"),
                                                  "-o", o / "x.csv"], "no header"),
    "only commas from-benchmark": (lambda i, o: ["from-benchmark", _w(i / "c.csv", ",,,\n,,\n"),
                                                 "--specs", SPECS, "-o", o / "x.csv"],
                                   "no header"),
    # 300 KB of NUL bytes: one csv "field" past the csv module's limit (exit 2 before)
    "NUL bytes --kind ncu": (lambda i, o: [(i / "z.csv").write_bytes(bytes(300_000)),
                                           "convert", "--kind", "ncu", i / "z.csv",
                                           "-o", o / "x.csv"][1:], "no Nsight Compute table"),
    "only commas plot --kind benchmarks": (
        lambda i, o: ["plot", "--kind", "benchmarks", _w(i / "c.csv", ",,\n"), *PEAKS,
                      "-o", o / "p.png"], "no header"),
    # Parquet column types and the canonical points check
    "Parquet list column": (lambda i, o: [pl.DataFrame({"ai": [[1.0, 2.0]], "tflops": [1.0]})
                                          .write_parquet(i / "l.parquet"), "convert",
                                          i / "l.parquet", "-o", o / "x.csv"][1:],
                            "a List(Float64) column"),
    "canonical Parquet, inf intensity, null FLOP": (
        lambda i, o: _plot(_points(i, arithmetic_intensity=[float("inf")]), o),
        "column 'arithmetic_intensity'"),
    "canonical Parquet, intensity -1, null FLOP": (
        lambda i, o: _plot(_points(i, arithmetic_intensity=[-1.0]), o),
        "column 'arithmetic_intensity'"),
    "canonical Parquet, no intensity, null FLOP": (
        lambda i, o: _plot(_points(i, arithmetic_intensity=[None]), o),
        "column 'arithmetic_intensity'"),
    # header-only inputs refused for every kind (a benchmarks CSV gave an empty plot)
    "header-only roofline CSV": (lambda i, o: _plot(_w(i / "r.csv", "ai,tflops\n"), o),
                                 "no data rows"),
    "header-only benchmarks CSV": (
        lambda i, o: ["from-benchmark", _w(i / "b.csv", "family,shape_key,baseline_us,"
                                           "triton_us,tflops\n"), "--specs", SPECS,
                      "-o", o / "x.csv"], "no points"),
    "header-only benchmarks plot": (
        lambda i, o: ["plot", "--kind", "benchmarks", _w(i / "b.csv", "family,shape_key,"
                                                         "baseline_us,triton_us,tflops\n"),
                      *PEAKS, "-o", o / "p.png", "--table", o / "t.csv"], ""),
    "header-only points Parquet": (lambda i, o: [pl.read_parquet(_points(i)).clear()
                                                 .write_parquet(i / "e.parquet"), "convert",
                                                 i / "e.parquet", "-o", o / "x.csv"][1:],
                                   "no data rows"),
    "spec without a bench variant": (
        lambda i, o: ["from-spec", _w(i / "9_S.yaml", "inputs:\n  A: {shape: [M], dtype: "
                                      "float32}\nci:\n  - dims: {M: 4}\n    flop: M\n"),
                      "-o", o / "x.csv"], "no variant key starts with 'bench'"),
    # errors name the cell as written, not a derived column (was "tflops ... -200.0")
    "time_us -5": (lambda i, o: _plot(_w(i / "r.csv", "Flop,Bytes,Time_us\n1e9,1e6,5\n"
                                         "1e9,1e6,-5\n"), o),
                   "row 2, column 'Time_us': value fails validation [check: greater_than(0)] "
                   "(value: '-5')"),
    "tflops 1e300": (lambda i, o: ["convert", _w(i / "r.csv", "ai,tflops\n1,1e300\n"),
                                   "-o", o / "x.csv"], "column 'tflops'"),
    # an output is never an input, a folder, or another output
    "--table is the input": (lambda i, o: ["plot", _w(i / "r.csv", "ai,tflops\n10,5\n"),
                                           *PEAKS, "-o", o / "p.png", "--table", i / "r.csv"],
                             "is also an input"),
    "-o is a link to the input": (
        lambda i, o: [_w(i / "r.csv", "ai,tflops\n10,5\n"),
                      (o.parent / "link.csv").symlink_to(i / "r.csv"), "convert",
                      i / "r.csv", "-o", o.parent / "link.csv"][2:], "is also an input"),
    "-o is a hard link to the input": (
        lambda i, o: [_w(i / "r.csv", "ai,tflops\n10,5\n"),
                      os.link(i / "r.csv", o.parent / "hard.csv"), "convert", i / "r.csv",
                      "-o", o.parent / "hard.csv"][2:], "is also an input"),
    # (--table p.png itself is a usage error now: a table named as a picture.)
    "--table is --html": (lambda i, o: ["plot", _w(i / "r.csv", "ai,tflops\n10,5\n"), *PEAKS,
                                        "-o", o / "p.png", "--table", o / "p.csv",
                                        "--html", o / "p.csv"],
                          "named twice as an output"),
    "--hardware-file is --table": (
        lambda i, o: ["plot", _w(i / "r.csv", "ai,tflops\n10,5\n"), "--hardware", "x",
                      "--hardware-file", _hardware(i, _preset()), "-o", o / "p.png",
                      "--table", i / "hardware.yaml"], "is also an input"),
    "compare --table is the baseline": (
        lambda i, o: ["compare", _w(i / "a.csv", "kernel,ai,tflops\nk,10,5\n"),
                      _w(i / "b.csv", "kernel,ai,tflops\nk,10,6\n"), *PEAKS, "-o",
                      o / "c.png", "--table", i / "a.csv"], "is also an input"),
    "compare fails on the plot": (
        lambda i, o: ["compare", _w(i / "a.csv", "name,ai,tflops\nk,10,5\n"),
                      _w(i / "b.csv", "name,ai,tflops\nk,1e35,6\n"), *PEAKS, "-o",
                      o / "c.png", "--table", o / "c.csv", "--html", o / "c.html"],
        "outside what a roofline plot shows"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_attack_is_one_line_exit_1_nothing_written(capsys, dirs, name):
    inp, out = dirs
    build, fragment = CASES[name]
    args = build(inp, out)
    before = snapshot(out.parent / "in")
    line = assert_refused(capsys, inp, out, args, fragment)
    # The line names the file (or, for a comparison's point, its kernel).
    assert str(out.parent) in line or "kernel 'k'" in line, line
    assert snapshot(inp) == before


def test_unreadable_file_is_refused_before_reading(capsys, dirs, monkeypatch):
    inp, out = dirs
    path = _w(inp / "r.csv", "ai,tflops\n10,5\n")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads anything: the OS says no for this file alone
        real = os.access
        monkeypatch.setattr(os, "access",
                            lambda p, mode, **kw: Path(p) != path and real(p, mode, **kw))
    # Named on the command line: click's own check ("is not readable") says it first.
    assert_refused(capsys, inp, out, ["convert", path, "-o", out / "x.csv"], "readable")
    from rooflow.errors import InputError
    from rooflow.safeload import check_file

    with pytest.raises(InputError, match="cannot be read: permission denied"):
        check_file(path)  # read by name from a folder, a config or a spec folder


def test_rooflow_command_refuses_a_fifo_without_blocking(tmp_path):
    """As a user runs it: a FIFO named like a CSV never blocks the command (it did)."""
    fifo = tmp_path / "x.csv"
    os.mkfifo(fifo)
    proc = subprocess.run([str(REPO / ".venv/bin/rooflow"), "plot", str(fifo), *PEAKS],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"rooflow: error: {fifo}: is a FIFO, not an input "
                                        "file: refused before reading [check: regular file]"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]


def test_rooflow_command_refuses_a_deep_trace_in_one_line(tmp_path):
    """As a user runs it: a 10,000-deep PyTorch trace (it was a RecursionError, exit 2)."""
    from rooflow.kinds import device_names

    trace = _deep_trace(tmp_path, 10_000)
    proc = subprocess.run([str(REPO / ".venv/bin/rooflow"), "convert", str(trace), "-o",
                           str(tmp_path / "x.csv")], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"rooflow: error: {trace}: JSON nested deeper than "
                                        "64 levels [check: json depth]"]
    assert not (tmp_path / "x.csv").exists()
    # Workflow discovery reads the GPU name from the same head: none, never a crash.
    _w(trace, '{"deviceProperties": [' + "[" * 10_000 + "]" * 10_000 + "]}")
    assert device_names("pytorch", trace) == ()


# --- generated attacks ------------------------------------------------------------------

FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _nested(depth: int, opener: str) -> str:
    closer = {"[": "]", "{a: ": "}"}[opener]
    return opener * depth + ("1" if opener != "[" else "") + closer * depth


@FAST
@given(depth=st.integers(65, 4000), opener=st.sampled_from(["[", "{a: "]),
       target=st.sampled_from(["hardware", "families", "spec"]))
def test_any_deep_yaml_is_one_line(capsys, tmp_path_factory, depth, opener, target):
    root = tmp_path_factory.mktemp("deep")
    inp, out = root / "in", root / "out"
    inp.mkdir()
    out.mkdir()
    deep = _nested(depth, opener)
    if target == "hardware":
        args = ["hardware", "--hardware-file", _hardware(inp, f"presets: {deep}\n")]
    elif target == "families":
        args = ["from-spec", _spec(inp, "M*K"), "--families",
                _w(inp / "f.yaml", f"families: {deep}\n"), "-o", out / "x.csv"]
    else:
        args = ["convert", "--kind", "specs", _w(inp / "s.yaml", f"inputs: {deep}\n"),
                "-o", out / "x.csv"]
    assert_refused(capsys, inp, out, args, "nested deeper than 64")


_NUMBERS = [("compute", "fp64"), ("memory", "HBM")]


@FAST
@given(where=st.sampled_from(_NUMBERS), bad=st.sampled_from([".nan", ".NaN", ".inf",
                                                              "-.inf", ".Inf"]))
def test_any_non_finite_roof_is_refused_by_the_schema(capsys, tmp_path_factory, where, bad):
    root = tmp_path_factory.mktemp("nan")
    inp, out = root / "in", root / "out"
    inp.mkdir()
    out.mkdir()
    table, key = where
    text = _preset(**{table: f"{{{key}: {bad}}}"})
    line = assert_refused(capsys, inp, out, ["hardware", "--hardware-file",
                                             _hardware(inp, text)], "is not a finite number")
    assert f"presets.x.{table}.{key}" in line


@st.composite
def broken_points(draw):
    """Canonical points whose one row has a bad intensity, other columns null or not."""
    ai = draw(st.sampled_from([float("inf"), float("-inf"), float("nan"), -1.0, 0.0, None]))
    flop = draw(st.sampled_from([None, 1e9] + ([] if ai is None else [0.0])))
    columns = {"arithmetic_intensity": [ai], "flop": [flop]}
    for name in ("bytes", "time_s", "performance"):
        columns[name] = [draw(st.sampled_from([None, 1.0]))]
    return columns


@FAST
@given(columns=broken_points())
def test_canonical_points_check_catches_any_bad_intensity(capsys, tmp_path_factory, columns):
    root = tmp_path_factory.mktemp("pts")
    inp, out = root / "in", root / "out"
    inp.mkdir()
    out.mkdir()
    src = _points(inp, **columns)
    assert_refused(capsys, inp, out, ["convert", src, "-o", out / "x.csv"],
                   "column 'arithmetic_intensity'")


MATH = st.text(alphabet="$\\^_{}%&#~ab1 ", min_size=1, max_size=12).filter(str.strip)


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kernel=MATH, series=MATH, family=MATH, title=MATH)
def test_math_text_in_names_is_drawn_as_written(capsys, tmp_path_factory, kernel, series,
                                                family, title):
    """``$…$`` in a kernel, series, family or title name is text, never math (the PNG
    failed on ``main_$ck_L12_$``): the plot is written, the names as given."""
    import csv
    import io

    root = tmp_path_factory.mktemp("math")
    buf = io.StringIO()
    csv.writer(buf).writerows([["kernel", "series", "family", "ai", "tflops"],
                               [kernel, series, family, 10, 5],
                               ["main_$ck_L12_$", "$x$", "$\\frac{1}{0}$", 100, 50]])
    src = _w(root / "r.csv", buf.getvalue())
    code, lines = run(capsys, "plot", src, *PEAKS, "-o", root / "p.png", "--annotate",
                      "--key", "-t", title)
    assert code == 0, lines
    assert (root / "p.png").read_bytes().startswith(PNG)


def test_every_text_of_a_figure_is_plain(tmp_path):
    """Labels, legend, key, title and roof names keep their ``$`` (parse_math off)."""
    from matplotlib.text import Text

    from rooflow.adapters.roofline import read_roofline_csv
    from rooflow.analysis import analyze
    from rooflow.plotting import PlotOptions, figure
    from rooflow.plotting.compare import plot_comparison
    from rooflow.roofs.preset import custom_preset

    src = _w(tmp_path / "r.csv", "kernel,series,family,ai,tflops\nmain_$ck_L12_$,$s$,$f$,10,5\n")
    preset = custom_preset(100, 1000)
    table = analyze(read_roofline_csv(src), preset)
    fig = figure(table, preset, PlotOptions(annotate=True, key=True, title="$t$"))
    texts = [t for t in fig.findobj(Text) if "$" in t.get_text()]
    assert {"$t$", "$s$", "$f$"} <= {t.get_text() for t in texts}
    assert texts and not any(t.get_parse_math() for t in texts)
    fig.savefig(tmp_path / "p.png")  # no math text parser error
    from rooflow.compare import compare_tables

    plot_comparison(compare_tables(table, table), preset, tmp_path / "c.png", title="$c$")
    assert (tmp_path / "c.png").read_bytes().startswith(PNG)


# --- all outputs or none; stale temporary files ------------------------------------------


def test_outputs_are_all_or_none(tmp_path):
    from rooflow.errors import InputError
    from rooflow.io import all_or_none, atomic_path

    first, second = tmp_path / "a.csv", tmp_path / "b.png"
    with pytest.raises(InputError), all_or_none([first, second]):
        with atomic_path(first) as tmp:
            tmp.write_text("table")
        assert not first.exists()  # held until the command's end
        raise InputError(str(second), "the plot failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    with all_or_none([first, second]):
        for path in (first, second):
            with atomic_path(path) as tmp:
                tmp.write_text(path.name)
    assert first.read_text() == "a.csv" and second.read_text() == "b.png"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.png"]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_killed_runs_temporary_files_are_removed_by_the_next_run(capsys, tmp_path):
    src = _w(tmp_path / "r.csv", "kernel,ai,tflops\nk,10,5\n")
    out = tmp_path / "out"
    out.mkdir()
    host = socket.gethostname()
    dead = out / f".p.png.{host}-{_dead_pid()}.k1ll3d00.tmp"  # SIGKILLed mid-write
    old = out / ".t.csv.x1y2z3w4.tmp"  # an older rooflow's name, an hour old
    live = out / f".p.png.{host}-{os.getpid()}.w0rk1ng0.tmp"  # a writer still running
    for path in (dead, old, live):
        path.write_text("half")
    os.utime(old, (0, 0))
    code, lines = run(capsys, "plot", src, *PEAKS, "-o", out / "p.png", "--table",
                      out / "t.csv")
    assert code == 0, lines
    assert sorted(p.name for p in out.iterdir()) == sorted(["p.png", "t.csv", live.name])


def test_success_prints_what_it_did_and_a_failure_only_its_line(capsys, tmp_path):
    """Notes said on the way (read as, wrote) are held: a failure is its one line alone."""
    src = _w(tmp_path / "r.csv", "kernel,ai,tflops\nk,10,5\n")
    code, lines = run(capsys, "plot", src, *PEAKS, "-o", tmp_path / "p.png")
    assert code == 0 and any(line.startswith("wrote") for line in lines), lines
    code, lines = run(capsys, "plot", src, *PEAKS, "-o", tmp_path / "q.png", "--table",
                      tmp_path / "r.csv")
    assert code == 1 and len(lines) == 1, lines
