"""Nsight Compute CSV exports → per-kernel FLOP/byte/time breakdown → roofline points.

Accepted exports (``ncu --csv``, printed or ``--import``-ed):

* details page, "long": one row per launch × metric, columns ``ID``, ``Kernel Name``,
  ``Metric Name``, ``Metric Unit``, ``Metric Value`` (modern header with ``CC``, ``Body
  Item Label`` and ``Rule ...`` columns, or the 2020 header with ``Kernel Time`` and no
  ``CC``). Rule rows (empty ``Metric Name``) are skipped.
* ``--page raw``, "wide": one row per launch, one column per metric, a units row under
  the header.

Lines before the header (application output, ``==PROF==`` lines) are skipped; values
may carry thousands separators; units are rescaled to base units (:mod:`.units`).

Hierarchical roofline method of NERSC (C. Yang, T. Kurth, S. Williams, "Hierarchical
Roofline Analysis for GPUs: Accelerating Performance Optimization for the NERSC-9
Perlmutter System", CUG 2019; repository NERSC/roofline-on-nvidia-gpus), metric names
from the Nsight Compute Profiling Guide:

* FLOP, per precision p (d: fp64, f: fp32, h: fp16):
  ``2·sm__sass_thread_inst_executed_op_{p}fma_pred_on.sum + ..._{p}mul_pred_on.sum +
  ..._{p}add_pred_on.sum``.
* tensor FLOP: the tensor op-path counters ``sm__ops_path_tensor_src_<T>[_dst_<T>].sum``
  when the export has them (they count FLOP: a 256×5120×6912 HMMA GEMM reads 2·M·N·K,
  NVIDIA developer forum thread 303219), else ``sm__inst_executed_pipe_tensor.sum`` × FLOP
  per tensor instruction. That factor depends on the architecture and the MMA shape: the
  NERSC method uses 512 (V100 HMMA); an Ampere m16n8k16 HMMA is 4096. It is a parameter,
  keyed by compute capability (``CC``), default :data:`DEFAULT_TENSOR_FLOP_PER_INST`.
* bytes: ``dram__bytes.sum`` (or ``dram__bytes_read.sum + dram__bytes_write.sum``) →
  DRAM, ``lts__t_bytes.sum`` → L2, ``l1tex__t_bytes.sum`` → L1.
* time: ``gpu__time_duration.sum``, else ``sm__cycles_elapsed.avg /
  sm__cycles_elapsed.avg.per_second`` (per launch, then summed).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from pathlib import Path

import pandera.polars as pa
import polars as pl

from rooflow.adapters.breakdown import dominant, kernel_points
from rooflow.adapters.units import MISSING_VALUES, number, to_base_units
from rooflow.errors import InputError
from rooflow.settings import Settings
from rooflow.validate import check, read_csv_text

DEFAULT_TENSOR_FLOP_PER_INST = 512.0
"""FLOP per ``sm__inst_executed_pipe_tensor`` instruction in the NERSC method (V100)."""

PRECISIONS = ("fp64", "fp32", "fp16", "tensor")
# Until tensor work is split by source type, all of it is named as FP16 tensor work.
_PRECISION_NAMES = ("fp64", "fp32", "fp16", "fp16-tensor")
"""FLOP precisions in breakdown order; ties for the dominant one go to the first."""

_SASS = "sm__sass_thread_inst_executed_op_{}{}_pred_on.sum"
_VECTOR_FLOP = {  # precision → (fma, mul, add) instruction counters
    prec: tuple(_SASS.format(letter, op) for op in ("fma", "mul", "add"))
    for prec, letter in (("fp64", "d"), ("fp32", "f"), ("fp16", "h"))
}
_TENSOR_INST = "sm__inst_executed_pipe_tensor.sum"
# Sparsity-split variants (..._sparsity_on/off.sum) are subsets of these and not summed.
_TENSOR_OPS = re.compile(r"^sm__ops_path_tensor_src_[a-z0-9]+(_dst_[a-z0-9]+)?\.sum$")
_LEVELS = {  # level → alternative metric sets, preferred first
    "DRAM": (("dram__bytes.sum",), ("dram__bytes_read.sum", "dram__bytes_write.sum")),
    "L2": (("lts__t_bytes.sum",),),
    "L1": (("l1tex__t_bytes.sum",),),
}
_TIME = (
    ("gpu__time_duration.sum",),
    ("sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"),
)
_BASE_UNIT = {  # base units a time metric may come in; bytes: byte; counts: _COUNT_UNITS
    "gpu__time_duration.sum": ("second",),
    "sm__cycles_elapsed.avg": ("cycle",),
    "sm__cycles_elapsed.avg.per_second": ("hz",),
}
_COUNT_UNITS = ("inst", "op", "")

KERNEL_COLUMNS = (
    "kernel", "launch_id", "launches", "row", "cc", "flop_fp64", "flop_fp32", "flop_fp16",
    "flop_tensor", "flop", "precision", "time_s", "bytes_dram", "bytes_l2", "bytes_l1",
)
"""Columns of :func:`ncu_kernels`, in order."""


class LongExport(pa.DataFrameModel):
    """Details page as read (all String): one row per launch × metric."""

    launch: str = pa.Field(alias="ID", str_matches=r"^\d+$")
    kernel: str = pa.Field(alias="Kernel Name", str_length={"min_value": 1})
    metric: str = pa.Field(alias="Metric Name", nullable=True)
    unit: str = pa.Field(alias="Metric Unit", nullable=True)
    value: str = pa.Field(alias="Metric Value", nullable=True)

    class Config:
        strict = False


class WideExport(pa.DataFrameModel):
    """Raw page launch rows as read (all String; the units row removed)."""

    launch: str = pa.Field(alias="ID", str_matches=r"^\d+$")
    kernel: str = pa.Field(alias="Kernel Name", str_length={"min_value": 1})

    class Config:
        strict = False


def read_ncu(path: str | Path) -> pl.DataFrame:
    """Read an ``ncu --csv`` export (details or raw page) into one long table.

    Returns:
        One row per launch × metric: ``row`` (i64, 1-based data row: details page, rows
        after the header; raw page, launch rows, the units row not counted), ``launch``
        (i64, the ``ID`` column), ``kernel`` (str), ``cc`` (str, compute capability, ""
        when the export has none), ``metric`` (str), ``unit`` (str, base unit, see
        :mod:`.units`), ``value`` (f64 in ``unit``; null when the cell is empty, ``nan``,
        ``n/a`` or text), ``text`` (str, the cell as written).

    Raises:
        InputError: unreadable file, no ``"ID",...`` header line, malformed CSV, an
            ``ID`` that is not an integer or an empty ``Kernel Name``.
    """
    path = Path(path)
    frame = read_csv_text(path, text=_table_text(path))
    if "Metric Name" in frame.columns or "Metric Value" in frame.columns:
        long = _from_long(frame, path)
    else:
        long = _from_wide(frame, path)
    long = long.with_columns(number(pl.col("text")).alias("value"))
    return to_base_units(long).select(
        "row", "launch", "kernel", "cc", "metric", "unit", "value", "text"
    )


def ncu_kernels(
    path: str | Path,
    *,
    per_launch: bool = False,
    tensor_flop_per_inst: Mapping[str, float] | None = None,
) -> pl.DataFrame:
    """Per-kernel FLOP by precision, bytes by memory level and time (see module doc).

    Args:
        path: an ``ncu --csv`` export.
        per_launch: one row per launch; by default one row per kernel name, summed over
            its launches, kernels in order of first launch.
        tensor_flop_per_inst: compute capability (``"8.0"``) → FLOP per tensor-pipe
            instruction; others get :data:`DEFAULT_TENSOR_FLOP_PER_INST`. Unused when the
            export has op-path tensor counters.

    Returns:
        :data:`KERNEL_COLUMNS`: ``kernel``, ``launch_id`` (first launch ID), ``launches``,
        ``row`` (first data row of the first launch), ``cc``, ``flop_fp64``, ``flop_fp32``,
        ``flop_fp16``, ``flop_tensor``, ``flop`` (their sum), ``precision`` (dominant one
        of :data:`PRECISIONS`, "" when no FLOP), ``time_s``, ``bytes_dram``, ``bytes_l2``,
        ``bytes_l1`` (byte; null for a level the export lacks). FLOP are counts, f64.

    Raises:
        InputError: from :func:`read_ncu`; the export lacks metrics a roofline needs (all
            listed); a needed metric of a kernel is ``nan``/``n/a``/empty/text, negative,
            absent for one launch, in the wrong unit or given twice with different values;
            a kernel time that is not positive.
    """
    table = read_ncu(path)
    present = set(table["metric"].unique().to_list())
    use = _needed_metrics(present, path)
    needed = [m for group in use.values() for m in group]
    values = _checked_values(table, use, path)

    launches = values.pivot(
        on="metric", index=["launch", "kernel", "cc"], values="value", aggregate_function="first"
    )
    first_rows = values.group_by("launch", "kernel", maintain_order=True).agg(pl.col("row").min())
    launches = launches.join(first_rows, on=["launch", "kernel"]).sort("row")
    _require_every_launch(launches, needed, path)

    factors = {str(k): float(v) for k, v in (tensor_flop_per_inst or {}).items()}
    per = launches.select(
        "kernel", "row", "cc",
        pl.col("launch").alias("launch_id"),
        *[_sum(metrics, (2.0, 1.0, 1.0)).alias(f"flop_{prec}")
          for prec, metrics in _VECTOR_FLOP.items()],
        _tensor_flop(use["tensor"], factors).alias("flop_tensor"),
        _time(use["time"]).alias("time_s"),
        *[_sum(use[level], (1.0,) * len(use[level])).alias(f"bytes_{level.lower()}")
          for level in _LEVELS if level in use],
    )
    bad_time = per.filter(~(pl.col("time_s") > 0))
    if bad_time.height:
        first = bad_time.row(0, named=True)
        raise InputError(
            str(path), f"kernel '{first['kernel']}' (launch {first['launch_id']}) has no "
            "positive time", row=first["row"], check="time > 0", value=first["time_s"],
        )
    per = per.with_columns(pl.lit(1, dtype=pl.Int64).alias("launches"))
    if not per_launch:
        per = per.group_by("kernel", maintain_order=True).agg(
            pl.col("launch_id", "row", "cc").first(),
            pl.all().exclude("kernel", "launch_id", "row", "cc").sum(),
        )
    return per.with_columns(
        *[pl.lit(None, dtype=pl.Float64).alias(f"bytes_{level.lower()}")
          for level in _LEVELS if level not in use],
        pl.sum_horizontal(f"flop_{p}" for p in PRECISIONS).alias("flop"),
        dominant([f"flop_{p}" for p in PRECISIONS], _PRECISION_NAMES).alias("precision"),
    ).select(KERNEL_COLUMNS)


def ncu_points(
    path: str | Path,
    *,
    per_launch: bool = False,
    tensor_flop_per_inst: Mapping[str, float] | None = None,
) -> pl.DataFrame:
    """Canonical roofline points (:mod:`rooflow.points`) of an ``ncu --csv`` export.

    One row per kernel × memory level (DRAM, L2, L1) the export measured, series "ncu",
    label = kernel (``"<kernel> [launch <ID>]"`` with ``per_launch``), precision = the
    kernel's dominant FLOP precision, flop = total FLOP of all precisions, bytes at the
    level, arithmetic intensity = flop / bytes (FLOP/byte), flop_per_s = flop / time_s,
    bytes_model "measured", row = the launch's first data row (per launch) or 0 (sums).

    Kernels without FLOP and levels without bytes have no point (their arithmetic
    intensity is 0 or infinite); :func:`ncu_kernels` still lists them.

    Raises:
        InputError: as :func:`ncu_kernels`; no kernel with FLOP and bytes.
    """
    kernels = ncu_kernels(path, per_launch=per_launch, tensor_flop_per_inst=tensor_flop_per_inst)
    label = (
        pl.format("{} [launch {}]", "kernel", "launch_id") if per_launch else pl.col("kernel")
    )
    return kernel_points(
        kernels.with_columns(
            label.alias("label"),
            (pl.col("row") if per_launch else pl.lit(0, dtype=pl.Int64)).alias("row"),
        ),
        {"DRAM": "bytes_dram", "L2": "bytes_l2", "L1": "bytes_l1"},
        series="ncu",
        source=path,
    )


def _table_text(path: Path) -> str:
    """The export from its ``"ID",...`` header line on."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(str(path), "file not found") from None
    except UnicodeDecodeError as err:
        raise InputError(str(path), f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        first = next(csv.reader([line]), [""])
        if first and first[0].strip() == "ID" and "Kernel Name" in line:
            return "\n".join(lines[i:])
    raise InputError(
        str(path), 'no Nsight Compute table: no header line starting with "ID" and naming '
        '"Kernel Name" (export with ncu --csv)', check="ncu csv header",
    )


def _from_long(frame: pl.DataFrame, path: Path) -> pl.DataFrame:
    missing = [c for c in ("Metric Name", "Metric Unit", "Metric Value") if c not in frame.columns]
    if missing:
        raise InputError(str(path), "details-page export lacks columns", column=", ".join(missing))
    check(frame, LongExport, path)
    cc = pl.col("CC").fill_null("") if "CC" in frame.columns else pl.lit("")
    return frame.with_row_index("row", offset=1).filter(pl.col("Metric Name").is_not_null()).select(
        pl.col("row").cast(pl.Int64),
        pl.col("ID").cast(pl.Int64).alias("launch"),
        pl.col("Kernel Name").alias("kernel"),
        cc.alias("cc"),
        pl.col("Metric Name").alias("metric"),
        pl.col("Metric Unit").fill_null("").alias("unit"),
        pl.col("Metric Value").alias("text"),
    )


def _from_wide(frame: pl.DataFrame, path: Path) -> pl.DataFrame:
    # ncu metric names are <unit>__<counter>; the identity columns (ID, Kernel Name,
    # Block Size, CC, ...) have none.
    metrics = [c for c in frame.columns if "__" in c]
    if not metrics:
        raise InputError(str(path), "no metric columns (names like dram__bytes.sum)")
    has_units = frame.height > 0 and frame["ID"][0] is None
    units = frame.row(0, named=True) if has_units else {}
    data = frame.slice(1) if has_units else frame
    check(data, WideExport, path)
    cc = pl.col("CC").fill_null("") if "CC" in data.columns else pl.lit("")
    return (
        data.with_row_index("row", offset=1)
        .select(
            pl.col("row").cast(pl.Int64),
            pl.col("ID").cast(pl.Int64).alias("launch"),
            pl.col("Kernel Name").alias("kernel"),
            cc.alias("cc"),
            *metrics,
        )
        .unpivot(index=["row", "launch", "kernel", "cc"], on=metrics,
                 variable_name="metric", value_name="text")
        .with_columns(
            pl.col("metric").replace_strict(
                {m: units.get(m) or "" for m in metrics}, return_dtype=pl.String
            ).alias("unit")
        )
        .sort("row", maintain_order=True)
    )


def _choose(present: set[str], alternatives: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
    return next((alt for alt in alternatives if all(m in present for m in alt)), None)


def _describe(alternatives: tuple[tuple[str, ...], ...]) -> str:
    first, *others = (" + ".join(alt) for alt in alternatives)
    return first + "".join(f" (or {other})" for other in others)


def _needed_metrics(present: set[str], path: Path) -> dict[str, tuple[str, ...]]:
    """Metric names to use, by role (precision, "tensor", "time", level); or all missing."""
    use: dict[str, tuple[str, ...]] = dict(_VECTOR_FLOP)
    missing = [m for group in _VECTOR_FLOP.values() for m in group if m not in present]
    ops = tuple(sorted(m for m in present if _TENSOR_OPS.match(m)))
    if ops or _TENSOR_INST in present:
        use["tensor"] = ops or (_TENSOR_INST,)
    else:
        missing.append(f"{_TENSOR_INST} (or sm__ops_path_tensor_src_<type>[_dst_<type>].sum)")
    time = _choose(present, _TIME)
    if time:
        use["time"] = time
    else:
        missing.append(_describe(_TIME))
    partial = []
    for level, alternatives in _LEVELS.items():
        chosen = _choose(present, alternatives)
        if chosen:
            use[level] = chosen
        elif any(m in present for alt in alternatives for m in alt):
            partial.append(_describe(alternatives))
    if not any(level in use for level in _LEVELS):
        missing.extend(_describe(alts) for alts in _LEVELS.values())
    missing.extend(partial)
    if missing:
        raise InputError(
            str(path), f"lacks {len(missing)} metric(s) a roofline needs: " + ", ".join(missing),
            check="required metrics",
        )
    return use


def _checked_values(
    table: pl.DataFrame, use: Mapping[str, tuple[str, ...]], path: Path
) -> pl.DataFrame:
    """The rows of the metrics in ``use``, checked: a value, >= 0, right unit, no clash."""
    units = {}
    for role, metrics in use.items():
        for metric in metrics:
            units[metric] = _BASE_UNIT.get(metric, ("byte",) if role in _LEVELS else _COUNT_UNITS)
    values = table.filter(pl.col("metric").is_in(list(units)))

    def fail(condition: pl.Expr, message: str, check_name: str) -> None:
        bad = values.filter(condition)
        if bad.height:
            first = bad.row(0, named=True)
            raise InputError(
                str(path), f"kernel '{first['kernel']}' (launch {first['launch']}): metric "
                f"{first['metric']} " + message.format(**first, expected=units[first["metric"]]),
                row=first["row"], column=first["metric"], check=check_name, value=first["text"],
            )

    text = pl.col("text").str.to_lowercase()
    fail(text.is_null() | text.is_in(list(MISSING_VALUES)),
         "has no value (failed or incomplete profile?)", "numeric")
    fail(pl.col("value").is_null(), "is not a number", "numeric")
    fail(pl.col("value") < 0, "is negative", ">= 0")
    allowed = pl.col("metric").replace_strict(
        {m: list(u) for m, u in units.items()}, return_dtype=pl.List(pl.String)
    )
    fail(~allowed.list.contains(pl.col("unit")), "is in {unit!r}, not in one of {expected}",
         "unit")
    fail(pl.col("value").n_unique().over("launch", "metric") > 1,
         "is given twice with different values", "unique")
    return values


def _require_every_launch(launches: pl.DataFrame, needed: list[str], path: Path) -> None:
    for metric in needed:
        absent = launches.filter(pl.col(metric).is_null())
        if absent.height:
            first = absent.row(0, named=True)
            raise InputError(
                str(path), f"kernel '{first['kernel']}' (launch {first['launch']}) lacks "
                f"metric {metric}", row=first["row"], column=metric, check="required metrics",
            )


def _sum(metrics: tuple[str, ...], weights: tuple[float, ...]) -> pl.Expr:
    return pl.sum_horizontal(pl.col(m) * w for m, w in zip(metrics, weights, strict=True))


def _tensor_flop(metrics: tuple[str, ...], factors: Mapping[str, float]) -> pl.Expr:
    if metrics != (_TENSOR_INST,):
        return _sum(metrics, (1.0,) * len(metrics))
    factor = pl.col("cc").replace_strict(
        factors, default=DEFAULT_TENSOR_FLOP_PER_INST, return_dtype=pl.Float64
    )
    return pl.col(_TENSOR_INST) * factor


def _time(metrics: tuple[str, ...]) -> pl.Expr:
    if len(metrics) == 1:
        return pl.col(metrics[0])
    cycles, rate = metrics
    return pl.col(cycles) / pl.col(rate)


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry: :func:`ncu_points` with the settings' ``ncu`` keys."""
    return ncu_points(path, per_launch=settings.per_launch,
                      tensor_flop_per_inst=dict(settings.tensor_flop_per_inst) or None)
