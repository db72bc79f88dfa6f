"""A performance gate for CI: did a kernel fall further from its roof than its noise allows?

:func:`check_runs` compares two runs (canonical points of any kinds, analysed on one
preset) kernel by kernel, matched on the kernel name (optionally normalized as in
:mod:`rooflow.compare`) and series where both runs name the same series.

Per kernel and run, over its launches (the rows of one kernel name at its first memory
level: one per launch, dispatch or repeat the input holds; ncu ``--per-launch``,
rocprof dispatches, repeated roofline rows):

- time = median of the launch times (s)
- % of roof = median of 100 / kernel headroom (the % of the roof at the binding level:
  compute or memory roof for FLOP kernels, the memory roof for bandwidth-only ones)
- noise = median absolute deviation of the launch times / their median (relative MAD;
  0 with one launch)

Verdict: slowdown = time_new / time_baseline − 1 and roof drop = 1 − pct_new / pct_baseline;
allowed = max(``max_slowdown``, ``noise_k`` × 1.4826 × √(noise_baseline² + noise_new²))
(1.4826 × MAD estimates a standard deviation; ``noise_k`` = 3 by default; a kernel that a
regular expression of ``overrides`` matches has that tolerance instead of
``max_slowdown``, the first match winning). A kernel
*regresses* when its slowdown or its roof drop is above the allowed value. Kernels of one
run only are listed (``only in baseline`` / ``only in new``), never silently ignored,
and do not fail the gate; kernels without a time in both runs are ``not judged``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

REGRESSED, OK, NOT_JUDGED = "regressed", "ok", "not judged"
ONLY_BASELINE, ONLY_NEW = "only in baseline", "only in new"
MAD_TO_SIGMA = 1.4826
DEFAULT_MAX_SLOWDOWN = 0.05
DEFAULT_NOISE_K = 3.0

COLUMNS = ["kernel", "series", "status", "launches_baseline", "launches_new",
           "time_s_baseline", "time_s_new", "slowdown_pct", "pct_of_roof_baseline",
           "pct_of_roof_new", "roof_drop_pct", "noise_pct_baseline", "noise_pct_new",
           "allowed_pct"]
"""The check table's columns (``*_pct``: percent; ``time_s_*``: seconds)."""


@dataclass(frozen=True)
class CheckResult:
    """The per-kernel table (:data:`COLUMNS`) and its counts."""

    table: pl.DataFrame
    max_slowdown: float
    noise_k: float

    @property
    def regressed(self) -> pl.DataFrame:
        """The regressed kernels' rows."""
        import polars as pl

        return self.table.filter(pl.col("status") == REGRESSED)

    def count(self, status: str) -> int:
        """How many kernels have ``status``."""
        return int((self.table["status"] == status).sum())

    def lines(self) -> list[str]:
        """One line per regressed kernel (what CI prints)."""
        return [_line(r) for r in self.regressed.iter_rows(named=True)]

    def summary(self) -> str:
        """One line: regressed of judged, and the kernels not judged or of one run only."""
        judged = self.count(OK) + self.count(REGRESSED)
        text = (f"{self.count(REGRESSED)} of {judged} kernels regressed (allowed slowdown "
                f"{self.max_slowdown * 100:g} %, or {self.noise_k:g} x their noise)")
        others = [f"{self.count(s)} {s}" for s in (ONLY_BASELINE, ONLY_NEW, NOT_JUDGED)
                  if self.count(s)]
        return text + ("; " + ", ".join(others) if others else "")


def _line(r: Mapping) -> str:
    roof = ""
    if r["pct_of_roof_baseline"] is not None and r["pct_of_roof_new"] is not None:
        roof = (f", % of roof {r['pct_of_roof_baseline']:.3g} -> {r['pct_of_roof_new']:.3g}"
                f" ({-r['roof_drop_pct']:+.1f} %)")
    return (f"REGRESSED {r['kernel']}: time {r['time_s_baseline'] * 1e3:.4g} ms -> "
            f"{r['time_s_new'] * 1e3:.4g} ms ({r['slowdown_pct']:+.1f} %){roof}; allowed "
            f"{r['allowed_pct']:.1f} % (noise {r['noise_pct_baseline']:.1f} % / "
            f"{r['noise_pct_new']:.1f} % over {r['launches_baseline']} / "
            f"{r['launches_new']} launches)")


def _per_kernel(table: pl.DataFrame, normalize: bool) -> pl.DataFrame:
    """One row per kernel (name, series): launches, median time, % of roof, noise."""
    import polars as pl

    from rooflow.compare import normalize_name

    names = table["kernel"].unique().to_list()
    mapping = {n: (normalize_name(n) if normalize else n) for n in names}
    first_level = pl.col("level") == pl.col("level").first().over("kernel")
    rows = table.filter(first_level).with_columns(
        name=pl.col("kernel").replace_strict(mapping, return_dtype=pl.String),
        pct=100 / pl.col("kernel_headroom"))
    t = pl.col("time_s")
    return rows.group_by("name", "series", maintain_order=True).agg(
        launches=pl.len(),
        time=t.median(),
        pct=pl.col("pct").median(),
        noise=((t - t.median()).abs().median() / t.median()),
    )


def check_runs(baseline: pl.DataFrame, new: pl.DataFrame, *,
               max_slowdown: float = DEFAULT_MAX_SLOWDOWN, noise_k: float = DEFAULT_NOISE_K,
               normalize: bool = False,
               overrides: Mapping[str, float] | None = None) -> CheckResult:
    """Judge ``new`` against ``baseline`` (analysis tables of one preset; module docstring).

    Args:
        baseline: the reference run, an :func:`rooflow.analysis.analyze` table
            (``kernel_headroom`` and ``time_s`` needed).
        new: the run judged, the same way.
        max_slowdown: the tolerance (0.05: 5 %).
        noise_k: how many standard deviations of run-to-run noise a slowdown may reach.
        normalize: match kernels without template arguments and parameter lists.
        overrides: regular expression (searched in the kernel name, case-insensitive) →
            that kernel's tolerance instead of ``max_slowdown``; the first match wins.
    """
    import polars as pl

    base, other = _per_kernel(baseline, normalize), _per_kernel(new, normalize)
    key = ["name"] + (["series"] if set(base["series"]) & set(other["series"]) else [])
    joined = base.join(other, on=key, how="full", coalesce=True, suffix="_new",
                       maintain_order="left_right")
    if "series_new" in joined.columns:  # matched on name alone: the baseline's series
        joined = joined.with_columns(series=pl.coalesce("series", "series_new"))
    noise = (pl.col("noise").fill_null(0) ** 2 + pl.col("noise_new").fill_null(0) ** 2).sqrt()
    tolerance = pl.lit(max_slowdown)
    for pattern, value in reversed(list((overrides or {}).items())):  # the first wins
        tolerance = pl.when(pl.col("name").str.contains(f"(?i){pattern}")).then(
            pl.lit(value)).otherwise(tolerance)
    allowed = pl.max_horizontal(tolerance, noise_k * MAD_TO_SIGMA * noise)
    slowdown = pl.col("time_new") / pl.col("time") - 1
    drop = 1 - pl.col("pct_new") / pl.col("pct")
    worse = (slowdown > allowed).fill_null(False) | (drop > allowed).fill_null(False)
    status = (
        pl.when(pl.col("launches").is_null()).then(pl.lit(ONLY_NEW))
        .when(pl.col("launches_new").is_null()).then(pl.lit(ONLY_BASELINE))
        .when(slowdown.is_null() | ~slowdown.is_finite()).then(pl.lit(NOT_JUDGED))
        .when(worse).then(pl.lit(REGRESSED))
        .otherwise(pl.lit(OK))
    )
    table = joined.select(
        kernel="name", series=pl.col("series").cast(pl.String), status=status,
        launches_baseline=pl.col("launches").fill_null(0),
        launches_new=pl.col("launches_new").fill_null(0),
        time_s_baseline="time", time_s_new="time_new", slowdown_pct=slowdown * 100,
        pct_of_roof_baseline="pct", pct_of_roof_new="pct_new", roof_drop_pct=drop * 100,
        noise_pct_baseline=pl.col("noise") * 100, noise_pct_new=pl.col("noise_new") * 100,
        allowed_pct=allowed * 100,
    )
    # Regressions first (worst slowdown first), then the rest in the baseline's order.
    table = table.with_row_index("_i").sort(
        [pl.col("status") != REGRESSED, pl.col("slowdown_pct").neg(), "_i"],
        nulls_last=True).drop("_i")
    return CheckResult(table=table, max_slowdown=max_slowdown, noise_k=noise_k)


def parse_override(text: str) -> tuple[str, float]:
    """``REGEX=5%`` → (regex, 0.05); a ValueError naming what is wrong."""
    import re

    pattern, sep, value = text.rpartition("=")
    if not sep or not pattern:
        raise ValueError(f"'{text}' is not REGEX=TOLERANCE (e.g. 'allreduce=15%')")
    try:
        re.compile(pattern)
    except re.error as err:
        raise ValueError(f"'{pattern}' is not a regular expression: {err}") from None
    try:
        return pattern, parse_fraction(value)
    except ValueError:
        raise ValueError(f"'{value}' is not a percentage (5%) or a fraction (0.05)") from None


def parse_fraction(text: str) -> float:
    """``5%`` or ``0.05`` → 0.05; a ValueError for anything else (or a negative value)."""
    text = text.strip()
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(text)
    return value


def markdown(result: CheckResult, title: str) -> str:
    """A Markdown summary for a CI job page: the verdict, then every kernel."""
    head = ["kernel", "status", "time (ms) base -> new", "slowdown", "% of roof",
            "noise", "allowed"]
    lines = [f"## {title}", "", result.summary(), "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]

    def f(value, fmt: str) -> str:
        return "" if value is None else format(value, fmt)

    for r in result.table.iter_rows(named=True):
        time = (f"{f(r['time_s_baseline'] and r['time_s_baseline'] * 1e3, '.4g')} -> "
                f"{f(r['time_s_new'] and r['time_s_new'] * 1e3, '.4g')}")
        roof = f"{f(r['pct_of_roof_baseline'], '.3g')} -> {f(r['pct_of_roof_new'], '.3g')}"
        noise = f"{f(r['noise_pct_baseline'], '.1f')} / {f(r['noise_pct_new'], '.1f')} %"
        name = r["kernel"].replace("|", "\\|")
        status = f"**{r['status']}**" if r["status"] == REGRESSED else r["status"]
        lines.append(f"| `{name}` | {status} | {time} | {f(r['slowdown_pct'], '+.1f')} % | "
                     f"{roof} | {noise} | {f(r['allowed_pct'], '.1f')} % |")
    return "\n".join(lines) + "\n"


def junit(result: CheckResult, suite: str) -> str:
    """JUnit XML: one test case per kernel.

    A regression is a failure; kernels of one run only and kernels not judged are skipped,
    with the reason.
    """
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites")
    cases = result.table.iter_rows(named=True)
    node = ET.SubElement(root, "testsuite", name=suite, tests=str(result.table.height),
                         failures=str(result.count(REGRESSED)),
                         skipped=str(result.table.height - result.count(OK)
                                     - result.count(REGRESSED)))
    for r in cases:
        case = ET.SubElement(node, "testcase", classname=suite, name=r["kernel"],
                             time=f"{r['time_s_new'] or 0:.9f}")
        if r["status"] == REGRESSED:
            ET.SubElement(case, "failure", message=_line(r), type="regression")
        elif r["status"] != OK:
            ET.SubElement(case, "skipped", message=r["status"])
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write(text: str, path: str | Path) -> None:
    """Write ``text`` to ``path`` atomically."""
    from rooflow.io import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
