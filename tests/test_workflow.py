"""Real Snakemake runs on the shared build of the shipped examples (conftest.examples_build).

Tests that change the build put it back before they end: other modules read it too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from workflow_copy import EXAMPLE_CONFIG, dataset_log, job_counts, snakemake

pytestmark = pytest.mark.workflow


def datasets(work: Path) -> list[str]:
    return sorted({p.stem for p in (work / "results/tables").glob("*/*.csv") if p.stem != "all"})


def test_full_run_builds_every_table_and_plot(examples_build):
    names = datasets(examples_build)
    assert "roofline-flash_attention" in names
    assert any(n.startswith("specs-") for n in names)
    assert any(n.startswith("benchmarks-") for n in names)
    for preset in ("arc-pro-b70", "h100-sxm"):
        results = examples_build / "results"
        for stem in [n for n in names if (results / f"tables/{preset}/{n}.csv").exists()]:
            assert (results / f"plots/{preset}/{stem}.png").stat().st_size > 10_000
        assert (results / f"plots/{preset}/all.png").exists()
    summary = (examples_build / "results/summary.md").read_text()
    assert "## h100-sxm" in summary and "## arc-pro-b70" in summary
    # The trace's GPU time shares travel in its points file's metadata (issue 22, item 5).
    assert "| pytorch-h100_llama_layer | 2.785 | 98.8 % | 0.9 % | 0.1 % |" in summary
    assert "Operators of pytorch-h100_llama_layer by potential time saved on h100-sxm:" in summary
    assert "roofline-flash_attention: 4 points on arc-pro-b70" in dataset_log(
        examples_build, "roofline-flash_attention")


def test_profiler_datasets_are_hierarchical_on_their_presets(examples_build):
    import polars as pl

    ncu = "ncu-a100_dgemm_triad_hgemm"
    for preset in ("a100-sxm", "ert-roofline.gpu-node-a100"):
        assert (examples_build / f"results/plots/{preset}/{ncu}.png").stat().st_size > 10_000
    t = pl.read_csv(examples_build / f"results/tables/ert-roofline.gpu-node-a100/{ncu}.csv")
    assert set(t["level"]) == {"DRAM", "L2", "L1"}
    # The ERT preset has a roof per level, so every point of a precision it has a compute
    # roof for has an attainable value. It has no fp16-tensor roof: the HGEMM is not judged.
    judged = t.filter(pl.col("precision") != "fp16-tensor")
    assert judged["attainable"].null_count() == 0
    assert judged.filter(pl.col("binding")).height == judged["kernel"].n_unique() == 2
    hgemm = t.filter(pl.col("precision") == "fp16-tensor")
    assert hgemm.height == 3 and hgemm["attainable"].null_count() == 3
    assert not hgemm["binding"].any()
    rocprof = "rocprof-mi210_gemm_triad"
    t = pl.read_csv(examples_build / f"results/tables/omniperf-mi210_gemm_triad/{rocprof}.csv")
    assert set(t["level"]) == {"DRAM", "L2", "L1", "LDS"}
    assert (examples_build / f"results/plots/omniperf-mi210_gemm_triad/{rocprof}.png").exists()
    assert "potential saved" in (examples_build / "results/summary.md").read_text()


def test_measured_data_only_on_its_device(examples_build):
    # The benchmark CSV was measured on the Arc Pro B70: never drawn on the H100.
    assert (examples_build / "results/tables/arc-pro-b70/benchmarks-moe_attention.csv").exists()
    assert not list((examples_build / "results").rglob("h100-sxm/benchmarks-moe_attention*"))
    # Theoretical points (specs) are drawn on every configured preset.
    assert (examples_build / "results/tables/h100-sxm/specs-3_UnifiedAttention.csv").exists()


def test_summary_ranks_no_original_of_a_pair_and_no_kernel_without_its_roof(examples_build):
    import polars as pl

    text = (examples_build / "results/summary.md").read_text()
    sections = dict(part.split("\n", 1) for part in text.split("\n## ")[1:])
    unjudged_seen = 0
    for preset, body in sections.items():
        if not (examples_build / f"results/tables/{preset}").is_dir():
            continue  # a section that is no preset's (traces, points above the roof, ...)
        t = pl.read_csv(examples_build / f"results/tables/{preset}/all.csv",
                        infer_schema_length=None)
        name = pl.coalesce(pl.col("label"), pl.col("kernel"))
        unjudged = set(t.filter(pl.col("compute_roof_name").is_null() & ~pl.col("bandwidth_only")
                                & ~pl.col("theoretical")).select(
            pl.format("{} | {}", "dataset", name)).to_series())
        # "| # | dataset | kernel | series | ..." rows of the rankings
        ranked = [row.split(" | ") for row in body.splitlines() if row[:3].strip("| ").isdigit()]
        assert all(r[3] != "Original" for r in ranked), preset
        assert not {f"{r[1]} | {r[2]}" for r in ranked} & unjudged, preset
        for kernel in unjudged:  # listed apart, under its missing roof
            assert f"| {kernel} |" in body.split("Not judged on")[1], (preset, kernel)
        unjudged_seen += len(unjudged)
    # The ERT A100 preset has no tensor roof: its HGEMM (once "bound L1, 1.46× headroom")
    assert "- no fp16-tensor roof on ert-roofline.gpu-node-a100: 1 kernel" in text
    assert unjudged_seen >= 1
    assert "Superseded within their pair" in sections["arc-pro-b70"]


def test_no_shipped_example_is_above_its_roof(examples_build):
    import polars as pl

    tables = [p for p in (examples_build / "results/tables").glob("*/*.csv") if p.stem != "all"]
    assert len(tables) >= 8
    for path in tables:
        above = pl.read_csv(path, infer_schema_length=None).filter(pl.col("above_roof"))
        assert above.is_empty(), (path, above.select("kernel", "level", "pct_of_roof"))


def test_nothing_to_do_after_a_full_run(examples_build):
    assert job_counts(examples_build, *EXAMPLE_CONFIG) == {}


def test_new_file_reruns_only_its_jobs(examples_build):
    new = examples_build / "resources/roofline/new_sweep.csv"
    new.write_text("series,label,ai,tflops\nkernel,x,12,3\n")
    try:
        # Its batch's job (which reads and draws it alone: points, table, plot and page on
        # both presets), the per-preset aggregates (overview plot and table, overview page),
        # the summary, the check that every dataset was read, all.
        assert job_counts(examples_build, *EXAMPLE_CONFIG) == {
            "datasets": 1, "aggregate": 2, "html_overview": 2, "summary": 1,
            "datasets_read": 1, "all": 1}
    finally:
        new.unlink()


def test_pages_load_one_shared_bokehjs_by_relative_paths(examples_build):
    import re

    from bokeh.util.paths import bokehjs_path

    html = examples_build / "results/html"
    pages = sorted(html.glob("*/*.html"))
    assert {p.name for p in pages} >= {"all.html", "roofline-flash_attention.html"}
    for page in pages:
        text = page.read_text()
        srcs = re.findall(r"<script[^>]*\bsrc=\"([^\"]*)\"", text)
        # Bokeh's core and widgets, nothing inlined: one copy beside the presets' folders.
        assert {s.rsplit("/", 1)[1] for s in srcs} >= {"bokeh.min.js", "bokeh-widgets.min.js"}
        assert "/* BEGIN bokeh" not in text, page
        for src in srcs:
            assert src.startswith("../bokeh-"), (page, src)  # relative: the folder can move
            shared = (page.parent / src).resolve()
            assert shared.parent.parent.parent == html.resolve()
            assert shared.read_bytes() == (bokehjs_path() / "js" / shared.name).read_bytes()


def test_a_deleted_output_is_remade_by_its_batch(examples_build):
    # rule all asks for a batch job by its manifest, and for an output that is missing
    # (rooflow.workflow.batches.asked_for): deleting a page must still rerun its job, and
    # the jobs reading its manifest (the aggregates of its presets, the summary).
    page = next((examples_build / "results/html").glob("*/roofline-*.html"))
    kept = page.with_suffix(".kept")
    shutil.copy2(page, kept)
    page.unlink()
    try:
        counts = job_counts(examples_build, *EXAMPLE_CONFIG)
        assert counts["datasets"] == 1 and counts["all"] == 1
    finally:
        kept.rename(page)
    assert job_counts(examples_build, *EXAMPLE_CONFIG) == {}


def test_subfolders_are_not_inputs(examples_build):
    old = examples_build / "resources/roofline/old"
    old.mkdir()
    (old / "stale.csv").write_text("ai,tflops\n1,1\n")
    try:
        assert job_counts(examples_build, *EXAMPLE_CONFIG) == {}
    finally:
        shutil.rmtree(old)


def test_bad_file_fails_its_dataset_only(examples_build):
    import polars as pl

    bad = examples_build / "resources/roofline/broken.csv"
    bad.write_text("series,ai,tflops\nkernel,10,1\nkernel,12,-5\n")
    good = examples_build / "resources/roofline/fine.csv"
    good.write_text("series,ai,tflops\nkernel,10,1\n")
    try:
        proc = snakemake(examples_build, "--keep-going", *EXAMPLE_CONFIG, check=False)
        assert proc.returncode != 0
        screen = proc.stdout + proc.stderr
        line = "rooflow: error: resources/roofline/broken.csv, row 2, column 'tflops'"
        assert screen.count(line) == 1 and "Traceback" not in screen
        assert "-5" in screen
        assert f"roofline-broken: {line}" in dataset_log(examples_build, "roofline-broken")
        # Its outputs say it failed (rooflow.workflow.failed); the others, the aggregates and the
        # summary are built; the run fails in rule datasets_read, naming it.
        assert "Error in rule datasets_read" in screen
        table = examples_build / "results/tables/h100-sxm/roofline-broken.csv"
        assert table.read_text().startswith("dataset,error\nroofline-broken,")
        assert (examples_build / "results/plots/h100-sxm/roofline-fine.png").exists()
        overview = (examples_build / "results/tables/h100-sxm/all.csv").read_text()
        assert "roofline-fine" in overview and "roofline-broken" not in overview
        # Left out from its placeholder rows (rooflow.workflow.paths.DATASET_OVERVIEW_ROWS).
        rows = examples_build / "results/overview/h100-sxm/roofline-broken.parquet"
        assert pl.read_parquet(rows).columns == ["dataset", "error"]
        assert "left out, not built: roofline-broken" in (
            examples_build / "logs/aggregate/h100-sxm.log").read_text()
        assert "| roofline-broken | " + line in (
            examples_build / "results/summary.md").read_text()
        assert "Traceback" not in dataset_log(examples_build, "roofline-broken")
    finally:
        bad.unlink()
        good.unlink()
        snakemake(examples_build, *EXAMPLE_CONFIG)  # back to a complete state for the other tests


def test_a_cut_overview_rows_file_is_one_line_naming_it(examples_build):
    """Rule aggregate's inputs are the batches' manifests, which stand for each dataset's
    overview rows (rooflow.workflow.paths.DATASET_OVERVIEW_ROWS): a rows file cut short
    (a killed run, a full disk) is said in one line naming it, and once removed, its batch
    job makes it again."""
    from rooflow.workflow.failed import is_whole_parquet

    rows = examples_build / "results/overview/arc-pro-b70/roofline-flash_attention.parquet"
    whole = rows.read_bytes()
    rows.write_bytes(whole[: len(whole) // 2])
    try:
        proc = snakemake(examples_build, "--forcerun", "aggregate", *EXAMPLE_CONFIG,
                         check=False)
        screen = proc.stdout + proc.stderr
        assert proc.returncode != 0 and "Traceback" not in screen
        assert ("rooflow: error: results/overview/arc-pro-b70/roofline-flash_attention.parquet: "
                "dataset roofline-flash_attention's overview rows are cut short") in screen
    finally:
        rows.unlink()
        snakemake(examples_build, *EXAMPLE_CONFIG)
    assert is_whole_parquet(rows)
