"""The one ranking of the points that matter, shared by the PNG and the pages.

Re-exported by :mod:`.core`. Imports neither matplotlib, Bokeh nor numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

RANK_COLUMNS = ("potential_time_saved_s", "kernel_headroom", "headroom")
"""The points that matter most: most potential time saved, then most kernel headroom, then
most headroom (of these columns, those a table has); null and NaN last, ties in table order."""


def _ranked(table: pl.DataFrame, k: int, extra: Sequence[str] = ()) -> pl.DataFrame:
    """Row index ``_i`` and ``extra`` columns of the ``k`` rows ranked first, best first.

    ``top_k`` keeps only ``k`` candidates and streams the rows: no sort and no copy of a
    10⁷-row table (bench/NOTES.md).
    """
    keys = [c for c in RANK_COLUMNS if c in table.columns]
    by = [*keys, "_i"]
    return (table.lazy().with_row_index("_i")
            # NaN sorts above every number in polars: as null it ranks last.
            .select("_i", *extra, *(pl.col(c).cast(pl.Float64).fill_nan(None) for c in keys))
            .top_k(k, by=by, reverse=[False] * len(keys) + [True])
            .sort(by, descending=[True] * len(keys) + [False], nulls_last=True)
            .collect(engine="streaming"))


def top_rows(table: pl.DataFrame, n: int) -> pl.Series:
    """Row indices (ascending) of the ``n`` rows that matter most (:data:`RANK_COLUMNS`)."""
    return _ranked(table, n)["_i"].sort()


def top_points(table: pl.DataFrame, n: int) -> tuple[pl.DataFrame, int]:
    """The ``n`` rows that matter most, in table order, and how many were left out."""
    if table.height <= n:
        return table, 0
    return table[top_rows(table, n)], table.height - n


def ranked_by(table: pl.DataFrame) -> str:
    """What ranked ``table``'s rows, for legends and notes: time saved only where known."""
    saved = "potential_time_saved_s"
    timed = saved in table.columns and table[saved].is_not_null().any()
    return "by potential time saved, then headroom" if timed else "by headroom"


def top_kernels(table: pl.DataFrame, n: int) -> list[str]:
    """The ``n`` kernels that matter most, best first: a kernel ranks where its best row does.

    The first ``n`` distinct kernels of the ranked rows; the top ``k`` rows hold them as
    soon as they name ``n`` kernels, so ``k`` grows from ``n`` only while they do not.
    """
    k = n
    while True:
        kernels = _ranked(table, k, ["kernel"])["kernel"].unique(maintain_order=True)
        if kernels.len() >= n or k >= table.height:
            return kernels.head(n).cast(pl.String).to_list()
        k *= 4
