"""Table outputs as CSV or JSON: the analysis table, a comparison, canonical points.

The format is ``--format`` where a command gives it, else the output's suffix (``.json``
→ JSON), else CSV. Both carry the same columns and numbers. ``rooflow table`` also writes
the analysis table as Markdown for a person (:func:`to_markdown`: ranked by potential time
saved, in human units), its default on a terminal.

JSON shape (``"format": "rooflow-table"``, ``"version": 1``; stable: a later version may
add keys, never rename or drop one)::

    {
      "format": "rooflow-table",
      "version": 1,
      "table": "analysis",              # or "comparison", "check", "points"
      "columns": ["series", ...],      # the CSV's header, in order
      "units": {"time_s": "s", ...},   # unit of every column that has one
      "records": [{"series": "Optimized", "time_s": 0.0012, ...}, ...]
    }

``records`` holds one object per CSV row, keyed by the column names (the CSV header);
numbers are JSON numbers in the table's base units (``units``: FLOP/s, byte/s, s, %),
empty cells ``null``, and a value that is not finite (NaN, ±inf, which JSON cannot
hold) ``null`` as well. Columns counted in FLOP count integer OP on rows whose ``unit``
is ``OP`` (int8-tensor, int32, ...): their units read ``FLOP (OP where unit is OP)``.
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import polars as pl

FORMATS = ("csv", "json")
READABLE = "md"
"""The Markdown format of the analysis table (``rooflow table --format md``)."""
JSON_VERSION = 1

_OPS = "FLOP (OP where unit is OP)"
UNITS: dict[str, str] = {
    "flop": _OPS,
    "bytes": "byte",
    "time_s": "s",
    "calls": "calls",
    "time_per_call_s": "s (mean)",
    "time_per_call_median_s": "s",
    "time_per_call_std_s": "s (sample standard deviation, ddof 1; null for one call)",
    "time_per_call_min_s": "s",
    "time_per_call_max_s": "s",
    "arithmetic_intensity": "FLOP/byte (OP/byte where unit is OP)",
    "performance": "FLOP/s (OP/s where unit is OP; 0 on bandwidth-only rows: see "
                   "achieved_bandwidth)",
    "compute_roof": "FLOP/s (OP/s where unit is OP)",
    "memory_roof": "byte/s",
    "attainable": "FLOP/s (OP/s where unit is OP)",
    "pct_of_roof": "%",
    "achieved_bandwidth": "byte/s",
    "pct_of_memory_roof": "%",
    "headroom": "ratio (attainable / achieved)",
    "kernel_headroom": "ratio (attainable / achieved)",
    "potential_time_saved_s": "s",
    "pair_speedup": "ratio (Optimized / Original performance)",
    "speedup": "ratio (new / baseline performance; byte/s for bandwidth-only rows)",
    "intensity_change": "ratio (new / baseline arithmetic intensity)",
    "time_saved_s": "s (baseline - new)",
    "slowdown_pct": "% (median time per call new / baseline - 1; throughput baseline / new "
                    "- 1 where compared is a throughput)",
    "roof_drop_pct": "% (1 - % of roof new / baseline)",
    "noise_pct": "% (1.4826 x median absolute deviation / median of the calls)",
    "se_pct": "% (combined standard error of the two medians, relative)",
    "quantile": "one-sided Student-t quantile multiplying se_pct",
    "throughput": "FLOP/s, OP/s or byte/s per call, as compared says (median)",
    "allowed_pct": "%",
}
"""Unit of each table column that has one (comparison columns also with their
``_baseline`` / ``_new`` suffix)."""

# The format --format asked for, for the command being run (None: by the output's suffix).
_REQUESTED: ContextVar[str | None] = ContextVar("rooflow_table_format", default=None)


@contextmanager
def requested_format(fmt: str | None) -> Iterator[None]:
    """Within the block, tables are written as ``fmt`` (None: by each output's suffix)."""
    token = _REQUESTED.set(fmt)
    try:
        yield
    finally:
        _REQUESTED.reset(token)


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (a person reads it), not a pipe or a file."""
    return sys.stdout.isatty()


def asked_format() -> str | None:
    """The format ``--format`` asked for in the command being run, or None."""
    return _REQUESTED.get()


def table_format(path: str | Path | None, fmt: str | None = None) -> str:
    """``fmt``, else the format asked for by ``--format``, else ``path``'s suffix, else csv."""
    fmt = fmt or _REQUESTED.get()
    if fmt:
        return fmt
    if path is not None and Path(path).suffix.lower() == ".json":
        return "json"
    return "csv"


def table_kind(frame: pl.DataFrame) -> str:
    """``comparison``, ``check``, ``analysis`` or ``points``, from the columns."""
    if "status" in frame.columns and "speedup" in frame.columns:
        return "comparison"
    if "status" in frame.columns and "allowed_pct" in frame.columns:
        return "check"
    return "analysis" if "attainable" in frame.columns else "points"


def column_units(columns: list[str]) -> dict[str, str]:
    """The unit of each of ``columns`` that has one (see :data:`UNITS`)."""
    out = {}
    for column in columns:
        base = column.removesuffix("_baseline").removesuffix("_new")
        unit = UNITS.get(column) or UNITS.get(base)
        if unit:
            out[column] = unit
    return out


TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
"""Time units for tables a person reads, largest first: (name, seconds)."""


def time_unit(seconds: list[float | None]) -> tuple[str, float]:
    """One unit for a column or table of times: the largest the biggest time is ≥ 1 in.

    ``(name, seconds per unit)``; seconds when there is no time. 10 ms, 3 ms, 0.5 ms → ms
    (read 10, 3, 0.5): one unit per table, so a reader compares digits, not exponents.
    """
    biggest = max((abs(t) for t in seconds if t is not None and math.isfinite(t)), default=0.0)
    return next((u for u in TIME_UNITS if biggest >= u[1]), TIME_UNITS[-1] if biggest else
                TIME_UNITS[0])


def rate_text(value: float | None, unit: str) -> str:
    """``value`` per second with an SI prefix, 3 significant digits: ``unit`` FLOP, OP or B.

    1.234e12 FLOP/s → ``1.23 TFLOP/s``; 900e9 B/s → ``900 GB/s``; None or not finite → ``–``.
    """
    if value is None or not math.isfinite(value):
        return "–"
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}/s"
    return f"{value:.3g} {unit}/s"


_RECORDS_PER_CHUNK = 10_000
"""Records serialised at a time by :func:`write_json`."""
_CHUNKS_AHEAD = 2
"""Chunks :func:`write_json` serialises while it writes one: its memory is a few chunks'
text, never the whole document's."""
_SEPARATOR = b",\n  "
"""Between two records of the ``records`` array: a comma, a newline, the indent."""


def _records(frame: pl.DataFrame, start: int) -> bytes:
    """Records ``start`` … ``start + _RECORDS_PER_CHUNK`` of ``frame``, one a line.

    Each line ends with :data:`_SEPARATOR`.
    """
    lines = io.BytesIO()
    frame.slice(start, _RECORDS_PER_CHUNK).write_ndjson(lines)
    return lines.getvalue().replace(b"\n", _SEPARATOR)


def write_json(frame: pl.DataFrame, out: BinaryIO) -> None:
    """Write ``frame`` as the documented JSON shape (module docstring) to ``out``.

    ``out``: a binary stream. One record a line, :data:`_RECORDS_PER_CHUNK` at a time:
    polars' own JSON lines (``write_ndjson``), keys in column order, JSON numbers,
    ``null`` for an empty cell and for NaN or ±infinity, strings escaped as JSON requires
    (a newline in a name is written as backslash-n, so every raw newline of the lines ends
    a record and becomes the comma between two). The next chunks are serialised on other
    threads while one is written (polars releases the GIL), :data:`_CHUNKS_AHEAD` at most.
    """
    from concurrent.futures import ThreadPoolExecutor

    document = {
        "format": "rooflow-table",
        "version": JSON_VERSION,
        "table": table_kind(frame),
        "columns": frame.columns,
        "units": column_units(frame.columns),
    }
    head = json.dumps(document, ensure_ascii=False, indent=1)
    out.write((head[:-2] + ',\n "records": [').encode())
    starts = list(range(0, frame.height, _RECORDS_PER_CHUNK))
    if starts:
        out.write(b"\n  ")
    with ThreadPoolExecutor(_CHUNKS_AHEAD) as pool:
        pending = deque(pool.submit(_records, frame, s) for s in starts[:_CHUNKS_AHEAD])
        for i in range(len(starts)):
            text = pending.popleft().result()
            if i + _CHUNKS_AHEAD < len(starts):
                pending.append(pool.submit(_records, frame, starts[i + _CHUNKS_AHEAD]))
            # The last record ends the array: no separator after it.
            out.write(memoryview(text)[:-len(_SEPARATOR)] if i == len(starts) - 1 else text)
    out.write(b"\n ]\n}\n")


def to_json(frame: pl.DataFrame) -> str:
    """``frame`` as the documented JSON shape (module docstring), as text."""
    text = io.BytesIO()
    write_json(frame, text)
    return text.getvalue().decode()


def _time_cells(frame: pl.DataFrame, columns: list[str]) -> tuple[str, list[list[str]]]:
    """One unit (:func:`time_unit`) for ``columns`` of ``frame``, and each row's cells."""
    name, scale = time_unit([v for c in columns for v in frame[c].to_list()])
    return name, [["–" if v is None else f"{v / scale:.4g}" for v in row]
                  for row in frame.select(columns).iter_rows()]


def to_markdown(frame: pl.DataFrame) -> str:
    """The analysis table ``frame`` as a Markdown table a person reads.

    One row per kernel × memory level, ranked by potential time saved (most first; rows
    without, by headroom, then in table order). Columns: rank, kernel (its label, else its
    name), series, level, precision, arithmetic intensity (FLOP/byte), achieved and
    attainable with an SI prefix (:func:`rate_text`: FLOP/s, OP/s for integer precisions,
    B/s against the memory roof on bandwidth-only rows), % of roof, headroom, bound, time
    and potential time saved in one unit for the table (:func:`time_unit`). Names are
    Markdown text (:func:`rooflow.escape.markdown_text`). The CSV and JSON keep every
    column in base units.

    Raises:
        ValueError: ``frame`` is not an analysis table (no ``attainable`` column).
    """
    from rooflow.escape import markdown_text

    if table_kind(frame) != "analysis":
        raise ValueError(f"a {table_kind(frame)} table has no Markdown form (csv, json)")
    ranked = frame.sort(["potential_time_saved_s", "headroom"], descending=True,
                        nulls_last=True, maintain_order=True)
    unit, times = _time_cells(ranked, ["time_s", "potential_time_saved_s"])
    lines = [f"| # | kernel | series | level | precision | intensity (FLOP/byte) | achieved "
             f"| attainable | % of roof | headroom | bound | time ({unit}) "
             f"| potential saved ({unit}) |", "|---" * 13 + "|"]
    for i, (r, t) in enumerate(zip(ranked.iter_rows(named=True), times, strict=True), 1):
        if r["bandwidth_only"]:
            achieved = rate_text(r["achieved_bandwidth"], "B")
            attainable, pct = rate_text(r["memory_roof"], "B"), r["pct_of_memory_roof"]
        else:
            op = "OP" if r["unit"] == "OP" else "FLOP"
            achieved, attainable = rate_text(r["performance"], op), rate_text(r["attainable"], op)
            pct = r["pct_of_roof"]
        cells = [str(i), markdown_text(r["label"] or r["kernel"]),
                 markdown_text(r["series"] or ""), markdown_text(r["level"] or ""),
                 markdown_text(r["precision"] or "not given"),
                 _number(r["arithmetic_intensity"], ".4g"), achieved, attainable,
                 _number(pct, ".1f"), _number(r["headroom"], ".2f", "×"),
                 markdown_text(r["bound"] or "–"), *t]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _number(value: float | None, fmt: str, suffix: str = "") -> str:
    """``value`` as ``fmt`` and ``suffix``, or ``–`` when missing or not finite."""
    if value is None or not math.isfinite(value):
        return "–"
    return format(value, fmt) + suffix


def write_table(frame: pl.DataFrame, path: str | Path | None, fmt: str | None = None) -> None:
    """Write ``frame`` as CSV, JSON or Markdown (:func:`table_format`), atomically.

    ``path`` None or "-": stdout.
    """
    from rooflow.io import atomic_path, write_csv

    fmt = table_format(path, fmt)
    if fmt == "csv":
        write_csv(frame, path)
        return
    if path is None or str(path) == "-":
        binary = getattr(sys.stdout, "buffer", None)  # None: a text-only stream stands in
        if fmt == READABLE or binary is None:
            sys.stdout.write(to_markdown(frame) if fmt == READABLE else to_json(frame))
            return
        sys.stdout.flush()  # what was written as text first stays first
        write_json(frame, binary)
        binary.flush()
        return
    with atomic_path(path) as tmp:
        if fmt == READABLE:
            tmp.write_text(to_markdown(frame), encoding="utf-8")
            return
        with tmp.open("wb") as out:
            write_json(frame, out)
