"""One workload projected onto other GPUs: ``rooflow project FILE... --preset A,B,C``.

For every measured kernel (its rows of one :data:`rooflow.analysis.KERNEL_KEY`, one per
memory level) and every preset, with the preset's datasheet roofs (a clock held while
profiling one GPU says nothing of another's):

- compute time = FLOP / the compute roof of the kernel's precision, counted as the roofs
  are counted (:func:`rooflow.analysis.analyze`: counter FLOP meet a per-instruction roof
  where the preset has one, model FLOP the datasheet's); 0 for bandwidth-only kernels
- memory time = max over the kernel's levels of bytes / that level's roof (levels the
  preset has no roof for are skipped; ``note`` names them)
- launch floor = launches × the preset's launch overhead (one launch where not known;
  none on a preset without :attr:`Preset.launch_overhead_s`)
- roofline time = max(compute time, memory time, launch floor); ``limiter`` names the
  roof that sets it (``launch`` for the floor)
- fraction of roof = roofline time on the preset the workload was measured on / measured
  time (``pct_of_roof`` in %); projected time = roofline time on the preset / that
  fraction = measured time × roofline time (preset) / roofline time (measured on): the
  kernel is assumed to reach the same share of its roof everywhere (Williams et al.,
  CACM 2009: the roofline bounds the time, the achieved share is the kernel's own).

A kernel whose precision has no compute roof on a preset is listed apart there (status
``no roof``, ``note`` names the precision), never projected against another roof, and
counted in ``not_projected`` of that preset's totals; without a roof on the preset it was
measured on, it has no fraction of roof and no projected time anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from rooflow.analysis import KERNEL_KEY, analyze
from rooflow.roofs.preset import Preset

PROJECTED, NO_ROOF = "projected", "no roof"
LAUNCH = "launch"

KERNEL_COLUMNS = [
    "preset", "kernel", "series", "label", "pair", "precision", "status", "launches", "flop",
    "arithmetic_intensity", "measured_time_s", "compute_time_s", "memory_time_s", "launch_floor_s",
    "roofline_time_s", "limiter", "pct_of_roof", "projected_time_s", "speedup", "note",
]  # fmt: skip
"""Per kernel and preset: flop (FLOP, or OP), arithmetic_intensity (FLOP/byte, at the
kernel's first memory level), times in s (``memory_time_s`` the slowest level's),
``pct_of_roof`` in % (on the preset measured on), ``speedup`` = measured / projected."""

TOTAL_COLUMNS = ["rank", "preset", "kernels", "not_projected", "measured_time_s",
                 "roofline_time_s", "projected_time_s", "speedup"]
"""Per preset: sums over its projected kernels (s); ``speedup`` = measured / projected;
ranked by projected time (then roofline time), fastest first."""

_ANALYSIS = [*KERNEL_KEY, "level", "precision", "flop", "bytes", "arithmetic_intensity",
             "time_s", "launches",
             "bandwidth_only", "compute_roof_name", "compute_roof", "memory_roof_name",
             "memory_roof"]


def display_name() -> pl.Expr:
    """A kernel's name as shown: its kernel, else its label, else its pair."""
    return pl.coalesce(*(pl.col(c).replace("", None) for c in ("kernel", "label", "pair")),
                       pl.lit(""))


@dataclass(frozen=True)
class Projection:
    """A workload on several presets: :data:`KERNEL_COLUMNS` and :data:`TOTAL_COLUMNS`."""

    kernels: pl.DataFrame
    totals: pl.DataFrame
    measured_on: str

    def summary(self) -> str:
        """One line per preset, fastest first."""
        lines = [f"measured on {self.measured_on}:"]
        for r in self.totals.iter_rows(named=True):
            apart = f", {r['not_projected']} not projected" if r["not_projected"] else ""
            proj = ("-" if r["projected_time_s"] is None
                    else f"{r['projected_time_s'] * 1e3:.4g} ms")
            lines.append(f"  {r['rank']}. {r['preset']}: {r['kernels']} kernels, roofline "
                         f"{r['roofline_time_s'] * 1e3:.4g} ms, projected {proj}{apart}")
        return "\n".join(lines)


def roofline_times(points: pl.DataFrame, preset: Preset) -> pl.DataFrame:
    """Per kernel of ``points`` on ``preset`` (datasheet roofs): the roofline-bound time.

    Returns one row per kernel (:data:`KERNEL_KEY`, first-seen order) with precision,
    launches, flop, arithmetic_intensity (its first level's), measured_time_s (its time,
    s), compute_time_s, memory_time_s, launch_floor_s, roofline_time_s (s), limiter (the
    roof key, or ``launch``), status (:data:`PROJECTED` or :data:`NO_ROOF`) and note
    (the missing roofs).
    """
    table = analyze(points, preset.with_roofs_at("datasheet"), _ANALYSIS)
    overhead = preset.launch_overhead_s or 0.0
    no_roof = ~pl.col("bandwidth_only") & pl.col("compute_roof").is_null()
    rows = table.with_row_index("_i").with_columns(
        _mem=pl.col("bytes") / pl.col("memory_roof"),
        _no_level=pl.when(pl.col("memory_roof").is_null()).then(pl.col("level").cast(pl.String)),
    )
    per = rows.group_by(KERNEL_KEY, maintain_order=True).agg(
        precision=pl.col("precision").first().cast(pl.String),
        launches=pl.col("launches").first(),
        flop=pl.col("flop").first(),
        arithmetic_intensity=pl.col("arithmetic_intensity").first(),
        measured_time_s=pl.col("time_s").first(),
        compute_time_s=pl.when(pl.col("bandwidth_only").first()).then(0.0)
        .otherwise(pl.col("flop").first() / pl.col("compute_roof").first()),
        compute_name=pl.col("compute_roof_name").first().cast(pl.String),
        memory_time_s=pl.col("_mem").max(),
        memory_name=pl.col("memory_roof_name").sort_by(pl.col("_mem").fill_null(-1.0))
        .last().cast(pl.String),
        unjudged=no_roof.first(),
        no_levels=pl.col("_no_level").drop_nulls().unique(maintain_order=True),
    )
    floor = pl.col("launches").fill_null(1).cast(pl.Float64) * overhead
    per = per.with_columns(launch_floor_s=floor if preset.launch_overhead_s else pl.lit(0.0))
    terms = ["compute_time_s", "memory_time_s", "launch_floor_s"]
    roof_time = pl.max_horizontal(terms)
    limiter = (pl.when(pl.col("launch_floor_s") >= roof_time).then(pl.lit(LAUNCH))
               .when(pl.col("compute_time_s").fill_null(0) >= roof_time)
               .then(pl.col("compute_name"))
               .otherwise(pl.col("memory_name")))
    note = pl.concat_str([
        pl.when(pl.col("unjudged")).then(pl.format("no {} roof on {}", "precision",
                                                   pl.lit(preset.key))),
        pl.when(pl.col("no_levels").list.len() > 0).then(pl.format(
            "no {} roof on {}", pl.col("no_levels").list.join(", "), pl.lit(preset.key))),
    ], separator="; ", ignore_nulls=True)
    return per.with_columns(
        status=pl.when("unjudged").then(pl.lit(NO_ROOF)).otherwise(pl.lit(PROJECTED)),
        roofline_time_s=pl.when("unjudged").then(None).otherwise(roof_time),
        limiter=pl.when("unjudged").then(None).otherwise(limiter),
        note=note.fill_null(""),
    ).drop("compute_name", "memory_name", "unjudged", "no_levels")


def project(points: pl.DataFrame, presets: Sequence[Preset],
            measured_on: Preset | None = None) -> Projection:
    """Project ``points`` (measured on ``measured_on``, default the first preset) on each.

    Args:
        points: canonical points (:mod:`rooflow.points`), one row per kernel and level.
        presets: the presets projected on, in the order given (ties keep it).
        measured_on: the preset of the GPU the times were measured on (module doc).

    Returns:
        A :class:`Projection`. Kernels without a time have roofline times only.
    """
    home = measured_on or presets[0]
    base = roofline_times(points, home).select(
        *KERNEL_KEY, _home=pl.col("roofline_time_s"))
    frames = []
    for preset in presets:
        per = roofline_times(points, preset).join(base, on=KERNEL_KEY, how="left",
                                                  maintain_order="left", nulls_equal=True)
        fraction = pl.col("_home") / pl.col("measured_time_s")
        projected = pl.col("measured_time_s") * pl.col("roofline_time_s") / pl.col("_home")
        frames.append(per.with_columns(
            preset=pl.lit(preset.key),
            pct_of_roof=fraction * 100,
            projected_time_s=projected,
            speedup=pl.col("measured_time_s") / projected,
            note=pl.when(pl.col("_home").is_null() & (pl.col("status") == PROJECTED))
            .then(pl.concat_str([pl.col("note"), pl.lit(
                f"no roof on {home.key} (measured on): no projected time")],
                separator="; ", ignore_nulls=True).str.strip_prefix("; "))
            .otherwise(pl.col("note")),
        ))
    kernels = pl.concat(frames, how="vertical").with_columns(
        pl.col("kernel", "series", "label", "pair").cast(pl.String)).select(KERNEL_COLUMNS)
    return Projection(kernels=kernels, totals=totals(kernels), measured_on=home.key)


def totals(kernels: pl.DataFrame) -> pl.DataFrame:
    """:data:`TOTAL_COLUMNS` of a :data:`KERNEL_COLUMNS` table, ranked fastest first.

    Sums over the kernels projected on each preset (``no roof`` ones are counted in
    ``not_projected``); projected time sums the kernels that have one (null when none).
    """
    done = pl.col("status") == PROJECTED
    table = kernels.group_by("preset", maintain_order=True).agg(
        kernels=done.sum().cast(pl.Int64),
        not_projected=(~done).sum().cast(pl.Int64),
        measured_time_s=pl.col("measured_time_s").filter(done).sum(),
        roofline_time_s=pl.col("roofline_time_s").filter(done).sum(),
        projected_time_s=pl.when(pl.col("projected_time_s").filter(done).count() > 0)
        .then(pl.col("projected_time_s").filter(done).sum()),
    ).with_columns(speedup=pl.col("measured_time_s") / pl.col("projected_time_s"))
    table = table.with_row_index("_i").sort(
        "projected_time_s", "roofline_time_s", "_i", nulls_last=True).drop("_i")
    return table.with_row_index("rank", offset=1).with_columns(
        pl.col("rank").cast(pl.Int64)).select(TOTAL_COLUMNS)
