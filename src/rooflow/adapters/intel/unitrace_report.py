"""Read the "Kernel Metrics" CSV section of an Intel unitrace text report.

A report of ``unitrace --group GROUP -q -o FILE app`` (intel/pti-gpu ``tools/unitrace``)
holds padded text tables (``=== Device Timing Summary ===``, ``== L0 Backend ==``,
``=== Kernel Properties ===``) and a ``== Kernel Metrics ==`` section written by
``tools/unitrace/src/levelzero/ze_collector.h``: for every kernel instance, in launch
order, a header line ``Kernel,Device,SubDeviceId,NAME[unit],...,`` and one data row
``kname,device,index,value,...,``. Both end with a comma; a metric's unit is appended in
brackets (``GpuTime[ns]``, ``L3_BYTE_READ[bytes]``; ``%`` for percent, none for "null"
units). Newer ze_collector.h versions quote the kernel name ("quote kernel name which may
contain ','"), so lines are split with a CSV reader. Reports concatenated by
``roofline.py --app`` (one per process) hold several sections; every one is read.

Only lines inside a metrics section are read: the text tables also contain kernel names
(with ``SIMD``) and are ignored, which the pti-gpu script (``scripts/roofline/
roofline_libs.py``, ``file_to_json``) achieves by starting at the marker. Unlike that
script, byte-identical data rows are kept (two launches may well read the same counts).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from rooflow.adapters.intel.sniff import UNITRACE_MARKER as MARKER
from rooflow.errors import InputError
from rooflow.validate import read_text as read_text_file

_SECTION = re.compile(r"^=+ .* =+$")
_UNIT = re.compile(r"^(?P<name>[^\[\]]+?)(?:\[(?P<unit>[^\[\]]*)\])?$")


@dataclass(frozen=True)
class Launch:
    """One kernel instance of the metrics section.

    Attributes:
        line: 1-based line of the data row in the report.
        kernel: kernel name as written (quotes removed), e.g.
            ``hgemm[SIMD16 {56; 1; 1} {64; 8; 1}]``.
        values: metric name without unit → (unit, cell text), e.g.
            ``{"GpuTime": ("ns", "4733040")}``.
    """

    line: int
    kernel: str
    values: dict[str, tuple[str, str]]


def read_text(path: Path) -> str:
    """The report as text (UTF-8, BOM dropped).

    Raises:
        InputError: missing file, a folder, or not UTF-8 text.
    """
    return read_text_file(path, "a unitrace report")


def read_launches(path: str | Path) -> list[Launch]:
    """Every kernel instance of the report's metrics section(s), in file order.

    Args:
        path: a unitrace text report (``-q``, metric query).

    Returns:
        :class:`Launch` per data row. Header lines may be repeated (and may differ)
        before any row; each row is read with the header above it. A trailing empty
        field (the trailing comma) is dropped from headers and rows, so rows with and
        without it are both accepted; CRLF line ends are accepted.

    Raises:
        InputError: not UTF-8; no ``== Kernel Metrics ==`` section (run unitrace with
            ``-q``); a row before any header; a row whose field count differs from its
            header's; an empty kernel name; a header without ``Kernel`` first or with a
            repeated metric; malformed CSV quoting; no data row.
    """
    path = Path(path)
    lines = read_text(path).splitlines()
    if not any(line.strip() == MARKER for line in lines):
        raise InputError(
            str(path), f"no '{MARKER}' section: not a unitrace metrics report (collect with "
            "unitrace --group GROUP -q -o FILE app)", check="unitrace report",
        )
    launches: list[Launch] = []
    inside, header = False, None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line == MARKER:
            inside, header = True, None
            continue
        if not line or not inside:
            continue
        if _SECTION.match(line):
            inside = False
            continue
        fields = _split(line, path, number)
        if fields[0].strip() == "Kernel":
            header = _header(fields, path, number)
            continue
        if header is None:
            raise InputError(str(path), "metrics row before any 'Kernel,...' header",
                             row=number, value=line[:80])
        if len(fields) != len(header) + 1:
            raise InputError(
                str(path), f"metrics row has {len(fields) - 1} values, its header names "
                f"{len(header)} metrics", row=number, value=line[:80], check="field count",
            )
        kernel = fields[0].strip()
        if not kernel:
            raise InputError(str(path), "empty kernel name", row=number, column="Kernel")
        values = {name: (unit, cell.strip())
                  for (name, unit), cell in zip(header, fields[1:], strict=True)}
        launches.append(Launch(number, kernel, values))
    if not launches:
        raise InputError(str(path), f"'{MARKER}' section has no kernel row",
                         check="kernel rows")
    return launches


def _split(line: str, path: Path, number: int) -> list[str]:
    try:
        fields = next(csv.reader([line], strict=True))
    except csv.Error as err:
        raise InputError(str(path), f"not valid CSV: {err}", row=number, value=line[:80]) from None
    if len(fields) > 1 and not fields[-1].strip():
        fields = fields[:-1]  # the trailing comma ze_collector.h writes after every field
    return fields


def _header(fields: list[str], path: Path, number: int) -> list[tuple[str, str]]:
    """(metric name, unit) of every column after ``Kernel``."""
    columns = []
    for cell in fields[1:]:
        match = _UNIT.match(cell.strip())
        if not match:
            raise InputError(str(path), "bad metric column name", row=number, value=cell)
        columns.append((match["name"].strip(), match["unit"] or ""))
    names = [name for name, _ in columns]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(str(path), "metric named twice in header", row=number,
                         column=dupes[0])
    return columns
