"""Kernel selection: which points of an input a plot, table, comparison or conversion keeps.

Applied to the canonical points (:mod:`rooflow.points`) before any analysis, so a
bandwidth-only row (a copy or memset: ``flop`` 0) is kept or dropped like any other row.

- ``kernel``: regular expressions (the syntax of Rust's ``regex`` crate, which polars
  matches with: no look-around or back-references, linear time on any text, so no pattern
  can hang a run; searched anywhere in the text, case-insensitive); a point is kept when
  any of them matches its ``kernel``, ``label`` or ``family``. None given: every point.
- ``exclude``: regular expressions, same matching; a point any of them matches is dropped
  (after ``kernel``).
- ``level``: memory levels (canonical names or a vendor's word: HBM → DRAM); only those rows.
- ``precision``: precisions of the vocabulary (:data:`rooflow.points.PRECISIONS`); only
  those rows (bandwidth-only rows have none: ``""`` selects them, as does ``none``).
- ``top``: after the filters above, only the N kernels with the most potential time saved
  on the preset (:func:`rooflow.analysis.analyze`'s ``potential_time_saved_s``, then the
  least kernel headroom: the order of ``results/summary.md``); a kernel is every row of it
  (all its memory levels). Needs a preset.

Selecting nothing is an :class:`~rooflow.errors.InputError` naming the patterns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rooflow.errors import InputError
from rooflow.levels import canonical_level, known_levels
from rooflow.patterns import regex_error

if TYPE_CHECKING:
    import polars as pl

# polars (and rooflow.points, which imports it) load on first use: the CLI imports this
# module for its options, and `rooflow --help` should not wait for polars.

MATCHED_COLUMNS = ("kernel", "label", "family")
"""The point columns a ``kernel`` / ``exclude`` pattern is searched in."""

NO_PRECISION = ("", "none")
"""Names that select rows without a precision (bandwidth-only rows)."""


@dataclass(frozen=True)
class Selection:
    """What to keep of a points table (see the module docstring)."""

    kernel: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    level: tuple[str, ...] = ()
    precision: tuple[str, ...] = ()
    top: int | None = None

    def __post_init__(self) -> None:
        from rooflow.points import PRECISIONS

        for option, patterns in (("kernel", self.kernel), ("exclude", self.exclude)):
            for pattern in patterns:
                if (why := regex_error(pattern)) is not None:
                    raise InputError(None, f"--{option} '{pattern}' is not a regular "
                                     f"expression: {why}", check="selection")
        for name in self.level:
            if canonical_level(name) is None:
                raise InputError(None, f"--level '{name}' is not a memory level; known: "
                                 f"{known_levels()}", check="selection")
        for name in self.precision:
            if name not in PRECISIONS and name.lower() not in NO_PRECISION:
                raise InputError(None, f"--precision '{name}' is not a precision; known: "
                                 f"{', '.join(PRECISIONS)} (none: bandwidth-only rows)",
                                 check="selection")
        if self.top is not None and self.top < 1:
            raise InputError(None, f"--top {self.top}: at least 1", check="selection")

    @classmethod
    def from_mapping(cls, mapping: Mapping | None) -> Selection:
        """From a config ``select`` entry (keys as the fields; a string is one pattern)."""
        mapping = mapping or {}

        def many(key: str) -> tuple[str, ...]:
            value = mapping.get(key) or ()
            return (value,) if isinstance(value, str) else tuple(str(v) for v in value)

        return cls(kernel=many("kernel"), exclude=many("exclude"), level=many("level"),
                   precision=many("precision"), top=mapping.get("top"))

    def __bool__(self) -> bool:
        return bool(self.kernel or self.exclude or self.level or self.precision
                    or self.top is not None)

    def __call__(self, points: pl.DataFrame, preset=None) -> pl.DataFrame:
        """:func:`select_points` of ``points``; an error names their first source file."""
        source = str(points["source"][0]) if points.height else None
        return select_points(points, self, preset, source)

    def runs(self, runs: list[pl.DataFrame], preset=None) -> list[pl.DataFrame]:
        """Each run of a comparison selected alike.

        The filters apply to each run; ``top`` ranks the first run's kernels (the
        baseline's) and keeps those kernel names in every run, so a kernel is compared, or
        listed as missing from one run, never dropped from one side alone.
        """
        import polars as pl

        filters = Selection(self.kernel, self.exclude, self.level, self.precision)
        runs = [filters(run) for run in runs]
        if self.top is None:
            return runs
        names = Selection(top=self.top)(runs[0], preset)["kernel"].unique()
        return [run.filter(pl.col("kernel").is_in(names.implode())) for run in runs]

    def describe(self) -> str:
        """The selection as the command-line options that make it."""
        parts = [f"--{name} '{value}'"
                 for name in ("kernel", "exclude", "level", "precision")
                 for value in getattr(self, name)]
        if self.top is not None:
            parts.append(f"--top {self.top}")
        return " ".join(parts)


def _matches(patterns: Iterable[str]) -> pl.Expr:
    """Rows whose kernel, label or family any of ``patterns`` matches (case-insensitive)."""
    import polars as pl

    joined = "|".join(f"(?:{p})" for p in patterns)
    regex = f"(?i){joined}"
    return pl.any_horizontal(
        [pl.col(c).cast(pl.String).fill_null("").str.contains(regex) for c in MATCHED_COLUMNS])


def select_points(points: pl.DataFrame, selection: Selection, preset=None,
                  source: str | None = None) -> pl.DataFrame:
    """The rows of ``points`` that ``selection`` keeps (same columns, same order).

    Args:
        points: canonical points (:mod:`rooflow.points`).
        selection: what to keep; an empty one returns ``points`` unchanged.
        preset: the :class:`~rooflow.roofs.preset.Preset` that ``top`` ranks on.
        source: the input named in the error when nothing is selected.

    Raises:
        InputError: nothing selected (naming the patterns and what the input holds), or
            ``top`` without a preset.
    """
    if not selection:
        return points
    import polars as pl

    kept = points
    if selection.kernel:
        kept = kept.filter(_matches(selection.kernel))
    if selection.exclude:
        kept = kept.filter(~_matches(selection.exclude))
    if selection.level:
        levels = {canonical_level(lv) for lv in selection.level}
        kept = kept.filter(pl.col("level").cast(pl.String).is_in(sorted(levels - {None})))
    if selection.precision:
        names = {"" if p.lower() in NO_PRECISION else p for p in selection.precision}
        kept = kept.filter(pl.col("precision").cast(pl.String).is_in(sorted(names)))
    if selection.top is not None and kept.height:
        if preset is None:
            raise InputError(source, "--top ranks kernels by potential time saved on a "
                             "preset: give --preset (or --peak-tflops/--peak-bandwidth)",
                             check="selection")
        kept = _top_kernels(kept, selection.top, preset)
    if kept.height == 0:
        kernels = points["kernel"].n_unique()
        raise InputError(source, f"no point selected by {selection.describe()} (of "
                         f"{points.height} points, {kernels} kernels; patterns are searched "
                         f"in {', '.join(MATCHED_COLUMNS)}, case-insensitive)",
                         check="selection")
    return kept


def _top_kernels(points: pl.DataFrame, n: int, preset) -> pl.DataFrame:
    """Every row of the ``n`` kernels with the most potential time saved on ``preset``."""
    import polars as pl

    from rooflow.analysis import KERNEL_KEY, analyze

    table = analyze(points, preset, KERNEL_KEY + ["potential_time_saved_s",
                                                  "kernel_headroom"])
    key = pl.struct(KERNEL_KEY).hash()
    # Per kernel: its time saved, then least headroom (a bigger gap first); unjudged last.
    ranked = (
        table.with_row_index("_i").with_columns(_k=key)
        .group_by("_k", maintain_order=True)
        .agg(pl.col("potential_time_saved_s").max(), pl.col("kernel_headroom").max(),
             pl.col("_i").min())
        .sort(["potential_time_saved_s", "kernel_headroom", "_i"],
              descending=[True, True, False], nulls_last=True)
        .head(n)
    )
    keep = points.with_columns(_k=key)["_k"].is_in(ranked["_k"].implode())
    return points.filter(keep)
