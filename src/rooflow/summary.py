"""results/summary.md: per preset, kernels ranked by potential time saved.

potential time saved = time × (1 − 1/headroom) (see :mod:`rooflow.analysis`),
taken at each kernel's binding level; kernels without a measured time are counted
separately, ranked by headroom. Bandwidth-only kernels (no operations) are ranked by the
time they could save against the memory roof. Points above their roof come first, as
findings (check peaks, units or clocks), and are never ranked.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from rooflow.analysis import KERNEL_KEY

TOP = 20


def _rate(v: float | None, unit: str) -> str:
    """``v`` per second in tera or giga units: ``unit`` FLOP, OP or B."""
    if v is None:
        return "–"
    return f"{v / 1e12:.3g} T{unit}/s" if v >= 1e12 else f"{v / 1e9:.3g} G{unit}/s"


def _achieved(r: dict) -> tuple[str, str]:
    """(achieved, attainable) cells: performance, or bandwidth for bandwidth-only rows."""
    if r.get("bandwidth_only"):
        return _rate(r["achieved_bandwidth"], "B"), _rate(r["memory_roof"], "B")
    unit = "OP" if r.get("unit") == "OP" else "FLOP"
    return _rate(r["performance"], unit), _rate(r["attainable"], unit)


def _num(v: float | None, fmt: str) -> str:
    return "–" if v is None else format(v, fmt)


def _row(i: int, r: dict) -> str:
    """The cells every ranking shares, up to and including headroom."""
    achieved, attainable = _achieved(r)
    pct = r["pct_of_memory_roof"] if r.get("bandwidth_only") else r["pct_of_roof"]
    return (f"| {i} | {r['dataset']} | {r['label'] or r['kernel']} | {r['series']} "
            f"| {r['kernel_bound']} | {achieved} | {attainable} "
            f"| {_num(pct, '.1f')} | {_num(r['kernel_headroom'], '.2f')}× |")


def _above_roof(tables: Mapping[str, pl.DataFrame]) -> list[str]:
    """The findings section: every point above its roof, per preset."""
    found = {p: t.filter(pl.col("above_roof")) for p, t in tables.items()}
    if not any(t.height for t in found.values()):
        return []
    lines = ["## Points above the roof", "",
             "Achieved performance (or bandwidth) above the preset's roof: check the peaks, "
             "the units or the clocks. These are findings, not ranked below.", "",
             "| preset | dataset | kernel | series | level | % of roof |", "|---" * 6 + "|"]
    for preset, rows in found.items():
        for r in rows.iter_rows(named=True):
            pct = r["pct_of_memory_roof"] if r.get("bandwidth_only") else r["pct_of_roof"]
            lines.append(f"| {preset} | {r['dataset']} | {r['label'] or r['kernel']} "
                         f"| {r['series']} | {r['level']} | {_num(pct, '.0f')} |")
    return lines + [""]


def summary_markdown(tables: Mapping[str, pl.DataFrame], top: int = TOP) -> str:
    """Markdown summary of per-preset ``all.csv`` tables (analysis columns + ``dataset``).

    Args:
        tables: preset key → concatenated analysis table of its datasets.
        top: rows listed per preset and ranking.
    """
    lines = ["# rooflow summary", "",
             "Kernels ranked by potential time saved = time × (1 − 1/headroom), where "
             "headroom = attainable / achieved at the kernel's binding memory level.", ""]
    lines += _above_roof(tables)
    for preset, table in tables.items():
        above = table.filter(pl.col("above_roof"))
        # nulls_equal: empty pair/label cells read back from all.csv are nulls.
        kernels = table.filter(pl.col("binding") & ~pl.col("theoretical")).join(
            above.select(KERNEL_KEY).unique(), on=KERNEL_KEY, how="anti", nulls_equal=True)
        timed = kernels.filter(pl.col("time_s").is_not_null()).sort(
            "potential_time_saved_s", descending=True, nulls_last=True)
        untimed = kernels.filter(pl.col("time_s").is_null()).sort(
            "kernel_headroom", descending=True, nulls_last=True)
        lines += [f"## {preset}", "",
                  f"{table['dataset'].n_unique()} datasets, {kernels.height} measured kernels "
                  f"ranked ({timed.height} with times); {above.height} points above the roof.",
                  ""]
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
