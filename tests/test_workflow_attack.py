"""Broken and hostile files in a real Snakemake run (issue 20, items 1, 4, 5, 6 and their
attack cases of item 9): one bad file of each kind beside good datasets, one shared build.

Every good dataset, the per-preset aggregates, summary.md (listing the bad ones) and the
Snakemake report build; the screen holds one line per problem and no traceback; config
text cannot run in the report; hostile names are neutralised in CSV and Markdown; outputs
are 0644 under umask 022; a corrupt intermediate is rebuilt.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import polars as pl
import pytest
import yaml
from test_html import chromium, headless  # noqa: F401 - the browser fixture
from workflow_copy import REPO, copy_workflow, dataset_log, job_counts, snakemake

pytestmark = pytest.mark.workflow

PWN = "document.title='pwned'"
SOURCE = (f"</script><script>{PWN}</script> javascript:alert(1) <img src=x onerror=\"{PWN}\">"
          f"\n\n.. raw:: html\n\n   <script>{PWN}</script>")
CONFIG = f"""hardware: config/evil.yaml
families: config/families.yaml
presets: [evil]
datasets:
  roofline-flash_attention:
    title: "</script><script>{PWN}</script>"
  roofline-hostile:
    presets: [evil, a100-sxm]
comparisons:
  tuning: {{baseline: roofline-flash_attention, new: roofline-flash_attention_tuned}}
  broken: {{baseline: roofline-bad, new: roofline-flash_attention_tuned}}
"""
BAD_LINE = ("rooflow: error: resources/roofline/bad.csv, row 1, column 'tflops': value fails "
            "validation [check: greater_than(0)]")
SPEC_LINE = "rooflow: error: resources/specs/9_Broken.yaml"
GOOD = ["benchmarks-moe_attention", "roofline-flash_attention", "roofline-flash_attention_tuned",
        "roofline-hostile", "specs-1_BatchedMoE", "specs-2_FusedMoE", "specs-3_UnifiedAttention"]
FAILED = ["roofline-bad", "specs-9_Broken"]
NAME_RULE = ("a file name may hold only letters, digits, '_', '.', '-' and must start with a "
             "letter or digit")
NOTHING = "a link to nothing (its target is missing, or a loop)"
SKIPPED = [f"skipped 'resources/roofline/{n}': {NAME_RULE}"
           for n in ("my data.csv", "._flash.csv", ".#flash.csv", "~$flash.csv")] + [
    f"skipped 'resources/roofline/{n}': {NOTHING}"
    for n in ("dangling.csv", "loop_a.csv", "loop_b.csv")] + [
    "skipped 'resources/roofline/fifo.csv': not a regular file (a FIFO, socket or device)"]


def _resources(work: Path) -> None:
    res = work / "resources"
    for kind in ("roofline", "specs", "benchmarks"):
        (res / kind).mkdir(parents=True)
    for name in ("flash_attention.csv", "flash_attention_tuned.csv"):
        shutil.copy(REPO / "resources/roofline" / name, res / "roofline")
    for spec in (REPO / "resources/specs").glob("*.yaml"):
        shutil.copy(spec, res / "specs")
    shutil.copy(REPO / "resources/benchmarks/moe_attention.csv", res / "benchmarks")
    roofline = res / "roofline"
    (roofline / "bad.csv").write_text("series,ai,tflops\nk,10,-5\n")
    (roofline / "hostile.csv").write_text(
        'series,label,ai,tflops\n=HYPERLINK("http://x"),"a|b <b>x</b>",10,1\n')
    for odd in ("my data.csv", "._flash.csv", "~$flash.csv"):  # spaces, macOS, Office
        (roofline / odd).write_text("series,ai,tflops\nk,10,1\n")
    (roofline / ".#flash.csv").symlink_to("user@host.4242:1700000000")  # an Emacs lock
    (roofline / "dangling.csv").symlink_to(work / "nowhere.csv")
    (roofline / "loop_a.csv").symlink_to("loop_b.csv")
    (roofline / "loop_b.csv").symlink_to("loop_a.csv")
    os.mkfifo(roofline / "fifo.csv")
    # A spec of another family: the benchmark CSV (BatchedMoE, FusedMoE, UnifiedAttention)
    # does not read it.
    (res / "specs/9_Broken.yaml").write_text("inputs: [\n")


def _evil_hardware(work: Path) -> None:
    data = yaml.safe_load((work / "config/hardware.yaml").read_text())
    evil = dict(data["presets"]["h100-sxm"])
    evil.pop("devices", None)
    evil.update(name=f"Evil </script><script>{PWN}</script>", source=SOURCE)
    data["presets"]["evil"] = evil
    (work / "config/evil.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """(workflow copy, first run) of good datasets beside one bad file of each kind."""
    work = copy_workflow(tmp_path_factory.mktemp("attacked"), resources=False)
    (work / "config/config.yaml").write_text(CONFIG)
    _evil_hardware(work)
    _resources(work)
    old = os.umask(0o022)
    try:
        proc = snakemake(work, check=False)
    finally:
        os.umask(old)
    return work, proc


def _screen(proc) -> str:
    return proc.stdout + proc.stderr


def test_screen_has_one_line_per_problem_and_no_traceback(attacked):
    _, proc = attacked
    screen = _screen(proc)
    assert proc.returncode == 1, screen[-3000:]
    assert "Traceback" not in screen and 'File "' not in screen
    assert "Error in rule datasets_read" in screen
    assert screen.count(BAD_LINE) == 1 and screen.count(SPEC_LINE) == 1
    assert "rooflow: error: 2 of 9 datasets not built: roofline-bad, specs-9_Broken" in screen
    for line in SKIPPED:
        assert screen.count(f"rooflow: warning: {line}") == 1, line
    assert len(re.findall(r"^Error in rule", screen, re.M)) == 1  # no other job failed


def test_every_good_dataset_the_aggregates_and_the_summary_build(attacked):
    work, _ = attacked
    res = work / "results"
    for dataset in GOOD:
        table = pl.read_csv(res / f"tables/evil/{dataset}.csv")
        assert "kernel" in table.columns and table.height, dataset
        assert (res / f"plots/evil/{dataset}.png").stat().st_size > 20_000, dataset
        assert "Bokeh" in (res / f"html/evil/{dataset}.html").read_text(), dataset
    overview = pl.read_csv(res / "tables/evil/all.csv")
    assert sorted(overview["dataset"].unique()) == GOOD
    assert (res / "plots/evil/all.png").stat().st_size > 20_000
    assert "roofline-hostile" in (res / "html/evil/all.html").read_text()
    assert pl.read_csv(res / "compare/evil/tuning.csv")["status"].to_list()
    summary = (res / "summary.md").read_text()
    not_built = summary[summary.index("## Datasets not built"):summary.index("## Input files")]
    assert "| roofline-bad | " + BAD_LINE.replace("[", r"\[").replace("]", r"\]") in not_built
    assert "| specs-9_Broken | " + SPEC_LINE in not_built
    skipped = summary[summary.index("## Input files skipped"):summary.index("## evil")]
    assert skipped.count("\n- skipped ") == len(SKIPPED)
    assert "my data.csv" in skipped and r"\~$flash.csv" in skipped


def test_a_failed_datasets_outputs_say_why(attacked):
    work, _ = attacked
    res = work / "results"
    for dataset in FAILED:
        table = pl.read_csv(res / f"tables/evil/{dataset}.csv")
        assert table.columns == ["dataset", "error"] and table["dataset"][0] == dataset
        assert table["error"][0].startswith("rooflow: error: resources/")
        assert "not built" in (res / f"html/evil/{dataset}.html").read_text()
        assert (res / f"plots/evil/{dataset}.png").exists()
    broken = pl.read_csv(res / "compare/evil/broken.csv")
    assert broken["error"][0].startswith("baseline roofline-bad: " + BAD_LINE)
    log = dataset_log(work, "roofline-bad")
    assert BAD_LINE in log and "Traceback" not in log


def test_hostile_names_are_neutralised_in_csv_and_markdown(attacked):
    work, _ = attacked
    for path in ("tables/evil/roofline-hostile.csv", "tables/evil/all.csv"):
        text = (work / "results" / path).read_text()
        assert "\"'=HYPERLINK(\"\"http://x\"\")\"" in text, path
        assert not re.search(r'(^|,)"?=', text, re.M), path
    summary = (work / "results/summary.md").read_text()
    # A label with HTML is a code span: shown as written, never a tag (no entity to read).
    assert r"| `a\|b <b>x</b>` |" in summary
    assert "<b>" not in re.sub(r"`[^`]*`", "", summary) and "&lt;" not in summary


def test_outputs_are_0644_under_umask_022(attacked):
    work, _ = attacked
    modes = {p.relative_to(work).as_posix(): stat.S_IMODE(p.stat().st_mode)
             for p in (work / "results").rglob("*") if p.is_file()}
    assert modes and {m for m in modes.values()} == {0o644}, {
        p: oct(m) for p, m in modes.items() if m != 0o644}


@pytest.fixture(scope="module")
def report(attacked, tmp_path_factory) -> Path:
    work, _ = attacked
    path = tmp_path_factory.mktemp("report") / "report.html"
    snakemake(work, "--cores", "1", "--report", str(path), cores=None)
    return path


def test_report_builds_with_failed_datasets_and_escapes_config_text(report):
    text = report.read_text()
    assert "roofline-bad" in text and "roofline-hostile" in text
    # Nothing from hardware.yaml or config.yaml closes the report's <script> blocks, and
    # no caption holds a live link or raw HTML from them.
    assert f"</script><script>{PWN}" not in text
    assert not re.search(r"href=\\?\"javascript", text)
    assert "&lt;/script&gt;&lt;script&gt;document.title" in text  # shown, as text


def test_report_captions_read_as_text_list_every_preset_and_name_rules(report):
    """Issue 34, item 8: the roofs in captions and params read as written (no ``\\/``); the
    landing page names a100-sxm, built for roofline-hostile alone, beside the config's
    preset; batch rules are named by what they draw, then their batch's number."""
    text = report.read_text()
    assert "TFLOP/s, " in text and "GB/s, ridge point" in text
    assert not re.search(r"TFLOP\\+/s", text) and not re.search(r"TFLOP/s\\+,", text)
    assert re.search(r"Presets built \(2: .*?\): a100-sxm, evil\.", text, re.S)
    assert re.search(r"datasets_on_evil_a100_sxm_\d+", text)
    # A batch rule writes many datasets: its captions name none, the labels do.
    assert "Roofline plot of the dataset its" in text and "Analysis table of the dataset" in text
    assert not re.search(r"\bdatasets_\d", text)


@pytest.mark.browser
def test_config_text_does_not_run_in_the_report(report, chromium, tmp_path):  # noqa: F811
    dom = headless(chromium, tmp_path / "profile", report, "--dump-dom")
    title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert title == "Snakemake Report"
    assert "roofline-hostile" in dom  # the report's app did run (the check is not vacuous)


def test_reruns_fail_until_fixed_and_corrupt_points_are_rebuilt(attacked, report):
    work, _ = attacked
    res = work / "results"
    # Only the check reruns, and fails again: a bad input is not forgotten.
    assert job_counts(work) == {"datasets_read": 1, "all": 1}
    # A points file cut short (a killed run, a full disk): rebuilt, never read; the
    # dataset's outputs are rebuilt the same, never removed.
    points = res / "points/roofline/flash_attention.parquet"
    table = res / "tables/evil/roofline-flash_attention.csv"
    before = table.read_bytes()
    points.write_bytes(points.read_bytes()[:100])
    proc = snakemake(work, check=False)
    assert "results/points/roofline/flash_attention.parquet was not a whole Parquet file" in (
        _screen(proc))
    assert re.findall(r"^Error in rule (\S+):", _screen(proc), re.M) == ["datasets_read"]
    assert table.read_bytes() == before
    # Damaged inside (passes the cheap check): the jobs reading it fail with one line each,
    # naming the file of the traceback; no traceback on screen.
    data = bytearray(points.read_bytes())
    data[8:len(data) // 2] = bytes(len(data) // 2 - 8)
    points.write_bytes(bytes(data))
    proc = snakemake(work, check=False)
    screen = _screen(proc)
    assert "Traceback" not in screen and 'File "' not in screen
    internal = re.findall(r"^rooflow: internal error: .*\(details in (\S+)\)$", screen, re.M)
    assert internal, screen[-3000:]
    assert all("Traceback" in (work / p).read_text() for p in internal)
    points.unlink()
    # Fixed: every dataset read, the run succeeds.
    (work / "resources/roofline/bad.csv").write_text("series,ai,tflops\nk,10,5\n")
    (work / "resources/specs/9_Broken.yaml").unlink()
    snakemake(work)
    assert (res / "datasets_read.txt").read_text() == "8 datasets read\n"
    assert "not built" not in (res / "summary.md").read_text()
    assert "kernel" in pl.read_csv(res / "tables/evil/roofline-bad.csv").columns


# Config files: one line before any job ----------------------------------------------------


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> Path:
    work = copy_workflow(tmp_path_factory.mktemp("bare"), resources=False)
    (work / "config/config.yaml").write_text(
        "hardware: config/hw.yaml\nfamilies: config/families.yaml\npresets: [h100-sxm]\n")
    (work / "resources/roofline").mkdir(parents=True)
    (work / "resources/roofline/a.csv").write_text("ai,tflops\n10,1\n")
    return work


@pytest.mark.parametrize("file, content, line", [
    ("config/hw.yaml", b"\xff\xfe\x00\x01binary", "rooflow: error: config/hw.yaml"),
    ("config/hw.yaml", b"presets:\n  x: " + b"[" * 5000 + b"]" * 5000 + b"\n",
     "rooflow: error: config/hw.yaml"),
    ("config/config.yaml", b"\xff\xfe not utf-8", "rooflow: error: config/config.yaml: cannot "
                                                   "be read (UnicodeDecodeError"),
    ("config/config.yaml", b"hardware: config/hardware.yaml\nfamilies: config/families.yaml\n"
                           b"presets: 5\n",
     "rooflow: error: config, key 'presets': 5 is not of type 'array' [check: config schema]"),
])
def test_a_bad_config_file_is_one_line_before_any_job(bare, file, content, line):
    path = bare / file
    kept = path.read_bytes() if path.exists() else None
    path.write_bytes(content)
    try:
        proc = snakemake(bare, "-n", check=False)
    finally:
        if kept is None:
            path.unlink()
        else:
            path.write_bytes(kept)
    lines = [ln for ln in proc.stderr.splitlines()
             if not ln.startswith("Using workflow specific profile")]
    assert proc.returncode == 1
    assert len(lines) == 1 and lines[0].startswith(line), proc.stderr
