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
import re
from collections.abc import Iterable, Iterator
from itertools import islice
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


BATCH_ROWS = 50_000
"""Data rows per frame of :func:`csv_batches`: tens of MB as Python strings."""


def read_csv_text(path: str | Path, *, text: str | None = None) -> pl.DataFrame:
    """Read a CSV with every column as String.

    Header names are kept as written except for a UTF-8 BOM and surrounding spaces.
    Cells are stripped; empty cells become null. Lines that are blank (or only commas
    and spaces) are skipped and not counted as rows.

    Args:
        path: the file (named in errors; read unless ``text`` is given).
        text: the file's content, already read.

    Raises:
        InputError: the file is missing, empty, not UTF-8 or not CSV.
    """
    if text is None:
        text = read_text(path, "a CSV file")
    _, frame = next(_batches(io.StringIO(text.lstrip("\ufeff")), str(path), None))
    return frame


def csv_batches(path: str | Path, rows: int = BATCH_ROWS, *, first: int = 1,
                last: int | None = None) -> Iterator[tuple[int, pl.DataFrame]]:
    """:func:`read_csv_text` streamed: the file read incrementally, ``rows`` data rows a frame.

    Memory holds one frame's rows, never the whole file (the csv module reads the open
    file; a quoted field may span lines).

    Args:
        path: the CSV file.
        rows: data rows per frame.
        first: the first record kept (1-based, after the header, blank lines counted, as
            polars counts rows); those before it are parsed and counted, not kept or
            checked.
        last: the last record read (None: to the end).

    Yields:
        ``(offset, frame)``: frame row i (1-based) is data row ``offset + i`` of the file
        (blank lines not counted, as :func:`read_csv_text` counts them). A file with no
        data rows gives one empty frame.

    Raises:
        InputError: as :func:`read_csv_text`, rows those of the whole file.
    """
    from rooflow.safeload import check_file

    check_file(path, "a CSV file")
    try:
        with open(path, encoding="utf-8-sig", newline="") as lines:
            yield from _batches(lines, str(path), rows, first, last)
    except UnicodeDecodeError as err:
        raise InputError(str(path), f"not UTF-8 text ({err.reason})", check="utf-8") from None
    except OSError as err:
        raise InputError(str(path), f"cannot be read: {err.strerror or err}") from None


def _blank(record: list[str]) -> bool:
    return not "".join(record).strip()


def _batches(lines: Iterable[str], path: str, rows: int | None, first: int = 1,
             last: int | None = None) -> Iterator[tuple[int, pl.DataFrame]]:
    """:func:`csv_batches` over ``lines``; ``rows`` None: one frame of every row."""
    reader = csv.reader(lines, strict=True)
    try:
        found, commas = None, False
        for record in reader:
            if not _blank(record):
                found = record
                break
            commas = commas or len(record) > 1
        if found is None:
            if commas:  # only separators and spaces: no header to name the columns
                raise InputError(path, "no header: every line is empty or only commas",
                                 check="header")
            raise InputError(path, "file is empty")
        header = _checked_header(found, path)
        offset = sum(1 for r in islice(reader, first - 1) if not _blank(r))  # counted only
        batch: list[list[str]] = []
        for record in reader if last is None else islice(reader, last - first + 1):
            if _blank(record):
                continue
            if len(record) != len(header):
                # The first cell past the header, or the last of a short row: never the
                # whole line (it may be any file's content, e.g. a link's target).
                cell = record[min(len(header), len(record) - 1)][:100] if record else None
                raise InputError(path, f"has {len(record)} fields, header has {len(header)}",
                                 row=offset + len(batch) + 1, value=cell)
            batch.append(record)
            if len(batch) == rows:
                yield offset, _string_frame(header, batch)
                offset, batch = offset + len(batch), []
    except csv.Error as err:
        raise InputError(path, f"not valid CSV: {err}") from None
    if batch or not offset:
        yield offset, _string_frame(header, batch)


def _checked_header(record: list[str], path: str) -> list[str]:
    header = [h.strip() for h in record]
    if any(not h for h in header):
        raise InputError(path, "empty column name in header", row=0, value=",".join(header))
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise InputError(path, "duplicate column in header", column=dupes[0])
    return header


def _string_frame(header: list[str], records: list[list[str]]) -> pl.DataFrame:
    columns = {name: [(r[j].strip() or None) for r in records] for j, name in enumerate(header)}
    return pl.DataFrame(columns, schema={h: pl.String() for h in header})


# --- locating a bad row in a CSV's bytes (the fast path of an adapter found one) --------


def first_unparsed_row(data: bytes, numeric: set[str]) -> int | None:
    """The first data row (1-based) of CSV ``data`` with an unparsable number, if found.

    A cell of a ``numeric`` column polars cannot parse as a number; None when there is
    none, or polars cannot read the file.
    """
    try:
        text = pl.read_csv(data, infer_schema=False, encoding="utf8")
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        return None
    bad = [pl.col(c).is_not_null() & pl.col(c).cast(pl.Float64, strict=False).is_null()
           for c in numeric if c in text.columns]
    if not bad:
        return None
    index = text.select(pl.any_horizontal(bad).fill_null(True).arg_true().first()).item()
    return None if index is None else index + 1


def first_ragged_row(data: bytes) -> int | None:
    """The first data row (1-based) whose field count is not the header's, or None.

    For a file with no quotes (polars pads short rows with nulls; a quoted field may hold
    a comma).
    """
    import numpy as np  # here only: a batch job reading a clean file never needs it

    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == ord("\n"))
    if not len(ends) or ends[-1] != len(buf) - 1:
        ends = np.append(ends, len(buf))
    commas = np.concatenate([[0], np.cumsum(buf == ord(","))])
    starts = np.concatenate([[0], ends[:-1] + 1])
    per_line = commas[ends] - commas[starts]
    nonblank = (ends - starts) > (buf[np.maximum(ends - 1, 0)] == ord("\r"))
    ragged = np.flatnonzero(nonblank & (per_line != per_line[0]))
    return int(ragged[0]) if len(ragged) else None  # line i is data row i


def unquoted_part(data: bytes, row: int, rows: int) -> tuple[int, str] | None:
    """The header and ``rows`` lines from data line ``row`` of CSV ``data`` with no quote.

    Returns:
        ``(offset, text)``: the part's row i is data row ``offset + i`` of the file (blank
        lines above not counted, as :func:`read_csv_text` counts them); None when the file
        has no data line ``row`` or the part is not UTF-8.
    """
    import numpy as np  # error path only

    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    if row > len(ends) or int(ends[row - 1]) + 1 >= len(data):
        return None
    start = int(ends[row - 1]) + 1  # data line `row` follows the row-th newline
    stop = int(ends[row - 1 + rows]) + 1 if row - 1 + rows < len(ends) else len(data)
    before = data[int(ends[0]) + 1:start]  # the data lines above the part, each ending in \n
    offset = before.count(b"\n") - len(re.findall(rb"^[ \t\r,]*\n", before, re.M))
    try:
        return offset, (data[: int(ends[0]) + 1] + data[start:stop]).decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


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
