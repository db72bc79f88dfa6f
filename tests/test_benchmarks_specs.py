"""A benchmarks CSV finds its spec YAMLs beside it, from any working folder; ``--specs``.

The workflow's layout (``ROOT/resources/benchmarks/NAME.csv`` with
``ROOT/resources/specs``), a workflow config's ``specs_dir``, or ``--specs`` on ``plot``,
``table`` and ``convert``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.benchmarks import find_specs

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
CSV = "moe_attention.csv"


def rooflow(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """An empty working folder: no resources/specs under it."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    return folder


def points(path: Path) -> pl.DataFrame:
    return pl.read_csv(path).drop("source")


def test_workflow_layout_from_another_folder(repo: Path, tmp_path: Path,
                                             elsewhere: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(repo / "resources/specs", root / "resources/specs")
    (root / "resources/benchmarks").mkdir()
    csv = shutil.copy(repo / "resources/benchmarks" / CSV, root / "resources/benchmarks")
    assert find_specs(csv) == root / "resources/specs"
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    proc = rooflow("convert", str(csv), "-o", str(ours), cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    proc = rooflow("convert", f"resources/benchmarks/{CSV}", "-o", str(theirs), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    # the same points as from the repository's root (its own resources/specs)
    assert points(ours).equals(points(theirs)) and points(ours).height > 0
    proc = rooflow("plot", str(csv), "--hardware", "h100-sxm", "--dpi", "40", "-o",
                   str(tmp_path / "p.png"), cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr


def test_a_workflow_configs_specs_dir(repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(repo / "resources/specs", root / "kernels")
    (root / "config").mkdir()
    (root / "config/config.yaml").write_text("specs_dir: kernels\n")
    (root / "data").mkdir()
    csv = shutil.copy(repo / "resources/benchmarks" / CSV, root / "data")
    assert find_specs(csv) == root / "kernels"


@pytest.mark.parametrize("command", ["table", "convert", "plot"])
def test_specs_option(repo: Path, tmp_path: Path, elsewhere: Path, command: str) -> None:
    specs = shutil.copytree(repo / "resources/specs", tmp_path / "my specs")
    csv = shutil.copy(repo / "resources/benchmarks" / CSV, tmp_path)  # no specs near it
    extra = {"table": ["--hardware", "h100-sxm"], "convert": [],
             "plot": ["--hardware", "h100-sxm", "--dpi", "40", "-o", str(tmp_path / "p.png")]}
    proc = rooflow(command, str(csv), *extra[command], cwd=elsewhere)
    assert proc.returncode == 1 and "specs directory not found (give --specs" in proc.stderr
    proc = rooflow(command, str(csv), "--specs", str(specs), *extra[command], cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
