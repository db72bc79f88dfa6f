"""Corrupt Nsight Compute reports and NVIDIA's native reader (issue 32, item 1).

``ncu_report`` aborts the process (SIGABRT) on some corrupt ``.ncu-rep`` files; rooflow
reads reports in a child (:mod:`rooflow.formats.ncu.native`), so a crash is one line naming
the file, exit 1, on the command line, in a points job and at planning, where the other
datasets still build. The corrupt files are made at run time from a real report in
``../shared/data`` (never copied into the repository), in ``tmp_path``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake

from rooflow.errors import InputError
from rooflow.formats.ncu.native import installed, printable
from rooflow.kinds import device_names

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RTX3060 = DATA / "ncu-rep" / "rtx3060-vector-add" / "vector_add.ncu-rep"
ROOFLOW = Path(sys.executable).with_name("rooflow")
CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: [h100-sxm]\n"

pytestmark = [pytest.mark.shared,
              pytest.mark.skipif(not installed(), reason="needs NVIDIA's ncu-report package")]

# Byte 15 of the report is 0x00 in the first block header; 0x01 there (one bit) makes a
# length the reader's protobuf stream checks: "Check failed: count >= 0 (-77 vs. 0)",
# abort(). Found by setting bytes 4..23 to 0x00/0x01/0x7f/0x80/0xff one at a time.
ABORT_AT = (15, 0x01)
# Byte 7431 xor 0xFF turns a byte of the metric name "launch__shared_mem_config_size" into
# 0x92: not UTF-8; ncu_report's metric_by_name then raises TypeError (found by flipping 120
# random bytes of the report).
NOT_UTF8_AT = (7431, None)


def _corrupt(tmp_path: Path, at: tuple[int, int | None], name: str = "bad.ncu-rep") -> Path:
    data = bytearray(RTX3060.read_bytes())
    offset, value = at
    data[offset] = data[offset] ^ 0xFF if value is None else value
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOFLOW), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_the_reader_really_aborts_on_the_flipped_byte(tmp_path):
    # The reproducer: NVIDIA's reader, in a process of its own, dies of SIGABRT (-6).
    bad = _corrupt(tmp_path, ABORT_AT)
    assert RTX3060.read_bytes()[ABORT_AT[0]] == 0x00
    proc = subprocess.run([sys.executable, "-c",
                           f"import ncu_report; ncu_report.load_report({str(bad)!r})"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -6, proc.stderr[-500:]
    assert "absl::InitializeLog" in proc.stderr  # what the user must not see


def test_cli_crash_is_one_line_exit_1_without_traceback_or_absl_lines(tmp_path):
    bad = _corrupt(tmp_path, ABORT_AT)
    proc = _cli("table", bad, "--hardware", "h100-sxm", "-o", tmp_path / "t.csv")
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"rooflow: error: {bad}: ncu_report crashed reading the report (signal SIGABRT); "
        "the file is corrupt or from an unsupported Nsight Compute version "
        "[check: ncu-report] (value: 'Check failed: count >= 0 (-77 vs. 0)')"]
    assert not (tmp_path / "t.csv").exists()


def test_a_metric_name_not_utf8_is_one_line(tmp_path):
    bad = _corrupt(tmp_path, NOT_UTF8_AT)
    proc = _cli("convert", bad, "-o", tmp_path / "p.csv")
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"rooflow: error: {bad}: launch 0 (vector_add(double *, double *, double *)): metric "
        "name 'launch__shared_\\x92em_config_size' is not UTF-8: the report is corrupt "
        "[check: utf-8 metric name]"]


def test_the_child_protocol_and_printable():
    # A surrogate-escaped byte (how the reader gives bytes that are not UTF-8) → \x92.
    assert printable("a\udc92b") == "a\\x92b" and printable("é") == "é"


def test_a_crash_at_planning_names_no_gpu_and_the_planner_lives(tmp_path):
    # Before: the abort ended this process (pytest itself). Now: no GPU from this file,
    # the good report beside it still named.
    bad = _corrupt(tmp_path, ABORT_AT)
    assert device_names("ncu", bad) == ()
    assert device_names("ncu", RTX3060) == ("NVIDIA GeForce RTX 3060 Laptop GPU",)


def test_one_child_reads_report_after_report_and_a_crash_ends_only_it(tmp_path, monkeypatch):
    from rooflow.formats.ncu.native import launches

    bad = _corrupt(tmp_path, ABORT_AT)
    monkeypatch.chdir(tmp_path)  # a path relative to this process' working folder
    shutil.copy(RTX3060, "good.ncu-rep")
    assert [k for k, _ in launches(RTX3060)] == ["vector_add(double *, double *, double *)"]
    with pytest.raises(InputError, match="SIGABRT") as err:
        launches(bad)
    assert err.value.file == str(bad)
    (kernel, metrics), = launches("good.ncu-rep")  # a new child
    assert len(metrics) == 854  # every metric but the regex: request


def test_a_crash_reading_points_is_an_input_error(tmp_path):
    from rooflow.adapters import load_points

    bad = _corrupt(tmp_path, ABORT_AT)
    with pytest.raises(InputError, match=r"crashed reading the report \(signal SIGABRT\)"):
        load_points("ncu", bad)


@pytest.mark.workflow
def test_planning_with_a_corrupt_report_still_builds_the_good_dataset(tmp_path):
    work = copy_workflow(tmp_path / "w", resources=False)
    (work / "config/config.yaml").write_text(CONFIG)
    res = work / "resources"
    (res / "ncu").mkdir(parents=True)
    (res / "roofline").mkdir()
    _corrupt(res / "ncu", ABORT_AT, "bad.ncu-rep")
    shutil.copy(RTX3060, res / "ncu" / "good.ncu-rep")
    (res / "roofline" / "k.csv").write_text("series,ai,tflops\nk,10,5\n")
    proc = snakemake(work, check=False)
    screen = proc.stdout + proc.stderr
    assert "Traceback" not in screen and "absl" not in screen
    # Only the check that every dataset was read fails; the rest is built.
    summary = (work / "results/summary.md").read_text()
    assert "ncu-bad" in summary and "crashed reading the report (signal SIGABRT)" in summary
    for dataset in ("roofline-k", "ncu-good"):
        table = work / f"results/tables/h100-sxm/{dataset}.csv"
        if dataset == "ncu-good":  # drawn on its own peaks' preset, ncu-good
            table = work / f"results/tables/ncu-good/{dataset}.csv"
        assert "kernel" in pl.read_csv(table).columns, dataset
    assert (work / "results/plots/h100-sxm/all.png").exists()
    assert proc.returncode != 0  # datasets_read: ncu-bad was not read
