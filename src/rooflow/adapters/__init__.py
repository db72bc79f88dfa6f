"""Input adapters: raw files of each kind → the canonical points table.

One module (or vendor subpackage) per kind of :data:`rooflow.kinds.KINDS`, its sniffer
beside it (``sniff.py``): ``roofline``, ``benchmarks``, ``specs`` here (their sniffers in
:mod:`.sniff`); ``ncu`` in :mod:`.ncu`; ``rocprof``, ``rocprofv1``, ``rocprofv3`` in
:mod:`.amd`; ``unitrace`` in :mod:`.intel`; ``pytorch`` in :mod:`.pytorch`. File layouts
shared with the roof readers live below, in :mod:`rooflow.formats`. Adapters are imported
on use, so a job loads only what its kind needs, and this package's modules that detection
imports (this one, the subpackages and their sniffers) import no reader nor polars.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rooflow.errors import InputError
from rooflow.kinds import KINDS, Kind, detect_kind, kind_mismatch

if TYPE_CHECKING:
    import polars as pl

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
        InputError: unknown kind, no path, an option of the kind of the wrong type
            (:meth:`rooflow.kinds.Kind.check_options`), a path that is not a readable
            regular file (or folder) of bounded size (:func:`rooflow.safeload.check_file`),
            no points (a header-only file), or anything wrong with the input (see each
            adapter).
    """
    from rooflow.points import check_points, concat_tables
    from rooflow.settings import Settings

    single = isinstance(paths, str | Path)
    items = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
    source = ", ".join(map(str, items))
    if kind not in KINDS:
        raise InputError(source, f"unknown input kind; known: {', '.join(KINDS)}",
                         value=kind)
    if not items:
        raise InputError(None, f"no {kind} input given")
    entry, settings = KINDS[kind], settings or Settings()
    entry.check_options(settings)
    for item in items:
        _check_readable(item)
    load = entry.loader()
    if single:
        points = load(items[0], settings)
    elif entry.folder or entry.companions:  # the files of one dataset, read together
        points = load(items, settings)
    else:
        return concat_tables([load_points(kind, p, settings) for p in items])
    if points.is_empty():  # a header-only file, or every row filtered out
        raise InputError(source, _no_points(kind, settings), check="rows")
    return check_points(points, source)


def _no_points(kind: str, settings: Settings) -> str:
    """Why an input gave no points, for its error: an empty plot is no answer."""
    if kind == "specs":
        return (f"no points: no variant key starts with '{settings.variant_prefix}' "
                "(--variant-prefix, config variant_prefix)")
    if kind == "benchmarks" and (settings.min_tflops is not None
                                 or settings.min_ai is not None):
        return "no points left once --min-tflops/--min-ai (min_tflops, min_ai) dropped rows"
    return "no points: the input has no data rows (a header only?)"


# Files of a dataset folder that an adapter may open: each is checked before any is read.
_DATA_SUFFIXES = (".csv", ".txt", ".json", ".gz", ".yaml", ".yml", ".parquet", ".ncu-rep", ".db")


def _check_readable(path: Path) -> None:
    """Refuse a FIFO, device, unreadable or oversized input before an adapter opens it.

    A folder: its files with a data suffix (a FIFO ``pmc_perf.csv`` would block the read).
    """
    from rooflow.safeload import check_file

    if not os.path.lexists(path):
        return  # the adapter names what is missing and what it should be
    if not path.is_dir():
        check_file(path)
        return
    for child in sorted(path.iterdir()):
        if child.name.lower().endswith(_DATA_SUFFIXES) and not child.is_dir():
            check_file(child)
