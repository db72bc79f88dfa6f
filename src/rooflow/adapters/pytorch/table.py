"""The operator table of a linked trace: GPU time per operator shape, modelled or not.

Every GPU event of the trace lands in exactly one share of :attr:`OperatorTable.shares`:
an operator row (``modelled``, ``bandwidth-only`` or ``no model``), ``communication``
(NCCL/RCCL kernels and the collective operators that launch them: never roofline points),
``host transfers`` (memcpy between host and device: PCIe, not device memory) or
``unlinked`` (no launching operator, e.g. CUDA/HIP graph replays).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import polars as pl

from rooflow.adapters.pytorch.operators import Fit, OperatorModels, evaluate
from rooflow.adapters.pytorch.trace import Op, Trace, Work
from rooflow.formats.devices import GENERIC_DEVICE_NAMES

SHARES = ("modelled", "bandwidth-only", "no model", "communication", "host transfers",
          "unlinked")
"""Where GPU time goes, in the order the log lists it."""

_COMM_OPS = re.compile(r"^(record_param_comms|c10d::|_c10d_functional::|c10d_functional::"
                       r"|nccl:|symm_mem::)")
_COMM_KERNELS = re.compile(r"nccl|rccl", re.IGNORECASE)

TABLE_SCHEMA = {
    "op": pl.String(), "label": pl.String(), "status": pl.String(), "model": pl.String(),
    "family": pl.String(), "launches": pl.Int64(), "kernels": pl.Int64(),
    "time_s": pl.Float64(), "flop": pl.Float64(), "bytes": pl.Float64(),
    "precision": pl.String(), "device": pl.String(), "row": pl.Int64(), "reason": pl.String(),
}
"""Columns of :attr:`OperatorTable.operators` (see :func:`operator_table`)."""


@dataclass
class OperatorTable:
    """An operator table and what the log says about the trace.

    Attributes:
        operators: one row per operator shape (or call), :data:`TABLE_SCHEMA`.
        shares: GPU seconds per share of :data:`SHARES`.
        methods: GPU events per link method (``id``, ``time``, ``no launch``,
            ``outside ops``).
        contradicted: External id matches refused because time containment disagreed.
        assumed: model name → values assumed for calls without Concrete Inputs.
        devices: notes on GPUs named only by their properties.
        skipped: notes on the events the reader left out (:attr:`.trace.Trace.notes`).
    """

    operators: pl.DataFrame
    shares: dict[str, float]
    methods: Counter
    contradicted: int
    assumed: dict[str, set[str]] = field(default_factory=dict)
    devices: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _share(work: Work, op: Op | None) -> str | None:
    """The share of one GPU event outside operator rows, else None."""
    if op is None:
        return "unlinked"
    if _COMM_KERNELS.search(work.name) or _COMM_OPS.match(op.name):
        return "communication"
    if work.category == "gpu_memcpy" and "DtoD" not in work.name:
        return "host transfers"
    return None


def device_names(trace: Trace) -> tuple[dict, list[str]]:
    """GPU id → name from ``deviceProperties``, and notes on unnamed GPUs.

    A generic or empty name gets the properties that tell the GPU apart (compute
    capability, SMs/CUs, memory). A kernel's device missing from the list (ROCm agent
    indices) gets the name all listed GPUs share, if they share one.
    """
    names: dict = {}
    notes = []
    for props in trace.devices:
        if not isinstance(props.get("id"), str | int | float | None):
            continue  # an id no kernel can name (a list, an object)
        name = str(props.get("name") or "").strip()
        if name in GENERIC_DEVICE_NAMES:
            units = "CUs" if props.get("warpSize") == 64 else "SMs"
            memory = props.get("totalGlobalMem")
            memory = memory / 2**30 if isinstance(memory, int | float) else 0
            name = (f"{name or 'unnamed GPU'} (compute {props.get('computeMajor')}."
                    f"{props.get('computeMinor')}, {props.get('numSms')} {units}, "
                    f"{memory:.0f} GiB)")
            notes.append(f"deviceProperties give no product name: {name}")
        names[props.get("id")] = name
    return names, sorted(set(notes))


def _shape_label(op: Op, models: OperatorModels) -> str:
    types = op.types or []
    dims = op.dims or []
    shapes = [
        "[" + ",".join(str(int(d)) for d in dims[p]) + "]"
        for p, t in enumerate(types)
        if t in models.dtypes and p < len(dims) and isinstance(dims[p], list)
        and all(isinstance(d, int | float) for d in dims[p])
    ]
    return " ".join(filter(None, (op.name, "x".join(shapes), models.dtype_labels(types))))


def _freeze(value):
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def operator_table(trace: Trace, models: OperatorModels, *, per_launch: bool = False,
                   ) -> OperatorTable:
    """GPU time, FLOP and bytes per operator shape of a linked trace (:func:`.trace.link`).

    Shapes group the calls of one operator with the same input dims, dtypes and scalar
    arguments (``Concrete Inputs``); with ``per_launch`` every call is its own row.

    Columns (:data:`TABLE_SCHEMA`): ``op`` operator name; ``label`` op, input dims and
    dtypes (``aten::mm [15360,4096]x[4096,6144] bf16``); ``status`` modelled,
    bandwidth-only or no model; ``model`` the operators.yaml entry; ``family``;
    ``launches`` operator calls; ``kernels`` GPU events they launched; ``time_s`` their
    GPU time (s, memcpy to or from the host left out); ``flop`` (FLOP, or OP for integer
    precisions) and ``bytes`` (byte) summed over the calls, null without a model;
    ``precision``; ``device``; ``row`` the first call's 1-based event index in
    ``traceEvents``; ``reason`` why a row has no model.
    """
    names, notes = device_names(trace)
    shared = set(names.values())
    amd = any(d.get("warpSize") == 64 or "AMD" in str(d.get("name")) for d in trace.devices)
    shares = dict.fromkeys(SHARES, 0.0)
    calls: dict[int, list[Work]] = defaultdict(list)
    for item in trace.work:
        op = trace.ops[item.op] if item.op >= 0 else None
        share = _share(item, op)
        if share is None:
            calls[item.op].append(item)
        else:
            shares[share] += item.dur_us * 1e-6
    groups: dict[object, list[int]] = defaultdict(list)
    for i in calls:
        op = trace.ops[i]
        key = i if per_launch else (op.name, _freeze(op.dims), _freeze(op.types),
                                     _freeze(op.concrete))
        groups[key].append(i)
    rows: list[dict] = []
    fits: list[Fit] = []
    fitted: list[dict] = []
    kernels: list[list[str]] = []
    for members in groups.values():
        op = trace.ops[members[0]]
        items = [w for i in members for w in calls[i]]
        device = names.get(items[0].device, next(iter(shared)) if len(shared) == 1 else "")
        fit = models.fit(op.name, op.dims, op.types, op.concrete, amd=amd)
        row = {"op": op.name, "label": _shape_label(op, models), "status": "no model",
               "model": "", "family": "", "launches": len(members), "kernels": len(items),
               "time_s": sum(w.dur_us for w in items) * 1e-6, "flop": None, "bytes": None,
               "precision": "", "device": device, "row": op.index, "reason": ""}
        if isinstance(fit, Fit):
            fits.append(fit)
            fitted.append(row)
            kernels.append([w.name for w in items])
        else:
            row["reason"] = fit if op.dims is not None else "no input shapes recorded"
        rows.append(row)
    assumed: dict[str, set[str]] = defaultdict(set)
    for fit, row, launched, numbers in zip(fits, fitted, kernels, evaluate(fits), strict=True):
        if isinstance(numbers, str):
            row["reason"] = numbers
            continue
        flop, size = numbers
        row.update(status="modelled" if flop > 0 else "bandwidth-only", model=fit.model.name,
                   family=fit.model.family, flop=flop * row["launches"],
                   bytes=size * row["launches"],
                   precision=models.kernel_precision(fit, launched))
        if fit.assumed:
            assumed[fit.model.name].update(fit.assumed)
    for row in rows:
        shares[row["status"]] += row["time_s"]
    _distinct_labels(rows, trace, per_launch)
    table = pl.DataFrame(rows, schema=TABLE_SCHEMA, orient="row") if rows else \
        pl.DataFrame(schema=TABLE_SCHEMA)
    return OperatorTable(table.sort("time_s", descending=True, maintain_order=True), shares,
                         Counter(w.method for w in trace.work), trace.contradicted,
                         dict(assumed), notes, trace.notes)


def _distinct_labels(rows: list[dict], trace: Trace, per_launch: bool) -> None:
    """Make labels unique: a call's event index, else the scalar arguments that differ."""
    if per_launch:
        for row in rows:
            row["label"] += f" @{row['row']}"
        return
    seen = Counter(row["label"] for row in rows)
    index = {op.index: op for op in trace.ops}
    for row in rows:
        if seen[row["label"]] > 1:
            scalars = [c for c in index[row["row"]].concrete or () if c not in ("", None)]
            row["label"] += f" ({', '.join(map(str, scalars))})" if scalars else f" @{row['row']}"
    seen = Counter(row["label"] for row in rows)
    for row in rows:
        if seen[row["label"]] > 1:
            row["label"] += f" @{row['row']}"
