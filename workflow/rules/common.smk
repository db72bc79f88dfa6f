import re
from pathlib import Path

from snakemake.utils import validate

validate(config, "../schemas/config.schema.yaml")

# Raw inputs by kind. "[^/]+" keeps glob_wildcards out of subfolders (old/, tmp/).
RAW = {
    "roofline": "resources/roofline/{name}.csv",
    "benchmarks": "resources/benchmarks/{name}.csv",
    "specs": "resources/specs/{name}.yaml",
    "ncu": "resources/ncu/{name}.csv",
    "rocprof": "resources/rocprof/{name}/pmc_perf.csv",
}
# Measured peaks found in resources/ become presets named "<prefix>-<name>".
EMPIRICAL = {
    "ert": "resources/ert/{name}.json",
    "omniperf": "resources/rocprof/{name}/roofline.csv",
}
NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _discover(pattern):
    names = glob_wildcards(pattern.replace("{name}", "{name,[^/]+}")).name
    bad = [n for n in names if not NAME_OK.match(n)]
    if bad:
        raise ValueError(
            f"cannot build {pattern.format(name=bad[0])!r}: file names may hold only "
            "letters, digits, '_', '.', '-' and must start with a letter or digit"
        )
    return sorted(names)


DATASETS = [f"{kind}-{name}" for kind, pat in RAW.items() for name in _discover(pat)]
EMPIRICAL_PRESETS = {
    f"{prefix}-{name}": pat.format(name=name)
    for prefix, pat in EMPIRICAL.items()
    for name in _discover(pat)
}


def _known_presets():
    import yaml

    with open(config["hardware"]) as fh:
        return set(yaml.safe_load(fh)["presets"]) | set(EMPIRICAL_PRESETS)


KNOWN_PRESETS = _known_presets()


# Only the keys adapters read, so editing plot options does not rerun ingest.
ADAPTER_SETTINGS = {
    k: config.get(k)
    for k in (
        "families",
        "specs_dir",
        "family_map",
        "variant_prefix",
        "benchmarks",
        "ncu",
    )
}


def dataset_options(dataset):
    """Plot defaults overlaid by the dataset's own entry in config["datasets"]."""
    return {**config["plot_defaults"], **config.get("datasets", {}).get(dataset, {})}


def plot_options(wildcards):
    return dataset_options(f"{wildcards.kind}-{wildcards.name}")


def dataset_presets(dataset):
    presets = dataset_options(dataset).get("presets") or config["presets"]
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


# Too small to be worth a queue slot on a cluster.
localrules:
    all,
    summary,


wildcard_constraints:
    kind="|".join(RAW),
    name=r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    preset=r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    ext="svg|pdf",


def all_targets():
    targets = []
    for dataset in DATASETS:
        kind, name = dataset.split("-", 1)
        for preset in dataset_presets(dataset):
            stem = f"{preset}/{dataset}"
            targets += [f"results/tables/{stem}.csv", f"results/plots/{stem}.png"]
            targets += [
                f"results/plots/{stem}.{ext}"
                for ext in dataset_options(dataset)["formats"]
                if ext != "png"
            ]
    for preset in ALL_PRESETS:
        targets += [
            f"results/plots/{preset}/all.png",
            f"results/tables/{preset}/all.csv",
        ]
    if DATASETS:
        targets.append("results/summary.md")
    return targets


def raw_input(wildcards):
    """The raw file(s) one dataset is built from (benchmarks also read the specs)."""
    files = {"raw": RAW[wildcards.kind].format(name=wildcards.name)}
    if wildcards.kind in ("benchmarks", "specs"):
        files["families"] = config["families"]
    if wildcards.kind == "benchmarks":
        files["specs"] = expand(RAW["specs"], name=_discover(RAW["specs"]))
    return files


def preset_input(wildcards):
    """hardware.yaml, plus the measured-peaks file of an empirical preset."""
    files = {"hardware": config["hardware"]}
    if wildcards.preset in EMPIRICAL_PRESETS:
        files["empirical"] = EMPIRICAL_PRESETS[wildcards.preset]
    return files


def report_input(wildcards):
    return {
        "points": f"results/points/{wildcards.kind}/{wildcards.name}.parquet",
        **preset_input(wildcards),
    }


def aggregate_input(wildcards):
    points = []
    for dataset in preset_datasets(wildcards.preset):
        kind, name = dataset.split("-", 1)
        points.append(f"results/points/{kind}/{name}.parquet")
    return {"points": points, **preset_input(wildcards)}


def summary_input(wildcards):
    return expand("results/tables/{preset}/all.csv", preset=ALL_PRESETS)
