"""Real Snakemake runs on a copy of the workflow, config and example inputs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PRESETS = '["arc-pro-b70","h100-sxm"]'


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "--config", f"presets={PRESETS}",
           *args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-4000:] + proc.stderr[-4000:])
    return proc


def job_counts(workdir: Path) -> dict[str, int]:
    out = snakemake(workdir, "-n", "--quiet", "rules").stdout
    counts = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("job", "total"):
            counts[parts[0]] = int(parts[1])
    return counts


@pytest.fixture(scope="module")
def built(repo, tmp_path_factory) -> Path:
    """A full run of the shipped example inputs on two presets."""
    work = tmp_path_factory.mktemp("wf")
    for sub in ("workflow", "config", "resources"):
        shutil.copytree(repo / sub, work / sub)
    shutil.copy(repo / "environment.yml", work)  # the rules' conda: environment
    snakemake(work)
    return work


def datasets(work: Path) -> list[str]:
    return sorted({p.stem for p in (work / "results/tables").glob("*/*.csv") if p.stem != "all"})


def test_full_run_builds_every_table_and_plot(built):
    names = datasets(built)
    assert "roofline-flash_attention" in names
    assert any(n.startswith("specs-") for n in names)
    assert any(n.startswith("benchmarks-") for n in names)
    for preset in ("arc-pro-b70", "h100-sxm"):
        for stem in [n for n in names if (built / f"results/tables/{preset}/{n}.csv").exists()]:
            assert (built / f"results/plots/{preset}/{stem}.png").stat().st_size > 10_000
        assert (built / f"results/plots/{preset}/all.png").exists()
    summary = (built / "results/summary.md").read_text()
    assert "## h100-sxm" in summary and "## arc-pro-b70" in summary
    assert (built / "logs/points/roofline/flash_attention.log").exists()


def test_profiler_datasets_are_hierarchical_on_their_presets(built):
    import polars as pl

    ncu = "ncu-a100_dgemm_triad_hgemm"
    for preset in ("a100-sxm", "ert-roofline.gpu-node-a100"):
        assert (built / f"results/plots/{preset}/{ncu}.png").stat().st_size > 10_000
    t = pl.read_csv(built / f"results/tables/ert-roofline.gpu-node-a100/{ncu}.csv")
    assert set(t["level"]) == {"DRAM", "L2", "L1"}
    # the ERT preset has a roof per level, so every point has an attainable value
    assert t["attainable"].null_count() == 0
    assert t.filter(pl.col("binding")).height == t["kernel"].n_unique()
    rocprof = "rocprof-mi210_gemm_triad"
    t = pl.read_csv(built / f"results/tables/omniperf-mi210_gemm_triad/{rocprof}.csv")
    assert set(t["level"]) == {"HBM", "L2", "L1", "LDS"}
    assert (built / f"results/plots/omniperf-mi210_gemm_triad/{rocprof}.png").exists()
    assert "potential saved" in (built / "results/summary.md").read_text()


def test_measured_data_only_on_its_device(built):
    # The benchmark CSV was measured on the Arc Pro B70: never drawn on the H100.
    assert (built / "results/tables/arc-pro-b70/benchmarks-moe_attention.csv").exists()
    assert not list((built / "results").rglob("h100-sxm/benchmarks-moe_attention*"))
    # Theoretical points (specs) are drawn on every configured preset.
    assert (built / "results/tables/h100-sxm/specs-3_UnifiedAttention.csv").exists()


def test_no_shipped_example_is_above_its_roof(built):
    import polars as pl

    tables = [p for p in (built / "results/tables").glob("*/*.csv") if p.stem != "all"]
    assert len(tables) >= 8
    for path in tables:
        above = pl.read_csv(path, infer_schema_length=None).filter(pl.col("above_roof"))
        assert above.is_empty(), (path, above.select("kernel", "level", "pct_of_roof"))


def test_nothing_to_do_after_a_full_run(built):
    assert job_counts(built) == {}


def test_new_file_reruns_only_its_jobs(built):
    new = built / "resources/roofline/new_sweep.csv"
    new.write_text("series,label,ai,tflops\nkernel,x,12,3\n")
    try:
        # 1 points job, 1 report and 1 interactive page per preset, the per-preset
        # aggregates (overview plot and table, overview page), the summary, all.
        assert job_counts(built) == {"points": 1, "report": 2, "html": 2, "aggregate": 2,
                                     "html_overview": 2, "summary": 1, "all": 1}
    finally:
        new.unlink()


def test_subfolders_are_not_inputs(built):
    old = built / "resources/roofline/old"
    old.mkdir()
    (old / "stale.csv").write_text("ai,tflops\n1,1\n")
    try:
        assert job_counts(built) == {}
    finally:
        shutil.rmtree(old)


def test_bad_file_fails_its_jobs_only(built):
    bad = built / "resources/roofline/broken.csv"
    bad.write_text("series,ai,tflops\nkernel,10,1\nkernel,12,-5\n")
    good = built / "resources/roofline/fine.csv"
    good.write_text("series,ai,tflops\nkernel,10,1\n")
    try:
        proc = snakemake(built, "--keep-going", check=False)
        assert proc.returncode != 0
        screen = proc.stdout + proc.stderr
        line = "rooflow: error: resources/roofline/broken.csv, row 2, column 'tflops'"
        assert line in screen
        assert "-5" in screen
        assert line in (built / "logs/points/roofline/broken.log").read_text()
        assert not (built / "results/points/roofline/broken.parquet").exists()
        assert not list((built / "results").rglob("roofline-broken*"))
        assert (built / "results/plots/h100-sxm/roofline-fine.png").exists()
        assert "Traceback" not in (built / "logs/points/roofline/broken.log").read_text()
    finally:
        bad.unlink()
        good.unlink()
        snakemake(built)  # back to a complete state for the other tests
