"""rocprof-compute analysis databases (SQLite) → points and a preset (issue 35, item 2).

Schema: ROCm/rocm-systems @ d4aec3e6 : projects/rocprofiler-compute/src/utils/analysis_orm.py;
the synthetic databases take their DDL from the shared real one
(../shared/data/rocprof-compute-db/, SOURCES.md), as rocprof-compute 3.5 wrote it.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

from rooflow.adapters import detect_kind, load_points
from rooflow.errors import InputError
from rooflow.roofs import peaks_source
from rooflow.roofs.computedb import computedb_preset

REAL = "rocprof-compute-db/mi350-montecarlo-pi/rocprof_compute_23ed6f36.db"
CANARY = "ROOFLOW_CANARY_cmdline_91b2"

pytestmark = pytest.mark.shared


def test_real_database_kernels_by_hand(shared_data: Path,
                                       caplog: pytest.LogCaptureFixture) -> None:
    db = shared_data / REAL
    assert detect_kind(db) == "rocprof"
    with caplog.at_level(logging.WARNING):
        points = load_points("rocprof", db)
    sobol = points.filter(
        points["label"].str.starts_with("void rocrand_impl::host::generate_sobol"))
    by_level = {r["level"]: r for r in sobol.iter_rows(named=True)}
    # compute_kernel_roofline_data: total_flops is a RATE (GFLOP/s), the *_cache_data columns
    # are intensities (FLOP/byte). One dispatch of 8,960 ns (compute_dispatch):
    #   FLOP = 468.1142857 GFLOP/s × 8,960 ns = 4,194,304 (= metric 11.3.0 FLOPs (Total))
    #   HBM bytes = 4,194,304 / 0.498687384 = 8,410,688; L2 / 0.498054475 = 8,421,376;
    #   vL1D / 0.470588235 (= 8/17) = 8,912,896
    assert set(by_level) == {"DRAM", "L2", "L1"}  # lds_cache_data only from schema 1.4.0
    assert by_level["DRAM"]["flop"] == pytest.approx(4_194_304)
    assert by_level["DRAM"]["bytes"] == pytest.approx(8_410_688)
    assert by_level["L2"]["bytes"] == pytest.approx(8_421_376)
    assert by_level["L1"]["bytes"] == pytest.approx(8_912_896)
    assert by_level["DRAM"]["performance"] == pytest.approx(468.1142857e9)
    assert by_level["DRAM"]["precision"] == "fp32"  # only VALU FLOPs (F32) has a rate
    assert by_level["DRAM"]["device"] == "MI350X"  # gpu_chip_id 30112
    # The rocPRIM reduce kernel ran twice (334,844 + 467,645 = 802,489 ns) with 3,276,800
    # FLOP each: Σ FLOP / Σ time = 6,553,600 / 802,489 ns = 8.16659 GFLOP/s, total_flops.
    # Its Roofline-panel Value 8.3965 is the mean of the two dispatches' rates
    # ((9.7861 + 7.0070) / 2) and must not be taken as the kernel's rate.
    reduce = points.filter(points["label"].str.contains("TransformInputIterator")
                           & (points["level"] == "DRAM")).row(0, named=True)
    assert reduce["flop"] == pytest.approx(6_553_600)
    assert reduce["performance"] == pytest.approx(8.16659169e9)
    # Three kernels have total_flops 0 (and intensities 0): no bytes to recover, left out.
    assert "3 kernel(s) left out, no FLOP" in caplog.text
    assert "__amd_rocclr_initHeap" in caplog.text


def test_real_database_peaks_are_a_preset(shared_data: Path) -> None:
    db = shared_data / REAL
    assert peaks_source(db).prefix == "rocprofdb"
    preset = computedb_preset(db)
    # roofline_bench_extdata: FP32Flops 137,432.92 GFLOP/s → 137.43 TFLOP/s; HBMBw GB/s as is.
    assert preset["compute"]["fp32"] == pytest.approx(137.43291976)
    assert preset["compute"]["fp8-tensor"] == pytest.approx(2209.648866)
    assert preset["compute"]["bf16-tensor"] == pytest.approx(1127.5923613)
    assert preset["memory"] == pytest.approx({"HBM": 4885.545016, "L2": 31385.777278,
                                              "L1": 34731.918579, "LDS": 55317.769492})
    assert preset["empirical"] is True
    assert "fp16" not in preset["compute"]  # FP16Flops: no AMD fp16 vector roof (counters.py)


def _ddl(shared_data: Path) -> list[str]:
    con = sqlite3.connect(f"file:{shared_data / REAL}?mode=ro&immutable=1", uri=True)
    try:
        return [s for (s,) in con.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL")]
    finally:
        con.close()


def build(path: Path, ddl: list[str], *, hbm_ai: float = 0.5) -> Path:
    """One kernel, two dispatches (1,000 + 3,000 ns), VALU and MFMA F32 rates."""
    con = sqlite3.connect(path)
    for statement in ddl:
        con.execute(statement)
    sys_info = {"gpu_arch": "gfx942", "gpu_chip_id": 29857, "gpu_model": "MI300",
                "command": f"./app --password {CANARY}", "hostname": CANARY}
    con.execute("INSERT INTO compute_workload VALUES (1, 'w', 'MI300', ?, ?, '{}')",
                (json.dumps(sys_info), json.dumps({"HBMBw": 5000.0})))
    con.execute("INSERT INTO compute_metadata VALUES (1, '3.5.0', 'x', '1.3.0')")
    con.execute("INSERT INTO compute_kernel VALUES (1, 1, 'gemm')")
    con.executemany("INSERT INTO compute_dispatch VALUES (?, 1, ?, 0, ?, ?)",
                    [(1, 0, 10_000, 11_000), (2, 1, 20_000, 23_000)])
    con.execute("INSERT INTO compute_kernel_roofline_data VALUES (1, 1, 2.0, 0.25, 0, ?)",
                (hbm_ai,))
    con.executemany("INSERT INTO compute_metric_definition (metric_uuid, workload_id, name, "
                    "metric_id, table_name, unit) VALUES (?, 1, ?, ?, 'Roofline', 'Gflop/s')",
                    [(1, "VALU FLOPs (F32)", "4.1.1"), (2, "MFMA FLOPs (F32)", "4.1.4")])
    con.executemany("INSERT INTO compute_kernel_metric_value VALUES (?, ?, 1, ?, ?)",
                    [(1, 1, "Value", 3.0), (2, 2, "Value", 1.0),
                     (3, 1, "Peak (Empirical)", 999.0)])
    con.commit()
    con.close()
    return path


def test_units_total_flops_is_a_rate_and_intensities_give_bytes(
        shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture,
        caplog: pytest.LogCaptureFixture) -> None:
    from rooflow.cli.main import main

    folder = tmp_path / "wl"
    folder.mkdir()
    db = build(folder / "rocprof_compute_1.db", _ddl(shared_data))
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())
    folder.chmod(0o555)
    try:
        with caplog.at_level(logging.DEBUG):
            points = load_points("rocprof", db)
            code = main(["convert", str(db), "-o", str(tmp_path / "out.csv")])
    finally:
        folder.chmod(0o755)
    after = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())
    assert after == before  # read-only: no -journal / -wal beside it, file unchanged
    assert not code
    # time = 1,000 + 3,000 = 4,000 ns; FLOP = 2.0 GFLOP/s × 4,000 ns = 8,000 (not 2: a rate)
    # HBM bytes = 8,000 / 0.5 FLOP/byte = 16,000; vL1D 8,000 / 0.25 = 32,000; L2 intensity 0:
    # no L2 point. Split by the Roofline rates 3 : 1 → fp32 6,000, fp32-matrix 2,000.
    rows = {r["level"]: r for r in points.iter_rows(named=True)}
    assert set(rows) == {"DRAM", "L1"}
    assert rows["DRAM"]["flop"] == pytest.approx(8_000)
    assert rows["DRAM"]["bytes"] == pytest.approx(16_000)
    assert rows["L1"]["bytes"] == pytest.approx(32_000)
    assert rows["DRAM"]["performance"] == pytest.approx(2.0e9)
    assert rows["DRAM"]["precision"] == "fp32"
    assert "fp32-matrix" in rows["DRAM"]["precision_mix"]
    assert rows["DRAM"]["device"] == "MI300X"  # gpu_chip_id 29857 wins over gpu_model MI300
    out = capsys.readouterr()
    texts = [out.out, out.err, caplog.text, points.write_csv(), (tmp_path / "out.csv").read_text()]
    assert not any(CANARY in t for t in texts)  # sys_info's command and hostname never read


def test_a_negative_intensity_is_one_line_naming_the_column(shared_data: Path,
                                                            tmp_path: Path) -> None:
    db = build(tmp_path / "rocprof_compute_2.db", _ddl(shared_data), hbm_ai=-1.0)
    with pytest.raises(InputError) as err:
        load_points("rocprof", db)
    message = str(err.value)
    assert "hbm_cache_data" in message and "-1" in message and "\n" not in message


def test_a_copy_of_the_real_database_is_left_unchanged(shared_data: Path,
                                                       tmp_path: Path) -> None:
    db = tmp_path / "rocprof_compute_23ed6f36.db"
    shutil.copyfile(shared_data / REAL, db)
    data = db.read_bytes()
    load_points("rocprof", db)
    computedb_preset(db)
    assert db.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == [db.name]
