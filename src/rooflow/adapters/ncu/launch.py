"""One ncu launch's metrics → its operations by precision, bytes by level and time.

:func:`export_plan` lists every way an export measures each quantity
(:mod:`rooflow.formats.ncu.metrics`); :func:`launch_record` judges one launch on its own
with it: each quantity from the first way whose metrics have a value for that launch, rates
× its pass's own clock, or rates alone without a time. Its errors are the reasons a kernel
is left out (:func:`rooflow.adapters.ncu.quantities.ncu_breakdown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from rooflow.adapters.breakdown import bytes_column, ops_column
from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.formats.ncu.metrics import (
    CLOCKS,
    DRAM_CLOCK,
    DURATION,
    FLOP_PER_INST,
    KNOWN_TENSOR_FLOP_PER_INST,
    L2_CLOCK,
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
from rooflow.formats.units import MISSING_VALUES

_TENSOR_HINT = (
    "collect the tensor op-path counters (ncu --metrics regex:sm__ops_path_tensor_.*, "
    "e.g. sm__ops_path_tensor_src_fp16_dst_fp32.sum) or set config "
    "ncu.tensor_flop_per_inst {{\"{cc}\": FLOP per instruction}} (or \"default\"; CLI "
    "--tensor-flop-per-inst)"
)


class LaunchMetrics:
    """One launch's metrics, by metric id, with checked lookups.

    ``rows``: the launch's rows of :func:`~rooflow.formats.ncu.passes.read_passes`.
    """

    def __init__(self, rows: dict[str, dict]) -> None:
        self.rows = rows
        self.first = min(rows.values(), key=lambda r: (r["order"], r["row"]))
        self.where = f"kernel '{short_name(self.first['kernel'])}' (launch {self.first['launch']})"
        self.valued = {m for m, r in rows.items()
                       if (text := (r["text"] or "").strip().lower())
                       and text not in MISSING_VALUES}

    def has(self, metric: str) -> bool:
        """Whether the launch gives ``metric`` a value.

        An empty, ``nan`` or ``n/a`` cell is a metric not measured for this launch (a
        path the GPU lacks), not an error.
        """
        return metric in self.valued

    def usable(self, sources: Sequence[Source], per: set[str]) -> Source | None:
        """The first of ``sources`` with a value here for each metric, of a ``per`` in ``per``.

        ``per`` holds the kinds of rate (:attr:`Source.per`) the launch's time and clocks
        turn into what is measured.
        """
        return next((s for s in sources
                     if s.per in per and all(self.has(m) for m in s.metrics)), None)

    def check(self, used: Sequence[tuple[str, str]]) -> None:
        """Check every used metric, in row order, so the first bad row is reported."""
        order = sorted(used, key=lambda mu: self.rows[mu[0]]["row"] if mu[0] in self.rows else 0)
        for metric, unit in order:
            self.value(metric, unit)

    def value(self, metric: str, unit: str) -> float:
        """``metric``'s value in base unit class ``unit``; a reason to leave it out else."""
        row = self.rows.get(metric)
        first = self.first
        if row is None:
            raise InputError(first["file"], f"{self.where} lacks metric {metric}",
                             row=first["row"], column=metric, check="required metrics")

        def fail(message: str, check: str) -> InputError:
            return InputError(row["file"], f"{self.where}: metric {metric} {message}",
                              row=row["row"], column=metric, check=check, value=row["text"])

        if not self.has(metric):
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


_TIME_HINT = ("collect gpu__time_duration.sum (or sm__cycles_elapsed.avg + "
              "sm__cycles_elapsed.avg.per_second)")


@cache
def _tensor_sources(names: frozenset[str]) -> list[tuple[Source, str]]:
    """:func:`~rooflow.formats.ncu.metrics.tensor_sources` of a launch (few distinct sets)."""
    return tensor_sources(set(names))[0]


@dataclass(frozen=True)
class MetricPlan:
    """What an export can measure: every way, per quantity, preferred first."""

    vector: dict[str, tuple[str, dict[str, tuple[Source, ...]]]]
    tensor_names: frozenset[str]
    levels: dict[str, tuple[Source, ...]]
    counted: tuple[str, ...]
    inst: bool
    roofline_metrics: frozenset[str]


def launch_record(launch: LaunchMetrics, plan: MetricPlan, factors: dict[str, float]) -> dict:
    """One launch's operations by precision, bytes by level and time (rates if untimed).

    Raises:
        InputError: the launch cannot be placed (the message says why and what to
            collect): no value in any roofline metric, a bad value, no positive time,
            tensor instructions without a factor, no bytes at any level, counts without a
            time, or no operations and no time.
    """
    first = launch.first
    named = launch.rows.keys() & plan.roofline_metrics
    if named and not named & launch.valued:
        row = min((launch.rows[m] for m in named), key=lambda r: (r["order"], r["row"]))
        raise InputError(row["file"], f"{launch.where}: no value in any roofline metric "
                         "(failed or incomplete profile?)", row=row["row"],
                         column=row["metric"], check="numeric", value=row["text"])
    t: float | None = None
    clocks: list[tuple[str, str]] = []
    if launch.has(DURATION.metrics[0]):
        clocks = [(DURATION.metrics[0], "second")]
        launch.check(clocks)
        t = launch.value(DURATION.metrics[0], "second")
    elif pair := next((p for p in CLOCKS if launch.has(p[0]) and launch.has(p[1])), None):
        clocks = [(pair[0], "cycle"), (pair[1], "hz")]
        launch.check(clocks)
        rate = launch.value(pair[1], "hz")  # a zero clock means no time, not a division error
        t = launch.value(pair[0], "cycle") / rate if rate > 0 else 0.0
    if t is not None and not 0 < t < float("inf"):
        raise InputError(first["file"], f"{launch.where} has no positive time",
                         row=first["row"], check="time > 0", value=t)
    cycles = next((c for c, _ in CLOCKS[:2] if launch.has(c)), None)
    freq = next((f for _, f in CLOCKS if launch.has(f)), None)
    if t is None:  # rates only: per-second values, per-cycle ones × the SM clock
        per = {"second"} | ({"cycle"} if freq else set())
    else:
        per = {"", "second"} | ({"cycle"} if cycles or freq else set())

    vector = {prec: {op: s for op, srcs in by_op.items() if (s := launch.usable(srcs, per))}
              for prec, (_, by_op) in plan.vector.items()}
    tensor = _tensor_sources(frozenset(plan.tensor_names & launch.valued))
    tensor = [(s, p) for s, p in tensor if s.per in per]
    inst = None if tensor or not plan.inst else launch.usable(tensor_inst_sources(), per)
    levels = {lvl: s for lvl, srcs in plan.levels.items() if (s := launch.usable(srcs, per))}
    chosen = [s for s in (inst, *levels.values(), *(s for s, _ in tensor),
                          *(s for ops in vector.values() for s in ops.values())) if s]
    used = [(m, s.unit) for s in chosen for m in s.metrics]
    cycle_rates = any(s.per == "cycle" for s in chosen)
    if cycle_rates:
        used += [(cycles, "cycle")] if cycles and t is not None else [(freq, "hz")] if freq else []
    launch.check(used)
    sm_hz = launch.value(freq, "hz") if freq and cycle_rates else None
    sm_cycles = (launch.value(cycles, "cycle") if cycles and t is not None and cycle_rates
                 else t * sm_hz if t is not None and sm_hz else None)

    def measure(s: Source) -> float:
        total = 0.0
        for metric in s.metrics:
            value = launch.value(metric, s.unit) * s.scale
            row = launch.rows[metric]
            # A pass's rates are scaled by that pass's own clock, cycles and duration;
            # the launch's (first pass that has them) where its pass lacks them.
            hz = row["file_hz"] or sm_hz or 0.0
            if s.per == "second" and t is not None:
                value *= row["file_s"] or t
            elif s.per == "cycle" and t is not None:
                own = (row["file_s"] or t) * row["file_hz"] if row["file_hz"] else None
                value *= row["file_cycles"] or own or sm_cycles or 0.0
            elif s.per == "cycle":
                value *= hz
            total += value
        if total == float("inf"):
            raise InputError(first["file"], f"{launch.where}: {s.describe()} overflows",
                             row=first["row"], check="finite", value=total)
        return total

    ops: dict[str, float | None] = dict.fromkeys(plan.counted)
    for prec, by_op in vector.items():
        if by_op:
            weights = FLOP_PER_INST[plan.vector[prec][0]]
            ops[prec] = sum(weights[op] * measure(s) for op, s in by_op.items())
    for s, prec in tensor:
        ops[prec] = (ops[prec] or 0.0) + measure(s)
    if inst is not None:
        count = measure(inst)
        ops["fp16-tensor"] = 0.0
        if count > 0:
            cc = first["cc"]
            factor = factors.get(cc, KNOWN_TENSOR_FLOP_PER_INST.get(cc, factors.get("default")))
            if factor is None:
                row = launch.rows[inst.metrics[0]]
                raise InputError(
                    row["file"], f"{launch.where[:-1]}, CC {cc or 'unknown'}) ran "
                    f"{count:,.0f} tensor-pipe instructions{'/s' if t is None else ''}, but "
                    "FLOP per instruction depend on the MMA shape and the export has no "
                    "op-path counters: " + _TENSOR_HINT.format(cc=cc or "8.0"),
                    row=row["row"], column=inst.metrics[0], check="tensor FLOP")
            ops["fp16-tensor"] = count * factor
    for prec, value in ops.items():
        if value is not None and value == float("inf"):
            raise InputError(first["file"], f"{launch.where}: its {prec} operations overflow",
                             row=first["row"], check="finite", value=value)
    if not levels:
        wanted = "; ".join(f"{lvl} {LEVELS[lvl][0].describe()}" for lvl in plan.levels)
        if t is None and any(launch.usable(srcs, {"", "cycle"}) for srcs in plan.levels.values()):
            raise InputError(first["file"], f"{launch.where}: no kernel time and its bytes "
                             f"are counts, not rates: {_TIME_HINT}", row=first["row"],
                             check="required metrics")
        raise InputError(first["file"], f"{launch.where}: no bytes at any memory level "
                         f"(none of them has a value here): collect {wanted}",
                         row=first["row"], check="required metrics")
    if t is None and not any(v for v in ops.values()):
        counts = any(launch.usable(srcs, {""}) for _, by_op in plan.vector.values()
                     for srcs in by_op.values())
        raise InputError(first["file"], f"{launch.where}: no kernel time and "
                         + ("its operations are counts, not rates" if counts else
                            "no operations: a bandwidth-only row needs the time")
                         + f": {_TIME_HINT}", row=first["row"], check="required metrics")
    return {
        "kernel": first["kernel"], "launch_id": first["launch"], "launches": 1,
        "row": first["row"], "file": first["file"], "cc": first["cc"],
        "device": first["device"], **{ops_column(p): v for p, v in ops.items()},
        "time_s": t, "clock_hz": _clock(launch, freq),
        "memory_clock_hz": _clock(launch, DRAM_CLOCK if launch.has(DRAM_CLOCK) else None),
        "l2_clock_hz": _clock(launch, L2_CLOCK if launch.has(L2_CLOCK) else None),
        **{bytes_column(lvl): measure(s) for lvl, s in levels.items()},
    }


def _clock(launch: LaunchMetrics, freq: str | None) -> float | None:
    """The clock the launch ran at (Hz), from metric ``freq``; None when it has none.

    A clock that is not a positive number in Hz leaves the launch's roofs at the
    preset's clock: the launch itself is still placed (its time came from elsewhere).
    """
    if freq is None:
        return None
    try:
        hz = launch.value(freq, "hz")
    except InputError:
        return None
    return hz if 0 < hz < float("inf") else None


def export_plan(present: set[str]) -> tuple[MetricPlan, list[str], list[str]]:
    """Every way the export measures each quantity; (plan, missing lines, notes)."""
    missing: list[str] = []
    vector: dict[str, tuple[str, dict[str, tuple[Source, ...]]]] = {}
    for prec, letter in VECTOR.items():
        by_op = {op: tuple(s for s in vector_sources(letter + op) if set(s.metrics) <= present)
                 for op in FLOP_PER_INST[letter]}
        if any(by_op.values()):
            vector[prec] = (letter, {op: srcs for op, srcs in by_op.items() if srcs})
            missing += [f"{prec} {letter}{op} counts ({SASS.format(letter + op)})"
                        for op, srcs in by_op.items() if not srcs]
        else:
            missing.append(f"{prec} FLOP ({SASS.format(letter + 'fma|mul|add')})")
    tensor, unknown = tensor_sources(present)
    notes = [f"tensor op-path source type {t} has no rooflow precision: not counted"
             for t in unknown]
    inst = not tensor and _usable(present, tensor_inst_sources(), {"", "cycle", "second"})
    if not tensor and not inst:
        missing.append(f"tensor operations (sm__ops_path_tensor_src_<type>[_dst_<type>].sum, "
                       f"or {TENSOR_INST})")
    # Precisions without a counter in the export stay null in the breakdown, not 0.
    counted = tuple(dict.fromkeys([*vector, *(p for _, p in tensor),
                                   *(["fp16-tensor"] if inst else [])]))
    levels = {lvl: found for lvl, srcs in LEVELS.items()
              if (found := tuple(s for s in srcs if set(s.metrics) <= present))}
    missing += [f"{lvl} bytes ({LEVELS[lvl][0].describe()})" for lvl in LEVELS
                if lvl not in levels]
    tensor_names = frozenset(m for m in present if m.startswith("sm__ops_path_tensor_"))
    sources = [*(s for _, by_op in vector.values() for srcs in by_op.values() for s in srcs),
               *(s for srcs in levels.values() for s in srcs), *tensor_inst_sources()]
    roofline = frozenset({m for s in sources for m in s.metrics} | tensor_names
                         | set(DURATION.metrics) | {m for pair in CLOCKS for m in pair})
    return (MetricPlan(vector, tensor_names, levels, counted, bool(inst), roofline), missing, notes)
