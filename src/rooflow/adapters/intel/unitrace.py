"""Intel unitrace reports (a FLOP run and a bytes run of one program) → roofline points.

unitrace collects one hardware metric group per run, so a roofline needs two runs of the
same program (intel/pti-gpu ``tools/unitrace/scripts/roofline/roofline.py``, ``--app``
mode, which runs exactly these)::

    unitrace --group VectorEngine138 --demangle -q -o flops app   # XVE_INST_EXECUTED_*
    unitrace --group ComputeBasic    --demangle -q -o bytes app   # L3_/GPU_MEMORY_BYTE_*

The reports are read by :mod:`.unitrace_report`. Formulas follow the pti-gpu script
``tools/unitrace/scripts/roofline/roofline_libs.py`` (``read_unitrace_report`` and class
``Roofline``), per kernel name, summed over its launches:

* FLOP by precision: ``32·XVE_INST_EXECUTED_FP64`` → fp64, ``32·XVE_INST_EXECUTED_FP32``
  → fp32, ``64·XVE_INST_EXECUTED_FP16`` → fp16 (vector), ``512·XVE_INST_EXECUTED_XMX_FP16``
  → fp16-tensor, ``512·XVE_INST_EXECUTED_XMX_BF16`` → bf16-tensor (the script's
  multipliers, ``self.FP64 = fp64 * 32`` … ``self.BF16_XMX = bf16_xmx * 512``). fp16
  counts 32 lanes × FMA per event, the convention of the script's roof, the device
  config's ``FP16_GFLOPS`` (:mod:`rooflow.roofs.intel_config`).
* integer XMX work, in OP (the script ignores it): ``1024·XVE_INST_EXECUTED_XMX_INT8`` →
  int8-tensor, ``2048·XVE_INST_EXECUTED_XMX_INT4`` → int4-tensor, both optional. The
  factors are rooflow's: 512 (the FP16 factor) × the depth ratio of a DPAS instruction,
  K = 16 for fp16/bf16, 32 for int8 (SYCL ``sycl_ext_oneapi_matrix``, "Intel XMX
  Supported Combinations") and 64 for int4 (4-bit operands packed 8 per dword).
* bytes: DRAM (GPU memory, HBM) ``GPU_MEMORY_BYTE_READ + GPU_MEMORY_BYTE_WRITE``, L3
  ``L3_BYTE_READ + L3_BYTE_WRITE`` (as the script), and LDS (SLM)
  ``SLM_BYTE_READ + SLM_BYTE_WRITE`` when the run has them (the script has no SLM level).
* time: ``GpuTime[ns]`` of the **bytes** run, as the script (its flops-run time is unused):
  the point's bytes and time then come from the same launches.

Differences from the script, on purpose: a point's ``flop`` is the sum over the precisions
of the dominant one's unit (the rule of every profiler,
:func:`rooflow.adapters.breakdown.summarize_precisions`; the script plots only the largest
precision), with ``precision_mix`` giving the shares; a kernel name whose
launch count differs between the two runs is an error (the script keeps the names found
in both runs and sums whatever launches each has, silently dropping the others), because
FLOP of n launches over the time of m launches is no measurement. Kernels with no FLOP
counts (copies, setup kernels) are kept as bandwidth-only rows.

A bytes run alone is refused (InputError naming the FLOP counters): it would have to
claim 0 FLOP for every kernel, turning a GEMM into a "copy". A report that holds both
counter sets (a custom metric group) may be given alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from rooflow.adapters.breakdown import breakdown_table, bytes_column, kernel_points, ops_column
from rooflow.adapters.intel.sniff import UNITRACE_MARKER, unitrace_reports
from rooflow.adapters.intel.unitrace_report import Launch, read_launches
from rooflow.errors import InputError
from rooflow.formats.sniffing import head_text
from rooflow.settings import Settings

FLOPS_GROUP, BYTES_GROUP = "VectorEngine138", "ComputeBasic"
FLOPS_FILE, BYTES_FILE = "flops.txt", "bytes.txt"
"""Report names in a dataset folder (the names ``roofline.py --app`` merges into)."""

FLOP_COUNTERS: dict[str, tuple[str, float]] = {  # precision → (metric, operations per event)
    "fp64": ("XVE_INST_EXECUTED_FP64", 32.0),
    "fp32": ("XVE_INST_EXECUTED_FP32", 32.0),
    "fp16": ("XVE_INST_EXECUTED_FP16", 64.0),
    "fp16-tensor": ("XVE_INST_EXECUTED_XMX_FP16", 512.0),
    "bf16-tensor": ("XVE_INST_EXECUTED_XMX_BF16", 512.0),
    "int8-tensor": ("XVE_INST_EXECUTED_XMX_INT8", 1024.0),
    "int4-tensor": ("XVE_INST_EXECUTED_XMX_INT4", 2048.0),
}
"""Precision → (counter, operations per event); ties for the dominant one go to the first."""
OPTIONAL_FLOP = ("int8-tensor", "int4-tensor")
LEVELS: dict[str, tuple[str, ...]] = {  # level → counters summed (bytes)
    "DRAM": ("GPU_MEMORY_BYTE_READ", "GPU_MEMORY_BYTE_WRITE"),
    "L3": ("L3_BYTE_READ", "L3_BYTE_WRITE"),
    "LDS": ("SLM_BYTE_READ", "SLM_BYTE_WRITE"),
}
OPTIONAL_LEVELS = ("LDS",)
TIME = "GpuTime"
_UNITS = {TIME: "ns", **{c: "bytes" for cs in LEVELS.values() for c in cs},
          **{c: "events" for c, _ in FLOP_COUNTERS.values()}}
_COLUMN = {p: ops_column(p) for p in FLOP_COUNTERS}
_BYTES = {level: bytes_column(level) for level in LEVELS}


def unitrace_kernels(flops_report: str | Path, bytes_report: str | Path | None = None
                     ) -> pl.DataFrame:
    """Per-kernel operations by precision, bytes by level and time of two unitrace runs.

    Args:
        flops_report: report of the FLOP run (``--group VectorEngine138 -q``).
        bytes_report: report of the bytes run (``--group ComputeBasic -q``) of the same
            program; None when ``flops_report`` holds both counter sets.

    Returns:
        The per-kernel breakdown (:mod:`rooflow.adapters.breakdown`), one row per kernel
        name in order of first launch in the bytes run: ``row`` is the line of its first
        bytes-run row, ``device`` "" (the report names none); ``ops_<precision>`` for the
        precisions of :data:`FLOP_COUNTERS` (null for an integer counter not collected;
        the others are always null); ``time_s`` from the bytes run; ``bytes_dram``,
        ``bytes_l3``, ``bytes_lds`` (null when the run lacks the SLM counters).

    Raises:
        InputError: a report unreadable or without a metrics section (see
            :func:`.report.read_launches`); a needed counter missing (all listed,
            with the unitrace group that collects them), in another unit, not a finite
            number ≥ 0; a kernel whose launch count differs between the runs.
    """
    flops_path = Path(flops_report)
    bytes_path = Path(bytes_report) if bytes_report is not None else flops_path
    flop_runs = read_launches(flops_path)
    byte_runs = flop_runs if bytes_path == flops_path else read_launches(bytes_path)

    flop_metrics = [FLOP_COUNTERS[p][0] for p in FLOP_COUNTERS if p not in OPTIONAL_FLOP]
    byte_metrics = [TIME, *(c for lv, cs in LEVELS.items() if lv not in OPTIONAL_LEVELS
                            for c in cs)]
    _require(flop_runs, flop_metrics, flops_path, FLOPS_GROUP, "FLOP")
    _require(byte_runs, byte_metrics, bytes_path, BYTES_GROUP, "bytes")
    _same_launches(flop_runs, byte_runs, flops_path, bytes_path)

    ops = pl.DataFrame(
        [{"kernel": run.kernel, **{_COLUMN[p]: _ops(run, metric, factor, flops_path)
                                   for p, (metric, factor) in FLOP_COUNTERS.items()}}
         for run in flop_runs],
        schema={"kernel": pl.String, **{c: pl.Float64 for c in _COLUMN.values()}},
    ).group_by("kernel", maintain_order=True).agg(*[_sum(c) for c in _COLUMN.values()])
    moved = pl.DataFrame(
        [{"kernel": run.kernel, "row": run.line,
          "time_s": _time_s(run, bytes_path),
          **{_BYTES[lv]: _level(run, cs, bytes_path) for lv, cs in LEVELS.items()}}
         for run in byte_runs],
        schema={"kernel": pl.String, "row": pl.Int64, "time_s": pl.Float64,
                **{c: pl.Float64 for c in _BYTES.values()}},
    ).group_by("kernel", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("launches"), pl.col("row").first(),
        pl.col("time_s").sum(), *[_sum(c) for c in _BYTES.values()],
    )
    return breakdown_table(moved.join(ops, on="kernel", how="left", maintain_order="left"))


def unitrace_points(flops_report: str | Path, bytes_report: str | Path | None = None
                    ) -> pl.DataFrame:
    """Canonical roofline points (:mod:`rooflow.points`) of a FLOP run and a bytes run.

    One row per kernel × level (DRAM, L3, LDS when measured) with bytes > 0, series
    "unitrace", label = kernel, flop / precision / precision_mix as
    :func:`unitrace_kernels`, arithmetic_intensity = flop / bytes, performance = flop /
    time_s, bytes_model "measured", row 0 (sums over launches), source = the bytes
    report. Kernels without operations are bandwidth-only rows (flop 0).

    Raises:
        InputError: as :func:`unitrace_kernels`; no kernel with bytes and a time.
    """
    kernels = unitrace_kernels(flops_report, bytes_report)
    source = Path(bytes_report if bytes_report is not None else flops_report)
    return kernel_points(
        kernels.with_columns(pl.col("kernel").alias("label"), pl.lit(0).alias("row")),
        series="unitrace", source=source,
    )


def load(path: str | Path | Sequence[str | Path], settings: Settings) -> pl.DataFrame:
    """Registry entry: a dataset folder, a report, or the reports of one program's runs.

    ``path`` is

    * a folder holding ``flops.txt`` (and ``bytes.txt``), or a file in it: those two
      reports (rooflow's first dataset layout). Only ``bytes.txt`` is refused (see the
      module doc); with only ``flops.txt`` the report must hold the byte counters;
    * any other folder: the unitrace reports in it, under any names (as unitrace writes
      them, ``NAME.<pid>``; other files are ignored): one FLOP and one bytes report, or
      one report holding both counter sets;
    * any other file: that report alone (it must hold both counter sets);
    * a list: the reports themselves, any names, one or two.

    Two reports are told apart by their counters (:func:`report_counters`), in any
    order: the FLOP run's, then the bytes run's (:func:`unitrace_points`).

    Raises:
        InputError: a report is missing, no report or more than two, or as
            :func:`unitrace_points`.
    """
    if not isinstance(path, str | Path):
        reports = [Path(p) for p in path]
        if not 1 <= len(reports) <= 2:
            raise InputError(", ".join(map(str, reports)) or None, "unitrace reads a FLOP "
                             "report and a bytes report of one program (two files)",
                             check="reports")
        return unitrace_points(*_runs(reports))
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    flops, bytes_ = folder / FLOPS_FILE, folder / BYTES_FILE
    if flops.is_file() or bytes_.is_file():  # the dataset folder of the workflow
        if not flops.is_file():
            raise InputError(
                str(flops), f"file not found: the FLOP counters ({_names(_flop_needed())}) "
                f"come from a second run, unitrace --group {FLOPS_GROUP} -q -o {FLOPS_FILE} "
                "app", check="flops report",
            )
        return unitrace_points(flops, bytes_ if bytes_.is_file() else None)
    if not path.is_dir():
        return unitrace_points(path)
    reports = unitrace_reports(path)
    if not reports:
        raise InputError(str(path), "holds no unitrace report (the text report of unitrace "
                         "-q, with a '== Kernel Metrics ==' section)", check="reports")
    if len(reports) > 2:
        raise InputError(str(path), f"holds {len(reports)} unitrace reports "
                         f"({', '.join(r.name for r in reports)}): a dataset is the FLOP "
                         "report and the bytes report of one program; put each pair in a "
                         "folder of its own, or give the two files", check="reports")
    return unitrace_points(*_runs(reports))


def report_counters(path: str | Path) -> set[str]:
    """The counter sets a report's metrics header names: ``"flops"``, ``"bytes"`` (or both).

    A text search of the report's first 4 MiB past its metrics marker (as kind detection
    reads), not a parse: :func:`unitrace_points` checks the counters themselves.
    """
    section = head_text(Path(path), 4 << 20).partition(UNITRACE_MARKER)[2]
    found = set()
    if any(metric in section for metric in _flop_needed()):
        found.add("flops")
    if any(counter in section for counter in LEVELS["DRAM"]):
        found.add("bytes")
    return found


def _runs(reports: list[Path]) -> tuple[Path, Path | None]:
    """``(FLOP report, bytes report)`` of one or two reports, told apart by their counters.

    Two reports stay in the order given unless the second is the FLOP run and the first
    is not (or the first the bytes run and the second not).
    """
    if len(reports) == 1:
        return reports[0], None
    first, second = reports
    one, two = report_counters(first), report_counters(second)
    if ("flops" in two and "flops" not in one) or ("bytes" in one and "bytes" not in two):
        first, second = second, first
    return first, second


def _flop_needed() -> list[str]:
    return [m for p, (m, _) in FLOP_COUNTERS.items() if p not in OPTIONAL_FLOP]


def _names(metrics: list[str]) -> str:
    return ", ".join(metrics)


def _require(runs: list[Launch], metrics: list[str], path: Path, group: str, what: str) -> None:
    for run in runs:
        missing = [m for m in metrics if m not in run.values]
        if missing:
            raise InputError(
                str(path), f"lacks the {what} counters {_names(missing)}: collect them with "
                f"unitrace --group {group} -q (intel/pti-gpu roofline)",
                row=run.line, check="required counters",
            )


def _same_launches(flop_runs: list[Launch], byte_runs: list[Launch], flops_path: Path,
                   bytes_path: Path) -> None:
    counts: dict[str, list[int]] = {}
    for index, runs in enumerate((flop_runs, byte_runs)):
        for run in runs:
            counts.setdefault(run.kernel, [0, 0])[index] += 1
    for kernel, (n_flop, n_bytes) in counts.items():
        if n_flop != n_bytes:
            raise InputError(
                str(bytes_path), f"kernel launched {n_flop} time(s) in the FLOP run "
                f"({flops_path.name}) but {n_bytes} in the bytes run: the two reports must "
                "come from runs of the same program and input", column="Kernel",
                check="same launches", value=kernel,
            )


def _count(run: Launch, metric: str, path: Path, *, required: bool = False) -> float | None:
    """A counter of one launch as a finite number ≥ 0 (> 0 for ``required`` time)."""
    if metric not in run.values:
        return None
    unit, text = run.values[metric]
    column = f"{metric}[{unit}]" if unit else metric
    if unit != _UNITS[metric]:
        raise InputError(str(path), f"unit '{unit}', expected '{_UNITS[metric]}'",
                         row=run.line, column=column, check="unit")
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0 and (value > 0 or not required)):
        raise InputError(str(path), "not a finite number ≥ 0" + (" (> 0)" if required else ""),
                         row=run.line, column=column, check="numeric", value=text)
    return value


def _time_s(run: Launch, path: Path) -> float:
    """The launch's kernel time in seconds (> 0; :func:`_require` made sure it is there)."""
    time_ns = _count(run, TIME, path, required=True)
    assert time_ns is not None, "checked by _require"
    return time_ns * 1e-9


def _ops(run: Launch, metric: str, factor: float, path: Path) -> float | None:
    events = _count(run, metric, path)
    return None if events is None else events * factor


def _level(run: Launch, counters: tuple[str, ...], path: Path) -> float | None:
    values = [_count(run, c, path) for c in counters]
    known = [v for v in values if v is not None]
    return sum(known) if len(known) == len(values) else None


def _sum(column: str) -> pl.Expr:
    """Sum over launches; null when no launch has the counter (not collected ≠ 0)."""
    return (pl.when(pl.col(column).is_null().all()).then(None)
            .otherwise(pl.col(column).sum()).alias(column))
