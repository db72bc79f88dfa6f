"""Roofline CSV adapter: hand-made or exported rows of (intensity, performance).

Header names are matched case-insensitively after trimming spaces and a UTF-8 BOM;
each canonical column accepts the aliases in :data:`ALIASES`. Two headers that map
to one canonical column are an error (never a silent pick).

Derived when absent (base units in the output):

- tflops = gflops / 1000, else flop / time_us / 1e6  (FLOP per µs = 1e6 FLOP/s)
- arithmetic_intensity = flop / bytes                (FLOP/byte)

A row without performance is a theoretical point (``performance`` null): it sits on
the roof. Advisor-style hierarchical rows: a ``level`` column names the memory level
of each row (CARM, L3, SLM, GTI, DRAM, ...), or ``bytes_<level>`` columns
(``bytes_l3``, ``bytes_slm``, ...) give one point per level from the row's ``flop``.
A ``precision`` column names the roof each row is judged against (a name of
:data:`rooflow.points.PRECISIONS`, any case; empty: not given, and no roof is assumed), a
``device`` column the GPU it was measured on, a ``dims`` column its shape (``M=64,N=128``,
:mod:`rooflow.dims`).

``kernel`` (or ``Kernel Name``, ``kernel_name``, ``name``) names the kernel; without one
the label, else the pair id, does. ``pair`` (``group``, ``link``) joins points; without
it, rows of one kernel, label and dims that differ only in ``series`` (Original and
Optimized, as the original Xe-Forge script paired them by ``kernel``) are a pair. A column
none of :data:`ALIASES` names (``SeqLen``) is carried in ``dims`` where a cell is a number
(a trajectory dim), and one warning line names such columns
(:mod:`rooflow.adapters.roofline_columns`). A file written by ``rooflow convert`` or a
``from-*`` command (the canonical points columns) is read as it is, every column kept.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import polars as pl

from rooflow.adapters.roofline_columns import (
    EXTRA,
    POINTS_COLUMNS,
    canonical_header,
    header,
    note_unknown,
    passthrough,
    series_pairs,
)
from rooflow.errors import InputError
from rooflow.escape import restore_csv
from rooflow.formats.roofline import BASE_UNIT, LEVEL_BYTES_PREFIX
from rooflow.points import (
    PER_CALL_SCHEMA,
    POINT_SCHEMA,
    PRECISIONS,
    check_points,
    distinct,
    to_points,
)
from rooflow.settings import Settings
from rooflow.validate import (
    as_written,
    check,
    check_column_types,
    check_given,
    coerce_numeric,
    csv_batches,
    first_ragged_row,
    first_unparsed_row,
    read_csv_text,
    unquoted_part,
)

_NUMERIC = ["arithmetic_intensity", "tflops", "gflops", "flop", "time_us", "bytes"]


def _schema():
    # pandera is imported lazily: plotting-only callers never pay for it.
    import pandera.polars as pa

    positive: dict[str, Any] = {"gt": 0, "lt": float("inf"), "nullable": True}

    class RooflineRows(pa.DataFrameModel):
        """Checks on the canonicalized rows (after alias mapping and derivation)."""

        arithmetic_intensity: float = pa.Field(**positive)
        tflops: float = pa.Field(**positive)
        gflops: float | None = pa.Field(**positive)
        flop: float | None = pa.Field(**positive)
        time_us: float | None = pa.Field(**positive)
        bytes: float | None = pa.Field(**positive)
        series: str = pa.Field(str_length={"min_value": 1})

    return RooflineRows


def read_roofline_csv(path: str | Path) -> pl.DataFrame:
    """Read and validate a roofline CSV (or Parquet) into canonical points.

    Input columns (any alias, see :data:`ALIASES`): arithmetic_intensity or
    flop + bytes; tflops, gflops or flop + time_us (optional: theoretical point);
    series, family, label, pair, level; or ``bytes_<level>`` columns. A ``.parquet``
    file holds the same columns, or the canonical points columns
    (``results/points/*.parquet``).

    CSV happy path: polars' typed, multithreaded reader and vectorized checks. Only when
    those find anything wrong is the file read again row-exactly (the csv module and
    pandera) to name the row, column and value: first the header and the
    :data:`PART_ROWS` rows from the first wrong row, when the fast path knows it; then,
    if that part holds no error, the whole file. The re-read is streamed
    (:func:`rooflow.validate.csv_batches`): memory holds one batch of rows as text and
    the points, never the whole file as text.

    Returns:
        The canonical points frame (:mod:`rooflow.points`), one row per CSV row
        (or per CSV row × level with ``bytes_<level>`` columns); performance in FLOP/s,
        time_s in s.

    Raises:
        InputError: unreadable file, alias conflict, missing intensity, a non-numeric,
            zero, negative, NaN or infinite value (file, row, column, check, value).
    """
    points = _read_parquet(path) if Path(path).suffix.lower() == ".parquet" else _read_csv(path)
    columns = header(path)
    note_unknown(path, columns)
    return series_pairs(points, columns)


def _read_csv(path: str | Path) -> pl.DataFrame:
    """:func:`read_roofline_csv` of a CSV: the fast path, else the row-exact one."""
    try:
        return _from_frame(_fast_csv(path), path, exact=False)
    except _Recheck as recheck:
        row = recheck.row
    # Out of the except block: its traceback held the fast path's bytes and frame.
    if row is not None:
        _check_part(path, row)
    return pl.concat(_read_exact(path))


PART_ROWS = 1000
"""Lines the exact reader checks from the first row the fast path found wrong."""


class _Recheck(Exception):
    """The fast path saw something wrong: re-read row-exactly to report it.

    ``row``: the first data row found wrong (1-based, every line after the header
    counted, as polars reads them), when known.
    """

    def __init__(self, row: int | None = None) -> None:
        super().__init__(row)
        self.row = row


def _check_part(path: str | Path, row: int) -> None:
    """Check the header and :data:`PART_ROWS` lines from data line ``row`` row-exactly.

    Raises the exact reader's :class:`InputError` with its row counted in the whole file
    (blank lines skipped, as :func:`rooflow.validate.read_csv_text` counts them). Returns
    without raising when the part is not UTF-8 or has no error (a blank line the fast path
    counted, say): the whole file is read then. A file with a quote (a quoted field may
    span lines) is streamed to the part by the csv module; else the part is cut from the
    bytes at newlines (:func:`rooflow.validate.unquoted_part`).
    """
    data = Path(path).read_bytes()
    if b'"' in data:
        del data
        _read_exact(path, first=row, last=row + PART_ROWS - 1)
        return
    part = unquoted_part(data, row, PART_ROWS)
    if part is not None:
        try:
            raw = read_csv_text(path, text=part[1])
        except InputError as err:  # a ragged row
            raise _shifted(err, part[0]) from None
        _exact(raw, path, part[0])


def _read_exact(path: str | Path, first: int = 1, last: int | None = None
                ) -> list[pl.DataFrame]:
    """The points of data records ``first`` … ``last`` (all by default), read row-exactly.

    Streamed batch by batch (:func:`rooflow.validate.csv_batches`); errors and the
    points' ``row`` name the rows of the whole file.

    Raises:
        InputError: the first bad row of the records read.
    """
    return [_exact(raw, path, offset) for offset, raw in csv_batches(path, first=first,
                                                                      last=last)]


def _exact(raw: pl.DataFrame, path: str | Path, offset: int) -> pl.DataFrame:
    """Row-exact :func:`_from_frame` of a part whose row 1 is data row ``offset + 1``."""
    try:
        points = _from_frame(raw, path, exact=True)
    except InputError as err:
        raise _shifted(err, offset) from None
    if offset and not POINTS_COLUMNS <= set(raw.columns):  # canonical rows: their own
        points = points.with_columns(pl.col("row") + offset)
    return points


def _shifted(err: InputError, offset: int) -> InputError:
    """``err`` of a part's data row → of the file's (offset data rows above the part)."""
    if not err.row:  # the header (row 0), or no row
        return err
    return InputError(err.file, err.message, row=err.row + offset, column=err.column,
                      check=err.check, value=err.value)


def _fast_csv(path: str | Path) -> pl.DataFrame:
    """Typed polars read of a CSV; :class:`_Recheck` on anything the exact reader judges.

    Header quirks (empty or duplicate names), parse errors, ragged rows, and spaces
    around numbers all go to the row-exact reader.
    """
    try:
        with open(path, "rb") as file:  # polars reads the rest: no copy of the file's bytes
            first = file.readline().rstrip(b"\n")
        header = next(csv.reader([first.decode("utf-8-sig").rstrip("\r")]))
    except (OSError, UnicodeDecodeError, StopIteration, csv.Error):
        raise _Recheck from None
    names = [h.strip() for h in header]
    if any(not h for h in names) or len(set(names)) != len(names):
        raise _Recheck
    if POINTS_COLUMNS <= set(header):
        numeric = {c for c, t in {**POINT_SCHEMA, **PER_CALL_SCHEMA}.items() if t.is_numeric()}
    else:
        numeric = {raw for raw, c in canonical_header(header, path).items()
                   if c in _NUMERIC or c.startswith(LEVEL_BYTES_PREFIX)}
    try:
        frame = pl.read_csv(Path(path).absolute(), infer_schema=False, schema_overrides={
            h: pl.Float64 for h in header if h in numeric}, encoding="utf8", glob=False)
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        raise _Recheck(first_unparsed_row(Path(path).read_bytes(), numeric)) from None
    if frame.columns != header:  # polars strips a BOM or renames; let the exact reader judge
        raise _Recheck
    if frame.height and frame[header[-1]].null_count():
        if b'"' in (data := Path(path).read_bytes()):  # quoted cells: the exact reader
            raise _Recheck
        ragged = first_ragged_row(data)
        if ragged is not None:
            raise _Recheck(ragged)
    strings = [h for h in header if h not in numeric]
    return frame.with_columns(pl.col(strings).str.strip_chars().replace("", None))


def _read_parquet(path: str | Path) -> pl.DataFrame:
    """A roofline-CSV-shaped Parquet file, or canonical points (checked by the registry)."""
    try:
        schema = (scan := pl.scan_parquet(path)).collect_schema()
        points = POINTS_COLUMNS <= set(schema)
        mapping = {} if points else canonical_header(list(schema), path)
        # Few-valued text columns cast as read: as text, a string per row until points are
        # made (bench/NOTES.md).
        few = [r for r, c in mapping.items() if c in _FEW_VALUES and schema[r] == pl.String]
        frame = scan.with_columns(pl.col(few).cast(pl.Categorical)).collect()
        # One chunk per column (column by column: one held twice): every later step on
        # columns chunked per row group would re-align them all, step after step.
        frame = pl.DataFrame([frame.drop_in_place(c).rechunk() for c in frame.columns])
    except FileNotFoundError:
        raise InputError(str(path), "file not found") from None
    except pl.exceptions.PolarsError as err:
        raise InputError(str(path), f"not a Parquet file: {str(err).splitlines()[0]}") from None
    if points:
        check_column_types(frame, {**POINT_SCHEMA, **PER_CALL_SCHEMA}, path)  # one line
        return to_points(frame)
    check_column_types(frame, dict.fromkeys(mapping), path)
    # Numbers in a text column (a numeric family, label or dims column) are read as text.
    numeric = {c for c, t in frame.schema.items() if t.is_numeric()}
    counts = {c for c in numeric if mapping.get(c, "") in _NUMERIC
              or mapping.get(c, "").startswith(LEVEL_BYTES_PREFIX)}
    frame = frame.with_columns(pl.col(sorted(counts)).cast(pl.Float64),
                               pl.col(sorted(numeric - counts)).cast(pl.String))
    try:
        return _from_frame(frame, path, exact=False)
    except _Recheck:  # pandera checks text
        return _from_frame(frame.with_columns(pl.col(few).cast(pl.String)), path, exact=True)


_FEW_VALUES = ("series", "family", "precision", "device")
"""Canonical text columns of few distinct values (Categorical points columns) that the
reader passes on as they are, never through a string function per row."""


def _from_frame(raw: pl.DataFrame, path: str | Path, *, exact: bool) -> pl.DataFrame:
    """Raw columns (String, or Float64 from a typed reader) → validated canonical points.

    ``exact``: coerce and check row by row with pandera (raises the one-line
    :class:`InputError`); else vectorized checks that raise :class:`_Recheck`.
    """
    if raw.is_empty():
        raise InputError(str(path), "header but no data rows", check="rows")
    if POINTS_COLUMNS <= set(raw.columns):
        return _read_points_csv(raw, path, exact=exact)
    mapping = canonical_header(raw.columns, path)
    frame = raw.select([pl.col(r).alias(c) for r, c in mapping.items()]
                       + passthrough(raw, mapping))
    level_cols = [c for c in frame.columns if c.startswith(LEVEL_BYTES_PREFIX)]
    clash = [c for c in ("level", "bytes", "arithmetic_intensity") if c in frame.columns]
    if level_cols and clash:
        raise InputError(
            str(path), f"give either a '{clash[0]}' column or bytes_<level> columns, not both",
            column=level_cols[0], check="levels",
        )
    if not {"arithmetic_intensity", "flop"} & set(frame.columns):
        raise InputError(
            str(path),
            "no arithmetic intensity: add an 'arithmetic_intensity' column (or flop and bytes)",
            column="arithmetic_intensity",
            check="required column",
        )
    written = {c: r for r, c in mapping.items()}
    try:
        if exact:  # errors name the cell as written (time_us -5, not "tflops -200")
            frame = coerce_numeric(frame, _NUMERIC + level_cols, path)
            check_given(frame, raw, written, _NUMERIC + level_cols, path, scale=BASE_UNIT)
        elif any(frame.schema[c] != pl.Float64 for c in _NUMERIC + level_cols
                 if c in frame.columns):
            raise _Recheck
        frame = _derive(frame)
        if level_cols:
            return _explode_levels(frame, level_cols, path, exact=exact)
        _validate(frame, path, exact=exact)
        return _to_canonical(frame, path)
    except InputError as err:
        raise as_written(err, written) from None


def _validate(frame: pl.DataFrame, path: str | Path, *, exact: bool) -> None:
    """The :func:`_schema` checks: pandera (``exact``) or one vectorized pass."""
    if exact:
        _require_intensity(frame, path)
        check(frame, _schema(), path)
        return
    positive = [pl.col(c).is_null() | ((pl.col(c) * BASE_UNIT.get(c, 1.0)).is_finite()
                                       & (pl.col(c) > 0))
                for c in _NUMERIC if c in frame.columns]
    ok = pl.all_horizontal(*positive, pl.col("arithmetic_intensity").is_not_null(),
                           pl.col("series") != "")  # also a Categorical (Parquet)
    if not frame.select(ok.all()).item():
        bad = ~ok.fill_null(False)
        first = frame.filter(bad)["row"].min()  # an int: "row" is Int32
        raise _Recheck(first if isinstance(first, int) else None)


def _derive(frame: pl.DataFrame) -> pl.DataFrame:
    def col(name: str) -> pl.Expr:
        return pl.col(name) if name in frame.columns else pl.lit(None, dtype=pl.Float64)

    return frame.with_columns(
        tflops=pl.coalesce(col("tflops"), col("gflops") / 1000, col("flop") / col("time_us") / 1e6),
        arithmetic_intensity=pl.coalesce(col("arithmetic_intensity"), col("flop") / col("bytes")),
        series=pl.col("series") if "series" in frame.columns else pl.lit("kernel"),
        row=pl.int_range(1, frame.height + 1, dtype=pl.Int32),
    )


def _require_intensity(frame: pl.DataFrame, path: str | Path) -> None:
    missing = frame["arithmetic_intensity"].is_null()
    if missing.any():
        index = int(missing.arg_true()[0])
        raise InputError(
            str(path),
            "no arithmetic intensity (give arithmetic_intensity, or flop and bytes)",
            row=int(frame["row"][index]) if "row" in frame.columns else index + 1,
            column="arithmetic_intensity",
            check="not null",
            value="",
        )


def _explode_levels(frame: pl.DataFrame, level_cols: list[str], path: str | Path, *,
                    exact: bool) -> pl.DataFrame:
    """One row per input row × ``bytes_<level>`` column, AI = flop / bytes_<level>."""
    if "flop" not in frame.columns:
        raise InputError(
            str(path), "bytes_<level> columns need a 'flop' column", column="flop",
            check="required column",
        )
    keep = [c for c in frame.columns if c not in level_cols and c not in ("bytes", "level")]
    long = frame.unpivot(
        on=level_cols, index=keep, variable_name="level", value_name="bytes"
    ).filter(pl.col("bytes").is_not_null())
    long = long.with_columns(
        level=pl.col("level").str.slice(len(LEVEL_BYTES_PREFIX)).str.to_uppercase(),
        arithmetic_intensity=pl.col("flop") / pl.col("bytes"),
    ).sort("row", maintain_order=True)
    _validate(long, path, exact=exact)
    return _to_canonical(long, path)


def _to_canonical(frame: pl.DataFrame, path: str | Path) -> pl.DataFrame:
    def text(name: str) -> pl.Expr:
        return (pl.col(name).cast(pl.String).fill_null("") if name in frame.columns
                else pl.lit(""))

    dims = pl.concat_str([text("dims"), text(EXTRA)], separator=",").str.strip_chars(",")
    level = (
        pl.col("level").str.to_uppercase() if "level" in frame.columns else pl.lit("DRAM")
    )
    frame = frame.with_columns(
        performance=pl.col("tflops") * 1e12,
        time_s=(pl.col("time_us") * 1e-6) if "time_us" in frame.columns else pl.lit(None),
        kernel=pl.coalesce(*[c for c in ("kernel", "label", "pair") if c in frame.columns],
                           pl.lit("")),
        dims=dims,
        level=level.fill_null("DRAM"),
        source=pl.lit(str(path)),
        bytes_model=pl.lit("given"),
    )
    return to_points(_checked_precision(frame, path, frame["row"]))


def _checked_precision(frame: pl.DataFrame, path: str | Path, rows: pl.Series) -> pl.DataFrame:
    """``precision`` stripped, lower-cased and checked against :data:`PRECISIONS`.

    "" is not given, and so is a null. Each distinct value is mapped and checked once,
    never a string per row: a column of one value becomes that value's literal (polars
    holds it as one scalar).

    ``rows``: the file's data row of each frame row, for the error.
    """
    if "precision" not in frame.columns:
        return frame
    given = distinct(frame, "precision").cast(pl.String).to_list()  # first seen first
    named = {g: "" if g is None else g.strip().lower() for g in given}
    bad = [g for g in given if named[g] not in ("", *PRECISIONS)]
    if bad:  # the first bad row holds the first bad value seen
        i = int(frame.select((pl.col("precision") == bad[0]).arg_true().first()).item())
        raise InputError(str(path), f"unknown precision; one of: {', '.join(PRECISIONS)}",
                         row=int(rows[i]), column="precision", check="vocabulary",
                         value=named[bad[0]])
    if len(named) == 1:
        precision = pl.lit(named[given[0]], dtype=POINT_SCHEMA["precision"])
    elif all(g == n for g, n in named.items()):
        return frame
    else:
        precision = pl.col("precision").replace_strict(
            named, return_dtype=POINT_SCHEMA["precision"])
    return frame.with_columns(precision=precision)


def _read_points_csv(raw: pl.DataFrame, path: str | Path, *, exact: bool) -> pl.DataFrame:
    # the optional per-call columns too (to_points keeps them, as written)
    numeric = [c for c, t in {**POINT_SCHEMA, **PER_CALL_SCHEMA}.items()
               if t.is_numeric() and c in raw.columns]
    if exact:
        frame = coerce_numeric(raw, numeric, path)
    else:
        try:
            frame = raw.with_columns(pl.col(numeric).cast(pl.Float64))
        except pl.exceptions.PolarsError:
            raise _Recheck from None
    # Canonical points are a table rooflow wrote: its formula guard on text cells comes off.
    frame = restore_csv(frame)
    # `row` is the points' own (a row of their source): errors name this file's rows. The
    # contract is check_points': a bandwidth-only row (flop 0, no intensity) and a
    # theoretical one (no performance) read back as written, performance too (no TFLOP/s trip).
    position = pl.int_range(1, frame.height + 1, dtype=pl.Int32, eager=True)
    frame = _checked_precision(frame, path, position)
    points = to_points(frame)
    check_points(points.with_columns(row=position), str(path))
    return points


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: :func:`read_roofline_csv` (no settings apply)."""
    return read_roofline_csv(path)
