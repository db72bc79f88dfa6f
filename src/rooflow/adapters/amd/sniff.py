"""Sniffers of kinds ``rocprof``, ``rocprofv1`` and ``rocprofv3``; they import no reader.

Named in their :attr:`rooflow.kinds.Kind.sniffer`. The identifying marks used by both a
sniffer and its reader live here.
"""

from __future__ import annotations

from pathlib import Path

from rooflow.formats.sniffing import (
    ROCPROFV3_SUFFIX,
    compute_database,
    csv_files,
    header_names,
    rocpd_database,
)

ROCPROF_V1_KEY = ("Index", "KernelName")
"""Columns that identify a rocprof v1 per-dispatch CSV and one dispatch in it."""


def rocprof(path: Path) -> bool:
    """An Omniperf/rocprof-compute workload folder (or its ``pmc_perf.csv``), or database.

    The header holds ``Dispatch_ID`` and a kernel-name column, in the wide table (a row per
    dispatch) and the long one of ROCm 7's rocpd output (a row per dispatch × counter).
    A rocprof-compute analysis database
    (:func:`rooflow.formats.sniffing.compute_database`) is this kind too.
    """
    if compute_database(path):
        return True
    names = header_names(path / "pmc_perf.csv" if path.is_dir() else path)
    return "Dispatch_ID" in names and bool(names & {"Kernel_Name", "KernelName"})


def rocprofv1(path: Path) -> bool:
    """A rocprof v1 per-dispatch CSV (or a folder holding one): ``Index`` and ``KernelName``."""
    return any(set(ROCPROF_V1_KEY) <= header_names(f) for f in csv_files(path, "*.csv"))


def rocprofv3(path: Path) -> bool:
    """A rocprofv3 counter collection CSV (or a folder with one), or a rocpd database.

    The header holds ``Dispatch_Id``, ``Counter_Name`` and ``Counter_Value``; a database
    holds the rocpd tables (:func:`rooflow.formats.sniffing.rocpd_database`).
    """
    if rocpd_database(path):
        return True
    need = {"Dispatch_Id", "Counter_Name", "Counter_Value"}
    return any(need <= header_names(f) for f in csv_files(path, f"*{ROCPROFV3_SUFFIX}"))
