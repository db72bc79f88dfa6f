"""Operator models (``operators.yaml``): FLOP, compulsory bytes and precision of a call.

The YAML (the packaged :data:`DEFAULT_OPERATORS`, checked against
``operators.schema.yaml``) maps aten and custom operators to formulas over the dims, element
sizes and scalar arguments a trace records for each call (``Input Dims``, ``Input type``,
``Concrete Inputs``); its header explains the keys. Formulas are compiled by
:mod:`rooflow.models.formula` (never ``eval``) and evaluated for all calls of a model at
once. A call a model does not fit (other rank, dims that disagree, a missing scalar
without a default) gets the reason instead of numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl

from rooflow.defaults import DATA, schema_error
from rooflow.errors import InputError
from rooflow.models.formula import Formula, compile_formula
from rooflow.models.spec_yaml import read_yaml
from rooflow.points import PRECISIONS

DEFAULT_OPERATORS = DATA / "operators.yaml"
_NOT_TENSOR = {"ScalarList", "TensorList", "GenericList"}
_SUFFIXES = ("_numel", "_size", "_bytes")


@dataclass(frozen=True)
class DType:
    """One recorded ``Input type``: element bytes, label, vector and matrix precisions."""

    size: float
    label: str
    vector: str = ""
    matrix: str = ""
    matrix_amd: str = ""


@dataclass(frozen=True)
class OperatorModel:
    """One entry of ``operators``, its formulas compiled.

    ``args`` holds ``(name, spec)`` per recorded input (None: skipped), ``spec`` one of
    ``"tensor"``, ``"value"``, ``"dtype"`` or a tuple of dim names.
    """

    name: str
    family: str
    compute: str
    args: tuple[tuple[str, object] | None, ...]
    precision_from: str | None
    defaults: dict[str, float]
    when: dict[str, float]
    define: tuple[tuple[str, Formula], ...]
    flop: Formula
    bytes: Formula
    needs: frozenset[str]


@dataclass(frozen=True)
class Fit:
    """A call's numbers under a model: FLOP, bytes, precision; what was assumed."""

    model: OperatorModel
    values: dict[str, float]
    precision: str
    assumed: tuple[str, ...] = ()


@dataclass(frozen=True)
class OperatorModels:
    """The models of one ``operators.yaml``: by operator name, then by name pattern."""

    dtypes: dict[str, DType]
    scalar_types: dict[int, str]
    by_op: dict[str, tuple[OperatorModel, ...]]
    patterns: tuple[tuple[re.Pattern, OperatorModel], ...]
    source: str
    models: dict[str, OperatorModel] = field(default_factory=dict)
    tf32_kernels: re.Pattern | None = None

    def kernel_precision(self, fit: Fit, kernels: Sequence[str]) -> str:
        """The precision of a fitted call, TF32 where fp32 matrix work ran on tensor cores."""
        if (fit.precision == "fp32" and fit.model.compute == "matrix"
                and self.tf32_kernels is not None
                and any(self.tf32_kernels.search(k) for k in kernels)):
            return "tf32"
        return fit.precision

    def candidates(self, op: str) -> tuple[OperatorModel, ...]:
        """The models that may describe operator ``op``, in file order."""
        found = self.by_op.get(op, ())
        return found + tuple(m for p, m in self.patterns if p.search(op))

    def dtype_labels(self, types: Sequence) -> str:
        """Short labels of the distinct tensor dtypes of a call, ``/``-joined (``bf16``)."""
        seen = dict.fromkeys(self.dtypes[t].label for t in types or () if t in self.dtypes)
        return "/".join(seen)

    def fit(self, op: str, dims, types, concrete, *, amd: bool = False) -> Fit | str:
        """The first model that fits one call of ``op``, with its bound values, or why none.

        Returns:
            A :class:`Fit` whose ``values`` still lack ``flop`` and ``bytes``
            (:func:`evaluate` adds them), or a one-line reason.
        """
        reasons = []
        for model in self.candidates(op):
            try:
                return self._bind(model, dims or [], types or [], concrete, amd)
            except _NoFit as why:
                reasons.append(f"{model.name}: {why}")
        return "; ".join(reasons) or "no model"

    def _bind(self, model: OperatorModel, dims, types, concrete, amd: bool) -> Fit:
        values: dict[str, float] = {}

        def put(name: str, value: float) -> None:
            if name in values and values[name] != value:
                raise _NoFit(f"{name} is {values[name]:g} and {value:g}")
            values[name] = value

        first = None
        for pos, entry in enumerate(model.args):
            if entry is None:
                continue
            name, spec = entry
            kind = types[pos] if pos < len(types) else ""
            shape = dims[pos] if pos < len(dims) and isinstance(dims[pos], list) else []
            text = concrete[pos] if concrete and pos < len(concrete) else ""
            if spec == "value":
                if (number := _scalar(text)) is not None:
                    put(name, number)
            elif spec == "dtype":
                code = _scalar(text)
                known = self.scalar_types.get(int(code)) if code is not None else None
                put(f"{name}_size", self.dtypes[known].size if known in self.dtypes else 0.0)
            elif kind == "ScalarList" and isinstance(spec, tuple):
                if (listed := _scalar_list(text)) is not None:
                    _match(spec, listed, put)
            elif kind in ("", "Scalar"):  # None, or a number where a tensor may be
                for suffix in _SUFFIXES:
                    put(name + suffix, 0.0)
            elif kind in _NOT_TENSOR:
                raise _NoFit(f"input {pos + 1} is a {kind}, not a tensor")
            elif kind not in self.dtypes:
                raise _NoFit(f"input {pos + 1} has dtype {kind!r}, not in the dtypes table")
            else:
                numel = float(math.prod(int(d) for d in shape))
                size = self.dtypes[kind].size
                put(f"{name}_numel", numel)
                put(f"{name}_size", size)
                put(f"{name}_bytes", numel * size)
                if isinstance(spec, tuple):
                    _match(spec, shape, put)
                if name == model.precision_from or (first is None and not model.precision_from):
                    first = kind
        values.update(_whole_call(self.dtypes, dims, types, concrete))
        assumed = []
        for name in sorted((model.needs | set(model.when)) - set(values)):
            if name not in model.defaults:
                raise _NoFit(f"no value for {name}")
            values[name] = model.defaults[name]
            assumed.append(f"{name}={model.defaults[name]:g}")
        for name, wanted in model.when.items():
            if values[name] != wanted:
                raise _NoFit(f"{name} is {values[name]:g}, the model needs {wanted:g}")
        return Fit(model, values, self._precision(model, first, amd), tuple(assumed))

    def _precision(self, model: OperatorModel, kind: str | None, amd: bool) -> str:
        dtype = self.dtypes.get(kind or "")
        if dtype is None or model.compute == "none":
            return ""
        if model.compute == "vector":
            return dtype.vector
        return (dtype.matrix_amd or dtype.matrix) if amd else dtype.matrix


def _whole_call(dtypes: dict[str, DType], dims, types, concrete) -> dict[str, float]:
    """Names every model may read, over all recorded inputs (``operators.yaml`` header).

    ``tensor_bytes``: every tensor input once; ``first_tensor_bytes`` and
    ``last_tensor_numel``: the first and last tensor inputs; ``last_value``: the last
    input whose Concrete Inputs entry is a number (0 for none of each).
    """
    sized = [(float(math.prod(int(d) for d in dims[p])), dtypes[t].size)
             for p, t in enumerate(types)
             if t in dtypes and p < len(dims) and isinstance(dims[p], list)
             and all(isinstance(d, int | float) for d in dims[p])]
    numbers = [v for v in map(_scalar, concrete or ()) if v is not None]
    return {"tensor_bytes": sum(n * size for n, size in sized),
            "first_tensor_bytes": sized[0][0] * sized[0][1] if sized else 0.0,
            "last_tensor_numel": sized[-1][0] if sized else 0.0,
            "last_value": numbers[-1] if numbers else 0.0}


class _NoFit(Exception):
    """A call the model does not describe (its message says why)."""


def _scalar(text: object) -> float | None:
    """A Concrete Inputs string as a number (``"True"`` → 1), else None."""
    if isinstance(text, bool):
        return float(text)
    if isinstance(text, int | float):
        return float(text)
    text = str(text or "").strip()
    if text in ("True", "False"):
        return float(text == "True")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _scalar_list(text: object) -> list[float] | None:
    """``"[1, 1]"`` → [1.0, 1.0]; None when any item is not a number."""
    text = str(text or "").strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    items = [_scalar(t) for t in text[1:-1].split(",") if t.strip()]
    numbers = [v for v in items if v is not None]
    return numbers if len(numbers) == len(items) else None


def _match(pattern: tuple[str, ...], dims: list, put) -> None:
    """Bind ``dims`` to ``pattern``'s names (one ``*NAME`` takes the rest, as a product)."""
    star = next((i for i, p in enumerate(pattern) if p.startswith("*")), None)
    if star is None:
        if len(dims) != len(pattern):
            raise _NoFit(f"{len(dims)} dims where the model reads {len(pattern)}")
        for name, dim in zip(pattern, dims, strict=True):
            put(name, float(dim))
        return
    after = len(pattern) - star - 1
    if len(dims) < len(pattern) - 1:
        raise _NoFit(f"{len(dims)} dims where the model reads at least {len(pattern) - 1}")
    for name, dim in zip(pattern[:star], dims[:star], strict=True):
        put(name, float(dim))
    for name, dim in zip(pattern[star + 1:], dims[len(dims) - after:], strict=True):
        put(name, float(dim))
    put(pattern[star][1:], float(math.prod(float(d) for d in dims[star:len(dims) - after])))


def evaluate(fits: Sequence[Fit]) -> list[tuple[float, float] | str]:
    """(FLOP, bytes) of each fitted call, or why its numbers are unusable.

    Calls of one model are evaluated together (one polars frame per model).
    """
    out: list[tuple[float, float] | str] = ["not evaluated"] * len(fits)
    groups: dict[str, list[int]] = {}
    for i, fit in enumerate(fits):
        groups.setdefault(fit.model.name, []).append(i)
    for picked in groups.values():
        model = fits[picked[0]].model
        names = sorted({n for i in picked for n in fits[i].values})
        frame = pl.DataFrame({n: [fits[i].values.get(n) for i in picked] for n in names},
                             schema={n: pl.Float64 for n in names})
        for name, formula in model.define:
            frame = frame.with_columns(formula.expr.alias(name))
        result = frame.select(model.flop.expr.alias("flop"), model.bytes.expr.alias("bytes"))
        for i, flop, size in zip(picked, result["flop"], result["bytes"], strict=True):
            if flop is None or size is None or not (math.isfinite(flop) and math.isfinite(size)):
                out[i] = f"{model.name}: FLOP or bytes not finite"
            elif flop < 0 or size <= 0:
                out[i] = f"{model.name}: FLOP {flop:g} or bytes {size:g} not valid"
            else:
                out[i] = (flop, size)
    return out


@cache
def load_operators(path: str | Path = DEFAULT_OPERATORS) -> OperatorModels:
    """Read, schema-check and compile an ``operators.yaml``.

    Raises:
        InputError: unreadable YAML, a schema violation (column = its JSON path), a
            precision outside :data:`rooflow.points.PRECISIONS`, an unknown scalar type,
            two ``*`` dims in one input, an input named twice, a formula outside the
            safe subset or using a name no input, definition or default gives.
    """
    source = str(path)
    doc: Any = read_yaml(path)
    if isinstance(doc, dict) and isinstance(doc.get("scalar_types"), dict):
        # YAML int keys; JSON Schema compares mapping keys as strings
        doc = {**doc, "scalar_types": {str(k): v for k, v in doc["scalar_types"].items()}}
    error = schema_error("operators", doc)
    if error is not None:
        raise InputError(source, error.message, column=error.json_path, check="schema")
    dtypes = {k: DType(**v) for k, v in doc["dtypes"].items()}
    for key, dtype in dtypes.items():
        for precision in (dtype.vector, dtype.matrix, dtype.matrix_amd):
            if precision and precision not in PRECISIONS:
                raise InputError(source, f"dtype {key!r}: unknown precision; known: "
                                 f"{', '.join(PRECISIONS)}", column=f"$.dtypes.{key}",
                                 check="precision vocabulary", value=precision)
    scalar_types = {int(k): v for k, v in doc.get("scalar_types", {}).items()}
    for code, key in scalar_types.items():
        if key not in dtypes:
            raise InputError(source, f"scalar type {code} names no dtype",
                             column=f"$.scalar_types.{code}", value=key)
    models = {name: _compile(name, body, source) for name, body in doc["operators"].items()}
    by_op: dict[str, tuple[OperatorModel, ...]] = {}
    patterns = []
    tf32 = _pattern(doc.get("tf32_kernels"), source, "$.tf32_kernels")
    for name, body in doc["operators"].items():
        for op in body.get("ops", ()):
            by_op[op] = by_op.get(op, ()) + (models[name],)
        if "match" in body:
            pattern = _pattern(body["match"], source, f"$.operators.{name}.match")
            if pattern is not None:
                patterns.append((pattern, models[name]))
    return OperatorModels(dtypes, scalar_types, by_op, tuple(patterns), source, models, tf32)


def _pattern(text: str | None, source: str, where: str) -> re.Pattern | None:
    if text is None:
        return None
    try:
        return re.compile(text)
    except re.error as err:
        raise InputError(source, f"bad regular expression: {err}", column=where,
                         value=text) from None


def _compile(name: str, body: dict, source: str) -> OperatorModel:
    where = f"$.operators.{name}"
    args: list[tuple[str, object] | None] = []
    given = {"tensor_bytes", "first_tensor_bytes", "last_tensor_numel", "last_value"}
    for entry in body["args"]:
        if entry is None:
            args.append(None)
            continue
        (arg, spec), = entry.items()
        if any(a is not None and a[0] == arg for a in args):
            raise InputError(source, f"operator {name!r}: input {arg!r} named twice",
                             column=f"{where}.args", check="unique inputs")
        if isinstance(spec, list):
            if sum(d.startswith("*") for d in spec) > 1:
                raise InputError(source, f"operator {name!r}: input {arg!r} has two '*' dims",
                                 column=f"{where}.args", check="one star")
            spec = tuple(spec)
            given |= {d.lstrip("*") for d in spec}
        if spec == "value":
            given.add(arg)
        elif spec == "dtype":
            given.add(f"{arg}_size")
        else:
            given |= {arg + s for s in _SUFFIXES}
        args.append((arg, spec))
    defaults = {k: float(v) for k, v in body.get("defaults", {}).items()}
    define = tuple((k, compile_formula(v, source=source, what=f"{k} of operator {name!r}"))
                   for k, v in body.get("define", {}).items())
    flop = compile_formula(body["flop"], source=source, what=f"flop of operator {name!r}")
    size = compile_formula(body["bytes"], source=source, what=f"bytes of operator {name!r}")
    formulas = [f for _, f in define] + [flop, size]
    defined = {k for k, _ in define}
    needs = frozenset(n for f in formulas for n in f.names) - defined
    unknown = sorted(needs - given - set(defaults))
    if unknown:
        raise InputError(source, f"operator {name!r}: formulas use {unknown[0]!r}, which no "
                         "input, definition or default gives", column=where,
                         check="known names", value=unknown[0])
    precision_from = body.get("precision_from")
    if precision_from and precision_from not in {a[0] for a in args if a}:
        raise InputError(source, f"operator {name!r}: precision_from names no input",
                         column=f"{where}.precision_from", value=precision_from)
    return OperatorModel(name, body["family"], body["compute"], tuple(args), precision_from,
                         defaults, {k: float(v) for k, v in body.get("when", {}).items()},
                         define, flop, size, needs)
