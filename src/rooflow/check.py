"""A performance gate for CI: did a kernel's time per call grow more than its noise allows?

:func:`check_runs` compares two runs (analysis tables of one preset, read one row per
call: ncu launches, PyTorch operator calls, repeated rows of a roofline CSV) kernel by
kernel. A kernel is its name (optionally normalized as in :mod:`rooflow.compare`; a
PyTorch call's operator and input shapes, without its event index), its series and its
pair, the last two where both runs name the same ones. With ``pair_calls`` (``check
--per-launch``) each call is its own kernel, matched by name and order among the calls of
that name (``aten::mm [4,4]x[4,4] fp32 #2``: the second such call).

Per kernel and run, over its n calls (its rows at its first memory level, one per call):

- compared quantity: the time per call (s), else, where a run has no times, the
  throughput (FLOP/s, or byte/s for bandwidth-only rows) — said in ``compared``
- m = the **median** over the calls; σ = 1.4826 × their median absolute deviation (a
  normal standard deviation, robust to outliers); ``noise_pct`` = σ / m
- the median's standard error, for n iid normal-ish calls, se = 1.2533 σ / √n
  (√(π/2) = 1.2533: the median's asymptotic variance π σ² / 2n; Kenney & Keeping,
  *Mathematics of Statistics*, 1962, §13.13)

Verdict: slowdown = m_new / m_base − 1 for times (m_base / m_new − 1 for throughputs);
roof drop = 1 − % of roof new / baseline (medians of 100 / kernel headroom);
combined relative se = √((se_base / m_base)² + (se_new / m_new)²);
allowed = max(floor, q × combined se), q the one-sided ``confidence`` quantile of
Student's t with min(n) − 1 degrees of freedom (3.09 for many calls at 99.9 %; the t
quantile, not the normal one, because σ is estimated from few calls). A side with one
call takes the other side's σ / m; a kernel with one call per side has no noise estimate
and is judged on the floor alone (``note`` says so). The floor is ``max_slowdown``, or
for a kernel a regular expression of ``overrides`` matches, that tolerance (the first
match wins). A kernel *regresses* when its slowdown or its roof drop is above allowed.

Kernels of one run only are listed (``only in baseline`` / ``only in new``), never silently
ignored, and do not fail the gate; kernels with neither times nor throughputs of one unit
in both runs are ``not judged``. :meth:`CheckResult.unjudged` says why nothing was judged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from rooflow.escape import markdown_cell, terminal_text, xml_text

if TYPE_CHECKING:
    import polars as pl

REGRESSED, OK, NOT_JUDGED = "regressed", "ok", "not judged"
ONLY_BASELINE, ONLY_NEW = "only in baseline", "only in new"
MAD_TO_SIGMA = 1.4826
MEDIAN_SE = math.sqrt(math.pi / 2)  # 1.2533: se of a median = 1.2533 σ / √n
DEFAULT_MAX_SLOWDOWN = 0.05
DEFAULT_CONFIDENCE = 0.999
MAX_DF = 1000
"""Degrees of freedom above which the t quantile is taken at 1000 (3.098 at 99.9 %, the
normal 3.090): a little wider, never narrower, and no series to sum per call."""
FLOOR_ONLY = "one call per side: judged on the floor alone"
TIME = "time per call"

COLUMNS = ["kernel", "series", "pair", "status", "compared", "calls_baseline", "calls_new",
           "time_s_baseline", "time_s_new", "throughput_baseline", "throughput_new",
           "slowdown_pct", "pct_of_roof_baseline", "pct_of_roof_new", "roof_drop_pct",
           "noise_pct_baseline", "noise_pct_new", "se_pct", "quantile", "allowed_pct",
           "note"]
"""The check table's columns (``*_pct``: percent; ``time_s_*``: median seconds per call;
``throughput_*``: median FLOP/s, OP/s or byte/s per call, as ``compared`` says)."""


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (one-sided, 0.5 < p < 1) of Student's t with ``df`` ≥ 1.

    By bisection on the closed-form distribution for integer degrees of freedom
    (Abramowitz & Stegun, *Handbook of Mathematical Functions*, 26.7.3 and 26.7.4);
    ``df`` above :data:`MAX_DF` is taken as :data:`MAX_DF`.
    """
    nu = min(int(df), MAX_DF)
    target = 2 * p - 1  # P(|T| <= t)

    def within(t: float) -> float:
        theta = math.atan(t / math.sqrt(nu))
        c2, s = math.cos(theta) ** 2, math.sin(theta)
        if nu % 2:
            if nu == 1:
                return 2 * theta / math.pi
            term = total = math.cos(theta)
            for k in range(1, (nu - 1) // 2):
                term *= 2 * k / (2 * k + 1) * c2
                total += term
            return 2 / math.pi * (theta + s * total)
        term = total = 1.0
        for k in range(1, nu // 2):
            term *= (2 * k - 1) / (2 * k) * c2
            total += term
        return s * total

    low, high = 0.0, 1.0
    while within(high) < target:
        low, high = high, high * 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if within(mid) < target else (low, mid)
    return high


@dataclass(frozen=True)
class CheckResult:
    """The per-kernel table (:data:`COLUMNS`) and its counts."""

    table: pl.DataFrame
    max_slowdown: float
    confidence: float

    @property
    def regressed(self) -> pl.DataFrame:
        """The regressed kernels' rows."""
        import polars as pl

        return self.table.filter(pl.col("status") == REGRESSED)

    def count(self, status: str) -> int:
        """How many kernels have ``status``."""
        return int((self.table["status"] == status).sum())

    @property
    def judged(self) -> int:
        """How many kernels were judged (ok or regressed)."""
        return self.count(OK) + self.count(REGRESSED)

    def lines(self) -> list[str]:
        """One line per regressed kernel (what CI prints); names terminal-safe."""
        return [_line(r) for r in self.regressed.iter_rows(named=True)]

    def summary(self) -> str:
        """One line: regressed of judged, and the kernels not judged or of one run only."""
        text = (f"{self.count(REGRESSED)} of {self.judged} kernels regressed (time per call, "
                f"median over calls; allowed: the {self.max_slowdown * 100:g} % floor, or "
                f"the one-sided {self.confidence * 100:g} % bound of their noise)")
        others = [f"{self.count(s)} {s}" for s in (ONLY_BASELINE, ONLY_NEW, NOT_JUDGED)
                  if self.count(s)]
        notes = self.table["note"]
        floor_only = int((notes == FLOOR_ONLY).sum())
        if floor_only:
            others.append(f"{floor_only} with {FLOOR_ONLY}")
        by_rate = int(self.table["compared"].is_in(["FLOP/s", "OP/s", "byte/s"]).sum())
        if by_rate:
            others.append(f"{by_rate} compared by throughput (no times)")
        return text + ("; " + ", ".join(others) if others else "")

    def unjudged(self) -> str | None:
        """Why no kernel was judged (one line), or None when one was."""
        if self.judged:
            return None
        if self.table.is_empty():
            return "nothing judged: neither run holds a kernel"
        one_run = self.count(ONLY_BASELINE) + self.count(ONLY_NEW)
        if one_run == self.table.height:
            return (f"nothing judged: no kernel in common ({self.count(ONLY_BASELINE)} only "
                    f"in baseline, {self.count(ONLY_NEW)} only in new)")
        return (f"nothing judged: {self.count(NOT_JUDGED)} kernel(s) in common, none with "
                "times or throughputs of one unit in both runs")


def _label(r: Mapping) -> str:
    """The kernel's name with its series and pair (where they are not the defaults)."""
    extra = [f"series {r['series']}"] if r["series"] not in (None, "", "kernel") else []
    extra += [f"pair {r['pair']}"] if r["pair"] else []
    return r["kernel"] + (f" ({', '.join(extra)})" if extra else "")


def _value(r: Mapping, side: str) -> str:
    if r["compared"] == TIME:
        return f"{r[f'time_s_{side}'] * 1e3:.4g} ms"
    return f"{r[f'throughput_{side}']:.4g} {r['compared']}"


def _line(r: Mapping) -> str:
    roof = ""
    if r["roof_drop_pct"] is not None:
        roof = (f", % of roof {r['pct_of_roof_baseline']:.3g} -> {r['pct_of_roof_new']:.3g}"
                f" ({-r['roof_drop_pct']:+.1f} %)")
    noise = (FLOOR_ONLY if r["note"] == FLOOR_ONLY else
             f"noise {r['noise_pct_baseline']:.1f} % / {r['noise_pct_new']:.1f} %, "
             f"se {r['se_pct']:.2f} % x {r['quantile']:.3g}")
    what = "time per call" if r["compared"] == TIME else r["compared"]
    return terminal_text(
        f"REGRESSED {_label(r)}: {what} {_value(r, 'baseline')} -> {_value(r, 'new')} "
        f"({r['slowdown_pct']:+.1f} %){roof}; allowed {r['allowed_pct']:.1f} % ({noise}; "
        f"{r['calls_baseline']} / {r['calls_new']} calls)")


def per_call_name(table: pl.DataFrame) -> pl.Expr:
    """A call's kernel: its name, less a PyTorch call's `` @<event index>`` (per call).

    The suffix is stripped from the series of the kinds that name calls so
    (:attr:`rooflow.kinds.Kind.per_call_suffix`).
    """
    import polars as pl

    from rooflow.kinds import KINDS

    index = pl.lit(" @") + pl.col("row").cast(pl.String)
    suffixed = [kind.name for kind in KINDS.values() if kind.per_call_suffix]
    per_call = pl.col("series").cast(pl.String).is_in(suffixed) & (pl.col("row") > 0)
    return pl.when(per_call).then(pl.col("kernel").str.strip_suffix(index)).otherwise(
        pl.col("kernel"))


def _calls(table: pl.DataFrame, normalize: bool, pair_calls: bool) -> pl.DataFrame:
    """One row per call: name, series, pair, time, throughput and its unit, % of roof."""
    import polars as pl

    from rooflow.analysis import KERNEL_KEY
    from rooflow.compare import normalize_name

    calls = table.with_row_index("_i").unique(KERNEL_KEY, keep="first", maintain_order=True)
    calls = calls.with_columns(name=per_call_name(calls), series=pl.col("series").cast(
        pl.String), pair=pl.col("pair").fill_null(""))
    if normalize:
        names = calls["name"].unique().to_list()
        mapping = {n: normalize_name(n) for n in names}
        calls = calls.with_columns(name=pl.col("name").replace_strict(
            mapping, return_dtype=pl.String))
    group = ["name", "series", "pair"]
    calls = calls.sort("row", "_i").with_columns(
        order=pl.int_range(1, pl.len() + 1).over(group)).sort("_i")
    if pair_calls:
        calls = calls.with_columns(name=pl.format("{} #{}", "name", "order"))
    bandwidth = pl.col("bandwidth_only").fill_null(False)
    measured = ~pl.col("theoretical").fill_null(False)
    return calls.select(
        *group, time=pl.col("time_s"),
        throughput=pl.when(measured).then(pl.when(bandwidth).then(pl.col(
            "achieved_bandwidth")).otherwise(pl.col("performance"))),
        rate=pl.when(bandwidth).then(pl.lit("byte/s")).otherwise(
            pl.col("unit").cast(pl.String) + "/s"),
        pct=100 / pl.col("kernel_headroom"))


def _per_kernel(table: pl.DataFrame, normalize: bool, pair_calls: bool) -> pl.DataFrame:
    """One row per kernel: calls; median, σ of time and throughput; median % of roof."""
    import polars as pl

    def spread(c: pl.Expr) -> pl.Expr:
        return MAD_TO_SIGMA * (c - c.median()).abs().median()

    t, r = pl.col("time"), pl.col("throughput")
    return _calls(table, normalize, pair_calls).group_by(
        "name", "series", "pair", maintain_order=True).agg(
        calls=pl.len(),
        time=pl.when(t.null_count() == 0).then(t.median()),
        time_sigma=spread(t),
        thr=pl.when((r.null_count() == 0) & (pl.col("rate").n_unique() == 1)).then(
            r.median()),
        thr_sigma=spread(r), rate=pl.col("rate").first(), pct=pl.col("pct").median())


def _verdicts(joined: pl.DataFrame, floor: pl.Expr, confidence: float) -> pl.DataFrame:
    """The :data:`COLUMNS` table of ``joined``, verdicts by the module docstring's model.

    ``joined``: each run's :func:`_per_kernel` rows, the new run's with suffix ``_new``,
    full-joined on the key. A kernel in one run only is ``only in baseline``/``only in
    new``. In both: compared by median time per call where both are > 0, else by median
    throughput where both are > 0 in one unit, else not judged. Slowdown ``new/base - 1``
    (time) or ``base/new - 1`` (throughput); relative noise σ/median per run (a one-call run
    borrows the other's); se = 1.2533 · √(rel_b²/n_b + rel_n²/n_n); allowed = max(floor,
    t_q(min n > 1, - 1) · se), or the floor alone with one call each; regressed when the
    slowdown, or the drop of median % of roof, is above allowed. ``floor``: one value for
    all kernels, or a literal Series of each kernel's floor in ``joined``'s row order.
    """
    import polars as pl

    c = pl.col
    def positive(col: str) -> pl.Expr:  # NaN is not > 0 (polars orders NaN above all)
        return ((c(col) > 0) & c(col).is_not_nan()).fill_null(False)

    def above(x: pl.Expr, y: pl.Expr) -> pl.Expr:  # x > y, False for a NaN or null
        return ((x > y) & x.is_not_nan() & y.is_not_nan()).fill_null(False)

    both = c("calls").is_not_null() & c("calls_new").is_not_null()
    by_time = both & positive("time") & positive("time_new")
    by_rate = (both & ~by_time & positive("thr") & positive("thr_new")
               & c("rate").cast(pl.String).eq_missing(c("rate_new").cast(pl.String)))
    judged = by_time | by_rate
    mb = pl.when(by_time).then(c("time")).otherwise(c("thr"))
    mn = pl.when(by_time).then(c("time_new")).otherwise(c("thr_new"))
    sb = pl.when(by_time).then(c("time_sigma")).otherwise(c("thr_sigma")).fill_null(0.0)
    sn = pl.when(by_time).then(c("time_sigma_new")).otherwise(c("thr_sigma_new")).fill_null(0.0)
    nb, nn = c("calls"), c("calls_new")
    one_each = (nb == 1) & (nn == 1)
    own_b, own_n = sb / mb, sn / mn
    rel_b = pl.when(~one_each & (nb == 1)).then(own_n).otherwise(own_b)
    rel_n = pl.when(~one_each & (nb != 1) & (nn == 1)).then(own_b).otherwise(own_n)
    se = pl.when(~one_each).then(
        MEDIAN_SE * (rel_b ** 2 / nb + rel_n ** 2 / nn).sqrt())
    df = (pl.when((nb > 1) & (nn > 1)).then(pl.min_horizontal(nb, nn))
          .when(nb > 1).then(nb).otherwise(nn) - 1)
    frame = joined.with_columns(
        _judged=judged, _slowdown=pl.when(by_time).then(mn / mb - 1).otherwise(mb / mn - 1),
        _rel_b=rel_b, _rel_n=rel_n, _se=se, _df=pl.when(judged & ~one_each).then(df),
        _floor=floor)
    dfs = frame["_df"].drop_nulls().unique().to_list()
    quantiles = {d: t_quantile(confidence, d) for d in dfs}  # few distinct call counts
    frame = frame.with_columns(_q=c("_df").replace_strict(
        list(quantiles), list(quantiles.values()), default=None, return_dtype=pl.Float64))
    spread = c("_q") * c("_se")
    allowed = pl.when(above(spread, c("_floor"))).then(spread).otherwise(c("_floor"))
    pct_ok = ((c("pct") != 0) & (c("pct_new") != 0)).fill_null(False)
    drop = pl.when(pct_ok).then(1 - c("pct_new") / c("pct"))
    frame = frame.with_columns(_allowed=pl.when(c("_judged")).then(allowed),
                               _drop=pl.when(c("_judged")).then(drop))
    worse = above(c("_slowdown"), c("_allowed")) | above(c("_drop"), c("_allowed"))
    compared = (pl.when(by_time).then(pl.lit(TIME)).when(by_rate).then(c("rate").cast(pl.String))
                .otherwise(pl.lit(None, pl.String)))
    names = set(joined.columns)

    def either(col: str) -> pl.Expr:
        own = c(col).cast(pl.String)
        return (own if f"{col}_new" not in names
                else own.fill_null(c(f"{col}_new").cast(pl.String))).fill_null("")

    note = (pl.when(~both).then(pl.lit(None, pl.String))
            .when(~c("_judged")).then(pl.lit("no times, nor throughputs of one unit, in both runs"))
            .when(one_each).then(pl.lit(FLOOR_ONLY))
            .when(nb == 1).then(pl.lit("baseline's noise from new's calls (one call)"))
            .when(nn == 1).then(pl.lit("new's noise from baseline's calls (one call)")))
    status = (pl.when(c("calls").is_null()).then(pl.lit(ONLY_NEW))
              .when(c("calls_new").is_null()).then(pl.lit(ONLY_BASELINE))
              .when(~c("_judged")).then(pl.lit(NOT_JUDGED))
              .when(worse).then(pl.lit(REGRESSED)).otherwise(pl.lit(OK)))
    shown_rate = compared.is_not_null() & (compared != TIME)
    return frame.select(
        kernel=c("name").cast(pl.String), series=either("series"), pair=either("pair"),
        status=status, compared=compared,
        calls_baseline=c("calls").fill_null(0).cast(pl.Int64),
        calls_new=c("calls_new").fill_null(0).cast(pl.Int64),
        time_s_baseline=c("time").cast(pl.Float64), time_s_new=c("time_new").cast(pl.Float64),
        throughput_baseline=pl.when(shown_rate).then(c("thr")).cast(pl.Float64),
        throughput_new=pl.when(shown_rate).then(c("thr_new")).cast(pl.Float64),
        slowdown_pct=pl.when(c("_judged")).then(c("_slowdown") * 100),
        pct_of_roof_baseline=c("pct").cast(pl.Float64),
        pct_of_roof_new=c("pct_new").cast(pl.Float64),
        roof_drop_pct=pl.when(c("_judged")).then(c("_drop") * 100),
        noise_pct_baseline=pl.when(c("_judged")).then(c("_rel_b") * 100),
        noise_pct_new=pl.when(c("_judged")).then(c("_rel_n") * 100),
        se_pct=pl.when(c("_judged")).then(c("_se") * 100),
        quantile=pl.when(c("_judged")).then(c("_q")),
        allowed_pct=c("_allowed") * 100, note=note)


def check_runs(baseline: pl.DataFrame, new: pl.DataFrame, *,
               max_slowdown: float = DEFAULT_MAX_SLOWDOWN,
               confidence: float = DEFAULT_CONFIDENCE, normalize: bool = False,
               pair_calls: bool = False,
               overrides: Mapping[str, float] | None = None) -> CheckResult:
    """Judge ``new`` against ``baseline`` (analysis tables of one preset; module docstring).

    Args:
        baseline: the reference run, an :func:`rooflow.analysis.analyze` table of one row
            per call and level (``kernel_headroom`` and ``time_s`` or ``performance``
            needed).
        new: the run judged, the same way.
        max_slowdown: the floor of the tolerance (0.05: 5 %).
        confidence: one-sided level of the noise bound (0.999: a slowdown of pure noise
            passes 99.9 % of the time, beyond the floor).
        normalize: match kernels without template arguments and parameter lists.
        pair_calls: match each call to the call of the same name and order.
        overrides: regular expression (searched in the kernel name, case-insensitive) →
            that kernel's floor instead of ``max_slowdown``; the first match wins.
    """
    import re

    import polars as pl

    base = _per_kernel(baseline, normalize, pair_calls)
    other = _per_kernel(new, normalize, pair_calls)
    key = ["name"] + [c for c in ("series", "pair") if base.select(pl.col(c).is_in(
        other[c].unique().implode(), nulls_equal=True).any()).item()]  # a value in both
    joined = base.join(other, on=key, how="full", coalesce=True, suffix="_new",
                       maintain_order="left_right")
    patterns = [(re.compile(p, re.IGNORECASE), v) for p, v in (overrides or {}).items()]
    # Column expressions over every kernel at once (_verdicts): a Python dict per kernel
    # held 10⁷ kernels' rows in Python objects (bench/NOTES.md).
    floor = pl.lit(max_slowdown, pl.Float64)
    if patterns:
        floor = pl.lit(pl.Series([next((v for p, v in patterns if p.search(name)), max_slowdown)
                                  for name in joined["name"]], dtype=pl.Float64))
    table = _verdicts(joined, floor, confidence)
    # Regressions first (worst slowdown first), then the rest in the baseline's order.
    table = table.with_row_index("_i").sort(
        [pl.col("status") != REGRESSED, pl.col("slowdown_pct").neg(), "_i"],
        nulls_last=True).drop("_i")
    return CheckResult(table=table, max_slowdown=max_slowdown, confidence=confidence)


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


def parse_confidence(text: str) -> float:
    """``99.9%`` or ``0.999`` → the one-sided level of the noise bound, 0.5 < level < 1.

    Raises:
        ValueError: not a percentage or fraction, or outside (50 %, 100 %), said in words.
    """
    try:
        level = parse_fraction(text)
    except ValueError:
        raise ValueError(f"'{text}' is not a percentage (5%) or a fraction (0.05)") from None
    if not 0.5 < level < 1:
        raise ValueError(f"'{text}' is not between 50% and 100%")
    return level


def _md(text: object) -> str:
    """Text as a Markdown cell, control characters visible (a CI log shows the file raw)."""
    return markdown_cell(terminal_text(text))


def markdown(result: CheckResult, title: str) -> str:
    """A Markdown summary for a CI job page: the verdict, then every kernel.

    Every cell holds text (``n/a`` where a run has no value); names are escaped
    (:func:`rooflow.escape.markdown_cell`, control characters by
    :func:`rooflow.escape.terminal_text`), so none becomes markup.
    """
    head = ["kernel", "series", "pair", "status", "compared", "calls", "base -> new",
            "slowdown", "% of roof", "noise", "allowed", "note"]
    lines = [f"## {_md(title)}", "", _md(result.summary()), "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def f(value, fmt: str, unit: str = "") -> str:
        return "n/a" if value is None else format(value, fmt) + unit

    for r in result.table.iter_rows(named=True):
        if r["compared"] == TIME:
            values = (f"{f(r['time_s_baseline'] * 1e3, '.4g')} -> "
                      f"{f(r['time_s_new'] * 1e3, '.4g')} ms")
        elif r["compared"]:
            values = (f"{f(r['throughput_baseline'], '.4g')} -> "
                      f"{f(r['throughput_new'], '.4g')} {r['compared']}")
        else:
            values = "n/a"
        roof = f"{f(r['pct_of_roof_baseline'], '.3g')} -> {f(r['pct_of_roof_new'], '.3g')}"
        noise = (f"{f(r['noise_pct_baseline'], '.1f', ' %')} / "
                 f"{f(r['noise_pct_new'], '.1f', ' %')}")
        status = f"**{r['status']}**" if r["status"] == REGRESSED else r["status"]
        cells = [_md(r["kernel"]), _md(r["series"] or "n/a"),
                 _md(r["pair"] or "none"), status, r["compared"] or "n/a",
                 f"{r['calls_baseline']} / {r['calls_new']}", values,
                 f(r["slowdown_pct"], "+.1f", " %"), roof, noise,
                 f(r["allowed_pct"], ".1f", " %"), _md(r["note"] or "-")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def junit(result: CheckResult, suite: str) -> str:
    """JUnit XML: one test case per kernel, classname ``<suite>.<series>``.

    The test case's name is the kernel's, with its pair where it has one. A regression is
    a failure; kernels of one run only and kernels not judged are skipped, with the
    reason. Every name is XML-safe (:func:`rooflow.escape.xml_text`).
    """
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites")
    node = ET.SubElement(root, "testsuite", name=xml_text(suite),
                         tests=str(result.table.height),
                         failures=str(result.count(REGRESSED)),
                         skipped=str(result.table.height - result.judged))
    for r in result.table.iter_rows(named=True):
        name = r["kernel"] + (f" (pair {r['pair']})" if r["pair"] else "")
        time = r["time_s_new"] if r["compared"] == TIME else None
        case = ET.SubElement(node, "testcase", classname=xml_text(f"{suite}.{r['series']}"),
                             name=xml_text(name), time=f"{time or 0:.9f}")
        if r["status"] == REGRESSED:
            ET.SubElement(case, "failure", message=xml_text(_line(r)), type="regression")
        elif r["status"] != OK:
            reason = r["status"] + (f": {r['note']}" if r["note"] else "")
            ET.SubElement(case, "skipped", message=xml_text(reason))
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write(text: str, path: str | Path) -> None:
    """Write ``text`` to ``path`` atomically."""
    from rooflow.io import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
