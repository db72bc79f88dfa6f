"""Nsight Compute export → device peaks (a preset) from its "Theoretical" metrics.

Nsight Compute's roofline sections (``SpeedOfLight_RooflineChart.section``,
``SpeedOfLight_Hierarchical{Double,Single,Half,Tensor}RooflineChart.section``; 2025 copy in
GitHub xingxerx/Qallow ``sections/``) draw each roof as a per-cycle peak × a clock:

* compute: ``sm__sass_thread_inst_executed_op_{d,f}fma_pred_on.sum.peak_sustained`` × 2
  (labels "Theoretical Predicated-On DFMA/FFMA Operations" = the ``_x2`` definitions),
  ``…hfma….peak_sustained`` × 4 (Half chart, packed half2), tensor
  ``sm__ops_path_tensor_<type>.sum.peak_sustained`` (dense), each × SM frequency
  ``sm__cycles_elapsed.avg.per_second``; the FMA weights are
  :data:`~rooflow.formats.ncu.metrics.FLOP_PER_INST`, which counts the points' FLOP too;
* DRAM: ``dram__bytes.sum.peak_sustained`` × ``dram__cycles_elapsed.avg.per_second``;
* L2: ``derived__lts__lts2xbar_bytes.sum.peak_sustained`` (=
  ``lts__lts2xbar_cycles_active.sum.peak_sustained`` × 32; older sections
  ``l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained``) × ``lts__cycles_elapsed.avg.per_second``;
* L1: ``derived__l1tex__lsu_writeback_bytes_mem_lg[ds].sum.peak_sustained`` (=
  ``l1tex__lsu_writeback_active_mem_lg[ds].sum.peak_sustained`` × 128) ×
  ``l1tex__cycles_elapsed.avg.per_second``.

The clocks are those of the profiled launch: ncu locks them to base clock by default
(``--clock-control base``), so these peaks are the base-clock roofs, not boost. Launches
of one report still run at different clocks (GH200 report in ../shared/data: launch 0 at
1,509 MHz, launch 1 at 1,449 MHz), so the preset names the launch and its clocks
(``clocks``: SM as ``boost_mhz``, DRAM as ``memory_mhz``, L2 as ``l2_mhz``, L1 among
``sm_levels``: its ``l1tex__cycles_elapsed`` rate is the SM clock) and every point is
judged at its own launch's clocks (:func:`rooflow.analysis.analyze`). The device name is
the preset's ``devices``, so the clocks of a point measured on it scale its roofs
(:func:`rooflow.clocks.own_gpu`). The preset is theoretical (``empirical: false``). The
workflow finds the ncu datasets that give one (preset ``ncu-NAME``) with :func:`has_peaks`,
a text search, before any parsing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.formats.ncu.metrics import (
    DRAM_CLOCK,
    FLOP_PER_INST,
    L2_CLOCK,
    LABELS,
    SASS,
    TENSOR_PRECISION,
    canonical,
)
from rooflow.formats.ncu.passes import export_files, read_passes

_SM_CLOCK = ("sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second",
             "gpc__cycles_elapsed.avg.per_second")
# precision → ((peak metric, FLOP per counted unit), ...); the points' weights
_COMPUTE: dict[str, tuple[tuple[str, float], ...]] = {
    prec: ((SASS.format(op) + ".peak_sustained", k),
           (f"derived__sm__sass_thread_inst_executed_op_{op}_pred_on_x{k}", 1.0))
    for prec, op in (("fp64", "dfma"), ("fp32", "ffma"), ("fp16", "hfma"))
    for k in (FLOP_PER_INST[op[0]]["fma"],)
}
# level → (clock, ((peak metric, bytes per unit), ...))
_MEMORY: dict[str, tuple[str, tuple[tuple[str, float], ...]]] = {
    "DRAM": (DRAM_CLOCK, (("dram__bytes.sum.peak_sustained", 1.0),)),
    "L2": (L2_CLOCK, (
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


def _spellings(metric: str) -> list[str]:
    """How ``metric`` may be written in an export: its id, ``smsp__`` alias, display labels."""
    alias = "smsp__" + metric.removeprefix("sm__")
    return [metric, *([alias] if canonical(alias) == metric else []),
            *(label for label, target in LABELS.items() if target == metric)]


def _needs() -> dict[str, set]:
    """Spelling → what it gives: "compute" (a peak), "sm" (SM clock), (peak|clock, level)."""
    groups: list[tuple] = [("compute", [m for opts in _COMPUTE.values() for m, _ in opts]),
                           ("sm", _SM_CLOCK)]
    for level, (clock, options) in _MEMORY.items():
        groups += [(("peak", level), [m for m, _ in options]), (("clock", level), [clock])]
    needs: dict[str, set] = {}
    for group, metrics in groups:
        for name in (n for metric in metrics for n in _spellings(metric)):
            needs.setdefault(name, set()).add(group)
    return needs


_NEEDS = _needs()
_NEEDED = re.compile(  # whole names only, so no ".pct_of_peak_sustained_*" metric matches
    rb"(?<![\w.])(%s|sm__ops_path_tensor_src_\w+\.sum\.peak_sustained)(?![\w.])"
    % b"|".join(re.escape(n.encode()) for n in sorted(_NEEDS, key=len, reverse=True)))


def has_peaks(paths: str | Path | Sequence[str | Path]) -> bool:
    """Whether ``ncu --csv`` export(s) name what :func:`ncu_preset` needs (cheap, never raises).

    A text search, without parsing: a compute peak, the SM clock, and a memory level's
    peak and clock, each as a metric id or display label, in any of the files (a folder's
    passes together). Values are not read, so :func:`ncu_preset` may still refuse a file
    this accepts (e.g. every value ``n/a``).
    """
    found: set = set()
    try:
        for path in export_files(paths):
            if not path.is_file():  # a FIFO would block the open, a device never end
                continue
            with open(path, "rb") as handle:
                tail = b""
                while chunk := handle.read(1 << 20):
                    text = tail + chunk
                    for name in _NEEDED.findall(text):
                        found |= _NEEDS.get(name.decode(), {"compute"})  # else a tensor peak
                    tail = text[-256:]  # a name cut by the chunk boundary
    except (InputError, OSError):
        return False
    return {"compute", "sm"} <= found and any(
        {("peak", level), ("clock", level)} <= found for level in _MEMORY)


def ncu_preset(paths: str | Path | Sequence[str | Path]) -> dict:
    """Theoretical device peaks from ``ncu --csv`` export(s) (details or raw page).

    Several files (or a folder of them) are passes of one run, merged as for the points
    (:func:`~rooflow.formats.ncu.passes.read_passes`). Uses the first launch that has an
    SM clock and any "Theoretical" (``.peak_sustained``) metric; display labels are mapped
    to metric ids (:mod:`rooflow.formats.ncu.metrics`).

    Returns:
        The preset mapping of ``hardware.yaml``: ``name`` (device name, else the first
        path's stem, or its name for a folder), ``source`` (the files, launch and clocks
        used), ``compute`` (precision → TFLOP/s or TOP/s), ``memory`` (DRAM/L2/L1 → GB/s),
        ``default_compute`` (fp32 when present, else the highest), ``default_memory`` (DRAM
        when present, else the lowest), ``empirical`` False, ``clocks`` (that launch's SM
        clock as ``boost_mhz``, DRAM clock as ``memory_mhz`` and L2 clock as ``l2_mhz``,
        MHz; ``launch``;
        ``sm_levels`` L1 where its clock is the SM's) and ``devices`` (the device name,
        where the export gives one).

    Raises:
        InputError: as ``read_ncu``; no launch with a compute and a memory peak and the
            clocks they need.
    """
    items = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
    where = ", ".join(map(str, items))
    table, _ = read_passes(export_files(items))
    positive = table.filter(pl.col("value").is_not_null() & (pl.col("value") > 0))
    for frame in positive.partition_by("kernel", "launch", maintain_order=True):
        values = dict(zip(frame["metric"], frame["value"], strict=True))
        sm = next((values[m] for m in _SM_CLOCK if values.get(m)), None)
        if not sm:  # no compute peak without the SM clock
            continue
        compute: dict[str, float] = {}
        used = []
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
            dram_clock = values.get(_MEMORY["DRAM"][0]) if "DRAM" in memory else None
            l2_clock = values.get(_MEMORY["L2"][0]) if "L2" in memory else None
            l1_clock = values.get(_MEMORY["L1"][0]) if "L1" in memory else None
            # NVIDIA's L1 is in the SM: its clock is the SM's (equal in every report in
            # ../shared/data); a report where they differ keeps L1 at its own launch's.
            sm_levels = ["L1"] if l1_clock and abs(l1_clock / sm - 1) < 1e-3 else []
            return {
                "name": first["device"] or (items[0].name if items[0].is_dir()
                                            else items[0].stem),
                "source": f"{where} (Nsight Compute theoretical peaks of launch {first['launch']}"
                          f" '{short_name(first['kernel'], 60)}': SM {sm / 1e6:.0f} MHz, "
                          + ", ".join(clocks) + ")",
                "compute": compute,
                "memory": memory,
                "default_compute": "fp32" if "fp32" in compute
                                   else max(compute, key=compute.__getitem__),
                "default_memory": "DRAM" if "DRAM" in memory
                                  else min(memory, key=memory.__getitem__),
                "empirical": False,
                "clocks": {
                    "boost_mhz": sm / 1e6,
                    **({"memory_mhz": dram_clock / 1e6} if dram_clock else {}),
                    **({"l2_mhz": l2_clock / 1e6} if l2_clock else {}),
                    "launch": int(first["launch"]),
                    **({"sm_levels": sm_levels} if sm_levels else {}),
                    "source": f"the clocks launch {first['launch']} ran at (Nsight Compute)",
                },
                **({"devices": [first["device"]]} if first["device"] else {}),
            }
    raise InputError(
        where, "no Theoretical peaks: export the roofline sections (ncu --set roofline, "
        "or --section SpeedOfLight_RooflineChart) or the metrics "
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained, "
        "sm__cycles_elapsed.avg.per_second, dram__bytes.sum.peak_sustained, "
        "dram__cycles_elapsed.avg.per_second", check="theoretical peaks",
    )

