"""Workflow planning: datasets under ``resources/``, their presets, comparisons, targets.

``workflow/rules/common.smk`` builds one :class:`Plan` from the validated config and keeps
only Snakemake's input functions, so this policy is unit-tested in milliseconds
(``tests/test_planning.py``) instead of through a Snakemake run. Nothing here imports
Snakemake. Paths are strings as the workflow names its files (``resources/ncu/x.csv``,
relative to the working folder unless ``root`` is absolute).

What exists is read from the registries: :data:`rooflow.kinds.KINDS` (dataset
``KIND-NAME`` per raw file or folder) and :data:`rooflow.roofs.MEASURED` (preset
``PREFIX-NAME`` per measured-peaks file).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from glob import glob
from typing import TypeVar

from rooflow.errors import InputError
from rooflow.formats.devices import device_names
from rooflow.kinds import DATASET_NAME, KINDS
from rooflow.roofs import MEASURED
from rooflow.roofs.preset import Preset, device_preset

RESOURCES = "resources"
"""The raw-input folder the workflow reads (relative to its working folder)."""

_NAME_OK = re.compile(f"^{DATASET_NAME}$")
_T = TypeVar("_T")


def load_checked(load: Callable[[str], _T], path: str) -> _T:
    """``load(path)``, its :class:`~rooflow.errors.InputError` raised as one line.

    Used for hardware.yaml and families.yaml, read once before any job: Snakemake shows a
    ``ValueError`` raised while parsing the workflow as its message only.
    """
    try:
        return load(path)
    except InputError as err:
        raise ValueError(f"rooflow: error: {err}") from None


def discover(pattern: str) -> list[str]:
    """The NAMEs ``pattern`` matches on disk, sorted and unique.

    ``{name}`` stands for one path part, ``*`` for any one file of a folder. Matches what
    Snakemake's ``glob_wildcards`` finds with ``[^/]+`` constraints (files and folders,
    hidden ones too), so a file in a subfolder is no dataset.

    Raises:
        ValueError: a NAME that is not :data:`~rooflow.kinds.DATASET_NAME`; it could not
            be built, and skipping it would build nothing for it without a word.
    """
    norm = os.path.normpath(pattern)
    regex = re.compile(
        re.escape(norm).replace(r"\{name\}", "(?P<name>[^/]+)").replace(r"\*", "[^/]+") + "$"
    )
    top = os.path.dirname(norm[: norm.index("{")]) or "."
    found = [
        match["name"]
        for folder, dirs, files in os.walk(top)
        for entry in (*files, *dirs)
        if (match := regex.match(os.path.normpath(os.path.join(folder, entry))))
    ]
    bad = [name for name in found if not _NAME_OK.match(name)]
    if bad:
        raise ValueError(
            f"cannot build {pattern.format(name=bad[0])!r}: file names may hold only "
            "letters, digits, '_', '.', '-' and must start with a letter or digit"
        )
    return sorted(set(found))


def sources(
    prefix: str, pattern: str, folder: str = "", alternate: str = "", root: str = RESOURCES
) -> dict[str, str]:
    """NAME → the file, or the folder of files, that ``PREFIX-NAME`` is read from.

    Args:
        prefix: the kind (or measured-peaks prefix), for the error.
        pattern: the file form, ``{name}`` for NAME (:attr:`rooflow.kinds.Kind.pattern`).
        folder: the folder form (:attr:`rooflow.kinds.Kind.folder`), or empty.
        alternate: another file form (:attr:`rooflow.kinds.Kind.alternate`), or empty.
        root: the raw-input folder the patterns are under.

    Raises:
        ValueError: one NAME in two forms (``x.csv`` and ``x.parquet``, or ``x.csv`` and a
            folder ``x/``): which one is meant is not guessed.
    """
    found = {name: f"{root}/{pattern}".format(name=name) for name in discover(f"{root}/{pattern}")}
    for form, is_folder in ((alternate, False), (folder, True)):
        if not form:
            continue
        for name in discover(f"{root}/{form}"):
            path = f"{root}/{form}".format(name=name)
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


def source_input(key: str, path: str, folder: str) -> dict[str, str | list[str]]:
    """Named inputs of what is read from ``path``: ``key``, and a folder's files.

    ``<key>_files`` lists the files of a folder dataset: each one is a rerun trigger, as a
    folder's own time stamp is not.
    """
    files: dict[str, str | list[str]] = {key: path}
    if folder and os.path.isdir(path):
        files[f"{key}_files"] = sorted(glob(os.path.join(path, os.path.basename(folder))))
    return files


def points_file(kind: str, name: str) -> str:
    """The canonical points table the ``points`` job writes for dataset ``kind-name``."""
    return f"results/points/{kind}/{name}.parquet"


class Plan:
    """What the workflow builds from ``resources/`` and the config.

    Construction discovers every dataset and measured preset and checks every dataset's
    presets, so a bad input tree or config fails before any job, with one line.

    Attributes:
        config: the validated config (schema defaults filled in).
        hardware: datasheet presets (``hardware.yaml``) by id.
        root: the raw-input folder.
        sources: kind → NAME → the file or folder read.
        datasets: dataset id ``KIND-NAME`` → ``(kind, name)``; ids are built here, never
            parsed back from paths (names may hold ``-``).
        measured: measured preset id (``ert-NAME``...) → its named inputs.
        own_preset: dataset id → the preset of its own export's peaks (ncu "Theoretical"
            rows): the GPU it was measured on.
        gpus: dataset id → the names its raw input gives its GPU, most specific first
            (:func:`rooflow.formats.devices.device_names`, a header read); datasets whose
            input names none are left out.
        gpu_preset: dataset id → the datasheet preset whose ``devices`` name its GPU
            (:func:`rooflow.roofs.preset.device_preset`), where one does.
        known_presets: every preset a dataset or comparison may name.
        comparisons: config ``comparisons``: name → ``{baseline, new, presets?, ...}``.
        all_presets: sorted, every preset some dataset is drawn on.
        warnings: one line per dataset drawn on presets that are not its GPU's (config
            ``device``/``presets`` naming another GPU's preset, or no preset for its GPU),
            for the workflow to print once.
    """

    def __init__(
        self, config: Mapping, hardware: Mapping[str, Preset], root: str = RESOURCES
    ) -> None:
        self.config = config
        self.hardware = hardware
        self.root = root
        self.sources = {
            kind: sources(kind, k.pattern, k.folder, k.alternate, root)
            for kind, k in KINDS.items()
        }
        self.datasets = {
            f"{kind}-{name}": (kind, name)
            for kind, found in self.sources.items()
            for name in found
        }
        measured = [
            (f"{prefix}-{name}", source, name, path)
            for prefix, source in MEASURED.items()
            for name, path in sources(prefix, source.pattern, source.folder, source.alternate,
                                      root=root).items()
            if source.has_peaks(path)
        ]
        self.measured = {
            key: source_input("measured", path, source.folder) for key, source, _, path in measured
        }
        self.own_preset = {
            f"{source.kind}-{name}": key for key, source, name, _ in measured if source.kind
        }
        self.gpus = {
            dataset: names
            for dataset, (kind, name) in self.datasets.items()
            if (names := device_names(kind, self.sources[kind][name]))
        }
        self.gpu_preset = {
            dataset: preset
            for dataset, names in self.gpus.items()
            if (preset := device_preset(hardware, names))
        }
        self.known_presets = set(hardware) | set(self.measured)
        self.comparisons: Mapping[str, Mapping] = config.get("comparisons", {})
        self.warnings: list[str] = []
        # Decided once per dataset: the input functions ask for them per job.
        self._presets = {d: self._decide_presets(d) for d in self.datasets}
        self.all_presets = sorted({p for presets in self._presets.values() for p in presets})

    def dataset_options(self, dataset: str) -> dict:
        """Plot defaults overlaid by the dataset's own entry in config ``datasets``."""
        return {**self.config["plot_defaults"], **self.config["datasets"].get(dataset, {})}

    def dataset_presets(self, dataset: str) -> list[str]:
        """The presets ``dataset`` is drawn on.

        Its ``presets`` if given; else its ``device`` alone, which, unsaid, is the preset
        of its own export's peaks, else the datasheet preset whose ``devices`` name the GPU
        its input names; else config ``presets``. Measured data belongs on the GPU it was
        measured on; a table of theoretical points fits any.

        Raises:
            ValueError: its device is not among its presets, or a preset is unknown
                (raised when the plan is made).
        """
        if dataset in self._presets:
            return list(self._presets[dataset])
        return self._decide_presets(dataset)

    def _decide_presets(self, dataset: str) -> list[str]:
        """:meth:`dataset_presets`, computed; adds the dataset's warning, if any."""
        opts = self.dataset_options(dataset)
        gpu = self.gpu_preset.get(dataset)
        told = opts.get("device") or opts.get("presets")
        device = opts.get("device") or (
            None if opts.get("presets") else self.own_preset.get(dataset, gpu)
        )
        presets = opts.get("presets") or ([device] if device else self.config["presets"])
        if device and device not in presets:
            raise ValueError(
                f"config: dataset {dataset!r} was measured on {device!r}, "
                f"which is not among its presets {presets}"
            )
        unknown = sorted(set(presets) - self.known_presets)
        if unknown:
            raise ValueError(
                f"config: dataset {dataset!r} names unknown preset(s) {unknown}; "
                f"known: {sorted(self.known_presets)}"
            )
        if dataset not in self.gpus:
            return presets
        if not (told or gpu or dataset in self.own_preset):
            self.warnings.append(
                f"dataset {dataset!r} ran on {self._gpu_text(dataset)}, which no preset "
                f"lists under `devices`; drawn on the configured presets {presets} (give "
                "it a `device:` entry)"
            )
        elif told:
            # Datasheet presets that name other GPUs: roofs the data was not measured on.
            others = [p for p in presets
                      if p != gpu and p in self.hardware and self.hardware[p].devices]
            if others:
                self.warnings.append(
                    f"dataset {dataset!r} ran on {self._gpu_text(dataset)}"
                    + (f" (preset {gpu})" if gpu else "")
                    + f" but config draws it on {', '.join(others)}, whose `devices` do "
                    "not name it: another GPU's roofs"
                )
        return presets

    def _gpu_text(self, dataset: str) -> str:
        """The GPU names of ``dataset`` in words: ``'MI355X' (gfx950)``."""
        first, *rest = self.gpus[dataset]
        return repr(first) + (f" ({', '.join(rest)})" if rest else "")

    def preset_datasets(self, preset: str) -> list[str]:
        """The datasets drawn on ``preset``, in discovery order."""
        return [d for d in self.datasets if preset in self.dataset_presets(d)]

    def comparison_presets(self, name: str) -> list[str]:
        """The presets comparison ``name`` is drawn on: its own, else those both datasets share.

        Raises:
            ValueError: a side is no dataset, or there is no (known) preset to draw on.
        """
        entry = self.comparisons[name]
        for side in ("baseline", "new"):
            if entry[side] not in self.datasets:
                raise ValueError(
                    f"config: comparison {name!r}: {side} {entry[side]!r} is not a dataset; "
                    f"known: {sorted(self.datasets)}"
                )
        shared = [
            p
            for p in self.dataset_presets(entry["baseline"])
            if p in self.dataset_presets(entry["new"])
        ]
        presets = entry.get("presets") or shared
        unknown = sorted(set(presets) - self.known_presets)
        if unknown or not presets:
            raise ValueError(
                f"config: comparison {name!r}: no preset to draw on "
                f"(unknown: {unknown}, shared by both datasets: {shared})"
            )
        return presets

    def targets(self) -> list[str]:
        """Every output of the workflow (``rule all``).

        Per dataset and preset, per preset, per comparison and preset, and the summary
        when there is any dataset.
        """
        targets = []
        for dataset in self.datasets:
            for preset in self.dataset_presets(dataset):
                stem = f"{preset}/{dataset}"
                targets += [
                    f"results/tables/{stem}.csv",
                    f"results/plots/{stem}.png",
                    f"results/html/{stem}.html",
                ]
                targets += [
                    f"results/plots/{stem}.{ext}"
                    for ext in self.dataset_options(dataset)["formats"]
                    if ext != "png"
                ]
        for preset in self.all_presets:
            targets += [
                f"results/plots/{preset}/all.png",
                f"results/tables/{preset}/all.csv",
                f"results/html/{preset}/all.html",
            ]
        for name in self.comparisons:
            for preset in self.comparison_presets(name):
                targets += [
                    f"results/compare/{preset}/{name}.{ext}" for ext in ("png", "csv", "html")
                ]
        if self.datasets:
            targets.append("results/summary.md")
        return targets

    def raw_input(self, kind: str, name: str) -> dict[str, str | list[str]]:
        """Named inputs of the ``points`` job of ``kind-name``, from its registry entry.

        The raw file (or folder, and its files), its companions and what its entry
        ``reads`` (the family models; every spec file: a spec dataset reads its own file
        only, so adding a spec reruns no other spec). A NAME not found (a
        target asked for by hand) gets its pattern's path: Snakemake reports it missing.
        """
        k = KINDS[kind]
        default = f"{self.root}/{k.pattern}".format(name=name)
        files = source_input("raw", self.sources[kind].get(name, default), k.folder)
        for i, companion in enumerate(k.companions):
            files[f"companion{i}"] = f"{self.root}/{companion}".format(name=name)
        if "families" in k.reads:
            files["families"] = self.config["families"]
        if "specs" in k.reads:
            files["specs"] = list(self.sources["specs"].values())
        return files

    def preset_input(self, preset: str) -> dict[str, str | list[str]]:
        """hardware.yaml, plus a measured preset's file (or folder, and the files in it)."""
        return {"hardware": self.config["hardware"]} | self.measured.get(preset, {})

    def aggregate_points(self, preset: str) -> list[str]:
        """The points tables of the datasets drawn on ``preset``."""
        return [points_file(*self.datasets[d]) for d in self.preset_datasets(preset)]

    def roofs_text(self, preset: str) -> str:
        """The preset's default roofs in words, for the report captions."""
        if preset in self.measured:
            return f"peaks from {self.measured[preset]['measured']}"
        p = self.hardware[preset]
        return (
            f"{p.name}: {p.default_compute} {p.peak_flop_per_s / 1e12:g} TFLOP/s, "
            f"{p.default_memory} {p.peak_bytes_per_s / 1e9:g} GB/s, ridge point "
            f"{p.ridge_point:.4g} FLOP/byte (source: {p.source})"
        )
