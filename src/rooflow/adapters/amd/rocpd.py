"""rocprofv3 databases (rocpd, ``--output-format rocpd``, the default from ROCm 7) → points.

``rocprofv3 --pmc C1 C2 ... -- app`` writes one SQLite file per process,
``%hostname%/%pid%_results.db``. Its definition: ROCm/rocprofiler-sdk
``source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql`` (@50c89cbd: ``schema_version`` 3;
@19d33bb3: times in a ``rocpd_timestamp`` table), ``rocpd_views.sql`` and ``data_views.sql``
(@fbb1b80d: the ``counters_collection`` view). What is read, and how:

* Every table's name carries the file's GUID (``rocpd_kernel_dispatch_<guid>``) and an
  un-suffixed view of the same name covers it (``rocpd_views.sql``). The view is read when
  present, else the suffixed tables (several GUIDs: all of them); every join is on ``id``
  AND ``guid``, as the schema's own views join.
* A dispatch: ``rocpd_kernel_dispatch`` (``dispatch_id``, ``kernel_id`` →
  ``rocpd_info_kernel_symbol`` ``display_name`` / ``kernel_name``, ``event_id``). Its time
  is ``end − start`` (ns): inline ``start`` / ``end`` columns (schema 3), or ``start_id`` /
  ``end_id`` → ``rocpd_timestamp.value`` (the variant with a timestamp table); which one is
  found from the table's columns, not from ``schema_version``. Its GPU: ``agent_id``, or
  ``track_id`` → ``rocpd_track.agent_id`` in the timestamp variant.
* A counter value: ``rocpd_pmc_event`` (``event_id``, ``pmc_id`` → ``rocpd_info_pmc.name``,
  ``value``) belongs to the dispatch with the same ``event_id`` and ``guid``; several rows
  of one dispatch and counter are summed, as the ``counters_collection`` view does.
* The GPU: ``rocpd_info_agent`` ``name`` (gfx target) picks the formulas
  (:mod:`rooflow.adapters.amd.counters`), ``extdata`` ``device_id`` (PCI id) names the
  GPU (else ``product_name``), ``wave_front_size`` the VALU lanes, and
  ``max_engine_clk_fcompute`` (MHz) / ``num_xcc`` give a time from ``GRBM_GUI_ACTIVE``
  when ``end = start``, as for the CSV (:mod:`.rocprofv3`).

``rocpd_info_process`` (the profiled process's whole environment and command line) is never
read: every query names its columns. A database with dispatches but no counters gives one
line naming the ``rocprofv3 --pmc`` counters to collect for its own GPU; a dispatch
without counters in a database that has some is left out, with a note.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import polars as pl

from rooflow.adapters.amd.counters import (
    CHIP_IDS,
    HBM_KIB,
    canonical_columns,
    gfx_target,
    plan,
    roofline_counters,
    wave_size,
)
from rooflow.adapters.amd.kernels import Dispatches, checked_dispatches
from rooflow.adapters.amd.rocprof import cycle_time
from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.formats import sqlitedb
from rooflow.settings import Settings

DURATION = "End_Timestamp - Start_Timestamp"
_AGENT_KEYS = ("device_id", "wave_front_size", "max_engine_clk_fcompute", "num_xcc")
"""``rocpd_info_agent.extdata`` keys read (the agent's HSA properties)."""


def _source(con: sqlite3.Connection, have: dict[str, str], table: str, path: Path) -> str:
    """SQL naming ``table``: its un-suffixed view, else the union of its GUID tables.

    Raises:
        InputError: neither the view nor a suffixed table exists.
    """
    if table in have:
        return f'"{table}"'
    suffixed = sorted(n for n in have if re.fullmatch(rf"{table}_[0-9A-Fa-f_]+", n))
    if not suffixed:
        raise InputError(str(path), f"no {table} table (nor a {table}_<guid> one): not a "
                         "rocpd database of rocprofv3", check="rocpd tables")
    if len(suffixed) == 1:
        return f'"{suffixed[0]}"'
    cols = ", ".join(f'"{c}"' for c in sqlitedb.columns(con, suffixed[0]))
    return "(" + " UNION ALL ".join(f'SELECT {cols} FROM "{n}"' for n in suffixed) + ")"


def _frame(con: sqlite3.Connection, sql: str, names: list[str], path: Path) -> pl.DataFrame:
    try:
        rows = con.execute(sql).fetchall()
    except sqlite3.Error as err:
        raise InputError(str(path), f"rocpd query failed ({err}): not the rocpd schema",
                         check="rocpd schema") from None
    return pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None)


def _dispatches(con: sqlite3.Connection, have: dict[str, str], path: Path) -> pl.DataFrame:
    """guid, dispatch (id), event_id, agent_id, Kernel_Name, start, end: one row per dispatch."""
    table = _source(con, have, "rocpd_kernel_dispatch", path)
    first = "rocpd_kernel_dispatch" if "rocpd_kernel_dispatch" in have else next(
        n for n in sorted(have) if n.startswith("rocpd_kernel_dispatch_"))
    cols = set(sqlitedb.columns(con, first))
    symbol = _source(con, have, "rocpd_info_kernel_symbol", path)
    joins = (f"LEFT JOIN {symbol} S ON S.id = K.kernel_id AND S.guid = K.guid")
    if {"start", "end"} <= cols:
        times = 'K."start", K."end"'
    elif {"start_id", "end_id"} <= cols:
        stamp = _source(con, have, "rocpd_timestamp", path)
        times = "T0.value, T1.value"
        joins += (f" LEFT JOIN {stamp} T0 ON T0.id = K.start_id AND T0.guid = K.guid"
                  f" LEFT JOIN {stamp} T1 ON T1.id = K.end_id AND T1.guid = K.guid")
    else:
        raise InputError(str(path), "rocpd_kernel_dispatch has neither start/end nor "
                         "start_id/end_id columns", check="rocpd schema")
    if "agent_id" in cols:
        agent = "K.agent_id"
    elif "track_id" in cols:
        track = _source(con, have, "rocpd_track", path)
        agent = "TR.agent_id"
        joins += f" LEFT JOIN {track} TR ON TR.id = K.track_id AND TR.guid = K.guid"
    else:
        raise InputError(str(path), "rocpd_kernel_dispatch has neither agent_id nor track_id",
                         check="rocpd schema")
    sql = (f"SELECT K.guid, K.id, K.dispatch_id, K.event_id, {agent}, "
           f"COALESCE(S.display_name, S.kernel_name), {times} FROM {table} K {joins} "
           "ORDER BY K.guid, K.id")
    return _frame(con, sql, ["guid", "row", "Dispatch_Id", "event_id", "agent_id",
                             "Kernel_Name", "Start_Timestamp", "End_Timestamp"], path)


def _counters(con: sqlite3.Connection, have: dict[str, str], path: Path) -> pl.DataFrame:
    """guid, event_id, counter, value (summed per dispatch event and counter name)."""
    events = _source(con, have, "rocpd_pmc_event", path)
    info = _source(con, have, "rocpd_info_pmc", path)
    sql = (f"SELECT E.guid, E.event_id, P.name, SUM(E.value) FROM {events} E "
           f"JOIN {info} P ON P.id = E.pmc_id AND P.guid = E.guid "
           "GROUP BY E.guid, E.event_id, P.name")
    return _frame(con, sql, ["guid", "event_id", "counter", "value"], path)


def _agents(con: sqlite3.Connection, have: dict[str, str], path: Path) -> dict:
    """(guid, agent id) → (gfx target, GPU name, wave size, clock info) of each GPU agent."""
    table = _source(con, have, "rocpd_info_agent", path)
    first = "rocpd_info_agent" if "rocpd_info_agent" in have else next(
        n for n in sorted(have) if n.startswith("rocpd_info_agent_"))
    # The gfx target: `name` (schema 3); later schemas keep `name` for a user's name and
    # add `generic_name`, so every column that may hold it is tried.
    targets = [c for c in ("name", "generic_name", "model_name")
               if c in sqlitedb.columns(con, first)]
    extracted = ", ".join(f"json_extract(A.extdata, '$.{k}')" for k in _AGENT_KEYS)
    sql = (f"SELECT A.guid, A.id, A.product_name, {extracted}, "
           f"{', '.join(f'A.{c}' for c in targets)} FROM {table} A")
    agents = {}
    for guid, ident, product, chip, wave, clock, xcc, *labels in _frame(
        con, sql, ["guid", "id", "product", *_AGENT_KEYS, *targets], path).iter_rows():
        arch = next((a for a in (gfx_target(str(x or "")) for x in labels) if a), None)
        name = next((x for x in labels if x), "")
        chip_id = int(chip) if isinstance(chip, int | float) and chip == int(chip) else None
        device = CHIP_IDS[chip_id][0] if chip_id in CHIP_IDS else str(product or name or "")
        waves = float(wave) if wave in (32, 64) else None
        info = {"max_sclk": "" if clock is None else str(clock),
                "num_xcd": "" if xcc is None else str(xcc)}
        agents[(guid, ident)] = (arch, device, waves, info)
    return agents


def collect_hint(arch: str | None) -> str:
    """The ``rocprofv3 --pmc …`` command line of the counters a roofline of ``arch`` needs.

    CDNA (gfx90a, gfx942, gfx950, …): :func:`~rooflow.adapters.amd.counters.roofline_counters`
    (VALU and MFMA by precision; HBM: gfx90a ``TCC_EA_RDREQ_*`` / ``TCC_EA_WRREQ_*``, gfx942
    and gfx950 ``TCC_EA0_*``; L2, vL1D, LDS). RDNA (gfx10+, wave32): rocprof's derived
    ``FETCH_SIZE`` / ``WRITE_SIZE``, the HBM counters its own formulas have for it.
    """
    if wave_size(arch) == 32:
        counters = list(HBM_KIB.weights)
    else:
        counters = roofline_counters(arch)
    return "rocprofv3 --pmc " + " ".join(counters)


def read_database(path: str | Path) -> Dispatches:
    """Dispatch rows (counters pivoted), formulas and GPU of a rocpd database.

    Raises:
        InputError: not a readable SQLite file; not the rocpd schema; no dispatch; no
            counters at all (names the ``rocprofv3 --pmc`` counters for the file's GPU);
            dispatches on GPUs of different kinds; counters missing as
            :func:`rooflow.adapters.amd.counters.plan` says; a bad value.
    """
    path = Path(path)
    con = sqlitedb.connect(path)
    try:
        have = sqlitedb.names(con)
        dispatches = _dispatches(con, have, path)
        counters = _counters(con, have, path)
        agents = _agents(con, have, path)
    finally:
        con.close()
    if dispatches.is_empty():
        raise InputError(str(path), "holds no kernel dispatch (rocpd_kernel_dispatch is "
                         "empty): profile with `rocprofv3 --kernel-trace --pmc …`",
                         check="rows")
    used = dispatches.select("guid", "agent_id").unique(maintain_order=True).rows()
    missing = [a for a in used if tuple(a) not in agents]
    if missing:
        raise InputError(str(path), "a dispatch's agent is not in rocpd_info_agent",
                         column="agent_id", value=missing[0][1])
    gpus = {agents[tuple(a)][:3] for a in used}
    if len(gpus) > 1:
        raise InputError(str(path), "dispatches ran on different GPU kinds: " + ", ".join(
            sorted(f"{n} ({a or '?'})" for a, n, _ in gpus)), check="one GPU kind")
    arch, device, wave, clock = agents[tuple(used[0])]
    if counters.is_empty():
        raise InputError(str(path), f"{dispatches.height} kernel dispatches but no counter "
                         f"values (rocpd_pmc_event is empty) on {device or 'the GPU'} "
                         f"({arch or 'unknown gfx target'}); collect: {collect_hint(arch)}",
                         check="required counters")
    wide = counters.pivot(on="counter", index=["guid", "event_id"], values="value",
                          aggregate_function="sum")
    frame = dispatches.join(wide, on=["guid", "event_id"], how="left", maintain_order="left")
    names = [c for c in wide.columns if c not in ("guid", "event_id")]
    counted = frame.select(pl.any_horizontal(pl.col(names).is_not_null())).to_series()
    notes: tuple[str, ...] = ()
    if not counted.all():
        skipped = frame.filter(~counted)
        notes += (f"{skipped.height} of {frame.height} dispatches have no counter values "
                  f"(first: rocpd_kernel_dispatch id {skipped['row'][0]}, "
                  f"{short_name(skipped['Kernel_Name'][0])}): left out",)
        frame = frame.filter(counted)
    frame = frame.with_columns(
        (pl.col("End_Timestamp") - pl.col("Start_Timestamp")).cast(pl.Float64).alias(DURATION),
        pl.col(names).cast(pl.Float64), pl.col("Kernel_Name").cast(pl.String))
    found = canonical_columns(frame.columns)
    formulas = plan(arch, found, str(path))
    frame, time_notes = cycle_time(frame, clock, formulas.arch, device, path, frame["row"],
                                   names=("rocpd_info_agent", "max_engine_clk_fcompute",
                                          "num_xcc"))
    wave = wave or wave_size(formulas.arch)
    if wave != 64 and formulas.ops:
        notes += (f"VALU work counted × {wave:g} lanes per instruction (wave size)",)
    return checked_dispatches(
        frame, formulas, path, kernel="Kernel_Name", time=DURATION, device=device,
        rows=frame["row"], wave=wave, notes=(*time_notes, *notes))


def rocpd_points(path: str | Path) -> pl.DataFrame:
    """Canonical points of a rocpd database, series "rocprofv3".

    Raises:
        InputError: as :func:`read_database`; no kernel with bytes and a time.
    """
    return read_database(path).points("rocprofv3")


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Read a rocpd database (called by :func:`rooflow.adapters.amd.rocprofv3.load`)."""
    return rocpd_points(path)
