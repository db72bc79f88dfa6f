"""Per-dispatch AMD counters → per-kernel breakdown → canonical points (every AMD reader).

The readers (:mod:`.rocprof`, :mod:`.rocprofv1`, :mod:`.rocprofv3`) bring one row per
dispatch with a kernel name, a duration in ns and the counters of a
:class:`~rooflow.adapters.amd.counters.Plan`; this module checks the values, applies the
plan's formulas, sums a kernel's dispatches and makes points.

Per kernel (sums over its dispatches): the dominant precision is the one with the most
operations (ties: :data:`rooflow.points.PRECISIONS` order), where VALU integer work
(int32, int64: mostly index and address arithmetic, which rocprof-compute keeps out of
its roofline too) counts only in kernels with no floating-point nor MFMA work; MFMA int8
competes with the FLOP precisions. ``flop`` sums the operations of every precision in
the dominant one's unit (FLOP, or integer OP: never mixed); ``precision_mix`` gives each
precision's share of all operations, integer ones included. Time is Σ duration, so
FLOP/s = Σ FLOP / Σ time, as rocprof-compute's "Performance (GFLOPs)"
(``SUM(flops) / SUM(End_Timestamp − Start_Timestamp)``, ``0400_roofline.yaml``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.adapters.amd.counters import Plan
from rooflow.adapters.breakdown import kernel_points
from rooflow.errors import InputError
from rooflow.points import PRECISIONS, op_unit
from rooflow.validate import check, coerce_numeric

log = logging.getLogger("rooflow.adapters")
# VALU integer work, mostly index and address arithmetic: it decides the precision only of
# kernels with no floating-point nor MFMA work.
_ADDRESS_MATH = ("int32", "int64")
LEVELS = ("HBM", "L2", "L1", "LDS")


def ops_column(precision: str) -> str:
    """Breakdown column of a precision's operations: ``fp64-tensor`` → ``ops_fp64_tensor``."""
    return "ops_" + precision.replace("-", "_")


@dataclass(frozen=True)
class Dispatches:
    """One AMD export, read: dispatch rows and the formulas that apply to them.

    Attributes:
        frame: ``kernel`` (str), ``row`` (1-based data row in ``source``), ``time_ns``
            (f64) and the plan's counters (f64, checked ≥ 0 and finite).
        plan: formulas and notes (:func:`rooflow.adapters.amd.counters.plan`).
        device: GPU name ("" when the export does not say).
        source: the file errors and points name.
    """

    frame: pl.DataFrame
    plan: Plan
    device: str
    source: Path

    def kernels(self) -> pl.DataFrame:
        """Per-kernel breakdown, kernels in order of first dispatch.

        Returns:
            ``kernel``, ``dispatches``, ``row`` (first dispatch), ``ops_<precision>`` per
            plan precision (operations), ``precision`` ("" when none), ``flop``
            (operations in the dominant precision's unit), ``precision_mix``, ``time_s``
            (s), ``bytes_<level>`` per plan level (byte), ``device``.

        Raises:
            InputError: a dispatch whose bytes come out negative (inconsistent counters)
                or a sum that is not finite.
        """
        precisions = sorted(self.plan.ops, key=list(PRECISIONS).index)
        ops = [ops_column(p) for p in precisions]
        levels = {lv: f"bytes_{lv.lower()}" for lv in LEVELS if lv in self.plan.levels}
        counters = list(self.frame.columns[3:])
        per = self.frame.select(
            "kernel", "row",
            *[self.plan.ops[p].expr(counters).alias(c) for p, c in zip(precisions, ops,
                                                                          strict=True)],
            (pl.col("time_ns") * 1e-9).alias("time_s"),
            *[self.plan.levels[lv].expr(counters).alias(c) for lv, c in levels.items()],
        )
        for level, column in levels.items():
            bad = per[column] < 0
            if bad.any():
                i = int(bad.arg_true()[0])
                raise InputError(
                    str(self.source), f"{self.plan.levels[level].name} bytes come out negative: "
                    "the counters contradict each other", row=int(per["row"][i]),
                    check="bytes ≥ 0", value=per[column][i],
                )
        kernels = per.group_by("kernel", maintain_order=True).agg(
            pl.len().cast(pl.Int64).alias("dispatches"), pl.col("row").first(),
            *[pl.col(c).sum() for c in (*ops, "time_s", *levels.values())],
        )
        numbers = [*ops, "time_s", *levels.values()]
        bad = kernels.select(pl.any_horizontal(pl.col(numbers).is_finite().not_())).to_series()
        if bad.any():
            i = int(bad.arg_true()[0])
            raise InputError(str(self.source), "sums overflow (counter values too large)",
                             row=int(kernels["row"][i]), check="finite", value=kernels["kernel"][i])
        shares = [_summary({p: kernels[c][i] for p, c in zip(precisions, ops, strict=True)})
                  for i in range(kernels.height)]
        return kernels.with_columns(
            pl.Series("precision", [s[0] for s in shares], dtype=pl.String),
            pl.Series("flop", [s[1] for s in shares], dtype=pl.Float64),
            pl.Series("precision_mix", [s[2] for s in shares], dtype=pl.String),
            pl.lit(self.device).alias("device"),
        ).select("kernel", "dispatches", "row", *ops, "precision", "flop", "precision_mix",
                 "time_s", *levels.values(), "device")

    def points(self, series: str) -> pl.DataFrame:
        """Canonical points: one per kernel × level with traffic (:mod:`rooflow.points`).

        The plan's notes are logged (warning) first. Kernels without operations give
        bandwidth-only rows (flop 0, no intensity); row 0 (sums over dispatches).

        Raises:
            InputError: as :meth:`kernels`; no kernel with bytes and a time.
        """
        for note in self.plan.notes:
            log.warning("%s: %s", self.source, note)
        kernels = self.kernels()
        levels = {lv: f"bytes_{lv.lower()}" for lv in LEVELS if lv in self.plan.levels}
        return kernel_points(
            kernels.with_columns(pl.col("kernel").alias("label"), pl.lit(0).alias("row")),
            levels, series=series, source=self.source,
        )


def _summary(ops: dict[str, float]) -> tuple[str, float, str]:
    """(dominant precision, operations in its unit, mix) of one kernel's operations."""
    total = sum(ops.values())
    if total <= 0:
        return "", 0.0, ""
    # VALU integer work is mostly address arithmetic: it never makes a kernel a compute
    # point (copies and integer reductions stay bandwidth-only rows, as rocprof-compute
    # leaves integer ops out of its roofline); the mix still shows it.
    work = {p: v for p, v in ops.items() if p not in _ADDRESS_MATH}
    if sum(work.values()) <= 0:
        best = ""
    else:
        best = max(work, key=lambda p: work[p])  # max keeps the first on ties
    flop = sum(v for p, v in work.items() if op_unit(p) == op_unit(best)) if best else 0.0
    used = sorted((p for p in ops if ops[p] > 0), key=lambda p: -ops[p])
    if len(used) < 2:
        return best, flop, ""
    mix = ", ".join(
        f"{p} {'<1' if ops[p] / total < 0.005 else format(100 * ops[p] / total, '.0f')}%"
        for p in used
    )
    return best, flop, mix


def checked_dispatches(
    frame: pl.DataFrame, plan: Plan, path: Path, *, kernel: str, time: str, device: str = "",
    rows: pl.Series | None = None,
) -> Dispatches:
    """Coerce and check dispatch rows; keep the columns the plan reads.

    Args:
        frame: one row per dispatch (row i = data row i + 1 of ``path``), String columns
            ``kernel``, ``time`` (duration, ns) and the plan's counters by canonical name.
        plan: the formulas.
        path: file named in errors.
        kernel: kernel-name column.
        time: duration column (ns).
        device: GPU name.
        rows: 1-based data row of each dispatch in ``path`` (default: its position).

    Raises:
        InputError: an empty kernel name; a counter that is not a number, negative or
            infinite; a duration not > 0.
    """
    counters = plan.counters
    frame = check_values(frame.select(kernel, time, *counters), counters, path,
                         kernel=kernel, time=time)
    if rows is None:
        rows = pl.int_range(1, frame.height + 1, eager=True)
    return Dispatches(
        frame.with_columns(rows.cast(pl.Int64).alias("row")).select(
            pl.col(kernel).alias("kernel"), "row",
            pl.col(time).alias("time_ns"), *counters,
        ),
        plan, device, path,
    )


def check_values(
    frame: pl.DataFrame, counters: list[str], path: Path, *, kernel: str | None = None,
    time: str | None = None,
) -> pl.DataFrame:
    """Coerce ``counters`` (and ``time``) to Float64 and check them; row i = data row i + 1.

    Raises:
        InputError: a value that is not a number, negative or infinite; a ``time`` not
            > 0; an empty ``kernel`` name.
    """
    numeric = [*([time] if time else []), *counters]
    frame = coerce_numeric(frame, numeric, path)
    finite = pa.Check(lambda d: d.lazyframe.select(pl.col(d.key).is_finite()), name="finite")
    columns = {c: pa.Column(float, [pa.Check.ge(0), finite]) for c in counters}
    if time:
        columns[time] = pa.Column(float, [pa.Check.gt(0), finite])
    if kernel:
        columns[kernel] = pa.Column(str, pa.Check.str_length(min_value=1))
    return check(frame, pa.DataFrameSchema(columns), path)
