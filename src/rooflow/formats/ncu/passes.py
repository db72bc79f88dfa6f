"""Several ncu exports of one run (replay passes) → one table of launch metrics.

Each file (a CSV export or a ``.ncu-rep`` report) is read by
:func:`rooflow.formats.ncu.pages.read_ncu`; metric names become metric ids
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
from rooflow.escape import short_name
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


def _same_run(
    frames: list[pl.DataFrame], files: list[Path], notes: list[str]
) -> tuple[list[pl.DataFrame], list[Path], list[str]]:
    """The passes of one run: a file sharing no kernel with the others is left out, said.

    Passes of one run profile the same kernels. When some files share kernels, the one
    sharing kernels with most files (the first of equals) is the run, and a file with no
    kernel in common with it (another run's export) is skipped with a note. Files that
    share no kernel at all are kept: merged, they are the kernels of each.
    """
    names = [set(frame["kernel"].unique().to_list()) for frame in frames]
    shared = [sum(bool(a & b) for j, b in enumerate(names) if j != i)
              for i, a in enumerate(names)]
    if len(frames) < 3 or not any(shared):
        return frames, files, notes  # of two files, which one is the stranger is not known
    run = names[shared.index(max(shared))]
    keep = [i for i, kernels in enumerate(names) if kernels & run]
    notes = notes + [f"{files[i]}: no kernel in common with the other passes (another "
                     "run's export?): skipped" for i in range(len(files)) if i not in keep]
    return [frames[i] for i in keep], [files[i] for i in keep], notes


def read_passes(files: Sequence[Path]) -> tuple[pl.DataFrame, list[str]]:
    """Metrics of every launch, merged over ``files``.

    Returns:
        (table, notes). Files of another tool (no ncu page header) and, of three or
        more, a file with no kernel in common with the run are skipped, one note each.
        table: one row per (kernel, launch, metric id): ``file`` (str),
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
    from rooflow.formats.ncu.pages import read_ncu
    from rooflow.formats.sniffing import REPORT_SUFFIX, ncu_export

    notes: list[str] = []
    if len(files) > 1:  # a file of another tool among the passes: left out, said
        kept = [f for f in files if f.suffix.lower() == REPORT_SUFFIX or ncu_export(f)]
        notes += [f"{f}: not an Nsight Compute export (no \"ID\",...,\"Kernel Name\" "
                  "header: nvprof's or another tool's?): skipped" for f in files
                  if f not in kept]
        files = kept or list(files)  # none an export: the first one's reader says why
    frames = [read_ncu(path) for path in files]
    frames, files, notes = _same_run(frames, list(files), notes)
    for i, (frame, path) in enumerate(zip(frames, files, strict=True)):
        ids = {name: canonical(name) for name in frame["metric"].unique().to_list()}
        frames[i] = _file_clocks(frame.with_columns(
            pl.lit(str(path)).alias("file"), pl.lit(i, dtype=pl.Int64).alias("order"),
            pl.col("metric").replace_strict(ids, return_dtype=pl.String),
        ))
    table = pl.concat(frames).sort("order", "row", maintain_order=True).with_columns(
        # A pass may lack what another gives (a details page has no device name, a raw page
        # may have no CC): a launch takes the first non-empty value of any file.
        pl.col(c).replace("", None).drop_nulls().first().over("kernel", "launch")
        .fill_null("") for c in ("cc", "device"))
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
                f"passes disagree: {worst['metric']} of kernel "
                f"'{short_name(worst['kernel'])}' (launch "
                f"{worst['launch']}) differs by {100 * worst['rel']:.3g}% between files; the "
                "first file's value is used"
            )
    table = table.unique(["kernel", "launch", "metric"], keep="first", maintain_order=True)
    return table, notes
