"""Where a trace's GPU time went, carried from its batch job to ``summary.md`` and the CLI.

A trace's points cover only its modelled and bandwidth-only operators; the rest of its GPU
time (operators without a model, communication, host transfers, unlinked kernels such as
graph replays) is no point of any table. :func:`coverage` condenses an
:class:`~.table.OperatorTable` into a small JSON-able dict; :func:`pytorch_points` keeps the
one of each trace it read (:func:`coverage_of`), the workflow's batch job stores it in the
points Parquet's key-value metadata (:data:`KEY`, next to
:data:`rooflow.workflow.failed.KEY`), so the summary job, which already takes every points
file, reads it without any new file or job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from rooflow.adapters.pytorch.table import SHARES, OperatorTable

KEY = "rooflow:pytorch_coverage"
"""Parquet key-value metadata of a trace's points file: :func:`coverage` as JSON."""
NO_MODEL_LISTED = 5
"""Operators without a model named per trace (by GPU time)."""
_SEEN: dict[str, dict] = {}


def coverage(result: OperatorTable) -> dict:
    """``{"gpu_time_s", "shares": {share: s}, "no_model": [[op, s, calls], ...], "skipped"}``.

    ``shares`` holds every share of :data:`SHARES` (GPU seconds); ``no_model`` the
    operators without a model with the most GPU time (:data:`NO_MODEL_LISTED`);
    ``skipped`` the notes on events the reader left out (wrong types, negative durations).
    """
    missing = (result.operators.filter(pl.col("status") == "no model")
               .group_by("op").agg(pl.col("time_s").sum(), pl.col("launches").sum())
               .sort(["time_s", "op"], descending=[True, False]))
    return {"gpu_time_s": sum(result.shares.values()),
            "shares": {name: result.shares[name] for name in SHARES},
            "no_model": [[r["op"], r["time_s"], r["launches"]]
                         for r in missing.head(NO_MODEL_LISTED).iter_rows(named=True)],
            "skipped": list(result.skipped)}


def remember(source: str | Path, result: OperatorTable) -> None:
    """Keep the coverage of the trace ``source`` for :func:`coverage_of`."""
    _SEEN[str(source)] = coverage(result)


def coverage_of(source: str | Path) -> dict | None:
    """The coverage of a trace this process read (:func:`remember`), else None."""
    return _SEEN.get(str(source))


def to_metadata(cov: dict | None) -> dict[str, str]:
    """Parquet key-value metadata holding ``cov`` (none for None)."""
    return {} if cov is None else {KEY: json.dumps(cov)}


def read_coverage(points_file: str | Path) -> dict | None:
    """The coverage a trace's points file holds (:func:`to_metadata`), else None."""
    text = pl.read_parquet_metadata(points_file).get(KEY)
    return None if text is None else json.loads(text)


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "–"


def _top(table: pl.DataFrame, top: int) -> pl.DataFrame:
    """The operators of one trace's analysis rows ranked by potential time saved."""
    need = {"potential_time_saved_s", "label", "kernel"}
    if not need <= set(table.columns):
        return table.clear()
    return (table.filter(pl.col("potential_time_saved_s").is_not_null()
                         & (pl.col("potential_time_saved_s") > 0))
            .sort("potential_time_saved_s", descending=True)
            .unique(["label", "kernel"], keep="first", maintain_order=True).head(top))


def ranked_note(source: str, table: pl.DataFrame, preset: str, top: int = 5) -> list[str]:
    """Log lines for a trace read by the CLI: coverage, then operators by time saved.

    ``table`` holds the trace's analysis rows on ``preset``; the coverage is the one
    :func:`coverage_of` kept: none (a points file, not the trace, was read), no lines.
    """
    cov = coverage_of(source)
    if cov is None:
        return []
    whole = cov["gpu_time_s"]
    lines = [f"{source}: {note}" for note in cov.get("skipped", ())]
    if whole:
        covered = cov["shares"]["modelled"] + cov["shares"]["bandwidth-only"]
        lines.append(f"{source}: its points cover {_pct(covered, whole)} of the GPU time "
                     f"(modelled {_pct(cov['shares']['modelled'], whole)}, bandwidth-only "
                     f"{_pct(cov['shares']['bandwidth-only'], whole)}); not points: no model "
                     f"{_pct(cov['shares']['no model'], whole)}, unlinked "
                     f"{_pct(cov['shares']['unlinked'], whole)}, communication "
                     f"{_pct(cov['shares']['communication'], whole)}, host transfers "
                     f"{_pct(cov['shares']['host transfers'], whole)}")
    ranked = _top(table, top)
    if ranked.height:
        lines.append(f"{source}: operators by potential time saved on {preset}: " + "; ".join(
            f"{i}. {r['label'] or r['kernel']} {r['potential_time_saved_s'] * 1e3:.3g} ms"
            + (f" ({_pct(r['potential_time_saved_s'], whole)} of GPU time)" if whole else "")
            for i, r in enumerate(ranked.iter_rows(named=True), 1)))
    return lines


def summary_lines(coverages: Mapping[str, dict],
                  tables: Mapping[str, pl.DataFrame | pl.LazyFrame],
                  md, top: int = 5) -> list[str]:
    """``summary.md``'s section on traces: GPU time shares, then operators by time saved.

    Args:
        coverages: dataset → :func:`coverage` of the traces built.
        tables: preset → analysis table with a ``dataset`` column (or a LazyFrame of it).
        md: the Markdown escaper of names (:func:`rooflow.escape.markdown_cell`).
        top: operators ranked per trace and preset.
    """
    if not coverages:
        return []
    lines = ["## PyTorch traces: where the GPU time went", "",
             "Share of each trace's GPU time in its points (modelled operators, and "
             "bandwidth-only ones: bytes known, FLOP not) and outside them (operators "
             "without a model, unlinked kernels such as CUDA/HIP graph replays, NCCL/RCCL "
             "communication, host transfers).", "",
             "| dataset | GPU time (ms) | " + " | ".join(SHARES)
             + " | most GPU time without a model |", "|---" * (len(SHARES) + 3) + "|"]
    for dataset, cov in coverages.items():
        whole = cov["gpu_time_s"]
        missing = ", ".join(f"{md(op)} {_pct(s, whole)} ({n} calls)"
                            for op, s, n in cov["no_model"]) or "–"
        lines.append(f"| {md(dataset)} | {whole * 1e3:,.3f} | "
                     + " | ".join(_pct(cov["shares"][name], whole) for name in SHARES)
                     + f" | {missing} |")
    lines.append("")
    for dataset, cov in coverages.items():
        for preset, table in tables.items():
            frame = table.lazy()  # a scanned table: only this trace's rows are read
            if "dataset" not in frame.collect_schema().names():
                continue
            ranked = _top(frame.filter(pl.col("dataset") == dataset).collect(), top)
            if not ranked.height:
                continue
            lines += [f"Operators of {md(dataset)} by potential time saved on {md(preset)}:", "",
                      "| # | operator | bound | % of roof | potential saved (ms) "
                      "| % of GPU time |", "|---" * 6 + "|"]
            for i, r in enumerate(ranked.iter_rows(named=True), 1):
                saved = r["potential_time_saved_s"]
                pct = r.get("pct_of_memory_roof") if r.get("bandwidth_only") \
                    else r.get("pct_of_roof")
                lines.append(f"| {i} | {md(r['label'] or r['kernel'])} "
                             f"| {md(str(r.get('kernel_bound') or '–'))} "
                             f"| {'–' if pct is None else format(pct, '.1f')} "
                             f"| {saved * 1e3:.4g} | {_pct(saved, cov['gpu_time_s'])} |")
            lines.append("")
    return lines
