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
        One point per kernel × level with bytes > 0 (a level without traffic has no
        intensity), kernels in input order; bytes_model "measured". Kernels with
        flop > 0: arithmetic_intensity = flop / bytes, flop_per_s = flop / time_s.
        Kernels with no operations (copies, memsets): flop 0, flop_per_s 0, intensity
        null — bandwidth-only rows, analysed against the memory roofs only. Optional
        ``kernels`` columns ``precision_mix`` and ``device`` are carried over.

    Raises:
        InputError: not one kernel with bytes and a time.
    """
    extra = [c for c in ("precision_mix", "device") if c in kernels.columns]
    frames = [
        kernels.with_row_index("_order")
        .filter((pl.col(column) > 0) & (pl.col("time_s") > 0))
        .select(
            "_order", "kernel", "label", "row", "precision", "flop", "time_s", *extra,
            pl.lit(level).alias("level"), pl.col(column).alias("bytes"),
        )
        for level, column in levels.items()
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
            .alias("flop_per_s"),
            pl.when(has_ops).then(pl.col("precision")).otherwise(pl.lit("")).alias("precision"),
            pl.lit(series).alias("series"),
            pl.lit("measured").alias("bytes_model"),
            pl.lit(str(source)).alias("source"),
    )
    _check_finite(points, source)
    return to_points(points)


def _check_finite(points: pl.DataFrame, source: str | Path) -> None:
    """A derived rate or intensity that overflows (a time of 1e-300 s) is the input's error."""
    for column in ("flop_per_s", "arithmetic_intensity"):
        bad = points.filter(pl.col(column).is_not_null() & ~pl.col(column).is_finite())
        if bad.height:
            row = bad.row(0, named=True)
            raise InputError(
                str(source), f"{column} of kernel '{row['kernel']}' is not a finite number "
                f"(flop {row['flop']:g} over time {row['time_s']:g} s and {row['bytes']:g} "
                "bytes): check the time and byte values", row=row["row"], column=column,
                check="finite", value=row[column],
            )
