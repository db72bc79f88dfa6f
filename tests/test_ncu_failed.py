"""A file ncu wrote when it could not profile: one line quoting the profiler's reason.

ncu prints ``==PROF==`` progress and ``==ERROR==`` lines where the table would be; the
permission error's text and URL are ncu's own (Nsight Compute's "ERR_NVGPUCTRPERM"
message, https://developer.nvidia.com/ERR_NVGPUCTRPERM, as users paste it in
deepseek-ai/DeepGEMM#46 and HazyResearch/ThunderKittens#73).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rooflow.errors import InputError
from rooflow.kinds import detect_kind

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")

PERM = ("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
        "Performance Counters on the target device 0. For instructions on enabling "
        "permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM")


def denied(path: Path) -> Path:
    """ncu --csv ... > path, run without counter permission: ncu's lines and the app's own."""
    path.write_text(
        "==PROF== Connected to process 9012 (/usr/local/bin/my-benchmark)\n"
        f"{PERM}\n"
        "Result: 3.1416\n"  # the program's output, between ncu's lines
        "==PROF== Disconnected from process 9012\n"
        f"{PERM}\n")  # ncu repeats it per kernel: quoted once
    return path


def test_detection_quotes_the_profilers_error_and_its_url(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        detect_kind(denied(tmp_path / "run.csv"))
    text = str(err.value)
    assert text.startswith(f"{tmp_path / 'run.csv'}: a failed Nsight Compute profile")
    assert "ERR_NVGPUCTRPERM" in text and "https://developer.nvidia.com/ERR_NVGPUCTRPERM" in text
    assert text.count("ERR_NVGPUCTRPERM - ") == 1
    assert "kinds:" not in text and len(text) < 500  # not the list of every kind


def test_no_kernel_profiled_quotes_the_warning(tmp_path: Path) -> None:
    path = tmp_path / "none.csv"
    path.write_text("==PROF== Connected to process 77 (/usr/bin/app)\n"
                    "==PROF== Disconnected from process 77\n"
                    "==WARNING== No kernels were profiled.\n")
    with pytest.raises(InputError, match="reported ==WARNING== No kernels were profiled."):
        detect_kind(path)


def test_other_text_is_still_no_kind(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text("a;b\n1;2\n")
    with pytest.raises(InputError, match="not a file rooflow reads"):
        detect_kind(path)


def test_cli_prints_one_line_and_exits_1(tmp_path: Path) -> None:
    path = denied(tmp_path / "run.csv")
    proc = subprocess.run([ROOFLOW, "table", str(path), "--hardware", "h100-sxm"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "https://developer.nvidia.com/ERR_NVGPUCTRPERM" in lines[0]
    assert "Traceback" not in proc.stderr
