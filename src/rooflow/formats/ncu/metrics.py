"""Nsight Compute metric ids, display labels and the roofline formulas built from them.

Sources:

* NERSC hierarchical roofline method (C. Yang, T. Kurth, S. Williams, "Hierarchical
  Roofline Analysis for GPUs", CUG 2019; NERSC/roofline-on-nvidia-gpus,
  ``custom-scripts/postprocess.py``): FLOP per precision p (d fp64, f fp32) =
  ``2·…op_{p}fma_pred_on.sum + …op_{p}mul_pred_on.sum + …op_{p}add_pred_on.sum``;
  tensor FLOP = 512 × ``sm__inst_executed_pipe_tensor.sum`` (V100 HMMA, CC 7.0);
  bytes ``dram__bytes.sum``, ``lts__t_bytes.sum``, ``l1tex__t_bytes.sum``; time
  ``sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second`` or
  ``gpu__time_duration.sum``.
* Nsight Compute section files ``SpeedOfLight_RooflineChart.section`` and
  ``SpeedOfLight_Hierarchical{Double,Single,Half,Tensor}RooflineChart.section`` (ncu
  ``sections/`` folder, 2025 copy in GitHub xingxerx/Qallow ``sections/``): the display
  labels in :data:`LABELS`, achieved work = Σ ``…pred_on.sum.per_cycle_elapsed`` × SM
  frequency, the ``derived__…_x2`` (FMA ×2) and, in the Half chart, ``_x4`` (HFMA ×4)
  and ``hadd/hmul _x2`` definitions, L2 bytes = ``lts__lts2xbar_cycles_active`` × 32,
  L1 bytes = ``l1tex__lsu_writeback_active[_mem_lg|_mem_lgds]`` × 128, tensor work =
  ``sm__ops_path_tensor_<type>.sum`` (already operations, no ×2).
* ``smsp__…`` and ``sm__…`` spellings of the same ``sass_thread_inst_executed`` and
  ``inst_executed_pipe_tensor`` counters count the same event (``.sum`` over all units).
* A sector is 32 bytes (Nsight Compute Kernel Profiling Guide, memory tables):
  ``lts__t_bytes = lts__t_sectors × 32``.

**fp16 counting** (:data:`FLOP_PER_INST`) is the Half roofline chart's: HFMA ×4, HADD ×2,
HMUL ×2 (packed half2), because every fp16 roof rooflow judges these points against is
that chart's peak, ``hfma….peak_sustained`` × 4 (:mod:`rooflow.roofs.ncu`), and NVIDIA's
datasheet "FP16 (non-Tensor)" figures are the same packed-half2 rate (A100 78 TFLOP/s =
108 SMs × 128 HFMA/clk × 4 × 1.41 GHz). The NERSC scripts count HFMA ×2, half of this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SASS = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
TENSOR_INST = "sm__inst_executed_pipe_tensor.sum"
VECTOR = {"fp64": "d", "fp32": "f", "fp16": "h"}
"""Vector precision → SASS opcode letter."""

KNOWN_TENSOR_FLOP_PER_INST = {"7.0": 512.0}
"""FLOP per tensor-pipe instruction known per compute capability (V100 HMMA, NERSC)."""

UNIT_CLASSES: dict[str, frozenset[str]] = {
    "count": frozenset({"", "inst", "op", "thread"}),
    "count/cycle": frozenset({"", "inst/cycle", "op/cycle", "thread", "thread/cycle"}),
    "count/second": frozenset({"", "inst/second", "op/second", "thread/second"}),
    "byte": frozenset({"byte"}),
    "byte/second": frozenset({"byte/second"}),
    # The sections' derived__…bytes….per_second rates (= cycles active per second × bytes
    # per cycle) carry their byte count's unit or none in reports (RTX 4060 report:
    # derived__lts__lts2xbar_bytes.sum.per_second 'byte', …l1tex…mem_lg.sum.per_second
    # ''), though their values are byte/s.
    "derived byte/second": frozenset({"byte/second", "byte", ""}),
    "sector": frozenset({"sector", ""}),
    "cycle": frozenset({"cycle", ""}),
    "hz": frozenset({"hz"}),
    "second": frozenset({"second"}),
}
"""Unit class → base units (:mod:`rooflow.formats.units`) a metric of that class may carry."""


@dataclass(frozen=True)
class Source:
    """One way to measure a quantity: Σ metrics × scale (× SM cycles or × time).

    Attributes:
        metrics: canonical metric ids, all needed.
        unit: a key of :data:`UNIT_CLASSES`, for every metric.
        scale: factor on the sum (32 byte per sector, 1/2 for an ``_x2`` definition).
        per: "" (a count), "cycle" (a per-elapsed-cycle rate: × SM cycles) or "second"
            (a rate: × kernel time).
    """

    metrics: tuple[str, ...]
    unit: str
    scale: float = 1.0
    per: str = ""

    def describe(self) -> str:
        """The metrics joined by " + "."""
        return " + ".join(self.metrics)


def _rates(metric: str, unit: str, scale: float = 1.0) -> tuple[Source, ...]:
    rate = {"count": "count", "byte": "byte", "cycle": "hz", "sector": "sector"}[unit]
    per_second = "hz" if rate == "hz" else f"{rate}/second"
    return (
        Source((metric,), unit, scale),
        *((Source((f"{metric}.per_cycle_elapsed",), "count/cycle", scale, "cycle"),)
          if unit == "count" else ()),
        Source((f"{metric}.per_second",), per_second if per_second in UNIT_CLASSES
               else "count/second", scale, "second"),
    )


FLOP_PER_INST: dict[str, dict[str, int]] = {
    "d": {"fma": 2, "mul": 1, "add": 1},
    "f": {"fma": 2, "mul": 1, "add": 1},
    "h": {"fma": 4, "mul": 2, "add": 2},
}
"""SASS opcode letter → FLOP per predicated-on thread instruction of ``fma``/``mul``/``add``.

The roofline sections' weights: the ``derived__…_x{n}`` definitions (FFMA, DFMA ×2; Half
chart HFMA ×4, HADD ×2, HMUL ×2; an instruction without a definition counts ×1). The same
table gives the ``ncu-NAME`` compute peaks (``fma`` × ``…fma….peak_sustained``), so points
and roofs share one convention (module doc, "fp16 counting").
"""


def vector_sources(op: str) -> tuple[Source, ...]:
    """Ways to count thread instructions of SASS opcode ``op`` (``dfma``, ``hadd``, ...)."""
    sources = _rates(SASS.format(op), "count")
    weight = FLOP_PER_INST[op[0]][op[1:]]
    if weight > 1:  # the sections define an ``_x{weight}`` rate only for these
        derived = f"derived__smsp__sass_thread_inst_executed_op_{op}_pred_on_x{weight}"
        sources += (Source((derived,), "count/cycle", 1 / weight, "cycle"),)
    return sources


LEVELS: dict[str, tuple[Source, ...]] = {
    "DRAM": (
        Source(("dram__bytes.sum",), "byte"),
        Source(("dram__bytes_read.sum", "dram__bytes_write.sum"), "byte"),
        Source(("dram__bytes_op_read.sum", "dram__bytes_op_write.sum"), "byte"),
        Source(("dram__bytes.sum.per_second",), "byte/second", per="second"),
        Source(("dram__bytes_read.sum.per_second", "dram__bytes_write.sum.per_second"),
               "byte/second", per="second"),
    ),
    "L2": (
        Source(("lts__t_bytes.sum",), "byte"),
        Source(("lts__t_sectors.sum",), "sector", 32.0),
        Source(("derived__lts__lts2xbar_bytes.sum",), "byte"),
        Source(("lts__lts2xbar_cycles_active.sum",), "cycle", 32.0),
        Source(("lts__t_bytes.sum.per_second",), "byte/second", per="second"),
        Source(("derived__lts__lts2xbar_bytes.sum.per_second",), "derived byte/second",
               per="second"),
        Source(("lts__lts2xbar_cycles_active.sum.per_second",), "hz", 32.0, "second"),
    ),
    "L1": (
        Source(("l1tex__t_bytes.sum",), "byte"),
        Source(("l1tex__t_sectors.sum",), "sector", 32.0),
        *(Source((f"derived__l1tex__lsu_writeback_bytes{s}.sum",), "byte")
          for s in ("_mem_lg", "_mem_lgds", "")),
        *(Source((f"l1tex__lsu_writeback_active{s}.sum",), "cycle", 128.0)
          for s in ("_mem_lg", "_mem_lgds", "")),
        Source(("l1tex__t_bytes.sum.per_second",), "byte/second", per="second"),
        *(Source((f"derived__l1tex__lsu_writeback_bytes{s}.sum.per_second",),
                 "derived byte/second", per="second") for s in ("_mem_lg", "_mem_lgds", "")),
        *(Source((f"l1tex__lsu_writeback_active{s}.sum.per_second",), "hz", 128.0, "second")
          for s in ("_mem_lg", "_mem_lgds", "")),
    ),
}
"""Memory level → ways to measure its bytes, preferred first (NERSC's first)."""

DURATION = Source(("gpu__time_duration.sum",), "second")
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"
"""The DRAM clock a launch ran at (Hz): DRAM bandwidth = bus bytes × 2 × this clock (an
H100 PCIe's 5120-bit HBM2e at 1,593 MHz: 2,039 GB/s)."""
L2_CLOCK = "lts__cycles_elapsed.avg.per_second"
"""The L2 clock a launch ran at (Hz): the roofline sections' L2 roof is the L2's bytes per
cycle (``derived__lts__lts2xbar_bytes.sum.peak_sustained``) × this clock."""
CLOCKS = (  # (elapsed cycles, cycles per second) pairs, preferred first
    ("sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"),
    ("smsp__cycles_elapsed.avg", "smsp__cycles_elapsed.avg.per_second"),
    ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second"),
)

_PER_CYCLE = "Predicated-On {} Thread Instructions Executed Per Cycle"
LABELS: dict[str, str] = {
    # SpeedOfLight_RooflineChart and the Hierarchical{Double,Single,Half} charts.
    **{_PER_CYCLE.format(op.upper()): SASS.format(op) + ".per_cycle_elapsed"
       for op in ("dfma", "dmul", "dadd", "ffma", "fmul", "fadd", "hfma", "hmul", "hadd")},
    **{f"Theoretical Predicated-On {op.upper()} Thread Instructions Executed":
       SASS.format(op) + ".peak_sustained" for op in ("dfma", "ffma", "hfma")},
    "Predicated-On DFMA Operations Per Cycle":
        "derived__smsp__sass_thread_inst_executed_op_dfma_pred_on_x2",
    "Predicated-On FFMA Operations Per Cycle":
        "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2",
    "Predicated-On HFMA Operations Per Cycle":
        "derived__smsp__sass_thread_inst_executed_op_hfma_pred_on_x4",
    "Theoretical Predicated-On DFMA Operations":
        "derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2",
    "Theoretical Predicated-On FFMA Operations":
        "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
    "Theoretical Predicated-On HFMA Operations":
        "derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4",
    "SM Frequency": "sm__cycles_elapsed.avg.per_second",
    "DRAM Frequency": "dram__cycles_elapsed.avg.per_second",
    "Memory Frequency": "dram__cycles_elapsed.avg.per_second",  # 2019.x SpeedOfLight
    "L2 Cache Frequency": "lts__cycles_elapsed.avg.per_second",
    "L1/TEX Cache Frequency": "l1tex__cycles_elapsed.avg.per_second",
    "Theoretical DRAM Bytes Accessible": "dram__bytes.sum.peak_sustained",
    "Theoretical L2 Cache Bytes Accessible": "derived__lts__lts2xbar_bytes.sum.peak_sustained",
    "Theoretical L1/TEX Cache Bytes Accessible":
        "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained",
    "DRAM Bandwidth": "dram__bytes.sum.per_second",
    "L2 Cache Bandwidth": "derived__lts__lts2xbar_bytes.sum.per_second",
    "L1 Cache Bandwidth (Global/Local)":
        "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second",
    "L1/TEX peak writeback cycles": "l1tex__lsu_writeback_active.sum.peak_sustained",
    "L1/TEX peak local/global writeback cycles":
        "l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained",
    "L1/TEX active writeback cycles per second": "l1tex__lsu_writeback_active.sum.per_second",
    "L1/TEX active local/global writeback cycles per second":
        "l1tex__lsu_writeback_active_mem_lg.sum.per_second",
    "L2 peak writeback cycles": "lts__lts2xbar_cycles_active.sum.peak_sustained",
    "L2 active writeback cycles per second": "lts__lts2xbar_cycles_active.sum.per_second",
    "Theoretical Tensor Instructions Executed": TENSOR_INST + ".peak_sustained",
    "Tensor Instructions Executed Per Cycle": TENSOR_INST + ".per_cycle_elapsed",
    # GPU Speed Of Light Throughput section.
    "Duration": "gpu__time_duration.sum",
    "Elapsed Cycles": "gpc__cycles_elapsed.max",
}
"""Display label (``--print-metric-name label``, the default) → metric id.

"Theoretical Tensor Operations" / "Tensor Operations Per Cycle" are not mapped: the
Tensor chart uses them for every source type, so only the metric ids tell types apart.
"""

_SMSP_ALIASES = ("smsp__sass_thread_inst_executed_op_", "smsp__inst_executed_pipe_tensor.")


def canonical(name: str) -> str:
    """Metric id for a metric id or display label; ``smsp__`` counter spellings → ``sm__``."""
    name = LABELS.get(name.strip(), name.strip())
    if name.startswith(_SMSP_ALIASES):
        return "sm__" + name.removeprefix("smsp__")
    return name


_OPS_PATH = re.compile(
    r"^sm__ops_path_tensor_(?:op_(?P<op>[a-z0-9]+)_)?"
    r"src_(?P<src>(?:fp|bf|tf|int|e[45]m)[0-9a-z]*(?:_(?:fp|bf|tf|int|e[45]m)[0-9a-z]*)*)"
    r"(?:_dst_(?P<dst>[a-z0-9]+))?(?:_sparsity_(?P<sparsity>on|off))?"
    r"\.sum(?P<rate>\.per_cycle_elapsed|\.per_second)?$"
)
TENSOR_PRECISION = {
    "fp64": "fp64-tensor", "tf32": "tf32", "fp16": "fp16-tensor", "bf16": "bf16-tensor",
    "fp8": "fp8-tensor", "e4m3": "fp8-tensor", "e5m2": "fp8-tensor", "fp6": "fp6-tensor",
    "fp4": "fp4-tensor", "int8": "int8-tensor", "int4": "int4-tensor",
    # Combined counters: Turing's fp16_bf16_tf32 (Turing has fp16 only), Blackwell's
    # fp4_fp6_fp8 / fp4_fp6 (named by their widest type).
    "fp16_bf16_tf32": "fp16-tensor", "fp4_fp6_fp8": "fp8-tensor", "fp4_fp6": "fp6-tensor",
}
"""Op-path source type → precision (integer types count OP)."""


def tensor_sources(present: set[str]) -> tuple[list[tuple[Source, str]], list[str]]:
    """The op-path tensor counters to add up, each with its precision; and ignored ones.

    Counts each operation once: the generic ``src_*`` family if the export has it, else the
    ``op_<mma>_src_*`` families (disjoint instruction kinds, summed); per source type the
    per-destination counters if any, else the plain one; per counter the total, else its
    ``_sparsity_off`` + ``_sparsity_on`` parts; per part ``.sum``, else
    ``.sum.per_cycle_elapsed`` (× SM cycles), else ``.sum.per_second`` (× time).

    Returns:
        ([(source, precision)], [unknown source types, e.g. ``int1``]).
    """
    parsed = [(m, match) for m in sorted(present) if (match := _OPS_PATH.match(m))]
    generic = [(m, p) for m, p in parsed if p["op"] is None]
    chosen = generic or parsed
    keys: dict[tuple, dict[tuple, str]] = {}
    for metric, p in chosen:
        keys.setdefault((p["op"], p["src"]), {}).setdefault(
            (p["dst"], p["sparsity"], p["rate"] or ""), metric)
    picked: list[tuple[Source, str]] = []
    ignored: list[str] = []
    for (_, src), forms in keys.items():
        if src not in TENSOR_PRECISION:
            ignored.append(src)
            continue
        dsts = {d for d, _, _ in forms if d is not None} or {None}
        for dst in sorted(dsts, key=str):
            parts = [None] if any(d == dst and s is None for d, s, _ in forms) else ["off", "on"]
            for sparsity in parts:
                for rate, unit, per in (("", "count", ""),
                                        (".per_cycle_elapsed", "count/cycle", "cycle"),
                                        (".per_second", "count/second", "second")):
                    form = forms.get((dst, sparsity, rate))
                    if form:
                        picked.append((Source((form,), unit, per=per),
                                       TENSOR_PRECISION[src]))
                        break
    return picked, sorted(set(ignored))


def tensor_inst_sources() -> tuple[Source, ...]:
    """Ways to count tensor-pipe warp instructions."""
    return _rates(TENSOR_INST, "count")
