"""results/summary.md: per preset, kernels ranked by potential time saved.

potential time saved = time × (1 − 1/headroom) (see :mod:`rooflow.analysis`),
taken at each kernel's binding level; kernels without a measured time are counted
separately, ranked by headroom.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

TOP = 20


def _perf(v: float | None) -> str:
    if v is None:
        return "–"
    return f"{v / 1e12:.3g} TFLOP/s" if v >= 1e12 else f"{v / 1e9:.3g} GFLOP/s"


def _num(v: float | None, fmt: str) -> str:
    return "–" if v is None else format(v, fmt)


def _row(i: int, r: dict) -> str:
    """The cells every ranking shares, up to and including headroom."""
    return (f"| {i} | {r['dataset']} | {r['label'] or r['kernel']} | {r['series']} "
            f"| {r['kernel_bound']} | {_perf(r['performance'])} | {_perf(r['attainable'])} "
            f"| {_num(r['pct_of_roof'], '.1f')} | {_num(r['kernel_headroom'], '.2f')}× |")


def summary_markdown(tables: Mapping[str, pl.DataFrame], top: int = TOP) -> str:
    """Markdown summary of per-preset ``all.csv`` tables (analysis columns + ``dataset``).

    Args:
        tables: preset key → concatenated analysis table of its datasets.
        top: rows listed per preset and ranking.
    """
    lines = ["# rooflow summary", "",
             "Kernels ranked by potential time saved = time × (1 − 1/headroom), where "
             "headroom = attainable / achieved at the kernel's binding memory level.", ""]
    for preset, table in tables.items():
        kernels = table.filter(pl.col("binding") & ~pl.col("theoretical"))
        timed = kernels.filter(pl.col("time_s").is_not_null()).sort(
            "potential_time_saved_s", descending=True)
        untimed = kernels.filter(pl.col("time_s").is_null()).sort("kernel_headroom",
                                                                  descending=True)
        lines += [f"## {preset}", "",
                  f"{table['dataset'].n_unique()} datasets, {kernels.height} measured kernels "
                  f"({timed.height} with times).", ""]
        header = ("| # | dataset | kernel | series | bound | achieved | attainable | % of roof "
                  "| headroom |")
        if timed.height:
            lines += [header + " time (s) | potential saved (s) |", "|---" * 11 + "|"]
            lines += [_row(i, r) + f" {_num(r['time_s'], '.4g')} "
                      f"| {_num(r['potential_time_saved_s'], '.4g')} |"
                      for i, r in enumerate(timed.head(top).iter_rows(named=True), 1)]
            lines.append("")
        if untimed.height:
            lines += ["Without measured time (ranked by headroom):", "", header,
                      "|---" * 9 + "|"]
            lines += [_row(i, r) for i, r in enumerate(untimed.head(top).iter_rows(named=True), 1)]
            lines.append("")
    return "\n".join(lines) + "\n"
