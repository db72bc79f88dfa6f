"""The one preset type: a GPU's compute roofs by precision and memory roofs by level.

Every source of roofs (datasheet presets in ``hardware.yaml``, ERT, Omniperf) gives a
mapping in TFLOP/s and GB/s (the ``hardware.yaml`` entry layout, checked by the packaged
``hardware.schema.yaml``); :func:`preset_from_mapping` turns it into a :class:`Preset` in
base units (FLOP/s, byte/s).

Roofline model (Williams, Waterman, Patterson, "Roofline: an insightful visual
performance model for multicore architectures", CACM 52(4), 2009):
attainable(AI) = min(compute roof, AI × memory roof); ridge point = compute roof /
memory roof (FLOP/byte).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from rooflow.defaults import schema_error
from rooflow.errors import InputError
from rooflow.levels import canonical_level, known_levels
from rooflow.points import PRECISIONS, op_unit

ROOFS_AT = ("clock", "datasheet")
"""Where a point's compute roofs are taken (:attr:`Preset.roofs_at`): at the clock it ran
at, or at the preset's own (datasheet) clock."""

CUSTOM_ROOF = "peak"
"""Compute-roof key of a roof given on the command line: it serves every FLOP precision."""

PEAK_MAXIMUM = 1_000_000_000
"""The largest roof a preset may give, TFLOP/s or GB/s: hardware.schema.yaml's
``$defs.peak.maximum`` (a test checks they agree)."""

PER_INSTRUCTION = " per instruction"
"""Suffix of the compute-roof key of a precision's roof as a profiler counts its work.

rocprof-compute counts a VALU instruction as ``64 lanes × (1, or 2 for an FMA)`` FLOP,
whether packed or not: a ``v_pk_fma_f32`` (two FP32 FMAs per lane) counts as one FMA,
and its own VALU peak is ``$max_sclk · $cu_per_gpu · 64 · 2`` (gfx942
``0200_system-speed-of-light.yaml``, ROCm/rocprofiler-compute @95b600ea). AMD's datasheet
FP32 figures on CDNA 2-4 are the packed rate, twice that. A preset gives both: ``compute``
the datasheet's, for FLOP counted from a model (specs, benchmarks, traces, roofline CSVs);
``per_instruction`` the profiler's, for FLOP read from hardware counters (points whose
``bytes_model`` is ``measured``). :meth:`Preset.compute_roof` picks one; the key
(``fp32 per instruction``) is the table's ``compute_roof_name``."""


def per_instruction_key(precision: str) -> str:
    """Compute-roof key of ``precision``'s per-instruction roof: ``fp32 per instruction``."""
    return precision + PER_INSTRUCTION


@dataclass(frozen=True)
class Preset:
    """One GPU's roofs in base units.

    Attributes:
        key: preset id (``h100-sxm``).
        compute: precision → peak FLOP/s; a profiler's per-instruction roof of a
            precision under :func:`per_instruction_key` (:data:`PER_INSTRUCTION`).
        memory: memory level → peak byte/s.
        default_compute / default_memory: the keys of the default roofs.
        devices: the names and ids of this GPU in profiler exports (:func:`device_preset`).
        roof_notes: roof key → a caveat written in ``roof_note`` of every point judged
            on that roof (a partition's HBM roof, :mod:`rooflow.roofs.partition`).
        roof_clock_hz: the SM (engine) clock the compute roofs are peaks at, Hz (the
            boost clock, hardware.yaml ``clocks.boost_mhz``); None when the preset gives
            none: its roofs are then never scaled to a point's clock.
        base_clock_hz: the base clock, Hz (``clocks.base_mhz``), or None.
        memory_clock_hz: the DRAM clock the DRAM roof is at, Hz (``clocks.memory_mhz``:
            bandwidth = bus bytes × 2 × this clock), or None: the DRAM roof is then never
            scaled to a point's memory clock.
        l2_clock_hz: the L2 clock the L2 roof is at, Hz (``clocks.l2_mhz``: an ncu
            export's own L2 peak, bytes per cycle × this clock), or None: the L2 roof is
            then never scaled to a point's L2 clock.
        clock_source: where the clocks come from ("" when none).
        clock_launch: the profiled launch whose clocks the roofs are at (an ncu export's
            own peaks, ``clocks.launch``), or None: a datasheet's clocks.
        sm_clock_levels: memory levels whose roofs are at the SM clock
            (``clocks.sm_levels``: NVIDIA's L1), scaled with it as the compute roofs are.
        launch_overhead_s: the least time one kernel launch takes, s
            (``launch_overhead.seconds``), or None (no launch floor).
        launch_overhead_source: where it comes from ("" when none).
        roofs_at: "clock": a point's compute roofs are scaled to the clock it ran at
            (:func:`rooflow.analysis.analyze`); "datasheet": kept as given
            (:meth:`with_roofs_at`).
    """

    key: str
    name: str
    source: str
    compute: dict[str, float]
    memory: dict[str, float]
    default_compute: str
    default_memory: str
    empirical: bool = False
    overridden: tuple[str, ...] = field(default=())
    sources: dict[str, str] = field(default_factory=dict)
    no_cache_roofs: str = ""
    devices: tuple[str, ...] = field(default=())
    roof_notes: dict[str, str] = field(default_factory=dict)
    roof_clock_hz: float | None = None
    base_clock_hz: float | None = None
    memory_clock_hz: float | None = None
    l2_clock_hz: float | None = None
    clock_source: str = ""
    clock_launch: int | None = None
    sm_clock_levels: tuple[str, ...] = field(default=())
    launch_overhead_s: float | None = None
    launch_overhead_source: str = ""
    roofs_at: str = "clock"

    @property
    def peak_flop_per_s(self) -> float:
        """The default compute roof, FLOP/s."""
        return self.compute[self.default_compute]

    @property
    def peak_bytes_per_s(self) -> float:
        """The default (DRAM/HBM) memory roof, byte/s."""
        return self.memory[self.default_memory]

    @property
    def ridge_point(self) -> float:
        """Arithmetic intensity (FLOP/byte) where the default roofs meet."""
        return self.peak_flop_per_s / self.peak_bytes_per_s

    def compute_roof(self, precision: str, counted: bool = False) -> tuple[str, float] | None:
        """(key, FLOP/s or OP/s) of the compute roof for ``precision``, or None.

        A point is judged against the roof of its own precision only: a preset without
        that roof gives None (never another unit's roof), and so does "" (precision not
        given: no roof is assumed for it, the default one neither). A command-line roof
        (:data:`CUSTOM_ROOF`) serves every FLOP precision, "" too (the one roof the user
        gave), and no integer one. ``counted``: the FLOP were read from hardware
        counters, so the precision's per-instruction roof (:data:`PER_INSTRUCTION`) judges
        them where the preset has one, else its ``compute`` roof.
        """
        if counted and (key := per_instruction_key(precision)) in self.compute:
            return key, self.compute[key]
        if precision in self.compute:
            return precision, self.compute[precision]
        if CUSTOM_ROOF in self.compute and op_unit(precision) == "FLOP":
            return CUSTOM_ROOF, self.compute[CUSTOM_ROOF]
        return None

    def memory_roof(self, level: str) -> tuple[str, float] | None:
        """(key, byte/s) of the memory roof for ``level``, or None.

        Matched through :func:`rooflow.levels.canonical_level`: a DRAM point meets a roof
        the device calls ``HBM``, an LDS point one it calls ``SLM``; the key returned is
        the preset's own word.
        """
        wanted = canonical_level(level)
        for key, value in self.memory.items():
            if canonical_level(key) == wanted:
                return key, value
        return None

    def with_override(
        self, peak_tflops: float | None = None, peak_bandwidth_gbs: float | None = None
    ) -> Preset:
        """A copy whose default compute and/or memory roof is replaced.

        A partial override keeps the preset's other value. A compute roof given by hand
        is not the preset's peak at its clock: the copy has no roof clock (its compute
        roofs are never scaled to a point's clock).
        """
        compute, memory, changed = dict(self.compute), dict(self.memory), list(self.overridden)
        if peak_tflops is not None:
            compute[self.default_compute] = float(peak_tflops) * 1e12
            changed.append("compute")
        if peak_bandwidth_gbs is not None:
            memory[self.default_memory] = float(peak_bandwidth_gbs) * 1e9
            changed.append("memory")
        clock = None if peak_tflops is not None else self.roof_clock_hz
        return replace(self, compute=compute, memory=memory, overridden=tuple(changed),
                       roof_clock_hz=clock)


    def at_clock(self, clock_hz: float | None, memory_clock_hz: float | None = None,
                 l2_clock_hz: float | None = None) -> Preset:
        """A copy whose roofs are at the clocks given (Hz): SM, DRAM and L2.

        A peak is units × operations per clock × clock: each compute roof (and the roof
        of each of :attr:`sm_clock_levels`) × clock_hz / roof clock, the DRAM roof ×
        memory_clock_hz / its memory clock, the L2 roof × l2_clock_hz / its L2 clock;
        other cache roofs are kept. A clock that is None, or that the preset does not
        give, changes nothing.
        """
        out = self
        if clock_hz is not None and self.roof_clock_hz is not None:
            ratio = clock_hz / self.roof_clock_hz
            out = replace(out, compute={k: v * ratio for k, v in self.compute.items()},
                          memory={k: v * ratio if k in self.sm_clock_levels else v
                                  for k, v in self.memory.items()},
                          roof_clock_hz=clock_hz)
        dram = self.memory_roof("DRAM")
        if memory_clock_hz is not None and self.memory_clock_hz is not None and dram:
            ratio = memory_clock_hz / self.memory_clock_hz
            out = replace(out, memory={**out.memory, dram[0]: dram[1] * ratio},
                          memory_clock_hz=memory_clock_hz)
        l2 = self.memory_roof("L2")
        if l2_clock_hz is not None and self.l2_clock_hz is not None and l2:
            ratio = l2_clock_hz / self.l2_clock_hz
            out = replace(out, memory={**out.memory, l2[0]: l2[1] * ratio},
                          l2_clock_hz=l2_clock_hz)
        return out

    def with_roofs_at(self, roofs_at: str) -> Preset:
        """A copy whose points' compute roofs are taken ``roofs_at`` (:data:`ROOFS_AT`).

        Raises:
            ValueError: not one of :data:`ROOFS_AT` (the CLI and the config schema
                check it first).
        """
        if roofs_at not in ROOFS_AT:
            raise ValueError(f"roofs_at {roofs_at!r}: one of {', '.join(ROOFS_AT)}")
        return replace(self, roofs_at=roofs_at)


def custom_preset(peak_tflops: float, peak_bandwidth_gbs: float) -> Preset:
    """A preset with one compute roof (TFLOP/s) and one DRAM roof (GB/s).

    Its two numbers are checked here as the hardware schema's ``preset`` would (finite,
    above 0, at most :data:`PEAK_MAXIMUM`; the same error lines), without loading
    jsonschema for them: the schema's other rules bind names and texts, fixed here.

    Raises:
        InputError: a peak is not finite, not above 0 or above :data:`PEAK_MAXIMUM`.
    """
    for column, value in ((f"compute.{CUSTOM_ROOF}", peak_tflops),
                          ("memory.DRAM", peak_bandwidth_gbs)):
        why = ("is not a finite number" if not math.isfinite(value)
               else "is less than or equal to the minimum of 0" if value <= 0
               else f"is greater than the maximum of {PEAK_MAXIMUM}" if value > PEAK_MAXIMUM
               else None)
        if why:
            raise InputError("command line", f"{value!r} {why}",
                             column=f"presets.custom.{column}", check="hardware schema")
    return schema_checked_preset(
        "custom",
        {
            "name": "Custom roof",
            "source": "command line",
            "compute": {CUSTOM_ROOF: peak_tflops},
            "memory": {"DRAM": peak_bandwidth_gbs},
            "default_compute": CUSTOM_ROOF,
            "default_memory": "DRAM",
        },
        source="command line",
    )


def preset_from_mapping(key: str, data: Mapping, *, source: str) -> Preset:
    """Build a :class:`Preset` from a hardware.yaml entry (TFLOP/s, GB/s).

    Raises:
        InputError: the entry breaks the schema or names a default roof it lacks.
    """
    err = schema_error("hardware", dict(data), "preset")
    if err is not None:
        path = ".".join(str(p) for p in err.absolute_path)
        raise InputError(
            source, err.message, column=f"presets.{key}" + (f".{path}" if path else ""),
            check="hardware schema",
        )
    return schema_checked_preset(key, data, source=source)


def schema_checked_preset(key: str, data: Mapping, *, source: str) -> Preset:
    """:func:`preset_from_mapping` of an entry its file's schema check has passed.

    Raises:
        InputError: the entry names a default roof it lacks, or an unknown precision
            or memory level.
    """
    for what, table in (("default_compute", "compute"), ("default_memory", "memory")):
        if data[what] not in data[table]:
            raise InputError(
                source,
                f"{what} '{data[what]}' is not one of its {table} roofs {sorted(data[table])}",
                column=f"presets.{key}.{what}",
                value=data[what],
            )
    per_instruction = data.get("per_instruction", {})
    unknown = sorted(set(data["compute"]) - set(PRECISIONS) - {CUSTOM_ROOF})
    if unknown:
        raise InputError(
            source, f"unknown precision; known: {', '.join(PRECISIONS)}",
            column=f"presets.{key}.compute.{unknown[0]}", check="precision vocabulary",
            value=unknown[0],
        )
    alone = sorted(set(per_instruction) - set(data["compute"]))
    if alone:
        raise InputError(
            source, "a per-instruction roof needs the precision's compute roof beside it "
            "(the one FLOP counted from a model are judged on)",
            column=f"presets.{key}.per_instruction.{alone[0]}", check="per-instruction roof",
            value=alone[0],
        )
    unknown = [lv for lv in data["memory"] if canonical_level(lv) is None]
    if unknown:
        raise InputError(
            source, f"unknown memory level; known: {known_levels()}",
            column=f"presets.{key}.memory.{unknown[0]}", check="level vocabulary",
            value=unknown[0],
        )
    levels = [canonical_level(lv) for lv in data["memory"]]
    if len(set(levels)) < len(levels):
        twice = next(lv for lv in data["memory"] if levels.count(canonical_level(lv)) > 1)
        raise InputError(
            source, "two memory roofs name the same level (e.g. HBM and DRAM)",
            column=f"presets.{key}.memory.{twice}", check="level vocabulary", value=twice,
        )
    clocks, launch = data.get("clocks", {}), data.get("launch_overhead", {})
    stray = [lv for lv in clocks.get("sm_levels", ()) if lv not in data["memory"]]
    if stray:
        raise InputError(source, "a level clocked with the SM has no memory roof",
                         column=f"presets.{key}.clocks.sm_levels", check="memory roof",
                         value=stray[0])
    return Preset(
        key=key,
        name=data["name"],
        source=data["source"],
        compute={**{k: float(v) * 1e12 for k, v in data["compute"].items()},
                 **{per_instruction_key(k): float(v) * 1e12
                    for k, v in per_instruction.items()}},
        memory={k: float(v) * 1e9 for k, v in data["memory"].items()},
        default_compute=data["default_compute"],
        default_memory=data["default_memory"],
        empirical=bool(data.get("empirical", False)),
        sources=dict(data.get("sources", {})),
        no_cache_roofs=data.get("no_cache_roofs", ""),
        devices=tuple(data.get("devices", ())),
        roof_clock_hz=float(clocks["boost_mhz"]) * 1e6 if clocks else None,
        base_clock_hz=(float(clocks["base_mhz"]) * 1e6
                       if clocks and "base_mhz" in clocks else None),
        memory_clock_hz=(float(clocks["memory_mhz"]) * 1e6
                         if clocks and "memory_mhz" in clocks else None),
        l2_clock_hz=float(clocks["l2_mhz"]) * 1e6 if clocks and "l2_mhz" in clocks else None,
        clock_source=clocks.get("source", ""),
        clock_launch=clocks.get("launch"),
        sm_clock_levels=tuple(clocks.get("sm_levels", ())),
        launch_overhead_s=float(launch["seconds"]) if launch else None,
        launch_overhead_source=launch.get("source", ""),
    )


def device_preset(presets: Mapping[str, Preset], names: Sequence[str]) -> str | None:
    """The preset of the GPU that ``names`` identify, or None.

    ``names`` are what an export calls its GPU, most specific first
    (:func:`rooflow.kinds.device_names`); the first that a preset's id or one of
    its :attr:`Preset.devices` equals (case-insensitively) decides. A name is listed by
    one preset at most (:func:`rooflow.roofs.datasheet.load_hardware` checks it).
    """
    known = {n.casefold(): key for key, p in presets.items() for n in (key, *p.devices)}
    return next((known[n.casefold()] for n in names if n.casefold() in known), None)


def select_preset(
    presets: Mapping[str, Preset],
    key: str | None,
    *,
    peak_tflops: float | None = None,
    peak_bandwidth_gbs: float | None = None,
) -> Preset:
    """The preset to draw: both peaks given → a custom roof; one → a partial override.

    Raises:
        InputError: unknown preset key, or neither a preset nor both peaks.
    """
    if key is None:
        if peak_tflops is not None and peak_bandwidth_gbs is not None:
            return custom_preset(peak_tflops, peak_bandwidth_gbs)
        raise InputError(
            None, "give --preset PRESET, or both --peak-tflops and --peak-bandwidth"
        )
    if key not in presets:
        raise InputError(
            None, f"unknown preset; known: {', '.join(presets)}", column="preset",
            value=key,
        )
    return presets[key].with_override(peak_tflops, peak_bandwidth_gbs)
