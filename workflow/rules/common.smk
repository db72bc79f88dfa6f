import os
import sys
from pathlib import Path

from snakemake.utils import validate

# Rule scripts and this file import rooflow from the workflow's own src/ (first on the path,
# also for the scripts' interpreter), so a conda env needs only the pinned libraries.
SRC = str(Path(workflow.basedir).parent / "src")
sys.path.insert(0, SRC)
_ENV = os.environ  # extended here, never required: not an `envvars:` entry
_ENV.update(PYTHONPATH=os.pathsep.join(filter(None, [SRC, _ENV.get("PYTHONPATH")])))

from rooflow.defaults import schema_path
from rooflow.kinds import DATASET_NAME, KINDS
from rooflow.models.families import load_families
from rooflow.planning import Plan, load_checked, points_file
from rooflow.roofs.datasheet import load_hardware
from rooflow.settings import ADAPTER_KEYS

validate(config, str(schema_path("config")))

# hardware.yaml and families.yaml are checked once, before any job: one line on error.
HARDWARE = load_checked(load_hardware, config["hardware"])
load_checked(load_families, config["families"])
# Datasets in resources/, their presets, comparisons, targets: rooflow.planning (tested there).
PLAN = Plan(config, HARDWARE)
if workflow.is_main_process:  # jobs parse this file again: say each warning once
    for line in PLAN.warnings:
        print(f"rooflow: warning: {line}", file=sys.stderr)
ALL_PRESETS = PLAN.all_presets
COMPARISONS = PLAN.comparisons
# Only the keys adapters read, so editing plot options does not rerun ingest.
ADAPTER_SETTINGS = {k: config.get(k) for k in ADAPTER_KEYS}


# Too small to be worth a queue slot on a cluster.
localrules:
    all,
    summary,


wildcard_constraints:
    kind="|".join(KINDS),
    name=DATASET_NAME,
    preset=DATASET_NAME,
    ext="svg|pdf",
    comparison=DATASET_NAME,


def all_targets():
    return PLAN.targets()


def dataset_id(wildcards):
    return f"{wildcards.kind}-{wildcards.name}"


def plot_options(wildcards):
    return PLAN.dataset_options(dataset_id(wildcards))


def roofs_text(wildcards):
    """The preset's default roofs in words, for the report captions."""
    return PLAN.roofs_text(wildcards.preset)


def raw_input(wildcards):
    """The raw file (or folder, and its files) of a dataset, and what its kind also reads."""
    return PLAN.raw_input(wildcards.kind, wildcards.name)


def preset_input(wildcards):
    """hardware.yaml, plus a measured preset's file (or folder, and the files in it)."""
    return PLAN.preset_input(wildcards.preset)


def report_input(wildcards):
    return {
        "points": points_file(wildcards.kind, wildcards.name),
        **preset_input(wildcards),
    }


def aggregate_input(wildcards):
    return {
        "points": PLAN.aggregate_points(wildcards.preset),
        **preset_input(wildcards),
    }


def compare_input(wildcards):
    entry = COMPARISONS[wildcards.comparison]
    return {
        side: points_file(*PLAN.datasets[entry[side]]) for side in ("baseline", "new")
    } | preset_input(wildcards)


def aggregate_datasets(wildcards):
    return PLAN.preset_datasets(wildcards.preset)


def aggregate_selections(wildcards):
    """Each dataset's `select` entry (rooflow.selection), in aggregate_datasets' order."""
    return [
        PLAN.dataset_options(d).get("select", {}) for d in aggregate_datasets(wildcards)
    ]


def summary_input(wildcards):
    return expand("results/tables/{preset}/all.csv", preset=ALL_PRESETS)
