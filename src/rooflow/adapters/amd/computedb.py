"""rocprof-compute analysis databases (``rocprof_compute_*.db``, SQLite) → roofline points.

rocprof-compute 3.5 (``rocprof-compute analyze … --output-format db``) writes its analysis
into one SQLite file. Its definition: ROCm/rocm-systems @ d4aec3e6 :
``projects/rocprofiler-compute/src/utils/analysis_orm.py`` (SQLAlchemy models,
``SCHEMA_VERSION`` 1.3.0; 1.4.0 adds ``lds_cache_data``). It holds no raw counters: the
counters were turned into the same roofline quantities :mod:`rooflow.adapters.amd.counters`
computes (``0400_roofline.yaml``, ``roofline_calc.py``), stored per kernel:

* ``compute_kernel_roofline_data``: ``total_flops``, a RATE in GFLOP/s (Σ FLOP / Σ time of
  the kernel's dispatches), and ``l1_cache_data``, ``l2_cache_data``, ``hbm_cache_data``
  (``lds_cache_data`` from 1.4.0): arithmetic INTENSITIES in FLOP/byte at vL1D, L2, HBM
  (LDS), not byte counts.
* ``compute_dispatch``: ``start_timestamp`` / ``end_timestamp`` (ns) of each dispatch of a
  kernel (``kernel_uuid`` → ``compute_kernel.kernel_name``).
* ``compute_kernel_metric_value`` (``value_name`` ``Value``) of the "Roofline" panel's
  metrics ``VALU FLOPs (F32)``, ``MFMA FLOPs (BF16)``, … (GFLOP/s): which precisions did
  the work.
* ``compute_workload.sys_info_extdata`` (JSON): ``gpu_arch``, ``gpu_chip_id`` (names the
  GPU, else ``gpu_model``). Only these keys are extracted: the same JSON holds the profiled
  command line and host name, which rooflow never reads.

Per kernel: time = Σ (end − start) over its dispatches; FLOP = ``total_flops`` · 10⁹ ·
time; bytes at a level = FLOP / its intensity (a level whose intensity is 0 or missing has
no bytes). On the shared MI350 sample the rocPRIM reduce kernel (2 dispatches, 802,489 ns)
gives 8.16659 GFLOP/s · 802,489 ns = 6,553,600 FLOP = 2 × 3,276,800, its metric
``FLOPs (Total)`` per dispatch. The FLOP are split among precisions in proportion to the
kernel's Roofline-panel rates (exact for one dispatch or equal durations; the dominant
precision decides the roof). A kernel with no FLOP (``total_flops`` 0: its intensities are
0 too, its bytes unknown) or no precision is left out with a note.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import polars as pl

from rooflow.adapters.breakdown import breakdown_table, bytes_column, kernel_points, ops_column
from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.formats import sqlitedb
from rooflow.formats.devices import CHIP_IDS
from rooflow.levels import canonical_level
from rooflow.settings import Settings

log = logging.getLogger("rooflow.adapters")

RATES = {  # "Roofline" panel metric (GFLOP/s) → precision (as counters.py names them)
    "VALU FLOPs (F16)": "fp16", "VALU FLOPs (F32)": "fp32", "VALU FLOPs (F64)": "fp64",
    "MFMA FLOPs (F64)": "fp64-tensor", "MFMA FLOPs (F32)": "fp32-matrix",
    "MFMA FLOPs (F16)": "fp16-tensor", "MFMA FLOPs (BF16)": "bf16-tensor",
    "MFMA FLOPs (F8)": "fp8-tensor", "MFMA FLOPs (F6F4)": "fp6-tensor",
}
INTENSITIES = {"hbm_cache_data": "HBM", "l2_cache_data": "L2", "l1_cache_data": "L1",
               "lds_cache_data": "LDS"}
"""Intensity column (FLOP/byte) of ``compute_kernel_roofline_data`` → memory level."""
_NEEDED = ("compute_kernel", "compute_dispatch", "compute_kernel_roofline_data",
           "compute_workload")


def _query(con: sqlite3.Connection, sql: str, path: Path) -> list[tuple]:
    try:
        return con.execute(sql).fetchall()
    except sqlite3.Error as err:
        raise InputError(str(path), f"query failed ({err}): not the rocprof-compute "
                         "analysis schema (analysis_orm.py)", check="schema") from None


def _device(con: sqlite3.Connection, path: Path) -> dict[int, str]:
    """workload_id → GPU name (``gpu_chip_id`` → name, else ``gpu_model``)."""
    rows = _query(con, "SELECT workload_id, json_extract(sys_info_extdata, '$.gpu_chip_id'), "
                  "json_extract(sys_info_extdata, '$.gpu_model') FROM compute_workload", path)
    names = {}
    for workload, chip, model in rows:
        chip_id = int(chip) if isinstance(chip, int | float) else None
        names[workload] = CHIP_IDS[chip_id][0] if chip_id in CHIP_IDS else str(model or "")
    return names


def read_kernels(path: str | Path) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """Per-kernel breakdown (:mod:`rooflow.adapters.breakdown`) of a rocprof-compute database.

    Returns:
        (breakdown: ``kernel``, ``launches`` (dispatches), ``row`` (``kernel_uuid``),
        ``time_s``, ``ops_<precision>``, ``bytes_dram`` / ``bytes_l2`` / ``bytes_l1`` /
        ``bytes_lds``, ``device``; notes on kernels left out).

    Raises:
        InputError: not a readable SQLite file; tables of the schema missing; a negative or
            non-finite rate or intensity; no kernel with FLOP and a time.
    """
    path = Path(path)
    con = sqlitedb.connect(path)
    try:
        have = sqlitedb.names(con)
        missing = [t for t in _NEEDED if t not in have]
        if missing:
            raise InputError(str(path), "lacks table(s) " + ", ".join(missing)
                             + ": not a rocprof-compute analysis database", check="tables")
        levels = [c for c in INTENSITIES
                  if c in sqlitedb.columns(con, "compute_kernel_roofline_data")]
        devices = _device(con, path)
        kernels = _query(con, (
            "SELECT K.kernel_uuid, K.workload_id, K.kernel_name, COUNT(D.dispatch_uuid), "
            "SUM(D.end_timestamp - D.start_timestamp), R.total_flops, "
            + ", ".join(f"R.{c}" for c in levels)
            + " FROM compute_kernel K JOIN compute_dispatch D ON D.kernel_uuid = K.kernel_uuid "
            "LEFT JOIN compute_kernel_roofline_data R ON R.kernel_uuid = K.kernel_uuid "
            "GROUP BY K.kernel_uuid ORDER BY MIN(D.start_timestamp), K.kernel_uuid"), path)
        rates: dict[int, dict[str, float]] = {}
        names = ", ".join(f"'{n}'" for n in RATES)
        for kernel, metric, value in _query(con, (
                "SELECT V.kernel_uuid, M.name, V.value FROM compute_kernel_metric_value V "
                "JOIN compute_metric_definition M ON M.metric_uuid = V.metric_uuid "
                f"WHERE V.value_name = 'Value' AND M.name IN ({names})"), path):
            if isinstance(value, int | float) and value > 0:
                rates.setdefault(kernel, {})[RATES[metric]] = float(value)
    finally:
        con.close()
    rows, notes = [], []
    skipped: dict[str, list[str]] = {}
    for uuid, workload, name, launches, ns, gflops, *ais in kernels:
        for column, value in (("total_flops", gflops), *zip(levels, ais, strict=True)):
            if value is not None and not (isinstance(value, int | float) and 0 <= value < 1e300):
                raise InputError(str(path), "must be a finite number ≥ 0 (GFLOP/s or "
                                 "FLOP/byte)", row=uuid, column=column, value=value)
        if not ns or ns <= 0:
            skipped.setdefault("no time (end_timestamp = start_timestamp)", []).append(name)
            continue
        if not gflops:
            skipped.setdefault("no FLOP (total_flops 0: its intensities give no bytes)",
                               []).append(name)
            continue
        mix = rates.get(uuid, {})
        if not mix:
            skipped.setdefault("FLOP but no Roofline-panel rate naming their precision",
                               []).append(name)
            continue
        time_s = ns * 1e-9
        # GFLOP/s × 10⁹ × s = FLOP (worked on the MI350 sample in the module docstring)
        flop = gflops * 1e9 * time_s
        share = sum(mix.values())
        row = {"kernel": name, "launches": int(launches), "row": int(uuid), "time_s": time_s,
               "device": devices.get(workload, "")}
        row |= {ops_column(p): flop * r / share for p, r in mix.items()}
        row |= {bytes_column(canonical_level(INTENSITIES[c]) or INTENSITIES[c]): flop / ai
                for c, ai in zip(levels, ais, strict=True) if ai}
        rows.append(row)
        if len(mix) > 1:
            notes.append(f"{short_name(name)}: FLOP split among {', '.join(sorted(mix))} "
                         "by their rates")
    notes += [f"{len(names_)} kernel(s) left out, {why}: "
              f"{', '.join(map(short_name, names_[:3]))}"
              + (" …" if len(names_) > 3 else "") for why, names_ in skipped.items()]
    if not rows:
        raise InputError(str(path), "no kernel with FLOP and a time in "
                         "compute_kernel_roofline_data; " + "; ".join(notes), check="rows")
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return breakdown_table(frame), tuple(notes)


def computedb_points(path: str | Path) -> pl.DataFrame:
    """Canonical points of a rocprof-compute database, series "rocprof" (notes logged).

    Raises:
        InputError: as :func:`read_kernels`.
    """
    kernels, notes = read_kernels(path)
    for note in notes:
        log.warning("%s: %s", path, note)
    return kernel_points(
        kernels.with_columns(pl.col("kernel").alias("label"), pl.lit(0).alias("row")),
        series="rocprof", source=Path(path))


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Read a rocprof-compute database (called by :func:`rooflow.adapters.amd.rocprof.load`)."""
    return computedb_points(path)
