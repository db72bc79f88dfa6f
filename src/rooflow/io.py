"""Atomic output files: write to a temporary name beside the target, then rename.

A run killed mid-write therefore leaves either the old file or none, never half a file.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; rename it to ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_csv(frame: pl.DataFrame, path: str | Path | None) -> None:
    """Write ``frame`` as CSV atomically, or to stdout when ``path`` is None or "-"."""
    if path is None or str(path) == "-":
        sys.stdout.write(frame.write_csv())
        return
    with atomic_path(path) as tmp:
        frame.write_csv(tmp)


def write_parquet(frame: pl.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as Parquet atomically."""
    with atomic_path(path) as tmp:
        frame.write_parquet(tmp)
