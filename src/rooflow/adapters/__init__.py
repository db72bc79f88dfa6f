"""Input adapters: raw files of each kind → the canonical points table.

One module (or vendor subpackage) per kind of :data:`rooflow.kinds.KINDS`: ``roofline``,
``benchmarks``, ``specs`` here; ``ncu`` in :mod:`.ncu`; ``rocprof``, ``rocprofv1``,
``rocprofv3`` in :mod:`.amd`; ``unitrace`` in :mod:`.intel`. File layouts shared with the
roof readers live below, in :mod:`rooflow.formats`. Adapters are imported on use, so a job
loads only what its kind needs.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.kinds import KINDS, Kind, detect_kind, kind_mismatch
from rooflow.settings import Settings

__all__ = ["KINDS", "Kind", "detect_kind", "kind_mismatch", "load_points"]


def load_points(kind: str, path: str | Path, settings: Settings | None = None) -> pl.DataFrame:
    """Validate one raw input of ``kind`` and return its canonical points.

    Args:
        kind: a key of :data:`KINDS`.
        path: the raw file (or folder).
        settings: adapter settings (default: the schema defaults).

    Returns:
        The canonical points table, checked by :func:`rooflow.points.check_points`.

    Raises:
        InputError: unknown kind, or anything wrong with the input (see each adapter).
    """
    from rooflow.points import check_points

    if kind not in KINDS:
        raise InputError(str(path), f"unknown input kind; known: {', '.join(KINDS)}",
                         value=kind)
    points = KINDS[kind].loader()(Path(path), settings or Settings())
    return check_points(points, str(path))
