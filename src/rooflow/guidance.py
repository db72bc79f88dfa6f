"""Guidance per kernel: what limits it, what limits it next, how far, and how it reuses data.

Intel Advisor's GPU Roofline Guidance and Memory Metrics give, per kernel, the limiting
roof (the one closest to the kernel's dot), the speedup to reach it and the traffic
between memory levels (Intel Advisor User Guide, "Examine Bottlenecks on GPU Roofline
Chart" and "Examine Kernel Details"). rooflow gives the same from any vendor's data, on
the rows of an analysis table (:func:`rooflow.analysis.analyze`), per kernel
(:data:`rooflow.analysis.KERNEL_KEY`), in time (a roof's time = the work it carries / its
rate, Williams et al., CACM 2009; per level as in Yang et al., CCPE 2020):

- roof times: compute = FLOP / the kernel's compute roof (the row's ``compute_roof``:
  its precision, counted as the roofs are counted, at the clock it ran at); each memory
  level with a roof = bytes at that level / that level's roof (``memory_roof``); launch =
  launches × the preset's launch overhead (one launch where not known; none without one)
- ``limiter``: the roof of the longest time, the closest roof: a compute roof's name
  (``fp64``, ``fp32 per instruction``), a memory level (``DRAM``, ``L2``), or ``launch``
- ``next_limiter``: the roof of the second-longest time, the one left once the limiter
  is lifted (null with one roof)
- ``speedup_to_roof`` = time / the limiter's time (×): how much faster at the roof. For
  a kernel under no launch floor, its kernel headroom. Null without a measured time.
- ``traffic_ratio_<UPPER>_<LOWER>`` = bytes at UPPER / bytes at LOWER, for each pair of
  adjacent cache levels present in the table (L1, L2, L3, DRAM, nearest the cores first;
  LDS/SLM is a scratchpad, not a cache in that chain, and has no ratio): the reuse that
  the upper level's cache gives (Advisor's Memory Metrics' traffic between levels)
- ``pattern`` (thresholds: :data:`SAME`): ``compute`` when a compute roof limits;
  otherwise judged on the ratio r across the limiting level (its upper neighbour's bytes
  / its bytes): ``streaming`` when 1 / 1.25 ≤ r ≤ 1.25 (about equal traffic: no reuse),
  ``cache-reuse`` when r > 1.25, ``cache-thrash`` when r < 1 / 1.25 (more traffic at
  the lower level than at the upper: lines fetched and evicted before use). Null when the
  launch floor limits or the limiting level has no upper neighbour with bytes.

A kernel whose precision has no compute roof on the preset gets no guidance (it is not
judged, :func:`rooflow.analysis.no_compute_roof`).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

CHAIN = ["L1", "L2", "L3", "DRAM"]
"""The cache levels, nearest the cores first, between which traffic ratios are taken."""

SAME = 1.25
"""Traffic "about equal" across a level: within ×1.25 either way. rooflow's threshold:
a pure stream's L2 and DRAM bytes differ by 0.3 % on the shipped A100 ncu sample
(stream_triad, 3.240 vs 3.231 GB); 25 % leaves room for sector over-fetch and write
allocation, while a cache that serves every line twice (r = 2) is clearly reuse."""

COLUMNS = ["limiter", "next_limiter", "speedup_to_roof", "pattern"]
"""The guidance columns of the analysis table (besides the traffic ratios)."""

LAUNCH = "launch"
COMPUTE, STREAMING, REUSE, THRASH = "compute", "streaming", "cache-reuse", "cache-thrash"


def ratio_columns(levels: Sequence[str]) -> list[str]:
    """``traffic_ratio_<UPPER>_<LOWER>`` for the adjacent :data:`CHAIN` levels in ``levels``."""
    present = [lv for lv in CHAIN if lv in levels]
    return [f"traffic_ratio_{a}_{b}" for a, b in zip(present, present[1:], strict=False)]


def add_guidance(frame: pl.LazyFrame, levels: Sequence[str],
                 launch_overhead_s: float | None, key: Sequence[str]) -> pl.LazyFrame:
    """``frame`` (analysis rows with roofs) with :data:`COLUMNS` and the traffic ratios.

    ``levels``: the levels of the table (:func:`ratio_columns`); ``key``: the columns that
    name a kernel (:data:`rooflow.analysis.KERNEL_KEY`). Needs those and level, flop,
    bytes, time_s, launches, theoretical, bandwidth_only, compute_roof_name, compute_roof,
    memory_roof.
    """
    present = list(dict.fromkeys(lv for lv in levels if lv))
    # One row per kernel: its roofs' times and its bytes per level (one row per level),
    # from one group_by; the limiters are then picked across columns, not by sorting rows.
    # Collected once: the group_by and the join below would each run the whole plan above.
    frame = frame.with_columns(_gk=pl.struct(key).hash()).collect().lazy()
    at = {lv: pl.col("level") == lv for lv in present}
    per = frame.group_by("_gk").agg(
        # Masked columns and max(): group_by's fast path (filter().first() runs group by group).
        *[pl.when(at[lv]).then(pl.col("bytes")).max().alias(f"_b_{lv}") for lv in present],
        *[pl.when(at[lv]).then(pl.col("bytes") / pl.col("memory_roof")).max()
          .alias(f"_t_{lv}") for lv in present],
        _judged=(pl.col("bandwidth_only") | pl.col("compute_roof").is_not_null()).first(),
        _bw=pl.col("bandwidth_only").first(),
        _cn=pl.col("compute_roof_name").first().cast(pl.String),
        _ct=(pl.col("flop") / pl.col("compute_roof")).first(),
        _n=pl.col("launches").first(), _time=pl.col("time_s").first(),
        _theo=pl.col("theoretical").first(),
    )
    candidates: list[tuple[pl.Expr, pl.Expr]] = [
        (pl.col("_cn"), pl.when(~pl.col("_bw")).then(pl.col("_ct")))]
    candidates += [(pl.lit(lv), pl.col(f"_t_{lv}")) for lv in present]
    if launch_overhead_s:
        candidates.append((pl.lit(LAUNCH), pl.col("_n").fill_null(1).cast(pl.Float64)
                           * launch_overhead_s))
    times = [pl.when(pl.col("_judged")).then(t) for _, t in candidates]
    limiter, following = _nth(candidates, times, 0), _nth(candidates, times, 1)
    ratios = ratio_columns(present)
    absent = [pl.lit(None, pl.Float64).alias(f"_b_{lv}") for lv in CHAIN if lv not in present]
    per = per.with_columns(
        *absent, limiter=limiter, next_limiter=following, _roof_t=pl.max_horizontal(times),
        **{c: pl.col(f"_b_{c.split('_')[2]}") / pl.col(f"_b_{c.split('_')[3]}")
           for c in ratios})
    per = per.select(
        "_gk", "limiter", "next_limiter", *ratios, pattern=_pattern(present),
        speedup_to_roof=pl.when(~pl.col("_theo")).then(pl.col("_time") / pl.col("_roof_t")))
    return frame.join(per, on="_gk", how="left", maintain_order="left").drop("_gk")


def _nth(candidates: Sequence[tuple[pl.Expr, pl.Expr]], times: Sequence[pl.Expr],
         n: int) -> pl.Expr:
    """The name of the candidate with the ``n``-th longest time (0: longest), or null.

    A candidate's place is the count of the others ahead of it (longer, or as long and
    listed first: compute before memory levels before launch); one without a time has none.
    """
    out = pl.lit(None, pl.String)
    for i, (name, _) in enumerate(candidates):
        t = times[i]
        ahead = pl.sum_horizontal([
            (other > t) | ((other == t) & pl.lit(j < i)) for j, other in enumerate(times)
            if j != i] or [pl.lit(False)])
        out = pl.when(times[i].is_not_null() & (ahead.fill_null(0) == n)).then(name).otherwise(out)
    return out


def _pattern(levels: Sequence[str]) -> pl.Expr:
    """:data:`COLUMNS` ``pattern`` from ``limiter`` and the ``_b_<level>`` bytes.

    ``levels``: the memory levels a limiter may be (any other name is a compute roof).
    """
    across = pl.lit(None, pl.Float64)
    for i, lower in enumerate(CHAIN[1:], 1):
        # The nearest level above the limiter that has bytes (L1 above DRAM without L2/L3).
        above = pl.coalesce(*(pl.col(f"_b_{lv}") for lv in reversed(CHAIN[:i])))
        across = (pl.when(pl.col("limiter") == lower).then(above / pl.col(f"_b_{lower}"))
                  .otherwise(across))
    return (pl.when(pl.col("limiter").is_null() | (pl.col("limiter") == LAUNCH)).then(None)
            .when(~pl.col("limiter").is_in([*CHAIN, *levels])).then(pl.lit(COMPUTE))
            .when(across.is_null()).then(None)
            .when(across > SAME).then(pl.lit(REUSE))
            .when(across < 1 / SAME).then(pl.lit(THRASH))
            .otherwise(pl.lit(STREAMING)))


def sentence(r: dict) -> str:
    """One sentence of guidance for a kernel row (the analysis columns, as a dict).

    E.g. "DRAM-bound streaming kernel: no reuse between L2 and DRAM; at the DRAM roof
    1.47× faster; then the L2 roof". Empty when the kernel has no limiter.
    """
    limiter, pattern = r.get("limiter"), r.get("pattern") or ""
    if not limiter:
        return ""
    memory_pattern = pattern in (STREAMING, REUSE, THRASH)
    head = f"{limiter}-bound {pattern} kernel" if memory_pattern else f"{limiter}-bound kernel"
    ratio = _ratio_across(r) if memory_pattern else None
    if ratio is not None:
        upper, lower, value = ratio
        if pattern == STREAMING:
            head += f": no reuse between {upper} and {lower}"
        elif pattern == REUSE:
            head += f": {value:.3g}× more traffic at {upper} than at {lower}"
        elif value > 0:
            head += f": {1 / value:.3g}× more traffic at {lower} than at {upper}"
    parts = [head]
    speed = r.get("speedup_to_roof")
    roof = "launch floor" if limiter == LAUNCH else f"{limiter} roof"
    if speed is not None:
        parts.append(f"at the {roof} {speed:.3g}× faster")
    nxt = r.get("next_limiter")
    if nxt:
        parts.append("then the launch floor" if nxt == LAUNCH else f"then the {nxt} roof")
    return "; ".join(parts)


def _ratio_across(r: dict) -> tuple[str, str, float] | None:
    """(upper, lower, upper bytes / lower bytes) across the limiting level, from the ratios."""
    limiter = r.get("limiter")
    if limiter not in CHAIN:
        return None
    for key, value in r.items():
        parts = key.split("_")
        if key.startswith("traffic_ratio_") and parts[3] == limiter and value is not None:
            return parts[2], parts[3], value
    return None
