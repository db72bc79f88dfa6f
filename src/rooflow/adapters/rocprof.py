"""Any AMD profiler export → canonical points, the reader picked by content (``from-rocprof``).

Readers, tried in order by their content checks (:mod:`.sniffing`):
:mod:`.omniperf` (rocprof-compute / Omniperf workload folder), :mod:`.rocprofv3`
(``*_counter_collection.csv``), :mod:`.rocprof_v1` (``results.csv`` runs).
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import polars as pl

from rooflow.adapters import sniffing
from rooflow.errors import InputError
from rooflow.settings import Settings

READERS = {"omniperf": "rocprof", "rocprofv3": "rocprofv3", "rocprof_v1": "rocprofv1"}
"""Adapter module → its kind's content check, in the order they are tried."""


def detect(path: str | Path) -> str:
    """The reader module (a name of :data:`READERS`) for ``path``.

    Raises:
        InputError: no such path, or no reader recognises it.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "file not found")
    for name, kind in READERS.items():
        if getattr(sniffing, kind)(path):
            return name
    raise InputError(
        str(path), "not a rocprof export: expected an Omniperf/rocprof-compute workload folder "
        "(pmc_perf.csv), a rocprofv3 *_counter_collection.csv or rocprof v1 CSVs "
        "(Index, KernelName)", check="format",
    )


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Points of ``path`` by the reader :func:`detect` picks."""
    return import_module(f"rooflow.adapters.{detect(path)}").load(Path(path), settings)
