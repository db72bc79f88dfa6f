"""Empirical Roofline Toolkit (ERT, LBNL CRD) ``roofline.json`` → Measured preset.

ERT writes the measured roofs under ``empirical``: ``gbytes.data`` = ``[[level, GB/s],
...]`` (levels such as ``L1``, ``L2``, ``L3``, ``DRAM``) and ``gflops.data`` =
``[[label, GFLOP/s], ...]``. Labels are ``"FP64 GFLOPs"``, ``"FP32 GFLOPs"``, ... in
ERT versions that measure several precisions, plain ``"GFLOPs"`` in ERT 1.1.0, whose
kernels compute in double precision only: that label means fp64.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.errors import InputError
from rooflow.levels import canonical_level, known_levels
from rooflow.roofs import TOOL_STEM
from rooflow.validate import check

_QUOTED = re.compile(r"""(['"])([^'"]+)\1""")
_GFLOPS_LABEL = re.compile(r"^(?:(FP64|FP32|FP16|BF16)\s+)?GFLOPs$", re.IGNORECASE)


class Roofs(pa.DataFrameModel):
    """One ``[label, value]`` pair of ``gbytes.data`` or ``gflops.data`` per row."""

    label: str = pa.Field(str_length={"min_value": 1}, unique=True)
    value: float = pa.Field(gt=0, le=1e9)


def ert_preset(path: str | Path) -> dict:
    """Measured preset from an ERT ``roofline.json``.

    Returns:
        The preset mapping of ``config/hardware.yaml``: ``name`` (the run's
        ``HOSTNAME``, its first string when it is a list; else the file's stem, or its
        folder's name for a file named ``roofline.json``), ``source``, ``compute``
        (fp64/fp32/fp16/bf16 → TFLOP/s), ``memory`` (DRAM, HBM, L3, L2, L1, LDS → GB/s,
        as measured), ``default_compute`` (the highest-throughput precision),
        ``default_memory`` (``DRAM`` when measured, else the lowest-bandwidth level),
        ``empirical`` True.

    Raises:
        InputError: not JSON; no ``empirical.gbytes.data``/``empirical.gflops.data``
            list of ``[label, number]`` pairs; a value that is not a positive number; an
            unknown memory level or FLOP label; a label given twice.
    """
    from rooflow.safeload import read_json

    path = Path(path)
    # Checked before reading (FIFO, device, size); NaN/Infinity and deep nesting refused.
    data = read_json(path, "an ERT roofline.json")
    empirical = data.get("empirical") if isinstance(data, dict) else None
    gbytes = _roofs(path, empirical, "gbytes")
    gflops = _roofs(path, empirical, "gflops")

    memory = {}
    for label, value in gbytes.iter_rows():
        level = label.strip().upper()
        if canonical_level(level) is None:
            raise InputError(
                str(path), f"unknown memory level; known: {known_levels()}",
                column="empirical.gbytes.data", value=label,
            )
        memory[level] = value
    compute = {}
    for label, value in gflops.iter_rows():
        match = _GFLOPS_LABEL.match(label.strip())
        if not match:
            raise InputError(
                str(path), 'unknown FLOP label; known: "GFLOPs", "<FP64|FP32|FP16|BF16> GFLOPs"',
                column="empirical.gflops.data", value=label,
            )
        compute[(match.group(1) or "FP64").lower()] = value / 1e3  # GFLOP/s → TFLOP/s
    if len(compute) != gflops.height:
        raise InputError(str(path), "the same precision is given twice",
                         column="empirical.gflops.data")

    host = _hostname(empirical) or (path.parent.resolve().name if path.stem == TOOL_STEM
                                    else path.stem)
    return {
        "name": f"{host} (ERT empirical)",
        "source": f"{path} (empirical, Empirical Roofline Toolkit roofline.json)",
        "compute": compute,
        "memory": memory,
        "default_compute": max(compute, key=compute.__getitem__),
        "default_memory": "DRAM" if "DRAM" in memory else min(memory, key=memory.__getitem__),
        "empirical": True,
    }


def _hostname(empirical: object) -> str:
    """The machine the run names: ``HOSTNAME`` of the metadata, its first string.

    ERT writes the metadata as a mapping (``empirical.metadata``, or a section's
    ``metadata``) or as a list of ``"KEY  value"`` strings (its Python 3 version, under
    an empty key of a section's ``metadata``). ``HOSTNAME`` is a name, or what
    ``socket.gethostbyaddr`` returns: ``[name, aliases, addresses]`` in JSON, or that
    tuple's Python text ``('kp361.kingspeak.peaks', ['kp361'], [...])`` in a string.
    "" when no block names one.
    """
    if not isinstance(empirical, dict):
        return ""
    blocks = [empirical.get("metadata")] + [
        section.get("metadata") for section in empirical.values() if isinstance(section, dict)]
    for block in blocks:
        if not isinstance(block, dict):
            continue
        values = [block.get("HOSTNAME")]
        for lines in block.values():
            for line in lines if isinstance(lines, list) else []:
                key, _, rest = str(line).strip().partition(" ")
                if key == "HOSTNAME":
                    values.append(rest)
        for value in values:
            if host := _first_string(value):
                return host
    return ""


def _first_string(value: object) -> str:
    """The first non-empty string of ``value`` (nested lists, or a tuple's Python text)."""
    if isinstance(value, list):
        return next((s for v in value if (s := _first_string(v))), "")
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if text.startswith(("(", "[")):
        quoted = _QUOTED.search(text)
        return quoted.group(2).strip() if quoted else ""
    return text


def _roofs(path: Path, empirical: object, section: str) -> pl.DataFrame:
    """``empirical.<section>.data`` as a validated (label, value) frame."""
    where = f"empirical.{section}.data"
    block = empirical.get(section) if isinstance(empirical, dict) else None
    pairs = block.get("data") if isinstance(block, dict) else None
    if not isinstance(pairs, list) or not pairs:
        raise InputError(str(path), f"no {where} list (not an ERT roofline.json?)",
                         column=where)
    for i, pair in enumerate(pairs, start=1):
        if not (
            isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
            and isinstance(pair[1], int | float) and not isinstance(pair[1], bool)
        ):
            text = repr(pair)  # the offending entry, cut: never the rest of the file
            raise InputError(str(path), "expected a [label, number] pair", row=i, column=where,
                             value=pair if len(text) <= 100 else text[:100] + "…")
    frame = pl.DataFrame(
        {"label": [p[0] for p in pairs], "value": [float(p[1]) for p in pairs]},
        schema={"label": pl.String, "value": pl.Float64},
    )
    try:
        return check(frame, Roofs, path)
    except InputError as err:
        raise InputError(err.file, err.message, row=err.row, column=f"{where}[{err.column}]",
                         check=err.check, value=err.value) from None
