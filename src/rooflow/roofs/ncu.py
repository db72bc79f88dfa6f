"""Nsight Compute export → device peaks (a hardware preset) from its "Theoretical" metrics.

Nsight Compute's roofline sections (``SpeedOfLight_RooflineChart.section``,
``SpeedOfLight_Hierarchical{Double,Single,Half,Tensor}RooflineChart.section``; 2025 copy in
GitHub xingxerx/Qallow ``sections/``) draw each roof as a per-cycle peak × a clock:

* compute: ``sm__sass_thread_inst_executed_op_{d,f}fma_pred_on.sum.peak_sustained`` × 2
  (labels "Theoretical Predicated-On DFMA/FFMA Operations" = the ``_x2`` definitions),
  ``…hfma….peak_sustained`` × 4 (Half chart, packed half2), tensor
  ``sm__ops_path_tensor_<type>.sum.peak_sustained`` (dense), each × SM frequency
  ``sm__cycles_elapsed.avg.per_second``;
* DRAM: ``dram__bytes.sum.peak_sustained`` × ``dram__cycles_elapsed.avg.per_second``;
* L2: ``derived__lts__lts2xbar_bytes.sum.peak_sustained`` (=
  ``lts__lts2xbar_cycles_active.sum.peak_sustained`` × 32; older sections
  ``l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained``) × ``lts__cycles_elapsed.avg.per_second``;
* L1: ``derived__l1tex__lsu_writeback_bytes_mem_lg[ds].sum.peak_sustained`` (=
  ``l1tex__lsu_writeback_active_mem_lg[ds].sum.peak_sustained`` × 128) ×
  ``l1tex__cycles_elapsed.avg.per_second``.

The clocks are those of the profiled launch: ncu locks them to base clock by default
(``--clock-control base``), so these peaks are the base-clock roofs, not boost. The
preset is theoretical (``empirical: false``).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rooflow.adapters.ncu_metrics import SASS, TENSOR_PRECISION
from rooflow.adapters.ncu_passes import read_passes
from rooflow.errors import InputError

_SM_CLOCK = ("sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second",
             "gpc__cycles_elapsed.avg.per_second")
_COMPUTE = {  # precision → ((peak metric, FLOP per counted unit), ...)
    prec: ((SASS.format(op) + ".peak_sustained", k),
           (f"derived__sm__sass_thread_inst_executed_op_{op}_pred_on_x{k}", 1.0))
    for prec, op, k in (("fp64", "dfma", 2), ("fp32", "ffma", 2), ("fp16", "hfma", 4))
}
_MEMORY = {  # level → (clock, ((peak metric, bytes per unit), ...))
    "DRAM": ("dram__cycles_elapsed.avg.per_second", (("dram__bytes.sum.peak_sustained", 1.0),)),
    "L2": ("lts__cycles_elapsed.avg.per_second", (
        ("derived__lts__lts2xbar_bytes.sum.peak_sustained", 1.0),
        ("lts__lts2xbar_cycles_active.sum.peak_sustained", 32.0),
        ("l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained", 1.0))),
    "L1": ("l1tex__cycles_elapsed.avg.per_second", tuple(
        (f"{base}{s}.sum.peak_sustained", k)
        for s in ("_mem_lg", "_mem_lgds", "")
        for base, k in (("derived__l1tex__lsu_writeback_bytes", 1.0),
                        ("l1tex__lsu_writeback_active", 128.0)))),
}


def _tensor_peaks(values: dict[str, float]) -> dict[str, tuple[str, float]]:
    """Precision → (metric, dense ops/cycle) of the generic op-path peak metrics."""
    out: dict[str, tuple[str, float]] = {}
    prefix, suffix = "sm__ops_path_tensor_src_", ".sum.peak_sustained"
    for metric, value in sorted(values.items()):
        if not (metric.startswith(prefix) and metric.endswith(suffix)) or "sparsity_on" in metric:
            continue
        src = metric.removeprefix(prefix).removesuffix(suffix).split("_dst_")[0]
        src = src.removesuffix("_sparsity_off")
        precision = TENSOR_PRECISION.get(src)
        if precision and value > out.get(precision, ("", 0.0))[1]:
            out[precision] = (metric, value)
    return out


def ncu_preset(path: str | Path) -> dict:
    """Theoretical device peaks from an ``ncu --csv`` export (details or raw page).

    Uses the first launch that has an SM clock and any "Theoretical" (``.peak_sustained``)
    metric; display labels are mapped to metric ids (:mod:`rooflow.adapters.ncu_metrics`).

    Returns:
        The preset mapping of ``hardware.yaml``: ``name`` (device name, else the file
        stem), ``source`` (the file, launch and clocks used), ``compute`` (precision →
        TFLOP/s or TOP/s), ``memory`` (DRAM/L2/L1 → GB/s), ``default_compute`` (fp32 when
        present, else the highest), ``default_memory`` (DRAM when present, else the
        lowest), ``empirical`` False.

    Raises:
        InputError: as ``read_ncu``; no launch with a compute and a memory peak and the
            clocks they need.
    """
    path = Path(path)
    table, _ = read_passes([path])
    positive = table.filter(pl.col("value").is_not_null() & (pl.col("value") > 0))
    for frame in positive.partition_by("kernel", "launch", maintain_order=True):
        values = dict(zip(frame["metric"], frame["value"], strict=True))
        sm = next((values[m] for m in _SM_CLOCK if values.get(m)), None)
        compute: dict[str, float] = {}
        used = []
        if sm:
            for prec, options in _COMPUTE.items():
                hit = next(((m, k) for m, k in options if values.get(m)), None)
                if hit:
                    compute[prec] = values[hit[0]] * hit[1] * sm / 1e12
                    used.append(hit[0])
            for prec, (metric, value) in _tensor_peaks(values).items():
                compute[prec] = value * sm / 1e12
                used.append(metric)
        memory: dict[str, float] = {}
        clocks = []
        for level, (clock, options) in _MEMORY.items():
            hit = next(((m, k) for m, k in options if values.get(m)), None)
            if hit and values.get(clock):
                memory[level] = values[hit[0]] * hit[1] * values[clock] / 1e9
                clocks.append(f"{level} {values[clock] / 1e6:.0f} MHz")
        if compute and memory:
            first = frame.row(0, named=True)
            return {
                "name": first["device"] or path.stem,
                "source": f"{path} (Nsight Compute theoretical peaks of launch {first['launch']}"
                          f" '{first['kernel'][:60]}': SM {sm / 1e6:.0f} MHz, "
                          + ", ".join(clocks) + ")",
                "compute": compute,
                "memory": memory,
                "default_compute": "fp32" if "fp32" in compute else max(compute, key=compute.get),
                "default_memory": "DRAM" if "DRAM" in memory else min(memory, key=memory.get),
                "empirical": False,
            }
    raise InputError(
        str(path), "no Theoretical peaks: export the roofline sections (ncu --set roofline, "
        "or --section SpeedOfLight_RooflineChart) or the metrics "
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained, "
        "sm__cycles_elapsed.avg.per_second, dram__bytes.sum.peak_sustained, "
        "dram__cycles_elapsed.avg.per_second", check="theoretical peaks",
    )

