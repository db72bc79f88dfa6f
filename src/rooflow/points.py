"""The canonical roofline points table: the pivot between adapters and consumers.

One row per kernel (or benchmark point) × memory level, in base units:

============================ ======= ==================================================
column                       dtype   meaning
============================ ======= ==================================================
series                       str     marker group: backend / Original / Optimized /
                                     quant label ("kernel" when the input has none)
family                       str     colour group ("" when unknown)
label                        str     human label of the point ("" when none)
pair                         str     pair id joining Original → Optimized ("" when none)
kernel                       str     kernel name (profilers) or label
level                        str     memory level of ``bytes``: DRAM, L3, L2, L1, LDS, ...
precision                    str     dominant FLOP precision (fp64, fp32, fp16, bf16,
                                     tensor, ...); "" → the preset's default compute roof
flop                         f64     floating-point operations (count), null if unknown
bytes                        f64     bytes moved at ``level``, null if unknown
time_s                       f64     kernel time in seconds, null if unknown
arithmetic_intensity         f64     FLOP/byte at ``level`` (> 0, finite)
flop_per_s                   f64     achieved performance in FLOP/s; null → theoretical
                                     point (drawn on the roof)
bytes_model                  str     where ``bytes`` comes from: measured, given, family,
                                     inputs-only
source                       str     raw file the row came from
row                          i64     1-based data row in ``source`` (0 when derived)
============================ ======= ==================================================
"""

from __future__ import annotations

import polars as pl

from rooflow.errors import InputError

POINT_SCHEMA: dict[str, pl.DataType] = {
    "series": pl.String(),
    "family": pl.String(),
    "label": pl.String(),
    "pair": pl.String(),
    "kernel": pl.String(),
    "level": pl.String(),
    "precision": pl.String(),
    "flop": pl.Float64(),
    "bytes": pl.Float64(),
    "time_s": pl.Float64(),
    "arithmetic_intensity": pl.Float64(),
    "flop_per_s": pl.Float64(),
    "bytes_model": pl.String(),
    "source": pl.String(),
    "row": pl.Int64(),
}

_DEFAULTS: dict[str, object] = {
    "series": "kernel",
    "family": "",
    "label": "",
    "pair": "",
    "kernel": "",
    "level": "DRAM",
    "precision": "",
    "bytes_model": "given",
    "source": "",
    "row": 0,
}


def to_points(frame: pl.DataFrame) -> pl.DataFrame:
    """Complete ``frame`` to the canonical points schema.

    Missing columns get their default (see the table above; numeric ones null),
    string nulls become the default, and columns come out in canonical order and
    dtype. Extra columns are dropped.
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
    return frame.select(exprs)


def empty_points() -> pl.DataFrame:
    """An empty frame with the canonical schema."""
    return pl.DataFrame(schema=POINT_SCHEMA)


def check_points(points: pl.DataFrame, source: str) -> pl.DataFrame:
    """The contract every adapter's output meets, enforced in one place.

    Checks: the canonical columns in order with their dtypes; ``flop``, ``bytes``,
    ``time_s`` and ``flop_per_s`` null or finite and ≥ 0; ``arithmetic_intensity`` finite
    and > 0 wherever ``flop`` > 0 (FLOP/byte: base units in, base units out).

    Returns:
        ``points`` unchanged.

    Raises:
        InputError: the first row that breaks the contract (an adapter bug or an
            input the adapter let through), naming the column and value.
    """
    if points.schema != pl.Schema(POINT_SCHEMA):
        got = {n: str(t) for n, t in points.schema.items()}
        raise InputError(source, f"not canonical points: columns {got}", check="schema")
    checks = {
        **{c: pl.col(c).is_null() | (pl.col(c).is_finite() & (pl.col(c) >= 0))
           for c in ("flop", "bytes", "time_s", "flop_per_s")},
        "arithmetic_intensity": (pl.col("flop").fill_null(0) <= 0)
        | (pl.col("arithmetic_intensity").is_finite() & (pl.col("arithmetic_intensity") > 0)),
    }
    for column, ok in checks.items():
        bad = points.select(ok.not_().fill_null(True).arg_true()).to_series()
        if bad.len():
            i = int(bad[0])
            raise InputError(source, "point breaks the canonical contract",
                             row=int(points["row"][i]) or None, column=column,
                             check="finite, ≥ 0" if column != "arithmetic_intensity"
                             else "finite, > 0 where flop > 0",
                             value=points[column][i])
    return points
