"""Which AMD profiler export a path is (``from-rocprof``), judged by content.

Kinds tried in order by their sniffers (:mod:`.sniff`): ``rocprof``
(rocprof-compute / Omniperf workload folder, or rocprof-compute's analysis database),
``rocprofv3`` (``*_counter_collection.csv``, or a rocpd database), ``rocprofv1``
(``results.csv`` runs).
"""

from __future__ import annotations

from pathlib import Path

from rooflow.errors import InputError
from rooflow.kinds import KINDS

AMD_KINDS = ("rocprof", "rocprofv3", "rocprofv1")
"""Kinds of :data:`rooflow.adapters.KINDS` read from AMD profilers, in the order tried."""


def detect(path: str | Path) -> str:
    """The AMD kind (a name of :data:`AMD_KINDS`) of ``path``, for ``load_points``.

    Raises:
        InputError: no such path, or no AMD kind recognises it.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "file not found")
    for kind in AMD_KINDS:
        if KINDS[kind].sniff(path):
            return kind
    raise InputError(
        str(path), "not a rocprof export: expected an Omniperf/rocprof-compute workload folder "
        "(pmc_perf.csv) or rocprof_compute_*.db, a rocprofv3 *_counter_collection.csv or "
        "rocpd database (*_results.db), or rocprof v1 CSVs (Index, KernelName)",
        check="format",
    )
