"""The per-kernel breakdown: one table contract for every profiler reader, and its points.

Every profiler reader (ncu, rocprof, rocprofv1, rocprofv3, unitrace) turns its launches into
this table (:func:`breakdown_table`), one row per kernel name (its launches summed) or per
launch, and makes points from it (:func:`kernel_points`):

================= ===== ==================================================================
column            dtype meaning
================= ===== ==================================================================
kernel            str   kernel name as the profiler writes it
device            str   GPU the kernel ran on ("" when the export does not say)
launches          i64   launches (AMD: dispatches) summed into the row
row               i64   1-based data row of the first launch in the reader's source file
precision         str   dominant precision, "" when none (:func:`summarize_precisions`)
flop              f64   operations in the dominant precision's unit (FLOP, or OP for int*)
precision_mix     str   every counted precision's share of all operations
                        (:func:`precision_mix`; "" when fewer than two)
time_s            f64   kernel time in seconds, summed over launches
clock_hz          f64   SM clock the launches ran at, Hz: their cycles over their time
                        (the time-weighted mean of the launches' clocks); null where the
                        export records none
memory_clock_hz   f64   DRAM clock the launches ran at, Hz, alike; null where unknown
l2_clock_hz       f64   L2 clock the launches ran at, Hz, alike; null where unknown
ops_<precision>   f64   operations of each precision of :data:`rooflow.points.PRECISIONS`
                        (FLOP, or OP for int*); null where the export has no counter for it
bytes_<level>     f64   bytes moved at each level of :data:`rooflow.levels.LEVELS`; null
                        where the export does not measure that level
================= ===== ==================================================================

Column names are lower case with ``-`` written ``_`` (``ops_fp16_tensor``,
``bytes_dram``), so every name is an identifier (SQL, pandas attributes, R); no precision
holds a ``_``, so :data:`OPS_COLUMNS` maps back unambiguously. A reader's own columns
follow these (ncu: ``launch_id``, ``file``, ``cc``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import polars as pl

from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.levels import LEVELS
from rooflow.points import PER_CALL_SCHEMA, PRECISIONS, op_unit, to_points

ADDRESS_MATH = frozenset({"int32", "int64"})
"""Precisions that never decide the dominant one: AMD's VALU integer operations
(``SQ_INSTS_VALU_INT32``/``INT64``) are mostly index and address arithmetic, which
rocprof-compute keeps out of its roofline too; no other reader counts them."""


def ops_column(precision: str) -> str:
    """Breakdown column of a precision's operations: ``fp16-tensor`` → ``ops_fp16_tensor``."""
    return "ops_" + precision.replace("-", "_")


def bytes_column(level: str) -> str:
    """Breakdown column of a canonical level's bytes: ``DRAM`` → ``bytes_dram``."""
    return "bytes_" + level.lower()


OPS_COLUMNS: dict[str, str] = {p: ops_column(p) for p in PRECISIONS}
"""Precision → its ``ops_`` column, in :data:`~rooflow.points.PRECISIONS` order."""
BYTES_COLUMNS: dict[str, str] = {lv: bytes_column(lv) for lv in LEVELS}
"""Canonical level → its ``bytes_`` column, in :data:`~rooflow.levels.LEVELS` order."""
BREAKDOWN_SCHEMA: dict[str, pl.DataType] = {
    "kernel": pl.String(), "device": pl.String(), "launches": pl.Int64(), "row": pl.Int64(),
    "precision": pl.String(), "flop": pl.Float64(), "precision_mix": pl.String(),
    "time_s": pl.Float64(), "clock_hz": pl.Float64(), "memory_clock_hz": pl.Float64(),
    "l2_clock_hz": pl.Float64(),
    **{c: pl.Float64() for c in OPS_COLUMNS.values()},
    **{c: pl.Float64() for c in BYTES_COLUMNS.values()},
}
"""The breakdown's columns (module doc), in order, with their dtypes."""
BREAKDOWN_COLUMNS = tuple(BREAKDOWN_SCHEMA)
_KNOWN = frozenset(PRECISIONS)


class PrecisionSummary(NamedTuple):
    """What :func:`summarize_precisions` says of one kernel's operations.

    Attributes:
        precision: the dominant precision, "" when none.
        flop: operations in its unit (FLOP, or OP), 0.0 when none.
        mix: :func:`precision_mix` of all its operations.
    """

    precision: str
    flop: float
    mix: str


def summarize_precisions(ops: Mapping[str, float | None]) -> PrecisionSummary:
    """Dominant precision, its operations and the mix of one kernel's (or launch's) work.

    The one rule, for every reader: the dominant precision is the one with the most
    operations, ties going to the first in :data:`~rooflow.points.PRECISIONS`, FLOP and
    integer OP competing as counts (an int8 MFMA GEMM with an fp32 epilogue is
    int8-tensor), except that :data:`ADDRESS_MATH` (int32, int64) never decides: a kernel
    with only those has no precision and stays a bandwidth-only row (a copy). ``flop``
    sums the operations of every precision in the dominant one's unit (FLOP, or OP: never
    mixed), address arithmetic left out; the mix shows every precision, address
    arithmetic included.

    Args:
        ops: precision → operations (finite, ≥ 0: the readers check them); null or absent
            means not counted.

    Raises:
        ValueError: a precision outside :data:`~rooflow.points.PRECISIONS`.
    """
    if not _KNOWN.issuperset(ops):
        unknown = sorted(set(ops) - _KNOWN)
        raise ValueError(f"unknown precision(s) {unknown}; known: {', '.join(PRECISIONS)}")
    counted = {p: float(v) for p in PRECISIONS if (v := ops.get(p)) is not None and v > 0}
    work = {p: v for p, v in counted.items() if p not in ADDRESS_MATH}
    precision = max(work, key=work.__getitem__, default="")  # max keeps the first on ties
    unit = op_unit(precision)
    flop = sum(v for p, v in work.items() if op_unit(p) == unit) if precision else 0.0
    return PrecisionSummary(precision, flop, precision_mix(counted))


def precision_mix(ops: Mapping[str, float | None]) -> str:
    """Each precision's share of all operations, as text (the points' ``precision_mix``).

    ``fp16-tensor 99.6%, fp32 0.3%, int8-tensor 0.1%``: precisions with operations,
    largest first (ties in :data:`~rooflow.points.PRECISIONS` order), FLOP and OP counted
    alike. Shares are tenths of a percent rounded by largest remainder (Hamilton): each is
    within 0.1 percentage point of the exact share and the shown numbers sum to exactly
    100.0%. A share that rounds to 0 is written ``<0.1%``, never dropped (a precision that
    ran is named). "" when fewer than two precisions have operations.

    Args:
        ops: precision → operations (finite, ≥ 0); null, absent or 0 means none.
    """
    used = [(p, float(v)) for p in PRECISIONS if (v := ops.get(p)) is not None and v > 0]
    if len(used) < 2:
        return ""
    total = math.fsum(v for _, v in used)
    # Shares in tenths of a percent, rounded to 1e-9 before the floor so that an exact
    # 99.6% computed as 995.9999… tenths is not floored to 99.5%.
    exact = [round(v / total * 1000, 9) for _, v in used]  # v/total first: no overflow
    tenths = [math.floor(e) for e in exact]
    left = 1000 - sum(tenths)  # < len(used): each remainder is < 1
    for i in sorted(range(len(used)), key=lambda i: (tenths[i] - exact[i], -used[i][1]))[:left]:
        tenths[i] += 1
    order = sorted(range(len(used)), key=lambda i: -used[i][1])  # stable: PRECISIONS on ties
    return ", ".join(f"{used[i][0]} {tenths[i] / 10:.1f}%" if tenths[i] else
                     f"{used[i][0]} <0.1%" for i in order)


def breakdown_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Complete a reader's per-kernel sums to the breakdown contract (module doc).

    Args:
        frame: ``kernel``, ``launches``, ``row``, ``time_s`` (s), the ``ops_<precision>``
            and ``bytes_<level>`` columns the export measures, optionally ``device``,
            ``clock_hz``, ``memory_clock_hz`` and ``l2_clock_hz``, and the reader's own
            columns.

    Returns:
        :data:`BREAKDOWN_SCHEMA` columns in order, then the reader's own: ``ops_``,
        ``bytes_`` and clock columns the frame lacks are null, ``device`` "" when absent, and
        ``precision``, ``flop``, ``precision_mix`` from :func:`summarize_precisions`.

    Raises:
        ValueError: a required column missing, or an ``ops_``/``bytes_`` column outside
            the vocabularies (a reader's bug, not the input's).
    """
    missing = [c for c in ("kernel", "launches", "row", "time_s") if c not in frame.columns]
    strays = [c for c in frame.columns if c.startswith(("ops_", "bytes_"))
              and c not in BREAKDOWN_SCHEMA]
    if missing or strays:
        raise ValueError(f"not a breakdown: missing {missing}, unknown columns {strays}")
    counted = {p: c for p, c in OPS_COLUMNS.items() if c in frame.columns}
    # A frame with no ops_ column (memory counters only) still has one row per kernel.
    rows = frame.select(counted.values()).iter_rows() if counted else [()] * frame.height
    summaries = [summarize_precisions(dict(zip(counted, values, strict=True))) for values in rows]
    derived = {"precision": pl.String, "flop": pl.Float64, "precision_mix": pl.String}
    frame = frame.with_columns(
        pl.Series(name, [s[i] for s in summaries], dtype=dtype)
        for i, (name, dtype) in enumerate(derived.items())
    )
    if "device" not in frame.columns:
        frame = frame.with_columns(pl.lit("").alias("device"))
    own = [c for c in frame.columns if c not in BREAKDOWN_SCHEMA]
    return frame.select(
        *[(pl.col(c) if c in frame.columns else pl.lit(None)).cast(t).alias(c)
          for c, t in BREAKDOWN_SCHEMA.items()],
        *own,
    )


def kernel_points(kernels: pl.DataFrame, *, series: str, source: str | Path) -> pl.DataFrame:
    """Canonical points (:mod:`rooflow.points`) from a per-kernel breakdown.

    Args:
        kernels: a breakdown (:func:`breakdown_table`) with ``label`` (the points' label)
            and ``row`` (the points' row: the launch's data row, or 0 for sums).
        series: the points' ``series`` value.
        source: the raw file, for ``source`` and errors.

    Returns:
        One point per kernel × level with bytes > 0 (a level without traffic has no
        intensity), kernels in input order, levels in :data:`rooflow.levels.LEVELS`
        order; bytes_model "measured"; ``clock_hz``, ``memory_clock_hz``, ``l2_clock_hz``
        and ``launches`` the breakdown's.
        Kernels with flop > 0: arithmetic_intensity =
        flop / bytes, performance = flop / time_s. Kernels with no operations (copies,
        memsets): flop 0, performance 0, intensity null — bandwidth-only rows, analysed
        against the memory roofs only. ``precision``, ``precision_mix`` and ``device``
        are the breakdown's. Where ``kernels`` has ``time_per_call_s`` (a reader that
        keeps its launches' times, ncu), the per-call columns
        (:data:`rooflow.points.PER_CALL_SCHEMA`) with ``calls`` = ``launches``.

    Raises:
        InputError: not one kernel with bytes and a time.
    """
    per_call: list[pl.Expr] = [
        pl.col("launches").alias("calls"), *(pl.col(c) for c in PER_CALL_SCHEMA if c != "calls")
    ] if "time_per_call_s" in kernels.columns else []
    frames = [
        kernels.with_row_index("_order")
        .filter((pl.col(column) > 0) & (pl.col("time_s") > 0))
        .select(
            "_order", "kernel", "label", "row", "precision", "precision_mix", "flop",
            "time_s", "device", "clock_hz", "memory_clock_hz", "l2_clock_hz", "launches",
            pl.lit(level).alias("level"), pl.col(column).alias("bytes"), *per_call,
        )
        for level, column in BYTES_COLUMNS.items()
    ]
    points = pl.concat(frames).sort("_order", maintain_order=True)
    if points.is_empty():
        raise InputError(
            str(source), "no kernel with bytes moved and a time: nothing to place on a roofline",
            check="bytes > 0 and time > 0",
        )
    has_ops = pl.col("flop").fill_null(0) > 0
    points = points.with_columns(
            pl.col("flop").fill_null(0),
            pl.when(has_ops).then(pl.col("flop") / pl.col("bytes")).alias("arithmetic_intensity"),
            pl.when(has_ops).then(pl.col("flop") / pl.col("time_s")).otherwise(0.0)
            .alias("performance"),
            pl.when(has_ops).then(pl.col("precision")).otherwise(pl.lit("")).alias("precision"),
            pl.lit(series).alias("series"),
            pl.lit("measured").alias("bytes_model"),
            pl.lit(str(source)).alias("source"),
    )
    _check_finite(points, source)
    return to_points(points)


def _check_finite(points: pl.DataFrame, source: str | Path) -> None:
    """A derived rate or intensity that overflows (a time of 1e-300 s) is the input's error."""
    for column in ("performance", "arithmetic_intensity"):
        bad = points.filter(pl.col(column).is_not_null() & ~pl.col(column).is_finite())
        if bad.height:
            row = bad.row(0, named=True)
            raise InputError(
                str(source), f"{column} of kernel '{short_name(row['kernel'])}' is not a finite "
                "number "
                f"(flop {row['flop']:g} over time {row['time_s']:g} s and {row['bytes']:g} "
                "bytes): check the time and byte values", row=row["row"], column=column,
                check="finite", value=row[column],
            )
