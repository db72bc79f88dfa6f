"""Intermediates: a points file cut short is rebuilt by the next run (issue 32, item 12).

The check before any job (:meth:`rooflow.workflow.planning.Plan.remove_corrupt_points`) removed a
truncated ``results/points/*.parquet``; when no job needed it (every output up to date),
it stayed missing. It is now also asked for, so its points job rebuilds it in that run.
"""

from __future__ import annotations

import polars as pl
import pytest
from workflow_copy import copy_workflow, snakemake

from rooflow.workflow.failed import is_whole_parquet

CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: [h100-sxm]\n"


@pytest.mark.workflow
def test_a_cut_points_file_is_rebuilt_by_the_next_run(tmp_path):
    work = copy_workflow(tmp_path / "w", resources=False)
    (work / "config/config.yaml").write_text(CONFIG)
    (work / "resources/roofline").mkdir(parents=True)
    (work / "resources/roofline/k.csv").write_text("series,ai,tflops\nk,10,5\n")
    snakemake(work)
    # A points file cut short (a killed run, a full disk), nothing else changed.
    points = work / "results/points/roofline/k.parquet"
    points.write_bytes(points.read_bytes()[:100])
    proc = snakemake(work)
    assert ("results/points/roofline/k.parquet was not a whole Parquet file (a killed run, "
            "a full disk?): removed, rebuilt in this run") in proc.stderr
    assert is_whole_parquet(points) and pl.read_parquet(points).height == 1
    assert "Nothing to be done" in snakemake(work, "-n").stdout  # and it stays built
