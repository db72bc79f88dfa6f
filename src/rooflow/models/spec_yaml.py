"""Kernel spec YAML (xe-forge format): input tensors, dims and FLOP formula per variant.

A spec file looks like ``resources/specs/1_BatchedMoE.yaml`` (Xe-Forge's ``examples/vllm/``)::

    family: BatchedMoE            # optional; else from the file name (see rooflow.models.families)
    compute_unit: tensor          # optional: tensor or vector (see rooflow.models.families)
    inputs:                       # tensor -> shape (dim names or ints) and dtype
      A: {shape: [E, M, K], dtype: bfloat16}
    inits:                        # Model.__init__ arguments: {param: DIM or a literal}
      - dim: E
      - eps: "1e-6"
    default_variant: bench-gpu-1  # not a variant (ignored, as every non-list key)
    bench-gpu-1:                  # a variant: a list of a mapping
      # gpt-oss 20b: input -> swiglu input      <- the variant's label
      - params: [A]               # tensors the kernel reads (default: all inputs)
        dtype: bfloat16           # optional: replaces floating-point tensor dtypes
        dims: {E: 32, ...}        # integers >= 0 (0 switches a flag/quant code off)
        flop: "E*M*N*K*2"         # FLOP formula over dims (rooflow.models.formula)
        bytes: "..."              # optional byte formula over dims

What is accepted follows Xe-Forge's own loader (``xe_forge/core/spec_loader.py``,
``parse_spec``): every top-level key whose value is a list is a variant, every other one
(``default_variant``, a ``lowering:`` mapping, ...) is not and is ignored with a debug line
(logger ``rooflow.specs``); ``family`` and ``compute_unit`` (the unit the kernel's math
runs on, ``tensor`` or ``vector``: with the dtype it gives the precision) are rooflow's own.
A list of several mappings gives variants ``KEY``, ``KEY[1]``, ``KEY[2]``, ... (Xe-Forge's
variant index); ``inits`` entries are ``{param: value}`` mappings whose value is a dim of
the variant or a literal; an input without ``dtype`` is ``float32``; ``flop`` may be a
number, or left out (such a variant is no point). YAML is read with
:func:`rooflow.safeload.load_yaml` (``yaml.safe_load`` after an event pass that refuses
alias bombs and deep nesting); comments are read from the raw text because YAML drops them.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

import polars as pl

from rooflow.errors import InputError
from rooflow.validate import check, read_text

MAX_BYTES = 1_000_000
MAX_NODES = 100_000  # YAML nodes after expanding aliases (the real specs have ~1 000)
MAX_DIM = 2**53  # dims are evaluated in Float64; larger integers are not exact

# Element width in bytes per dtype name (torch spelling); float8_* are all 1 byte.
DTYPE_WIDTHS: dict[str, int] = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
}
_RESERVED = {"family", "compute_unit", "inputs", "inits"}
COMPUTE_UNITS = ("tensor", "vector")
"""Units a kernel's math runs on: tensor / matrix / XMX units, or vector units."""
_VARIANT_KEYS = {"params", "dims", "flop", "bytes", "dtype"}
"""Keys of a variant's mapping: a top-level mapping holding one is a mis-written variant."""
_LOG = logging.getLogger("rooflow.specs")
# Column names that frames built from a spec use besides its dims.
RESERVED_COLUMNS = frozenset({
    "variant", "index", "dtype", "at", "label", "series", "flop", "bytes",
    "arithmetic_intensity", "bytes_model", "family", "kernel", "source", "row", "resolved",
    "dims", "precision",
})
# A top-level mapping key: at column 0, optionally quoted, then ':' and a value or nothing.
_KEY_LINE = re.compile(r"""^(?P<q>['"]?)(?P<key>[^\s#'":-][^#'":]*?)(?P=q)\s*:(?:\s|$)""")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Tensor(NamedTuple):
    """An input tensor: shape (dim names or literal ints) and dtype name."""

    shape: tuple[str | int, ...]
    dtype: str


@dataclass(frozen=True)
class Variant:
    """One variant of a spec: dims, FLOP formula text (None: not given) and byte formula text."""

    key: str
    label: str | None
    dtype: str | None
    dims: dict[str, int | float]
    flop: str | None
    bytes: str | None
    params: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Spec:
    """A parsed spec file; ``variants`` keep file order."""

    path: Path
    family_key: str | None
    inputs: dict[str, Tensor]
    variants: dict[str, Variant]
    compute_unit: str | None = None

    def dims_frame(self, keys: list[str] | None = None) -> pl.DataFrame:
        """One row per variant (``keys``, default all, in that order).

        Columns: ``variant`` (str, key), ``index`` (i64, 1-based position in the file),
        ``dtype`` (str, null when unset), then one column per numeric dim used by any
        variant (Int64, or Float64 where a variant gives a float; null where that variant
        does not set it). Dims that are not numbers are not in the frame.
        """
        keys = list(self.variants) if keys is None else keys
        order = {key: i for i, key in enumerate(self.variants, start=1)}
        names = sorted({d for k in keys for d in self.variants[k].dims})
        data: dict[str, list] = {
            "variant": keys,
            "index": [order[k] for k in keys],
            "dtype": [self.variants[k].dtype for k in keys],
        }
        for name in names:
            data[name] = [self.variants[k].dims.get(name) for k in keys]
        schema = {"variant": pl.String(), "index": pl.Int64(), "dtype": pl.String()}
        schema |= {name: pl.Float64() if any(isinstance(v, float) for v in data[name])
                   else pl.Int64() for name in names}
        return pl.DataFrame(data, schema=schema)


def dtype_width(dtype: str, *, source: str, where: str) -> int:
    """Element width in bytes of a torch dtype name (``float8_*`` → 1).

    Raises:
        InputError: unknown dtype name.
    """
    if isinstance(dtype, str) and dtype.startswith("float8_"):
        return 1
    if dtype not in DTYPE_WIDTHS:
        raise InputError(source, f"{where}: unknown dtype (known: "
                         f"{', '.join(DTYPE_WIDTHS)}, float8_*)", check="dtype", value=dtype)
    return DTYPE_WIDTHS[dtype]


def is_floating(dtype: str) -> bool:
    """True for floating-point dtype names (float*, bfloat16)."""
    return dtype.startswith(("float", "bfloat"))


def read_yaml(path: str | Path) -> object:
    """Read a YAML file safely: size cap, alias-bomb guard, then ``yaml.safe_load``.

    Raises:
        InputError: missing/unreadable file, over 1 MB, malformed YAML (with the
            line), or more than 100 000 nodes once aliases are expanded.
    """
    return _load(Path(path))[1]


def _load(path: Path) -> tuple[str, object]:
    from rooflow.safeload import load_yaml  # the shared guard: aliases and nesting depth

    text = _read_text(path)
    return text, load_yaml(text, str(path), max_nodes=MAX_NODES)


def _read_text(path: Path) -> str:
    if path.is_file() and path.stat().st_size > MAX_BYTES:
        raise InputError(str(path), f"file is larger than {MAX_BYTES} bytes")
    return read_text(path, "a spec YAML")


def _scan_keys(text: str, path: Path) -> dict[str, tuple[int, str | None]]:
    """Top-level keys → (1-based line, label from the comment line right below).

    Raises:
        InputError: a top-level key appears twice (YAML would keep the last silently).
    """
    lines = text.splitlines()
    found: dict[str, tuple[int, str | None]] = {}
    for i, line in enumerate(lines):
        match = _KEY_LINE.match(line)
        if not match:
            continue
        key = match["key"]
        if key in found:
            raise InputError(str(path), f"line {i + 1}: key {key!r} repeats line "
                             f"{found[key][0]}", check="unique keys", value=key)
        following = next((s.strip() for s in lines[i + 1:] if s.strip()), "")
        label = following.lstrip("#").strip() if following.startswith("#") else ""
        found[key] = (i + 1, label or None)
    return found


@cache
def _variant_table():
    """Per-variant values: variant keys are unique (dims are range-checked as read).

    Built on first use: pandera's import (with pandas; bench/NOTES.md) is not paid by the
    workflow's start-up, which reads the families file through this module.
    """
    import pandera.polars as pa

    class VariantTable(pa.DataFrameModel):
        variant: str = pa.Field(unique=True)

        class Config:
            strict = False

    return VariantTable


def read_spec(path: str | Path) -> Spec:
    """Parse and validate a spec file.

    Raises:
        InputError: unreadable or malformed YAML (with line), an alias bomb, a wrong
            structure (not a mapping, a variant not a list of mappings, ``dims`` not a
            mapping, ``flop``/``bytes`` neither a formula nor a number, a dim not an
            integer, a negative dim, an ``inits`` entry not a mapping, a param not under
            ``inputs``, an unknown dtype), each naming the file, the line and the variant;
            no variant.
    """
    path = Path(path)
    source = str(path)
    text, doc = _load(path)
    if not isinstance(doc, dict):
        raise InputError(source, "a spec must be a YAML mapping", check="structure",
                         value=type(doc).__name__)
    keys = _scan_keys(text, path)

    def at(key: str) -> str:
        line = keys.get(str(key), (None, None))[0]
        return f"line {line}: " if line else ""

    family = doc.get("family")
    if family is not None and (not isinstance(family, str) or not family.strip()):
        raise InputError(source, f"{at('family')}'family' must be a non-empty string",
                         column="family", value=family)
    unit = doc.get("compute_unit")
    if unit is not None and unit not in COMPUTE_UNITS:
        raise InputError(source, f"{at('compute_unit')}'compute_unit' must be one of "
                         f"{', '.join(COMPUTE_UNITS)}", column="compute_unit",
                         check="compute unit", value=unit)
    inputs = _read_inputs(doc.get("inputs"), source, at("inputs"))
    inits = _read_inits(doc.get("inits"), source, at("inits"))

    variants: dict[str, Variant] = {}
    for key, body in doc.items():
        if key in _RESERVED:
            continue
        # Xe-Forge's parse_spec: a list is a variant, any other value is not. A mapping
        # holding variant keys is a variant written without its "- " (refused below).
        if not (isinstance(body, list) and body) and not (
                isinstance(body, dict) and _VARIANT_KEYS & set(body)):
            _LOG.debug("%s: %skey %r is not a variant (%s): ignored", source, at(key), key,
                       "an empty list" if isinstance(body, list) else type(body).__name__)
            continue
        line, label = keys.get(str(key), (0, None))
        if not isinstance(body, list):
            raise InputError(source, f"{at(key)}variant {key!r} must be a list of mappings "
                             "('- params: ...' items)", check="structure", value="dict")
        for index, entry in enumerate(body):
            name = f"{key}[{index}]" if index else str(key)
            variants[name] = _read_variant(name, entry, None if index else label, line,
                                           inputs, inits, source)
    if not variants:
        raise InputError(source, "spec has no variants", check="structure")

    spec = Spec(path=path, family_key=family, inputs=inputs, variants=variants,
                compute_unit=unit)
    table = spec.dims_frame()
    table = table.rename({c: f"dim:{c}" for c in table.columns[3:]})
    try:
        check(table, _variant_table(), source)
    except InputError as err:
        key = table["variant"][err.row - 1] if err.row else None
        where = f"{at(key)}variant {key!r}: " if key else ""
        column = (err.column or "").removeprefix("dim:")
        raise InputError(source, f"{where}dim {column!r} out of range [0, 2**53]",
                         column=column, check=err.check, value=err.value) from None
    return spec


def _is_number(value: object) -> bool:
    """An int or a finite float (YAML bools are ints to Python, not numbers here)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value))


def _used_dims(entry: dict, inputs: dict[str, Tensor], source: str, where: str) -> dict:
    """Dim names the variant's formulas and its params' tensor shapes read."""
    from rooflow.models.formula import compile_formula

    formula: set[str] = set()
    for attr in ("flop", "bytes"):
        text = entry.get(attr)
        if isinstance(text, str) and text.strip():
            formula |= compile_formula(text, source=source, what=f"{attr} of {where}").names
    params = entry.get("params", list(inputs))
    shape = {d for p in (params if isinstance(params, list) else []) if p in inputs
             for d in inputs[p].shape if isinstance(d, str)}
    return {"formula": formula, "shape": shape}


def _read_inputs(raw: object, source: str, at: str) -> dict[str, Tensor]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(source, f"{at}'inputs' must map tensor names to shape and dtype",
                         check="structure", value=type(raw).__name__)
    inputs = {}
    for name, body in raw.items():
        where = f"{at}input {name!r}"
        if not isinstance(body, dict):
            raise InputError(source, f"{where} must be a mapping of 'shape' and 'dtype'",
                             check="structure", value=type(body).__name__)
        # Xe-Forge's defaults: no shape is a scalar, no dtype float32.
        shape = body.get("shape", [])
        if not isinstance(shape, list) or not all(
            (isinstance(d, str) and _NAME.match(d))
            or (isinstance(d, int) and not isinstance(d, bool) and d > 0)
            for d in shape
        ):
            raise InputError(source, f"{where}: shape must be a list of dim names or "
                             "positive integers", column="shape", value=shape)
        dtype = body.get("dtype", "float32")
        dtype_width(dtype, source=source, where=where)
        inputs[str(name)] = Tensor(tuple(shape), dtype)
    return inputs


def _read_inits(raw: object, source: str, at: str) -> dict[str, object]:
    """``inits``: Model.__init__ parameter → a dim name or a literal value, in file order.

    Xe-Forge passes a variant's dim when the value names one, else the value itself
    (``- dim: E``, ``- hidden_size: HIDDEN``, ``- eps: "1e-6"``).
    """
    if raw is None:
        return {}
    if not isinstance(raw, list) or not all(
        isinstance(item, dict) and item and all(isinstance(k, str) for k in item)
        and all(isinstance(v, str | int | float) for v in item.values()) for item in raw
    ):
        raise InputError(source, f"{at}'inits' must be a list of {{param: DIM or value}}",
                         check="structure", value=raw)
    return {k: v for item in raw for k, v in item.items()}


def _read_variant(
    key: str,
    body: object,
    label: str | None,
    line: int,
    inputs: dict[str, Tensor],
    inits: dict[str, object],
    source: str,
) -> Variant:
    """One entry of a variant's list (``body``: its mapping)."""
    where = f"line {line}: variant {key!r}" if line else f"variant {key!r}"
    if not isinstance(body, dict):
        raise InputError(source, f"{where} must be a list of mappings ('- params: ...', "
                         "'  dims: ...' items)", check="structure", value=type(body).__name__)
    entry = dict(body)
    for attr in ("flop", "bytes"):  # Xe-Forge takes a number for a formula
        if _is_number(entry.get(attr)):
            entry[attr] = repr(entry[attr])
    dims = entry.get("dims", {})
    if not isinstance(dims, dict):
        raise InputError(source, f"{where} needs a 'dims' mapping", column="dims",
                         check="structure", value=type(dims).__name__)
    for name in dims:
        if (not isinstance(name, str) or not _NAME.match(name) or name.startswith("__")
                or name in RESERVED_COLUMNS):
            raise InputError(source, f"{where}: dim name must be an identifier, not starting "
                             "with '__' nor one of " + ", ".join(sorted(RESERVED_COLUMNS)),
                             column="dims", value=name)
    # Dims no formula and no tensor shape uses may be any YAML value (real specs carry
    # SCALING_FACTOR: 1.5, eps: '1e-5', lists); those that are used must be numbers.
    numeric = {n: v for n, v in dims.items() if _is_number(v)}
    used = _used_dims(entry, inputs, source, where)
    for name, value in dims.items():
        if name in used["shape"] and not (isinstance(value, int) and not isinstance(value, bool)):
            raise InputError(source, f"{where}: dim {name!r} is used in a tensor shape, so it "
                             "must be an integer", column=name, check="integer", value=value)
        if name in used["formula"] and name not in numeric:
            raise InputError(source, f"{where}: dim {name!r} is used in a formula, so it must "
                             "be a number", column=name, check="number", value=value)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
            raise InputError(source, f"{where}: dim {name!r} must be a 64-bit integer",
                             column=name, check="integer", value=value)
        # Dims are evaluated in Float64: larger integers are not exact.
        if name in numeric and not 0 <= value <= MAX_DIM:
            raise InputError(source, f"{where}: dim {name!r} out of range [0, 2**53]",
                             column=name, check="in_range(0, 2**53)", value=value)
    for param, value in inits.items():
        if isinstance(value, str) and _NAME.match(value) and value not in dims:
            _LOG.debug("%s: %s sets no dim %r: init %r is passed as the text, as Xe-Forge "
                       "does", source, where, value, param)
    flop = entry.get("flop")
    if flop is not None and (not isinstance(flop, str) or not flop.strip()):
        raise InputError(source, f"{where}: 'flop' must be a formula string or a number",
                         column="flop", value=flop)
    formula_bytes = entry.get("bytes")
    if formula_bytes is not None and (not isinstance(formula_bytes, str)
                                      or not formula_bytes.strip()):
        raise InputError(source, f"{where}: 'bytes' must be a formula string or a number",
                         column="bytes", value=formula_bytes)
    dtype = entry.get("dtype")
    if dtype is not None:
        dtype_width(dtype, source=source, where=where)
    params = entry.get("params", list(inputs))
    if not isinstance(params, list) or any(p not in inputs for p in params):
        unknown = [p for p in params if p not in inputs] if isinstance(params, list) else params
        raise InputError(source, f"{where}: 'params' must name tensors under 'inputs'",
                         column="params", value=unknown)
    return Variant(key=key, label=label, dtype=dtype, dims=numeric, flop=flop,
                   bytes=formula_bytes, params=tuple(params), line=line)
