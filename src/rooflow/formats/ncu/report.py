"""Nsight Compute reports (``ncu -o NAME`` → ``NAME.ncu-rep``) → the long table of :mod:`.pages`.

Read with NVIDIA's report interface, in a child process (:mod:`.native`: the native
reader aborts the process on some corrupt files), the ``ncu-report`` package (PyPI; module
``ncu_report``, which ships ``libnvperf_host``, so no CUDA install or GPU is needed):
``load_report(path)`` → ranges → actions (one per profiled kernel launch, in profiling
order) → ``metric_names()`` and ``metric_by_name(name)``, each metric with its value
(``value()``: float, int or str by its kind) and unit (``unit()``: ``ns``, ``byte/s``,
``inst/cycle``, ``hz``, …). The package is imported only by that child.

The table is the one :func:`rooflow.formats.ncu.pages.read_ncu` gives for a CSV export
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

import polars as pl

from rooflow.errors import InputError
from rooflow.formats.ncu import native
from rooflow.formats.ncu.native import Launch
from rooflow.safeload import check_file

_SCHEMA = {"row": pl.Int64(), "launch": pl.Int64(), "kernel": pl.String(), "cc": pl.String(),
           "device": pl.String(), "metric": pl.String(), "unit": pl.String(),
           "value": pl.Float64(), "text": pl.String()}


def _load(path: Path) -> list[Launch]:
    """The report's launches, read by ``ncu_report`` in a child process (:mod:`.native`)."""
    if not native.installed():
        raise InputError(
            str(path), "reading an Nsight Compute report needs NVIDIA's ncu-report package "
            "(pip install 'rooflow[ncu]'; published for Linux x86-64 and Windows), or "
            "export it as CSV first: ncu --import NAME.ncu-rep --csv --page raw > NAME.csv",
            check="ncu-report", value="No module named 'ncu_report'")
    check_file(path, "an Nsight Compute report")
    return native.cached_launches(path)


def read_report(path: str | Path) -> pl.DataFrame:
    """Every metric of every kernel launch of a ``.ncu-rep`` report, one row each.

    Returns:
        The columns of :data:`rooflow.formats.ncu.pages.LONG_COLUMNS` (module doc) as
        written, before :func:`~rooflow.formats.ncu.pages.read_ncu` parses ``text`` into
        ``value``, scales units and fills ``cc`` and ``device``: ``value`` null, ``cc``
        and ``device`` "". Names of metric-collection
        requests (``regex:…``), which the report lists beside the metrics, are left out.

    Raises:
        InputError: ``ncu-report`` not installed, the file missing or not readable, the
            reader crashed or refused it, a metric name not UTF-8 (:mod:`.native`), or a
            report without a profiled kernel (ncu profiled nothing, the file is not an
            Nsight Compute report or it is cut short).
    """
    path = Path(path)
    columns: dict[str, list] = {name: [] for name in _SCHEMA}
    launch = 0
    for kernel, metrics in _load(path):
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
