"""PyTorch profiler traces → operator-level roofline points (kind ``pytorch``).

A trace written by ``torch.profiler`` with ``record_shapes=True`` and CPU + CUDA (or ROCm)
activities holds every operator's input dims and dtypes and every GPU kernel's duration.
:mod:`.trace` streams the file and links each kernel (and memcpy/memset) to the innermost
operator that launched it; :mod:`.operators` gives each operator call its FLOP and
compulsory bytes from ``operators.yaml``; :mod:`.table` groups the calls per operator shape
and accounts for every GPU microsecond. Kernel names never decide anything: a point is an
operator shape, its time the GPU time of the kernels it launched.

Sources: Kineto's Chrome-trace writer (pytorch/kineto ``libkineto/src/output_json.cpp``:
``cpu_op``, ``cuda_runtime``/``cuda_driver``, ``kernel``/``gpu_memcpy``/``gpu_memset``,
``ac2g`` flows, ``deviceProperties``); PyTorch's profiler (``torch/csrc/profiler``:
``Input Dims``, ``Input type``, ``Concrete Inputs``, ``External id``); operator schemas
from ``aten/src/ATen/native/native_functions.yaml``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import polars as pl

from rooflow.adapters.pytorch import SERIES
from rooflow.adapters.pytorch.coverage import remember
from rooflow.adapters.pytorch.operators import DEFAULT_OPERATORS, load_operators
from rooflow.adapters.pytorch.table import SHARES, OperatorTable, operator_table
from rooflow.adapters.pytorch.trace import Trace, link, read_trace
from rooflow.errors import InputError
from rooflow.points import PER_CALL_SCHEMA, to_points
from rooflow.settings import Settings

__all__ = ["load", "pytorch_points", "pytorch_table", "read_trace"]

_LOG = logging.getLogger("rooflow.pytorch")
_RECORD = ("torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], "
           "record_shapes=True)")


def _check_recorded(trace: Trace) -> None:
    """One line for a trace that cannot give points, saying what to record."""
    if not trace.work:
        raise InputError(trace.source, "no GPU activity (kernels, memcpy, memset) in the "
                         f"trace: record it with {_RECORD} (CUDA covers ROCm too)",
                         check="GPU activity")
    if not trace.ops:
        raise InputError(trace.source, f"{len(trace.work)} GPU events but no CPU operators "
                         f"(cpu_op events) to place them: record with {_RECORD}",
                         check="operators")
    if not trace.has_shapes:
        raise InputError(trace.source, f"{len(trace.ops)} operators but no input shapes "
                         "(Input Dims): record with record_shapes=True, as in "
                         f"{_RECORD}", check="shapes")


def pytorch_table(
    path: str | Path, *, per_launch: bool = False, operators: str | Path = DEFAULT_OPERATORS,
) -> OperatorTable:
    """The operator table of a trace (:func:`.table.operator_table`): read, link, model.

    Raises:
        InputError: not a readable trace; no GPU activity; no operators; no shapes
            (each line says what to record); a bad ``operators`` file.
    """
    trace = read_trace(path)
    _check_recorded(trace)
    link(trace)
    return operator_table(trace, load_operators(Path(operators)), per_launch=per_launch)


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "0 %"


def report_lines(source: str, result: OperatorTable) -> list[str]:
    """What the log says of a trace: GPU time, its shares, the models' notes.

    Linking, GPU time shares, operators without a model, and the notes of models whose
    numbers are bounds (operators.yaml ``note``).
    """
    m = result.methods
    unlinked = m["no launch"] + m["outside ops"]
    lines = [f"{source}: {sum(m.values()):,} GPU events linked to operators: {m['id']:,} by "
             f"External id (checked by time), {m['time']:,} by time containment on the "
             f"launching thread; {unlinked:,} unlinked ({m['no launch']:,} without a launch "
             f"event, {m['outside ops']:,} launched outside every operator, e.g. graph "
             "replays)"]
    if result.contradicted:
        lines.append(f"{source}: {result.contradicted:,} External id matches contradicted time "
                     "containment and were not used")
    total = sum(result.shares.values())
    lines.append(f"{source}: GPU time {total * 1e3:,.3f} ms: " + ", ".join(
        f"{name} {_pct(result.shares[name], total)}" for name in SHARES))
    missing = (result.operators.filter(pl.col("status") == "no model")
               .group_by("op").agg(pl.col("time_s").sum(), pl.col("launches").sum())
               .sort("time_s", descending=True))
    if missing.height:
        shown = [f"{r['op']} {_pct(r['time_s'], total)} ({r['launches']} calls)"
                 for r in missing.head(8).iter_rows(named=True)]
        rest = missing.slice(8)
        if rest.height:
            shown.append(f"{rest.height} more {_pct(float(rest['time_s'].sum()), total)}")
        lines.append(f"{source}: no model: " + ", ".join(shown))
    noted = (result.operators.filter(pl.col("note") != "")
             .group_by("model", "note", maintain_order=True).agg(pl.col("time_s").sum())
             .sort("model"))
    for r in noted.iter_rows(named=True):
        lines.append(f"{source}: {r['model']} ({_pct(r['time_s'], total)} of GPU time): "
                     f"{r['note']}")
    for model, values in sorted(result.assumed.items()):
        lines.append(f"{source}: {model}: no Concrete Inputs for some calls, assumed "
                     + ", ".join(sorted(values)))
    lines += [f"{source}: {note}" for note in result.devices + result.skipped]
    return lines


def pytorch_points(
    path: str | Path, *, per_launch: bool = False, operators: str | Path = DEFAULT_OPERATORS,
    log: Callable[[str], None] | None = None,
) -> pl.DataFrame:
    """Canonical points (:mod:`rooflow.points`) of a PyTorch profiler trace.

    One row per operator shape (or call, with ``per_launch``) with GPU time and a model:
    series "pytorch", family the model's family (GEMM, attention, norm, ...), label and
    kernel the op with its input dims and dtypes, level DRAM, precision from the dtype of
    the model's deciding input (``precision_from``, else the first tensor), as the
    ``dtypes`` table of ``operators.yaml`` maps it: matrix ops (GEMM, convolution,
    attention) at its tensor/matrix precision (bf16 → ``bf16-tensor``, fp8 →
    ``fp8-tensor``; fp32 → ``fp32``, or ``tf32`` where the kernel names say TF32 tensor
    cores, ``fp32-matrix`` on AMD); vector ops (norms, softmax, elementwise) at the
    precision they compute in: ``fp32`` for fp16, bf16 and fp32 inputs (ATen computes
    16-bit types in float, ``at::opmath_type``), ``fp64``, ``int32``/``int64``; empty
    for bandwidth-only rows and where the table gives the dtype no precision for that
    kind of work (e.g. fp8 vector work). flop (FLOP, or OP) and bytes (compulsory traffic,
    byte) summed over the calls, time_s the GPU time of the kernels they launched (s),
    bytes_model "operator", device the GPU's ``deviceProperties`` name, row the first
    call's event index (0 when calls are summed), launches the GPU kernels the calls
    launched (the launch floor of potential time saved, :mod:`rooflow.analysis`); the
    per-call columns (:data:`rooflow.points.PER_CALL_SCHEMA`): ``calls`` and the mean,
    median, std (ddof 1), min and max GPU time of one call (s). Bandwidth-only operators
    (copies, Inductor Triton kernels) have flop 0. Operators without a model,
    communication, host transfers and unlinked GPU time are listed in the log (``log``,
    default the ``rooflow.pytorch`` logger), never silently dropped; their shares are kept
    for :func:`.coverage.coverage_of`.

    Raises:
        InputError: as :func:`pytorch_table`; no operator with a model ran on the GPU.
    """
    result = pytorch_table(path, per_launch=per_launch, operators=operators)
    remember(path, result)  # for the batch job's metadata and the CLI's note
    say = log or _LOG.warning
    for line in report_lines(str(path), result):
        say(line)
    rows = result.operators.filter(pl.col("status") != "no model", pl.col("time_s") > 0)
    if not rows.height:
        top = result.operators.head(3)["op"].to_list()
        raise InputError(str(path), "no operator with a model ran on the GPU"
                         + (f" (most GPU time: {', '.join(top)})" if top else "")
                         + "; see the log for where the GPU time went", check="operator models")
    frame = rows.select(
        pl.lit(SERIES).alias("series"),
        "family", "label", pl.col("label").alias("kernel"),
        pl.lit("DRAM").alias("level"), "precision", "flop", "bytes", "time_s",
        pl.when(pl.col("flop") > 0).then(pl.col("flop") / pl.col("bytes"))
        .alias("arithmetic_intensity"),
        (pl.col("flop") / pl.col("time_s")).alias("performance"),
        pl.lit("operator").alias("bytes_model"),
        pl.lit(str(path)).alias("source"),
        (pl.col("row") if per_launch else pl.lit(0, dtype=pl.Int64)).alias("row"),
        "device", pl.col("kernels").alias("launches"),
        pl.col("launches").alias("calls"),
        *[c for c in PER_CALL_SCHEMA if c != "calls"],
    )
    return to_points(frame)


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry (kind ``pytorch``): :func:`pytorch_points`, per shape or per call.

    Per call with ``settings.pytorch_per_launch`` (config ``pytorch.per_launch``).
    """
    return pytorch_points(path, per_launch=settings.pytorch_per_launch)
