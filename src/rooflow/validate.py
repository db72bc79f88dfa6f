"""Shared validation helpers: read raw CSVs as text, coerce numbers, run pandera.

Every adapter reads its CSV with :func:`read_csv_text`, coerces numeric columns
with :func:`coerce_numeric` (so a bad cell is reported with its value, not as a
polars ComputeError) and then checks the frame with a pandera (polars backend)
model through :func:`check`, which turns the first failure case into an
:class:`~rooflow.errors.InputError` naming file, row, column, check and value.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rooflow.errors import InputError

if TYPE_CHECKING:
    import pandera.polars


def read_text(path: str | Path, what: str = "a text file") -> str:
    """The file as text (UTF-8, BOM dropped).

    Args:
        path: the file.
        what: what the file should be, for the error when it is a folder.

    Raises:
        InputError: missing file, a folder, a FIFO or device, unreadable, too large
            (:func:`rooflow.safeload.check_file`), or not UTF-8 text.
    """
    from rooflow.safeload import read_text as checked_text

    return checked_text(path, what)


def read_csv_text(path: str | Path, *, text: str | None = None) -> pl.DataFrame:
    """Read a CSV with every column as String.

    Header names are kept as written except for a UTF-8 BOM and surrounding spaces.
    Cells are stripped; empty cells become null.

    Raises:
        InputError: the file is missing, empty, not UTF-8 or not CSV.
    """
    path = Path(path)
    if text is None:
        text = read_text(path, "a CSV file")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise InputError(str(path), "file is empty")
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as err:
        raise InputError(str(path), f"not valid CSV: {err}") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:  # only separators and spaces: no header to name the columns
        raise InputError(str(path), "no header: every line is empty or only commas",
                         check="header")
    header = [h.strip() for h in rows[0]]
    if any(not h for h in header):
        raise InputError(str(path), "empty column name in header", row=0, value=",".join(header))
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise InputError(str(path), "duplicate column in header", column=dupes[0])
    width = len(header)
    for i, r in enumerate(rows[1:], start=1):
        if len(r) != width:
            raise InputError(
                str(path), f"has {len(r)} fields, header has {width}", row=i, value=",".join(r)
            )
    columns = {
        name: [(r[j].strip() or None) for r in rows[1:]] for j, name in enumerate(header)
    }
    return pl.DataFrame(columns, schema={h: pl.String() for h in header})


def coerce_numeric(
    frame: pl.DataFrame, columns: list[str], file: str | Path
) -> pl.DataFrame:
    """Cast ``columns`` (String) to Float64; a non-numeric cell is an InputError.

    Nulls (empty cells) stay null; the pandera model decides whether they are allowed.
    Thousands separators are not accepted here (plain CSV numbers only).
    """
    for name in columns:
        if name not in frame.columns:
            continue
        cast = frame[name].cast(pl.Float64, strict=False)
        bad = frame[name].is_not_null() & cast.is_null()
        if bad.any():
            index = int(bad.arg_true()[0])
            raise InputError(
                str(file),
                "not a number",
                row=index + 1,
                column=name,
                check="numeric",
                value=frame[name][index],
            )
        frame = frame.with_columns(cast.alias(name))
    return frame


def check(
    frame: pl.DataFrame,
    model: type[pandera.polars.DataFrameModel] | pandera.polars.DataFrameSchema,
    file: str | Path,
) -> pl.DataFrame:
    """Validate ``frame`` with a ``pandera.polars`` model (or schema); return the result.

    Raises:
        InputError: for the first failure case, in row order, with the pandera check
            name and the offending value.
    """
    # Imported here so rule scripts that do not validate need not import pandera.
    import pandera.errors
    from pandera.config import ValidationDepth, config_context

    try:
        with config_context(validation_depth=ValidationDepth.SCHEMA_AND_DATA):
            return model.validate(frame, lazy=True)
    except pandera.errors.SchemaErrors as errs:
        cases = errs.failure_cases
        with_index = cases.filter(pl.col("index").is_not_null()).sort("index")
        first = (with_index if with_index.height else cases).row(0, named=True)
        index = first.get("index")
        if first.get("check") == "column_in_dataframe":
            # Schema-level failure: the failure case is the missing column's name.
            raise InputError(
                str(file), "missing column", column=str(first.get("failure_case")),
                check="column_in_dataframe",
            ) from None
        raise InputError(
            str(file),
            "value fails validation" if index is not None else "schema check failed",
            row=None if index is None else int(index) + 1,
            column=first.get("column"),
            check=str(first.get("check")),
            value=first.get("failure_case"),
        ) from None


def check_given(frame: pl.DataFrame, raw: pl.DataFrame, written: dict[str, str],
                columns: list[str], file: str | Path, *,
                scale: dict[str, float] | None = None) -> None:
    """The numbers given (not derived) are finite and > 0; else the first bad cell as written.

    Checked before anything is derived from them, so the error names the input's cell
    (``time_us`` -5), not a derived one (``tflops`` -200).

    Args:
        frame: the coerced columns, under their canonical names.
        raw: the same rows as read (text), under the header's names.
        written: canonical name → header name.
        columns: the canonical numeric columns to check.
        file: for the error.
        scale: a column's factor to base units, which must stay finite too.
    """
    scale = scale or {}
    given = [c for c in written if c in columns and c in frame.columns]
    bad = {c: ~(pl.col(c).is_null() | ((pl.col(c) * scale.get(c, 1.0)).is_finite()
                                       & (pl.col(c) > 0))) for c in given}
    if not bad:
        return
    first = frame.select(pl.any_horizontal(list(bad.values())).arg_true().first()).item()
    if first is None:
        return
    column = next(c for c in given if frame.select(bad[c].gather(first)).item())
    value = frame[column][first]
    raise InputError(str(file), "value fails validation", row=first + 1, column=column,
                     check="finite" if not math.isfinite(value) else "greater_than(0)"
                     if value <= 0 else "finite in base units", value=raw[written[column]][first])


def as_written(err: InputError, written: dict[str, str]) -> InputError:
    """``err`` naming its column as the input's header wrote it (``Time_us``, ``ai``)."""
    name = written.get(err.column or "")
    if name is None or name == err.column:
        return err
    return InputError(err.file, err.message, row=err.row, column=name, check=err.check,
                      value=err.value)


def check_column_types(frame: pl.DataFrame, wanted: dict[str, Any], file: str | Path) -> None:
    """Each column read (``wanted``: name → dtype, None: any flat type) casts to its dtype.

    For typed inputs (Parquet), whose columns may be lists or structs.

    Raises:
        InputError: a nested (list, struct), binary or otherwise uncastable column, or a
            cell that does not cast (text in a number column), naming the column.
    """
    for name, dtype in wanted.items():
        if name not in frame.columns:
            continue
        got = frame.schema[name]
        if got.is_nested() or got in (pl.Binary, pl.Object):
            raise InputError(str(file), f"a {got} column; rooflow reads numbers and text",
                             column=name, check="column type")
        if dtype is None:
            continue
        try:
            cast = frame[name].cast(dtype, strict=False)
        except pl.exceptions.PolarsError:
            raise InputError(str(file), f"a {got} column cannot be read as {dtype}",
                             column=name, check="column type") from None
        bad = frame[name].is_not_null() & cast.is_null()
        if bad.any():
            index = int(bad.arg_true()[0])
            raise InputError(str(file), f"not a {dtype} value", row=index + 1, column=name,
                             check="column type", value=frame[name][index])
