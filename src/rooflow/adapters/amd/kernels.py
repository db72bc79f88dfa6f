"""Per-dispatch AMD counters → per-kernel breakdown → canonical points (every AMD reader).

The readers (:mod:`.rocprof`, :mod:`.rocprofv1`, :mod:`.rocprofv3`) bring one row per
dispatch with a kernel name, a duration in ns and the counters of a
:class:`~rooflow.adapters.amd.counters.CounterPlan`; this module checks the values, applies the
plan's formulas, sums a kernel's dispatches and makes points.

Per kernel (sums over its dispatches), the dominant precision, ``flop`` and
``precision_mix`` follow :func:`rooflow.adapters.breakdown.summarize_precisions`, the rule
of every profiler: VALU integer work (int32, int64: mostly index and address arithmetic,
which rocprof-compute keeps out of its roofline too) never decides the precision, so a
kernel with only that work is a bandwidth-only row; MFMA int8 competes with the FLOP
precisions; the mix shows every share, integer ones included. Time is Σ duration, so
FLOP/s = Σ FLOP / Σ time, as rocprof-compute's "Performance (GFLOPs)"
(``SUM(flops) / SUM(End_Timestamp − Start_Timestamp)``, ``0400_roofline.yaml``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.adapters.amd.counters import LANES, WAVE, CounterPlan
from rooflow.adapters.breakdown import breakdown_table, bytes_column, kernel_points, ops_column
from rooflow.errors import InputError
from rooflow.levels import canonical_level
from rooflow.validate import check, coerce_numeric

log = logging.getLogger("rooflow.adapters")


@dataclass(frozen=True)
class Dispatches:
    """One AMD export, read: dispatch rows and the formulas that apply to them.

    Attributes:
        frame: ``kernel`` (str), ``row`` (1-based data row in ``source``), ``time_ns``
            (f64), ``wave_size`` (f64: lanes per VALU instruction, 32 or 64) and the
            plan's counters (f64, checked ≥ 0 and finite).
        plan: formulas and notes (:func:`rooflow.adapters.amd.counters.plan`).
        device: GPU name ("" when the export does not say).
        source: the file errors and points name.
        notes: the reader's own notes (how the time or wave size was found), logged with
            the plan's.
    """

    frame: pl.DataFrame
    plan: CounterPlan
    device: str
    source: Path
    notes: tuple[str, ...] = ()

    def kernels(self) -> pl.DataFrame:
        """Per-kernel breakdown, kernels in order of first dispatch.

        Returns:
            The per-kernel breakdown (:mod:`rooflow.adapters.breakdown`): ``launches``
            counts dispatches, ``row`` is the first one's; ``ops_<precision>`` for the
            plan's precisions (the others null); ``bytes_dram`` (HBM), ``bytes_l2``,
            ``bytes_l1`` (vL1D), ``bytes_lds`` for the plan's levels (the others null).

        Raises:
            InputError: a dispatch whose bytes come out negative (inconsistent counters)
                or a sum that is not finite.
        """
        ops = {p: ops_column(p) for p in self.plan.ops}
        # The plan's levels (HBM, L2, L1, LDS) are all known names.
        levels = {lv: bytes_column(canonical_level(lv) or lv) for lv in self.plan.levels}
        counters = list(self.frame.columns[4:])
        per = self.frame.select(
            "kernel", "row",
            *[self.plan.ops[p].expr([*counters, WAVE]).alias(c) for p, c in ops.items()],
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
        numbers = [*ops.values(), "time_s", *levels.values()]
        kernels = per.group_by("kernel", maintain_order=True).agg(
            pl.len().cast(pl.Int64).alias("launches"), pl.col("row").first(),
            *[pl.col(c).sum() for c in numbers],
        )
        bad = kernels.select(pl.any_horizontal(pl.col(numbers).is_finite().not_())).to_series()
        if bad.any():
            i = int(bad.arg_true()[0])
            raise InputError(str(self.source), "sums overflow (counter values too large)",
                             row=int(kernels["row"][i]), check="finite", value=kernels["kernel"][i])
        return breakdown_table(kernels.with_columns(pl.lit(self.device).alias("device")))

    def points(self, series: str) -> pl.DataFrame:
        """Canonical points: one per kernel × level with traffic (:mod:`rooflow.points`).

        The plan's and the reader's notes are logged (warning) first. Kernels without
        operations give bandwidth-only rows (flop 0, no intensity); row 0 (sums over
        dispatches).

        Raises:
            InputError: as :meth:`kernels`; no kernel with bytes and a time.
        """
        for note in (*self.plan.notes, *self.notes):
            log.warning("%s: %s", self.source, note)
        return kernel_points(
            self.kernels().with_columns(pl.col("kernel").alias("label"), pl.lit(0).alias("row")),
            series=series, source=self.source,
        )


def checked_dispatches(
    frame: pl.DataFrame, plan: CounterPlan, path: Path, *, kernel: str, time: str, device: str = "",
    rows: pl.Series | None = None, wave: str | float = LANES, notes: tuple[str, ...] = (),
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
        wave: the wave size of every dispatch, or the column holding each one's (32 or
            64; :func:`rooflow.adapters.amd.counters.wave_size` gives an arch's default).
        notes: the reader's notes (:attr:`Dispatches.notes`).

    Raises:
        InputError: an empty kernel name; a counter that is not a number, negative or
            infinite; a duration not > 0; a wave size other than 32 or 64.
    """
    counters = plan.counters
    waves = [wave] if isinstance(wave, str) else []
    frame = check_values(frame.select(kernel, time, *waves, *counters), counters, path,
                         kernel=kernel, time=time)
    if isinstance(wave, str):
        frame = check(coerce_numeric(frame, [wave], path), pa.DataFrameSchema(
            {wave: pa.Column(float, pa.Check.isin([32.0, 64.0]))}), path)
    if rows is None:
        rows = pl.int_range(1, frame.height + 1, eager=True)
    return Dispatches(
        frame.with_columns(rows.cast(pl.Int64).alias("row")).select(
            pl.col(kernel).alias("kernel"), "row", pl.col(time).alias("time_ns"),
            (pl.col(wave) if isinstance(wave, str) else pl.lit(float(wave))).alias(WAVE),
            *counters,
        ),
        plan, device, path, notes,
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
