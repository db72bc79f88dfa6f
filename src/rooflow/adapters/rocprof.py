"""rocprof/Omniperf workload folders → per-kernel breakdown → roofline points.

A workload folder holds ``pmc_perf.csv`` (one row per dispatch, one column per hardware
counter, ``Start_Timestamp``/``End_Timestamp`` in ns; older Omniperf: ``KernelName``,
``BeginNs``/``EndNs``) and, optionally, ``roofline.csv`` (measured peaks per device).

Formulas of Omniperf's empirical roofline (ROCm/omniperf
``src/omniperf_analyze/utils/roofline_calc.py``; ROCm Compute Profiler docs, "Pipeline
metrics", FLOP counting conventions), per dispatch, summed over a kernel's dispatches:

* VALU FLOP, precision p ∈ {F16, F32, F64}: ``64·(ADD + MUL + TRANS + 2·FMA)`` of
  ``SQ_INSTS_VALU_{ADD,MUL,TRANS,FMA}_<p>`` (64 lanes per wavefront instruction; a
  transcendental counts as one operation, an FMA as two).
* MFMA FLOP, p ∈ {F16, BF16, F32, F64}: ``512·SQ_INSTS_VALU_MFMA_MOPS_<p>`` (the MOPS
  counters count 512-operation units).
* integer operations, kept apart from FLOP: VALU ``64·(SQ_INSTS_VALU_INT32 +
  SQ_INSTS_VALU_INT64)``, MFMA ``512·SQ_INSTS_VALU_MFMA_MOPS_I8``.
* LDS bytes: ``32 banks · 4 byte · (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT)``.
* vL1D bytes (level "L1"): ``64·TCP_TOTAL_CACHE_ACCESSES_sum``.
* L2 bytes: ``64·(TCP_TCC_READ_REQ_sum + TCP_TCC_WRITE_REQ_sum +
  TCP_TCC_ATOMIC_WITH_RET_REQ_sum + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum)``.
* HBM bytes (MI200): ``32·TCC_EA_RDREQ_32B_sum + 64·(TCC_EA_RDREQ_sum −
  TCC_EA_RDREQ_32B_sum) + 32·(TCC_EA_WRREQ_sum − TCC_EA_WRREQ_64B_sum) +
  64·TCC_EA_WRREQ_64B_sum``.
* time: ``End_Timestamp − Start_Timestamp`` (ns).

Precision names: ``fp64``, ``fp32``, ``fp16`` for VALU work, ``fp64-tensor``,
``fp32-matrix``, ``fp16-tensor``, ``bf16-tensor`` for MFMA work: the compute-roof keys
of :func:`rooflow.roofs.omniperf.omniperf_preset`, so a kernel meets the roof of the unit
that did its work.
"""

from __future__ import annotations

from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.adapters.breakdown import dominant, kernel_points
from rooflow.errors import InputError
from rooflow.settings import Settings
from rooflow.validate import check, coerce_numeric, read_csv_text

PRECISIONS = ("fp64", "fp32", "fp16", "fp64-tensor", "fp32-matrix", "fp16-tensor", "bf16-tensor")
"""FLOP precisions in breakdown order; ties for the dominant one go to the first."""

_VALU = {"fp64": "F64", "fp32": "F32", "fp16": "F16"}
_MFMA = {"fp64-tensor": "F64", "fp32-matrix": "F32", "fp16-tensor": "F16", "bf16-tensor": "BF16"}
_VALU_WEIGHTS = {"ADD": 1.0, "MUL": 1.0, "TRANS": 1.0, "FMA": 2.0}
_LANES = 64.0  # work-items per wavefront (wave64)
_MOPS = 512.0  # operations per MFMA MOPS count
_LDS_BANKS, _LDS_BANK_BYTES = 32.0, 4.0
_HBM = {  # counter → bytes per request, for the HBM formula (MI200)
    "TCC_EA_RDREQ_32B_sum": 32.0 - 64.0,  # 32-byte reads, removed from the 64-byte count
    "TCC_EA_RDREQ_sum": 64.0,
    "TCC_EA_WRREQ_sum": 32.0,
    "TCC_EA_WRREQ_64B_sum": 64.0 - 32.0,  # 64-byte writes, removed from the 32-byte count
}
_L2 = ("TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum", "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
       "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum")
_L1 = "TCP_TOTAL_CACHE_ACCESSES_sum"
_LDS = ("SQ_LDS_IDX_ACTIVE", "SQ_LDS_BANK_CONFLICT")
_INT = ("SQ_INSTS_VALU_INT32", "SQ_INSTS_VALU_INT64")
_INT_MATRIX = "SQ_INSTS_VALU_MFMA_MOPS_I8"
_FLOP_COUNTERS = {
    **{prec: [f"SQ_INSTS_VALU_{op}_{p}" for op in _VALU_WEIGHTS] for prec, p in _VALU.items()},
    **{prec: [f"SQ_INSTS_VALU_MFMA_MOPS_{p}"] for prec, p in _MFMA.items()},
}
REQUIRED_COUNTERS = (
    *[c for counters in _FLOP_COUNTERS.values() for c in counters], *_LDS, _L1, *_L2, *_HBM
)
"""Counters a roofline needs; the integer counters are optional."""
# Older Omniperf (roofline_calc.py) names → current names.
_LEGACY = {"KernelName": "Kernel_Name", "BeginNs": "Start_Timestamp", "EndNs": "End_Timestamp"}
_DURATION = "End_Timestamp - Start_Timestamp"
_LEVELS = {"HBM": "bytes_hbm", "L2": "bytes_l2", "L1": "bytes_l1", "LDS": "bytes_lds"}

KERNEL_COLUMNS = (
    "kernel", "dispatches", "row", *[f"flop_{p.replace('-', '_')}" for p in PRECISIONS],
    "flop", "precision", "iop", "iop_matrix", "time_s", *_LEVELS.values(),
)
"""Columns of :func:`rocprof_kernels`, in order."""

class PmcPerf(pa.DataFrameModel):
    """``pmc_perf.csv`` after numeric coercion: the columns the roofline reads."""

    kernel: str = pa.Field(alias="Kernel_Name", str_length={"min_value": 1})
    counters: float = pa.Field(alias=r"^(SQ|TCP|TCC)_\w+$", regex=True, ge=0)
    start: float = pa.Field(alias="Start_Timestamp", ge=0)
    duration_ns: float = pa.Field(alias=_DURATION, gt=0)

    class Config:
        strict = False


def rocprof_kernels(workload_dir: str | Path) -> pl.DataFrame:
    """Per-kernel FLOP by precision, integer operations, bytes by level and time.

    Args:
        workload_dir: an Omniperf workload folder (holding ``pmc_perf.csv``).

    Returns:
        :data:`KERNEL_COLUMNS`, one row per kernel name in order of first dispatch:
        ``kernel``, ``dispatches``, ``row`` (first dispatch's data row), ``flop_fp64``,
        ``flop_fp32``, ``flop_fp16``, ``flop_fp64_matrix``, ``flop_fp32_matrix``,
        ``flop_fp16_matrix``, ``flop_bf16_matrix``, ``flop`` (their sum), ``precision``
        (dominant one of :data:`PRECISIONS`, "" when no FLOP), ``iop`` and ``iop_matrix``
        (integer operations, null without the counters), ``time_s``, ``bytes_hbm``,
        ``bytes_l2``, ``bytes_l1``, ``bytes_lds`` (byte). Counts are f64.

    Raises:
        InputError: no ``pmc_perf.csv``; missing counters (all listed); a counter that is
            not a number or negative; an empty kernel name; End_Timestamp not after
            Start_Timestamp.
    """
    path = Path(workload_dir) / "pmc_perf.csv"
    frame = read_csv_text(path)
    frame = frame.rename({old: new for old, new in _LEGACY.items() if old in frame.columns})
    needed = ["Kernel_Name", "Start_Timestamp", "End_Timestamp", *REQUIRED_COUNTERS]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise InputError(
            str(path), f"lacks {len(missing)} column(s) a roofline needs: " + ", ".join(missing),
            check="required counters",
        )
    optional = [c for c in (*_INT, _INT_MATRIX) if c in frame.columns]
    numeric = ["Start_Timestamp", "End_Timestamp", *REQUIRED_COUNTERS, *optional]
    frame = coerce_numeric(frame.select("Kernel_Name", *numeric), numeric, path)
    frame = frame.with_columns(
        (pl.col("End_Timestamp") - pl.col("Start_Timestamp")).alias(_DURATION)
    )
    frame = check(frame, PmcPerf, path)

    flops = {
        **{prec: pl.sum_horizontal(
            pl.col(f"SQ_INSTS_VALU_{op}_{p}") * w for op, w in _VALU_WEIGHTS.items()
        ) * _LANES for prec, p in _VALU.items()},
        **{prec: pl.col(f"SQ_INSTS_VALU_MFMA_MOPS_{p}") * _MOPS for prec, p in _MFMA.items()},
    }
    integer = {}
    if set(_INT) <= set(optional):
        integer["iop"] = pl.sum_horizontal(_INT) * _LANES
    if _INT_MATRIX in optional:
        integer["iop_matrix"] = pl.col(_INT_MATRIX) * _MOPS
    per = frame.with_row_index("row", offset=1).select(
        pl.col("Kernel_Name").alias("kernel"),
        pl.col("row").cast(pl.Int64),
        *[expr.alias(f"flop_{prec.replace('-', '_')}") for prec, expr in flops.items()],
        *[expr.alias(name) for name, expr in integer.items()],
        (pl.col(_DURATION) * 1e-9).alias("time_s"),
        pl.sum_horizontal(pl.col(c) * b for c, b in _HBM.items()).alias("bytes_hbm"),
        (pl.sum_horizontal(_L2) * 64.0).alias("bytes_l2"),
        (pl.col(_L1) * 64.0).alias("bytes_l1"),
        ((pl.col(_LDS[0]) - pl.col(_LDS[1])) * _LDS_BANKS * _LDS_BANK_BYTES).alias("bytes_lds"),
    )
    flop_columns = [f"flop_{p.replace('-', '_')}" for p in PRECISIONS]
    kernels = per.group_by("kernel", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("dispatches"),
        pl.col("row").first(),
        pl.all().exclude("kernel", "row").sum(),
    )
    return kernels.with_columns(
        # Integer counters not collected: null, not 0 operations.
        *[pl.lit(None, dtype=pl.Float64).alias(n) for n in ("iop", "iop_matrix")
          if n not in integer],
        pl.sum_horizontal(flop_columns).alias("flop"),
        dominant(flop_columns, PRECISIONS).alias("precision"),
    ).select(KERNEL_COLUMNS)


def rocprof_points(workload_dir: str | Path) -> pl.DataFrame:
    """Canonical roofline points (:mod:`rooflow.points`) of an Omniperf workload folder.

    One row per kernel × level (HBM, L2, L1, LDS), series "rocprof", label = kernel,
    precision = dominant FLOP precision (see module doc), flop = all FLOP (VALU + MFMA, no
    integer operations), arithmetic intensity = flop / bytes (FLOP/byte), flop_per_s =
    flop / time_s, bytes_model "measured", row 0 (sums over dispatches). Kernels without
    FLOP (copies) and levels without traffic have no point; :func:`rocprof_kernels` lists
    them.

    Raises:
        InputError: as :func:`rocprof_kernels`; no kernel with FLOP and bytes.
    """
    kernels = rocprof_kernels(workload_dir)
    return kernel_points(
        kernels.with_columns(pl.col("kernel").alias("label"), pl.lit(0).alias("row")),
        _LEVELS, series="rocprof", source=Path(workload_dir) / "pmc_perf.csv",
    )


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: the workload folder of ``path`` (its ``pmc_perf.csv`` or the folder)."""
    folder = Path(path)
    return rocprof_points(folder.parent if folder.is_file() else folder)
