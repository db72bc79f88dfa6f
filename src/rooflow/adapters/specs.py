"""Spec adapter: a kernel spec YAML → theoretical roofline points (one per ``bench*`` variant).

The YAML is read by :mod:`rooflow.models.spec_yaml`; FLOP and bytes come from the
family model (:mod:`rooflow.models.families`) or the variant's own formulas.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from rooflow.dims import format_dims
from rooflow.errors import InputError
from rooflow.models.families import (
    FamilyModel,
    compute_unit,
    kernel_metrics,
    load_families,
    resolve_family,
)
from rooflow.models.spec_yaml import read_spec
from rooflow.points import empty_points, to_points
from rooflow.settings import Settings

_LOG = logging.getLogger("rooflow.specs")


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: :func:`spec_points` with the settings' families and prefix."""
    return spec_points(path, load_families(settings.families), settings.family_map,
                       settings.variant_prefix)


def spec_points(
    path: str | Path,
    families: Mapping[str, FamilyModel],
    family_map: Mapping[str, str] | None = None,
    variant_prefix: str = "bench",
) -> pl.DataFrame:
    """Theoretical roofline points (no measured FLOP/s) for a spec's variants.

    One point per variant whose key starts with ``variant_prefix``, at level DRAM:
    ``kernel`` = variant key, ``label`` = its comment line (else the key), ``series``
    = quant label (family model) or dtype name, ``family`` = resolved family,
    ``row`` = 1-based variant position in the file, ``dims`` = its numeric dims
    (``E=128,M=64``, :mod:`rooflow.dims`), ``precision`` = the width code's, else the
    variant's dtype on the family's compute unit (a bf16 GEMM ``bf16-tensor``, a bf16 RMS
    norm ``bf16``; "" when not given, with a warning:
    :func:`rooflow.models.families.kernel_metrics`), ``performance`` null. Without a family
    model, a variant without a ``flop`` formula is left out with a logged warning.

    Returns:
        The canonical points frame (:mod:`rooflow.points`); empty if no variant
        matches.

    Raises:
        InputError: see :func:`rooflow.models.spec_yaml.read_spec` and
            :func:`rooflow.models.families.kernel_metrics`; without a family model, no
            matching variant with a ``flop`` formula.
    """
    spec = read_spec(path)
    family = resolve_family(spec.path.stem, family_map, spec.family_key)
    keys = [k for k in spec.variants if k.startswith(variant_prefix)]
    model = families.get(family)
    if model is None:  # FLOP from the variants' own formulas: one without is no point
        counted = [k for k in keys if spec.variants[k].flop is not None]
        for key in keys:
            if key not in counted:
                _LOG.warning("%s: line %d: variant %r has no 'flop' formula (and family %r "
                             "no model): no point", spec.path, spec.variants[key].line, key,
                             family)
        if keys and not counted:
            raise InputError(str(spec.path), f"no '{variant_prefix}*' variant has a 'flop' "
                             f"formula, and family {family!r} has no model to count FLOP with",
                             check="flop formula")
        keys = counted
    if not keys:
        return empty_points()
    dims = spec.dims_frame(keys).with_columns(
        at=pl.Series([f"line {spec.variants[k].line}: variant {k!r}" for k in keys]),
        label=pl.Series([spec.variants[k].label or k for k in keys], dtype=pl.String),
        dims=pl.Series([format_dims(spec.variants[k].dims) for k in keys], dtype=pl.String),
    )
    frame = kernel_metrics(spec, dims, model, where="at", row="index",
                           unit=compute_unit(spec, family, families))
    return to_points(frame.with_columns(
        family=pl.lit(family),
        kernel=pl.col("variant"),
        source=pl.lit(str(spec.path)),
        row=pl.col("index"),
    ))
