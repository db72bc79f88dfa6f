"""Nsight Compute reports (``ncu -o NAME`` → ``NAME.ncu-rep``) → the long table of :mod:`.layout`.

Read with NVIDIA's report interface, the ``ncu-report`` package (PyPI; module
``ncu_report``, which ships ``libnvperf_host``, so no CUDA install or GPU is needed):
``load_report(path)`` → ranges → actions (one per profiled kernel launch, in profiling
order) → ``metric_names()`` and ``metric_by_name(name)``, each metric with its value
(``value()``: float, int or str by its kind) and unit (``unit()``: ``ns``, ``byte/s``,
``inst/cycle``, ``hz``, …). The package is imported only when a report is read.

The table is the one :func:`rooflow.formats.ncu.layout.read_ncu` gives for a CSV export
of the same report, so passes, formulas and peaks are shared: ``launch`` is the action's
position over all ranges (ncu's ``ID`` column of a CSV export of the report), ``row`` that
position counted from 1, ``kernel`` the demangled name with its parameter list (the CSV's
``Kernel Name``), ``cc`` and ``device`` from the ``device__attribute_*`` metrics of each
action, every metric in its unit (scaled to base units by
:func:`rooflow.formats.units.to_base_units`), ``text`` the value as written by
``str()`` (``"n/a"`` for a metric without a value).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from rooflow.errors import InputError

_SCHEMA = {"row": pl.Int64(), "launch": pl.Int64(), "kernel": pl.String(), "cc": pl.String(),
           "device": pl.String(), "metric": pl.String(), "unit": pl.String(),
           "value": pl.Float64(), "text": pl.String()}


def _load(path: Path) -> Any:
    try:
        import ncu_report  # NVIDIA's reader; heavy (a 50 MB native library), so only here
    except ImportError as err:
        raise InputError(
            str(path), "reading an Nsight Compute report needs NVIDIA's ncu-report package "
            "(pip install 'rooflow[ncu]'; published for Linux x86-64 and Windows), or "
            "export it as CSV first: ncu --import NAME.ncu-rep --csv --page raw > NAME.csv",
            check="ncu-report", value=str(err)) from None
    if not path.is_file():
        raise InputError(str(path), "file not found" if not path.exists()
                         else "is a folder, not an Nsight Compute report")
    try:
        return ncu_report.load_report(str(path))
    except Exception as err:  # noqa: BLE001 - the package raises what its native layer gives
        raise InputError(str(path), f"Nsight Compute report not readable: {err}",
                         check="ncu-report") from None


def _text(metric: Any) -> str:
    """A metric's value as text (``str`` of a float round-trips); "n/a" where it has none."""
    value = metric.value() if metric.has_value() else None
    return "n/a" if value is None else str(value)


def read_report(path: str | Path) -> pl.DataFrame:
    """Every metric of every kernel launch of a ``.ncu-rep`` report, one row each.

    Returns:
        The columns of :data:`rooflow.formats.ncu.layout.LONG_COLUMNS` (module doc) as
        written, before :func:`~rooflow.formats.ncu.layout.read_ncu` parses ``text`` into
        ``value``, scales units and fills ``cc`` and ``device``: ``value`` null, ``cc``
        and ``device`` "". Names of metric-collection
        requests (``regex:…``), which the report lists beside the metrics, are left out.

    Raises:
        InputError: ``ncu-report`` not installed, the file missing or not readable, or a
            report without a profiled kernel (ncu profiled nothing, the file is not an
            Nsight Compute report or it is cut short).
    """
    path = Path(path)
    context = _load(path)
    columns: dict[str, list] = {name: [] for name in _SCHEMA}
    launch = 0
    for r in range(context.num_ranges()):
        actions = context.range_by_idx(r)
        for a in range(actions.num_actions()):
            action = actions.action_by_idx(a)
            kernel = action.name(action.NameBase_DEMANGLED) or action.name()
            metrics: list[tuple[str, str, str]] = []
            for name in action.metric_names():
                if ":" in name:  # "regex:sm__…": the request that collected the metrics
                    continue
                metric = action.metric_by_name(name)
                if metric is None:
                    continue
                metrics.append((name, metric.unit() or "", _text(metric)))
            launch += 1
            for name, unit, text in metrics:
                columns["row"].append(launch)
                columns["launch"].append(launch - 1)
                columns["kernel"].append(kernel)
                columns["metric"].append(name)
                columns["unit"].append(unit)
                columns["text"].append(text)
    if not launch:
        raise InputError(str(path), "no profiled kernel in the report (is it an Nsight Compute "
                         "report, cut short, or did ncu profile no kernel?)",
                         check="ncu-report")
    height = len(columns["row"])
    columns["cc"] = [""] * height
    columns["device"] = [""] * height
    columns["value"] = [None] * height
    return pl.DataFrame(columns, schema=_SCHEMA)
