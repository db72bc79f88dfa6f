"""Benchmark results CSV (baseline vs optimized kernel times) → paired roofline points.

Input columns (``resources/benchmarks/*.csv``):

=========== ======= ==========================================================
column      unit    meaning
=========== ======= ==========================================================
family      —       kernel family, e.g. ``2_BatchedMoE`` (leading ``N_`` ignored)
shape_key   —       variant key in that family's spec file, e.g. ``bench-gpu-1``
config      —       optional ``K=V,K=V`` integer dims overlaid on the variant's dims
baseline_us µs      time of the original kernel
triton_us   µs      time of the optimized kernel
tflops      TFLOP/s throughput of the optimized kernel (as measured)
=========== ======= ==========================================================

Other columns are allowed and ignored (the canonical points table has no place
for them).

Each row gives two points sharing ``pair`` = ``"{family}:{shape_key}"`` (plus
`` ({config})`` when that id repeats in the file), both at the arithmetic intensity
of the family model (:mod:`rooflow.models.families`):

* ``Optimized``: performance = tflops·1e12·s, time_s = triton_us·1e-6;
* ``Original``: performance = tflops·1e12·s·triton_us/baseline_us (same FLOP in the
  baseline time), time_s = baseline_us·1e-6.

``tflops`` counts the spec variant's own ``flop`` formula (the benchmark harness computes
it so); s = model FLOP / that count puts performance in the count of the intensity. s is
1 where the model's FLOP formula is the variant's, as in every shipped family but causal
attention (UnifiedAttention ``CAUSAL: 1``, about half the pairs), and where the variant
has no ``flop``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.dims import format_dims
from rooflow.errors import InputError
from rooflow.models.families import (
    FamilyModel,
    compute_unit,
    kernel_metrics,
    load_families,
    resolve_family,
    variant_formula,
)
from rooflow.models.spec_yaml import MAX_DIM, Spec, read_spec
from rooflow.points import empty_points, to_points
from rooflow.settings import Settings
from rooflow.validate import check, coerce_numeric, read_csv_text

NUMERIC = ["baseline_us", "triton_us", "tflops"]


_PAIR = r"[A-Za-z_][A-Za-z0-9_]*\s*=\s*[0-9]+"
CONFIG_PATTERN = rf"^{_PAIR}(\s*,\s*{_PAIR})*$"


class BenchmarkRows(pa.DataFrameModel):
    """Raw benchmark rows after numeric coercion."""

    family: str = pa.Field(str_length={"min_value": 1})
    shape_key: str = pa.Field(str_length={"min_value": 1})
    config: str | None = pa.Field(nullable=True, str_matches=CONFIG_PATTERN)
    baseline_us: float = pa.Field(gt=0)
    triton_us: float = pa.Field(gt=0)
    tflops: float = pa.Field(gt=0)

    @pa.check("baseline_us", "triton_us", "tflops", name="finite")
    def _finite(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col(data.key).is_finite())

    class Config:
        strict = False


def benchmark_points(
    path: str | Path,
    specs_dir: str | Path,
    families: Mapping[str, FamilyModel],
    family_map: Mapping[str, str] | None = None,
    min_tflops: float | None = None,
    min_ai: float | None = None,
) -> pl.DataFrame:
    """Read a benchmark CSV; return Original/Optimized point pairs (canonical points).

    Dims of a row are those of variant ``shape_key`` in the spec file of ``specs_dir``
    (``*.yaml``) whose resolved family equals the row's, overlaid by ``config``.
    ``family`` = resolved family, ``label`` = the variant's comment (else
    ``shape_key``), ``kernel`` = ``shape_key``, ``dims`` = those dims (``E=128,M=64``,
    :mod:`rooflow.dims`), ``row`` = 1-based CSV row,
    ``precision`` = the compute precision of the family's width code (e.g. ``fp8-tensor``
    for fp8 w8a8), else of the variant's dtype on the family's compute unit
    (:func:`rooflow.models.families.kernel_metrics`; "" when not given).
    ``min_tflops`` (TFLOP/s) drops a pair whose Optimized throughput is below it;
    ``min_ai`` (FLOP/byte) drops a pair whose arithmetic intensity is below it.

    Raises:
        InputError: a missing column or bad value (pandera), no spec for the family,
            ``shape_key`` not a variant of it (or of two specs), a ``config`` key not
            a dim of the spec or repeated, a repeated row, or a model error
            (:func:`rooflow.models.families.kernel_metrics`) — naming file, row, column, value.
    """
    source = str(path)
    frame = _read_rows(path, source)
    specs, broken = _read_specs(specs_dir, family_map)
    groups = _dims_by_spec(frame, specs, family_map, source, broken)
    if not groups:
        return empty_points()
    rows = frame.join(_metrics(groups, specs, families, source), on="row", how="left")
    rows = rows.sort("row")
    rows = rows.with_columns(pair=_pair_ids(rows, source))
    if min_tflops is not None:
        rows = rows.filter(pl.col("tflops") >= min_tflops)
    if min_ai is not None:
        rows = rows.filter(pl.col("arithmetic_intensity") >= min_ai)
    return _pairs(rows, source)


def _read_rows(path: str | Path, source: str) -> pl.DataFrame:
    """Validated rows: family, shape_key, config (null if absent), times, tflops, row."""
    frame = read_csv_text(path)
    frame = check(coerce_numeric(frame, NUMERIC, source), BenchmarkRows, source)
    if "config" not in frame.columns:
        frame = frame.with_columns(config=pl.lit(None, dtype=pl.String))
    # Extra columns are dropped here so none can shadow a derived column below.
    frame = frame.select("family", "shape_key", "config", *NUMERIC)
    return frame.with_row_index("row", offset=1).with_columns(pl.col("row").cast(pl.Int64))


def _dims_by_spec(
    frame: pl.DataFrame,
    specs: list[tuple[Spec, str]],
    family_map: Mapping[str, str] | None,
    source: str,
    broken: Sequence[tuple[str, InputError]] = (),
) -> dict[Path, list[dict]]:
    """Per spec file, one record per row: its variant's dims overlaid by ``config``."""
    groups: dict[Path, list[dict]] = {}
    for rec in frame.iter_rows(named=True):
        family = resolve_family(rec["family"], family_map)
        spec = _find_spec(specs, family, rec, source, broken)
        variant = spec.variants[rec["shape_key"]]
        dims = {**variant.dims, **_config_dims(rec, spec, source)}
        groups.setdefault(spec.path, []).append({
            "row": rec["row"],
            "variant": variant.key,
            "dtype": variant.dtype,
            "at": f"family {rec['family']!r}, shape_key {rec['shape_key']!r}",
            "resolved": family,
            "label": variant.label or variant.key,
            "dims": format_dims(dims),
            **dims,
        })
    return groups


def _metrics(
    groups: dict[Path, list[dict]],
    specs: list[tuple[Spec, str]],
    families: Mapping[str, FamilyModel],
    source: str,
) -> pl.DataFrame:
    """FLOP, bytes, intensity, compute precision and the variant's own FLOP per row."""
    metrics = []
    for spec_path, rows in groups.items():
        spec = next(s for s, _ in specs if s.path == spec_path)
        dims = pl.DataFrame(rows, infer_schema_length=None)
        family = rows[0]["resolved"]
        metrics.append(kernel_metrics(spec, dims, families.get(family), source=source,
                                      where="at", row="row",
                                      unit=compute_unit(spec, family, families))
                       .with_columns(variant_flop=variant_formula(spec, dims, "flop", source,
                                                                  where="at", row="row"))
                       .select("row", "resolved", "label", "dims", "precision", "flop", "bytes",
                               "arithmetic_intensity", "bytes_model", "variant_flop"))
    return pl.concat(metrics)


def _pairs(rows: pl.DataFrame, source: str) -> pl.DataFrame:
    """Each row → an Original and an Optimized point (canonical points), in row order."""
    common: list[pl.Expr | str] = [
        pl.col("resolved").alias("family"), "label", "pair", "dims", "precision",
        pl.col("shape_key").alias("kernel"), "flop", "bytes", "arithmetic_intensity",
        "bytes_model", pl.lit(source).alias("source"), "row"]
    # In the model's count (module doc); flop / variant_flop is exactly 1.0 where equal.
    measured = pl.col("tflops") * 1e12 * (pl.col("flop") / pl.col("variant_flop")).fill_null(1.0)
    optimized = rows.select(
        pl.lit("Optimized").alias("series"), *common,
        (pl.col("triton_us") * 1e-6).alias("time_s"),
        measured.alias("performance"),
    )
    # Same FLOP in the baseline time: · triton_us / baseline_us.
    original = rows.select(
        pl.lit("Original").alias("series"), *common,
        (pl.col("baseline_us") * 1e-6).alias("time_s"),
        (measured * pl.col("triton_us") / pl.col("baseline_us")).alias("performance"),
    )
    return to_points(pl.concat([original, optimized]).sort("row", maintain_order=True))


def _read_specs(
    specs_dir: str | Path, family_map: Mapping[str, str] | None
) -> tuple[list[tuple[Spec, str]], list[tuple[str, InputError]]]:
    """Every spec in ``specs_dir`` with its resolved family; the broken ones apart.

    A spec that cannot be read is only a problem for the rows of its family (that of its
    file name, its own ``family`` being unread): returned with its error, not raised.
    """
    specs_dir = Path(specs_dir)
    if not specs_dir.is_dir():
        raise InputError(str(specs_dir), "specs directory not found (give --specs, or config "
                         "specs_dir, the folder of kernel spec YAMLs)")
    specs, broken = [], []
    for path in sorted([*specs_dir.glob("*.yaml"), *specs_dir.glob("*.yml")]):
        try:
            spec = read_spec(path)
        except InputError as err:
            broken.append((resolve_family(path.stem, family_map), err))
            continue
        specs.append((spec, resolve_family(path.stem, family_map, spec.family_key)))
    return specs, broken


def _find_spec(specs: list[tuple[Spec, str]], family: str, rec: dict, source: str,
               broken: Sequence[tuple[str, InputError]] = ()) -> Spec:
    """The spec holding the row's ``shape_key`` among those of its ``family``.

    Raises:
        InputError: none (or two) do; a broken spec of the family is the reason given.
    """
    of_family = [s for s, f in specs if f == family]
    if not any(rec["shape_key"] in s.variants for s in of_family):
        for stem_family, err in broken:
            if stem_family == family:
                raise err
    if not of_family:
        known = sorted({f for _, f in specs})
        raise InputError(source, f"no spec of family {family!r} (known: {', '.join(known)})",
                         row=rec["row"], column="family", check="known family",
                         value=rec["family"])
    found = [s for s in of_family if rec["shape_key"] in s.variants]
    if len(found) != 1:
        why = ("is not a variant of " if not found else "is a variant of several specs: ")
        raise InputError(source, why + ", ".join(str(s.path) for s in (found or of_family)),
                         row=rec["row"], column="shape_key", check="known shape_key",
                         value=rec["shape_key"])
    return found[0]


def _config_dims(rec: dict, spec: Spec, source: str) -> dict[str, int]:
    """``K=V,K=V`` → {K: V}; keys must be dims of ``spec``."""
    if rec["config"] is None:
        return {}
    known = {d for v in spec.variants.values() for d in v.dims}
    dims: dict[str, int] = {}
    for item in rec["config"].split(","):
        key, value = (part.strip() for part in item.split("="))
        if key not in known or key in dims or int(value) > MAX_DIM:
            why = ("repeats a dim" if key in dims else "has a value above 2**53"
                   if key in known else f"sets {key!r}, not a dim of {spec.path}")
            raise InputError(source, f"config {why}", row=rec["row"], column="config",
                             check="config dims", value=rec["config"])
        dims[key] = int(value)
    return dims


def _pair_ids(rows: pl.DataFrame, source: str) -> pl.Series:
    """``family:shape_key``, with `` (config)`` where that repeats; a repeat → error."""
    base = rows["resolved"] + ":" + rows["shape_key"]
    repeated = base.is_duplicated()
    pair = pl.Series("pair", [
        f"{b} ({c})" if dup and c else b
        for b, c, dup in zip(base, rows["config"], repeated, strict=True)
    ])
    dup = pair.is_duplicated()
    if dup.any():
        i = int(dup.arg_true()[1])
        raise InputError(source, "repeats an earlier row (same family, shape_key, config)",
                         row=int(rows["row"][i]), check="unique rows", value=pair[i])
    return pair


SPECS_SEARCH_DEPTH = 4
"""Folders above a benchmarks CSV searched for its specs (the workflow's own layout,
``ROOT/resources/benchmarks/NAME.csv``, finds ``ROOT/resources/specs`` one up)."""


def find_specs(path: str | Path) -> Path:
    """The specs folder of the benchmarks CSV ``path``, when ``--specs`` is not given.

    From the CSV's folder up (:data:`SPECS_SEARCH_DEPTH` folders), the first of, in each:
    a ``specs`` folder beside it; the ``specs_dir`` of a workflow config
    (``config/config.yaml``, relative to that folder, default ``resources/specs``); the
    default ``resources/specs`` under it. Else the default relative to the working folder
    (whose reader then says it is missing).
    """
    from rooflow.defaults import config_defaults
    from rooflow.safeload import read_yaml

    default = Path(config_defaults()["specs_dir"])
    for folder in list(Path(path).resolve().parents)[:SPECS_SEARCH_DEPTH]:
        candidates = [folder / "specs"]
        config = folder / "config" / "config.yaml"
        if config.is_file():
            try:
                loaded = read_yaml(config, "a workflow config")
            except InputError:
                loaded = None
            given = loaded.get("specs_dir") if isinstance(loaded, dict) else None
            if isinstance(given, str) and given:
                candidates.append(folder / given)
        candidates.append(folder / default)
        found = next((c for c in candidates if c.is_dir()), None)
        if found is not None:
            return found
    return default


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: :func:`benchmark_points` with the settings' specs and families.

    Without ``settings.specs_dir`` (no ``--specs``), the specs are found beside the file
    (:func:`find_specs`).
    """
    specs_dir = settings.specs_dir if settings.specs_dir is not None else find_specs(path)
    return benchmark_points(
        path, specs_dir, load_families(settings.families), settings.family_map,
        min_tflops=settings.min_tflops, min_ai=settings.min_ai,
    )
