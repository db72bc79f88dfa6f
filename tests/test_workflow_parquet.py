"""A roofline Parquet file in resources/ is a dataset like a CSV (real Snakemake run)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake

pytestmark = pytest.mark.workflow

CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: [h100-sxm]\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    work = copy_workflow(tmp_path_factory.mktemp("wf_parquet"), resources=False)
    (work / "config" / "config.yaml").write_text(CONFIG)
    roofline = work / "resources" / "roofline"
    roofline.mkdir(parents=True)
    # 1 TFLOP/s at 10 FLOP/byte and 5 at 100: under the H100's HBM roof (33.5 and
    # 335 TFLOP/s there) and its fp16-tensor roof (989 TFLOP/s).
    pl.DataFrame({"series": ["Original", "Optimized"], "pair": ["p", "p"],
                  "ai": [10.0, 100.0], "tflops": [1.0, 5.0]}).write_parquet(
        roofline / "sweep.parquet")
    snakemake(work)
    return work


def test_parquet_dataset_builds_like_a_csv(built):
    table = pl.read_csv(built / "results/tables/h100-sxm/roofline-sweep.csv")
    assert table["performance"].to_list() == [1e12, 5e12]
    assert table["source"].to_list() == ["resources/roofline/sweep.parquet"] * 2
    assert table["pair_speedup"].to_list() == [5.0, 5.0]
    assert (built / "results/plots/h100-sxm/roofline-sweep.png").stat().st_size > 0


def test_a_name_both_csv_and_parquet_is_skipped_with_one_line(built):
    twin = built / "resources/roofline/sweep.csv"
    twin.write_text("ai,tflops\n10,1\n")
    try:
        proc = snakemake(built, "-n", check=False)
        assert proc.returncode == 0  # which one is meant is not guessed: neither is built
        assert ("rooflow: warning: skipped roofline-sweep: it is both "
                "resources/roofline/sweep.csv and resources/roofline/sweep.parquet; keep one "
                "of them") in proc.stderr
    finally:
        twin.unlink()
