"""Datasets that failed in the workflow: one bad dataset is only its own problem.

The batch job (:mod:`rooflow.workflow.batches`) of an input it cannot read writes a
*failed points file* instead of failing: the canonical points Parquet with no rows and the
one error line in the file's metadata. Everything downstream therefore still runs:

- the per-preset aggregates (``all.png``, ``all.csv``, ``all.html``) leave the dataset out;
- its own outputs (table, plot, page, overview rows) and a comparison that names it
  become placeholders that say it failed and why (:func:`write_placeholders`), so the
  Snakemake report builds;
- ``summary.md`` lists it with its error line;
- rule ``datasets_read`` fails, printing each failed dataset's line (from the batches'
  manifests): the run ends with a non-zero exit status until the input is fixed (its
  batch's job then reads it again).

:func:`is_whole_parquet` is the cheap check the workflow makes of every points file before
it plans any job: a truncated or overwritten one is rebuilt in that run, never read.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterable
from pathlib import Path

KEY = "rooflow:failed"
"""Parquet key-value metadata of a failed points file: the error line."""
_MAGIC = b"PAR1"


def write_failed(path: str | Path, line: str) -> None:
    """Write a failed points file at ``path``: no rows, ``line`` in its metadata."""
    from rooflow.io import atomic_path
    from rooflow.points import empty_points

    with atomic_path(path) as tmp:
        empty_points().write_parquet(tmp, metadata={KEY: line})


def failure(path: str | Path) -> str | None:
    """The error line of a failed points file; None for a points file that holds points."""
    import polars as pl

    return pl.read_parquet_metadata(path).get(KEY)


LEFT_OUT_KEY = "rooflow:left_out"
"""Parquet key-value metadata of a points file: the readers' notes on what they left out
(:class:`rooflow.errors.LeftOut`), a JSON list, so the dataset's plots say it too."""


def left_out_metadata(lines: Iterable[str]) -> dict[str, str]:
    """The key-value metadata that keeps ``lines`` in a points file (none for no line)."""
    import json

    lines = list(lines)
    return {LEFT_OUT_KEY: json.dumps(lines)} if lines else {}


def left_out(path: str | Path) -> tuple[str, ...]:
    """The notes of :func:`left_out_metadata` in the points file at ``path`` (() if none)."""
    import json

    import polars as pl

    text = pl.read_parquet_metadata(path).get(LEFT_OUT_KEY)
    return tuple(json.loads(text)) if text else ()


def is_whole_parquet(path: str | Path) -> bool:
    """Whether ``path`` ends like a whole Parquet file (magic at both ends, footer inside).

    Reads 8 bytes at each end: a file cut short by a killed run or a full disk, or
    overwritten with anything else, fails; a valid file always passes.
    """
    if not os.path.isfile(path):  # a FIFO would block the open
        return False
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 12:
                return False
            head = f.read(4)
            f.seek(size - 8)
            tail = f.read(8)
    except OSError:
        return False
    footer = int.from_bytes(tail[:4], "little")
    return head == _MAGIC and tail[4:] == _MAGIC and footer <= size - 12


def is_placeholder(columns: Iterable[str]) -> bool:
    """Whether a table with ``columns`` is a placeholder, not an analysis table.

    A placeholder (:func:`write_placeholders`) has ``dataset`` and ``error``; an analysis
    table has ``kernel``.
    """
    return "kernel" not in columns


def _message(title: str, line: str) -> str:
    return f"{title}: not built\n\n" + "\n".join(textwrap.wrap(line, 100))


def write_placeholders(paths: Iterable[str | Path], title: str, line: str) -> None:
    """Outputs that say ``title`` failed and why, each in its own format (by suffix).

    ``.csv`` and ``.parquet``: columns ``dataset`` and ``error``, one row; ``.html``: a
    page with the text
    (escaped); an image (``.png``, ``.svg``, ``.pdf``): the text drawn as is (no math text).
    """
    for path in map(Path, paths):
        suffix = path.suffix.lower()
        if suffix in (".csv", ".parquet"):
            import polars as pl

            from rooflow.io import write_csv, write_parquet

            write = write_csv if suffix == ".csv" else write_parquet
            write(pl.DataFrame({"dataset": [title], "error": [line]}), path)
        elif suffix == ".html":
            _page(path, title, line)
        else:
            _image(path, title, line)


def _page(path: Path, title: str, line: str) -> None:
    import html

    from rooflow.io import atomic_path

    text = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(title)}: not built</title></head>\n<body><h1>"
            f"{html.escape(title)}: not built</h1>\n<p>{html.escape(line)}</p></body></html>\n")
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _image(path: Path, title: str, line: str) -> None:
    from matplotlib.figure import Figure

    from rooflow.io import atomic_path

    fig = Figure(figsize=(8, 2.5))
    fig.text(0.03, 0.9, _message(title, line), va="top", ha="left", fontsize=9,
             family="monospace", parse_math=False, wrap=False)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".").lower() or "png")
