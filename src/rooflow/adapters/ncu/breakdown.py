"""Launch metrics → per-launch (or per-kernel) operations by precision, bytes by level, time.

Formulas and metric ids: :mod:`rooflow.formats.ncu.metrics` (NERSC method, Nsight Compute roofline
sections). Per export, each quantity uses the first way of measuring it (a
:class:`~rooflow.formats.ncu.metrics.Source`) whose metrics the export has:

* time: ``gpu__time_duration.sum``, else elapsed cycles / cycles per second
  (``sm__``, ``smsp__``, ``gpc__``);
* SM cycles, for ``.per_cycle_elapsed`` rates: ``sm__cycles_elapsed.avg`` (or
  ``smsp__``), else time × SM frequency; ``.per_second`` rates are × time;
* vector FLOP per precision: :data:`~rooflow.formats.ncu.metrics.FLOP_PER_INST` × thread
  instructions: fp64, fp32 2·FMA + MUL + ADD; fp16 4·HFMA + 2·HADD + 2·HMUL (packed half2,
  as the Half roofline section and every fp16 roof);
* tensor operations per source type from the ``sm__ops_path_tensor_*`` counters, else
  ``sm__inst_executed_pipe_tensor.sum`` × FLOP per instruction, counted as fp16-tensor
  (the NERSC method's HMMA assumption). The factor is looked up as
  ``tensor_flop_per_inst[CC]``, then :data:`~rooflow.formats.ncu.metrics.KNOWN_TENSOR_FLOP_PER_INST`
  (CC 7.0: 512), then ``tensor_flop_per_inst["default"]``; tensor instructions with no
  factor are an error naming the op-path counters to collect.
* bytes per level: :data:`~rooflow.formats.ncu.metrics.LEVELS`;
* dominant precision, ``flop`` and ``precision_mix``:
  :func:`rooflow.adapters.breakdown.summarize_precisions`, as for every profiler.

What the export lacks (a precision, the tensor counters, a level) is listed in
:attr:`NcuBreakdown.missing`; kernels without FLOP keep their bytes (bandwidth-only).
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
from rooflow.errors import InputError
from rooflow.formats.ncu.metrics import (
    CLOCKS,
    DURATION,
    FLOP_PER_INST,
    KNOWN_TENSOR_FLOP_PER_INST,
    LEVELS,
    SASS,
    TENSOR_INST,
    UNIT_CLASSES,
    VECTOR,
    Source,
    tensor_inst_sources,
    tensor_sources,
    vector_sources,
)
from rooflow.formats.ncu.passes import export_files, read_passes
from rooflow.formats.units import MISSING_VALUES

KERNEL_COLUMNS = (*BREAKDOWN_COLUMNS, "launch_id", "file", "cc")
"""Columns of :attr:`NcuBreakdown.kernels`, in order: the breakdown, then ncu's own."""

_TENSOR_HINT = (
    "collect the tensor op-path counters (ncu --metrics regex:sm__ops_path_tensor_.*, "
    "e.g. sm__ops_path_tensor_src_fp16_dst_fp32.sum) or set config "
    "ncu.tensor_flop_per_inst {{\"{cc}\": FLOP per instruction}} (or \"default\"; CLI "
    "--tensor-flop-per-inst)"
)


@dataclass(frozen=True)
class NcuBreakdown:
    """Result of :func:`ncu_breakdown`.

    Attributes:
        kernels: :data:`KERNEL_COLUMNS`: the per-kernel breakdown
            (:mod:`rooflow.adapters.breakdown`; ``ops_<precision>`` null for a precision
            the export has no counters for, ``bytes_<level>`` null for a level it lacks:
            DRAM, L2, L1 are measured), then ``launch_id`` (first launch's ID), ``file``
            (the export its ``row`` is in) and ``cc`` (compute capability, "" unknown).
        missing: metric groups the export lacks (one line each), for the caller to log.
        notes: other remarks (passes disagreeing, unknown tensor source types).
    """

    kernels: pl.DataFrame
    missing: tuple[str, ...]
    notes: tuple[str, ...]


class _Launch:
    """One launch's metrics with checked lookups."""

    def __init__(self, rows: dict[str, dict]) -> None:
        self.rows = rows
        self.first = min(rows.values(), key=lambda r: (r["order"], r["row"]))

    def check(self, used: Sequence[tuple[str, str]]) -> None:
        """Check every used metric, in row order, so the first bad row is reported."""
        order = sorted(used, key=lambda mu: self.rows[mu[0]]["row"] if mu[0] in self.rows else 0)
        for metric, unit in order:
            self.value(metric, unit)

    def value(self, metric: str, unit: str) -> float:
        row = self.rows.get(metric)
        first = self.first
        where = f"kernel '{first['kernel']}' (launch {first['launch']})"
        if row is None:
            raise InputError(first["file"], f"{where} lacks metric {metric}", row=first["row"],
                             column=metric, check="required metrics")

        def fail(message: str, check: str) -> InputError:
            return InputError(row["file"], f"{where}: metric {metric} {message}", row=row["row"],
                              column=metric, check=check, value=row["text"])

        text = (row["text"] or "").strip().lower()
        if not text or text in MISSING_VALUES:
            raise fail("has no value (failed or incomplete profile?)", "numeric")
        if row["value"] is None:
            raise fail("is not a number", "numeric")
        if row["value"] < 0:
            raise fail("is negative", ">= 0")
        if row["unit"] not in UNIT_CLASSES[unit]:
            raise fail(f"is in {row['unit']!r}, not in one of {sorted(UNIT_CLASSES[unit])}",
                       "unit")
        return float(row["value"])


def _usable(present: set[str], sources: Sequence[Source], per: set[str]) -> Source | None:
    return next((s for s in sources if set(s.metrics) <= present and s.per in per), None)


def ncu_breakdown(
    paths: str | Path | Sequence[str | Path],
    *,
    per_launch: bool = False,
    tensor_flop_per_inst: Mapping[str, float] | None = None,
) -> NcuBreakdown:
    """Per-kernel operations by precision, bytes by memory level and time (module doc).

    Args:
        paths: one ``ncu --csv`` export, several passes of one run, or a folder of them.
        per_launch: one row per launch; by default one row per kernel name, summed over
            its launches, kernels in order of first launch.
        tensor_flop_per_inst: compute capability (``"8.0"``) or ``"default"`` → FLOP per
            tensor-pipe instruction (used only without op-path counters).

    Raises:
        InputError: unreadable export; no time; neither bytes nor operations; a used
            metric that is missing for a launch, ``nan``/``n/a``/text, negative or in the
            wrong unit; tensor-pipe instructions with no op-path counters and no factor;
            a kernel time that is not positive.
    """
    files = export_files(paths)
    table, notes = read_passes(files)
    present = set(table["metric"].unique().to_list())
    missing: list[str] = []

    time = DURATION if set(DURATION.metrics) <= present else next(
        (Source(pair, "cycle") for pair in CLOCKS if set(pair) <= present), None)
    cycles = next((c for c, _ in CLOCKS[:2] if c in present), None)
    freq = next((f for _, f in CLOCKS if f in present), None)
    per = {"", "second"} | ({"cycle"} if cycles or freq else set())

    vector = {}
    for prec, letter in VECTOR.items():
        by_op = {op: _usable(present, vector_sources(letter + op), per)
                 for op in FLOP_PER_INST[letter]}
        if any(by_op.values()):
            vector[prec] = (letter, by_op)
            missing += [f"{prec} {letter}{op} counts ({SASS.format(letter + op)})"
                        for op, s in by_op.items() if s is None]
        else:
            missing.append(f"{prec} FLOP ({SASS.format(letter + 'fma|mul|add')})")
    tensor, unknown = tensor_sources(present)
    tensor = [(s, p) for s, p in tensor if s.per in per]
    notes += [f"tensor op-path source type {t} has no rooflow precision: not counted"
              for t in unknown]
    inst = None if tensor else _usable(present, tensor_inst_sources(), per)
    if not tensor and inst is None:
        missing.append(f"tensor operations (sm__ops_path_tensor_src_<type>[_dst_<type>].sum, "
                       f"or {TENSOR_INST})")
    # Precisions without a counter in the export stay null in the breakdown, not 0.
    counted = dict.fromkeys([*vector, *(p for _, p in tensor),
                             *(["fp16-tensor"] if inst is not None else [])])
    levels = {lvl: s for lvl, srcs in LEVELS.items() if (s := _usable(present, srcs, per))}
    missing += [f"{lvl} bytes ({LEVELS[lvl][0].describe()})" for lvl in LEVELS
                if lvl not in levels]
    source = files[0] if len(files) == 1 else ", ".join(map(str, files))
    if time is None:
        raise InputError(str(source), "lacks the kernel time: collect gpu__time_duration.sum "
                         "(or sm__cycles_elapsed.avg + sm__cycles_elapsed.avg.per_second)",
                         check="required metrics")
    if not levels:
        raise InputError(str(source), f"lacks {len(missing)} metric group(s) a roofline "
                         "needs: " + "; ".join(missing), check="required metrics")

    chosen = [s for s in (inst, *levels.values(), *(s for s, _ in tensor),
                          *(s for _, ops in vector.values() for s in ops.values())) if s]
    if not any(s.per == "cycle" for s in chosen):
        cycles = freq = None
    used = [(m, s.unit) for s in chosen for m in s.metrics]
    used += list(zip(time.metrics, ("second",) if time is DURATION else ("cycle", "hz"),
                     strict=True))
    used += [(cycles, "cycle")] if cycles else [(freq, "hz")] if freq else []
    factors = {str(k): float(v) for k, v in (tensor_flop_per_inst or {}).items()}
    records = []
    launches = table.partition_by("kernel", "launch", maintain_order=True)
    for frame in launches:
        launch = _Launch({r["metric"]: r for r in frame.iter_rows(named=True)})
        first = launch.first
        launch.check(used)
        if time is DURATION:
            t = launch.value(time.metrics[0], "second")
        else:  # a zero clock means no time, not a division error
            rate = launch.value(time.metrics[1], "hz")
            t = launch.value(time.metrics[0], "cycle") / rate if rate > 0 else 0.0
        if not 0 < t < float("inf"):
            raise InputError(first["file"], f"kernel '{first['kernel']}' (launch "
                             f"{first['launch']}) has no positive time", row=first["row"],
                             check="time > 0", value=t)
        sm_cycles = (launch.value(cycles, "cycle") if cycles
                     else t * launch.value(freq, "hz") if freq else None)

        def measure(s: Source, launch=launch, t=t, sm_cycles=sm_cycles) -> float:
            total = sum(launch.value(m, s.unit) for m in s.metrics) * s.scale
            total *= {"": 1.0, "second": t, "cycle": sm_cycles or 0.0}[s.per]
            if total == float("inf"):
                raise InputError(launch.first["file"], f"kernel '{launch.first['kernel']}' "
                                 f"(launch {launch.first['launch']}): {s.describe()} overflows",
                                 row=launch.first["row"], check="finite", value=total)
            return total

        ops = dict.fromkeys(counted, 0.0)
        for prec, (letter, by_op) in vector.items():
            weights = FLOP_PER_INST[letter]
            ops[prec] = sum(weights[op] * measure(s) for op, s in by_op.items() if s)
        for s, prec in tensor:
            ops[prec] += measure(s)
        if inst is not None and (count := measure(inst)) > 0:
            cc = first["cc"]
            factor = factors.get(cc, KNOWN_TENSOR_FLOP_PER_INST.get(cc, factors.get("default")))
            if factor is None:
                raise InputError(
                    first["file"], f"kernel '{first['kernel']}' (launch {first['launch']}, CC "
                    f"{cc or 'unknown'}) ran {count:,.0f} tensor-pipe instructions, but FLOP per "
                    "instruction depend on the MMA shape and the export has no op-path "
                    "counters: " + _TENSOR_HINT.format(cc=cc or "8.0"), row=first["row"],
                    column=inst.metrics[0], check="tensor FLOP")
            ops["fp16-tensor"] += count * factor
        records.append({
            "kernel": first["kernel"], "launch_id": first["launch"], "launches": 1,
            "row": first["row"], "file": first["file"], "cc": first["cc"],
            "device": first["device"], **{ops_column(p): v for p, v in ops.items()},
            "time_s": t, **{bytes_column(lvl): measure(s) for lvl, s in levels.items()},
        })
    schema = {"kernel": pl.String(), "launch_id": pl.Int64(), "launches": pl.Int64(),
              "row": pl.Int64(), "file": pl.String(), "cc": pl.String(),
              "device": pl.String(), **{ops_column(p): pl.Float64() for p in counted},
              "time_s": pl.Float64(), **{bytes_column(lvl): pl.Float64() for lvl in levels}}
    kernels = pl.DataFrame(records, schema=schema)
    if not per_launch:
        kernels = kernels.group_by("kernel", maintain_order=True).agg(
            pl.col("launch_id", "row", "file", "cc", "device").first(),
            pl.all().exclude("kernel", "launch_id", "row", "file", "cc", "device").sum(),
        )
    return NcuBreakdown(breakdown_table(kernels).select(KERNEL_COLUMNS), tuple(missing),
                        tuple(notes))

