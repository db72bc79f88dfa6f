"""Per-kernel breakdown → canonical points; shared by the profiler adapters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.points import to_points


def dominant(columns: Sequence[str], names: Sequence[str]) -> pl.Expr:
    """Name of the largest of ``columns`` (the first on ties); "" when all are 0."""
    best = pl.max_horizontal(columns)
    expr = pl.lit("")
    for column, name in reversed(list(zip(columns, names, strict=True))):
        expr = pl.when((pl.col(column) == best) & (best > 0)).then(pl.lit(name)).otherwise(expr)
    return expr


def kernel_points(
    kernels: pl.DataFrame, levels: Mapping[str, str], *, series: str, source: str | Path
) -> pl.DataFrame:
    """Canonical points (:mod:`rooflow.points`) from a per-kernel breakdown.

    Args:
        kernels: columns ``kernel``, ``label``, ``row``, ``precision``, ``flop``,
            ``time_s`` (second) and the byte columns named in ``levels``.
        levels: memory level → byte column, in output order.
        series: the points' ``series`` value.
        source: the raw file, for ``source`` and errors.

    Returns:
        One point per kernel × level with flop > 0 and bytes > 0 (a kernel without FLOP
        or a level without traffic has arithmetic intensity 0 or infinity: no place on a
        log-log roofline), kernels in input order; arithmetic_intensity = flop / bytes
        (FLOP/byte), flop_per_s = flop / time_s, bytes_model "measured".

    Raises:
        InputError: not one such point.
    """
    frames = [
        kernels.with_row_index("_order")
        .filter((pl.col("flop") > 0) & (pl.col(column) > 0))
        .select(
            "_order", "kernel", "label", "row", "precision", "flop", "time_s",
            pl.lit(level).alias("level"), pl.col(column).alias("bytes"),
        )
        for level, column in levels.items()
    ]
    points = pl.concat(frames).sort("_order", maintain_order=True)
    if points.is_empty():
        raise InputError(
            str(source), "no kernel with both FLOP and bytes: nothing to place on a roofline",
            check="flop > 0 and bytes > 0",
        )
    return to_points(
        points.with_columns(
            (pl.col("flop") / pl.col("bytes")).alias("arithmetic_intensity"),
            (pl.col("flop") / pl.col("time_s")).alias("flop_per_s"),
            pl.lit(series).alias("series"),
            pl.lit("measured").alias("bytes_model"),
            pl.lit(str(source)).alias("source"),
        )
    )
