"""The workflow on `.test/` (Snakemake catalog convention), run on a copy: outputs and numbers.

The expected figures are worked out in .test/README.md (H100 SXM: HBM 3350 GB/s,
BF16 Tensor 989.4 TFLOP/s).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import snakemake

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("dottest") / "test"
    # Links (config/hardware.yaml → the packaged presets) are copied as files.
    shutil.copytree(REPO / ".test", work, ignore=shutil.ignore_patterns(
        ".snakemake", "results", "logs"))
    # Not a workflow copy: .test/ is run by the repository's own Snakefile, as documented.
    snakemake(work, "--snakefile", str(REPO / "workflow" / "Snakefile"), "--directory",
              str(work), timeout=300)
    return work


def _table(built: Path, dataset: str) -> pl.DataFrame:
    return pl.read_csv(built / "results" / "tables" / "h100-sxm" / f"{dataset}.csv")


def test_every_output_of_the_small_config(built):
    datasets = ["benchmarks-gemm", "roofline-gemm_sweep", "specs-DenseGemm"]
    results = built / "results"
    assert sorted(p.stem for p in (results / "tables" / "h100-sxm").glob("*.csv")) == \
        sorted([*datasets, "all"])
    for stem in [*datasets, "all"]:
        assert (results / "plots" / "h100-sxm" / f"{stem}.png").stat().st_size > 10_000
    # Only the configured preset: the datasets name h100-sxm as their device.
    assert [p.name for p in (results / "tables").iterdir()] == ["h100-sxm"]
    for kind, name in (("benchmarks", "gemm"), ("roofline", "gemm_sweep"),
                       ("specs", "DenseGemm")):
        assert (results / "points" / kind / f"{name}.parquet").exists()
    assert not list(built.glob("resources/**/*.parquet"))  # raw inputs only read


def test_benchmark_pairs_on_the_bf16_tensor_and_hbm_roofs(built):
    t = _table(built, "benchmarks-gemm").sort("row", "series")
    # rows: bench-gpu Optimized/Original, then bench-gpu-1 (sort: "Optimized" < "Original")
    assert t["kernel"].to_list() == ["bench-gpu"] * 2 + ["bench-gpu-1"] * 2
    assert t["precision"].to_list() == ["bf16-tensor"] * 4
    assert t["flop"].to_list() == [137_438_953_472] * 2 + [1_879_048_192] * 2
    assert t["bytes"].to_list() == [100_663_296] * 2 + [118_030_336] * 2
    assert t["arithmetic_intensity"].to_list() == pytest.approx([1365.333] * 2 + [15.920] * 2,
                                                                abs=1e-3)
    assert t["kernel_bound"].to_list() == ["compute", "compute", "DRAM", "DRAM"]
    # Optimized 687.19 / 989.4 = 69.5 %, Original 473.93 / 989.4 = 47.9 %;
    # Optimized 41.757 / 53.332 = 78.3 %, Original 30.064 / 53.332 = 56.4 %.
    assert t["pct_of_roof"].to_list() == pytest.approx([69.46, 47.90, 78.30, 56.37], abs=0.01)
    assert not t["above_roof"].any()


def test_roofline_sweep_under_its_roofs(built):
    t = _table(built, "roofline-gemm_sweep").sort("arithmetic_intensity")
    # roof = min(989.4, AI × 3.35): 3.35, 53.6, 335, 989.4 TFLOP/s
    assert (t["attainable"] / 1e12).to_list() == pytest.approx([3.35, 53.6, 335, 989.4])
    assert t["pct_of_roof"].to_list() == pytest.approx([86.57, 74.63, 74.63, 70.75], abs=0.01)


def test_summary_ranks_the_largest_potential_saving_first(built):
    text = (built / "results" / "summary.md").read_text()
    assert ("3 datasets, 6 measured kernels ranked (2 with times); not ranked: 2 superseded "
            "within their pair, 0 without a compute roof of their precision; 0 points above "
            "the roof.") in text
    first = next(line for line in text.splitlines() if line.startswith("| 1 |"))
    # A pair ranks its Optimized kernel: 200 µs × (1 − 687.19/989.4) = 61.09 µs. The
    # Original (290 µs × (1 − 473.93/989.4) = 151.1 µs) is superseded, never ranked.
    assert "| GEMM 4096x4096x4096 | Optimized |" in first
    assert first.endswith("| 200 | 61.09 |")  # one time unit for the table: µs
    assert "time (µs) | potential saved (µs) |" in text
    # 687.19 / 473.93 = 1.45
    assert ("| benchmarks-gemm | GEMM 4096x4096x4096 | Original | DenseGemm:bench-gpu "
            "| 474 TFLOP/s | 1.45× |") in text
