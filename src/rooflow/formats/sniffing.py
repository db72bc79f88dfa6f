"""Cheap content reads that the kinds' sniffers and the roof readers share.

Each kind's sniffer lives beside its adapter (``rooflow.adapters.<kind>.sniff``, named in
its :class:`rooflow.kinds.Kind` entry); it reads through these functions at most the first
64 KiB of a file (4 MiB for unitrace reports, whose kernel table follows the per-launch
log) and imports nothing heavier than the standard library, so
:func:`rooflow.kinds.detect_kind` stays cheap whichever kind a file is. An SQLite
file (its 16-byte magic header) is opened read-only to list its tables
(:mod:`rooflow.formats.sqlitedb`). The marks that the roof readers (:mod:`rooflow.roofs`)
and the file layouts of :mod:`rooflow.formats` also use (ncu's page header, report magic,
the rocprof-compute and rocpd tables) live here.
"""

from __future__ import annotations

import csv
import zlib
from pathlib import Path

HEAD_BYTES = 65_536

NCU_DEVICE_METRIC = "device__attribute_display_name"
"""The ncu metric (raw-page column) holding the GPU's name."""

NCU_KEY = ("ID", "Kernel Name")
"""First cell and a further cell of an ``ncu --csv`` header line (details and raw pages)."""
REPORT_SUFFIX = ".ncu-rep"
SQLITE_MAGIC = b"SQLite format 3\x00"
"""First 16 bytes of every SQLite 3 database (sqlite.org/fileformat.html, 1.3)."""
REPORT_MAGIC = b"NVR\x00"
"""Suffix and first bytes of an Nsight Compute report (``ncu -o NAME``)."""
ROCPROFV3_SUFFIX = "_counter_collection.csv"
"""File-name end of a rocprofv3 counter collection CSV (its agent info: ``_agent_info.csv``)."""


def head_text(path: Path, limit: int = HEAD_BYTES) -> str:
    """The first ``limit`` bytes of ``path`` as text ("" for a folder or unreadable file)."""
    if not path.is_file():  # a FIFO would block the open; a device is no input
        return ""
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8-sig", errors="replace")
    except OSError:
        return ""


def csv_header(path: Path) -> list[str]:
    """The first non-empty line of ``path`` parsed as a CSV header, names lower-cased."""
    for line in head_text(path).splitlines():
        if line.strip():
            try:
                return [c.strip().lower() for c in next(csv.reader([line]))]
            except csv.Error:
                return []
    return []


def header_names(path: Path) -> set[str]:
    """Names of the first line of ``path`` (quotes and spaces stripped, case kept)."""
    lines = head_text(path).splitlines()
    return {n.strip().strip('"') for n in lines[0].split(",")} if lines else set()


def is_ncu_header(line: str) -> bool:
    """Whether ``line`` is the header line of an ``ncu --csv`` page."""
    try:
        cells = next(csv.reader([line]), [])
    except csv.Error:  # a NUL-filled or binary "line" past csv's field limit is no header
        return False
    return bool(cells) and cells[0].strip().lstrip("\ufeff") == NCU_KEY[0] and NCU_KEY[1] in cells


PROFILER_LINE = 300
"""Characters kept of one profiler line: ncu's ERR_NVGPUCTRPERM line, its URL included,
is about 240."""


def profiler_errors(lines: list[str], limit: int = 3) -> list[str]:
    """The profiler's ``==ERROR==`` lines (at most ``limit``, each cut to :data:`PROFILER_LINE`).

    ncu writes them where the table would be when it cannot profile, e.g. ``==ERROR==
    ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance
    Counters on the target device 0. For instructions on enabling permissions and to get
    more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM``, and keeps lines
    it prints more than once apart (first kept).
    """
    return _profiler_lines(lines, "==ERROR==", limit)


def _profiler_lines(lines: list[str], mark: str, limit: int) -> list[str]:
    found: list[str] = []
    for line in lines:
        text = " ".join(line.split())
        if text.startswith(mark) and text[:PROFILER_LINE] not in found:
            found.append(text[:PROFILER_LINE])
    return found[:limit]


def failed_ncu(path: Path) -> list[str] | None:
    """What ncu said in a file it wrote without a table (a failed profile), else None.

    A file whose first 64 KiB hold ``==PROF==`` or ``==ERROR==`` lines (ncu's own) and no
    page header: the ``==ERROR==`` lines (ERR_NVGPUCTRPERM, an application that failed),
    else its ``==WARNING==`` lines (``No kernels were profiled.``); [] when it said neither.
    """
    lines = head_text(path).splitlines()
    if not any(line.lstrip().startswith(("==PROF==", "==ERROR==")) for line in lines):
        return None
    if any(is_ncu_header(line) for line in lines):
        return None
    return profiler_errors(lines) or _profiler_lines(lines, "==WARNING==", 3)


def csv_files(path: Path, glob: str) -> list[Path]:
    """The files of folder ``path`` matching ``glob``, or ``[path]`` when it is a file."""
    return sorted(path.glob(glob)) if path.is_dir() else [path]


def starts_with(path: Path, magic: bytes) -> bool:
    """Whether ``path`` is a regular file whose first bytes are ``magic``.

    A FIFO or device is never opened: its ``open`` or read could block.
    """
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False


def is_ncu_report(path: Path) -> bool:
    """A ``.ncu-rep`` file that starts as Nsight Compute reports do."""
    return path.suffix.lower() == REPORT_SUFFIX and starts_with(path, REPORT_MAGIC)


def ncu_files(path: Path) -> bool:
    """An ``ncu --csv`` export or ``.ncu-rep`` report, or a folder of exports (passes).

    A file: a report's first bytes, or a page header line (after any program output) in
    its first 64 KiB. A folder: one of its ``*.csv`` files is an export (a file of another
    tool among the passes is skipped with a note when read,
    :func:`rooflow.formats.ncu.passes.read_passes`). The kind's sniffer
    (:func:`rooflow.adapters.ncu.sniff.ncu`) and the measured-peaks reader
    (:func:`rooflow.roofs.peaks_source`) both ask it.
    """
    if is_ncu_report(path):
        return True
    return any(ncu_export(f) for f in csv_files(path, "*.csv"))


def ncu_export(path: Path) -> bool:
    """A file with an ``ncu --csv`` page header line in its first 64 KiB."""
    return any(is_ncu_header(line) for line in head_text(path).splitlines())


ROCPD_TABLES = ("rocpd_kernel_dispatch", "rocpd_pmc_event", "rocpd_info_agent")
"""Tables (or their un-suffixed views) of a rocpd database (rocprofv3 ``--output-format
rocpd``); each table's name may carry the file's GUID (``rocpd_kernel_dispatch_<guid>``)."""
COMPUTE_DB_TABLES = ("compute_metadata", "compute_kernel", "compute_dispatch")
"""Tables of a rocprof-compute analysis database (``rocprof_compute_*.db``)."""


def _has_tables(path: Path, wanted: tuple[str, ...]) -> bool:
    """Whether ``path`` is an SQLite file with each of ``wanted`` (or a GUID-suffixed copy)."""
    if not starts_with(path, SQLITE_MAGIC):
        return False  # sqlitedb is imported only for an SQLite file
    from rooflow.formats.sqlitedb import table_names

    have = table_names(path)
    return bool(have) and all(
        any(n == w or n.startswith(w + "_") for n in have) for w in wanted)


def rocpd_database(path: Path) -> bool:
    """A rocprofv3 rocpd database (SQLite with :data:`ROCPD_TABLES`)."""
    return _has_tables(path, ROCPD_TABLES)


def compute_database(path: Path) -> bool:
    """A rocprof-compute analysis database (SQLite with :data:`COMPUTE_DB_TABLES`)."""
    return _has_tables(path, COMPUTE_DB_TABLES)


def folder_files(folder: Path) -> list[Path]:
    """The files directly in ``folder``, by name, hidden ones left out."""
    try:
        return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return []


def json_head(path: Path, limit: int = HEAD_BYTES) -> str:
    """The first ``limit`` bytes of ``path`` as text, gunzipped when it is gzip'd."""
    if not path.is_file():  # as head_text: no FIFO or device is opened
        return ""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit)
    except OSError:
        return ""
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, limit)
        except zlib.error:
            return ""
    return raw.decode("utf-8", errors="replace")


def not_an_input(path: Path) -> str | None:
    """What ``path`` is when it is a file the tools write beside their kernels, else None.

    A peaks file (given as ``--preset-file``, not as an input) or a companion file read
    with the input beside it, so its error line can say what to give instead: an ERT
    ``roofline.json`` (``"empirical"``), a rocprof-compute/Omniperf ``roofline.csv``
    (``device`` and ``HBMBw`` columns), a pti-gpu device config (``*_GFLOPS,`` or
    ``PlatformName,`` lines), rocprof-compute's ``sysinfo.csv`` (``workload_name`` and
    ``gpu_model``), rocprofv3's ``*_agent_info.csv`` (``Node_Id`` and ``Agent_Type``), a
    rocprof counter list (``pmc:`` lines, rocprof's ``-i`` input). From the first 64 KiB.
    """
    head = head_text(path)
    header = set(csv_header(path))
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    if head.lstrip().startswith("{") and '"empirical"' in head:
        return ("an Empirical Roofline Toolkit roofline.json: measured peaks, not kernels; "
                "give it as --preset-file, with the kernels' file as the input")
    if {"device", "hbmbw"} <= header:
        return ("a rocprof-compute/Omniperf roofline.csv: empirical peaks, not kernels; give "
                "it as --preset-file, and its workload folder (pmc_perf.csv) as the input")
    if lines and all(line.split(",", 1)[0].endswith(("_GFLOPS", "_GBPS")) or "_BW_" in line
                     or line.startswith("PlatformName,") for line in lines[:3]):
        return ("a pti-gpu roofline device config: peaks, not kernels; give it as "
                "--preset-file, with the unitrace reports as the input")
    if {"workload_name", "gpu_model"} <= header:
        return ("rocprof-compute's sysinfo.csv, read with the pmc_perf.csv beside it: give "
                "the workload folder or its pmc_perf.csv")
    if {"node_id", "agent_type"} <= header:
        return (f"rocprofv3's agent list, read with the counter collection beside it: give "
                f"NAME{ROCPROFV3_SUFFIX}")
    if lines and all(line.startswith(("pmc:", "#")) for line in lines):
        return ("a rocprof counter list (pmc: lines, the input of rocprof -i), not its "
                "output: give the folder of the runs' CSVs (results.csv)")
    return None
