"""Kind ``pytorch``'s hooks for extra outputs (:attr:`rooflow.kinds.Kind.extras`).

A trace's points cover only its modelled and bandwidth-only operators; where the rest of
its GPU time went (:mod:`.coverage`) is carried from the workflow's batch job to
``summary.md`` (:func:`points_metadata`, :func:`summary_lines`) and said by the CLI
(:func:`notes`). This module imports no reader: the program calls the hooks of every kind
that has them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rooflow.adapters.pytorch import SERIES

if TYPE_CHECKING:
    import polars as pl

    from rooflow.roofs.preset import Preset


def points_metadata(raw: str | Path) -> dict[str, str]:
    """Parquet key-value metadata of the points file of trace ``raw``: its GPU time coverage.

    :func:`.coverage.to_metadata` of the trace read in this process; none for another file.
    """
    from rooflow.adapters.pytorch.coverage import coverage_of, to_metadata

    return to_metadata(coverage_of(Path(raw)))


def summary_lines(points_files: Mapping[str, str | Path],
                  tables: Mapping[str, pl.DataFrame | pl.LazyFrame],
                  md: Callable[[str], str]) -> list[str]:
    """``summary.md``'s section on the traces among the built ``points_files``.

    Args:
        points_files: dataset → its points file (Parquet), every dataset built.
        tables: preset → analysis table with a ``dataset`` column (or a LazyFrame of it).
        md: the Markdown escaper of names (:func:`rooflow.escape.markdown_cell`).

    Returns:
        :func:`.coverage.summary_lines` of the files that hold a coverage; [] without one.
    """
    from rooflow.adapters.pytorch.coverage import read_coverage
    from rooflow.adapters.pytorch.coverage import summary_lines as coverage_lines

    coverage = {dataset: found for dataset, path in points_files.items()
                if (found := read_coverage(path)) is not None}
    return coverage_lines(coverage, tables, md)


def notes(points: pl.DataFrame, table: pl.DataFrame, preset: Preset,
          log: Callable[[str], None]) -> None:
    """Log, per trace read in this process: GPU time coverage, operators ranked.

    By potential time saved (:func:`.coverage.ranked_note`); nothing when ``points`` hold
    no trace's rows.
    """
    import polars as pl

    if "series" not in points.columns or not (points["series"] == SERIES).any():
        return
    from rooflow.adapters.pytorch.coverage import ranked_note

    if "potential_time_saved_s" not in table.columns:  # a plot alone: the trace's rows only
        from rooflow.analysis import TABLE_COLUMNS, analyze

        table = analyze(points.filter(pl.col("series") == SERIES), preset, TABLE_COLUMNS)
    for source in table.filter(pl.col("series") == SERIES)["source"].unique(
            maintain_order=True):
        for line in ranked_note(source, table.filter(pl.col("source") == source), preset.key):
            log(line)
