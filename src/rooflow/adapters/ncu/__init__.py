"""Nsight Compute ``ncu --csv`` exports → canonical roofline points.

Reading: :mod:`rooflow.formats.ncu.layout` (details and raw pages of every ncu version,
labels or metric ids), :mod:`rooflow.formats.ncu.passes` (several passes of one run, merged
per kernel and launch), formulas: :mod:`rooflow.formats.ncu.metrics` and :mod:`.breakdown`
(NERSC hierarchical roofline method; Nsight Compute roofline sections). Measured device
peaks: :mod:`rooflow.roofs.ncu`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import polars as pl

from rooflow.adapters.breakdown import kernel_points
from rooflow.adapters.ncu.breakdown import KERNEL_COLUMNS, NcuBreakdown, ncu_breakdown
from rooflow.formats.ncu.layout import read_ncu
from rooflow.settings import Settings

__all__ = ["KERNEL_COLUMNS", "NcuBreakdown", "load", "ncu_breakdown", "ncu_kernels",
           "ncu_points", "read_ncu"]

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
    """Canonical roofline points (:mod:`rooflow.points`) of ``ncu --csv`` export(s).

    One row per kernel × memory level (DRAM, L2, L1) with bytes, series "ncu", label =
    kernel (``"<kernel> [launch <ID>]"`` with ``per_launch``), precision = the kernel's
    dominant precision, flop = its operations (FLOP, or OP for int* precisions), bytes at
    the level, arithmetic intensity = flop / bytes, flop_per_s = flop / time_s, device =
    ``device__attribute_display_name`` when exported, row = the launch's first data row
    (per launch) or 0 (sums). Kernels without operations are bandwidth-only rows (flop 0).

    Args:
        paths: an export, several passes of one run, or a folder of them.
        per_launch: one point per launch.
        tensor_flop_per_inst: CC or "default" → FLOP per tensor-pipe instruction.
        log: called once per metric group the export lacks and per note (default: the
            ``rooflow.ncu`` logger, level WARNING).

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
    label = (
        pl.format("{} [launch {}]", "kernel", "launch_id") if per_launch else pl.col("kernel")
    )
    return kernel_points(
        result.kernels.with_columns(
            label.alias("label"),
            (pl.col("row") if per_launch else pl.lit(0, dtype=pl.Int64)).alias("row"),
        ),
        series="ncu",
        source=source,
    )


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: :func:`ncu_points` with the settings' ``ncu`` keys."""
    return ncu_points(path, per_launch=settings.per_launch,
                      tensor_flop_per_inst=dict(settings.tensor_flop_per_inst) or None)
