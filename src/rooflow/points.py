"""The canonical roofline points table: the pivot between adapters and consumers.

One row per kernel (or benchmark point) × memory level, in base units:

============================ ======= ==================================================
column                       dtype   meaning
============================ ======= ==================================================
series                       cat     marker group: backend / Original / Optimized /
                                     quant label ("kernel" when the input has none)
family                       cat     colour group ("" when unknown)
label                        str     human label of the point ("" when none)
pair                         str     pair id joining Original → Optimized ("" when none)
kernel                       str     kernel name (profilers) or label
dims                         cat     shape the point was run at, ``M=64,N=128``
                                     (:mod:`rooflow.dims`); "" when the input gives none
level                        cat     memory level of ``bytes``, a canonical name of
                                     :data:`rooflow.levels.LEVELS` (DRAM, L3, L2, L1,
                                     LDS; a vendor's word, HBM or SLM, is mapped to it)
precision                    cat     dominant precision (by operation count), one of
                                     :data:`PRECISIONS`; "" → not given (no compute
                                     roof is assumed: the point is not judged, and the
                                     table, legend and summary say so)
precision_mix                cat     operation share per precision when a kernel has
                                     several ("fp64 62.0%, fp32 38.0%", format of
                                     :func:`rooflow.adapters.breakdown.precision_mix`),
                                     else ""
flop                         f64     operations (count) in the unit of ``precision``:
                                     FLOP, or integer OP for int* precisions (never
                                     mixed); 0 → bandwidth-only row (copies, memsets);
                                     null if unknown
bytes                        f64     bytes moved at ``level``, null if unknown
time_s                       f64     kernel time in seconds, null if unknown
arithmetic_intensity         f64     FLOP/byte (OP/byte) at ``level``: > 0 and finite
                                     on every row but bandwidth-only ones (flop 0):
                                     null there
performance                  f64     achieved performance in FLOP/s (OP/s); null →
                                     theoretical point (drawn on the roof); 0 on
                                     bandwidth-only rows
bytes_model                  cat     where ``bytes`` comes from: measured, given, family,
                                     inputs-only, operator (a PyTorch operator model)
source                       cat     raw file the row came from
row                          i32     1-based data row in ``source`` (0 when derived)
device                       cat     GPU the row was measured on, as the input names it
                                     ("" when unknown or theoretical)
clock_hz                     f64     SM clock the kernel ran at, Hz, where the input
                                     records it (ncu ``sm__cycles_elapsed.avg.per_second``,
                                     its launches' cycles over their time); null when
                                     not known: the compute roofs of a point with a
                                     clock are scaled to it (:mod:`rooflow.analysis`)
memory_clock_hz              f64     DRAM clock the kernel ran at, Hz, where recorded
                                     (ncu ``dram__cycles_elapsed.avg.per_second``);
                                     null when not known: the DRAM roof of a point
                                     with one is scaled to it where the preset gives
                                     its nominal memory clock
l2_clock_hz                  f64     L2 clock the kernel ran at, Hz, where recorded
                                     (ncu ``lts__cycles_elapsed.avg.per_second``); the
                                     L2 roof scaled alike (preset ``clocks.l2_mhz``)
launches                     i64     kernel launches the row sums (ncu launches,
                                     AMD dispatches, GPU kernels a PyTorch operator
                                     launched); null when not known (counted as one by
                                     the launch floor of :mod:`rooflow.analysis`)
============================ ======= ==================================================

Optional per-call columns (:data:`PER_CALL_SCHEMA`), present only when an adapter
aggregates calls into one row (PyTorch operators, ncu kernels), after the columns above:

============================ ======= ==================================================
calls                        i64     calls aggregated into the row: of the kernel (ncu:
                                     its launches, as ``launches``) or of the PyTorch
                                     operator (each may launch several GPU kernels,
                                     which ``launches`` counts for the launch floor)
time_per_call_s              f64     mean time of one call (s): ``time_s`` / ``calls``
time_per_call_median_s       f64     median time of one call (s)
time_per_call_std_s          f64     sample standard deviation (ddof = 1) of the call
                                     times (s); null for a single call
time_per_call_min_s          f64     shortest call (s)
time_per_call_max_s          f64     longest call (s)
============================ ======= ==================================================

All null where the calls' times are unknown (an untimed ncu kernel).

``cat`` columns are polars Categoricals: few distinct values on many rows (each row holds
an integer code, each distinct string is stored once); they compare, join and
concatenate like strings. ``label``, ``pair`` and ``kernel`` are often distinct per row
and stay strings.

Precisions (:data:`PRECISIONS`): one vocabulary for points, presets, tables and legends.
``-tensor`` means a tensor / matrix / XMX unit (NVIDIA tensor cores, AMD MFMA, Intel XMX;
``fp64-tensor`` is NVIDIA DMMA and AMD FP64 MFMA), ``fp32-matrix`` AMD's FP32 MFMA; plain
``fp16``/``bf16`` are vector (CUDA-core, VALU, XVE) units. Integer precisions count OP,
not FLOP, and are judged only against integer roofs.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import polars as pl

from rooflow.dims import bad_dims
from rooflow.errors import InputError
from rooflow.levels import LEVELS, canonical_level, known_levels

PRECISIONS: dict[str, str] = {
    "fp64": "FLOP", "fp64-tensor": "FLOP", "fp32": "FLOP", "fp32-matrix": "FLOP",
    "tf32": "FLOP", "fp16": "FLOP", "bf16": "FLOP", "fp16-tensor": "FLOP",
    "bf16-tensor": "FLOP", "fp8-tensor": "FLOP", "fp6-tensor": "FLOP", "fp4-tensor": "FLOP",
    "int8-tensor": "OP", "int4-tensor": "OP", "int32": "OP", "int64": "OP",
}
"""Precision → unit of its operations (FLOP, or integer OP)."""


def op_unit(precision: str) -> str:
    """``"OP"`` for integer precisions, else ``"FLOP"`` (also for "" and unknown names)."""
    return PRECISIONS.get(precision, "FLOP")


POINT_SCHEMA: dict[str, pl.DataType] = {
    "series": pl.Categorical(),
    "family": pl.Categorical(),
    "label": pl.String(),
    "pair": pl.String(),
    "kernel": pl.String(),
    "dims": pl.Categorical(),
    "level": pl.Categorical(),
    "precision": pl.Categorical(),
    "precision_mix": pl.Categorical(),
    "flop": pl.Float64(),
    "bytes": pl.Float64(),
    "time_s": pl.Float64(),
    "arithmetic_intensity": pl.Float64(),
    "performance": pl.Float64(),
    "bytes_model": pl.Categorical(),
    "source": pl.Categorical(),
    "row": pl.Int32(),
    "device": pl.Categorical(),
    "clock_hz": pl.Float64(),
    "memory_clock_hz": pl.Float64(),
    "l2_clock_hz": pl.Float64(),
    "launches": pl.Int64(),
}

PER_CALL_SCHEMA: dict[str, pl.DataType] = {
    "calls": pl.Int64(),
    "time_per_call_s": pl.Float64(),
    "time_per_call_median_s": pl.Float64(),
    "time_per_call_std_s": pl.Float64(),
    "time_per_call_min_s": pl.Float64(),
    "time_per_call_max_s": pl.Float64(),
}
"""Optional columns of points and analysis tables: per-call statistics (module doc)."""


def per_call_stats(times: Sequence[float | None]) -> dict[str, float | int | None]:
    """:data:`PER_CALL_SCHEMA` values of one row from the times (s) of its calls.

    The mean, median, sample standard deviation (ddof = 1, Bessel's correction, as
    TraceLens and :func:`statistics.stdev` compute it; null for one call, where it is
    undefined), min and max. Times all null when any call has no time (``calls`` kept).
    """
    if not times or any(t is None for t in times):
        return {"calls": len(times), **dict.fromkeys(list(PER_CALL_SCHEMA)[1:])}
    values = [float(t) for t in times if t is not None]
    return {"calls": len(values), "time_per_call_s": statistics.fmean(values),
            "time_per_call_median_s": statistics.median(values),
            "time_per_call_std_s": statistics.stdev(values) if len(values) > 1 else None,
            "time_per_call_min_s": min(values), "time_per_call_max_s": max(values)}


def has_per_call(frame: pl.DataFrame) -> bool:
    """Whether ``frame`` (points or an analysis table) carries the per-call columns."""
    return "calls" in frame.columns


def concat_tables(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Points or analysis tables one under the other, every column of any of them kept.

    Tables differ in their optional columns: the per-call ones (:data:`PER_CALL_SCHEMA`,
    where calls were aggregated) and an analysis table's ``traffic_ratio_*`` (the levels
    of its data, :mod:`rooflow.guidance`); a table without one has it null.
    """
    frames = list(frames)
    if all(f.columns == frames[0].columns for f in frames):
        return pl.concat(frames, how="vertical")
    # The widest table's order (the per-call columns after time_s), then any others.
    order = list(max(frames, key=lambda f: f.width).columns)
    order += [c for f in frames for c in f.columns if c not in order]
    return pl.concat(frames, how="diagonal_relaxed").select(order)


_DEFAULTS: dict[str, object] = {
    "series": "kernel",
    "family": "",
    "label": "",
    "pair": "",
    "kernel": "",
    "dims": "",
    "level": "DRAM",
    "precision": "",
    "precision_mix": "",
    "bytes_model": "given",
    "source": "",
    "row": 0,
    "device": "",
}


def to_points(frame: pl.DataFrame) -> pl.DataFrame:
    """Complete ``frame`` to the canonical points schema.

    Missing columns get their default (see the table above; numeric ones null),
    string nulls become the default, and columns come out in canonical order and
    dtype. Extra columns are dropped, but for the per-call columns
    (:data:`PER_CALL_SCHEMA`), kept after them, all six, when ``frame`` has ``calls``. A
    level in a vendor's word (``HBM``, ``SLM``, ``vL1D``) becomes its canonical name
    (:func:`rooflow.levels.canonical_level`); an unknown one is kept for
    :func:`check_points` to refuse.
    """
    exprs = []
    for name, dtype in POINT_SCHEMA.items():
        default = _DEFAULTS.get(name)
        if name in frame.columns:
            expr = pl.col(name).cast(dtype)
            if default is not None:
                expr = expr.fill_null(pl.lit(default, dtype=dtype))
        else:
            expr = pl.lit(default, dtype=dtype)
        exprs.append(expr.alias(name))
    if has_per_call(frame):
        exprs += [(pl.col(c) if c in frame.columns else pl.lit(None)).cast(t).alias(c)
                  for c, t in PER_CALL_SCHEMA.items()]
    return _canonical_levels(frame.select(exprs))


def _canonical_levels(points: pl.DataFrame) -> pl.DataFrame:
    # The distinct levels are few: map those, never a string per row.
    renamed = {lv: c for lv in distinct(points, "level").drop_nulls().to_list()
               if (c := canonical_level(lv)) is not None and c != lv}
    if not renamed:
        return points
    return points.with_columns(
        pl.col("level").cast(pl.String).replace(renamed).cast(POINT_SCHEMA["level"]))


def distinct(table: pl.DataFrame, column: str) -> pl.Series:
    """``column``'s distinct values (null included) in first-seen order.

    For points and analysis tables alike. Through an expression: ``table[column]`` would
    materialise, in ``table``, a constant column polars holds as one scalar (a file's
    ``source``, ``level`` or ``dims``; an analysis' roof names: 40 MB each on 10⁷ rows).
    """
    return table.select(pl.col(column).unique(maintain_order=True)).to_series()


def read_points(path) -> pl.DataFrame:
    """A points file the workflow wrote (Parquet), in the canonical schema.

    Cast through :func:`to_points`, so a file written before a column became Categorical
    still reads (and concatenates with new ones).
    """
    return to_points(pl.read_parquet(path))


def empty_points() -> pl.DataFrame:
    """An empty frame with the canonical schema."""
    return pl.DataFrame(schema=POINT_SCHEMA)


_CHECKS = {"arithmetic_intensity": "finite, > 0 (null only where flop is 0)",
           "clock_hz": "finite, > 0", "memory_clock_hz": "finite, > 0",
           "l2_clock_hz": "finite, > 0", "launches": "≥ 1"}
"""The check named in :func:`check_points`' error, per column (else "finite, ≥ 0")."""


def check_points(points: pl.DataFrame, source: str) -> pl.DataFrame:
    """The contract every adapter's output meets, enforced in one place.

    Checks: the canonical columns in order with their dtypes (then the per-call ones,
    when present); precisions from
    :data:`PRECISIONS` (or ""); levels from :data:`rooflow.levels.LEVELS`; ``dims`` of
    :data:`rooflow.dims.DIMS_PATTERN`, no name twice; ``flop``, ``bytes``,
    ``time_s`` and ``performance`` null or finite and ≥ 0; ``clock_hz``,
    ``memory_clock_hz`` and ``l2_clock_hz`` null or finite and > 0; ``launches`` null or ≥ 1;
    ``arithmetic_intensity`` finite and > 0 on every row, whatever other column is null,
    and null only on bandwidth-only rows (``flop`` 0) (FLOP/byte: base units in, base
    units out).

    Returns:
        ``points`` unchanged.

    Raises:
        InputError: the first row that breaks the contract (an adapter bug or an
            input the adapter let through), naming the column and value.
    """
    wanted = {**POINT_SCHEMA, **(PER_CALL_SCHEMA if has_per_call(points) else {})}
    if points.schema != pl.Schema(wanted):
        got = {n: str(t) for n, t in points.schema.items()}
        raise InputError(source, f"not canonical points: columns {got}", check="schema")
    unknown = sorted(set(distinct(points, "precision").to_list()) - set(PRECISIONS) - {""})
    if unknown:
        raise InputError(source, f"unknown precision; known: {', '.join(PRECISIONS)}",
                         column="precision", check="vocabulary", value=unknown[0])
    unknown = sorted(set(distinct(points, "level").drop_nulls().to_list()) - set(LEVELS))
    if unknown:
        bad = points["level"].cast(pl.String).eq(unknown[0]).arg_true()[0]
        raise InputError(source, f"unknown memory level; known: {known_levels()}",
                         row=int(points["row"][bad]) or None, column="level",
                         check="vocabulary", value=unknown[0])
    dims = distinct(points, "dims").to_frame().filter(bad_dims())["dims"]
    if dims.len():
        bad = points["dims"].cast(pl.String).eq(dims.cast(pl.String)[0]).arg_true()[0]
        raise InputError(source, "dims are NAME=VALUE items joined by commas, each name once",
                         row=int(points["row"][bad]) or None, column="dims",
                         check="dims", value=dims[0])
    checks = {
        **{c: pl.col(c).is_null() | (pl.col(c).is_finite() & (pl.col(c) >= 0))
           for c in ("flop", "bytes", "time_s", "performance")
           + (tuple(PER_CALL_SCHEMA) if has_per_call(points) else ())},
        **{c: pl.col(c).is_null() | (pl.col(c).is_finite() & (pl.col(c) > 0))
           for c in ("clock_hz", "memory_clock_hz", "l2_clock_hz")},
        "launches": pl.col("launches").is_null() | (pl.col("launches") >= 1),
        # On every row, whatever else is null: a point needs its place on the x axis.
        "arithmetic_intensity": (pl.col("arithmetic_intensity").is_finite()
                                 & (pl.col("arithmetic_intensity") > 0)).fill_null(False)
        | (pl.col("arithmetic_intensity").is_null() & (pl.col("flop") == 0).fill_null(False)),
    }
    for column, ok in checks.items():
        bad = points.select(ok.not_().fill_null(True).arg_true()).to_series()
        if bad.len():
            i = int(bad[0])
            raise InputError(source, "point breaks the canonical contract",
                             row=int(points["row"][i]) or None, column=column,
                             check=_CHECKS.get(column, "finite, ≥ 0"),
                             value=points[column][i])
    return points
