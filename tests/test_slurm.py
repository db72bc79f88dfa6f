"""The whole workflow on a real single-node Slurm cluster gives the same results as a local run.

Needs root and the Debian Slurm packages (installed by the harness if missing); skipped with
the reason otherwise, except under CI (`CI` set), where it fails instead. See slurm_cluster.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from slurm_cluster import SlurmCluster, SlurmUnavailable, prepare_host, run
from workflow_copy import copy_workflow, snakemake_cmd

pytestmark = [pytest.mark.slurm, pytest.mark.workflow]

SLURM_PROFILE = "workflow/profiles/slurm"
# A bad raw file gives a failed points file (rooflow.workflow.failed): the other datasets, the
# aggregates and the report still build, and the run fails in the check of every dataset.
FAILING_RULE = "datasets_read"
# One preset keeps every rule in the DAG at a third of the jobs (the node runs 2 jobs at once).
CONFIG = ("--config", 'presets=["h100-sxm"]')
RUN_TIMEOUT_S = 400


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def _cannot_run(reason: str) -> None:
    if _in_ci():
        pytest.fail(f"Slurm test cannot run under CI: {reason}")
    pytest.skip(f"Slurm test cannot run here: {reason}")


@pytest.fixture(scope="module")
def cluster():
    try:
        prepare_host()
    except SlurmUnavailable as e:
        _cannot_run(str(e))
    with SlurmCluster() as started:
        yield started


def _snakemake(workdir: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run(snakemake_cmd(*CONFIG, *args), RUN_TIMEOUT_S, cwd=workdir, env=env)


def _slurm_snakemake(workdir: Path, cluster: SlurmCluster) -> subprocess.CompletedProcess:
    # No sacct without slurmdbd: status from squeue (the cluster keeps finished jobs 300 s).
    return _snakemake(
        workdir,
        "--workflow-profile", SLURM_PROFILE,
        "--slurm-status-command", "squeue",
        "--slurm-init-seconds-before-status-checks", "2",
        env=cluster.env,
    )  # fmt: skip


def _explain(done: subprocess.CompletedProcess, cluster: SlurmCluster | None = None) -> str:
    tail = (done.stdout + done.stderr)[-4000:]
    return f"exit {done.returncode}\n{tail}" + (f"\n{cluster.log_tail()}" if cluster else "")


def _tables(workdir: Path) -> dict[str, bytes]:
    root = workdir / "results" / "tables"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.csv"))}


def _pngs(workdir: Path) -> set[str]:
    root = workdir / "results"
    return {str(p.relative_to(root)) for p in root.rglob("*.png")}


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    """The workflow run locally and on Slurm; outputs read right away (a test edits the copy)."""
    # Both runs start from one snapshot, even if the repository changes meanwhile.
    snapshot = copy_workflow(tmp_path_factory.mktemp("snapshot"))
    local = shutil.copytree(snapshot, tmp_path_factory.mktemp("local"), dirs_exist_ok=True)
    done = _snakemake(local, "--cores", "2")
    assert done.returncode == 0, _explain(done)
    on_slurm = shutil.copytree(snapshot, tmp_path_factory.mktemp("slurm"), dirs_exist_ok=True)
    done = _slurm_snakemake(on_slurm, cluster)
    assert done.returncode == 0, _explain(done, cluster)
    return {
        "slurm_dir": on_slurm,
        "tables": (_tables(local), _tables(on_slurm)),
        "pngs": (_pngs(local), _pngs(on_slurm)),
    }


def test_slurm_run_matches_local_run(runs):
    local_tables, slurm_tables = runs["tables"]
    assert local_tables, "the local run wrote no results/tables/**/*.csv"
    assert sorted(slurm_tables) == sorted(local_tables)
    differing = [name for name in local_tables if slurm_tables[name] != local_tables[name]]
    assert not differing, f"tables differ between local and Slurm runs: {differing}"
    local_pngs, slurm_pngs = runs["pngs"]
    assert local_pngs, "the local run drew no PNG"
    assert slurm_pngs == local_pngs


def test_failing_slurm_job_fails_the_run_and_names_its_rule(runs, cluster):
    workdir = runs["slurm_dir"]
    bad = workdir / "resources" / "roofline" / "broken.csv"
    bad.write_text("series,label,ai,tflops\nkernel,x,lots,3\n")
    done = _slurm_snakemake(workdir, cluster)
    output = done.stdout + done.stderr
    assert done.returncode != 0, _explain(done, cluster)
    assert f"Error in rule {FAILING_RULE}" in output, _explain(done)
    # show-failed-logs (slurm profile) brings the job's one-line InputError back to the user.
    assert "error: resources/roofline/broken.csv, row 1" in output, _explain(done)
