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


def current_umask() -> int:
    """This process' umask, read without changing it (Linux), else set and put back."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; rename it to ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp makes 0600: outputs are shared files
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_csv(frame: pl.DataFrame, path: str | Path | None) -> None:
    """Write ``frame`` as CSV atomically, or to stdout when ``path`` is None or "-".

    Text cells a spreadsheet would run as a formula get a leading ``'``
    (:func:`rooflow.escape.neutralize_csv`).
    """
    from rooflow.escape import neutralize_csv

    frame = neutralize_csv(frame)  # no cell a spreadsheet would run as a formula
    if path is None or str(path) == "-":
        sys.stdout.write(frame.write_csv())
        return
    with atomic_path(path) as tmp:
        frame.write_csv(tmp)


def write_parquet(frame: pl.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as Parquet atomically."""
    with atomic_path(path) as tmp:
        frame.write_parquet(tmp)
