"""Nsight Compute exports (``ncu --csv``) and reports (``.ncu-rep``) → canonical points.

Reading: :mod:`rooflow.formats.ncu.pages` (details and raw pages of every ncu version,
labels or metric ids; reports: :mod:`rooflow.formats.ncu.report`),
:mod:`rooflow.formats.ncu.passes` (several passes of one run, merged per kernel and
launch), formulas: :mod:`rooflow.formats.ncu.metrics` and :mod:`.breakdown`
(NERSC hierarchical roofline method; Nsight Compute roofline sections). Measured device
peaks: :mod:`rooflow.roofs.ncu`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import polars as pl

from rooflow.adapters.breakdown import BYTES_COLUMNS, kernel_points
from rooflow.adapters.ncu.quantities import KERNEL_COLUMNS, NcuBreakdown, ncu_breakdown
from rooflow.formats.ncu.pages import read_ncu
from rooflow.points import concat_tables, to_points
from rooflow.settings import Settings

__all__ = ["KERNEL_COLUMNS", "NcuBreakdown", "load", "ncu_breakdown", "ncu_kernels",
           "ncu_points", "rate_points", "read_ncu"]

_LOG = logging.getLogger("rooflow.ncu")


def ncu_kernels(
    paths: str | Path | Sequence[str | Path],
    *,
    per_launch: bool = False,
    tensor_flop_per_inst: Mapping[str, float] | None = None,
) -> pl.DataFrame:
    """The kernels table of :func:`~.breakdown.ncu_breakdown` (:data:`KERNEL_COLUMNS`)."""
    return ncu_breakdown(paths, per_launch=per_launch,
                         tensor_flop_per_inst=tensor_flop_per_inst).kernels


def ncu_points(
    paths: str | Path | Sequence[str | Path],
    *,
    per_launch: bool = False,
    tensor_flop_per_inst: Mapping[str, float] | None = None,
    log: Callable[[str], None] | None = None,
) -> pl.DataFrame:
    """Canonical roofline points (:mod:`rooflow.points`) of ncu export(s) or report(s).

    One row per kernel × memory level (DRAM, L2, L1) with bytes, series "ncu", label =
    kernel (``"<kernel> [launch <ID>]"`` with ``per_launch``), precision = the kernel's
    dominant precision, flop = its operations (FLOP, or OP for int* precisions), bytes at
    the level, arithmetic intensity = flop / bytes, performance = flop / time_s, device =
    ``device__attribute_display_name`` when exported, row = the launch's first data row
    (per launch) or 0 (sums), clock_hz = the SM clock the launches ran at
    (``sm__cycles_elapsed.avg.per_second``, else the ``smsp__``/``gpc__`` one; several
    launches: their cycles over their time), memory_clock_hz = the DRAM clock alike
    (``dram__cycles_elapsed.avg.per_second``), l2_clock_hz = the L2 clock alike
    (``lts__cycles_elapsed.avg.per_second``), launches = the launches summed. Kernels
    without operations are bandwidth-only rows (flop 0). Kernels without a time (rates
    only) come last, as :func:`rate_points`.

    Args:
        paths: an export (``ncu --csv`` or ``.ncu-rep``), several passes of one run, or a
            folder of CSV passes.
        per_launch: one point per launch.
        tensor_flop_per_inst: CC or "default" → FLOP per tensor-pipe instruction.
        log: called once per metric group the export lacks, per note, per kernel left
            out and once for kernels placed without a time (default: the ``rooflow.ncu``
            logger, level WARNING).

    Raises:
        InputError: as :func:`~.breakdown.ncu_breakdown`.
    """
    result = ncu_breakdown(paths, per_launch=per_launch,
                           tensor_flop_per_inst=tensor_flop_per_inst)
    say = log or _LOG.warning
    source = result.kernels["file"][0] if result.kernels.height else str(paths)
    for group in result.missing:
        say(f"{source}: no {group}: not counted")
    for note in result.notes:
        say(f"{source}: {note}")
    for line in result.left_out:
        say(f"{source}: {line}")
    label = (
        pl.format("{} [launch {}]", "kernel", "launch_id") if per_launch else pl.col("kernel")
    )
    kernels = result.kernels.with_columns(
        label.alias("label"),
        (pl.col("row") if per_launch else pl.lit(0, dtype=pl.Int64)).alias("row"),
    )
    timed = kernels.filter(pl.col("time_s").is_not_null())
    untimed = kernels.filter(pl.col("time_s").is_null())
    frames = [kernel_points(timed, series="ncu", source=source)] if timed.height else []
    if untimed.height:
        say(f"{source}: {untimed.height} kernel(s) placed from their rates, without a kernel "
            "time (the export has no gpu__time_duration.sum for them): no time saved is "
            "given for them; collect gpu__time_duration.sum for it")
        frames.append(rate_points(untimed, source))
    return concat_tables(frames)


def rate_points(kernels: pl.DataFrame, source: str | Path) -> pl.DataFrame:
    """Points of kernels known by their rates only (``time_s`` null, work and bytes per s).

    One point per kernel × level with traffic: arithmetic intensity = FLOP/s ÷ byte/s,
    performance = the FLOP rate; flop, bytes and time null (not measured). The breakdown
    places no untimed kernel without operations (a bandwidth needs bytes over a time).
    """
    frames = [
        kernels.with_row_index("_order").filter(pl.col(column) > 0).select(
            "_order", "kernel", "label", "row", "precision", "precision_mix", "device",
            "clock_hz", "memory_clock_hz", "l2_clock_hz", "launches",
            pl.lit(level).alias("level"),
            (pl.col("flop") / pl.col(column)).alias("arithmetic_intensity"),
            pl.col("flop").alias("performance"))
        for level, column in BYTES_COLUMNS.items() if column in kernels.columns
    ]
    points = pl.concat(frames).sort("_order", maintain_order=True).with_columns(
        pl.lit("ncu").alias("series"), pl.lit("measured").alias("bytes_model"),
        pl.lit(str(source)).alias("source"))
    return to_points(points)


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: :func:`ncu_points` with the settings' ``ncu`` keys."""
    return ncu_points(path, per_launch=settings.per_launch,
                      tensor_flop_per_inst=dict(settings.tensor_flop_per_inst) or None)
