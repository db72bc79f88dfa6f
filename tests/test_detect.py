"""`rooflow plot FILE` on any kind: detection from content, one line when nothing matches,
and never a traceback (unexpected errors: one line, exit 2, details in a log)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rooflow.adapters import KINDS, detect_kind
from rooflow.errors import InputError

ROOFLOW = str(Path(sys.executable).with_name("rooflow"))


@pytest.mark.parametrize(("path", "kind"), [
    ("resources/roofline/flash_attention.csv", "roofline"),
    ("resources/benchmarks/moe_attention.csv", "benchmarks"),
    ("resources/specs/1_BatchedMoE.yaml", "specs"),
])
def test_shipped_examples_are_detected(repo, path, kind):
    assert detect_kind(repo / path) == kind


@pytest.mark.shared
def test_shared_spec_is_detected(shared_data):
    assert detect_kind(shared_data / "xe-forge/examples/vllm/3_UnifiedAttention.yaml") == "specs"


@pytest.mark.shared
def test_unknown_file_lists_every_kind(shared_data):
    with pytest.raises(InputError) as err:
        detect_kind(shared_data / "SOURCES.md")
    text = str(err.value)
    assert "not a file rooflow reads" in text and "\n" not in text
    for kind in KINDS:
        assert f"{kind}: " in text


def run(*args, cwd=None):
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_plot_detects_the_kind(repo, tmp_path):
    proc = run("plot", str(repo / "resources/specs/3_UnifiedAttention.yaml"), "--hardware",
               "h100-sxm", "-o", str(tmp_path / "s.png"))
    assert proc.returncode == 0, proc.stderr
    assert "read as specs" in proc.stderr and (tmp_path / "s.png").exists()


def test_table_command_writes_the_analysis(repo, tmp_path):
    out = tmp_path / "t.csv"
    proc = run("table", str(repo / "resources/roofline/flash_attention.csv"), "--hardware",
               "arc-pro-b70", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("series,family,label")


@pytest.mark.parametrize("text", ["ai,tflops\n", "ai,tflops\n1e300,1\n10,1e300\n"])
def test_former_tracebacks_are_one_line(tmp_path, text):
    # A header without rows, and values that overflow FLOP/s: one line, exit 1.
    path = tmp_path / "bad.csv"
    path.write_text(text)
    proc = run("plot", str(path), "--hardware", "h100-sxm", "-o", str(tmp_path / "x.png"))
    assert proc.returncode == 1
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("rooflow: error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "x.png").exists()


def test_unexpected_error_is_one_line_with_a_log(monkeypatch, capsys):
    # Any bug reaching the entry point is one "internal error" line naming the log that
    # holds the traceback, exit 2 (a user error would be exit 1).
    import rooflow.roofs.datasheet
    from rooflow.cli.main import main

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(rooflow.roofs.datasheet, "load_hardware", broken)
    with pytest.raises(SystemExit) as exit_info:
        main(["hardware"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("rooflow: internal error: ZeroDivisionError: division by zero")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    log = err.split("details in ")[1].strip().rstrip(")")
    assert "Traceback" in Path(log).read_text()
