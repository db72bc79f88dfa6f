"""Several ncu exports of one run (replay passes) → one table of launch metrics.

Each file (a CSV export or a ``.ncu-rep`` report) is read by
:func:`rooflow.formats.ncu.layout.read_ncu`; metric names become metric ids
(:func:`rooflow.formats.ncu.metrics.canonical`). Rows are matched on (kernel name, launch
``ID``). A metric given more than once for a launch (in two files, or
under two labels in one file) keeps the first value in file order, then row order; the
largest relative disagreement between files is reported as a note. Each row keeps the
SM clock, cycles and duration of its own file, for the rates it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.formats.ncu.metrics import CLOCKS, DURATION, UNIT_CLASSES, canonical


def export_files(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    """The exports to read: the given files, and the ``*.csv`` of a given folder (sorted).

    A given file may be a CSV export or a ``.ncu-rep`` report; a folder's passes are its
    CSV exports (the workflow's folder form), reports are named one by one.

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


_FILE_CLOCKS = {  # column → (metric ids, preferred first; base unit)
    "file_hz": (tuple(f for _, f in CLOCKS), "hz"),
    "file_cycles": (tuple(c for c, _ in CLOCKS[:2]), "cycle"),
    "file_s": (DURATION.metrics, "second"),
}


def _file_clocks(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (one file) with each launch's own SM clock, SM cycles and duration.

    The rates of a pass are per cycle of its own replay, at its own clock: merged passes
    keep a metric from the first file, so a later file's rates must not be scaled by the
    first file's clock (a roofline section run at another clock would be off by the
    ratio). Null where the file does not give a positive value in the expected unit.
    """
    keys = ["kernel", "launch"]
    out = frame
    for column, (metrics, unit) in _FILE_CLOCKS.items():
        rank = {m: i for i, m in enumerate(metrics)}
        found = (
            frame.filter(pl.col("metric").is_in(list(metrics))
                         & pl.col("unit").is_in(list(UNIT_CLASSES[unit]))
                         & (pl.col("value") > 0) & pl.col("value").is_finite())
            .with_columns(pl.col("metric").replace_strict(rank, return_dtype=pl.Int64)
                          .alias("_rank"))
            .sort("_rank", maintain_order=True)
            .group_by(keys, maintain_order=True).agg(pl.col("value").first().alias(column))
        )
        out = out.join(found, on=keys, how="left", maintain_order="left")
    return out


def read_passes(files: Sequence[Path]) -> tuple[pl.DataFrame, list[str]]:
    """Metrics of every launch, merged over ``files``.

    Returns:
        (table, notes). table: one row per (kernel, launch, metric id): ``file`` (str),
        ``order`` (i64, file index), ``row``, ``launch``, ``kernel``, ``cc``, ``device``,
        ``metric`` (metric id), ``unit``, ``value``, ``text`` (see ``read_ncu``; ``cc`` and
        ``device`` the first non-empty ones of the launch in any file), and the clocks of
        the launch in the row's own file (f64, null where that file lacks them):
        ``file_hz`` (SM cycles per second), ``file_cycles`` (SM cycles elapsed),
        ``file_s`` (``gpu__time_duration.sum``, s); notes: the largest disagreement
        between files, if any.

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
        frames.append(_file_clocks(frame.with_columns(
            pl.lit(str(path)).alias("file"), pl.lit(i, dtype=pl.Int64).alias("order"),
            pl.col("metric").replace_strict(ids, return_dtype=pl.String),
        )))
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
                 pl.col("value").min().alias("lo"), pl.col("order").n_unique().alias("files"),
                 pl.col("unit").n_unique().alias("units"))
            # Values in two units are not compared: a unit outside the scaled vocabulary
            # (Kbyte/block in a CSV, byte/block in a report) keeps its prefix.
            .filter((pl.col("files") > 1) & (pl.col("units") == 1))
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
