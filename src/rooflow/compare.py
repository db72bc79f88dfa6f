"""Run-to-run comparison: two analysis tables of the same kernels on one preset.

Matching: rows are matched on the kernel name (optionally normalized by
:func:`normalize_name`), the memory level, the series when the two runs share a series
name (profilers name the series after the tool, so an ncu run and a rocprof run match
across series), and the occurrence number of that key in its run (the 2nd launch of a
name matches the 2nd). Rows of one run only are kept with status ``only in baseline`` /
``only in new``: listed in the table, greyed on the plots, never dropped.

Per matched row (columns out, ``_baseline``/``_new`` suffixes for each run's values):

- speedup = performance_new / performance_baseline (FLOP/s or OP/s; achieved byte/s for
  bandwidth-only rows); none when either point is theoretical (placed on the roof, not
  measured)
- intensity_change = arithmetic_intensity_new / arithmetic_intensity_baseline
- time_saved_s = time_s_baseline − time_s_new (s; none unless both times are known)
- pct_of_roof_baseline / _new: % of the attainable performance (analysis table)

Geometric-mean speedup = exp(mean(ln speedup)) over the matched kernels with a speedup,
each kernel counted once (its first level in the baseline's order: a kernel's FLOP/s is
the same at every level).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import polars as pl

from rooflow.levels import canonical_level

ONLY_BASELINE, ONLY_NEW, MATCHED = "only in baseline", "only in new", "matched"


def only_label(status: str, total: int, drawn: int) -> str:
    """Legend words for the rows of one run only (``status``): "only in new (22, 14 drawn)".

    The PNG's and the page's. Rows with no place on a roofline (bandwidth-only, or
    theoretical without a roof: no intensity or performance) are counted, not drawn.
    """
    return f"{status} ({total})" if drawn == total else f"{status} ({total}, {drawn} drawn)"


_SIDE = ["kernel", "label", "series", "precision", "arithmetic_intensity", "performance",
         "attainable", "pct_of_roof", "bound", "time_s", "theoretical"]
_OPTIONAL = {"bandwidth_only": False, "achieved_bandwidth": None}
_GROUPS = re.compile(r"<[^<>]*>|\([^()]*\)|\[[^\[\]]*\]")


def normalize_name(name: str) -> str:
    """A kernel name without template arguments, parameter lists or launch parameters.

    ``void gemm<float, 128>(float*, int) [grid 8]`` → ``gemm``. Nested brackets are
    removed innermost first; a leading ``void`` return type is dropped. Names that
    would become empty are kept as given.
    """
    out, prev = name, None
    while out != prev:
        prev, out = out, _GROUPS.sub("", out)
    out = re.sub(r"^\s*void\s+", "", out)
    out = " ".join(out.split())
    return out or name


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare_tables`.

    Attributes:
        table: one row per matched pair or unmatched row (see the module docstring).
        geomean_speedup: geometric-mean speedup over matched kernels, None when none has one.
        kernels: matched kernels counted in the geometric mean.
        only_baseline / only_new: rows of one run only.
    """

    table: pl.DataFrame
    geomean_speedup: float | None
    kernels: int
    only_baseline: int
    only_new: int

    def summary(self) -> str:
        """One line: geometric-mean speedup and the unmatched counts."""
        gm = "no speedup (no matched measured kernel)" if self.geomean_speedup is None else \
            f"geometric-mean speedup {self.geomean_speedup:.3g}× over {self.kernels} kernels"
        return (f"{gm}; {self.only_baseline} rows only in baseline, "
                f"{self.only_new} only in new")


def geomean(values: list[float]) -> float | None:
    """exp(mean(ln v)) over the positive finite ``values``; None when there is none."""
    logs = [math.log(v) for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(logs) / len(logs)) if logs else None


def _side(table: pl.DataFrame, normalize: bool) -> pl.DataFrame:
    names = table["kernel"].fill_null("").unique().to_list()
    mapping = {n: (normalize_name(n) if normalize else n) for n in names}
    # Tables written before the level vocabulary may say HBM where the other says DRAM.
    levels = {lv: canonical_level(lv) or lv
              for lv in table["level"].cast(pl.String).unique().drop_nulls().to_list()}
    extra = [pl.lit(v).alias(c) for c, v in _OPTIONAL.items() if c not in table.columns]
    return (table.with_columns(*extra)
            .with_columns(name=pl.col("kernel").fill_null("").replace_strict(mapping),
                          level=pl.col("level").cast(pl.String).replace(levels),
                          label=pl.col("label").fill_null(""), _order=pl.int_range(pl.len())))


def compare_tables(baseline: pl.DataFrame, new: pl.DataFrame, *,
                   normalize: bool = False) -> Comparison:
    """Match two analysis tables (:func:`rooflow.analysis.analyze`, same preset) row by row.

    Args:
        baseline: the reference run.
        new: the run compared with it.
        normalize: match on :func:`normalize_name` of the kernel names.

    Returns:
        A :class:`Comparison`; its table's columns are ``status``, ``name``, ``level``,
        then each of kernel, label, series, precision, arithmetic_intensity (FLOP/byte),
        performance (FLOP/s), attainable, pct_of_roof (%), bound, time_s (s),
        theoretical with ``_baseline``/``_new`` suffixes, and speedup, intensity_change,
        time_saved_s (s).
    """
    base, other = _side(baseline, normalize), _side(new, normalize)
    shared_series = set(base["series"]) & set(other["series"])
    key = ["name", "level"] + (["series_key"] if shared_series else [])
    sides = []
    for frame, suffix in ((base, "_baseline"), (other, "_new")):
        frame = frame.with_columns(series_key=pl.col("series"))
        frame = frame.with_columns(_occ=pl.int_range(pl.len()).over(key))
        keep = _SIDE + list(_OPTIONAL) + ["_order"]
        sides.append(frame.select(key + ["_occ"] + [pl.col(c).alias(c + suffix) for c in keep]))
    joined = sides[0].join(sides[1], on=key + ["_occ"], how="full", coalesce=True,
                           maintain_order="left_right")
    has_b, has_n = pl.col("_order_baseline").is_not_null(), pl.col("_order_new").is_not_null()
    bw = pl.col("bandwidth_only_baseline") & pl.col("bandwidth_only_new")
    rate = {s: pl.when(bw).then(pl.col(f"achieved_bandwidth{s}"))
            .otherwise(pl.col(f"performance{s}")) for s in ("_baseline", "_new")}
    theoretical = pl.col("theoretical_baseline") | pl.col("theoretical_new")
    table = joined.with_columns(
        status=pl.when(has_b & has_n).then(pl.lit(MATCHED))
        .when(has_b).then(pl.lit(ONLY_BASELINE)).otherwise(pl.lit(ONLY_NEW)),
        speedup=pl.when(theoretical.fill_null(True)).then(None)
        .otherwise(rate["_new"] / rate["_baseline"]),
        intensity_change=pl.col("arithmetic_intensity_new")
        / pl.col("arithmetic_intensity_baseline"),
        time_saved_s=pl.col("time_s_baseline") - pl.col("time_s_new"),
    )
    # Matched rows in the baseline's order, then baseline-only, then new-only rows.
    table = table.sort(
        pl.col("status").replace_strict({MATCHED: 0, ONLY_BASELINE: 1, ONLY_NEW: 2}),
        pl.coalesce("_order_baseline", "_order_new"))
    matched = table.filter(pl.col("status") == MATCHED)
    per_kernel = matched.unique([k for k in key if k != "level"] + ["_occ"], keep="first",
                                maintain_order=True)
    speedups = per_kernel["speedup"].drop_nulls().to_list()
    columns = ["status", "name", "level"] + [f"{c}{s}" for c in _SIDE
                                             for s in ("_baseline", "_new")]
    return Comparison(
        table=table.select(columns + ["speedup", "intensity_change", "time_saved_s"]),
        geomean_speedup=geomean(speedups),
        kernels=len([v for v in speedups if v > 0 and math.isfinite(v)]),
        only_baseline=table.filter(pl.col("status") == ONLY_BASELINE).height,
        only_new=table.filter(pl.col("status") == ONLY_NEW).height,
    )
