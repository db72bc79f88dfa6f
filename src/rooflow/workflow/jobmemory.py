"""The memory a workflow job declares (``resources: mem_mb``), from the size of its input.

A Slurm job is killed past the memory it declared, and one that declares far more than it
uses waits longer for a node; so a job's ``mem_mb`` follows its input:

    mem_mb = base + factor × input size

rounded up to a multiple of :data:`STEP_MB`.

* ``points`` (:func:`points_mem_mb`): the input is the raw files' bytes on disk. The typed
  CSV reader holds the file's bytes and then its columns; the row-exact re-read of a bad
  file streams (:func:`rooflow.validate.csv_batches`) and adds one batch. A gzip'd PyTorch
  trace counts its bytes uncompressed (:func:`file_bytes`): its reader keeps every
  operator, launch and GPU event, and traces compress 15–16:1 (a 10⁷-event one, 86 MB
  gzip'd, declared 1,400 MB by its compressed size and took more); it has its own factor
  (:data:`TRACE_MB_PER_INPUT_MB`, per MB of JSON), measured on a synthetic trace
  (``bench/pytorch_trace.py``; figures in ``bench/NOTES.md``).
  A Parquet input (the roofline kind's other form) counts its rows, not its bytes
  (:func:`points_job_mem_mb`): its floats compress little, but it is read whole into
  columns, 120 MB per million rows (``rooflow convert`` of 10⁶ rows, 16 MB of Parquet,
  204 MB peak), where its bytes declared 4.5 × 15.4 = 69 MB per million rows.
* ``draw`` (:func:`draw_mem_mb`; any job that analyses and draws one dataset, or draws
  every dataset of a preset: ``aggregate`` from each dataset's overview rows,
  ``html_overview`` from ``aggregate``'s table): the input is the rows of the points
  files (:func:`points_rows`, from the Parquet footer; of those tables for the two).
  Their bytes would not do: Parquet compresses repeated labels and values many times
  over, the analysis table in memory does not. The job draws its presets one after the
  other, but holds one preset's table while it analyses the next: the factor is measured
  on the config's four presets.
* ``project`` (:func:`project_mem_mb`): the rows of its dataset's points file and the
  presets it is projected on. It keeps a table of every kernel on every preset
  (:func:`rooflow.project.project`), so it grows with rows × presets besides the rows
  it reads: 10⁷ rows on two presets peaked at 10,729 MB, 4,000 MB over what the
  analysis jobs' rate allows for a third and fourth preset (figures in
  ``bench/NOTES.md``, "Workflow").

A batch job (:func:`batch_job`, :mod:`rooflow.workflow.batches`) reads and draws its
datasets one after the other: it declares the most any one of them needs, read by the
``points`` model or drawn by the ``draw`` one (the jobs those models were measured on,
before the batches).

The ``points`` and ``draw`` factors are the growth of a job's peak RSS from a 1,000-row
input to a 5 M-row one (``bench/memory.py`` of 2026-11-24), times 1.5; ``bench/memory.py``
now sets every job's peak, on the shared real inputs and on 10⁷-row tables, beside its
declaration (``make bench`` writes ``results/benchmarks/memory.md``; the figures, machine
and date are in ``bench/NOTES.md``, "Workflow"). The bases
cover a small input's job with Snakemake's own process beside it (a Slurm job counts
both) more than twice over; they are what a job of a few rows declares.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from rooflow.kinds import KINDS

MB = 2**20

STEP_MB = 100
"""Declarations are rounded up to this many MB."""

POINTS_BASE_MB = 1000
"""A ``points`` job of a small input: the interpreter and the adapters' imports."""
POINTS_MB_PER_INPUT_MB = 4.5
"""A ``points`` job's growth per MB of raw input."""
TRACE_MB_PER_INPUT_MB = 2.2
"""A PyTorch trace's ``points`` job's growth per MB of trace JSON (uncompressed)."""
PARQUET_MB_PER_MILLION_ROWS = 180.0
"""A ``points`` job's growth per million rows of a Parquet input: 1.5 × 120."""

DRAW_BASE_MB = 1000
"""A ``draw`` job of a few points: matplotlib, Bokeh, the presets."""
DRAW_MB_PER_MILLION_ROWS = 1700.0
"""An analysis job's growth per million rows of its points files: 1.5 × the largest
measured on 10⁷ rows, ``html_overview``'s 1,120 MB per million rows (11,346 MB peak;
``draw`` on the config's four presets 10,708 MB, ``aggregate`` 10,013 MB), measured when
``html_overview`` and ``aggregate`` still analysed every dataset's points (they now read
tables the batch jobs wrote: 10,211 and 9,922 MB on 2026-11-29, docs/speed.md). At 5 M rows
they peaked at 3,622–4,377 MB: they grow faster than their rows, so the larger input
sets the factor."""


def _rounded(mb: float) -> int:
    return int(math.ceil(mb / STEP_MB) * STEP_MB)


def points_mem_mb(input_bytes: int, kind: str = "", parquet_rows: int = 0) -> int:
    """``mem_mb`` of a ``points`` job of ``input_bytes`` bytes and ``parquet_rows`` rows.

    ``input_bytes``: its raw files but Parquet ones; ``parquet_rows``: the rows of its
    Parquet files (:func:`points_job_mem_mb`).

    Example: a 336 MB CSV of 5 M rows declares 1000 + 4.5 × 336 = 2512 → 2600 MB; a
    PyTorch trace (a ``kind`` whose reader holds every event,
    :attr:`rooflow.kinds.Kind.event_trace`) of 10⁷ events, 1,395 MB of JSON (86 MB gzip'd),
    1000 + 2.2 × 1395 = 4069 → 4100 MB.
    """
    trace = kind in KINDS and KINDS[kind].event_trace
    factor = TRACE_MB_PER_INPUT_MB if trace else POINTS_MB_PER_INPUT_MB
    return _rounded(POINTS_BASE_MB + factor * input_bytes / MB
                    + PARQUET_MB_PER_MILLION_ROWS * parquet_rows / 1e6)


def points_job_mem_mb(paths: Iterable[str | Path], kind: str = "") -> int:
    """``mem_mb`` of a ``points`` job reading ``paths``: Parquet files by their rows.

    The other files count their bytes (:func:`input_bytes`) at :func:`points_mem_mb`'s
    rate; a ``.parquet`` input adds :data:`PARQUET_MB_PER_MILLION_ROWS` per million rows
    of its footer (:func:`points_rows`; one that is no Parquet counts nothing: its job
    fails on it). Example: a 10⁷-row Parquet of 154 MB declares
    1000 + 180 × 10 = 2800 MB (by its bytes, 1000 + 4.5 × 154 = 1693 → 1700).

    Raises:
        FileNotFoundError: a path is missing (as :func:`input_bytes`).
    """
    names = [str(p) for p in paths]
    rows = rows_of_parquets(names)
    rest = input_bytes(p for p in names if not p.endswith(".parquet"))
    return points_mem_mb(rest, kind, rows)


def draw_mem_mb(rows: int) -> int:
    """``mem_mb`` of a job that draws one dataset of ``rows`` points (``draw``).

    Example: 5 M rows declare 1000 + 1700 × 5 = 9500 MB.
    """
    return _rounded(DRAW_BASE_MB + DRAW_MB_PER_MILLION_ROWS * rows / 1e6)


PROJECT_MB_PER_MILLION_ROWS = 700.0
"""A ``project`` job's growth per million rows of its points file, whatever its presets."""
PROJECT_MB_PER_MILLION_ROWS_PER_PRESET = 440.0
"""A ``project`` job's further growth per million rows for each preset it projects on."""


def project_mem_mb(rows: int, presets: int) -> int:
    """``mem_mb`` of a ``project`` job of ``rows`` points projected on ``presets`` presets.

    The factors are 1.5 × the growth measured (bench/NOTES.md): 293 MB per million rows
    and preset (``rooflow project`` of 10⁶ rows on one preset 770 MB, on four 1,649 MB),
    and of the workflow's job on 10⁷ rows and two presets 10,729 MB, 468 MB per million
    rows beside them. Example: 10⁷ rows on four presets declare
    1000 + 700 × 10 + 440 × 10 × 4 = 25,600 MB.
    """
    millions = rows / 1e6
    return _rounded(DRAW_BASE_MB + PROJECT_MB_PER_MILLION_ROWS * millions
                    + PROJECT_MB_PER_MILLION_ROWS_PER_PRESET * millions * presets)


def input_bytes(paths: Iterable[str | Path]) -> int:
    """Bytes of the files among ``paths`` (:func:`file_bytes`: gzip'd ones uncompressed).

    A folder counts nothing: a folder dataset's files are listed apart
    (:func:`rooflow.workflow.planning.source_input`).

    Raises:
        FileNotFoundError: a path is missing (Snakemake then decides the value when the
            job is ready to run).
    """
    return sum(file_bytes(p) for p in paths if not os.path.isdir(p))


_GZIP_MAGIC = b"\x1f\x8b"


def file_bytes(path: str | Path) -> int:
    """Bytes of ``path`` as its reader sees them: a gzip file's uncompressed size.

    That is the gzip trailer's ISIZE (RFC 1952: the size modulo 2³²), raised by 4 GiB
    until it is no less than the compressed size. A file over 4 GiB uncompressed is
    counted a multiple of 4 GiB short.

    Raises:
        FileNotFoundError: ``path`` is missing (:func:`os.path.getsize`).
    """
    size = os.path.getsize(path)
    try:
        with open(path, "rb") as fh:
            if size < 18 or fh.read(2) != _GZIP_MAGIC:
                return size
            fh.seek(-4, os.SEEK_END)
            plain = int.from_bytes(fh.read(4), "little")
    except OSError:  # unreadable: its job says so
        return size
    while plain < size:
        plain += 2**32
    return plain


def points_rows(path: str | Path) -> int:
    """Rows of the points file ``path``, from its Parquet footer; 0 when it has none.

    A failed dataset's points file (:mod:`rooflow.workflow.failed`) and one that is no Parquet
    count 0: the job reading it fails on its own, with its own message.

    Raises:
        FileNotFoundError: ``path`` does not exist yet (as :func:`input_bytes`).
    """
    import polars as pl

    os.stat(path)  # missing: FileNotFoundError naming it, not a polars error
    try:
        return int(pl.scan_parquet(path).select(pl.len()).collect().item())
    except (pl.exceptions.PolarsError, OSError):
        return 0


def rows_of_parquets(paths: Iterable[str | Path]) -> int:
    """Rows of the ``.parquet`` files among ``paths`` (:func:`points_rows`); others count 0.

    Raises:
        FileNotFoundError: one of them does not exist yet (as :func:`points_rows`).
    """
    import polars as pl

    files = [p for p in map(str, paths) if p.endswith(".parquet")]
    for path in files:
        os.stat(path)  # missing: FileNotFoundError naming it
    if len(files) < 2:
        return sum(points_rows(p) for p in files)
    try:
        # Every footer in one scan: an aggregate's thousand rows files at once, not one
        # by one, in Snakemake's own process while the cores wait.
        return int(pl.scan_parquet(files).select(pl.len()).collect().item())
    except (pl.exceptions.PolarsError, OSError):  # one no Parquet: each file alone
        return sum(points_rows(p) for p in files)


# The rules' resource callables: Snakemake calls them with the job's wildcards and input
# files (by these parameter names) once the inputs exist.


def analysis_job(wildcards, input) -> int:  # noqa: A002 - the name Snakemake passes
    """``mem_mb`` of a job analysing points files: :func:`draw_mem_mb` of their rows.

    Also of one drawing an analysis table of as many rows (``html_overview``).
    """
    return draw_mem_mb(rows_of_parquets(input))


def preset_job(rows: Callable[[Any], list[str]]) -> Callable[[Any, Any], int]:
    """``mem_mb`` of a job drawing every dataset of a preset.

    ``aggregate``: :func:`draw_mem_mb` of the rows of the Parquet files ``rows(wildcards)``
    gives (each dataset's overview rows, as many as its points or fewer). Its inputs are
    the batches' manifests, so Snakemake calls it once they are made (it asks for
    ``input``).
    """

    def mem_mb(wildcards, input) -> int:  # noqa: A002 - the name Snakemake passes
        for path in input:  # a manifest not made yet: Snakemake asks again once it is
            os.stat(path)
        return draw_mem_mb(rows_of_parquets(rows(wildcards)))

    return mem_mb


RAW_BYTES_PER_ROW = 40
"""Bytes of raw input per point, the fewest a table of results takes (a CSV row of a
kernel name and three numbers): a batch job of a dataset not read yet counts its raw
bytes ÷ this as its rows, an upper bound."""


def dataset_rows(raw: Iterable[str], points: str) -> int:
    """Points a dataset's job draws.

    Its points file's rows when that file is newer than its raw files, else an upper
    bound from them (Parquet rows by their footer, other files
    :data:`RAW_BYTES_PER_ROW`).
    """
    files = [p for p in raw if os.path.isfile(p)]
    try:
        made = os.path.getmtime(points)
    except OSError:
        made = None
    if made is not None and all(os.path.getmtime(p) <= made for p in files):
        return points_rows(points)
    parquet = [p for p in files if p.endswith(".parquet")]
    return rows_of_parquets(parquet) + input_bytes(
        p for p in files if not p.endswith(".parquet")) // RAW_BYTES_PER_ROW


def batch_job(members) -> Callable[[Any], int]:
    """``mem_mb`` of a batch job (:mod:`rooflow.workflow.batches`).

    It reads and draws its datasets one after the other, so the most any one of them needs, reading
    (:func:`points_job_mem_mb`) or drawing (:func:`draw_mem_mb` of
    :func:`dataset_rows`). Called by Snakemake only for a job that runs.

    Example: a 336 MB CSV of 5 M rows not read yet counts 336 MB ÷ 40 = 8.4 M rows:
    1000 + 1700 × 8.4 = 15,280 → 15,300 MB; once read, its 5 M rows: 9,500 MB.
    """
    from rooflow.workflow.batches import files_of
    from rooflow.workflow.draw import points_file

    def mem_mb(wildcards) -> int:
        most = 0
        for m in members.members:
            raw = files_of(m.raw)
            most = max(most, points_job_mem_mb([p for p in raw if not os.path.isdir(p)],
                                               m.kind),
                       draw_mem_mb(dataset_rows(raw, points_file(m.kind, m.name))))
        return most

    return mem_mb


def batch_runtime(datasets: int, presets: int) -> int:
    """``runtime`` (minutes) of a batch job of ``datasets`` drawn on ``presets``.

    Ten minutes per preset, as one large dataset may take, and one more per dataset and
    preset. Example: 62 datasets on 4 presets: 40 + 248 = 288.
    """
    return 10 * presets + datasets * presets


def project_job(input, projection: Mapping) -> int:
    """``mem_mb`` of a ``project`` job: :func:`project_mem_mb` of its points' rows.

    ``projection``: its config ``projections`` entry (its ``presets`` counted).
    """
    return project_mem_mb(rows_of_parquets(input), len(projection["presets"]))
