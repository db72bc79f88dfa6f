"""Dataset, comparison and preset names that cannot stop a run (issue 32, item 5).

Each is skipped with one warning, or built; the other datasets, the aggregates, summary.md
and the report still build. The names, made at test time:

- ``a{b}.csv``: no dataset name (braces); its skipped line went into the summary rule's
  params, where Snakemake reads ``{b}`` as a wildcard (WildcardError: no summary.md);
- ``run_`` + 24 zeros, ``n`` · 30: Snakemake calls a wildcard value ending in one
  substring 20 times or more *periodic* (PeriodicWildcardError: nothing was built);
- 240 characters: ``roofline-NAME.log.traceback`` is 263 bytes, over a file name's 255
  (the job's temporary file failed with ENAMETOOLONG, blocking summary.md and the report).
"""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest
import yaml
from workflow_copy import REPO, copy_workflow, snakemake

from rooflow.defaults import config_defaults, plot_defaults
from rooflow.io import atomic_path
from rooflow.roofs.datasheet import load_hardware
from rooflow.workflow.planning import Plan, name_problem, periodic_unit, sources

PERIODIC = ["run_" + "0" * 24, "n" * 30, "ab" * 20, "x_" + "12" * 20]
NOT_PERIODIC = ["run_" + "0" * 19, "n" * 19, "ab" * 19 + "a", "flash_attention"]
# 240 characters that repeat nothing: four SHA-256 digests in hex.
LONG = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(4))[:240]


@pytest.mark.parametrize("name", PERIODIC)
def test_periodic_names_as_snakemake_sees_them(name):
    # Snakemake's detector (snakemake.io.PeriodicityDetector): a suffix u·k, k ≥ 20.
    unit = periodic_unit(name)
    assert unit is not None and name.endswith(unit * 20)


@pytest.mark.parametrize("name", NOT_PERIODIC)
def test_names_repeating_less_than_20_times_are_not_periodic(name):
    assert periodic_unit(name) is None


def test_periodic_unit_agrees_with_snakemake():
    from snakemake.io import PeriodicityDetector

    detector = PeriodicityDetector()
    for name in [*PERIODIC, *NOT_PERIODIC, LONG, "a" * 20, "a" * 19, "ab" * 10 + "b" * 20]:
        assert (periodic_unit(name) is None) == (detector.is_periodic(name) is None), name


def test_a_long_name_is_refused_by_the_bytes_of_its_longest_file():
    # roofline-NAME.log.traceback: 9 + 240 + 14 = 263 bytes > 255.
    why = name_problem(f"roofline-{LONG}")
    assert why is not None and "263 bytes" in why
    # 231 characters: 9 + 231 + 14 = 254 bytes, taken.
    assert name_problem(f"roofline-{LONG[:231]}") is None
    # Bytes, not characters: "é" is 2 bytes in UTF-8; 2·100 + 41 + 14 = 255 bytes.
    assert name_problem("é" * 100 + LONG[:41]) is None
    assert name_problem("é" * 100 + LONG[:42]) is not None


def test_sources_skip_what_snakemake_cannot_take(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "resources" / "roofline"
    folder.mkdir(parents=True)
    for name in ("ok", *PERIODIC, LONG):
        (folder / f"{name}.csv").write_text("x\n")
    skipped: list[tuple[str, str]] = []
    found = sources("roofline", "roofline/{name}.csv", skipped=skipped)
    assert list(found) == ["ok"]
    assert sorted(key for key, _ in skipped) == sorted(f"roofline-{n}" for n in
                                                       (*PERIODIC, LONG))
    assert all(line.startswith("skipped roofline-") for _, line in skipped)


def test_plan_skips_periodic_comparisons_and_presets(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "resources" / "roofline"
    folder.mkdir(parents=True)
    (folder / "a.csv").write_text("x\n")
    hardware = dict(load_hardware())
    bad_preset = "h100" + "0" * 20
    hardware[bad_preset] = hardware["h100-sxm"]
    bad = "cmp_" + "x" * 25
    config = {**config_defaults(), "plot_defaults": plot_defaults(),
              "presets": ["h100-sxm", bad_preset],
              "comparisons": {bad: {"baseline": "roofline-a", "new": "roofline-a"},
                              "good": {"baseline": "roofline-a", "new": "roofline-a"}}}
    plan = Plan(config, hardware)
    assert list(plan.comparisons) == ["good"]
    assert plan.all_presets == ["h100-sxm"]
    assert any(line.startswith(f"skipped comparison {bad!r}: it ends in 'x'")
               for line in plan.warnings)
    assert any(line.startswith(f"skipped preset {bad_preset!r}: it ends in '0'")
               for line in plan.warnings)


def test_a_long_target_name_has_a_short_temporary_file(tmp_path):
    """A 250-byte file name is legal; its temporary file's name must be too (ENAMETOOLONG)."""
    target = tmp_path / (LONG + ".tail")[:250]
    with atomic_path(target) as tmp:
        assert len(tmp.name.encode()) <= 255
        tmp.write_text("x")
    assert target.read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


CONFIG = """hardware: config/named.yaml
families: config/families.yaml
presets: [h100-sxm, {bad_preset}]
comparisons:
  {bad_cmp}: {{baseline: roofline-flash_attention, new: roofline-flash_attention_tuned}}
  tuning: {{baseline: roofline-flash_attention, new: roofline-flash_attention_tuned}}
"""


@pytest.mark.workflow
def test_names_that_cannot_stop_a_run(tmp_path):
    work = copy_workflow(tmp_path / "wf", resources=False)
    bad_preset, bad_cmp = "h100" + "0" * 20, "cmp_" + "x" * 25
    data = yaml.safe_load((work / "config/hardware.yaml").read_text())
    data["presets"][bad_preset] = {k: v for k, v in data["presets"]["h100-sxm"].items()
                                   if k != "devices"}
    (work / "config/named.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (work / "config/config.yaml").write_text(CONFIG.format(bad_preset=bad_preset,
                                                           bad_cmp=bad_cmp))
    roofline = work / "resources" / "roofline"
    roofline.mkdir(parents=True)
    for name in ("flash_attention.csv", "flash_attention_tuned.csv"):
        shutil.copy(REPO / "resources/roofline" / name, roofline)
    odd = ["a{b}", "run_" + "0" * 24, "n" * 30, LONG]
    for name in odd:
        shutil.copy(REPO / "resources/roofline/flash_attention.csv", roofline / f"{name}.csv")
    proc = snakemake(work, check=False)
    screen = proc.stdout + proc.stderr
    assert proc.returncode == 0, screen[-4000:]
    assert "Traceback" not in screen and "WildcardError" not in screen
    warnings = [line for line in screen.splitlines() if line.startswith("rooflow: warning:")]
    for name in odd:
        assert sum(name in line for line in warnings) == 1, (name, warnings)
    assert sum(f"comparison {bad_cmp!r}" in line for line in warnings) == 1
    assert sum(f"preset {bad_preset!r}" in line for line in warnings) == 1
    res = work / "results"
    for dataset in ("roofline-flash_attention", "roofline-flash_attention_tuned"):
        assert (res / f"tables/h100-sxm/{dataset}.csv").is_file()
    assert (res / "tables/h100-sxm/all.csv").is_file()
    assert (res / "compare/h100-sxm/tuning.csv").is_file()
    summary = (res / "summary.md").read_text()
    assert "a\\{b\\}" in summary or "a{b}" in summary
    assert not (res / "tables" / bad_preset).exists()
    report = tmp_path / "report.html"
    snakemake(work, "--cores", "1", "--report", str(report), cores=None)
    assert "roofline-flash_attention_tuned" in report.read_text()
    assert not [p for p in work.rglob("*") if len(p.name.encode()) > 255]
    assert os.path.exists(res / "datasets_read.txt")
