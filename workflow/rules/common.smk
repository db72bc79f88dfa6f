import os
import re
import sys
from glob import glob
from pathlib import Path

from snakemake.utils import validate

# Rule scripts and this file import rooflow from the workflow's own src/ (first on the path,
# also for the scripts' interpreter), so a conda env needs only the pinned libraries.
SRC = str(Path(workflow.basedir).parent / "src")
sys.path.insert(0, SRC)
_ENV = os.environ  # extended here, never required: not an `envvars:` entry
_ENV.update(PYTHONPATH=os.pathsep.join(filter(None, [SRC, _ENV.get("PYTHONPATH")])))

from rooflow.adapters import KINDS
from rooflow.defaults import schema_path
from rooflow.roofs import MEASURED
from rooflow.settings import ADAPTER_KEYS

validate(config, str(schema_path("config")))


def _check_file(kind, path, load):
    """Validate hardware.yaml / families.yaml once, before any job: one line on error."""
    from rooflow.errors import InputError

    try:
        return load(path)
    except InputError as err:
        raise ValueError(f"rooflow: error: {err}") from None


from rooflow.models.families import load_families
from rooflow.roofs.datasheet import load_hardware

HARDWARE = _check_file("hardware", config["hardware"], load_hardware)
_check_file("families", config["families"], load_families)

# Raw inputs by kind, from the registry. "[^/]+" keeps glob_wildcards out of subfolders.
RAW = {kind: f"resources/{k.pattern}" for kind, k in KINDS.items()}
NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _discover(pattern):
    """The NAMEs of `pattern` ({name}: one path part; "*": any file of a folder)."""
    found = glob_wildcards(
        pattern.replace("{name}", "{name,[^/]+}").replace("*", "{file,[^/]+}")
    )
    bad = [n for n in found.name if not NAME_OK.match(n)]
    if bad:
        raise ValueError(
            f"cannot build {pattern.format(name=bad[0])!r}: file names may hold only "
            "letters, digits, '_', '.', '-' and must start with a letter or digit"
        )
    return sorted(set(found.name))


def _sources(pattern, folder, prefix, alternate=""):
    """NAME → the file, or the folder of files (`folder` form), `prefix`-NAME is read from."""
    found = {
        n: f"resources/{pattern}".format(name=n)
        for n in _discover(f"resources/{pattern}")
    }
    forms = [(alternate, False), (folder, True)]
    for form, is_folder in [(f, d) for f, d in forms if f]:
        for name in _discover(f"resources/{form}"):
            path = f"resources/{form}".format(name=name)
            if is_folder:
                path = os.path.dirname(path)
            if name in found:
                what = f"the folder {path}/" if is_folder else path
                raise ValueError(
                    f"cannot build {prefix}-{name}: it is both {found[name]} and "
                    f"{what}; keep one of them"
                )
            found[name] = path
    return found


def _source_input(key, path, folder):
    """Named inputs of what is read from `path`: it, and a folder's files (each a trigger)."""
    files = {key: path}
    if folder and os.path.isdir(path):
        files[f"{key}_files"] = sorted(
            glob(os.path.join(path, os.path.basename(folder)))
        )
    return files


# Dataset id "KIND-NAME" → (kind, name); ids are built here, never parsed back from paths.
SOURCES = {
    kind: _sources(k.pattern, k.folder, kind, k.alternate) for kind, k in KINDS.items()
}
DATASETS = {f"{kind}-{n}": (kind, n) for kind, found in SOURCES.items() for n in found}
# Measured peaks found in resources/ become presets "<prefix>-<name>" (→ their inputs).
_MEASURED = [
    (f"{prefix}-{name}", source, name, path)
    for prefix, source in MEASURED.items()
    for name, path in _sources(source.pattern, source.folder, prefix).items()
    if source.has_peaks(path)
]
MEASURED_PRESETS = {
    key: _source_input("measured", path, source.folder)
    for key, source, _, path in _MEASURED
}
# A dataset whose own export gives a preset (ncu "Theoretical" rows) was measured there.
OWN_PRESET = {
    f"{source.kind}-{name}": key for key, source, name, _ in _MEASURED if source.kind
}
KNOWN_PRESETS = set(HARDWARE) | set(MEASURED_PRESETS)
# Only the keys adapters read, so editing plot options does not rerun ingest.
ADAPTER_SETTINGS = {k: config.get(k) for k in ADAPTER_KEYS}


def dataset_options(dataset):
    """Plot defaults overlaid by the dataset's own entry in config["datasets"]."""
    return {**config["plot_defaults"], **config["datasets"].get(dataset, {})}


def dataset_id(wildcards):
    return f"{wildcards.kind}-{wildcards.name}"


def plot_options(wildcards):
    return dataset_options(dataset_id(wildcards))


def dataset_presets(dataset):
    """Measured data on its own device (and the presets it names); the rest everywhere."""
    opts = dataset_options(dataset)
    # Left unsaid, the device is the GPU of the dataset's own peaks (ncu-NAME), if any.
    device = opts.get("device") or (
        None if opts.get("presets") else OWN_PRESET.get(dataset)
    )
    presets = opts.get("presets") or ([device] if device else config["presets"])
    if device and device not in presets:
        raise ValueError(
            f"config: dataset {dataset!r} was measured on {device!r}, "
            f"which is not among its presets {presets}"
        )
    unknown = sorted(set(presets) - KNOWN_PRESETS)
    if unknown:
        raise ValueError(
            f"config: dataset {dataset!r} names unknown preset(s) {unknown}; "
            f"known: {sorted(KNOWN_PRESETS)}"
        )
    return presets


def preset_datasets(preset):
    return [d for d in DATASETS if preset in dataset_presets(d)]


ALL_PRESETS = sorted({p for d in DATASETS for p in dataset_presets(d)})

# Run-to-run comparisons: name → {baseline, new, presets?, normalize_names?}.
COMPARISONS = config.get("comparisons", {})


def comparison_presets(name):
    """The presets a comparison is drawn on: its own, else those both datasets share."""
    entry = COMPARISONS[name]
    for side in ("baseline", "new"):
        if entry[side] not in DATASETS:
            raise ValueError(
                f"config: comparison {name!r}: {side} {entry[side]!r} is not a dataset; "
                f"known: {sorted(DATASETS)}"
            )
    shared = [
        p
        for p in dataset_presets(entry["baseline"])
        if p in dataset_presets(entry["new"])
    ]
    presets = entry.get("presets") or shared
    unknown = sorted(set(presets) - KNOWN_PRESETS)
    if unknown or not presets:
        raise ValueError(
            f"config: comparison {name!r}: no preset to draw on "
            f"(unknown: {unknown}, shared by both datasets: {shared})"
        )
    return presets


def roofs_text(wildcards):
    """The preset's default roofs in words, for the report captions."""
    key = wildcards.preset
    if key in MEASURED_PRESETS:
        return f"peaks from {MEASURED_PRESETS[key]['measured']}"
    p = HARDWARE[key]
    return (
        f"{p.name}: {p.default_compute} {p.peak_flop_per_s / 1e12:g} TFLOP/s, "
        f"{p.default_memory} {p.peak_bytes_per_s / 1e9:g} GB/s, ridge point "
        f"{p.ridge_point:.4g} FLOP/byte (source: {p.source})"
    )


# Too small to be worth a queue slot on a cluster.
localrules:
    all,
    summary,


wildcard_constraints:
    kind="|".join(RAW),
    name=r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    preset=r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    ext="svg|pdf",
    comparison=r"[A-Za-z0-9][A-Za-z0-9_.-]*",


def all_targets():
    targets = []
    for dataset in DATASETS:
        for preset in dataset_presets(dataset):
            stem = f"{preset}/{dataset}"
            targets += [f"results/tables/{stem}.csv", f"results/plots/{stem}.png"]
            targets.append(f"results/html/{stem}.html")
            targets += [
                f"results/plots/{stem}.{ext}"
                for ext in dataset_options(dataset)["formats"]
                if ext != "png"
            ]
    for preset in ALL_PRESETS:
        targets += [
            f"results/plots/{preset}/all.png",
            f"results/tables/{preset}/all.csv",
            f"results/html/{preset}/all.html",
        ]
    for name in COMPARISONS:
        for preset in comparison_presets(name):
            targets += [
                f"results/compare/{preset}/{name}.{ext}"
                for ext in ("png", "csv", "html")
            ]
    if DATASETS:
        targets.append("results/summary.md")
    return targets


def raw_input(wildcards):
    """The raw file (or folder, and its files) of a dataset; benchmarks also read specs."""
    kind = KINDS[wildcards.kind]
    # A NAME not found in resources/ (a target asked for by hand): Snakemake says missing.
    default = RAW[wildcards.kind].format(name=wildcards.name)
    path = SOURCES[wildcards.kind].get(wildcards.name, default)
    files = _source_input("raw", path, kind.folder)
    for i, companion in enumerate(kind.companions):
        files[f"companion{i}"] = f"resources/{companion}".format(name=wildcards.name)
    if kind.reads_specs:
        files["families"] = config["families"]
    if wildcards.kind == "benchmarks":
        files["specs"] = expand(RAW["specs"], name=_discover(RAW["specs"]))
    return files


def preset_input(wildcards):
    """hardware.yaml, plus a measured preset's file (or folder, and the files in it)."""
    return {"hardware": config["hardware"]} | MEASURED_PRESETS.get(wildcards.preset, {})


def report_input(wildcards):
    return {
        "points": f"results/points/{wildcards.kind}/{wildcards.name}.parquet",
        **preset_input(wildcards),
    }


def aggregate_input(wildcards):
    datasets = preset_datasets(wildcards.preset)
    return {
        "points": [
            "results/points/{}/{}.parquet".format(*DATASETS[d]) for d in datasets
        ],
        **preset_input(wildcards),
    }


def compare_input(wildcards):
    entry = COMPARISONS[wildcards.comparison]
    return {
        side: "results/points/{}/{}.parquet".format(*DATASETS[entry[side]])
        for side in ("baseline", "new")
    } | preset_input(wildcards)


def aggregate_datasets(wildcards):
    return preset_datasets(wildcards.preset)


def summary_input(wildcards):
    return expand("results/tables/{preset}/all.csv", preset=ALL_PRESETS)
