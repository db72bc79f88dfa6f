"""The workflow's batch jobs (rooflow.workflow.batches): datasets grouped by what they write,
dealt into batches, and a batch remaking only its datasets that changed.

Planning runs without Snakemake here (as tests/test_planning.py); the rules themselves run
in tests/test_workflow.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.batches import (
    NAME_CHARS,
    Members,
    asked_for,
    batch_inputs,
    batch_of,
    build_batch,
    dataset_batches,
    failed_lines,
    group_name,
    members,
    outputs_on_disk,
    read_manifest,
)
from rooflow.workflow.draw import bokehjs_files
from rooflow.workflow.planning import Plan

REPO = Path(__file__).resolve().parents[1]
ROWS = "label,arithmetic_intensity,tflops,precision\ngemm,900,35,fp16-tensor\ntriad,0.1,0.2,fp32\n"


@pytest.fixture
def plan(tmp_path, monkeypatch) -> Plan:
    """Four roofline datasets: a, b on the config presets; c on a100-sxm alone; d with an
    SVG as well; and benchmarks-c, a name shared with roofline-c on the config presets.
    Two batches a group."""
    monkeypatch.chdir(tmp_path)
    for rel in ("roofline/a.csv", "roofline/b.csv", "roofline/c.csv", "roofline/d.csv"):
        path = tmp_path / "resources" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ROWS)
    (tmp_path / "resources/benchmarks").mkdir()
    (tmp_path / "resources/benchmarks/c.csv").write_text("x\n")
    config = {**config_defaults(), "plot_defaults": plot_defaults(), "batches": 2,
              "presets": ["h100-sxm", "mi300x"],
              "datasets": {"roofline-c": {"device": "a100-sxm"},
                           "roofline-d": {"formats": ["png", "svg"]}}}
    return Plan(config, load_hardware())


def test_a_dataset_keeps_its_batch_in_any_process_and_batches_are_even():
    # A dataset's batch depends on its id alone, the same in every process (Python's str
    # hash is salted per process: it would move every dataset, and rebuild it, on each
    # run), so a new file rebuilds its own batch only.
    import subprocess
    import sys

    ids = [f"roofline-sweep_{i:04d}" for i in range(1000)]
    here = [batch_of(d, 16) for d in ids]
    code = ("import sys; from rooflow.workflow.batches import batch_of; "
            "print(' '.join(str(batch_of(d, 16)) for d in sys.argv[1:]))")
    for seed in ("1", "2"):
        there = subprocess.run([sys.executable, "-c", code, *ids], capture_output=True,
                               text=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert [int(b) for b in there.stdout.split()] == here
    # Dealt evenly: 1,000 ids over 16 batches, 62.5 each; binomial sd √(1000·(1/16)·(15/16))
    # = 7.7, so every batch within ±4 sd (31) of the mean.
    counts = [here.count(b) for b in range(16)]
    assert all(abs(c - 62.5) <= 31 for c in counts), counts


def test_datasets_are_grouped_by_presets_and_formats_then_dealt(plan):
    found = [(b.name, b.presets, b.formats, b.datasets) for b in dataset_batches(plan)]
    first = {d: batch_of(d, 2) for d in ("roofline-a", "roofline-b", "benchmarks-c")}
    expected = [(f"datasets_on_h100_sxm_mi300x_{n}", ("h100-sxm", "mi300x"), (),
                 tuple(sorted(d for d, b in first.items() if b == n)))
                for n in sorted(set(first.values()))]
    assert found[:len(expected)] == expected
    assert found[len(expected):] == [
        (f"datasets_on_a100_sxm_{batch_of('roofline-c', 2)}", ("a100-sxm",), (),
         ("roofline-c",)),
        (f"datasets_on_h100_sxm_mi300x_with_svg_{batch_of('roofline-d', 2)}",
         ("h100-sxm", "mi300x"), ("svg",), ("roofline-d",))]


def test_a_batch_s_outputs_are_its_manifest_then_each_dataset_s(plan):
    svg = next(b for b in dataset_batches(plan) if b.formats)
    assert svg.outputs(plan) == [
        f"results/datasets/{svg.name}.json",
        "results/points/roofline/d.parquet",
        "results/tables/h100-sxm/roofline-d.csv",
        "results/plots/h100-sxm/roofline-d.png",
        "results/plots/h100-sxm/roofline-d.svg",
        "results/html/h100-sxm/roofline-d.html",
        "results/overview/h100-sxm/roofline-d.parquet",
        "results/tables/mi300x/roofline-d.csv",
        "results/plots/mi300x/roofline-d.png",
        "results/plots/mi300x/roofline-d.svg",
        "results/html/mi300x/roofline-d.html",
        "results/overview/mi300x/roofline-d.parquet",
    ]


def test_group_names_say_what_they_draw_and_nothing_else():
    # "-" is no identifier character; a name taken by another group, or too long, ends in
    # a checksum of its presets and formats alone (so it never depends on the other groups).
    assert group_name(["a100-sxm"], [], set()) == "datasets_on_a100_sxm"
    taken = group_name(["a100.sxm"], [], {"datasets_on_a100_sxm"})
    assert taken.startswith("datasets_on_a100_sxm_") and taken != "datasets_on_a100_sxm"
    assert taken == group_name(["a100.sxm"], [], {"datasets_on_a100_sxm", "other"})
    # Presets that read alike as a name ("." and ":" are no identifier characters) still
    # get two names.
    assert taken != group_name(["a100:sxm"], [], {"datasets_on_a100_sxm"})
    assert group_name(["h100"], ["pdf", "svg"], set()) == "datasets_on_h100_with_pdf_svg"
    long = group_name([f"preset-{i}" for i in range(20)], [], set())
    assert len(long) == NAME_CHARS and long.startswith("datasets_on_preset_0_preset_1")


def test_rule_all_asks_a_batch_for_its_manifest_and_one_missing_file(plan, tmp_path):
    batch = dataset_batches(plan)[0]
    assert asked_for(batch, plan, set()) == [batch.manifest]  # nothing built: the manifest
    every = set(batch.outputs(plan))
    assert asked_for(batch, plan, every) == [batch.manifest]  # all there
    gone = batch.outputs(plan)[5]
    assert asked_for(batch, plan, every - {gone}) == [batch.manifest, gone]
    assert asked_for(batch, plan, None) == batch.outputs(plan)  # not known: all


def test_every_output_of_a_batch_is_listed_by_outputs_on_disk(plan, tmp_path):
    for batch in dataset_batches(plan):
        for path in batch.outputs(plan):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text("x")
    on_disk = outputs_on_disk(plan.all_presets, ("roofline", "benchmarks"))
    assert on_disk is not None
    assert {p for b in dataset_batches(plan) for p in b.outputs(plan)} <= on_disk
    os.symlink("nowhere", "results/plots/h100-sxm/dangling.png")
    assert "results/plots/h100-sxm/dangling.png" not in outputs_on_disk(
        plan.all_presets, ("roofline",))


def test_inputs_are_the_preset_files_not_the_raw_files(plan):
    assert batch_inputs(plan, ("h100-sxm", "mi300x")) == {"hardware": plan.config["hardware"]}
    plan.measured["ert-x"] = {"measured": "resources/ert/x", "measured_files": ["a.json"]}
    assert batch_inputs(plan, ("h100-sxm", "ert-x")) == {
        "hardware": plan.config["hardware"],
        "measured_1": "resources/ert/x",
        "measured_1_files": ["a.json"],
    }


def test_a_fingerprint_changes_with_its_raw_file_and_options_only(plan, tmp_path):
    batch = next(b for b in dataset_batches(plan) if "roofline-a" in b.datasets)
    before = {m.dataset: m.fingerprint for m in members(plan, batch, {}, "1").members}
    os.utime("resources/roofline/a.csv", ns=(1, 1))  # another modification time
    after = {m.dataset: m.fingerprint for m in members(plan, batch, {}, "1").members}
    assert after["roofline-a"] != before["roofline-a"]
    assert {d: f for d, f in after.items() if d != "roofline-a"} == {
        d: f for d, f in before.items() if d != "roofline-a"}
    plan.config["datasets"]["roofline-a"] = {"top_n": 3}
    assert members(plan, batch, {}, "1").members[0].fingerprint != after[
        batch.datasets[0]] or batch.datasets[0] != "roofline-a"
    assert members(plan, batch, {}, "2").digest != members(plan, batch, {}, "1").digest


def test_members_are_not_recorded_by_snakemake(plan):
    """Not a builtin type: Snakemake's records and report skip it (its digest stands for it),
    and it shows as a count."""
    found = members(plan, dataset_batches(plan)[0], {}, "1")
    assert type(found) is Members and str(found) == f"{len(found.members)} datasets"
    assert len(found.digest) == 64


def test_pages_load_the_shared_bokehjs_of_this_bokeh():
    """Every BokehJS bundle, in the folder of the installed Bokeh's version (the batch rules'
    and html_overview's `bokehjs` input, rule bokehjs' output)."""
    import bokeh

    assert bokehjs_files() == [
        f"results/html/bokeh-{bokeh.__version__}/js/{b}.min.js"
        for b in ("bokeh", "bokeh-gl", "bokeh-widgets", "bokeh-tables", "bokeh-mathjax")]
    text = (REPO / "workflow/rules/datasets.smk").read_text()
    assert "bokehjs=ancient(BOKEHJS)" in text and "for _batch in BATCHES:" in text


def build(plan, batch, log_lines):
    from rooflow.defaults import DEFAULT_HARDWARE

    found = members(plan, batch, {}, "1")
    hardware = str(DEFAULT_HARDWARE)
    build_batch(found, batch.presets, batch.formats, [(hardware, None)] * len(batch.presets),
                batch.manifest, log_lines.append, roofs_at="clock", bokehjs=None,
                traceback_file="batch.traceback")


def test_a_batch_remakes_only_the_datasets_that_changed(plan):
    batch = next(b for b in dataset_batches(plan) if "roofline-a" in b.datasets)
    log: list[str] = []
    build(plan, batch, log)
    made = {d: Path(p).stat().st_mtime_ns for d in batch.datasets
            for p in batch.outputs(plan)[1:] if f"-{d.split('-', 1)[1]}." in p or
            p.endswith(f"/{d.split('-', 1)[1]}.parquet")}
    assert log[-1] == f"{len(batch.datasets)} of {len(batch.datasets)} datasets made; the " \
                      "others were up to date"
    entry = read_manifest(batch.manifest)["roofline-a"]
    assert entry["failed"] is None and len(entry["fingerprint"]) == 64
    log.clear()
    build(plan, batch, log)  # nothing changed: nothing made, no file written
    assert log == [f"0 of {len(batch.datasets)} datasets made; the others were up to date"]
    os.utime("resources/roofline/a.csv", ns=(1, 1))
    page = Path("results/html/h100-sxm/roofline-a.html")
    log.clear()
    build(plan, batch, log)
    assert log[-1].startswith("1 of ")
    assert all(line.startswith("roofline-a: ") for line in log[:-1])
    assert page.stat().st_mtime_ns > made["roofline-a"]
    # A missing output remakes its dataset alone, every output of it.
    page.unlink()
    log.clear()
    build(plan, batch, log)
    assert log[-1].startswith("1 of ") and page.exists()


def test_a_dataset_that_fails_is_said_and_the_others_are_made(plan):
    """benchmarks-c cannot be read (its families file is missing here): a failed points file
    and placeholders; its line goes in the manifest, for datasets_read; its batch's other
    datasets are drawn."""
    batch = next(b for b in dataset_batches(plan) if "benchmarks-c" in b.datasets)
    log: list[str] = []
    build(plan, batch, log)
    lines = failed_lines([batch.manifest])
    assert list(lines) == ["benchmarks-c"] and lines["benchmarks-c"].startswith(
        "rooflow: error: config/families.yaml: file not found")
    assert "not built" in Path("results/html/h100-sxm/benchmarks-c.html").read_text()
    for other in set(batch.datasets) - {"benchmarks-c"}:
        assert json.loads(Path(batch.manifest).read_text())[other]["failed"] is None


def test_a_manifest_that_is_no_json_object_remakes_every_dataset(tmp_path):
    path = tmp_path / "m.json"
    for text in ("", "[1, 2]", "{not json", '{"a": 1, "b": {"fingerprint": "x"}}'):
        path.write_text(text)
        assert read_manifest(str(path)) == ({"b": {"fingerprint": "x"}} if "b" in text else {})
    assert read_manifest(str(tmp_path / "none.json")) == {}


def test_a_changed_plot_option_redraws_from_the_points_it_has(plan):
    batch = next(b for b in dataset_batches(plan) if "roofline-a" in b.datasets)
    log: list[str] = []
    build(plan, batch, log)
    points = Path("results/points/roofline/a.parquet")
    read_at = points.stat().st_mtime_ns
    plan.config["datasets"]["roofline-a"] = {"top_n": 1}
    log.clear()
    build(plan, batch, log)
    assert log[-1].startswith("1 of ")
    assert not any("points from" in line for line in log)  # not read again
    assert points.stat().st_mtime_ns == read_at
    assert "roofline-a: 2 points on h100-sxm" in log


def test_a_datasets_overview_rows_are_its_table_on_the_configs_roofs(tmp_path, repo):
    """The overview (rule aggregate, which concatenates these rows) puts every dataset on
    the config's roofs; a dataset's own ``peak_tflops`` is its table's and plot's alone.
    One fp16-tensor kernel at 1,000 FLOP/byte, 500 TFLOP/s on h100-sxm (fp16-tensor 989.4
    TFLOP/s, HBM 3.35 TB/s: ridge 295 FLOP/byte, so compute-bound): 500 / 989.4 = 50.536 %
    of roof on the config's roofs; with peak_tflops 600, 500 / 600 = 83.33 %."""
    from rooflow.io import write_parquet
    from rooflow.points import to_points
    from rooflow.workflow import draw

    path = tmp_path / "points.parquet"
    write_parquet(to_points(pl.DataFrame({
        "kernel": ["k"], "precision": ["fp16-tensor"], "arithmetic_intensity": [1000.0],
        "performance": [500e12], "source": ["s.csv"], "row": [1]})), path)
    options = {"formats": ["png"], "top_n": 40, "series_order": [], "select": None}
    for override, table_pct in ((None, 500 / 989.4 * 100), (600, 500 / 600 * 100)):
        out = tmp_path / str(override)
        out.mkdir()
        target = draw.Target("h100-sxm", str(repo / "config/hardware.yaml"), None,
                             *(str(out / n) for n in ("t.csv", "p.png", "p.html", "o.parquet")))
        draw.draw_dataset(str(path), "roofline-x", [target],
                          options | {"peak_tflops": override}, lambda line: None)
        table = pl.read_csv(out / "t.csv")
        rows = pl.read_parquet(out / "o.parquet")
        assert table["pct_of_roof"][0] == pytest.approx(table_pct)
        assert rows["pct_of_roof"][0] == pytest.approx(50.536, abs=1e-3)  # 500 / 989.4
        assert rows["compute_roof"][0] == 989.4e12
        assert rows.columns == table.columns


def test_a_batch_draws_its_plots_on_one_renderer(plan, monkeypatch):
    # build_batch opens rooflow.plotting.canvas.shared_renderer: every plot of the batch
    # is drawn on one renderer, so the texts its plots share are measured once.
    from rooflow.plotting import roofline

    renderers = []
    real = roofline.save

    def spy(fig, path, fmt, dpi):
        renderers.append(fig.canvas.get_renderer())  # held, so no id is reused
        real(fig, path, fmt, dpi)

    monkeypatch.setattr(roofline, "save", spy)
    batch = next(b for b in dataset_batches(plan) if "roofline-a" in b.datasets)
    build(plan, batch, [])
    assert len(renderers) >= 2 * len(batch.presets)
    assert all(r is renderers[0] for r in renderers)
