"""What a roofline CSV's headers mean: canonical columns, pairs, and the unknown columns.

Read by :mod:`rooflow.adapters.roofline` (the module docstring there says what each
column means). ``kernel`` names the kernel; without a ``pair`` column, rows of one kernel
that differ only in ``series`` pair up (:func:`series_pairs`); a column none of
:data:`rooflow.formats.roofline.ALIASES` names is carried in ``dims`` where a cell is a
number (:func:`passthrough`), and one note line names such columns (:func:`note_unknown`).
"""

from __future__ import annotations

import csv
import logging
import re
from pathlib import Path

import polars as pl

from rooflow.dims import DIM_NAME, DIM_VALUE
from rooflow.errors import InputError
from rooflow.formats.roofline import CANONICAL, LEVEL_BYTES_PREFIX

_LOG = logging.getLogger("rooflow.roofline")
EXTRA = "__passthrough"
"""Column of the dims that a file's unknown columns give (``SeqLen=2048``), while read."""
POINTS_COLUMNS = {"arithmetic_intensity", "performance", "level", "kernel", "bytes_model",
                  "source"}
"""Columns a file written by ``rooflow convert`` or ``from-*`` (canonical points) has.

``bytes_model`` and ``source`` tell it from a roofline CSV: there ``performance`` is an
alias of ``tflops`` (TFLOP/s), in canonical points the achieved FLOP/s.
"""


def canonical_header(columns: list[str], file: str | Path) -> dict[str, str]:
    """Map raw header names to canonical names.

    Returns ``{raw: canonical}`` for the recognised columns, including
    ``bytes_<level>`` columns (kept under their lower-cased name).

    Raises:
        InputError: two headers map to one canonical column (names both).
    """
    mapping: dict[str, str] = {}
    seen: dict[str, str] = {}
    for raw in columns:
        key = raw.strip().lstrip("\ufeff").strip().lower()
        name = CANONICAL.get(key)
        if name is None and key.startswith(LEVEL_BYTES_PREFIX) and key != "bytes_moved":
            name = key
        if name is None:
            continue
        if name in seen:
            raise InputError(
                str(file),
                f"columns '{seen[name]}' and '{raw}' both mean '{name}'; keep one",
                column=raw,
                check="alias conflict",
            )
        seen[name] = raw
        mapping[raw] = name
    return mapping


def unknown_columns(columns: list[str]) -> tuple[list[str], list[str]]:
    """(carried as dims, not kept): the headers none of :data:`ALIASES` names.

    Carried: a dim name (:data:`rooflow.dims.DIM_NAME`); the others cannot be dims. A
    canonical points file (``rooflow convert``) has none: its columns are kept as read.
    """
    if POINTS_COLUMNS <= set(columns):
        return [], []
    known = canonical_header(columns, "")
    names = [c.strip().lstrip("\ufeff").strip() for c in columns if c not in known]
    carried = [n for n in names if re.match(DIM_NAME, n)]
    return carried, [n for n in names if n not in carried]


def header(path: str | Path) -> list[str]:
    """The column names of a roofline CSV (its first line) or Parquet file (its schema)."""
    if Path(path).suffix.lower() == ".parquet":
        return list(pl.scan_parquet(path).collect_schema())
    with open(path, encoding="utf-8-sig", newline="") as file:
        return next(csv.reader(file), [])


def note_unknown(path: str | Path, columns: list[str]) -> None:
    """One warning line naming the file's unknown columns (:func:`unknown_columns`)."""
    carried, dropped = unknown_columns(columns)
    if not carried and not dropped:
        return
    parts = []
    if carried:
        parts.append(f"column{'s' if len(carried) > 1 else ''} {', '.join(carried)} "
                     "kept in dims where a cell is a number (a trajectory dim: --trajectory "
                     f"{carried[0]})")
    if dropped:
        parts.append(f"column{'s' if len(dropped) > 1 else ''} "
                     f"{', '.join(repr(d) for d in dropped)} not kept (no dim name)")
    _LOG.warning("%s: not roofline CSV columns: %s", path, "; ".join(parts))


def passthrough(raw: pl.DataFrame, mapping: dict[str, str]) -> list[pl.Expr]:
    """[``NAME=VALUE`` items of the unknown columns' number cells] (:data:`EXTRA`), or []."""
    carried = unknown_columns(raw.columns)[0]
    if not carried:
        return []
    by_name = {c.strip().lstrip("\ufeff").strip(): c for c in raw.columns if c not in mapping}
    items = []
    for name in carried:
        cell = pl.col(by_name[name]).cast(pl.String).str.strip_chars()
        items.append(pl.when(cell.str.contains(DIM_VALUE)).then(pl.lit(f"{name}=") + cell))
    return [pl.concat_str(items, separator=",", ignore_nulls=True).alias(EXTRA)]


def series_pairs(points: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """``points`` of a file with a kernel column and no pair column, paired by series.

    Rows sharing kernel (its name, else its label), label and dims are a pair when they are
    of two or more series (Original and Optimized): pair id ``kernel label (dims)``. Rows
    of one series only are repeats (launches), not a pair. Run on the whole file's points,
    so that pairs never depend on how the file was read (in parts by the exact reader).
    """
    if POINTS_COLUMNS <= set(columns):
        return points
    names = set(canonical_header(columns, "").values())
    if "pair" in names or "kernel" not in names:
        return points
    label, dims = pl.col("label"), pl.col("dims").cast(pl.String)
    key = pl.concat_str([
        pl.col("kernel"),
        pl.when(label != "").then(pl.lit(" ") + label).otherwise(pl.lit("")),
        pl.when(dims != "").then(pl.lit(" (") + dims + pl.lit(")")).otherwise(pl.lit("")),
    ])
    paired = (pl.col("series").n_unique().over(key) > 1) & (pl.col("kernel") != "")
    return points.with_columns(pair=pl.when(paired).then(key).otherwise(pl.lit("")))
