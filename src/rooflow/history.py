"""Kernels across a series of runs: ``rooflow history RUN... --preset H``.

Runs come in order (one per commit or date). Per run and kernel (its calls, as
:mod:`rooflow.check` reads them: the median over its calls at its first memory level):
time per call (s), % of roof (median of 100 / kernel headroom) and achieved performance
(median FLOP/s, OP/s, or byte/s for bandwidth-only kernels, as ``unit`` says).

Each step, run i−1 → run i, is judged by ``check``'s noise model
(:func:`rooflow.check.check_runs`: median per call, its standard error 1.2533 σ / √n,
the Student-t bound, the floor): ``regressed`` is true where ``check`` would fail that
step for that kernel. The first run, and a kernel new in a run, are not judged
(``status`` ``first run``, ``only in new``).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from rooflow.check import (
    DEFAULT_CONFIDENCE,
    DEFAULT_MAX_SLOWDOWN,
    REGRESSED,
    _per_kernel,
    check_runs,
)

FIRST = "first run"

COLUMNS = ["run", "step", "kernel", "series", "pair", "calls", "time_s", "pct_of_roof",
           "performance", "unit", "status", "slowdown_pct", "allowed_pct", "regressed"]
"""The history table: ``step`` the run's index (0 first); time_s median s per call;
pct_of_roof %; performance in ``unit``; status, slowdown_pct and allowed_pct as
:data:`rooflow.check.COLUMNS` for the step from the run before; regressed a bool."""

_KEY = ["kernel", "series", "pair"]
SUMMARY_STEPS = 10  # regressed steps named in the one-line summary; the table has them all


def history(tables: Sequence[pl.DataFrame], labels: Sequence[str], *,
            max_slowdown: float = DEFAULT_MAX_SLOWDOWN,
            confidence: float = DEFAULT_CONFIDENCE,
            normalize: bool = False) -> pl.DataFrame:
    """The :data:`COLUMNS` table of ``tables``, in order, one row per run and kernel.

    Args:
        tables: :func:`rooflow.analysis.analyze` tables of one preset, one per run, read
            one row per call (as ``check`` needs them).
        labels: each run's name (``run``), as many as ``tables``.
        max_slowdown: check's floor (0.05: 5 %), as :func:`rooflow.check.check_runs`.
        confidence: check's one-sided level of the noise bound.
        normalize: match kernels without template arguments and parameter lists.

    Raises:
        ValueError: ``labels`` and ``tables`` differ in length.
    """
    if len(labels) != len(tables):
        raise ValueError(f"{len(labels)} labels for {len(tables)} runs")
    frames = []
    for step, (table, label) in enumerate(zip(tables, labels, strict=True)):
        per = _per_kernel(table, normalize, False).select(
            kernel="name", series="series", pair="pair", calls="calls", time_s="time",
            pct_of_roof="pct", performance="thr", unit="rate")
        if step == 0:
            verdict = per.select(*_KEY, status=pl.lit(FIRST), slowdown_pct=pl.lit(None, pl.Float64),
                                 allowed_pct=pl.lit(None, pl.Float64))
        else:
            verdict = check_runs(tables[step - 1], table, max_slowdown=max_slowdown,
                                 confidence=confidence, normalize=normalize).table.select(
                *_KEY, "status", "slowdown_pct", "allowed_pct")
        frames.append(per.join(verdict, on=_KEY, how="left", maintain_order="left")
                      .with_columns(run=pl.lit(label), step=pl.lit(step, pl.Int64)))
    table = pl.concat(frames, how="vertical_relaxed")
    return table.with_columns(
        calls=pl.col("calls").cast(pl.Int64),
        regressed=(pl.col("status") == REGRESSED).fill_null(False)).select(COLUMNS)


def summary(table: pl.DataFrame) -> str:
    """One line: runs, kernels, the first :data:`SUMMARY_STEPS` regressed steps, the count.

    Each step named with its kernel, run and slowdown; past them, how many more.
    """
    runs = table["run"].unique(maintain_order=True).len()
    kernels = table.select(_KEY).unique().height
    bad = table.filter(pl.col("regressed"))
    text = f"{runs} runs, {kernels} kernels: "
    if bad.is_empty():
        return text + "no step regressed"
    steps = [f"{r['kernel'] or r['pair']} at {r['run']} ({r['slowdown_pct']:+.1f} %)"
             for r in bad.head(SUMMARY_STEPS).iter_rows(named=True)]
    more = bad.height - len(steps)
    return (text + f"{bad.height} regressed: " + ", ".join(steps)
            + (f", and {more:,} more (the table lists every step)" if more else ""))
