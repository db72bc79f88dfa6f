"""Roofline analysis of canonical points against one hardware preset.

Formulas (Williams et al., CACM 2009; hierarchical form: Yang et al., "Hierarchical
Roofline Analysis for GPUs", CCPE 2020):

- attainable(level) = min(compute roof of the point's precision, AI_level × memory roof_level)
- bound(level) = memory if AI_level × memory roof < compute roof, else compute
- binding level of a kernel = the level with the lowest attainable performance;
  the kernel is bound by that level's memory, or by compute
- % of roof = achieved / attainable × 100
- headroom = attainable / achieved ("can run up to N× faster at the same intensity")
- potential time saved = time × (1 − 1 / headroom)   (0 when headroom ≤ 1)
- pair speedup = performance of the pair's Optimized (else last) point /
  performance of its Original (else first) point, per memory level

A theoretical point (no measured performance) is placed on the roof: its
performance is the attainable value, so its % of roof is 100 and headroom 1.
"""

from __future__ import annotations

import polars as pl

from rooflow.roofs.preset import Preset

KERNEL_KEY = ["source", "row", "kernel", "series", "pair", "label"]

TABLE_COLUMNS = [
    "series", "family", "label", "pair", "kernel", "level", "precision", "flop", "bytes",
    "time_s", "arithmetic_intensity", "performance", "theoretical", "compute_roof_name",
    "compute_roof", "memory_roof_name", "memory_roof", "attainable", "bound", "pct_of_roof",
    "headroom", "above_roof", "binding", "kernel_bound", "kernel_headroom",
    "potential_time_saved_s", "pair_speedup", "bytes_model", "source", "row",
]  # fmt: skip


def analyze(points: pl.DataFrame, preset: Preset) -> pl.DataFrame:
    """Attainable performance, bound, % of roof and headroom per point.

    Args:
        points: canonical points (:mod:`rooflow.points`).
        preset: the hardware roofs (base units).

    Returns:
        One row per input row, columns :data:`TABLE_COLUMNS`. performance,
        compute_roof, attainable in FLOP/s; memory_roof in byte/s; pct_of_roof in %.
        Rows whose level has no memory roof on ``preset`` keep null roofs and
        analysis values (their kernel is judged on the levels the preset has).
    """
    precisions = points["precision"].unique().to_list()
    levels = points["level"].unique().to_list()
    compute = {p: preset.compute_roof(p) for p in precisions}
    memory = {lv: preset.memory_roof(lv) for lv in levels}
    frame = points.with_columns(
        compute_roof_name=pl.col("precision").replace_strict(
            {p: k for p, (k, _) in compute.items()}, return_dtype=pl.String
        ),
        compute_roof=pl.col("precision").replace_strict(
            {p: v for p, (_, v) in compute.items()}, return_dtype=pl.Float64
        ),
        memory_roof_name=pl.col("level").replace_strict(
            {lv: (m[0] if m else None) for lv, m in memory.items()}, return_dtype=pl.String
        ),
        memory_roof=pl.col("level").replace_strict(
            {lv: (m[1] if m else None) for lv, m in memory.items()}, return_dtype=pl.Float64
        ),
    )
    memory_attainable = pl.col("arithmetic_intensity") * pl.col("memory_roof")
    frame = frame.with_columns(
        attainable=pl.when(pl.col("memory_roof").is_null())
        .then(None)
        .otherwise(pl.min_horizontal("compute_roof", memory_attainable)),
        bound=pl.when(pl.col("memory_roof").is_null())
        .then(None)
        .when(memory_attainable < pl.col("compute_roof"))
        .then(pl.lit("memory"))
        .otherwise(pl.lit("compute")),
    )
    frame = frame.with_columns(
        theoretical=pl.col("flop_per_s").is_null(),
        performance=pl.coalesce("flop_per_s", "attainable"),
    )
    frame = frame.with_columns(
        pct_of_roof=pl.col("performance") / pl.col("attainable") * 100,
        headroom=pl.col("attainable") / pl.col("performance"),
        above_roof=pl.col("performance") > pl.col("attainable") * (1 + 1e-9),
    )
    frame = _kernel_level(frame)
    frame = _pair_speedup(frame)
    return frame.select(TABLE_COLUMNS)


def _kernel_level(frame: pl.DataFrame) -> pl.DataFrame:
    """Binding level, kernel bound class, kernel headroom and time saved."""
    # Windows run over one integer kernel id, each stored as a column before use: nested
    # or repeated over() on the six string keys took ~40 s on 10⁶ rows (polars 2.1).
    frame = frame.with_row_index("_i").with_columns(_k=pl.struct(KERNEL_KEY).rank("dense"))
    frame = frame.with_columns(_lowest=pl.col("attainable").min().over("_k"))
    # One binding row per kernel: the first level (in table order) with the lowest roof.
    frame = frame.with_columns(
        _first=pl.col("_i").filter(pl.col("attainable") == pl.col("_lowest")).first().over("_k")
    )
    frame = frame.with_columns(
        binding=(pl.col("_i") == pl.col("_first")).fill_null(False),
        kernel_headroom=pl.col("_lowest") / pl.col("performance"),
    )
    binding_class = (
        pl.when(pl.col("bound") == "compute")
        .then(pl.lit("compute"))
        .otherwise(pl.col("level"))
    )
    kernel_bound = binding_class.filter(pl.col("binding")).first().over("_k")
    saved = pl.col("time_s") * (1 - 1 / pl.col("kernel_headroom"))
    return frame.with_columns(
        kernel_bound=kernel_bound,
        potential_time_saved_s=pl.when(pl.col("theoretical"))
        .then(None)
        .otherwise(pl.max_horizontal(saved, pl.lit(0.0))),
    ).drop("_i", "_k", "_lowest", "_first")


def _pair_speedup(frame: pl.DataFrame) -> pl.DataFrame:
    group = ["source", "pair", "level"]
    measured = pl.col("performance").filter(~pl.col("theoretical"))
    base = (
        pl.when((pl.col("series") == "Original").any())
        .then(measured.filter(pl.col("series") == "Original").first())
        .otherwise(measured.first())
    )
    target = (
        pl.when((pl.col("series") == "Optimized").any())
        .then(measured.filter(pl.col("series") == "Optimized").first())
        .otherwise(measured.last())
    )
    speedups = (
        frame.filter(pl.col("pair") != "")
        .sort("row")
        .group_by(group, maintain_order=True)
        .agg(pair_speedup=(target / base), n=pl.len())
        .filter(pl.col("n") > 1)
        .drop("n")
    )
    return frame.join(speedups, on=group, how="left", maintain_order="left")


def above_roof(table: pl.DataFrame) -> pl.DataFrame:
    """Rows of an :func:`analyze` table whose achieved performance exceeds the roof."""
    return table.filter(pl.col("above_roof"))
