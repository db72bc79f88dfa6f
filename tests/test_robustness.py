"""Robustness of real Snakemake runs: raw inputs untouched, atomic outputs, the run lock.

Each test works on its own temporary copy of the workflow (workflow_copy.py), never on the
shared build: it kills runs. Drawn on one preset (plus the presets datasets name themselves).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake, snakemake_cmd

pytestmark = pytest.mark.workflow

CONFIG = ["--config", 'presets=["arc-pro-b70"]']
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # IEND chunk: length 0, type, CRC


def _run(work: Path, *args: str) -> subprocess.CompletedProcess:
    return snakemake(work, *args, *CONFIG, cores=None, check=False, timeout=300)


def _start(work: Path) -> subprocess.Popen:
    """A full run in its own process group, so it can be killed with its jobs."""
    return subprocess.Popen(snakemake_cmd("--cores", "2", *CONFIG), cwd=work,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _wait_for(condition, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the run")
        time.sleep(0.05)


def _checksums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _kill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def _broken_outputs(results: Path) -> list[str]:
    """Non-hidden files under ``results`` that are not complete, readable outputs."""
    broken = []
    for path in results.rglob("*"):
        if not path.is_file() or path.name.startswith("."):
            continue
        try:
            if path.suffix == ".png":
                data = path.read_bytes()
                ok = data.startswith(PNG_SIGNATURE) and data.endswith(PNG_END)
            elif path.suffix == ".csv":
                ok = pl.read_csv(path).width > 0
            elif path.suffix == ".parquet":
                ok = pl.read_parquet(path).width > 0
            elif path.suffix == ".html":
                ok = path.read_text().rstrip().endswith("</html>")
            elif path.suffix == ".json":  # a batch's manifest
                ok = isinstance(json.loads(path.read_text()), dict)
            elif path.suffix == ".txt":  # a marker (datasets_read.txt): empty when all read
                ok = True
            elif path.suffix == ".js":  # the pages' shared BokehJS: Bokeh's own file whole
                from bokeh.util.paths import bokehjs_path

                ok = path.read_bytes() == (bokehjs_path() / "js" / path.name).read_bytes()
            else:
                ok = path.suffix in (".md", ".svg", ".pdf") and path.stat().st_size > 0
        except Exception:  # any reader error means a half-written file
            ok = False
        if not ok:
            broken.append(str(path.relative_to(results)))
    return broken


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory) -> dict:
    """A full run SIGKILLed while its jobs run, then resumed; what was seen on the way.

    Its own copy and build (not the shared examples_build): the kill is the test."""
    work = copy_workflow(tmp_path_factory.mktemp("killed"))
    before = _checksums(work / "resources")
    proc = _start(work)
    # Kill once batch jobs (matplotlib) are writing plots, i.e. mid-run.
    _wait_for(lambda: any((work / "results/plots").glob("*/*.png")))
    time.sleep(0.5)
    _kill(proc)
    seen = {"work": work, "before": before, "after_kill": sorted((work / "results").rglob("*"))}
    seen["broken_after_kill"] = _broken_outputs(work / "results")
    seen["temps_after_kill"] = sorted((work / "results").rglob(".*.tmp"))
    # A SIGKILLed Snakemake leaves its lock: --unlock, then redo the incomplete jobs.
    seen["unlock"] = _run(work, "--unlock")
    seen["resume"] = _run(work, "--cores", "2", "--rerun-incomplete")
    seen["after"] = _checksums(work / "resources")
    return seen


def test_killed_run_leaves_no_half_written_output(interrupted):
    assert interrupted["after_kill"], "the run was killed before it wrote anything"
    assert interrupted["broken_after_kill"] == []


def test_killed_run_resumes_to_a_complete_build(interrupted):
    work = interrupted["work"]
    assert interrupted["unlock"].returncode == 0, interrupted["unlock"].stderr[-3000:]
    assert interrupted["resume"].returncode == 0, interrupted["resume"].stderr[-3000:]
    assert (work / "results/summary.md").stat().st_size > 0
    assert (work / "results/plots/arc-pro-b70/all.png").exists()
    assert (work / "results/plots/arc-pro-b70/roofline-flash_attention.png").exists()
    assert _broken_outputs(work / "results") == []
    dry = _run(work, "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr


def test_temporary_files_of_the_killed_jobs_are_gone_after_the_rerun(interrupted):
    """A job SIGKILLed mid-write leaves its hidden ``.NAME.HOST-PID.*.tmp``; the rerun that
    writes NAME again removes it (rooflow.io.remove_stale_temps): none is left."""
    work = interrupted["work"]
    assert interrupted["resume"].returncode == 0, interrupted["resume"].stderr[-3000:]
    left = sorted(str(p.relative_to(work)) for p in (work / "results").rglob(".*.tmp"))
    assert left == [], (left, interrupted["temps_after_kill"])


def test_raw_inputs_are_never_modified(interrupted):
    assert interrupted["before"]
    assert interrupted["after"] == interrupted["before"]


def test_second_run_in_the_same_folder_is_refused(workflow_copy):
    work = workflow_copy
    first = _start(work)
    locks = work / ".snakemake" / "locks"
    try:
        _wait_for(lambda: locks.is_dir() and any(locks.iterdir()))
        # Freeze the first run while it holds its lock, so the race cannot be lost.
        os.killpg(first.pid, signal.SIGSTOP)
        second = _run(work, "--cores", "1")
        assert second.returncode != 0
        assert "cannot be locked" in second.stdout + second.stderr
    finally:
        _kill(first)
