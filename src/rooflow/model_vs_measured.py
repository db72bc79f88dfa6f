"""Model against measurement: where a kernel's model puts it, and where its counters do.

A model point (a spec variant, a benchmark row, a roofline-CSV row with flop and bytes)
counts the FLOP the kernel must do and its compulsory bytes; the measured points (one per
memory level, from any profiler) count what it did. :func:`reconcile` joins them through a
mapping ``REGEX=TARGET`` (:func:`parse_mapping`): each measured kernel whose name the
regular expression matches (searched, polars' engine: :func:`rooflow.patterns.regex_error`;
the first mapping that matches wins) is set
against the model point named ``TARGET``.

The table (:data:`COLUMNS`, one row per matched kernel × measured level):

A measured point's name is its kernel, else its label (a roofline CSV's ``name``). A
model counts one call, so the measurement is set against it per call
(:func:`per_call`): a kernel's ``calls`` are its rows (ncu launches, PyTorch operator
calls, repeated rows of a roofline CSV; ``rooflow model-check`` reads every call), and
its FLOP, bytes at each level and time are divided by them. A row that sums launches
itself (rocprof, unitrace, ncu without ``per_launch``) is one call.

- ``flop_ratio`` = measured FLOP / model FLOP: above 1, work the model did not predict
  (wasted, or a mis-specified model); below 1, the model counts work the kernel skipped.
- ``excess_traffic`` = measured bytes at the level / model (compulsory) bytes: how many
  times the compulsory traffic the level moved (imperfect reuse, spills, re-reads).
- ``model_intensity``, ``measured_intensity``: FLOP/byte of each.
- ``model_pct_of_roof``, ``measured_pct_of_roof``: % of the roof at each one's intensity
  (:func:`rooflow.analysis.analyze`); a model point without a time sits on its roof (100 %).

A model point without a precision takes its measured kernel's, so both meet one roof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from rooflow.errors import InputError
from rooflow.escape import short_name
from rooflow.roofs.preset import Preset

COLUMNS = (
    "kernel", "model", "level", "precision", "calls",
    "model_flop", "measured_flop", "flop_ratio",
    "model_bytes", "measured_bytes", "excess_traffic",
    "model_intensity", "measured_intensity",
    "model_performance", "measured_performance",
    "model_pct_of_roof", "measured_pct_of_roof",
)
"""The columns of :func:`reconcile`'s table; FLOP and bytes in counts per call, performance
FLOP/s; ``calls`` the measured calls they are the mean of."""


@dataclass(frozen=True)
class Mapping:
    """One ``REGEX=TARGET`` item: measured kernels the pattern finds → the model point.

    ``pattern`` is checked by :func:`rooflow.patterns.regex_error` (:func:`parse_mapping`).
    """

    pattern: str
    target: str


def parse_mapping(item: str) -> Mapping:
    """``'REGEX=TARGET'`` → :class:`Mapping` (split at the first ``=``).

    Raises:
        ValueError: no ``=``, an empty side, or a regular expression that does not compile.
    """
    regex, sep, target = item.partition("=")
    if not sep or not regex.strip() or not target.strip():
        raise ValueError(f"'{item}' is not REGEX=MODEL (e.g. 'dgemm=gemm_4096')")
    from rooflow.patterns import regex_error

    if (why := regex_error(regex.strip())) is not None:
        raise ValueError(f"'{regex.strip()}' is not a regular expression: {why}")
    return Mapping(regex.strip(), target.strip())


def _names() -> pl.Expr:
    """A point's name: its kernel, else its label, else its pair."""
    return (pl.when(pl.col("kernel") != "").then(pl.col("kernel"))
            .when(pl.col("label") != "").then(pl.col("label"))
            .otherwise(pl.col("pair")))


def model_point(model: pl.DataFrame, target: str) -> dict:
    """The one model point named ``target`` (its DRAM row, else its first).

    ``target`` is a point's kernel, label or pair, exactly; else a part of one (a
    benchmark label's dims, ``M=4096``). Several points with the same FLOP and bytes (a
    benchmark's Original and Optimized rows) are one model.

    Raises:
        InputError: no point, or several different ones, answer to ``target``.
    """
    names = [pl.col(c) for c in ("kernel", "label", "pair")]
    found = model.filter(pl.any_horizontal(n == target for n in names))
    if found.is_empty():
        found = model.filter(pl.any_horizontal(n.str.contains(target, literal=True)
                                               for n in names))
    if found.is_empty():
        known = sorted(set(model.select(_names().alias("n"))["n"].to_list()))
        raise InputError("--map", f"no model point is named '{target}'; the model has: "
                         + ", ".join(known[:12]) + (" …" if len(known) > 12 else ""),
                         value=target)
    dram = found.filter(pl.col("level") == "DRAM")
    rows = (dram if not dram.is_empty() else found)
    distinct = rows.unique(["flop", "bytes"], maintain_order=True)
    if distinct.height > 1:
        found_names = distinct.select(pl.when(pl.col("label") != "").then(pl.col("label"))
                                      .otherwise(_names()).alias("n"))["n"].to_list()
        raise InputError("--map", f"'{target}' names {distinct.height} different model "
                         f"points ({'; '.join(map(short_name, found_names[:6]))}): give one "
                         "exactly (a "
                         "label, or a part of one only it has)", value=target)
    return rows.row(0, named=True)


def per_call(measured: pl.DataFrame) -> pl.DataFrame:
    """Measured points per call: one per kernel × level, with a ``calls`` column.

    A call is one row of a kernel at its first level (its ``source``, ``row`` and label;
    a PyTorch call's kernel loses its `` @<event index>``,
    :func:`rooflow.check.per_call_name`). Per kernel: ``calls`` = its calls; ``flop``
    and ``time_s`` = their mean over the calls (null when a call has none); ``bytes`` at a
    level = their sum at that level / calls (a call without a row at a level moved none
    there); ``arithmetic_intensity`` and ``performance`` from those (a call without a time:
    the mean of its rates). Other columns are the first call's.
    """
    from rooflow.check import per_call_name
    from rooflow.points import PER_CALL_SCHEMA, to_points

    key = ["source", "row", "kernel", "label"]
    # an adapter's own per-call columns describe its aggregated rows, not these calls
    measured = measured.drop(list(PER_CALL_SCHEMA), strict=False)
    rows = measured.with_columns(_call=pl.struct(key), name=per_call_name(measured))
    calls = rows.unique("_call", keep="first", maintain_order=True).group_by(
        "name", maintain_order=True).agg(
        calls=pl.len(),
        flop=pl.when(pl.col("flop").null_count() == 0).then(pl.col("flop").mean()),
        time_s=pl.when(pl.col("time_s").null_count() == 0).then(pl.col("time_s").mean()),
        rate=pl.col("performance").mean(), intensity=pl.col("arithmetic_intensity").mean())
    levels = rows.group_by("name", "level", maintain_order=True).agg(
        pl.exclude("flop", "bytes", "time_s", "performance", "arithmetic_intensity",
                   "_call").first(),
        bytes=pl.when(pl.col("bytes").null_count() == 0).then(pl.col("bytes").sum()))
    joined = levels.join(calls, on="name", maintain_order="left").with_columns(
        bytes=pl.col("bytes") / pl.col("calls"))
    flop, size, time = pl.col("flop"), pl.col("bytes"), pl.col("time_s")
    joined = joined.with_columns(
        kernel=pl.col("name"),
        arithmetic_intensity=pl.when(flop > 0).then(
            pl.when(size > 0).then(flop / size).otherwise(pl.col("intensity"))),
        performance=pl.when(time > 0).then(flop / time).otherwise(pl.col("rate")))
    return to_points(joined.drop("calls")).with_columns(calls=joined["calls"])


def reconcile(measured: pl.DataFrame, model: pl.DataFrame, mappings: list[Mapping],
              preset: Preset) -> pl.DataFrame:
    """The model-vs-measurement table (:data:`COLUMNS`) of every mapped measured kernel.

    Args:
        measured: canonical points of the measurement (any profiler kind).
        model: canonical points holding the model points (specs, benchmarks, roofline CSV).
        mappings: ``REGEX=TARGET`` items (:func:`parse_mapping`); first match wins.
        preset: the roofs both are judged against.

    Raises:
        InputError: a target names no model point (or several), or no measured kernel
            matches any mapping.
    """
    from rooflow.analysis import analyze

    # A roofline CSV names its rows by label or pair: the kernel column may be empty.
    measured = per_call(measured.with_columns(kernel=_names()))
    kernels = measured["kernel"].unique(maintain_order=True).to_list()
    # Matched by polars (Rust's regex crate, no backtracking): no pattern can hang this.
    names = pl.Series("kernel", kernels, dtype=pl.String)
    matched: dict[str, Mapping] = {}
    for m in mappings:
        for k in names.filter(names.str.contains(m.pattern)).to_list():
            matched.setdefault(k, m)  # the first mapping that matches wins
    matched = {k: matched[k] for k in kernels if k in matched}
    if not matched:
        patterns = ", ".join(f"'{m.pattern}'" for m in mappings)
        raise InputError("--map", f"no measured kernel matches {patterns}; kernels: "
                         + ", ".join(kernels[:8]) + (" …" if len(kernels) > 8 else ""))
    targets = {m.target: model_point(model, m.target) for m in matched.values()}
    chosen_rows = measured.filter(pl.col("kernel").is_in(list(matched)))
    meas = analyze(chosen_rows.drop("calls"), preset)
    calls = dict(zip(chosen_rows["kernel"], chosen_rows["calls"], strict=True))
    rows = []
    for r in meas.iter_rows(named=True):
        target = matched[r["kernel"]].target
        point = dict(targets[target])
        if not point["precision"]:
            point["precision"] = r["precision"]
        point["level"] = "DRAM"
        frame = pl.DataFrame([point], schema=model.schema)
        mod = analyze(frame, preset).row(0, named=True)
        rows.append({
            "kernel": r["kernel"], "model": target, "level": r["level"],
            "precision": r["precision"], "calls": calls[r["kernel"]],
            "model_flop": point["flop"], "measured_flop": r["flop"],
            "flop_ratio": _ratio(r["flop"], point["flop"]),
            "model_bytes": point["bytes"], "measured_bytes": r["bytes"],
            "excess_traffic": _ratio(r["bytes"], point["bytes"]),
            "model_intensity": mod["arithmetic_intensity"],
            "measured_intensity": r["arithmetic_intensity"],
            "model_performance": mod["performance"], "measured_performance": r["performance"],
            "model_pct_of_roof": mod["pct_of_roof"], "measured_pct_of_roof": r["pct_of_roof"],
        })
    schema = {c: (pl.String if c in COLUMNS[:4] else pl.Float64) for c in COLUMNS} | {
        "calls": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _ratio(a: float | None, b: float | None) -> float | None:
    """The ratio a / b; None where either is missing or b is 0."""
    if a is None or b is None or not b or math.isnan(a) or math.isnan(b):
        return None
    return a / b


def summary(table: pl.DataFrame) -> str:
    """One sentence: the kernels whose excess traffic and whose FLOP ratio are largest.

    E.g. "Model vs measurement, 1 kernel: largest excess traffic dgemm at L1, 87.3× the
    model's compulsory bytes; largest FLOP ratio dgemm, 1.00× the model's FLOP."
    """
    n = table["kernel"].n_unique()
    parts = [f"Model vs measurement, {n} kernel{'s' if n != 1 else ''}"]
    traffic = table.drop_nulls("excess_traffic").sort("excess_traffic", descending=True)
    if not traffic.is_empty():
        t = traffic.row(0, named=True)
        parts.append(f"largest excess traffic {short_name(t['kernel'], 60)} at {t['level']}, "
                     f"{t['excess_traffic']:.3g}× the model's compulsory bytes")
    flop = table.drop_nulls("flop_ratio").sort("flop_ratio", descending=True)
    if not flop.is_empty():
        f = flop.row(0, named=True)
        parts.append(f"largest FLOP ratio {short_name(f['kernel'], 60)}, "
                     f"{f['flop_ratio']:.5g}× the model's FLOP")
    return parts[0] + (": " + "; ".join(parts[1:]) if parts[1:] else "") + "."


def markdown_section(checks: dict[str, pl.DataFrame]) -> str:
    """``results/summary.md``'s "Model vs measurement" section: one line per model check.

    ``checks``: "PRESET/NAME" → the check's table (:data:`COLUMNS`), or a failed check's
    placeholder (columns ``dataset``, ``error``: its line is given). "" without checks.
    """
    from rooflow.escape import markdown_cell

    if not checks:
        return ""
    lines = ["## Model vs measurement", "",
             "Per model check of config `model_checks` (results/model/PRESET/NAME.csv):", ""]
    for key, table in checks.items():
        if "excess_traffic" in table.columns and table.height:
            text = summary(table)
        else:
            text = "not built: " + (str(table["error"][0]) if "error" in table.columns
                                    and table.height else "no table")
        lines.append(f"- {markdown_cell(key)}: {markdown_cell(text)}")
    return "\n".join(lines) + "\n"
