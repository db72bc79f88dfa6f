"""A real Snakemake run of an ncu folder dataset whose export has Theoretical peaks.

The RTX 3060 raw page (``../shared/data/ncu/raw-wide-rtx3060``, linked, never copied) is
the one pass of ``resources/ncu/rtx3060/``: dataset ``ncu-rtx3060`` and, from its
Theoretical rows, preset ``ncu-rtx3060``, its default device.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from workflow_copy import copy_workflow, job_counts, snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.shared]

CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: [h100-sxm]\n"


@pytest.fixture(scope="module")
def built(shared_data, tmp_path_factory) -> Path:
    work = copy_workflow(tmp_path_factory.mktemp("wf_ncu"), resources=False)
    (work / "config" / "config.yaml").write_text(CONFIG)
    folder = work / "resources" / "ncu" / "rtx3060"
    folder.mkdir(parents=True)
    # Copies: a link out of resources/ is skipped (tests/test_hostile_links.py).
    shutil.copy(shared_data / "ncu/raw-wide-rtx3060/vector_add.csv", folder / "vector_add.csv")
    snakemake(work)
    return work


def test_the_dataset_is_drawn_on_its_own_theoretical_preset(built):
    # Roofs: fp64 60 inst/cycle × 2 × 817.173 MHz = 98.06 GFLOP/s; DRAM 48 byte/cycle ×
    # 5,992.585 MHz = 287.644 GB/s. Point: AI 0.207215 at 50.392 GFLOP/s (fp64), DRAM roof
    # 0.207215 × 287.644 = 59.604 GFLOP/s → 84.54 % of roof.
    assert (built / "results/plots/ncu-rtx3060/ncu-rtx3060.png").stat().st_size > 10_000
    assert (built / "results/plots/ncu-rtx3060/all.png").exists()
    t = pl.read_csv(built / "results/tables/ncu-rtx3060/ncu-rtx3060.csv")
    dram = t.filter(pl.col("level") == "DRAM").row(0, named=True)
    assert dram["attainable"] == pytest.approx(59.604e9, rel=1e-4)
    assert dram["pct_of_roof"] == pytest.approx(84.54, abs=0.01)
    assert not t["above_roof"].any()
    # Measured on the RTX 3060: never drawn on the configured H100.
    assert not list((built / "results").rglob("h100-sxm/ncu-rtx3060*"))


def test_adding_or_removing_a_pass_reruns_the_dataset(built):
    # A second pass of the same launch: L2 bytes (lts__t_sectors.sum 101,209,052 × 32).
    extra = built / "resources/ncu/rtx3060/l2.csv"
    extra.write_text(
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context",'
        '"Stream","Section Name","Metric Name","Metric Unit","Metric Value"\n'
        '"0","38014","vector_add","127.0.0.1","vector_add(double *, double *, double *)",'
        '"2025-Nov-07 14:13:41","1","7","Command line profiler metrics","lts__t_bytes.sum",'
        '"byte","3,238,689,664"\n')
    # Its batch's job (points, table, plot, page), its preset's overview plot, table and
    # page, the summary, the check that every dataset was read: 1 each; the same when the
    # pass is taken out again.
    rerun = {"datasets": 1, "aggregate": 1, "html_overview": 1,
             "summary": 1, "datasets_read": 1, "all": 1}
    try:
        assert job_counts(built) == rerun
    finally:
        extra.unlink()
    assert job_counts(built) == rerun


def test_a_name_both_file_and_folder_is_skipped_with_one_line(built, shared_data):
    twin = built / "resources/ncu/rtx3060.csv"
    shutil.copy(shared_data / "ncu/raw-wide-rtx3060/vector_add.csv", twin)
    try:
        proc = snakemake(built, "-n", check=False)
        assert proc.returncode == 0  # which one is meant is not guessed: neither is built
        assert ("rooflow: warning: skipped ncu-rtx3060: it is both resources/ncu/rtx3060.csv "
                "and the folder resources/ncu/rtx3060/; keep one of them") in proc.stderr
    finally:
        twin.unlink()


def test_an_export_without_peaks_gives_no_preset(built, shared_data):
    v100 = built / "resources/ncu/v100.csv"
    shutil.copy(shared_data / "ncu/modern-details-v100/output.csv", v100)
    try:
        out = snakemake(built, "-n").stdout
        assert "results/plots/h100-sxm/ncu-v100.png" in out  # the configured presets
        assert "ncu-v100/" not in out
    finally:
        v100.unlink()


@pytest.fixture(scope="module")
def built_report(shared_data, tmp_path_factory) -> Path:
    work = copy_workflow(tmp_path_factory.mktemp("wf_ncu_rep"), resources=False)
    (work / "config" / "config.yaml").write_text(CONFIG)
    (work / "resources" / "ncu").mkdir(parents=True)
    shutil.copy(shared_data / "ncu-rep/rtx3060-vector-add/vector_add.ncu-rep",
                work / "resources" / "ncu" / "va.ncu-rep")
    snakemake(work)
    return work


def test_a_report_is_a_dataset_with_its_own_preset(built_report):
    # resources/ncu/va.ncu-rep: dataset ncu-va and preset ncu-va from its peaks, as its CSV
    # export above (same roofs; DRAM 3,238,610,688 byte in the report → AI 0.2072150):
    # 0.2072150 × 287.644 GB/s = 59.604 GFLOP/s attainable, 50.392 achieved → 84.55 %.
    t = pl.read_csv(built_report / "results/tables/ncu-va/ncu-va.csv")
    dram = t.filter(pl.col("level") == "DRAM").row(0, named=True)
    assert dram["kernel"] == "vector_add(double *, double *, double *)"
    assert dram["attainable"] == pytest.approx(59.604e9, rel=1e-4)
    assert dram["pct_of_roof"] == pytest.approx(84.54, abs=0.02)
    assert (built_report / "results/plots/ncu-va/ncu-va.png").stat().st_size > 10_000
    assert not list((built_report / "results").rglob("h100-sxm/ncu-va*"))
