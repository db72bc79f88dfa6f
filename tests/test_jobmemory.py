"""The memory each workflow job declares (rooflow.workflow.jobmemory), and the peak in its log."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from rooflow.workflow import jobmemory
from rooflow.workflow.jobmemory import (
    draw_mem_mb,
    input_bytes,
    points_job_mem_mb,
    points_mem_mb,
    points_rows,
    project_mem_mb,
)


def test_points_mem_mb_grows_with_the_input_bytes(monkeypatch):
    monkeypatch.setattr(jobmemory, "POINTS_BASE_MB", 1000)
    monkeypatch.setattr(jobmemory, "POINTS_MB_PER_INPUT_MB", 4.0)
    assert points_mem_mb(0) == 1000
    # 300 MB of CSV: 1000 + 4 × 300 = 2200
    assert points_mem_mb(300 * 2**20) == 2200
    # 1 byte over a step: 1000 + 4 × 2⁻²⁰ MB, rounded up to the next 100
    assert points_mem_mb(1) == 1100


def test_draw_mem_mb_grows_with_the_rows(monkeypatch):
    monkeypatch.setattr(jobmemory, "DRAW_BASE_MB", 1000)
    monkeypatch.setattr(jobmemory, "DRAW_MB_PER_MILLION_ROWS", 600.0)
    assert draw_mem_mb(0) == 1000
    # 5 M rows: 1000 + 600 × 5 = 4000
    assert draw_mem_mb(5_000_000) == 4000
    # 1,000 rows: 1000 + 0.6 = 1000.6 → 1100
    assert draw_mem_mb(1_000) == 1100


def test_points_job_counts_a_parquet_by_its_rows(tmp_path):
    # A 10⁶-row Parquet of one float column (≈ 8 MB) and a 20 MiB CSV beside it:
    # 1000 + 4.5 × 20 + 180 × 1 = 1270 → 1300; the Parquet's bytes count nothing.
    table = tmp_path / "t.parquet"
    pl.DataFrame({"x": range(1_000_000)}, schema={"x": pl.Float64}).write_parquet(table)
    (tmp_path / "t.csv").write_bytes(b"x" * 20 * 2**20)
    assert points_job_mem_mb([table, tmp_path / "t.csv"]) == 1300
    # Alone: 1000 + 180 = 1180 → 1200; by its bytes it was 1000 + 4.5 × ≈ 8 → 1100
    assert points_job_mem_mb([table], "roofline") == 1200
    # A file named .parquet that is none: its job fails on it; it counts nothing
    (tmp_path / "junk.parquet").write_text("not parquet")
    assert points_job_mem_mb([tmp_path / "junk.parquet"]) == 1000


def test_the_rules_resource_callables_read_their_jobs_files(tmp_path):
    """What the rules declare (Snakemake passes wildcards and input files by name): the
    same 10⁶-row Parquet as above, with the rule's other inputs (hardware.yaml) beside it.
    analysis: 1000 + 1700 × 1 = 2700; project on 3 presets: 1000 + 700 × 1 + 440 × 1 × 3 =
    3020 → 3100; an aggregate over it (its input the batches' manifests): 2700, and not
    known (Snakemake asks again) while a manifest is missing."""
    from types import SimpleNamespace

    table = tmp_path / "t.parquet"
    pl.DataFrame({"x": range(1_000_000)}, schema={"x": pl.Float64}).write_parquet(table)
    (tmp_path / "hardware.yaml").write_text("presets: {}\n")
    files = [str(table), str(tmp_path / "hardware.yaml")]
    wildcards = SimpleNamespace(preset="h100-sxm")
    assert jobmemory.analysis_job(wildcards, files) == 2700
    assert jobmemory.project_job(files, {"presets": ["a", "b", "c"]}) == 3100
    aggregate = jobmemory.preset_job(lambda w: [str(table)])
    manifest = tmp_path / "m.json"
    with pytest.raises(FileNotFoundError):
        aggregate(wildcards, [str(manifest)])
    manifest.write_text("{}")
    assert aggregate(wildcards, [str(manifest)]) == 2700


def test_a_batch_declares_what_its_largest_dataset_needs(tmp_path, monkeypatch):
    """Read one after the other: the most of any dataset, reading or drawing. A 4 MB CSV
    not read yet counts 4 × 2²⁰ ÷ 40 = 104,857.6 → 104,857 rows: drawing 1000 + 1700 ×
    0.104857 = 1178.3 → 1200; reading 1000 + 4.5 × 4 = 1018 → 1100. Once its points
    file (10 rows) is newer: drawing 1000 + 0.017 → 1100."""
    from types import SimpleNamespace

    from rooflow.workflow.batches import Member, Members

    big, small = tmp_path / "big.csv", tmp_path / "small.csv"
    big.write_bytes(b"x" * 4 * 2**20)
    small.write_text("x\n")
    found = Members(tuple(Member(f"roofline-{p.stem}", "roofline", p.stem, {"raw": str(p)}, {},
                                 "") for p in (big, small)))
    mem_mb = jobmemory.batch_job(found)
    monkeypatch.chdir(tmp_path)
    assert mem_mb(SimpleNamespace()) == 1200
    points = tmp_path / "results/points/roofline/big.parquet"
    points.parent.mkdir(parents=True)
    pl.DataFrame({"x": range(10)}).write_parquet(points)
    assert mem_mb(SimpleNamespace()) == 1100
    assert jobmemory.batch_runtime(62, 4) == 288  # 10 × 4 + 62 × 4


def test_parquet_points_declared_half_again_over_the_measured_growth():
    # rooflow convert, 2026-11-28 (bench/NOTES.md): 10⁶ rows of bench/generate.py's
    # points_frame, 16 MB of Parquet, peaked at 204 MB (≈ 85 MB of it the program alone);
    # bench/memory.py's points job of the 10⁷ rows (154 MB of Parquet) 1,325 MB:
    # 1000 + 180 × 10 = 2800 ≥ 1.5 × 1325 = 1987.5.
    assert points_mem_mb(0, "roofline", 10_000_000) >= 1.5 * 1325
    # By its 154 MB the same file declared 1000 + 4.5 × 154 → 1700 < 1.5 × 1325.
    assert points_mem_mb(154 * 2**20) < 1.5 * 1325


def test_project_mem_mb_grows_with_rows_and_presets():
    # 1000 + 700 × 10 + 440 × 10 × 4 = 25,600 (10⁷ rows on four presets)
    assert project_mem_mb(10_000_000, 4) == 25_600
    # One preset more: + 440 × 10 = 4,400
    assert project_mem_mb(10_000_000, 5) == 30_000
    # 1,000 rows on one preset: 1000 + 0.7 + 0.44 = 1001.14 → 1100
    assert project_mem_mb(1_000, 1) == 1100


def test_project_mem_mb_covers_the_measured_peaks_half_again():
    # bench/memory.py and rooflow project, 2026-11-28 (bench/NOTES.md): the workflow's
    # project job of 10⁷ rows on two presets peaked at 10,729 MB; rooflow project of
    # 10⁶ rows at 770 MB on one preset, 1,649 MB on four.
    assert project_mem_mb(10_000_000, 2) >= 1.5 * 10_729  # 1000 + 7000 + 8800 = 16,800
    assert project_mem_mb(1_000_000, 1) >= 1.5 * 770  # 1000 + 700 + 440 → 2,200
    assert project_mem_mb(1_000_000, 4) >= 1.5 * 1_649  # 1000 + 700 + 1760 → 3,500
    # The rate of the other analysis jobs falls short: 1000 + 1700 × 10 = 18,000 against
    # 184 + 2 × (10,729 − 184) = 21,274 MB at four presets.
    assert draw_mem_mb(10_000_000) < 184 + 2 * (10_729 - 184)


def test_input_bytes_counts_files_not_folders(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"x" * 10)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "b.csv").write_bytes(b"y" * 5)
    paths = [tmp_path / "a.csv", tmp_path / "run", tmp_path / "run" / "b.csv"]
    assert input_bytes(paths) == 15  # 10 + 5, the folder itself nothing
    missing = str(tmp_path / "gone.csv")
    with pytest.raises(FileNotFoundError) as err:
        input_bytes([missing])
    assert err.value.filename == missing  # Snakemake matches it to the job's inputs


def test_points_rows_from_the_footer(tmp_path):
    from rooflow.workflow.failed import write_failed

    good = tmp_path / "good.parquet"
    pl.DataFrame({"x": [1.0, 2.0, 3.0]}).write_parquet(good)
    assert points_rows(good) == 3
    failed = tmp_path / "failed.parquet"
    write_failed(failed, "rooflow: error: x.csv: bad")
    assert points_rows(failed) == 0
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    assert points_rows(junk) == 0  # the job reading it says why
    missing = str(tmp_path / "gone.parquet")
    with pytest.raises(FileNotFoundError) as err:
        points_rows(missing)
    assert err.value.filename == missing


def test_rows_of_many_parquets_are_their_footers_sum(tmp_path):
    """An aggregate's rows files counted in one scan: 3 + 0 (a failed dataset's) + 2 = 5;
    a file that is no Parquet among them counts 0, the others still counted; a CSV is not
    counted; a missing file is named."""
    from rooflow.workflow.failed import write_failed
    from rooflow.workflow.jobmemory import rows_of_parquets

    files = [tmp_path / "a.parquet", tmp_path / "failed.parquet", tmp_path / "b.parquet"]
    pl.DataFrame({"x": [1.0, 2.0, 3.0]}).write_parquet(files[0])
    write_failed(files[1], "rooflow: error: x.csv: bad")
    pl.DataFrame({"y": ["p", "q"]}).write_parquet(files[2])  # another schema
    (tmp_path / "t.csv").write_text("x\n1\n")
    assert rows_of_parquets([*files, tmp_path / "t.csv"]) == 5
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    assert rows_of_parquets([*files, junk]) == 5
    missing = str(tmp_path / "gone.parquet")
    with pytest.raises(FileNotFoundError) as err:
        rows_of_parquets([*files, missing])
    assert err.value.filename == missing


def test_rule_script_log_ends_with_its_peak_rss(tmp_path):
    # A job that holds a 200 MB buffer peaks above 200 MB; one that fails logs one line.
    code = ("from rooflow.workflow.rulescript import run\nfrom rooflow.errors import InputError\n"
            "def step(log):\n    buffer = bytearray(200 * 2**20)\n    buffer[::4096] = b'x' * "
            "len(buffer[::4096])\n"
            "run(step, 'ok.log')\n")
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, timeout=60)
    last = (tmp_path / "ok.log").read_text().splitlines()[-1]
    assert last.startswith("peak RSS ") and last.endswith(" MB")
    assert int(last.split()[2]) > 200
    code = ("from rooflow.workflow.rulescript import run\nfrom rooflow.errors import InputError\n"
            "def step(log):\n    raise InputError('x.csv', 'bad')\n"
            "run(step, 'bad.log')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=60)
    assert proc.returncode == 1
    assert (tmp_path / "bad.log").read_text() == "rooflow: error: x.csv: bad\n"


def test_declared_memory_covers_the_measured_peaks_half_again():
    # bench/memory.py on 2026-11-24 (bench/NOTES.md), 5 M rows from a 336 MB CSV: the
    # points job peaked at 1,083 MB, the draw job (four presets) at 4,807 MB.
    assert points_mem_mb(336 * 2**20) >= 1.5 * 1083  # 1000 + 4.5 × 336 → 2600
    assert draw_mem_mb(5_000_000) >= 1.5 * 4807  # 1000 + 1700 × 5 = 9500
    # bench/memory.py on 2026-11-28, 10⁷ rows: html_overview of 10,001,000 rows peaked at
    # 11,346 MB alone (150 MB on a few rows): (11,346 − 150) / 10.001 = 1,120 MB per
    # million rows, × 1.5 = 1,680; the draw job (four presets) 10,708 MB
    assert draw_mem_mb(10_001_000) == 18_100  # 1000 + 1700 × 10.001 = 18,001.7 → 18,100
    assert draw_mem_mb(10_001_000) >= 150 + 1.5 * (11_346 - 150)  # 16,944
    assert draw_mem_mb(10_000_000) >= 250 + 1.5 * (10_708 - 250)  # 18,000 ≥ 15,937
