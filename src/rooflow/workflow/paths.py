"""Every file the workflow writes under ``results/`` and ``logs/``, spelled once.

Each name is a Snakemake pattern: the rules (``workflow/rules/*.smk``) use it as it is,
with its ``{wildcards}``, and planning (:mod:`rooflow.workflow.planning`,
:mod:`rooflow.workflow.draw`, :mod:`rooflow.workflow.workload_plan`) fills it in with
:func:`fill`. No other module writes a ``results/`` or ``logs/`` path
(``tests/test_paths.py`` looks for one). Paths are relative to the workflow's working
folder.

Wildcards: ``kind`` and ``name`` (dataset ``KIND-NAME``, :data:`rooflow.kinds.KINDS`),
``batch`` (a batch job's rule name, :mod:`rooflow.workflow.batches`),
``preset``, ``comparison``, ``model_check``, ``projection``, ``history``; ``version`` and
``bundle`` (Bokeh's, :data:`BOKEHJS`).
"""

from __future__ import annotations

import string

from rooflow.html.bokehjs import BUNDLE_FILE

POINTS = "results/points/{kind}/{name}.parquet"
"""A dataset's canonical points (its batch's job; a failed one: :mod:`rooflow.workflow.failed`)."""
BATCH_MANIFEST = "results/datasets/{batch}.json"
"""What a batch job last built each of its datasets from (:mod:`rooflow.workflow.batches`)."""
BATCH_LOG = "logs/datasets/{batch}.log"

DATASET_TABLE = "results/tables/{preset}/{kind}-{name}.csv"
"""A dataset's analysis table on one preset (its batch's job)."""
DATASET_PLOT = "results/plots/{preset}/{kind}-{name}.png"
"""A dataset's roofline plot on one preset; its other image formats beside it, same stem."""
DATASET_PAGE = "results/html/{preset}/{kind}-{name}.html"
"""A dataset's interactive page on one preset."""
DATASET_OVERVIEW_ROWS = "results/overview/{preset}/{kind}-{name}.parquet"
"""A dataset's rows of its preset's overview table (its batch's job; rule ``aggregate``
reads them): its analysis table on the preset as the config gives it, without the
dataset's own ``peak_tflops``/``peak_bandwidth``. Parquet, read back as written."""

OVERVIEW_PLOT = "results/plots/{preset}/all.png"
"""Every dataset of one preset on one plot (rule ``aggregate``)."""
OVERVIEW_TABLE = "results/tables/{preset}/all.csv"
"""Their analysis tables concatenated, for people (spreadsheet-safe CSV)."""
OVERVIEW_TABLE_PARQUET = "results/tables/{preset}/all.parquet"
"""The same table for the jobs after it (rule ``summary``): read back as written."""
AGGREGATE_LOG = "logs/aggregate/{preset}.log"
OVERVIEW_PAGE = "results/html/{preset}/all.html"
"""Interactive page of every dataset of one preset (rule ``html_overview``)."""
OVERVIEW_PAGE_LOG = "logs/html/{preset}/all.log"
BOKEHJS = f"results/html/bokeh-{{version}}/{BUNDLE_FILE}"
"""A BokehJS bundle that the pages under ``results/html/`` load (rule ``bokehjs``), one copy
for all: ``version`` Bokeh's, ``bundle`` one of :data:`rooflow.html.bokehjs.BUNDLES`
(under the folder, :data:`rooflow.html.bokehjs.BUNDLE_FILE`)."""
BOKEHJS_LOG = "logs/html/bokehjs.log"

COMPARE_PLOT = "results/compare/{preset}/{comparison}.png"
COMPARE_TABLE = "results/compare/{preset}/{comparison}.csv"
COMPARE_PAGE = "results/compare/{preset}/{comparison}.html"
COMPARE_LOG = "logs/compare/{preset}/{comparison}.log"

MODEL_CHECK_PLOT = "results/model/{preset}/{model_check}.png"
MODEL_CHECK_TABLE = "results/model/{preset}/{model_check}.csv"
MODEL_CHECK_PARQUET = "results/model/{preset}/{model_check}.parquet"
"""The model check's table for rule ``summary``: read back as written."""
MODEL_CHECK_LOG = "logs/model/{preset}/{model_check}.log"

PROJECT_PLOT = "results/project/{projection}.png"
PROJECT_TABLE = "results/project/{projection}.csv"
PROJECT_KERNELS = "results/project/{projection}.kernels.csv"
PROJECT_PAGE = "results/project/{projection}.html"
PROJECT_LOG = "logs/project/{projection}.log"

HISTORY_PLOT = "results/history/{history}.png"
HISTORY_TABLE = "results/history/{history}.csv"
HISTORY_PAGE = "results/history/{history}.html"
HISTORY_LOG = "logs/history/{history}.log"

SUMMARY = "results/summary.md"
SUMMARY_LOG = "logs/summary.log"
DATASETS_READ = "results/datasets_read.txt"
"""Written when every dataset was read (rule ``datasets_read``, :mod:`rooflow.workflow.failed`)."""
DATASETS_READ_LOG = "logs/datasets_read.log"
TRACEBACK = "{log}.traceback"
"""A failed job's traceback, beside its log ``{log}`` (:mod:`rooflow.workflow.rulescript`)."""
PEAKS_CHECKED = ".snakemake/rooflow/peaks_checked.json"
"""The measured presets planning found whole, with their files' sizes and time stamps
(:mod:`rooflow.workflow.planning`): Snakemake's own folder, not an output."""


class _Kept(dict):
    """Wildcard values for :func:`fill`; a wildcard not given stays ``{itself}``."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(pattern: str, **wildcards: str) -> str:
    """``pattern`` with the given wildcards filled in, the others left as they are.

    ``fill(DATASET_PLOT, preset="h100-sxm")`` is ``results/plots/h100-sxm/{kind}-{name}.png``,
    a pattern still, for a rule; with every wildcard given, a path. Values are put in as
    they are: planning only lets names of :data:`rooflow.kinds.DATASET_NAME` through,
    which hold no brace.
    """
    return string.Formatter().vformat(pattern, (), _Kept(wildcards))


def folder(pattern: str, **wildcards: str) -> str:
    """The folder of ``pattern`` once ``wildcards`` are filled in (:func:`fill`)."""
    return fill(pattern, **wildcards).rsplit("/", 1)[0]
