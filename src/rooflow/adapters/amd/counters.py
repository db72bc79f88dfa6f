"""AMD Instinct hardware counters → operations by precision and bytes by level, per architecture.

Every quantity is a weighted sum of counters (a :class:`CounterFormula`); :func:`plan` picks the
formulas of one GPU architecture and checks which counters the export holds.

Formulas (per dispatch) are rocprof-compute's (formerly Omniperf) roofline ones:
ROCm/rocprofiler-compute ``src/utils/roofline_calc.py`` (``calc_ai``) and the analysis
panel ``src/rocprof_compute_soc/analysis_configs/{gfx90a,gfx942,gfx950}/0400_roofline.yaml``
(also in ROCm/rocm-systems ``projects/rocprofiler-compute``):

* VALU FLOP, p ∈ {F16, F32, F64} → fp16, fp32, fp64: ``W·(ADD + MUL + TRANS + 2·FMA)``
  of ``SQ_INSTS_VALU_{ADD,MUL,TRANS,FMA}_<p>`` (W = the wave size, lanes per wavefront
  instruction, :func:`wave_size`; an FMA is two FLOP; the counters count wavefront
  instructions). The current panel writes ``$wave_size`` (gfx942 ``0400_roofline.yaml``,
  ROCm/rocm-systems @10d7b260), ``roofline_calc.py`` and older panels 64, which is W on
  every CDNA GPU; RDNA runs wave32 (W = 32, half the FLOP of wave64 per instruction). A
  packed instruction (``v_pk_fma_f16``) counts as one ("FLOP counting conventions",
  rocprof-compute docs, ``pipeline-metrics``), as in its VALU peak ``$max_sclk ·
  $cu_per_gpu · 64 · 2``: a matching fp16 roof is that rate, not the datasheet "FP16
  vector" (the packed rate, 2×), so no AMD preset has an ``fp16`` roof.
* MFMA FLOP: ``512·SQ_INSTS_VALU_MFMA_MOPS_<p>``: F64 → fp64-tensor, F32 → fp32-matrix,
  F16 → fp16-tensor, BF16 → bf16-tensor, F8 → fp8-tensor (gfx942, gfx950), F6F4 →
  fp6-tensor (gfx950; the counter counts FP6 and FP4 MFMA together, which run at one rate).
* integer OP (never FLOP; rocprof-compute keeps them out of "Total FLOPs" too):
  ``W·SQ_INSTS_VALU_INT32`` → int32, ``W·SQ_INSTS_VALU_INT64`` → int64 (SoL panel
  "VALU IOPs", ``0200_system_speed_of_light.yaml``), ``512·SQ_INSTS_VALU_MFMA_MOPS_I8`` →
  int8-tensor ("MFMA IOPs (Int8)").
* LDS bytes: ``4 byte · 32 banks · (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT)``
  (``lds_banks_per_cu = 32`` in ``soc_gfx90a.py``, ``soc_gfx942.py``, ``soc_gfx950.py``).
* L1 (vL1D) bytes: ``64·TCP_TOTAL_CACHE_ACCESSES_sum``.
* L2 bytes: ``64·(TCP_TCC_READ_REQ_sum + TCP_TCC_WRITE_REQ_sum +
  TCP_TCC_ATOMIC_WITH_RET_REQ_sum + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum)``; the two atomic
  counters may be left out (counted as 0, said in the notes).
* HBM bytes, gfx908 / gfx90a: ``32·TCC_EA_RDREQ_32B_sum + 64·(TCC_EA_RDREQ_sum −
  TCC_EA_RDREQ_32B_sum) + 32·(TCC_EA_WRREQ_sum − TCC_EA_WRREQ_64B_sum) +
  64·TCC_EA_WRREQ_64B_sum``.
* HBM bytes, gfx940/941/942 (MI300A/X, MI325X): ``128·TCC_BUBBLE_sum +
  32·TCC_EA0_RDREQ_32B_sum + 64·(TCC_EA0_RDREQ_sum − TCC_BUBBLE_sum −
  TCC_EA0_RDREQ_32B_sum) + 32·(TCC_EA0_WRREQ_sum − TCC_EA0_WRREQ_64B_sum) +
  64·TCC_EA0_WRREQ_64B_sum`` (``TCC_BUBBLE``: 128-byte read requests, ROCm/rocprofiler
  ``src/core/counters/metrics/derived_counters.xml``, gfx940 block).
* HBM bytes, gfx950 (MI350X/MI355X): reads by request size, ``128·TCC_EA0_RDREQ_128B_sum +
  64·TCC_EA0_RDREQ_64B_sum + 32·TCC_EA0_RDREQ_32B_sum``, writes as gfx942
  (``gfx950/0200_system_speed_of_light.yaml``, "L2-Fabric Read BW", ROCm/rocm-systems
  @019e04cf); without the size buckets the gfx942 formula, with a note (it undercounts
  reads on gfx950).
* HBM bytes from rocprof's derived ``FETCH_SIZE`` + ``WRITE_SIZE`` (KiB: ``/1024`` in
  ``derived_counters.xml``): ``1024·(FETCH_SIZE + WRITE_SIZE)``; used when the
  architecture's own counters are absent. ``FETCH_SIZE`` is defined per architecture and
  profiler version (:data:`FETCH_SIZE_NOTES`, said in the notes): on gfx940-942 ROCm/rocprofiler
  counts every read that is not 32 bytes as 64 bytes (128-byte reads undercounted),
  rocprofiler-sdk @8ab1ed78 (Oct 2024) as 128 bytes (64-byte reads overcounted), rocprofiler-sdk
  in ROCm/rocm-systems @1b1610fc (Aug 2025) by the ``TCC_BUBBLE`` formula above (exact on
  gfx94x); on gfx950 that same gfx942 formula, which misses gfx950's read sizes (undercounts).

gfx908 (MI100) has no per-precision VALU nor MFMA counters: its workloads give memory rows
only (rocprof-compute refuses its roofline: ``soc_gfx908.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import polars as pl

from rooflow.errors import InputError
from rooflow.formats.devices import (  # noqa: F401 (CHIP_IDS, SPX_XCDS re-exported)
    _PARTITIONS,
    CHIP_IDS,
    SPX_XCDS,
    gfx_target,
)

LANES = 64.0  # work-items per wavefront instruction on CDNA (gfx9): the default wave size
MOPS = 512.0  # operations per MFMA MOPS count
WAVE = "wave_size"
"""Column of a dispatch's wave size (lanes per VALU instruction), read by ``lanes`` formulas."""


@dataclass(frozen=True)
class CounterFormula:
    """``Σ weight · counter``; the ``optional`` counters count as 0 when not collected.

    A ``lanes`` formula counts wavefront instructions: its sum is per lane and is multiplied
    by the dispatch's wave size (column :data:`WAVE`).
    """

    name: str
    weights: Mapping[str, float]
    optional: frozenset[str] = field(default_factory=frozenset)
    lanes: bool = False

    def missing(self, present: Iterable[str]) -> list[str]:
        """Required counters not in ``present``."""
        have = set(present)
        return [c for c in self.weights if c not in have and c not in self.optional]

    def touched(self, present: Iterable[str]) -> bool:
        """Whether any of its counters is in ``present``."""
        return bool(set(self.weights) & set(present))

    def expr(self, present: Iterable[str]) -> pl.Expr:
        """The sum over the counters in ``present`` (Float64 columns), × :data:`WAVE` if lanes."""
        have = set(present)
        total = pl.sum_horizontal(
            [pl.col(c) * w for c, w in self.weights.items() if c in have] or [pl.lit(0.0)]
        )
        return total * pl.col(WAVE) if self.lanes else total


def _valu(p: str) -> CounterFormula:
    # Per lane; × wave size W: e.g. wave32, FMA 10 + ADD 5 → 32·(2·10 + 5) = 800 FLOP.
    ops = {"ADD": 1.0, "MUL": 1.0, "TRANS": 1.0, "FMA": 2.0}
    return CounterFormula(f"VALU {p}", {f"SQ_INSTS_VALU_{op}_{p}": w for op, w in ops.items()},
                   lanes=True)


def _mfma(p: str) -> CounterFormula:
    return CounterFormula(f"MFMA {p}", {f"SQ_INSTS_VALU_MFMA_MOPS_{p}": MOPS})


_OPS_CDNA2 = {
    "fp64": _valu("F64"), "fp64-tensor": _mfma("F64"), "fp32": _valu("F32"),
    "fp32-matrix": _mfma("F32"), "fp16": _valu("F16"), "fp16-tensor": _mfma("F16"),
    "bf16-tensor": _mfma("BF16"),
    "int8-tensor": CounterFormula("MFMA I8", {"SQ_INSTS_VALU_MFMA_MOPS_I8": MOPS}),
    "int32": CounterFormula("VALU INT32", {"SQ_INSTS_VALU_INT32": 1.0}, lanes=True),
    "int64": CounterFormula("VALU INT64", {"SQ_INSTS_VALU_INT64": 1.0}, lanes=True),
}
_OPS_CDNA3 = {**_OPS_CDNA2, "fp8-tensor": _mfma("F8")}
_OPS_CDNA4 = {**_OPS_CDNA3, "fp6-tensor": _mfma("F6F4")}
# Present on some builds only (the gfx942 samples lack MOPS_F8), so never required.
_OPTIONAL_OPS = frozenset({"fp8-tensor", "fp6-tensor", "int8-tensor", "int32", "int64"})

_L2_ATOMICS = ("TCP_TCC_ATOMIC_WITH_RET_REQ_sum", "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum")
_LDS = CounterFormula("LDS", {"SQ_LDS_IDX_ACTIVE": 128.0, "SQ_LDS_BANK_CONFLICT": -128.0})
_L1 = CounterFormula("vL1D", {"TCP_TOTAL_CACHE_ACCESSES_sum": 64.0})
_L2 = CounterFormula(
    "L2", {"TCP_TCC_READ_REQ_sum": 64.0, "TCP_TCC_WRITE_REQ_sum": 64.0,
           **dict.fromkeys(_L2_ATOMICS, 64.0)},
    frozenset(_L2_ATOMICS),
)
# The HBM formulas of the module doc, expanded to one weight per counter.
HBM_EA = CounterFormula("HBM (TCC_EA, gfx908/gfx90a)", {
    "TCC_EA_RDREQ_sum": 64.0, "TCC_EA_RDREQ_32B_sum": 32.0 - 64.0,
    "TCC_EA_WRREQ_sum": 32.0, "TCC_EA_WRREQ_64B_sum": 64.0 - 32.0,
})
HBM_BUBBLE = CounterFormula("HBM (TCC_BUBBLE, gfx942)", {
    "TCC_BUBBLE_sum": 128.0 - 64.0, "TCC_EA0_RDREQ_sum": 64.0,
    "TCC_EA0_RDREQ_32B_sum": 32.0 - 64.0,
    "TCC_EA0_WRREQ_sum": 32.0, "TCC_EA0_WRREQ_64B_sum": 64.0 - 32.0,
})
HBM_SIZES = CounterFormula("HBM (read sizes, gfx950)", {
    "TCC_EA0_RDREQ_128B_sum": 128.0, "TCC_EA0_RDREQ_64B_sum": 64.0,
    "TCC_EA0_RDREQ_32B_sum": 32.0,
    "TCC_EA0_WRREQ_sum": 32.0, "TCC_EA0_WRREQ_64B_sum": 64.0 - 32.0,
})
HBM_KIB = CounterFormula("HBM (FETCH_SIZE + WRITE_SIZE, KiB)", {"FETCH_SIZE": 1024.0,
                                                          "WRITE_SIZE": 1024.0})

FETCH_SIZE_NOTES = {  # formula family → what FETCH_SIZE counts there
    "gfx942": "FETCH_SIZE counts reads by the profiler's definition: ROCm/rocprofiler "
              "(derived_counters.xml, gfx940) 32·RDREQ_32B + 64·(RDREQ − RDREQ_32B), a "
              "128-byte read as 64 bytes (undercounted); rocprofiler-sdk @8ab1ed78 "
              "(counter_defs.yaml, Oct 2024) 128·(RDREQ − RDREQ_32B), a 64-byte read as 128 "
              "bytes (overcounted); rocprofiler-sdk @1b1610fc (ROCm/rocm-systems, Aug 2025) "
              "the TCC_BUBBLE formula, exact; collect the TCC_BUBBLE and TCC_EA0 counters",
    "gfx950": "FETCH_SIZE on gfx950 is the gfx942 TCC_BUBBLE formula (rocprofiler-sdk "
              "counter_defs.yaml @1b1610fc), not gfx950's read sizes: HBM reads are "
              "undercounted; collect TCC_EA0_RDREQ_{32B,64B,128B}",
}
"""Per formula family, how the ``FETCH_SIZE`` fallback (:data:`HBM_KIB`) miscounts HBM
reads, as the profilers define it (ROCm/rocprofiler ``src/core/counters/metrics/
derived_counters.xml``; ROCm/rocprofiler-sdk ``counters/yaml/counter_defs.yaml`` @8ab1ed78;
ROCm/rocm-systems ``projects/rocprofiler-sdk/source/share/rocprofiler-sdk/counter_defs.yaml``
@1b1610fc). gfx908/gfx90a: FETCH_SIZE is that architecture's own ``TCC_EA`` formula (exact)."""

FAMILIES = {  # gfx target → formula family
    "gfx908": "gfx908", "gfx90a": "gfx90a",
    "gfx940": "gfx942", "gfx941": "gfx942", "gfx942": "gfx942", "gfx950": "gfx950",
}
RDNA = "rdna"
"""Family of RDNA GPUs and APUs (gfx10xx, gfx11xx such as gfx1100 and the gfx1150/gfx1151
APUs, gfx12xx): no MFMA units and no TCC_EA/TCC_EA0 request counters in rocprof's
roofline sets, so their DRAM bytes come from rocprof's derived FETCH_SIZE and WRITE_SIZE."""
_HBM = {  # family → HBM formulas, preferred first
    "gfx908": (HBM_EA, HBM_KIB), "gfx90a": (HBM_EA, HBM_KIB),
    "gfx942": (HBM_BUBBLE, HBM_KIB), "gfx950": (HBM_SIZES, HBM_BUBBLE, HBM_KIB),
    RDNA: (HBM_KIB, HBM_SIZES, HBM_BUBBLE, HBM_EA),
    None: (HBM_SIZES, HBM_BUBBLE, HBM_EA, HBM_KIB),
}
_OPS_VALU = {p: f for p, f in _OPS_CDNA2.items() if not f.name.startswith("MFMA")}
_OPS = {"gfx908": {}, "gfx90a": _OPS_CDNA2, "gfx942": _OPS_CDNA3, "gfx950": _OPS_CDNA4,
        RDNA: _OPS_VALU, None: _OPS_CDNA4}


def family(arch: str | None) -> str | None:
    """The formula family of gfx target ``arch`` (None when unknown).

    A value of :data:`FAMILIES`, or :data:`RDNA` for gfx10xx–gfx12xx.
    """
    target = gfx_target(arch or "")
    if target is None:
        return None
    if target in FAMILIES:
        return FAMILIES[target]
    return RDNA if len(target) >= 7 and target[3] == "1" else None


def collect_command(tool: str, counters: Iterable[str]) -> str:
    """The command line that collects ``counters`` with ``tool``.

    ``tool``: "rocprofv3", "rocprofv1" or "rocprof-compute", the profilers whose exports
    :func:`plan` reads.
    rocprofv3: ``--pmc`` and CSV output (rocprofv3 docs, "Using rocprofv3", counter
    collection); rocprof v1: an input file of ``pmc:`` lines (``-i``; ROCm rocprofv1 docs);
    rocprof-compute collects its roofline counters itself (``profile``).
    """
    names = " ".join(dict.fromkeys(counters))
    if tool == "rocprofv1":
        return f"rocprof -i input.txt ./app, input.txt holding 'pmc: {names}'"
    if tool == "rocprof-compute":
        return "rocprof-compute profile -n NAME -- ./app (it collects " + names + ")"
    return f"rocprofv3 --pmc {names} --output-format csv -- ./app"
COUNTERS = frozenset(
    c for f in (*_OPS_CDNA4.values(), _LDS, _L1, _L2, HBM_EA, HBM_BUBBLE, HBM_SIZES, HBM_KIB)
    for c in f.weights
)
"""Every counter a formula reads."""

CYCLES = "GRBM_GUI_ACTIVE"
"""GPU busy cycles of a dispatch, summed over the XCDs: rocprof-compute's "Kernel Time
(Cycles)" is ``GRBM_GUI_ACTIVE / $num_xcd`` (``$GRBM_GUI_ACTIVE_PER_XCD``, ``utils/parser.py``;
gfx942 ``0700_wavefront.yaml``, ROCm/rocm-systems @1b1610fc)."""



def partition_xcds(name: str, partition: str) -> int | None:
    """XCDs of one compute partition of GPU ``name``, or None when the table does not say.

    rocprof-compute's ``num_xcds`` (``mi_gpu_spec.yaml``): the GPU's XCDs split evenly
    among the partitions, e.g. MI300X SPX 8, DPX 8/2 = 4, QPX 8/4 = 2, CPX 1; MI300A TPX
    6/3 = 2; MI308X DPX 4/2 = 2. A stepping suffix is dropped (``MI300A_A1`` → MI300A).
    """
    spx = SPX_XCDS.get(name.upper().split("_")[0])
    part = partition.strip().upper()
    if spx is None:
        return None
    if part == "CPX":
        return 1
    parts = _PARTITIONS.get(part)
    return spx // parts if parts and spx % parts == 0 else None


def wave_size(arch: str | None) -> float:
    """Lanes per wavefront instruction by default on ``arch``: 64 before gfx10, 32 from gfx10.

    GCN and CDNA (gfx9xx: MI100 … MI355X) run wave64 only; RDNA (gfx10xx, gfx11xx, gfx12xx)
    compiles wave32 unless built with ``-mwavefrontsize64`` (LLVM ``AMDGPUAsmParser``: "for
    gfx10+ set wave32 as a default"; clang ``test/Driver/hip-wavefront-size.hip``: gfx900
    wave64, gfx1010 wave32). Unknown architecture (None): 64, the CDNA formulas' GPUs.
    """
    target = gfx_target(arch or "")
    return 32.0 if target and len(target) >= 7 and target[3] == "1" else LANES


def arch_from_counters(counters: Iterable[str]) -> str | None:
    """The architecture the counter names imply, or None when they do not tell."""
    names = set(counters)
    if names & {"SQ_INSTS_VALU_MFMA_MOPS_F6F4", "TCC_EA0_RDREQ_128B_sum"}:
        return "gfx950"
    if any(n.startswith(("TCC_EA0_", "TCC_BUBBLE")) for n in names):
        return "gfx942"
    if any(n.startswith("TCC_EA_") for n in names) and any(
        n.startswith("SQ_INSTS_VALU_MFMA_MOPS_") for n in names
    ):
        return "gfx90a"
    return None


def canonical_columns(header: Iterable[str]) -> dict[str, str]:
    """Counter name → header column, for the counters of :data:`COUNTERS` in ``header``.

    Exact names first; else a per-pass duplicate ``NAME_<digits>`` of a known counter
    (digits are never stripped from other names: ``SQ_WAVES_LT_64`` is a counter).
    """
    columns = list(header)
    found = {c: c for c in columns if c in COUNTERS}
    for column in columns:
        match = re.fullmatch(r"(.+)_\d+", column)
        if match and match.group(1) in COUNTERS and match.group(1) not in found:
            found[match.group(1)] = column
    return found


@dataclass(frozen=True)
class CounterPlan:
    """The formulas one export can use.

    Attributes:
        arch: gfx target ("" when unknown).
        ops: precision → formula (complete counter sets only).
        levels: memory level (HBM, L2, L1, LDS) → formula.
        notes: what is missing or approximate, one sentence each.
        present: the counters the export holds.
    """

    arch: str
    ops: dict[str, CounterFormula]
    levels: dict[str, CounterFormula]
    notes: tuple[str, ...]
    present: frozenset[str]

    @property
    def counters(self) -> list[str]:
        """Counters the plan reads (optional ones only if collected), in formula order."""
        seen: dict[str, None] = {}
        for formula in (*self.ops.values(), *self.levels.values()):
            seen.update(dict.fromkeys(c for c in formula.weights if c in self.present))
        return list(seen)


def _flop_counters(family: str | None) -> list[str]:
    return [c for p, f in _OPS[family].items() if p not in _OPTIONAL_OPS for c in f.weights]


def roofline_counters(arch: str | None) -> list[str]:
    """Counters a full roofline of ``arch`` reads: FLOP (VALU, MFMA) and HBM, L2, L1, LDS.

    Integer and FP8/FP6 counters are optional and not listed; None → gfx950's set; RDNA:
    its VALU counters, FETCH_SIZE and WRITE_SIZE (no cache levels in rocprof's set).
    """
    fam = family(arch)
    caches = () if fam == RDNA else (*_L2.weights, *_L1.weights, *_LDS.weights)
    return [*_flop_counters(fam), *_HBM[fam][0].weights, *caches]


def _complete(formula: CounterFormula, present: set[str], partial: list[str]) -> bool:
    """Whether every counter ``formula`` needs was collected.

    A formula with some of its counters collected but not all is noted in ``partial``
    (an incomplete counter set is refused); one with none of them is simply not used.
    """
    if not formula.touched(present):
        return False
    if missing := formula.missing(present):
        partial.append(f"{formula.name}: {', '.join(missing)}")
        return False
    return True


def plan(arch: str | None, counters: Iterable[str], source: str,
         tool: str = "rocprofv3") -> CounterPlan:
    """Pick the formulas for ``arch`` and check the counters of an export.

    A precision or level whose counters are all absent is left out (with a note); one
    with only some of its counters is an error. No FLOP counters at all → memory rows
    only (bandwidth-only points), with the reason in the notes.

    Args:
        arch: gfx target from the export's metadata, or None (then from the counter
            names, :func:`arch_from_counters`).
        counters: counter names present (canonical, see :func:`canonical_columns`).
        source: file named in errors.
        tool: the profiler that wrote the export (:func:`collect_command`), for the command line
            a refusal gives (:func:`collect_command`).

    Raises:
        InputError: a precision or level with part of its counters (names the missing
            ones); no complete byte counters for any level (names what to collect):
            the counters of the file's own architecture (gfx90a ``TCC_EA_*``, gfx942
            and gfx950 ``TCC_EA0_*``, RDNA ``FETCH_SIZE``/``WRITE_SIZE``) and the
            ``tool`` command line that collects them.
    """
    present = set(counters)
    arch = gfx_target(arch) if arch else arch_from_counters(present)
    fam = family(arch)
    notes: list[str] = []
    if arch and fam is None:
        notes.append(f"{arch} has no rocprof-compute roofline; formulas chosen by counter names")
    partial: list[str] = []
    ops = {}
    for precision, formula in _OPS[fam].items():
        if _complete(formula, present, partial):
            ops[precision] = formula
    if fam == "gfx908":
        notes.append("gfx908 (MI100) has no per-precision VALU or MFMA counters (rocprof-compute "
                     "has no roofline for it either): memory rows only, no FLOP")
    elif not ops:
        notes.append("no FLOP counters: memory rows only; collect "
                     + " ".join(_flop_counters(fam)))
    else:
        absent = [f.name for p, f in _OPS[fam].items()
                  if p not in ops and p not in _OPTIONAL_OPS and not f.touched(present)]
        if absent:
            notes.append("not collected, counted as no work: " + ", ".join(absent))
    levels: dict[str, CounterFormula] = {}
    candidates = _HBM[fam]
    hbm = next((f for f in candidates if f.touched(present) and not f.missing(present)), None)
    if hbm is not None:
        levels["HBM"] = hbm
        if hbm is HBM_KIB and fam in FETCH_SIZE_NOTES:
            notes.append(f"HBM bytes by {hbm.name}: {arch}'s own counters were not "
                         f"collected; {FETCH_SIZE_NOTES[fam]}")
        elif hbm is not candidates[0] and fam in ("gfx942", "gfx950"):
            notes.append(f"HBM bytes by {hbm.name}: {arch}'s own counters "
                         f"({', '.join(candidates[0].weights)}) were not collected; "
                         "reads of 128-byte requests are undercounted")
    elif candidates[0].touched(present):
        partial.append(f"{candidates[0].name}: {', '.join(candidates[0].missing(present))}")
    for level, formula in (("L2", _L2), ("L1", _L1), ("LDS", _LDS)):
        if _complete(formula, present, partial):
            levels[level] = formula
            left_out = [c for c in formula.weights if c in formula.optional and c not in present]
            if left_out:
                notes.append(f"{formula.name} bytes count {', '.join(left_out)} as 0 "
                             "(not collected)")
    gpu = f"{arch}'s" if arch else "the"
    if not levels:
        caches = () if fam == RDNA else (*_L2.weights, *_L1.weights, *_LDS.weights)
        wanted = [*candidates[0].weights, *caches]
        flop = "" if ops or fam == "gfx908" else "no FLOP counters (collect " + " ".join(
            _flop_counters(fam)) + ") and "
        lacking = [c for c in wanted if c not in present]
        raise InputError(
            source, f"{flop}no complete byte counters for any memory level (found: "
            f"{', '.join(sorted(present & COUNTERS)) or 'none'}); collect {gpu} "
            + " ".join(lacking) + ": " + collect_command(
                tool, [*([] if ops or fam == "gfx908" else _flop_counters(fam)), *lacking]),
            check="required counters",
        )
    if partial:
        missing = [c for line in partial for c in line.split(": ", 1)[1].split(", ")]
        raise InputError(source, f"incomplete counter set; collect {gpu} missing counters: "
                         + "; ".join(partial) + ": " + collect_command(tool, missing),
                         check="required counters")
    missing_levels = [lv for lv in ("HBM", "L2", "L1", "LDS") if lv not in levels]
    if missing_levels:
        notes.append("no counters for level(s) " + ", ".join(missing_levels))
    return CounterPlan(arch or "", ops, levels, tuple(notes), frozenset(present))
