"""The workflow as a Snakemake module of another folder's workflow (catalog "standardized
usage"): that folder's own Snakefile, config and resources, no copy of this repository,
the installed rooflow package imported (no path of this checkout).

The inputs are .test/'s, whose figures .test/README.md works out by hand (H100 SXM: HBM
3350 GB/s, BF16 Tensor 989.4 TFLOP/s).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import snakemake

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[1]

SNAKEFILE = f"""\
configfile: "config/config.yaml"


module rooflow:
    snakefile:
        "{REPO / 'workflow' / 'Snakefile'}"
    config:
        config


use rule * from rooflow
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("module") / "my-analysis"
    # Links (config/hardware.yaml → the packaged presets) are copied as files.
    for name in ("config", "resources"):
        shutil.copytree(REPO / ".test" / name, work / name)
    (work / "Snakefile").write_text(SNAKEFILE)
    snakemake(work, "--cores", "1", cores=None, timeout=400)
    return work


def test_the_module_builds_the_folders_datasets_in_that_folder(project):
    tables = project / "results" / "tables" / "h100-sxm"
    assert sorted(p.stem for p in tables.glob("*.csv")) == [
        "all", "benchmarks-gemm", "roofline-gemm_sweep", "specs-DenseGemm"]
    assert (project / "results" / "plots" / "h100-sxm" / "all.png").stat().st_size > 10_000
    assert (project / "results" / "summary.md").is_file()
    assert not (REPO / "workflow" / "results").exists()


def test_the_module_draws_on_the_folders_roofs(project):
    t = pl.read_csv(project / "results" / "tables" / "h100-sxm" / "roofline-gemm_sweep.csv")
    t = t.sort("arithmetic_intensity")
    # .test/README.md: roof = min(989.4, AI × 3.35): 3.35, 53.6, 335, 989.4 TFLOP/s;
    # achieved 2.9, 40, 250, 700 → 86.57, 74.63, 74.63, 70.75 % of it.
    assert (t["attainable"] / 1e12).to_list() == pytest.approx([3.35, 53.6, 335, 989.4])
    assert t["pct_of_roof"].to_list() == pytest.approx([86.57, 74.63, 74.63, 70.75], abs=0.01)
