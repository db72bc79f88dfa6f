"""Roofline analysis of canonical points against one preset.

Formulas (Williams et al., CACM 2009; hierarchical form: Yang et al., "Hierarchical
Roofline Analysis for GPUs", CCPE 2020):

- attainable(level) = min(compute roof of the point's own precision, AI_level × memory
  roof_level). FLOP read from hardware counters (:data:`COUNTED`) meet the precision's
  per-instruction roof where the preset has one (AMD fp32, where a packed instruction
  counts once: :data:`rooflow.roofs.preset.PER_INSTRUCTION`), other FLOP its datasheet
  roof; ``compute_roof_name`` says which. A preset without a roof for that precision
  leaves the point unjudged: no attainable, bound, % of roof, headroom or time saved
  (``roof_note`` says which roof is missing; :func:`no_compute_roof` selects such rows),
  never a memory ceiling or another unit's roof standing in
- bound(level) = memory if AI_level × memory roof < compute roof, else compute
- % of roof = achieved / attainable × 100
- headroom = attainable / achieved ("can run up to N× faster at the same intensity")
- bandwidth-only rows (measured bytes and time, no operations): achieved bandwidth =
  bytes / time, % of the memory roof, headroom = memory roof / achieved bandwidth
- binding level of a kernel = the level with the least headroom (for a FLOP kernel the
  level with the lowest attainable performance); the kernel is bound by that level's
  memory, or by compute
- compute roofs at the clock the kernel ran at (:attr:`Preset.roofs_at` "clock", the
  default; the CLI's ``--roofs-at``, config ``roofs_at``): a
  point with a clock (``clock_hz``) on a preset with one (:attr:`Preset.roof_clock_hz`,
  the boost clock its peaks are at) is judged against compute roof × clock_hz /
  roof clock, since a peak is units × operations per clock × clock (A100 fp64 9.7
  TFLOP/s at 1,410 MHz is 7.533 TFLOP/s at 1,095 MHz); ``roof_clock_hz`` is the clock
  the row's compute roofs are at. ``roofs_at`` "datasheet", a point without a clock or
  a preset without one, or a point measured on another GPU
  (:func:`rooflow.clocks.own_gpu`): the preset's roofs (``roof_note`` says why, for a
  point that has a clock). Likewise the DRAM roof × memory_clock_hz / the preset's
  memory clock (:attr:`Preset.memory_clock_hz`) and the L2 roof × l2_clock_hz / its L2
  clock (:attr:`Preset.l2_clock_hz`), only where both are known; other cache roofs
  are not scaled, but a level the SM clocks (:attr:`Preset.sm_clock_levels`: an ncu
  export's L1) is, as the compute roofs are. An ncu export's own peaks are at the clocks
  of the launch they were read from (:mod:`rooflow.roofs.ncu`), so every other launch is
  judged at its own clocks. :func:`rooflow.clocks.clock_note` says at which clocks a plot's
  roofs are drawn.
- potential time saved = time − max(time / kernel headroom, launches × launch overhead)
  (0 when that is negative; none for a kernel above its roof: a finding about peaks,
  units or clocks, not a rank): a call is never assumed faster than the preset's launch
  overhead (:attr:`Preset.launch_overhead_s`; no floor on a preset without one;
  ``launches`` null counts as one). Without the floor it is time × (1 − 1 / headroom).
- pair speedup = performance of the pair's Optimized (else last) point /
  performance of its Original (else first) point, per memory level

A theoretical point (no measured performance) is placed on the roof: its
performance is the attainable value, so its % of roof is 100 and headroom 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from rooflow.clocks import own_gpu
from rooflow.guidance import COLUMNS as GUIDANCE
from rooflow.guidance import add_guidance, ratio_columns
from rooflow.points import PER_CALL_SCHEMA, distinct, has_per_call, op_unit
from rooflow.roofs.preset import Preset

# Per-row names (roofs, bound, note, unit) are Categoricals: a few values on up to 10⁷ rows.
_CAT = pl.Categorical()


def _cat(text: str) -> pl.Expr:
    return pl.lit(text, dtype=_CAT)


NO_PRECISION = "precision not given"
"""``roof_note`` of a point without a precision: no compute roof is assumed for it (it is
not judged, :func:`no_compute_roof`), said in the table, the plot legend and the summary."""

KERNEL_KEY = ["source", "row", "kernel", "series", "pair", "label"]

COUNTED = pl.col("bytes_model") == "measured"
"""Rows whose FLOP were read from hardware counters: a profiler's points (ncu, rocprof-compute,
rocprof, rocprofv3, unitrace) have measured bytes and counted operations alike; specs,
benchmarks, traces and roofline CSVs count FLOP from a model (``bytes_model`` family,
given, inputs-only, operator)."""

INPUTS_ONLY_NOTE = "bytes of the inputs only (a lower bound): intensity is an upper bound"
"""``roof_note`` of a point whose bytes are ``bytes_model`` inputs-only: a spec variant
without a family model or ``bytes`` formula counts its input tensors once, not its outputs
or weights, so the traffic is at least that and the point lies at most that far right."""

TABLE_COLUMNS = [
    "series", "family", "label", "pair", "kernel", "dims", "level", "precision",
    "precision_mix", "unit", "flop", "bytes", "time_s", "arithmetic_intensity", "performance",
    "theoretical",
    "bandwidth_only", "compute_roof_name", "compute_roof", "memory_roof_name", "memory_roof",
    "attainable", "bound", "pct_of_roof", "achieved_bandwidth", "pct_of_memory_roof",
    "headroom", "above_roof", "roof_note", "binding", "kernel_bound", "kernel_headroom",
    "potential_time_saved_s", "limiter", "next_limiter", "speedup_to_roof", "pattern",
    "pair_speedup", "bytes_model", "device", "source", "row",
    "launches", "clock_hz", "roof_clock_hz", "memory_clock_hz", "l2_clock_hz",
]  # fmt: skip





KERNEL_COLUMNS = ["binding", "kernel_bound", "kernel_headroom", "potential_time_saved_s"]
"""Per-kernel columns: computed only when asked for (windows over every kernel)."""


def analyze(
    points: pl.DataFrame, preset: Preset, columns: Sequence[str] = TABLE_COLUMNS
) -> pl.DataFrame:
    """Attainable performance, bound, % of roof and headroom per point.

    Args:
        points: canonical points (:mod:`rooflow.points`).
        preset: the hardware roofs (base units).
        columns: the table columns wanted, in order (default: all). A plot asks only for
            what it draws; the per-kernel (:data:`KERNEL_COLUMNS`) and ``pair_speedup``
            columns, the costly ones on 10⁶ rows, are computed only when asked for.

    Returns:
        One row per input row, columns ``columns`` (:data:`TABLE_COLUMNS` by default),
        and, where ``points`` carry them and ``columns`` has ``time_s``, the per-call
        columns (:data:`rooflow.points.PER_CALL_SCHEMA`: calls, time per call in s)
        after ``time_s``; where a guidance column (limiter, next_limiter, speedup_to_roof
        ×, pattern) is asked for, ``traffic_ratio_<UPPER>_<LOWER>`` for the levels
        present (:mod:`rooflow.guidance`).
        performance, compute_roof, attainable in FLOP/s (OP/s where ``unit`` is OP);
        memory_roof and achieved_bandwidth in byte/s; pct_of_roof, pct_of_memory_roof in
        %. Rows whose level has no memory roof on ``preset`` keep null roofs and analysis
        values (their kernel is judged on the levels the preset has); rows whose precision
        has no compute roof there (:func:`no_compute_roof`) keep null attainable, bound,
        pct_of_roof, headroom and per-kernel values, and a theoretical one no performance
        (there is no roof to place it on); ``roof_note`` says which roof is missing, and
        marks a point whose bytes are its inputs' only (:data:`INPUTS_ONLY_NOTE`).
        clock_hz (Hz) the clock the point ran at (null: not known); roof_clock_hz (Hz)
        the clock its compute roofs are at (null: the preset gives none);
        memory_clock_hz, l2_clock_hz and launches as the points' (null: not known).
        Compute roofs are at the clock each point ran at, or at the preset's, as
        :attr:`Preset.roofs_at` says (module doc).
    """
    if has_per_call(points) and "time_s" in columns:
        at = list(columns).index("time_s") + 1
        columns = [*columns[:at], *(c for c in PER_CALL_SCHEMA if c not in columns),
                   *columns[at:]]
    roofs_at = preset.roofs_at
    precisions = distinct(points, "precision").to_list()
    levels = distinct(points, "level").to_list()
    compute = {p: preset.compute_roof(p) for p in precisions}
    counted = {p: preset.compute_roof(p, counted=True) for p in precisions}
    memory = {lv: preset.memory_roof(lv) for lv in levels}
    memory_roofs = {lv: (m[1] if m else None) for lv, m in memory.items()}
    datasheet_roof = _by_flop_source(compute, counted, 1, pl.Float64())
    datasheet_clock = pl.lit(preset.roof_clock_hz, dtype=pl.Float64)
    clocked = points.select(pl.col("clock_hz").is_not_null().any()).item()
    # Only when some point has a clock: a column per row otherwise (10⁶ rows) for nothing.
    at_clock = roofs_at == "clock" and preset.roof_clock_hz is not None and clocked
    own = own_gpu(points, preset)
    # A peak is units × operations per clock × clock: at another clock, in proportion.
    roof_clock = (pl.coalesce(pl.when(own).then(pl.col("clock_hz")), datasheet_clock)
                  if at_clock else datasheet_clock)
    memory_roof = _memory_roof(points, preset, memory_roofs, own)
    frame = points.lazy().with_columns(
        unit=_per_value("precision", {p: op_unit(p) for p in precisions}, _CAT),
        compute_roof_name=_by_flop_source(compute, counted, 0, _CAT),
        compute_roof=(datasheet_roof * (roof_clock / preset.roof_clock_hz) if at_clock
                      else datasheet_roof),
        roof_clock_hz=roof_clock,
        memory_roof_name=_per_value(
            "level", {lv: (m[0] if m else None) for lv, m in memory.items()}, _CAT),
        memory_roof=(_per_value("level", memory_roofs, pl.Float64()) if memory_roof is None
                     else memory_roof),
        bandwidth_only=(pl.col("flop") == 0).fill_null(False),
        theoretical=pl.col("performance").is_null(),
        achieved_bandwidth=pl.col("bytes") / pl.col("time_s"),
    )
    memory_attainable = pl.col("arithmetic_intensity") * pl.col("memory_roof")
    # Without its compute roof a point is not judged: the memory roof alone would call an
    # HGEMM L1-bound, or an fp32 kernel 20× below an fp64-only preset's HBM ceiling.
    unjudged = pl.col("memory_roof").is_null() | pl.col("compute_roof").is_null()
    frame = frame.with_columns(
        attainable=pl.when(unjudged | pl.col("bandwidth_only"))
        .then(None)
        .otherwise(pl.min_horizontal("compute_roof", memory_attainable)),
        bound=pl.when(pl.col("memory_roof").is_null())
        .then(None)
        .when(pl.col("bandwidth_only"))
        .then(_cat("memory"))
        .when(pl.col("compute_roof").is_null())
        .then(None)
        .when(memory_attainable < pl.col("compute_roof"))
        .then(_cat("memory"))
        .otherwise(_cat("compute")),
        # Divided by the roof of each row: polars divides by one value (a literal roof) as
        # a product with its reciprocal, which can differ in the last bit.
        pct_of_memory_roof=pl.col("achieved_bandwidth") / (
            pl.col("level").replace_strict(memory_roofs, return_dtype=pl.Float64)
            if memory_roof is None else pl.col("memory_roof")) * 100,
        roof_note=_roof_note(preset, levels, precisions, _has_inputs_only(points),
                             _clock_notes(preset, clocked, own)),
    )
    frame = frame.with_columns(performance=pl.coalesce("performance", "attainable"))
    frame = frame.with_columns(
        pct_of_roof=pl.col("performance") / pl.col("attainable") * 100,
        headroom=pl.when(pl.col("bandwidth_only"))
        .then(pl.col("memory_roof") / pl.col("achieved_bandwidth"))
        .otherwise(pl.col("attainable") / pl.col("performance")),
    )
    frame = frame.with_columns(above_roof=(pl.col("headroom") < 1 - 1e-9).fill_null(False))
    if set(KERNEL_COLUMNS) & set(columns):
        frame = _kernel_level(frame, preset.launch_overhead_s)
    if "pair_speedup" in columns:
        frame = _pair_speedup(frame)
    if set(GUIDANCE) & set(columns):  # limiter, reuse pattern (rooflow.guidance)
        frame = add_guidance(frame, levels, preset.launch_overhead_s, KERNEL_KEY)
        columns = [*columns, *ratio_columns(levels)]
    return frame.select(columns).collect()


def _memory_roof(points: pl.DataFrame, preset: Preset, roofs: dict,
                 own: pl.Expr) -> pl.Expr | None:
    """Each row's memory roof (byte/s): its level's, at the clocks held where known.

    The DRAM roof × memory_clock_hz / the preset's DRAM clock on DRAM rows with a memory
    clock measured on the preset's GPU (``own``: :func:`rooflow.clocks.own_gpu`), judged
    at the clock held on a preset that gives its memory clock; the L2 roof × l2_clock_hz /
    the preset's L2 clock on L2 rows alike; a level the SM clocks
    (:attr:`Preset.sm_clock_levels`, NVIDIA's L1) × clock_hz / the preset's roof clock
    alike; the level's roof as given elsewhere.
    None when no row can be scaled: the caller's per-level lookup then.
    """
    if preset.roofs_at != "clock":
        return None
    roof = _per_value("level", roofs, pl.Float64())
    scaled, out = False, roof
    sm_levels = [lv for lv in roofs if (m := preset.memory_roof(lv))
                 and m[0] in preset.sm_clock_levels]
    if (sm_levels and preset.roof_clock_hz is not None
            and points.select(pl.col("clock_hz").is_not_null().any()).item()):
        held = pl.col("level").is_in(sm_levels) & pl.col("clock_hz").is_not_null() & own
        out = pl.when(held).then(roof * (pl.col("clock_hz") / preset.roof_clock_hz)).otherwise(out)
        scaled = True
    for level, column, nominal in (("DRAM", "memory_clock_hz", preset.memory_clock_hz),
                                   ("L2", "l2_clock_hz", preset.l2_clock_hz)):
        if nominal is not None and points.select(pl.col(column).is_not_null().any()).item():
            held = (pl.col("level") == level) & pl.col(column).is_not_null() & own
            out = pl.when(held).then(roof * (pl.col(column) / nominal)).otherwise(out)
            scaled = True
    return out if scaled else None


def _per_value(column: str, values: dict, dtype: pl.DataType) -> pl.Expr:
    """``column`` mapped row by row through ``values`` (one entry per distinct value).

    A literal when ``column`` has one value: polars holds it as one scalar, where a
    mapped column would hold a value per row (40–80 MB on 10⁷ rows).
    """
    if len(values) == 1:
        return pl.lit(next(iter(values.values())), dtype=dtype)
    return pl.col(column).replace_strict(values, return_dtype=dtype)


def _by_flop_source(compute: dict, counted: dict, part: int, dtype: pl.DataType) -> pl.Expr:
    """Item ``part`` (0 key, 1 value) of each row's compute roof, by where its FLOP come from.

    ``counted`` (precision → roof) on :data:`COUNTED` rows, ``compute`` on the others; one
    lookup when they agree.
    """
    model = _per_value("precision", {p: (c[part] if c else None) for p, c in compute.items()},
                       dtype)
    if counted == compute:
        return model
    per_instruction = _per_value(
        "precision", {p: (c[part] if c else None) for p, c in counted.items()}, dtype)
    return pl.when(COUNTED).then(per_instruction).otherwise(model)


def _has_inputs_only(points: pl.DataFrame) -> bool:
    """Whether some point's bytes are its inputs' only (``bytes_model`` inputs-only)."""
    return "inputs-only" in distinct(points, "bytes_model").cast(pl.String).to_list()


def _clock_notes(preset: Preset, clocked: bool, own: pl.Expr) -> list[tuple[pl.Expr, str]]:
    """(rows, note) of the rows whose clock ``preset``'s roofs are not scaled to.

    Judged at the clock held, points that carry a clock (``clocked``: some do): all of
    them on a preset that gives no clock, those of another GPU (``own`` false) on one that
    does.
    """
    if preset.roofs_at != "clock" or not clocked:
        return []
    rows = pl.col("clock_hz").is_not_null() & ~pl.col("bandwidth_only")
    if preset.roof_clock_hz is None:
        return [(rows, f"roofs as {preset.key} gives them, not at the clock held: "
                       f"{preset.key} gives no clock for its roofs")]
    return [(rows & ~own, f"roofs at {preset.key}'s own clocks: measured on another GPU, "
                          "whose clock says nothing of this one's")]


def _roof_note(preset: Preset, levels: list[str], precisions: list[str],
               inputs_only: bool = False,
               clock_notes: Sequence[tuple[pl.Expr, str]] = ()) -> pl.Expr:
    """Which roof a row lacks on ``preset`` ("" when it has both); :data:`INPUTS_ONLY_NOTE`.

    A row judged on a memory roof with a caveat (:attr:`Preset.roof_notes`) gets it.

    Built from per-level and per-precision lookups (Categorical), never a string per row;
    the bytes note is added (after "; " when a roof note is there) only when
    ``inputs_only`` says some row needs it, and each of ``clock_notes``
    (:func:`_clock_notes`) to its rows.
    """
    no_level = _per_value("level", {lv: f"no {lv} roof on {preset.key}" for lv in levels},
                          _CAT)
    no_precision = _per_value(
        "precision", {p: f"no {p} roof on {preset.key}" for p in precisions}, _CAT)
    # A caveat of the memory roof a row is judged on (a partition's HBM: an upper bound).
    caveats = {lv: preset.roof_notes.get(m[0], "") if (m := preset.memory_roof(lv)) else ""
               for lv in levels}
    caveat = _per_value("level", caveats, _CAT) if any(caveats.values()) else _cat("")
    note = (
        pl.when(pl.col("memory_roof").is_null())
        .then(no_level)
        .when(pl.col("bandwidth_only"))
        .then(caveat)
        .when(pl.col("precision") == "")
        .then(_cat(NO_PRECISION))
        .when(pl.col("compute_roof").is_null())
        .then(no_precision)
        .otherwise(caveat)
    )
    added = [(pl.col("bytes_model") == "inputs-only", INPUTS_ONLY_NOTE)] if inputs_only else []
    for rows, extra in [*added, *clock_notes]:
        text = note.cast(pl.String)
        marked = (pl.when(text == "").then(pl.lit(extra))
                  .otherwise(pl.concat_str([text, pl.lit(f"; {extra}")])))
        note = pl.when(rows).then(marked.cast(_CAT)).otherwise(note)
    return note


def _kernel_level(frame: pl.LazyFrame, launch_overhead_s: float | None) -> pl.LazyFrame:
    """Binding level, kernel bound class, kernel headroom and time saved.

    Time saved is floored by ``launch_overhead_s`` per launch (module doc), when given.
    """
    # Windows run over one integer kernel id (a 64-bit hash of the key): over() on the six
    # string keys was far slower. Only min() windows and a gather: filter().first() per
    # group, is_first_distinct + join and sorts were slower too (bench/NOTES.md).
    frame = frame.with_row_index("_i").with_columns(_k=pl.struct(KERNEL_KEY).hash())
    frame = frame.with_columns(kernel_headroom=pl.col("headroom").min().over("_k"))
    # The binding row of a kernel: its first row (table order) with the least headroom.
    least = pl.col("headroom") == pl.col("kernel_headroom")
    frame = frame.with_columns(_first=pl.when(least).then(pl.col("_i")).min().over("_k"))
    binding_class = (
        pl.when(pl.col("bound") == "compute")
        .then(_cat("compute"))
        .otherwise(pl.col("level"))
    )
    # A kernel is above its roof when any row is: when its least headroom is.
    above = (pl.col("kernel_headroom") < 1 - 1e-9).fill_null(False)
    # The roofline time (time / headroom), but never less than the launches' overhead: a
    # call shorter than one launch saves nothing, whatever its roof says.
    roofline_time = pl.col("time_s") / pl.col("kernel_headroom")
    if launch_overhead_s is not None:
        floor = pl.col("launches").fill_null(1).cast(pl.Float64) * launch_overhead_s
        roofline_time = pl.max_horizontal(roofline_time, floor)
    saved = pl.col("time_s") - roofline_time
    return frame.with_columns(
        binding=(pl.col("_i") == pl.col("_first")).fill_null(False),
        kernel_bound=binding_class.gather(pl.col("_first")),
        # No headroom (no roof at any level) saves no time, not 0: max_horizontal skips null.
        # No time (a point placed from rates) saves no known time either.
        potential_time_saved_s=pl.when(pl.col("theoretical") | above
                                       | pl.col("kernel_headroom").is_null()
                                       | pl.col("time_s").is_null())
        .then(None)
        .otherwise(pl.max_horizontal(saved, pl.lit(0.0))),
    ).drop("_i", "_k", "_first")


def _pair_speedup(frame: pl.LazyFrame) -> pl.LazyFrame:
    # Conditional firsts are columns made before the group_by: filter().first() inside
    # agg is evaluated group by group, slow on many groups.
    measured = ~pl.col("theoretical")
    original, optimized = pl.col("series") == "Original", pl.col("series") == "Optimized"
    perf = pl.col("performance")
    frame = frame.with_columns(_g=pl.struct("source", "pair", "level").hash())
    speedups = (
        frame.filter(pl.col("pair") != "")
        .select(
            "_g", "row",
            _has_base=original, _has_target=optimized,
            _base=pl.when(original & measured).then(perf),
            _target=pl.when(optimized & measured).then(perf),
            _measured=pl.when(measured).then(perf),
        )
        .sort("row")
        .group_by("_g")
        .agg(
            pl.col("_has_base", "_has_target").any(),
            pl.col("_base", "_target", "_measured").first(ignore_nulls=True),
            _last=pl.col("_measured").last(ignore_nulls=True),
            _n=pl.len(),
        )
        .filter(pl.col("_n") > 1)
        .select(
            "_g",
            # Optimized (else last measured) over Original (else first measured).
            pair_speedup=pl.when("_has_target").then("_target").otherwise("_last")
            / pl.when("_has_base").then("_base").otherwise("_measured"),
        )
    )
    return frame.join(speedups, on="_g", how="left", maintain_order="left").drop("_g")


def no_compute_roof() -> pl.Expr:
    """Rows of an :func:`analyze` table not judged: no compute roof of their precision.

    Bandwidth-only rows need none (they are judged against the memory roof). Reads
    ``compute_roof_name`` and ``bandwidth_only`` (an ``all.csv`` read back gives nulls for
    empty cells, as the table has).
    """
    return pl.col("compute_roof_name").is_null() & ~pl.col("bandwidth_only").fill_null(False)


def above_roof(table: pl.DataFrame) -> pl.DataFrame:
    """Rows of an :func:`analyze` table whose achieved performance exceeds the roof."""
    return table.filter(pl.col("above_roof"))
