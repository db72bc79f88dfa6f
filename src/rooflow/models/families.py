"""Kernel family models (``config/families.yaml``) and spec variants → roofline points.

A family model gives FLOP and compulsory DRAM bytes from a kernel's dims. Byte
model: every tensor is streamed from DRAM exactly once (perfect on-chip reuse), so
``arithmetic_intensity = flop / bytes`` is an upper bound for the kernel. Element
widths come from a quant-code dim (e.g. ``QUANT``), whose label is the point's
``series``. The YAML keys are documented in config/README.md and checked against
the packaged ``families.schema.yaml``.

Family resolution (:func:`resolve_family`) for a spec file stem or a benchmark
``family`` value such as ``2_BatchedMoE``: the config ``family_map`` (by the name as
written, then without its leading ``N_``), else the spec's own ``family:`` key, else
the name without its leading ``N_``.

Without a model, FLOP comes from the variant's ``flop`` formula and bytes from its
``bytes`` formula (``bytes_model = "given"``) or from the tensors under ``inputs``,
each read once at its dtype width (``"inputs-only"``).

Precision (:func:`kernel_metrics`) is never assumed. A width code's ``precision`` gives it;
else the kernel's dtype (the variant's ``dtype``, else the one floating-point dtype of the
tensors it reads) on its compute unit (:func:`compute_unit`: ``tensor`` or ``vector``)
does, through :data:`DTYPE_PRECISIONS`: a bf16 GEMM is ``bf16-tensor``, a bf16 RMS norm
``bf16``. Without a unit, with mixed dtypes or a dtype the unit has no precision for, the
point's precision is "" (not given; not judged, :mod:`rooflow.analysis`), and a warning
(logger ``rooflow.specs``) says why.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rooflow.defaults import DEFAULT_FAMILIES, schema_error
from rooflow.errors import InputError
from rooflow.models.formula import Formula, compile_formula, evaluate
from rooflow.models.spec_yaml import COMPUTE_UNITS, Spec, dtype_width, is_floating, read_yaml
from rooflow.points import PRECISIONS

_ORDER_PREFIX = re.compile(r"^\d+_")
_LOG = logging.getLogger("rooflow.specs")

DTYPE_PRECISIONS: dict[str, dict[str, str]] = {
    "float64": {"vector": "fp64", "tensor": "fp64-tensor"},
    # float32 matrix math stays fp32: TF32 is an opt-in precision of its own (PyTorch's
    # torch.backends.cuda.matmul.allow_tf32 is False by default since 1.12,
    # https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices).
    "float32": {"vector": "fp32", "tensor": "fp32"},
    "float16": {"vector": "fp16", "tensor": "fp16-tensor"},
    "bfloat16": {"vector": "bf16", "tensor": "bf16-tensor"},
    # fp8 and int8 are tensor-unit formats; vector units compute them after widening.
    "float8": {"tensor": "fp8-tensor"},
    "int8": {"tensor": "int8-tensor"},
    "int32": {"vector": "int32"},
    "int64": {"vector": "int64"},
}
"""A torch dtype name (``float8_*`` as ``float8``) → its precision per compute unit
(:data:`rooflow.points.PRECISIONS`); a unit it lacks gives no precision."""


class Families(dict):
    """Family name → :class:`FamilyModel`, and ``compute_units``: unit → name patterns.

    ``compute_units`` (``families.yaml``'s top-level key) gives the unit of a family
    without a model, or whose model names none, by regular expressions searched in its
    name (case-insensitively), units in file order: ``{"tensor": ("gemm", ...), ...}``.
    """

    compute_units: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True)
class FamilyModel:
    """One family of ``families.yaml`` with its formulas compiled.

    ``widths`` maps a code to its width names → bytes per element; ``labels`` maps
    a code to its series label and ``precisions`` to its compute precision;
    ``dim_defaults`` gives dims a spec may leave out; ``define`` holds named
    sub-formulas in file order.
    """

    name: str
    code: str | None
    widths: dict[int, dict[str, float]]
    labels: dict[int, str]
    precisions: dict[int, str]
    dim_defaults: dict[str, float]
    define: tuple[tuple[str, Formula], ...]
    flop: Formula
    bytes: Formula
    source: str
    compute_unit: str | None = None

    def apply(
        self, dims: pl.DataFrame, *, source: str, where: str | None = None,
        row: str | None = None,
    ) -> pl.DataFrame:
        """Add ``flop``, ``bytes`` (byte), ``series`` (width label), ``precision`` to ``dims``.

        ``dims`` has one Int64 column per dim; a missing or null code dim means
        code 0, a missing or null dim of ``dim_defaults`` its default.
        ``source``/``where``/``row`` locate rows in errors (see
        :func:`rooflow.models.formula.evaluate`).

        Raises:
            InputError: an unknown code (column = the code dim), a dim named like a
                width or definition, a dim the formulas need is missing, or a
                non-finite / non-positive FLOP or byte count.
        """
        names = {n for w in self.widths.values() for n in w} | {n for n, _ in self.define}
        clash = sorted(names & set(dims.columns))
        if clash:
            raise InputError(source, f"dim {clash[0]!r} is also a width/definition name of "
                             f"family {self.name!r}", column=clash[0], check="family names")
        code = (pl.col(self.code).fill_null(0) if self.code in dims.columns
                else pl.lit(0, dtype=pl.Int64))
        codes = dims.select(code.alias("code"))["code"]
        unknown = ~codes.is_in(list(self.widths))
        if unknown.any():
            i = int(unknown.arg_true()[0])
            prefix = f"{dims[where][i]}: " if where else ""
            raise InputError(
                source,
                f"{prefix}unknown {self.code} code for family {self.name!r} "
                f"(known: {', '.join(map(str, self.widths))})",
                row=int(dims[row][i]) if row else i + 1,
                column=self.code, check="known code", value=int(codes[i]),
            )
        known = list(self.widths)
        # A default dim may be absent from every variant (no column) or from some (null).
        frame = dims.with_columns(
            *(pl.col(k).fill_null(v) if k in dims.columns else pl.lit(v, dtype=pl.Float64)
              .alias(k) for k, v in self.dim_defaults.items()),
            code.replace_strict(known, [self.labels[c] for c in known],
                                return_dtype=pl.String).alias("series"),
            *(code.replace_strict(known, [self.widths[c][n] for c in known],
                                  return_dtype=pl.Float64).alias(n)
              for n in self.widths[known[0]]),
        )
        for name, formula in self.define:
            values = evaluate(formula, frame, source=source, where=where, row=row,
                              positive=False)
            frame = frame.with_columns(values.alias(name))
        flop = evaluate(self.flop, frame, source=source, where=where, row=row)
        byte_count = evaluate(self.bytes, frame, source=source, where=where, row=row)
        precision = dims.select(code.replace_strict(
            known, [self.precisions[c] for c in known], return_dtype=pl.String))
        return dims.with_columns(flop=flop, bytes=byte_count, series=frame["series"],
                                 precision=precision.to_series())


def load_families(path: str | Path = DEFAULT_FAMILIES) -> Families:
    """Read, schema-check and compile ``families.yaml``; family name → model.

    The result's ``compute_units`` holds the file's ``compute_units`` (:class:`Families`).

    Raises:
        InputError: unreadable/malformed YAML, a JSON Schema violation (column = the
            JSON path), width codes with different width names, a definition named
            like a width, or a formula outside the safe subset.
    """
    source = str(path)
    doc = _string_keys(read_yaml(path))
    error = schema_error("families", doc)
    if error is not None:
        raise InputError(source, error.message, column=error.json_path, check="schema",
                         value=None if isinstance(error.instance, dict | list) else error.instance)
    assert isinstance(doc, dict), "the schema requires a mapping"
    families = Families((name, _compile_family(name, body, source))
                        for name, body in doc["families"].items())
    units = doc.get("compute_units", {})
    for unit, patterns in units.items():
        for i, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as err:
                raise InputError(source, f"not a regular expression: {err}",
                                 column=f"$.compute_units.{unit}[{i}]", check="pattern",
                                 value=pattern) from None
    families.compute_units = {u: tuple(units[u]) for u in COMPUTE_UNITS if u in units}
    return families


def _string_keys(value: object) -> object:
    """YAML ``0:`` keys are ints; JSON Schema compares mapping keys as strings."""
    if isinstance(value, dict):
        return {str(k): _string_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_string_keys(v) for v in value]
    return value


def _compile_family(name: str, body: dict, source: str) -> FamilyModel:
    widths = {int(code): {k: float(v) for k, v in entry.items()
                          if k not in ("label", "precision")}
              for code, entry in body["widths"].items()}
    labels = {int(code): entry["label"] for code, entry in body["widths"].items()}
    # Without one, the dtype and compute unit give it (kernel_metrics), or none is given.
    precisions = {int(code): entry.get("precision", "")
                  for code, entry in body["widths"].items()}
    for code, precision in precisions.items():
        if precision and precision not in PRECISIONS:
            raise InputError(source, f"family {name!r}: unknown precision; known: "
                             f"{', '.join(PRECISIONS)}", column=f"$.families.{name}.widths."
                             f"{code}.precision", check="precision vocabulary", value=precision)
    width_names = set(next(iter(widths.values())))
    for code, entry in widths.items():
        if set(entry) != width_names:
            raise InputError(source, f"family {name!r}: width code {code} has widths "
                             f"{sorted(entry)}, expected {sorted(width_names)}",
                             column=f"$.families.{name}.widths.{code}", check="same widths")
    if "code" not in body and 0 not in widths:
        raise InputError(source, f"family {name!r} has no 'code', so 'widths' needs code 0",
                         column=f"$.families.{name}.widths", check="default code")
    define = []
    for def_name, text in body.get("define", {}).items():
        if def_name in width_names:
            raise InputError(source, f"family {name!r}: definition {def_name!r} is also "
                             "a width name", column=f"$.families.{name}.define")
        define.append((def_name, compile_formula(
            text, source=source, what=f"{def_name} of family {name!r}")))
    return FamilyModel(
        name=name,
        code=body.get("code"),
        widths=widths,
        labels=labels,
        precisions=precisions,
        dim_defaults={k: float(v) for k, v in body.get("dim_defaults", {}).items()},
        define=tuple(define),
        flop=compile_formula(body["flop"], source=source, what=f"flop of family {name!r}"),
        bytes=compile_formula(body["bytes"], source=source, what=f"bytes of family {name!r}"),
        source=source,
        compute_unit=body.get("compute_unit"),
    )


def family_name(name: str) -> str:
    """``name`` without its leading ordering prefix: ``2_FusedMoE`` → ``FusedMoE``."""
    return _ORDER_PREFIX.sub("", name)


def resolve_family(
    name: str, family_map: Mapping[str, str] | None = None, declared: str | None = None
) -> str:
    """The family of a spec file stem or benchmark ``family`` value (module docstring)."""
    family_map = family_map or {}
    for key in (name, family_name(name)):
        if key in family_map:
            return family_map[key]
    return declared or family_name(name)


def compute_unit(spec: Spec, family: str, families: Mapping[str, FamilyModel]) -> str | None:
    """The unit (``tensor``/``vector``) ``spec``'s kernels of ``family`` compute on, or None.

    The spec's own ``compute_unit``, else the family model's, else the first unit of
    ``families.compute_units`` (:class:`Families`) with a pattern found in ``family``.
    """
    if spec.compute_unit:
        return spec.compute_unit
    model = families.get(family)
    if model is not None and model.compute_unit:
        return model.compute_unit
    for unit, patterns in getattr(families, "compute_units", {}).items():
        if any(re.search(p, family, re.IGNORECASE) for p in patterns):
            return unit
    return None


def kernel_metrics(
    spec: Spec,
    dims: pl.DataFrame,
    model: FamilyModel | None,
    *,
    source: str | None = None,
    where: str | None = None,
    row: str | None = None,
    unit: str | None = None,
) -> pl.DataFrame:
    """Add FLOP and byte counts to a frame of variant dims of ``spec``.

    ``dims`` is shaped like :meth:`Spec.dims_frame` (``variant``, ``dtype``, one
    Int64 column per dim, possibly overlaid). Columns added: ``flop`` (FLOP),
    ``bytes`` (byte), ``arithmetic_intensity`` (FLOP/byte), ``series`` (quant label
    or dtype name), ``bytes_model`` ("family", "given" or "inputs-only") and
    ``precision``: the width code's, else that of the row's dtype on ``unit``
    (:func:`compute_unit`; module docstring), else "" with a warning saying why.
    A model's ``flop`` takes precedence over the variant's (causal attention counts fewer
    pairs than a spec's full-attention formula), a variant's own ``bytes`` formula over
    the model's.

    Raises:
        InputError: as :meth:`FamilyModel.apply` and :func:`rooflow.models.formula.evaluate`,
            naming ``source`` (the file the dims came from; default ``spec.path``); a
            variant without a ``flop`` formula and no model.
    """
    source = source or str(spec.path)
    given = variant_formula(spec, dims, "bytes", source, where, row)
    if model is not None:
        frame = model.apply(dims, source=source, where=where, row=row)
        frame = frame.with_columns(bytes_model=pl.lit("family"))
    else:
        # Tensor traffic only where the variant gives no byte formula of its own.
        need = given.is_null()
        counted = pl.Series("bytes", [None] * dims.height, dtype=pl.Float64)
        if need.any():
            counted = counted.scatter(need.arg_true(),
                                      _inputs_bytes(spec, dims.filter(need), source, where, row))
        flop = variant_formula(spec, dims, "flop", source, where, row)
        if flop.has_nulls():
            i = int(flop.is_null().arg_true()[0])
            prefix = f"{dims[where][i]}: " if where else ""
            raise InputError(source, f"{prefix}no 'flop' formula, and no family model to count "
                             "FLOP with", row=int(dims[row][i]) if row else i + 1,
                             column="flop", check="flop formula")
        frame = dims.with_columns(
            flop=flop,
            bytes=counted,
            series=pl.Series(_dtype_labels(spec, dims), dtype=pl.String),
            bytes_model=pl.lit("inputs-only"),
        )
    frame = frame.with_columns(
        bytes=pl.coalesce(given, pl.col("bytes")),
        bytes_model=pl.when(given.is_not_null()).then(pl.lit("given"))
        .otherwise(pl.col("bytes_model")),
    )
    frame = frame.with_columns(precision=_precisions(
        spec, dims, frame["precision"] if "precision" in frame.columns else None, unit,
        source))
    return frame.with_columns(arithmetic_intensity=pl.col("flop") / pl.col("bytes"))


def _kernel_dtype(spec: Spec, variant: str, variant_dtype: str | None) -> tuple[str, str]:
    """(dtype, "") of a variant's math, or ("", why not).

    Its ``dtype``, else the one floating-point dtype of the tensors it reads (else their
    one integer dtype).
    """
    if variant_dtype:
        return variant_dtype, ""
    names = list(dict.fromkeys(spec.inputs[t].dtype for t in spec.variants[variant].params))
    floats = [n for n in names if is_floating(n)]
    pick = floats or names
    if len(pick) == 1:
        return pick[0], ""
    if not pick:
        return "", "no dtype (no variant dtype, no input tensors)"
    return "", f"mixed input dtypes {'/'.join(pick)} and no variant dtype"


def _precisions(spec: Spec, dims: pl.DataFrame, given: pl.Series | None, unit: str | None,
                source: str) -> pl.Series:
    """Per row: ``given`` (a width code's precision) where set, else from dtype and unit."""
    values: list[str] = []
    why_not: dict[str, list[str]] = {}
    for i, (variant, dtype) in enumerate(zip(dims["variant"], dims["dtype"], strict=True)):
        if given is not None and given[i]:
            values.append(given[i])
            continue
        dtype, why = _kernel_dtype(spec, variant, dtype)
        key = "float8" if dtype.startswith("float8_") else dtype
        precision = DTYPE_PRECISIONS.get(key, {}).get(unit or "", "")
        if not precision and not why:
            why = (f"no compute unit (tensor or vector) for {dtype}: set 'compute_unit' in "
                   "the spec or its family, or a family 'compute_units' pattern"
                   if unit is None else f"no {unit} precision for {dtype}")
        if why:
            why_not.setdefault(why, []).append(variant)
        values.append(precision)
    for why, variants in why_not.items():
        _LOG.warning("%s: precision not given for %d variant%s (%s): %s", source,
                     len(variants), "s" if len(variants) > 1 else "",
                     ", ".join(dict.fromkeys(variants)), why)
    return pl.Series("precision", values, dtype=pl.String)


def variant_formula(
    spec: Spec, dims: pl.DataFrame, attr: str, source: str, where: str | None = None,
    row: str | None = None,
) -> pl.Series:
    """Each row's own variant formula ``attr`` (``flop``/``bytes``) of ``spec``; null where unset.

    ``dims`` as for :func:`kernel_metrics`; ``source``/``where``/``row`` locate rows in
    errors (:func:`rooflow.models.formula.evaluate`).
    """
    texts = [getattr(spec.variants[k], attr) for k in dims["variant"]]
    values: list[float | None] = [None] * dims.height
    for text in dict.fromkeys(t for t in texts if t is not None):
        picked = [i for i, t in enumerate(texts) if t == text]
        formula = compile_formula(text, source=str(spec.path), what=attr)
        result = evaluate(formula, dims[picked], source=source, where=where, row=row)
        for i, value in zip(picked, result, strict=True):
            values[i] = value
    return pl.Series(attr, values, dtype=pl.Float64)


def _tensor_dtype(spec: Spec, tensor: str, variant_dtype: str | None) -> str:
    dtype = spec.inputs[tensor].dtype
    return variant_dtype if variant_dtype and is_floating(dtype) else dtype


def _inputs_bytes(
    spec: Spec, dims: pl.DataFrame, source: str, where: str | None, row: str | None
) -> pl.Series:
    """Σ over the variant's params of Π(shape) × element width (each tensor read once)."""
    widths = {}
    terms = []
    for i, (tensor, t) in enumerate(spec.inputs.items()):
        widths[f"__w{i}"] = [
            dtype_width(_tensor_dtype(spec, tensor, dtype), source=str(spec.path),
                        where=f"variant {key!r}, input {tensor!r}")
            if tensor in spec.variants[key].params else 0
            for key, dtype in zip(dims["variant"], dims["dtype"], strict=True)
        ]
        terms.append("*".join([*map(str, t.shape), f"__w{i}"]))
    if not terms:
        raise InputError(str(spec.path), "no 'inputs' to count bytes from and no 'bytes' formula",
                         check="bytes model")
    frame = dims.with_columns(pl.Series(n, w, dtype=pl.Float64) for n, w in widths.items())
    formula = compile_formula(" + ".join(terms), source=str(spec.path),
                              what="bytes of 'inputs'")
    return evaluate(formula, frame, source=source, where=where, row=row)


def _dtype_labels(spec: Spec, dims: pl.DataFrame) -> list[str]:
    """Series label without a model: the variant dtype, else its tensors' dtypes."""
    labels = []
    for key, dtype in zip(dims["variant"], dims["dtype"], strict=True):
        names = [_tensor_dtype(spec, t, dtype) for t in spec.variants[key].params]
        labels.append(dtype or "/".join(dict.fromkeys(names)) or "kernel")
    return labels
