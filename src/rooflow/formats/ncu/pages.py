"""Nsight Compute CSV pages → one long table (launch × metric), whatever the layout.

Layouts read (Nsight Compute CLI documentation, ``--csv``, ``--page``; headers as
written by the ncu versions named):

* details page ("long", default ``--page details``), one row per launch × metric:

  - 2019–2021 (nv-nsight-cu-cli, early ncu): ``ID, Process ID, Process Name, Host Name,
    Kernel Name, Kernel Time, Context, Stream, Section Name, Metric Name, Metric Unit,
    Metric Value`` (``Kernel Time`` is a timestamp), optionally ``Rule Name, Rule Type,
    Rule Description``;
  - 2022+: ``... Kernel Name, Context, Stream, Block Size, Grid Size, Device, CC,
    Section Name, Metric Name, Metric Unit, Metric Value`` and, from 2024, the rule
    columns with ``Estimated Speedup Type, Estimated Speedup``.

  Data rows may be shorter than the header (the rule columns left off): they are padded
  with empty cells. Rule rows (empty ``Metric Name``) are dropped. ``Metric Name`` holds
  metric ids (``--print-metric-name name``) or display labels (the default ``label``;
  legacy sections such as Launch Statistics also put labels such as ``Block Size`` next
  to metric ids); :mod:`.metrics` maps both.
* raw page ("wide", ``--page raw``): one row per launch, one column per metric id, a
  units row under the header.

Lines before the header (application output, ``==PROF==``/``==ERROR==``/``==WARNING==``)
and ``==...==`` lines after it are skipped; a UTF-8 BOM and CRLF line ends are accepted.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.errors import InputError
from rooflow.formats.sniffing import (
    NCU_DEVICE_METRIC,
    REPORT_SUFFIX,
    is_ncu_header,
    profiler_errors,
)
from rooflow.formats.units import number, to_base_units
from rooflow.validate import check, read_text

LONG_COLUMNS = ("row", "launch", "kernel", "cc", "device", "metric", "unit", "value", "text")
"""Columns of :func:`read_ncu`."""

_LONG_FIELDS = ("Metric Name", "Metric Unit", "Metric Value")


class Launches(pa.DataFrameModel):
    """Identity columns of every data row (String, as read)."""

    launch: str = pa.Field(alias="ID", str_matches=r"^\d+$")
    kernel: str = pa.Field(alias="Kernel Name", str_length={"min_value": 1})

    class Config:
        strict = False


def _table_rows(path: Path) -> list[list[str]]:
    """Header and data rows, from the ``"ID",...`` header line on; rows padded to width."""
    text = read_text(path, "an ncu CSV export")
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if is_ncu_header(line)), None)
    if start is None:
        said = profiler_errors(lines)
        if said:  # the profiler's own reason (ERR_NVGPUCTRPERM, LaunchFailed, ...)
            raise InputError(str(path), "no Nsight Compute table: the profiler reported "
                             + " | ".join(said), check="ncu csv header")
        raise InputError(
            str(path), 'no Nsight Compute table: no header line starting with "ID" and naming '
            '"Kernel Name" (export with ncu --csv)', check="ncu csv header",
        )
    body = [line for line in lines[start:] if line.strip() and not line.startswith("==")]
    try:
        rows = list(csv.reader(io.StringIO("\n".join(body)), strict=True))
    except csv.Error as err:
        raise InputError(str(path), f"not valid CSV: {err}") from None
    header = [h.strip() for h in rows[0]]
    width = len(header)
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise InputError(str(path), "duplicate column in header", column=dupes[0])
    for i, row in enumerate(rows[1:], start=1):
        if len(row) > width:
            raise InputError(str(path), f"has {len(row)} fields, header has {width}", row=i,
                             value=row[width][:100])  # the first cell past the header
        row.extend([""] * (width - len(row)))
    return [header, *rows[1:]]


def _frame(header: list[str], rows: list[list[str]]) -> pl.DataFrame:
    columns = {name: [(r[j].strip() or None) for r in rows] for j, name in enumerate(header)}
    return pl.DataFrame(columns, schema={h: pl.String() for h in header})


def read_ncu(path: str | Path) -> pl.DataFrame:
    """Read an ``ncu --csv`` export (details or raw page) or report into one long table.

    A ``.ncu-rep`` report is read by :func:`rooflow.formats.ncu.report.read_report`.

    Returns:
        :data:`LONG_COLUMNS`, one row per launch × metric: ``row`` (i64, 1-based data
        row: details page, rows after the header; raw page, launch rows, the units row not
        counted), ``launch`` (i64, the ``ID`` column), ``kernel`` (str), ``cc`` (str,
        compute capability from the ``CC`` column or the
        ``device__attribute_compute_capability_major/minor`` metrics, "" when none),
        ``device`` (str, ``device__attribute_display_name``, "" when absent), ``metric``
        (str, metric id or label as written), ``unit`` (str, base unit, see
        :mod:`rooflow.formats.units`), ``value`` (f64 in ``unit``; null when the cell is
        empty, ``nan``, ``n/a`` or text), ``text`` (str, the cell as written).

    Raises:
        InputError: unreadable file, no ``"ID",...`` header line (quoting the profiler's
            ``==ERROR==`` lines where the file has them), malformed CSV, a row longer than
            the header, an ``ID`` that is not an integer or an empty ``Kernel Name``; a
            report as :func:`~rooflow.formats.ncu.report.read_report`.
    """
    path = Path(path)
    if path.suffix.lower() == REPORT_SUFFIX:
        from rooflow.formats.ncu.report import read_report

        long = read_report(path)
    else:
        header, *rows = _table_rows(path)
        if any(field in header for field in _LONG_FIELDS):
            long = _from_long(header, rows, path)
        else:
            long = _from_wide(header, rows, path)
    long = to_base_units(long.with_columns(number(pl.col("text")).alias("value")))
    return _identity(long).select(LONG_COLUMNS)


_CC_METRICS = ("device__attribute_compute_capability_major",
               "device__attribute_compute_capability_minor")


def _identity(long: pl.DataFrame) -> pl.DataFrame:
    """Fill ``cc`` and ``device`` from the device attribute metrics where present."""
    attrs = long.filter(pl.col("metric").is_in([NCU_DEVICE_METRIC, *_CC_METRICS])).pivot(
        on="metric", index="launch", values="text", aggregate_function="first")
    exprs = [pl.col("launch")]
    if NCU_DEVICE_METRIC in attrs.columns:
        exprs.append(pl.col(NCU_DEVICE_METRIC).alias("_device"))
    if set(_CC_METRICS) <= set(attrs.columns):
        exprs.append(pl.format("{}.{}", *map(pl.col, _CC_METRICS)).alias("_cc"))
    if len(exprs) == 1:
        return long
    long = long.join(attrs.select(exprs), on="launch", how="left")
    if "_device" in long.columns:
        long = long.with_columns(pl.col("_device").fill_null("").alias("device"))
    if "_cc" in long.columns:
        long = long.with_columns(
            pl.when(pl.col("cc") == "").then(pl.col("_cc").fill_null("")).otherwise("cc")
            .alias("cc"))
    return long


def _ident_columns(frame: pl.DataFrame) -> list[pl.Expr]:
    cc = pl.col("CC").fill_null("") if "CC" in frame.columns else pl.lit("")
    return [
        pl.col("ID").cast(pl.Int64).alias("launch"),
        pl.col("Kernel Name").alias("kernel"),
        cc.alias("cc"),
        pl.lit("").alias("device"),
    ]


def _from_long(header: list[str], rows: list[list[str]], path: Path) -> pl.DataFrame:
    missing = [c for c in _LONG_FIELDS if c not in header]
    if missing:
        raise InputError(str(path), "details-page export lacks columns", column=", ".join(missing))
    frame = check(_frame(header, rows), Launches, path)
    return frame.with_row_index("row", offset=1).filter(pl.col("Metric Name").is_not_null()).select(
        pl.col("row").cast(pl.Int64),
        *_ident_columns(frame),
        pl.col("Metric Name").alias("metric"),
        pl.col("Metric Unit").fill_null("").alias("unit"),
        pl.col("Metric Value").alias("text"),
    )


def _from_wide(header: list[str], rows: list[list[str]], path: Path) -> pl.DataFrame:
    # ncu metric ids are <unit>__<counter>; the identity columns (ID, Kernel Name,
    # Block Size, CC, ...) have none.
    metrics = [c for c in header if "__" in c]
    if not metrics:
        raise InputError(str(path), "no metric columns (names like dram__bytes.sum)")
    has_units = bool(rows) and not rows[0][0].strip()
    units = dict(zip(header, rows[0], strict=True)) if has_units else {}
    data = check(_frame(header, rows[1:] if has_units else rows), Launches, path)
    return (
        data.with_row_index("row", offset=1)
        .select(pl.col("row").cast(pl.Int64), *_ident_columns(data), *metrics)
        .unpivot(index=["row", "launch", "kernel", "cc", "device"], on=metrics,
                 variable_name="metric", value_name="text")
        .with_columns(
            pl.col("metric").replace_strict(
                {m: units.get(m, "").strip() for m in metrics}, return_dtype=pl.String
            ).alias("unit")
        )
        .sort("row", maintain_order=True)
    )
