import sys

from snakemake.utils import validate

from rooflow.workflow import jobmemory, paths
from rooflow.defaults import schema_path
from rooflow.workflow.batches import outputs_on_disk
from rooflow.errors import terminal_line
from rooflow.escape import report_param, rst_text
from rooflow.kinds import DATASET_NAME, KINDS
from rooflow.models.families import load_families
from rooflow.workflow.planning import Plan, points_file
from rooflow.workflow.preflight import config_error, load_checked, one_line_error
from rooflow.roofs.datasheet import load_hardware
from rooflow.settings import ADAPTER_KEYS

# Config, hardware.yaml, families.yaml and resources/ are checked once, before any job:
# an error is one line and exit 1 (raised into Snakemake, it would print a traceback).
try:
    if _line := config_error(config):
        raise ValueError(_line)
    validate(config, str(schema_path("config")))  # fills in the schema's defaults
    DATASHEET_PRESETS = load_checked(load_hardware, config["hardware"])
    load_checked(load_families, config["families"])
    # Datasets, presets, targets: rooflow.workflow.planning.
    PLAN = Plan(config, DATASHEET_PRESETS)
    # Asked for by all: a cut-short points file (removed, rebuilt), a batch job by its
    # manifest (rooflow.workflow.batches.asked_for); all under --batch (sliced by
    # position); jobs: none.
    _main = workflow.is_main_process
    _batch = getattr(workflow.dag_settings, "batch", None)
    _REMOVED = PLAN.remove_corrupt_points() if _main else []
    _disk = set() if _batch or not _main else outputs_on_disk(PLAN.all_presets, KINDS)
    TARGETS = PLAN.targets(None if _batch else _disk)
except ValueError as _err:
    sys.exit(one_line_error(_err))
if workflow.is_main_process:  # jobs parse this file again: say each warning once
    for line in PLAN.warnings + _REMOVED:
        print(f"rooflow: warning: {terminal_line(line)}", file=sys.stderr)
ALL_PRESETS = PLAN.all_presets
COMPARISONS = PLAN.comparisons
MODEL_CHECKS = PLAN.model_checks
# Only the keys adapters read, so editing plot options does not rerun ingest.
ADAPTER_SETTINGS = {k: config.get(k) for k in ADAPTER_KEYS}
# Every dataset's points file: a param, as the batches' manifests stand for them as inputs.
ALL_POINTS = list(PLAN.points_files().values())


# Too small to be worth a queue slot on a cluster.
localrules:
    all,
    summary,
    datasets_read,


wildcard_constraints:
    preset=DATASET_NAME,
    comparison=DATASET_NAME,
    model_check=DATASET_NAME,


# Params of jobs whose outputs are in the report go there unescaped, in a <script> block:
# config text in them is escaped (rooflow.escape; the scripts undo it).
def roofs_text(wildcards):
    """The preset's default roofs in words, escaped for the report captions (RST)."""
    return rst_text(PLAN.roofs_text(wildcards.preset))


def preset_input(wildcards):
    """hardware.yaml, plus a measured preset's file (or folder, and the files in it)."""
    return PLAN.preset_input(wildcards.preset)


def aggregate_input(wildcards):
    """The manifests of the batches drawing on the preset (their rows: aggregate_rows)."""
    return {
        "manifests": PLAN.manifests(PLAN.preset_datasets(wildcards.preset)),
        **preset_input(wildcards),
    }


def compare_input(wildcards):
    entry = COMPARISONS[wildcards.comparison]
    return {
        side: points_file(*PLAN.datasets[entry[side]]) for side in ("baseline", "new")
    } | preset_input(wildcards)


def model_check_input(wildcards):
    """Points of a model check's datasets (`points_measured`, `points_model`), preset files."""
    entry = MODEL_CHECKS[wildcards.model_check]
    return {
        f"points_{side}": points_file(*PLAN.datasets[entry[side]])
        for side in ("measured", "model")
    } | preset_input(wildcards)


def aggregate_datasets(wildcards):
    return PLAN.preset_datasets(wildcards.preset)


def aggregate_rows(wildcards):
    return PLAN.aggregate_rows(wildcards.preset)


def summary_input(wildcards):
    return {
        "tables": expand(paths.OVERVIEW_TABLE_PARQUET, preset=ALL_PRESETS),
        "manifests": PLAN.manifests(),
        "models": [
            paths.fill(paths.MODEL_CHECK_PARQUET, preset=p, model_check=n)
            for n in MODEL_CHECKS
            for p in PLAN.model_check_presets(n)
        ],
    }


def model_check_keys():
    """PRESET/NAME of every model check, in config order (the summary's inputs)."""
    return [f"{p}/{n}" for n in MODEL_CHECKS for p in PLAN.model_check_presets(n)]


def dataset_outputs(batch):
    """Each dataset's outputs, `update()`: a job keeps its unchanged datasets' files."""
    outputs = []
    for dataset in batch.datasets:
        kind = PLAN.datasets[dataset][0]
        for path, preset, shown in batch.dataset_outputs(*PLAN.datasets[dataset]):
            if shown:
                labels = {"dataset": dataset, "output": shown}
                path = in_report(
                    path,
                    caption=CAPTIONS[shown],
                    category=preset,
                    subcategory=kind,
                    labels=labels,
                )
            outputs.append(update(path))
    return outputs
