"""A throwaway copy of the workflow and real Snakemake runs on it (tests marked `workflow`).

Plain functions, imported by the test modules; the fixtures built on them (`workflow_copy`,
`examples_build`) are in conftest.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# No src/: the workflow imports the installed rooflow (this venv's, editable), as it does
# anywhere else.
PROJECT = ("workflow", "config")
# The two presets every shipped example is drawn on (plus those datasets name themselves).
EXAMPLE_CONFIG = ("--config", 'presets=["arc-pro-b70","h100-sxm"]')


def copy_workflow(dest: Path, resources: bool = True) -> Path:
    """Copy the project into `dest` (created) and return it; resources=False leaves out the
    shipped inputs, for tests that bring their own. Links are copied as the files they name."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in (*PROJECT, *(["resources"] if resources else [])):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, dest / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy(REPO / name, dest / name)
    return dest


def snakemake_cmd(*args: str) -> list[str]:
    """This interpreter's Snakemake (the venv's), for callers that start it themselves."""
    return [sys.executable, "-m", "snakemake", *args]


def snakemake(workdir: Path, *args: str, cores: int | None = 2, check: bool = True,
              timeout: int = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run Snakemake in `workdir`; check=True turns a failed run into an AssertionError that
    shows the end of its output."""
    cmd = snakemake_cmd(*(["--cores", str(cores)] if cores else []), *args)
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd[1:])}: exit {proc.returncode}\n"
                             f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def job_counts(workdir: Path, *args: str) -> dict[str, int]:
    """Rule → jobs a run would do now (dry run); {} when everything is up to date.

    The batch rules (``datasets_on_PRESET..._NN``: one per batch of datasets,
    :mod:`rooflow.workflow.batches`) count as one, ``datasets``.
    """
    rules = {}  # Snakemake prints its table of jobs per rule twice
    for line in snakemake(workdir, "-n", "--quiet", "rules", *args).stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("job", "total"):
            rules[parts[0]] = int(parts[1])
    counts: dict[str, int] = {}
    for rule, jobs in rules.items():
        rule = re.sub(r"^datasets_on_\w+$", "datasets", rule)
        counts[rule] = counts.get(rule, 0) + jobs
    return counts


def dataset_log(workdir: Path, dataset: str) -> str:
    """The log of the batch job that made ``dataset`` (its lines begin with its id)."""
    logs = [p.read_text() for p in sorted((workdir / "logs/datasets").glob("*.log"))]
    found = [text for text in logs if f"\n{dataset}: " in f"\n{text}"]
    assert len(found) == 1, f"{dataset}: in {len(found)} batch logs"
    return found[0]
