"""Launch metrics → per-launch (or per-kernel) operations by precision, bytes by level, time.

Formulas and metric ids: :mod:`rooflow.formats.ncu.metrics` (NERSC method, Nsight Compute
roofline sections); one launch is judged in :mod:`.launch`. Each quantity uses the first
way of measuring it (a :class:`~rooflow.formats.ncu.metrics.Source`) that has values:

* time: ``gpu__time_duration.sum``, else elapsed cycles / cycles per second
  (``sm__``, ``smsp__``, ``gpc__``);
* SM clock (``clock_hz``): ``sm__cycles_elapsed.avg.per_second``, else the ``smsp__`` or
  ``gpc__`` one; a kernel's launches: Σ tᵢ·fᵢ / Σ tᵢ (its cycles over its time); the DRAM
  clock (``memory_clock_hz``) alike from ``dram__cycles_elapsed.avg.per_second``, the L2
  clock (``l2_clock_hz``) from ``lts__cycles_elapsed.avg.per_second``;
* SM cycles, for ``.per_cycle_elapsed`` rates: ``sm__cycles_elapsed.avg`` (or
  ``smsp__``), else time × SM frequency; ``.per_second`` rates are × time; each pass's
  rates with that pass's own clock, cycles and duration where it has them;
* no time (a roofline section without a duration): the work and traffic as rates,
  ``.per_second`` as given and ``.per_cycle_elapsed`` × SM frequency, give the point
  (intensity = FLOP/s ÷ byte/s) without a time;
* vector FLOP per precision: :data:`~rooflow.formats.ncu.metrics.FLOP_PER_INST` × thread
  instructions: fp64, fp32 2·FMA + MUL + ADD; fp16 4·HFMA + 2·HADD + 2·HMUL (packed half2,
  as the Half roofline section and every fp16 roof);
* tensor operations per source type from the ``sm__ops_path_tensor_*`` counters, else
  ``sm__inst_executed_pipe_tensor.sum`` × FLOP per instruction, counted as fp16-tensor
  (the NERSC method's HMMA assumption). The factor is looked up as
  ``tensor_flop_per_inst[CC]``, then :data:`~rooflow.formats.ncu.metrics.KNOWN_TENSOR_FLOP_PER_INST`
  (CC 7.0: 512), then ``tensor_flop_per_inst["default"]``; a kernel with tensor
  instructions and no factor is left out, its line naming the op-path counters to collect.
* bytes per level: :data:`~rooflow.formats.ncu.metrics.LEVELS`;
* dominant precision, ``flop`` and ``precision_mix``:
  :func:`rooflow.adapters.breakdown.summarize_precisions`, as for every profiler.

Per launch, each quantity uses the first way whose metrics have a value for that launch:
a metric whose value is empty, ``nan`` or ``n/a`` is one the launch does not measure
(a tensor path the GPU lacks), never a failed profile. What the whole export lacks (a
precision, the tensor counters, a level) is listed in :attr:`NcuBreakdown.missing`;
kernels without FLOP keep their bytes (bandwidth-only). A kernel that cannot be placed is
left out with one line in :attr:`NcuBreakdown.left_out`; the export fails only when no
kernel can be placed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rooflow.adapters.breakdown import (
    BREAKDOWN_COLUMNS,
    breakdown_table,
    bytes_column,
    ops_column,
)
from rooflow.adapters.ncu.launch import LaunchMetrics, MetricPlan, export_plan, launch_record
from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.formats.ncu.passes import export_files, read_passes
from rooflow.formats.units import MISSING_VALUES
from rooflow.points import PER_CALL_SCHEMA, per_call_stats

_PER_CALL = tuple(c for c in PER_CALL_SCHEMA if c != "calls")
KERNEL_COLUMNS = (*BREAKDOWN_COLUMNS, "launch_id", "file", "cc", *_PER_CALL)
"""Columns of :attr:`NcuBreakdown.kernels`, in order: the breakdown, then ncu's own."""


@dataclass(frozen=True)
class NcuBreakdown:
    """Result of :func:`ncu_breakdown`.

    Attributes:
        kernels: :data:`KERNEL_COLUMNS`: the per-kernel breakdown
            (:mod:`rooflow.adapters.breakdown`; ``ops_<precision>`` null for a precision
            the export has no counters for, ``bytes_<level>`` null for a level it lacks:
            DRAM, L2, L1 are measured), then ``launch_id`` (first launch's ID), ``file``
            (the export its ``row`` is in), ``cc`` (compute capability, "" unknown) and
            the per-call times of :data:`rooflow.points.PER_CALL_SCHEMA` over the
            ``launches`` (s; mean, median, std with ddof 1 and null for one launch, min,
            max; null for an untimed kernel).
            A kernel without a time (``time_s`` null: the export gives its work and
            traffic as rates only, e.g. a roofline section without a duration) has its
            ``ops_`` and ``bytes_`` per second.
        missing: metric groups the export lacks (one line each), for the caller to log.
        notes: other remarks (passes disagreeing, unknown tensor source types, launches
            without a level's bytes, untimed launches averaged).
        left_out: one line per kernel (per launch with ``per_launch``) that cannot be
            placed: why, and what to collect.
    """

    kernels: pl.DataFrame
    missing: tuple[str, ...]
    notes: tuple[str, ...]
    left_out: tuple[str, ...] = ()


def _kernel_sums(
    records: list[dict], plan: MetricPlan
) -> tuple[list[dict], list[str], dict[str, InputError]]:
    """One row per kernel name from its launches (in order of first launch), and notes.

    Timed launches sum (operations of a precision over the launches that count it; a
    level's bytes only if every launch has them, else the level is left out for the
    kernel, said in a note). A kernel with an untimed launch is placed from rates:
    each launch's work per second (a timed one's over its time), averaged over its
    launches, each weighted alike, time null (said in a note when it has several).

    Returns:
        (rows, notes, kernels left out: no level measured for all their launches).
    """
    by_kernel: dict[str, list[dict]] = {}
    for record in records:
        by_kernel.setdefault(record["kernel"], []).append(record)
    out: list[dict] = []
    notes: list[str] = []
    left: dict[str, InputError] = {}
    ops_columns = [ops_column(p) for p in plan.counted]
    byte_columns = [bytes_column(lvl) for lvl in plan.levels]
    for kernel, launches in by_kernel.items():
        first = launches[0]
        timed = all(r["time_s"] is not None for r in launches)
        if not timed:
            launches = [{**r, **{c: (r[c] / r["time_s"] if r.get(c) is not None else None)
                                 for c in (*ops_columns, *byte_columns)}}
                        if r["time_s"] is not None else r for r in launches]
            if len(launches) > 1:
                notes.append(f"kernel '{short_name(kernel)}': {len(launches)} launches, some "
                             "without a "
                             "kernel time: placed from their rates averaged over the "
                             "launches, each weighted alike")
        combine = sum if timed else (lambda values: sum(values) / len(values))
        stats = per_call_stats([r["time_s"] for r in launches] if timed else [None])
        row = {**first, "launches": len(launches),
               "time_s": sum(r["time_s"] for r in launches) if timed else None,
               "clock_hz": _mean_clock(launches, "clock_hz"),
               "memory_clock_hz": _mean_clock(launches, "memory_clock_hz"),
               "l2_clock_hz": _mean_clock(launches, "l2_clock_hz"),
               **{c: stats[c] for c in _PER_CALL}}
        for column in ops_columns:
            values = [r[column] for r in launches if r.get(column) is not None]
            row[column] = combine(values) if values else None
        for column in byte_columns:
            lacking = [r["launch_id"] for r in launches if r.get(column) is None]
            if lacking and len(lacking) < len(launches):
                level = column.removeprefix('bytes_').upper()
                notes.append(f"kernel '{short_name(kernel)}': no {level} "
                             f"bytes for launch {', '.join(map(str, lacking[:5]))} "
                             f"({len(lacking)} of {len(launches)}): that level is left out "
                             "for the kernel")
            row[column] = None if lacking else combine([r[column] for r in launches])
        huge = next((c for c in (*ops_columns, *byte_columns)
                     if row[c] is not None and row[c] == float("inf")), None)
        if huge:
            left[kernel] = InputError(first["file"], f"kernel '{short_name(kernel)}': its "
                                      f"{huge} summed over its launches overflow", row=first["row"],
                                      check="finite")
        elif all(row[c] is None for c in byte_columns):
            left[kernel] = InputError(
                first["file"], f"kernel '{short_name(kernel)}': no memory level has bytes "
                "for all of "
                f"its {len(launches)} launches: collect the same byte metrics for every "
                "launch (or use per-launch points)", row=first["row"],
                check="required metrics")
        if kernel in left:
            continue
        out.append(row)
    return out, notes, left


def _mean_clock(launches: list[dict], column: str) -> float | None:
    """A clock (``column``) of a kernel's launches: their cycles over their time (Hz).

    Σ tᵢ·fᵢ / Σ tᵢ over the launches with that clock (each weighted alike where untimed);
    None when none has one.
    """
    clocked = [(r["time_s"] or 1.0, r[column]) for r in launches if r.get(column)]
    if not clocked:
        return None
    return sum(t * hz for t, hz in clocked) / sum(t for t, _ in clocked)


def _profiler_said(files: Sequence[Path]) -> str:
    """"; the profiler reported: ==ERROR== …" from CSV exports that hold such lines, else ""."""
    from rooflow.formats.ncu.pages import profiler_errors

    lines: list[str] = []
    for path in files:
        if path.suffix.lower() == ".csv":
            try:
                lines += profiler_errors(path.read_text(encoding="utf-8-sig",
                                                        errors="replace").splitlines())
            except OSError:
                continue
    return "; the profiler reported: " + " | ".join(lines[:3]) if lines else ""


def ncu_breakdown(
    paths: str | Path | Sequence[str | Path],
    *,
    per_launch: bool = False,
    tensor_flop_per_inst: Mapping[str, float] | None = None,
) -> NcuBreakdown:
    """Per-kernel operations by precision, bytes by memory level and time (module doc).

    Each kernel is judged on its own: a metric without a value for a launch (empty,
    ``nan``, ``n/a``) is one that launch does not measure; a kernel that cannot be
    placed (a bad value, no bytes at any level, tensor instructions without a factor, no
    time and no rates) is left out with a line in :attr:`NcuBreakdown.left_out`, and the
    export fails only when no kernel is left.

    Args:
        paths: one export (CSV or ``.ncu-rep``), several passes of one run, or a folder.
        per_launch: one row per launch; by default one row per kernel name, summed over
            its launches, kernels in order of first launch.
        tensor_flop_per_inst: compute capability (``"8.0"``) or ``"default"`` → FLOP per
            tensor-pipe instruction (used only without op-path counters).

    Raises:
        InputError: unreadable export; neither bytes at any level nor anything else a
            roofline needs in the whole export (naming the metric groups); no kernel that
            can be placed (the reason of the first one left out, with its row, metric and
            value where it has them).
    """
    files = export_files(paths)
    table, notes = read_passes(files)
    # The ways to measure come from every metric the export names; what it lacks (to
    # log) from those with a value somewhere: an all-n/a metric is not measured.
    named = set(table["metric"].unique().to_list())
    text = pl.col("text").str.strip_chars()
    present = set(table.filter(~text.str.to_lowercase().is_in(list(MISSING_VALUES))
                               & (text != ""))["metric"].unique().to_list())
    plan, _, _ = export_plan(named)
    _, missing, more = export_plan(present)
    notes += more
    source = files[0] if len(files) == 1 else ", ".join(map(str, files))
    if not plan.levels:
        raise InputError(str(source), f"lacks {len(missing)} metric group(s) a roofline "
                         "needs: " + "; ".join(missing), check="required metrics")
    factors = {str(k): float(v) for k, v in (tensor_flop_per_inst or {}).items()}
    records: list[dict] = []
    # kernel (per_launch: kernel and launch) → why it is left out, first reason kept
    failed: dict[tuple[str, int | None], InputError] = {}
    for frame in table.partition_by("kernel", "launch", maintain_order=True):
        launch = LaunchMetrics({r["metric"]: r for r in frame.iter_rows(named=True)})
        key = (launch.first["kernel"], launch.first["launch"] if per_launch else None)
        try:
            record = launch_record(launch, plan, factors)
        except InputError as why:
            failed.setdefault(key, why)
            continue
        stats = per_call_stats([record["time_s"]])
        records.append({**record, **{c: stats[c] for c in _PER_CALL}})
    if not per_launch:
        records = [r for r in records if (r["kernel"], None) not in failed]
        records, more, left = _kernel_sums(records, plan)
        notes += more
        failed |= {(kernel, None): err for kernel, err in left.items()}
    left_out = tuple(
        "left out: " + err.message + (f" ({err.column}: {err.value!r})"
                                      if err.column and err.value is not None else "")
        for err in failed.values())
    if not records:
        said = _profiler_said(files)
        if failed:
            err = next(iter(failed.values()))
            message = (err.message if len(failed) == 1 else
                       f"no kernel can be placed ({len(failed)} left out); the first: "
                       + err.message)
            raise InputError(err.file, message + said, row=err.row, column=err.column,
                             check=err.check, value=err.value)
        raise InputError(str(source), "no kernel with bytes at a memory level measured for "
                         "every launch", check="required metrics")
    schema = {"kernel": pl.String(), "launch_id": pl.Int64(), "launches": pl.Int64(),
              "row": pl.Int64(), "file": pl.String(), "cc": pl.String(),
              "device": pl.String(), **{ops_column(p): pl.Float64() for p in plan.counted},
              "time_s": pl.Float64(), "clock_hz": pl.Float64(),
              "memory_clock_hz": pl.Float64(), "l2_clock_hz": pl.Float64(),
              **{bytes_column(lvl): pl.Float64() for lvl in plan.levels},
              **{c: PER_CALL_SCHEMA[c] for c in _PER_CALL}}
    kernels = pl.DataFrame(records, schema=schema)
    return NcuBreakdown(breakdown_table(kernels).select(KERNEL_COLUMNS), tuple(missing),
                        tuple(notes), left_out)
