"""Several ``ncu --csv`` exports of one run (replay passes) → one table of launch metrics.

Each file is read by :func:`rooflow.formats.ncu.layout.read_ncu`; metric names become
metric ids (:func:`rooflow.formats.ncu.metrics.canonical`). Rows are matched on
(kernel name, launch ``ID``). A metric given more than once for a launch (in two files, or
under two labels in one file) keeps the first value in file order, then row order; the
largest relative disagreement between files is reported as a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.formats.ncu.metrics import canonical


def export_files(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    """The CSV files to read: the given files, and the ``*.csv`` of a given folder (sorted).

    Raises:
        InputError: no path, or a folder without CSV files.
    """
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    files: list[Path] = []
    for item in map(Path, items):
        if item.is_dir():
            found = sorted(item.glob("*.csv"))
            if not found:
                raise InputError(str(item), "folder holds no ncu CSV export (*.csv)")
            files += found
        else:
            files.append(item)
    if not files:
        raise InputError(None, "no ncu CSV export given")
    return files


def read_passes(files: Sequence[Path]) -> tuple[pl.DataFrame, list[str]]:
    """Metrics of every launch, merged over ``files``.

    Returns:
        (table, notes). table: one row per (kernel, launch, metric id): ``file`` (str),
        ``order`` (i64, file index), ``row``, ``launch``, ``kernel``, ``cc``, ``device``,
        ``metric`` (metric id), ``unit``, ``value``, ``text`` (see ``read_ncu``; ``cc`` and
        ``device`` the first non-empty ones of the launch in any file); notes: the largest
        disagreement between files, if any.

    Raises:
        InputError: as ``read_ncu``, for any file.
    """
    # Imported here: it loads pandera (a slow import), which export_files' callers at the
    # workflow's start-up (preset discovery) do not need.
    from rooflow.formats.ncu.layout import read_ncu

    frames = []
    for i, path in enumerate(files):
        frame = read_ncu(path)
        ids = {name: canonical(name) for name in frame["metric"].unique().to_list()}
        frames.append(frame.with_columns(
            pl.lit(str(path)).alias("file"), pl.lit(i, dtype=pl.Int64).alias("order"),
            pl.col("metric").replace_strict(ids, return_dtype=pl.String),
        ))
    table = pl.concat(frames).sort("order", "row", maintain_order=True).with_columns(
        # A pass may lack what another gives (a details page has no device name, a raw page
        # may have no CC): a launch takes the first non-empty value of any file.
        pl.col(c).replace("", None).drop_nulls().first().over("kernel", "launch")
        .fill_null("") for c in ("cc", "device"))
    notes = []
    if len(files) > 1:
        spread = (
            table.filter(pl.col("value").is_not_null())
            .group_by("kernel", "launch", "metric")
            .agg(pl.col("value").first().alias("first"), pl.col("value").max().alias("hi"),
                 pl.col("value").min().alias("lo"), pl.col("order").n_unique().alias("files"))
            .filter(pl.col("files") > 1)
            .with_columns(((pl.col("hi") - pl.col("lo"))
                           / pl.max_horizontal(pl.col("hi").abs(), pl.col("lo").abs()))
                          .fill_nan(0.0).alias("rel"))
            .sort("rel", "metric", descending=[True, False])
        )
        if spread.height and spread["rel"][0] > 0:
            worst = spread.row(0, named=True)
            notes.append(
                f"passes disagree: {worst['metric']} of kernel '{worst['kernel']}' (launch "
                f"{worst['launch']}) differs by {100 * worst['rel']:.3g}% between files; the "
                "first file's value is used"
            )
    table = table.unique(["kernel", "launch", "metric"], keep="first", maintain_order=True)
    return table, notes
