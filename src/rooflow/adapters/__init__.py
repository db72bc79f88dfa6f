"""Input adapters: raw files of each kind → the canonical points table.

One module (or vendor subpackage) per kind of :data:`rooflow.kinds.KINDS`: ``roofline``,
``benchmarks``, ``specs`` here; ``ncu`` in :mod:`.ncu`; ``rocprof``, ``rocprofv1``,
``rocprofv3`` in :mod:`.amd`; ``unitrace`` in :mod:`.intel`. File layouts shared with the
roof readers live below, in :mod:`rooflow.formats`. Adapters are imported on use, so a job
loads only what its kind needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.kinds import KINDS, Kind, detect_kind, kind_mismatch
from rooflow.settings import Settings

__all__ = ["KINDS", "Kind", "detect_kind", "kind_mismatch", "load_points"]


def load_points(
    kind: str,
    paths: str | Path | Sequence[str | Path],
    settings: Settings | None = None,
) -> pl.DataFrame:
    """Validate one raw input of ``kind`` and return its canonical points.

    Args:
        kind: a key of :data:`KINDS`.
        paths: the raw file (or folder), or several files of one input: a kind whose
            dataset is several files (``ncu`` passes of one run, ``unitrace`` FLOP and
            bytes reports) reads them together; any other kind reads each and its points
            are concatenated.
        settings: adapter settings (default: the schema defaults).

    Returns:
        The canonical points table, checked by :func:`rooflow.points.check_points`.

    Raises:
        InputError: unknown kind, no path, or anything wrong with the input (see each
            adapter).
    """
    from rooflow.points import check_points

    single = isinstance(paths, str | Path)
    items = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
    source = ", ".join(map(str, items))
    if kind not in KINDS:
        raise InputError(source, f"unknown input kind; known: {', '.join(KINDS)}",
                         value=kind)
    if not items:
        raise InputError(None, f"no {kind} input given")
    entry, settings = KINDS[kind], settings or Settings()
    load = entry.loader()
    if single:
        points = load(items[0], settings)
    elif entry.folder or entry.companions:  # the files of one dataset, read together
        points = load(items, settings)
    else:
        return pl.concat([load_points(kind, p, settings) for p in items], how="vertical")
    return check_points(points, source)
