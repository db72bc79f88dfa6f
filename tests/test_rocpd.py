"""rocprofv3 rocpd databases (SQLite) → points (issue 35, item 1).

The databases are built with the format's own DDL (tests/data/rocpd/, excerpts of
ROCm/rocprofiler-sdk ``source/share/rocprofiler-sdk-rocpd/*.sql``, MIT) and stdlib sqlite3.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from rooflow.adapters import detect_kind, load_points
from rooflow.adapters.amd.rocpd import collect_hint, read_database
from rooflow.errors import InputError

DDL = Path(__file__).parent / "data" / "rocpd"
UUID = "_00000096_88a3_7f2e_9c41_1b2d3e4f5a6b"
GUID = UUID[1:].replace("_", "-")
CANARY = "ROOFLOW_CANARY_SECRET_7f3a9c"

# One MI300X dispatch (gfx942, wave64). Formulas: rocprof-compute 0400_roofline.yaml /
# roofline_calc.py, as rooflow.adapters.amd.counters writes them:
#   fp32 FLOP = 64·(ADD + MUL + TRANS + 2·FMA) = 64·(100 + 50 + 0 + 2·1000) = 137,600
#   HBM byte (gfx942) = 128·TCC_BUBBLE + 32·RDREQ_32B + 64·(RDREQ − BUBBLE − RDREQ_32B)
#                       + 32·(WRREQ − WRREQ_64B) + 64·WRREQ_64B
#                     = 0 + 0 + 64·1000 + 32·0 + 64·500 = 96,000
#   time = end − start = 1,010,000 − 1,000,000 = 10,000 ns
#   AI = 137,600 / 96,000 = 1.4333 FLOP/byte; 137,600 FLOP / 10 µs = 13.76 GFLOP/s
# TCC_EA0_RDREQ_sum is stored as two rows (600 + 400, e.g. two XCC instances): summed, as the
# schema's counters_collection view does.
COUNTERS = [("SQ_INSTS_VALU_ADD_F32", 100), ("SQ_INSTS_VALU_MUL_F32", 50),
            ("SQ_INSTS_VALU_TRANS_F32", 0), ("SQ_INSTS_VALU_FMA_F32", 1000),
            ("TCC_BUBBLE_sum", 0), ("TCC_EA0_RDREQ_sum", 600), ("TCC_EA0_RDREQ_sum", 400),
            ("TCC_EA0_RDREQ_32B_sum", 0), ("TCC_EA0_WRREQ_sum", 500),
            ("TCC_EA0_WRREQ_64B_sum", 500)]


def _sql(name: str) -> str:
    return (DDL / name).read_text().replace("{{uuid}}", UUID).replace("{{guid}}", GUID)


def build(path: Path, *, views: bool = True, timestamps: bool = False, counters=COUNTERS,
          arch: str = "gfx942", chip: int = 29857) -> Path:
    """A rocpd database: one MI300X agent, dispatch 1 of ``kern`` with ``counters``."""
    con = sqlite3.connect(path)
    con.executescript(_sql("rocpd_tables_v3.sql"))
    if timestamps:
        con.execute(f'DROP TABLE "rocpd_kernel_dispatch{UUID}"')
        con.executescript(_sql("rocpd_tables_timestamp.sql"))
    if views:
        con.executescript(_sql("rocpd_views.sql"))
    t = lambda name: f'"{name}{UUID}"'  # noqa: E731
    con.execute(f"INSERT INTO {t('rocpd_info_node')} (id, hash, machine_id, hostname) "
                "VALUES (1, 7, 'm', 'host')")
    con.execute(f"INSERT INTO {t('rocpd_info_process')} (id, nid, pid, command, environment) "
                "VALUES (1, 1, 4242, ?, ?)",
                (f"./app --token {CANARY}", json.dumps({"API_KEY": CANARY})))
    con.execute(f"INSERT INTO {t('rocpd_info_thread')} (id, nid, pid, tid) VALUES (1, 1, 1, 4242)")
    extdata = json.dumps({"device_id": chip, "wave_front_size": 64, "num_xcc": 8,
                          "max_engine_clk_fcompute": 2100, "cu_count": 304})
    con.execute(f"INSERT INTO {t('rocpd_info_agent')} (id, nid, pid, type, name, product_name, "
                "extdata) VALUES (1, 1, 1, 'CPU', 'EPYC', 'EPYC', '{}'), "
                "(2, 1, 1, 'GPU', ?, 'AMD Instinct MI300X', ?)", (arch, extdata))
    con.execute(f"INSERT INTO {t('rocpd_info_code_object')} (id, nid, pid, agent_id) "
                "VALUES (1, 1, 1, 2)")
    con.execute(f"INSERT INTO {t('rocpd_info_kernel_symbol')} (id, nid, pid, code_object_id, "
                "kernel_name, display_name) VALUES (1, 1, 1, 1, '_Z4kernv.kd', 'kern()'), "
                "(2, 1, 1, 1, '_Z5othervkd', 'other()')")
    con.executemany(f"INSERT INTO {t('rocpd_event')} (id) VALUES (?)", [(1,), (2,)])
    names = sorted({n for n, _ in counters})
    con.executemany(f"INSERT INTO {t('rocpd_info_pmc')} (id, nid, pid, agent_id, name, symbol) "
                    "VALUES (?, 1, 1, 2, ?, ?)", [(i, n, n) for i, n in enumerate(names, 1)])
    con.executemany(f"INSERT INTO {t('rocpd_pmc_event')} (event_id, pmc_id, value) "
                    "VALUES (1, ?, ?)", [(names.index(n) + 1, v) for n, v in counters])
    sizes = "1, 1, 1, 1024, 1, 1"
    if timestamps:
        con.execute(f"INSERT INTO {t('rocpd_track')} (id, nid, pid, agent_id) VALUES (1, 1, 1, 2)")
        con.executemany(f"INSERT INTO {t('rocpd_timestamp')} (id, value, track_id) "
                        "VALUES (?, ?, 1)", [(1, 1_000_000), (2, 1_010_000), (3, 2_000_000),
                                             (4, 2_000_500)])
        con.execute(
            f"INSERT INTO {t('rocpd_kernel_dispatch')} (id, track_id, kernel_id, dispatch_id, "
            "start_id, end_id, workgroup_size_x, workgroup_size_y, workgroup_size_z, "
            f"grid_size_x, grid_size_y, grid_size_z, event_id) VALUES "
            f"(1, 1, 1, 1, 1, 2, {sizes}, 1), (2, 1, 2, 2, 3, 4, {sizes}, 2)")
    else:
        con.execute(
            f"INSERT INTO {t('rocpd_kernel_dispatch')} (id, nid, pid, tid, agent_id, kernel_id, "
            "dispatch_id, queue_id, stream_id, start, end, workgroup_size_x, workgroup_size_y, "
            "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) VALUES "
            f"(1, 1, 1, 1, 2, 1, 1, 1, 0, 1000000, 1010000, {sizes}, 1), "
            f"(2, 1, 1, 1, 2, 2, 2, 1, 0, 2000000, 2000500, {sizes}, 2)")
    con.commit()
    con.close()
    return path


def _check_point(points) -> None:
    hbm = points.filter(points["level"] == "DRAM")
    assert hbm.height == 1
    row = hbm.row(0, named=True)
    assert row["label"] == "kern()" and row["precision"] == "fp32"
    assert row["flop"] == pytest.approx(137_600) and row["bytes"] == pytest.approx(96_000)
    assert row["arithmetic_intensity"] == pytest.approx(137_600 / 96_000)
    assert row["performance"] == pytest.approx(13.76e9)
    assert row["device"] == "MI300X"


@pytest.mark.parametrize("views", [True, False], ids=["views", "guid-tables"])
@pytest.mark.parametrize("timestamps", [False, True], ids=["inline-times", "timestamp-table"])
def test_dispatch_with_known_counters_by_hand(tmp_path: Path, views: bool, timestamps: bool,
                                              caplog: pytest.LogCaptureFixture) -> None:
    db = build(tmp_path / "4242_results.db", views=views, timestamps=timestamps)
    assert detect_kind(db) == "rocprofv3"
    with caplog.at_level(logging.WARNING):
        points = load_points("rocprofv3", db)
    _check_point(points)
    # Dispatch 2 ('other()') has no counter rows: left out, said in the log.
    assert "other()" not in points["label"].to_list()
    assert "1 of 2 dispatches have no counter values" in caplog.text


def test_reading_never_writes_beside_the_database(tmp_path: Path) -> None:
    folder = tmp_path / "run dir?#1"  # characters a URI must escape
    folder.mkdir()
    db = build(folder / "4242_results.db")
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())
    folder.chmod(0o555)  # a read-only folder: a journal or -wal file could not even be made
    try:
        detect_kind(db)
        load_points("rocprofv3", db)
    finally:
        folder.chmod(0o755)
    after = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())
    assert after == before


def test_process_environment_and_command_never_leave_the_file(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture) -> None:
    from rooflow.cli.main import main

    db = build(tmp_path / "4242_results.db")
    with caplog.at_level(logging.DEBUG):
        points = load_points("rocprofv3", db)
        nocounters = build(tmp_path / "empty_results.db", counters=[])
        with pytest.raises(InputError) as err:
            read_database(nocounters)
        code = main(["convert", str(db), "-o", str(tmp_path / "out.csv")])
        amd = main(["from-rocprof", str(db), "-o", str(tmp_path / "amd.csv")])
    assert not code and not amd  # None or 0: success
    out = capsys.readouterr()
    texts = [caplog.text, out.out, out.err, str(err.value), points.write_csv(),
             (tmp_path / "out.csv").read_text(), (tmp_path / "amd.csv").read_text()]
    assert "kern()" in texts[-1]
    assert not any(CANARY in text for text in texts)


@pytest.mark.parametrize(("arch", "chip", "wanted", "unwanted"), [
    ("gfx90a", 29704, "TCC_EA_RDREQ_sum", "TCC_EA0_RDREQ_sum"),
    ("gfx942", 29857, "TCC_EA0_RDREQ_sum", "TCC_EA_RDREQ_sum"),
    ("gfx950", 30112, "TCC_EA0_RDREQ_128B_sum", "TCC_EA_RDREQ_sum"),
    ("gfx1100", 0, "FETCH_SIZE WRITE_SIZE", "TCC_EA0"),
])
def test_dispatches_without_counters_name_the_counters_of_the_files_gpu(
        tmp_path: Path, arch: str, chip: int, wanted: str, unwanted: str) -> None:
    db = build(tmp_path / "k_results.db", counters=[], arch=arch, chip=chip)
    with pytest.raises(InputError) as err:
        read_database(db)
    message = str(err.value)
    assert "\n" not in message
    assert "2 kernel dispatches but no counter values" in message
    assert f"rocprofv3 --pmc {collect_hint(arch).split('--pmc ')[1]}" in message
    assert wanted in message and unwanted not in message
    assert arch in message


def test_a_database_without_rocpd_tables_is_refused_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "x_results.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (a)")
    con.close()
    with pytest.raises(InputError) as err:
        read_database(db)
    assert "no rocpd_kernel_dispatch table" in str(err.value)
    with pytest.raises(InputError):
        detect_kind(db)


def test_gfx_target_from_generic_name_when_name_is_a_users_label(tmp_path: Path) -> None:
    # Later rocpd_tables.sql versions keep `name` for a user-provided name and add
    # `generic_name`: the gfx target is taken from whichever column holds one.
    db = build(tmp_path / "g_results.db", counters=[], arch="gfx90a", chip=29704)
    con = sqlite3.connect(db)
    con.execute(f'ALTER TABLE "rocpd_info_agent{UUID}" ADD COLUMN generic_name TEXT')
    con.execute(f"UPDATE \"rocpd_info_agent{UUID}\" SET generic_name = name, "
                "name = 'my favourite GPU' WHERE type = 'GPU'")
    con.commit()
    con.close()
    with pytest.raises(InputError) as err:
        read_database(db)
    assert "gfx90a" in str(err.value) and "TCC_EA_RDREQ_sum" in str(err.value)
