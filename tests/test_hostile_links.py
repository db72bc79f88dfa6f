"""Links out of resources/, and error lines that quote more than one cell (issue 32, item 8).

A link in ``resources/`` to a file outside it (``/etc/passwd``) was read as a dataset, and
its job's error line, in summary.md and the report, quoted a whole line of it. Such a link
(or a folder dataset holding one) is skipped with a warning; an error line quotes the
offending cell only.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.errors import InputError
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.planning import Plan

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RTX3060_CSV = DATA / "ncu" / "raw-wide-rtx3060" / "vector_add.csv"
SECRET = "root:x:0:0:SECRET-FIRST-LINE:/root:/bin/bash\nSECRET-SECOND-LINE,a,b,c\n"


@pytest.fixture
def res(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "resources").mkdir()
    return tmp_path / "resources"


def _plan(**config) -> Plan:
    return Plan({**config_defaults(), "plot_defaults": plot_defaults(),
                 "presets": ["h100-sxm"]} | config, load_hardware())


def test_a_link_out_of_resources_is_skipped_with_a_warning(res, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    (res / "roofline").mkdir()
    (res / "roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    (res / "roofline/inside.csv").symlink_to("k.csv")  # a link within the tree: read
    (res / "roofline/passwd.csv").symlink_to(secret)
    (res / "ncu/run").mkdir(parents=True)
    shutil.copy(RTX3060_CSV, res / "ncu/run/a.csv")
    (res / "ncu/run/b.csv").symlink_to(secret)  # one pass of a folder: the folder skipped
    (res / "rocprof/w").mkdir(parents=True)
    (res / "rocprof/w/pmc_perf.csv").write_text("Dispatch_ID,Kernel_Name\n0,k\n")
    (res / "rocprof/w/sysinfo.csv").symlink_to(secret)  # a file the job reads beside it
    plan = _plan()
    assert sorted(plan.datasets) == ["roofline-inside", "roofline-k"]
    assert plan.warnings == [  # one per dataset, in the kinds' order
        "skipped 'resources/roofline/passwd.csv': 'resources/roofline/passwd.csv' is a link "
        "out of resources/ (inputs are read from there only)",
        "skipped 'resources/ncu/run/': 'resources/ncu/run/b.csv' is a link out of "
        "resources/ (inputs are read from there only)",
        "skipped 'resources/rocprof/w/': 'resources/rocprof/w/sysinfo.csv' is a link out of "
        "resources/ (inputs are read from there only)"]
    assert not any("SECRET" in line for line in plan.warnings)


def test_a_resources_folder_that_is_itself_a_link_is_read(tmp_path, monkeypatch):
    data = tmp_path / "elsewhere"
    (data / "roofline").mkdir(parents=True)
    (data / "roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "resources").symlink_to(data)
    monkeypatch.chdir(work)
    assert list(_plan().datasets) == ["roofline-k"]


@pytest.mark.parametrize("text, cell", [
    # The /etc/passwd shape: a header of one field, a line with commas in it.
    (SECRET, "a"),
    ("series,ai,tflops\nk,10,5,EXTRA,SECRET-REST-OF-LINE\n", "EXTRA"),
    ("series,ai,tflops\nSECRET-ONLY-CELL\n", "SECRET-ONLY-CELL"),
])
def test_a_row_of_the_wrong_length_quotes_one_cell(tmp_path, text, cell):
    from rooflow.adapters import load_points

    path = tmp_path / "x.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_points("roofline", path)
    assert err.value.value == cell
    assert "SECRET" not in str(err.value).replace(cell, "")


def test_a_pti_gpu_config_line_quotes_one_cell(tmp_path):
    from rooflow.roofs.intel_config import intel_preset

    path = tmp_path / "dev.csv"
    path.write_text("FP32_GFLOPS,100,THIRD,SECRET-REST\n")
    with pytest.raises(InputError) as err:
        intel_preset(path)
    assert err.value.value == "THIRD" and "SECRET" not in str(err.value)

