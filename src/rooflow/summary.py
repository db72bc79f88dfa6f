"""results/summary.md: per preset, the kernels that can improve, ranked by potential time saved.

potential time saved = time − max(time / headroom, launches × launch overhead) (see
:mod:`rooflow.analysis`),
taken at each kernel's binding level; kernels without a measured time are counted
separately, ranked by headroom. Bandwidth-only kernels (no operations) are ranked by the
time they could save against the memory roof. Only what can improve is ranked:

- a pair (``pair``: Original/Optimized rows of one benchmark or roofline row) ranks its
  latest kernel, the Optimized one (else its last by ``row``, as the pair speedup of
  :mod:`rooflow.analysis` does); the others are listed as superseded;
- a kernel whose precision has no compute roof on the preset is not judged there
  (:func:`rooflow.analysis.no_compute_roof`): listed per missing roof; a kernel without
  a precision gets no roof assumed: listed last, as "precision not given";
- points above their roof come first, as findings (check peaks, units or clocks).

Datasets the workflow could not build (:mod:`rooflow.workflow.failed`) and input files it
skipped are listed first, with their error lines; then, per PyTorch trace, where its GPU time went
(points, no model, unlinked, communication) and its operators by potential time saved.
Every name is Markdown-escaped (:func:`rooflow.escape.markdown_text`): a ``|``, newline or
HTML in a kernel name stays text; a name with ``<``, ``>`` or ``&`` (a C++ template) is a
code span, shown as written. Times are in one unit per table (:func:`rooflow.export.time_unit`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from rooflow.analysis import KERNEL_KEY, NO_PRECISION, no_compute_roof
from rooflow.escape import markdown_text as _md
from rooflow.export import rate_text, time_unit

TOP = 20


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 dataset``, ``2 datasets``: the noun agrees with its number."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _times(rows: pl.DataFrame, columns: Sequence[str]) -> tuple[str, list[dict[str, str]]]:
    """The unit of ``rows``' time ``columns`` (one for the table) and each row's cells."""
    name, scale = time_unit([v for c in columns for v in rows[c].to_list()])
    cells = [{c: _num(None if r[c] is None else r[c] / scale, ".4g") for c in columns}
             for r in rows.iter_rows(named=True)]
    return name, cells


def _achieved(r: dict) -> tuple[str, str]:
    """(achieved, attainable) cells: performance, or bandwidth for bandwidth-only rows."""
    if r.get("bandwidth_only"):
        return rate_text(r["achieved_bandwidth"], "B"), rate_text(r["memory_roof"], "B")
    unit = "OP" if r.get("unit") == "OP" else "FLOP"
    return rate_text(r["performance"], unit), rate_text(r["attainable"], unit)


def _num(v: float | None, fmt: str) -> str:
    return "–" if v is None else format(v, fmt)


def _name(r: dict) -> str:
    """The kernel's label, else its name, as Markdown text."""
    return _md(r["label"] or r["kernel"])


def _row(i: int, r: dict) -> str:
    """The cells every ranking shares, up to and including headroom."""
    achieved, attainable = _achieved(r)
    pct = r["pct_of_memory_roof"] if r.get("bandwidth_only") else r["pct_of_roof"]
    return (f"| {i} | {_md(r['dataset'])} | {_name(r)} | {_md(r['series'])} "
            f"| {_md(r['kernel_bound'])} | {achieved} | {attainable} "
            f"| {_num(pct, '.1f')} | {_num(r['kernel_headroom'], '.2f')}× |")


def _above_roof(tables: Mapping[str, pl.DataFrame | pl.LazyFrame], top: int) -> list[str]:
    """The findings section: the first ``top`` points above their roof per preset.

    Then how many more: a preset whose roofs sit below a whole dataset would list every row.
    """
    # Only the columns listed: a scan then reads no other (4 presets' 10⁷ rows above their
    # roofs, every column, passed 16 GB).
    shown = ["dataset", "kernel", "label", "series", "level", "pct_of_roof",
             "pct_of_memory_roof", "bandwidth_only"]
    found = {}
    for preset, table in tables.items():
        frame = table.lazy()
        names = frame.collect_schema().names()
        found[preset] = frame.filter(pl.col("above_roof")).select(
            [c for c in shown if c in names])
    counts = {preset: rows.select(pl.len()).collect().item() for preset, rows in found.items()}
    if not any(counts.values()):
        return []
    lines = ["## Points above the roof", "",
             "Achieved performance (or bandwidth) above the preset's roof: check the peaks, "
             "the units or the clocks. These are findings, not ranked below.", "",
             "| preset | dataset | kernel | series | level | % of roof |", "|---" * 6 + "|"]
    for preset, rows in found.items():
        for r in rows.head(top).collect().iter_rows(named=True):
            pct = r["pct_of_memory_roof"] if r.get("bandwidth_only") else r["pct_of_roof"]
            lines.append(f"| {_md(preset)} | {_md(r['dataset'])} | {_name(r)} "
                         f"| {_md(r['series'])} | {_md(r['level'])} | {_num(pct, '.0f')} |")
    lines.append("")
    lines += [f"… and {n - top} more on {_md(preset)}" for preset, n in counts.items()
              if n > top]
    return lines + ([""] if lines[-1] else [])


def _kernels(table: pl.LazyFrame) -> pl.LazyFrame:
    """One row per measured kernel: its binding row, else its first.

    A kernel without a compute roof has no headroom at any level, so no binding row.
    Adds ``superseded``: True for a pair's kernels other than its latest.
    """
    key = ["dataset", *KERNEL_KEY]
    measured = table.filter(~pl.col("theoretical")).with_row_index("_i")
    # The rows kept, found on the key columns alone: sorting and deduplicating every
    # column took twice the table's memory.
    keep = (measured.select(*key, "binding", "_i")
            .sort("binding", descending=True, maintain_order=True)
            .unique(key, keep="first", maintain_order=True).select("_i"))
    kernels = measured.join(keep, on="_i", how="semi", maintain_order="left")
    pair = ["dataset", "source", "pair"]
    # Position in the pair by row, ties in table order (benchmark pairs share a row).
    kernels = kernels.with_columns(_pos=pl.col("row").rank("ordinal").over(pair))
    optimized = pl.when(pl.col("series") == "Optimized").then(pl.col("_pos"))
    latest = pl.coalesce(optimized.min().over(pair), pl.col("_pos").max().over(pair))
    in_pair = pl.col("pair").fill_null("") != ""
    return kernels.with_columns(superseded=in_pair & (pl.col("_pos") != latest)).drop(
        "_i", "_pos")


def _guidance(rows: pl.DataFrame) -> list[str]:
    """One sentence per ranked kernel (:func:`rooflow.guidance.sentence`), numbered alike."""
    from rooflow.guidance import sentence

    if "limiter" not in rows.columns:
        return []
    lines = [f"{i}. {_name(r)}: {_md(text)}"
             for i, r in enumerate(rows.iter_rows(named=True), 1) if (text := sentence(r))]
    return [*lines, ""] if lines else []


def _more(height: int, top: int) -> list[str]:
    """The line after a list of ``height`` rows cut at ``top``."""
    return [f"… and {height - top} more", ""] if height > top else [""]


def _superseded(rows: pl.LazyFrame, height: int, top: int) -> list[str]:
    """Kernels a later kernel of their pair replaced, with the pair's speedup."""
    lines = ["Superseded within their pair (not ranked; the pair's Optimized kernel, else its "
             "last, is):", "",
             "| dataset | kernel | series | pair | achieved | pair speedup |", "|---" * 6 + "|"]
    for r in rows.head(top).collect().iter_rows(named=True):
        speedup = _num(r.get("pair_speedup"), ".2f")
        lines.append(f"| {_md(r['dataset'])} | {_name(r)} | {_md(r['series'])} "
                     f"| {_md(r['pair'])} | {_achieved(r)[0]} | {speedup}× |")
    return lines + _more(height, top)


def _no_roof(preset: str, rows: pl.LazyFrame, top: int) -> list[str]:
    """Kernels not judged on ``preset``: counts per missing compute roof, then the list."""
    rows = rows.with_columns(pl.col("precision").cast(pl.String).fill_null(""))
    # Kernels without a precision last: a group of their own, after the missing roofs.
    rows = rows.sort(pl.col("precision") == "", maintain_order=True)
    counts = rows.group_by("precision", maintain_order=True).len().collect()
    lines = [f"Not judged on {preset}: no compute roof of their precision, or no precision "
             "given (no attainable, bound, headroom or time saved; draw them on a preset "
             "with that roof, or give their precision):", ""]
    lines += [f"- {f'no {_md(p)} roof on {preset}' if p else NO_PRECISION}: "
              f"{n} kernel{'s' if n > 1 else ''}" for p, n in counts.iter_rows()]
    shown = rows.head(top).collect()
    unit, times = _times(shown, ["time_s"])
    lines += ["", f"| dataset | kernel | series | precision | achieved | time ({unit}) |",
              "|---" * 6 + "|"]
    lines += [f"| {_md(r['dataset'])} | {_name(r)} | {_md(r['series'])} "
              f"| {_md(r['precision']) or 'not given'} | {_achieved(r)[0]} "
              f"| {t['time_s']} |"
              for r, t in zip(shown.iter_rows(named=True), times, strict=True)]
    return lines + _more(int(counts["len"].sum()), top)


def _not_built(failed: Mapping[str, str], skipped: Sequence[str]) -> list[str]:
    """The datasets that failed, with their error lines, and the files skipped."""
    lines = []
    if failed:
        lines += ["## Datasets not built", "",
                  "Their inputs could not be read: each one's table, plot and page say why, "
                  "and they are left out of every preset below. Fix the input and run again.",
                  "", "| dataset | error |", "|---|---|"]
        lines += [f"| {_md(dataset)} | {_md(line)} |" for dataset, line in failed.items()]
        lines.append("")
    if skipped:
        lines += ["## Input files skipped", "",
                  "Under `resources/` but not taken as datasets:", ""]
        lines += [f"- {_md(line, in_table=False)}" for line in skipped]
        lines.append("")
    return lines


def summary_markdown(
    tables: Mapping[str, pl.DataFrame | pl.LazyFrame],
    top: int = TOP,
    *,
    failed: Mapping[str, str] | None = None,
    skipped: Sequence[str] = (),
    kind_lines: Sequence[str] = (),
) -> str:
    """Markdown summary of per-preset ``all.csv`` tables (analysis columns + ``dataset``).

    Per preset: the ranked kernels (with times, by potential time saved; without, by
    headroom), the kernels superseded within their pair, the kernels without a compute
    roof of their precision; before the presets, every point above its roof.

    Args:
        tables: preset key → concatenated analysis table of its datasets; a LazyFrame (a
            scanned Parquet file) is read one preset at a time, so only one preset's table
            is in memory at once.
        top: rows listed per preset and list.
        failed: dataset → its error line, for the datasets not built (listed first).
        skipped: one line per input file the workflow skipped (listed after them).
        kind_lines: the sections the kinds' hooks add (:attr:`rooflow.kinds.Kind.extras`:
            where a PyTorch trace's GPU time went, its operators ranked by potential time
            saved), listed after them.
    """
    lines = ["# rooflow summary", "",
             "Kernels that can improve, ranked by potential time saved = time − "
             "max(time / headroom, launches × the preset's launch overhead), where "
             "headroom = attainable / achieved at the kernel's binding memory level. Of a "
             "pair (Original/Optimized) only its Optimized kernel is ranked; a kernel whose "
             "precision has no compute roof on the preset, or whose precision is not given, "
             "is listed apart, not ranked.", ""]
    lines += _not_built(failed or {}, skipped)
    lines += kind_lines
    lines += _above_roof(tables, top)
    for preset, table in tables.items():
        lines += _preset(preset, table, top)
    return "\n".join(lines) + "\n"


_READ = ["dataset", *KERNEL_KEY, "theoretical", "binding", "above_roof", "precision", "level",
         "kernel_bound", "performance", "attainable", "achieved_bandwidth", "memory_roof",
         "pct_of_roof", "pct_of_memory_roof", "kernel_headroom", "bandwidth_only", "unit",
         "time_s", "potential_time_saved_s", "pair_speedup", "compute_roof_name", "limiter",
         "next_limiter", "pattern", "speedup_to_roof"]
"""The analysis columns a preset's section reads (and ``traffic_ratio_*``, the guidance's)."""


def _preset(preset: str, table: pl.DataFrame | pl.LazyFrame, top: int) -> list[str]:
    """The section of one preset's table.

    Of a scanned table only the columns read (:data:`_READ`) are read; its measured
    kernels are the one table held, and what is ranked from them is counted and cut at
    ``top`` rows in polars' plans: a ranking of 10⁷ kernels is no copy of them.
    """
    source = table.lazy()
    names = source.collect_schema().names()
    source = source.select([c for c in names if c in _READ or c.startswith("traffic_ratio_")])
    above = source.filter(pl.col("above_roof"))
    n_above = above.select(pl.len()).collect().item()
    above_keys = above.select(KERNEL_KEY).unique().collect().lazy()
    datasets = source.select(pl.col("dataset").n_unique()).collect().item()
    kernels = _kernels(source).collect().lazy()
    unjudged = kernels.filter(no_compute_roof())
    judged = kernels.filter(~no_compute_roof())
    superseded = judged.filter(pl.col("superseded"))
    # nulls_equal: empty pair/label cells read back from all.csv are nulls.
    ranked = judged.filter(~pl.col("superseded")).join(
        above_keys, on=KERNEL_KEY, how="anti", nulls_equal=True)
    timed = ranked.filter(pl.col("time_s").is_not_null())
    untimed = ranked.filter(pl.col("time_s").is_null())
    n_unjudged, n_superseded, n_ranked, n_timed, n_untimed = (
        frame.item() for frame in pl.collect_all(
            [f.select(pl.len()) for f in (unjudged, superseded, ranked, timed, untimed)]))
    lines = [f"## {preset}", "",
             f"{_count(datasets, 'dataset')}, "
             f"{_count(n_ranked, 'measured kernel')} ranked ({n_timed} with "
             f"times); not ranked: {n_superseded} superseded within their pair, "
             f"{n_unjudged} without a compute roof of their precision; "
             f"{_count(n_above, 'point')} above the roof.", ""]
    header = ("| # | dataset | kernel | series | bound | achieved | attainable | % of roof "
              "| headroom |")
    if n_timed:
        shown = timed.sort("potential_time_saved_s", descending=True, nulls_last=True,
                           maintain_order=True).head(top).collect()
        unit, times = _times(shown, ["time_s", "potential_time_saved_s"])
        lines += [header + f" time ({unit}) | potential saved ({unit}) |",
                  "|---" * 11 + "|"]
        lines += [_row(i, r) + f" {t['time_s']} | {t['potential_time_saved_s']} |"
                  for i, (r, t) in enumerate(
                      zip(shown.iter_rows(named=True), times, strict=True), 1)]
        lines += ["", *_guidance(shown)]
    if n_untimed:
        shown = untimed.sort("kernel_headroom", descending=True, nulls_last=True,
                             maintain_order=True).head(top).collect()
        lines += ["Without measured time (ranked by headroom):", "", header,
                  "|---" * 9 + "|"]
        lines += [_row(i, r) for i, r in enumerate(shown.iter_rows(named=True), 1)]
        lines.append("")
    if n_superseded:
        lines += _superseded(superseded, n_superseded, top)
    if n_unjudged:
        lines += _no_roof(preset, unjudged, top)
    return lines
