"""Every file and folder under ../shared/data gives a table, or one clear line (issue 35).

What each one is: ../shared/data/SOURCES.md. Each is given to ``rooflow table`` as a user
would, through the command line's own entry (:func:`rooflow.cli.main.main`, in this process: a
subprocess each would start Python ~80 times). Without ``--hardware`` the input picks its
preset (its own peaks, or the GPU it names); one that names none gets one line saying so,
and is then tabled on a roof given by hand. A file that is no input (a peaks file, a
companion such as ``sysinfo.csv``, a folder of one input) gets one line saying what it is.
Never a traceback, never exit 2 (an internal error).
"""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from rooflow.cli.main import main

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
NO_PRESET = "names no GPU of a preset and holds no peaks of its own"


def _entries() -> list[str]:
    """Every file (SOURCES.md aside) and every folder holding files, relative to SHARED."""
    if not SHARED.is_dir():
        return ["(../shared/data missing)"]  # one test, skipped by conftest with its reason
    found = [p for p in SHARED.rglob("*")
             if p.name != "SOURCES.md" and (p.is_file() or any(c.is_file() for c in p.iterdir()))]
    return sorted(str(p.relative_to(SHARED)) for p in found)


def table(capsys, *args: str) -> tuple[int, str, str]:
    """``rooflow table ARGS``: exit code, stdout, stderr."""
    capsys.readouterr()
    try:
        main(["table", *args])
        code = 0
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def one_clear_line(path: Path, err: str) -> str:
    """The error: one line, naming ``path`` (or a file in it), no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rooflow: error: ") and str(path) in lines[0], lines[0]
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


@pytest.mark.shared
@pytest.mark.parametrize("entry", _entries())
def test_gives_a_table_or_one_clear_line(capsys, entry: str) -> None:
    path = SHARED / entry
    code, out, err = table(capsys, str(path))
    if code == 1 and NO_PRESET in err:
        one_clear_line(path, err)
        # Tabled on a roof given by hand: its points, or a line about the input itself.
        code, out, err = table(capsys, str(path), "--peak-tflops", "100",
                               "--peak-bandwidth", "1000")
    assert code in (0, 1), f"exit {code}: {err}"
    if code == 0:
        rows = pl.read_csv(io.StringIO(out), infer_schema_length=None)
        assert rows.height > 0 and "kernel" in rows.columns
        assert rows["kernel"].drop_nulls().len() == rows.height
    else:
        assert NO_PRESET not in one_clear_line(path, err)


@pytest.mark.shared
@pytest.mark.parametrize(("entry", "says"), [
    ("ert/kingspeak-p100-gpu/roofline.json", "measured peaks, not kernels; give it as "
                                             "--preset-file"),
    ("omniperf/mi200-dispatch_0_1/roofline.csv", "empirical peaks, not kernels"),
    ("intel/unitrace-pvc-gemm-fp16/PVC_1tile.csv", "a pti-gpu roofline device config"),
    ("omniperf/mi100-kernel/sysinfo.csv", "give the workload folder or its pmc_perf.csv"),
    ("rocprofv3/mi355x-hipkittens-lds/lds_conflict_agent_info.csv",
     "give NAME_counter_collection.csv"),
    ("rocprof/mi250x-laplacian-two-pass/data_movement.txt", "the input of rocprof -i"),
    ("ncu-rep/nersc-gpp", "a folder, not one input of any kind: give its file(s): "
                          "output1.ncu-rep (ncu)"),
    ("ert/kingspeak-p100-gpu", "a folder holding no input: roofline.json is an Empirical"),
    ("ncu/nersc-gpp/output.csv", NO_PRESET),  # an RTX 4060 Laptop GPU: no preset
])
def test_a_file_that_is_no_input_says_what_to_give(capsys, entry: str, says: str) -> None:
    path = SHARED / entry
    code, _, err = table(capsys, str(path))
    assert code == 1 and says in one_clear_line(path, err)
