"""Omniperf / rocprof-compute workload folders → per-kernel breakdown → roofline points.

A workload folder (``rocprof-compute profile -n NAME`` → ``workloads/NAME/<GPU>/``) holds:

* ``pmc_perf.csv``: one row per dispatch, one column per counter; ``Kernel_Name``,
  ``Start_Timestamp``, ``End_Timestamp`` (ns; older Omniperf: ``KernelName``,
  ``BeginNs``, ``EndNs``). Columns are found by name, never by position; a counter
  repeated by a later pass has a ``_N`` suffix and is used when the plain name is absent;
  per-channel ``TCC_*[i]`` columns are not read (the ``_sum`` aggregates are).
* ``sysinfo.csv`` (optional): one row; ``gpu_arch`` (gfx target) picks the formulas,
  ``chip_id`` (rocprof-compute 3.x) names the GPU, else ``gpu_model``. ``chip_id`` wins
  over ``gpu_model`` (an MI325X reports ``gpu_model`` MI300); ``hbm_bw``,
  ``total_l2_chan`` and ``num_xcd`` are not read (wrong in that sample). Without
  sysinfo, the counter names give the architecture.
* ``roofline.csv`` (optional): measured peaks, read by :mod:`rooflow.roofs.omniperf`.

Formulas: :mod:`rooflow.adapters.amd.counters` (rocprof-compute ``roofline_calc.py`` and
``0400_roofline.yaml``); time per dispatch ``End_Timestamp − Start_Timestamp`` (ns).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rooflow.adapters.amd.counters import CHIP_IDS, canonical_columns, gfx_target, plan
from rooflow.adapters.amd.kernels import Dispatches, checked_dispatches
from rooflow.errors import InputError
from rooflow.settings import Settings
from rooflow.validate import coerce_numeric, read_csv_text

_LEGACY = {"KernelName": "Kernel_Name", "BeginNs": "Start_Timestamp", "EndNs": "End_Timestamp"}
DURATION = "End_Timestamp - Start_Timestamp"


def gpu_of_sysinfo(folder: Path) -> tuple[str | None, str]:
    """(gfx target or None, GPU name or "") from ``sysinfo.csv``; (None, "") without it.

    Raises:
        InputError: an unreadable ``sysinfo.csv``.
    """
    path = folder / "sysinfo.csv"
    if not path.is_file():
        return None, ""
    frame = read_csv_text(path)
    if frame.is_empty():
        raise InputError(str(path), "has no data row", check="rows")
    info = {k: (v or "").strip() for k, v in frame.row(0, named=True).items()}
    chip = info.get("chip_id", "")
    name, chip_arch = CHIP_IDS.get(int(chip), ("", None)) if chip.isdigit() else ("", None)
    arch = gfx_target(info.get("gpu_arch", "")) or chip_arch
    return arch, name or info.get("gpu_model", "")


def read_workload(path: str | Path) -> Dispatches:
    """Dispatch rows, formulas and GPU of a workload folder (or its ``pmc_perf.csv``).

    Raises:
        InputError: no ``pmc_perf.csv``; no kernel-name or timestamp column; counters
            missing as :func:`rooflow.adapters.amd.counters.plan` says; a bad value.
    """
    folder = Path(path)
    folder = folder.parent if folder.is_file() else folder
    pmc = folder / "pmc_perf.csv"
    arch, device = gpu_of_sysinfo(folder)
    frame = read_csv_text(pmc)
    frame = frame.rename({o: n for o, n in _LEGACY.items()
                          if o in frame.columns and n not in frame.columns})
    missing = [c for c in ("Kernel_Name", "Start_Timestamp", "End_Timestamp")
               if c not in frame.columns]
    if missing:
        raise InputError(str(pmc), "lacks column(s) " + ", ".join(missing),
                         check="required columns")
    found = canonical_columns(frame.columns)
    formulas = plan(arch, found, str(pmc))
    frame = frame.rename({col: name for name, col in found.items() if col != name})
    frame = coerce_numeric(frame, ["Start_Timestamp", "End_Timestamp"], pmc).with_columns(
        (pl.col("End_Timestamp") - pl.col("Start_Timestamp")).alias(DURATION)
    )
    return checked_dispatches(frame, formulas, pmc, kernel="Kernel_Name", time=DURATION,
                              device=device)


def omniperf_kernels(path: str | Path) -> pl.DataFrame:
    """Per-kernel breakdown (:meth:`~rooflow.adapters.amd.kernels.Dispatches.kernels`)."""
    return read_workload(path).kernels()


def omniperf_points(path: str | Path) -> pl.DataFrame:
    """Canonical points of a workload folder, series "rocprof".

    Raises:
        InputError: as :func:`read_workload`; no kernel with bytes and a time.
    """
    return read_workload(path).points("rocprof")


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry (kind ``rocprof``): the workload folder of ``path``."""
    return omniperf_points(path)
