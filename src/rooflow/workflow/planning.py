"""Workflow planning: datasets under ``resources/``, their presets, comparisons, targets.

``workflow/rules/common.smk`` builds one :class:`Plan` from the validated config and keeps
only Snakemake's input functions, so this policy is unit-tested directly
(``tests/test_planning.py``) instead of through a Snakemake run. Nothing here imports
Snakemake. Paths are strings as the workflow names its files (``resources/ncu/x.csv``,
relative to the working folder unless ``root`` is absolute).

What exists is read from the registries: :data:`rooflow.kinds.KINDS` (dataset
``KIND-NAME`` per raw file or folder) and :data:`rooflow.roofs.MEASURED` (preset
``PREFIX-NAME`` per measured-peaks file).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Set
from functools import cached_property
from glob import glob

from rooflow.errors import InputError
from rooflow.kinds import DATASET_NAME, KINDS, device_names, resolve
from rooflow.roofs import MEASURED
from rooflow.roofs.preset import Preset, device_preset
from rooflow.safeload import read_json
from rooflow.workflow import paths
from rooflow.workflow.batches import Batch, asked_for, dataset_batches
from rooflow.workflow.draw import points_file
from rooflow.workflow.failed import is_whole_parquet
from rooflow.workflow.preflight import unusable

RESOURCES = "resources"
"""The raw-input folder the workflow reads (relative to its working folder)."""

_NAME_OK = re.compile(f"^{DATASET_NAME}$")

NAME_MAX = 255
"""Bytes of one file name (Linux ``NAME_MAX``; macOS and Windows take 255 characters)."""
LONGEST_SUFFIX = paths.TRACEBACK.format(log=".log")
"""The longest ending a workflow file adds to a dataset id, a preset, a comparison or a
model check name (``logs/compare/PRESET/NAME.log.traceback``, :data:`.paths.TRACEBACK`)."""
PERIODIC_REPEATS = 20
"""Snakemake refuses a wildcard value ending in one substring repeated this often
(``PeriodicWildcardError``: snakemake.io ``PeriodicityDetector``, min_repeat 20), taking
it for a rule that calls itself without end; its whole run then builds nothing."""


def periodic_unit(value: str) -> str | None:
    """The substring ``value`` ends in :data:`PERIODIC_REPEATS` times or more, else None.

    The test Snakemake makes of every wildcard value (``run_0000…0``, ``nnnn…``): a
    suffix ``u`` repeated 20 or more times, ``u`` of any length.
    """
    for length in range(1, len(value) // PERIODIC_REPEATS + 1):
        unit = value[-length:]
        if value.endswith(unit * PERIODIC_REPEATS):
            return unit
    return None


def name_problem(name: str, file_name: str | None = None) -> str | None:
    """Why the workflow cannot take ``name`` as a wildcard value, or None when it can.

    ``file_name``: the longest file name it makes (default ``name`` +
    :data:`LONGEST_SUFFIX`), which must fit :data:`NAME_MAX` bytes.
    """
    longest = file_name or name + LONGEST_SUFFIX
    if len(longest.encode()) > NAME_MAX:
        return (f"its files' names would be {len(longest.encode())} bytes "
                f"({longest[:24]}…), over the {NAME_MAX} a file system takes")
    if (unit := periodic_unit(name)) is not None:
        return (f"it ends in {unit!r} repeated {PERIODIC_REPEATS} times or more, which "
                "Snakemake refuses in a file name as a rule calling itself (a periodic "
                "wildcard)")
    return None


def link_out(path: str, tree: str) -> str | None:
    """The first link at ``path`` (or among a folder's entries) out of ``tree``, or None.

    A raw input is read from ``resources/``; a link to ``/etc/passwd`` would put that
    file's content into a job's error line, summary.md and the report. ``tree`` is
    compared resolved, so ``resources/`` may itself be a link.
    """
    top = os.path.realpath(tree)
    entries = [path]
    if os.path.isdir(path) and not os.path.islink(path):
        try:
            entries += sorted(os.path.join(path, e) for e in os.listdir(path))
        except OSError:
            return None  # unusable() says why
    for entry in entries:
        if os.path.islink(entry):
            target = os.path.realpath(entry)
            if os.path.commonpath([top, target]) != top:
                return entry
    return None


def discover(pattern: str, skipped: list[tuple[str, str]] | None = None,
             tree: str | None = None) -> list[str]:
    """The NAMEs ``pattern`` matches on disk, sorted and unique.

    ``{name}`` stands for one path part, ``*`` for any one file of a folder. Matches what
    Snakemake's ``glob_wildcards`` finds with ``[^/]+`` constraints (files and folders,
    hidden ones too), so a file in a subfolder is no dataset.

    What the workflow cannot take is skipped, ``(NAME, line)`` appended to ``skipped``: a NAME
    that is not :data:`~rooflow.kinds.DATASET_NAME` (``my data.csv``, editor and OS
    droppings such as ``._x.csv``, ``.#x.csv``, ``~$x.csv``) and paths no job could read
    (:func:`rooflow.workflow.preflight.unusable`), and, ``tree`` given, a link (or a folder holding
    one) that leads out of ``tree`` (:func:`link_out`).
    One such file never stops the others.
    """
    norm = os.path.normpath(pattern)
    regex = re.compile(
        re.escape(norm).replace(r"\{name\}", "(?P<name>[^/]+)").replace(r"\*", "[^/]+") + "$"
    )
    top = os.path.dirname(norm[: norm.index("{")]) or "."
    found, lines, out = [], [], set()
    for folder, dirs, files in os.walk(top):
        for entry in (*files, *dirs):
            path = os.path.normpath(os.path.join(folder, entry))
            if not (match := regex.match(path)):
                continue
            name = match["name"]
            if not _NAME_OK.match(name):
                lines.append((name, f"skipped {pattern.format(name=name)!r}: a file name may "
                              "hold only letters, digits, '_', '.', '-' and must start with "
                              "a letter or digit"))
            elif why := unusable(path):
                lines.append((name, f"skipped {path!r}: {why}"))
            elif tree is not None and (link := link_out(
                    own := path[:match.end("name")], tree) or link_out(path, tree)):
                # NAME a folder (ncu passes, a rocprof workload): every file in it is read
                shown = f"{own}/" if os.path.isdir(own) else path
                lines.append((name, f"skipped {shown!r}: {link!r} is a link out of {tree}/ "
                              "(inputs are read from there only)"))
                out.add(name)
            else:
                found.append(name)
    if skipped is not None:
        skipped += sorted(set(lines))
    return sorted(set(found) - out)


def sources(
    prefix: str,
    pattern: str,
    folder: str = "",
    alternate: str = "",
    root: str = RESOURCES,
    skipped: list[tuple[str, str]] | None = None,
) -> dict[str, str]:
    """NAME → the file, or the folder of files, that ``PREFIX-NAME`` is read from.

    Args:
        prefix: the kind (or measured-peaks prefix), for the error.
        pattern: the file form, ``{name}`` for NAME (:attr:`rooflow.kinds.Kind.pattern`).
        folder: the folder form (:attr:`rooflow.kinds.Kind.folder`), or empty.
        alternate: another file form (:attr:`rooflow.kinds.Kind.alternate`), or empty.
        root: the raw-input folder the patterns are under.
        skipped: where ``(PREFIX-NAME, line)`` of what is skipped go (:func:`discover`),
            a NAME in two forms (``x.csv`` and ``x.parquet``, or ``x.csv`` and a folder
            ``x/``) included: which one is meant is not guessed, so neither is built; and
            a NAME the workflow's file names cannot hold (:func:`name_problem`: too long,
            or periodic for Snakemake).

    Raises:
        ValueError: a NAME in two forms or one :func:`name_problem` refuses, when no
            ``skipped`` list is given.
    """
    names: list[tuple[str, str]] = []
    found = {name: f"{root}/{pattern}".format(name=name)
             for name in discover(f"{root}/{pattern}", names, root)}
    twice = set()
    for form, is_folder in ((alternate, False), (folder, True)):
        if not form:
            continue
        for name in discover(f"{root}/{form}", names, root):
            path = f"{root}/{form}".format(name=name)
            if is_folder:
                path = os.path.dirname(path)
            if name in found:
                what = f"the folder {path}/" if is_folder else path
                line = f"{prefix}-{name}: it is both {found[name]} and {what}; keep one of them"
                if skipped is None:
                    raise ValueError(f"cannot build {line}")
                names.append((name, f"skipped {line}"))
                twice.add(name)
                continue
            found[name] = path
    for name, path in found.items():
        if name not in twice and (why := name_problem(name) or name_problem(
                f"{prefix}-{name}")):
            line = f"{prefix}-{name}: {why}; rename {path}"
            if skipped is None:
                raise ValueError(f"cannot build {line}")
            names.append((name, f"skipped {line}"))
            twice.add(name)
    if skipped is not None:
        skipped += [(f"{prefix}-{name}", line) for name, line in names]
    return {name: path for name, path in found.items() if name not in twice}


def source_input(key: str, path: str, folder: str) -> dict[str, str | list[str]]:
    """Named inputs of what is read from ``path``: ``key``, and a folder's files.

    ``<key>_files`` lists the files of a folder dataset: each one is a rerun trigger, as a
    folder's own time stamp is not.
    """
    files: dict[str, str | list[str]] = {key: path}
    if folder and os.path.isdir(path):
        files[f"{key}_files"] = sorted(
            f for f in glob(os.path.join(path, os.path.basename(folder))) if not unusable(f))
    return files


PEAKS_CHECKED_BYTES = 16 << 20
"""Bytes of measured-peaks files (a folder's together) at most that planning builds the
preset of, to check it; a larger one is planned as found (``ncu-NAME``: from the metric
names alone) and a bad one fails the jobs of its preset."""


def _identity(path: str) -> list[list]:
    """``[file, size, mtime_ns]`` of a peaks file, or of each file of a folder, sorted."""
    files = sorted(os.path.join(path, f) for f in os.listdir(path)) if os.path.isdir(
        path) else [path]
    found = []
    for f in files:
        try:
            info = os.stat(f)
        except OSError:
            continue
        found.append([f, info.st_size, info.st_mtime_ns])
    return found


def preset_problem(key: str, path: str) -> str | None:
    """Why measured preset ``key`` cannot be built from ``path`` (one line), or None.

    The preset is built as its jobs build it (:func:`rooflow.roofs.load_preset`): an ERT
    JSON or pti-gpu config that is malformed, an ncu export whose peaks are -1 or
    ``n/a``, a report the reader crashes on. Left out of the plan, it fails no job; its
    datasets are drawn on their other presets. None, unchecked, for files over
    :data:`PEAKS_CHECKED_BYTES`.
    """
    from rooflow.roofs import load_preset

    files = [os.path.join(path, f) for f in os.listdir(path)] if os.path.isdir(path) else [
        path]
    try:
        if sum(os.path.getsize(f) for f in files if os.path.isfile(f)) > PEAKS_CHECKED_BYTES:
            return None
        load_preset(key, measured_file=path)
    except InputError as err:
        return str(err)
    except Exception as err:  # noqa: BLE001 - any file: one line, whatever broke
        return f"{path}: {type(err).__name__}: {' '.join(str(err).split())[:200]}"
    return None


DATASETS_READ = paths.DATASETS_READ
"""Output of rule ``datasets_read`` (:data:`rooflow.workflow.paths.DATASETS_READ`)."""


class Plan:
    """What the workflow builds from ``resources/`` and the config.

    Construction discovers every dataset and measured preset and checks every dataset's
    presets, so a bad input tree or config fails before any job, with one line.

    Attributes:
        config: the validated config (schema defaults filled in).
        datasheet_presets: the datasheet presets (``hardware.yaml``) by id.
        root: the raw-input folder.
        sources: kind → NAME → the file or folder read.
        datasets: dataset id ``KIND-NAME`` → ``(kind, name)``; ids are built here, never
            parsed back from paths (names may hold ``-``).
        measured: measured preset id (``ert-NAME``...) → its named inputs.
        own_preset: dataset id → the preset of its own export's peaks (ncu "Theoretical"
            rows): the GPU it was measured on.
        gpus: dataset id → the names its raw input gives its GPU, most specific first
            (:func:`rooflow.kinds.device_names`, a header read); datasets whose
            input names none are left out.
        gpu_preset: dataset id → the datasheet preset whose ``devices`` name its GPU
            (:func:`rooflow.roofs.preset.device_preset`), where one does.
        broken: measured preset id → why it cannot be built (:func:`preset_problem`):
            left out of ``measured``; where config names it, it is left out of the list.
        known_presets: every preset a dataset or comparison may name.
        comparisons: config ``comparisons``: name → ``{baseline, new, presets?, ...}``.
        all_presets: sorted, every preset some dataset is drawn on.
        skipped: one line per file or folder under ``root`` that is no dataset because
            the workflow cannot take it (:func:`discover`), and per comparison left out
            because a dataset of it was skipped.
        warnings: the ``skipped`` lines, then one line per dataset drawn on presets that
            are not its GPU's (config ``device``/``presets`` naming another GPU's preset,
            or no preset for its GPU), for the workflow to print once.
    """

    def __init__(
        self, config: Mapping, datasheet_presets: Mapping[str, Preset], root: str = RESOURCES
    ) -> None:
        self.config = config
        self.datasheet_presets = datasheet_presets
        self.root = root
        skipped: list[tuple[str, str]] = []
        self.sources = {
            kind: sources(kind, k.pattern, k.folder, k.alternate, root, skipped)
            for kind, k in KINDS.items()
        }
        self.datasets = {
            f"{kind}-{name}": (kind, name)
            for kind, found in self.sources.items()
            for name in found
        }
        # Before the peaks are built: a report's GPU is read with a time limit, and its
        # peaks then come from the same read (rooflow.formats.ncu.native).
        self.gpus = {
            dataset: names
            for dataset, (kind, name) in self.datasets.items()
            if (names := device_names(kind, self.sources[kind][name]))
        }
        found = [
            (f"{prefix}-{name}", source, name, path)
            for prefix, source in MEASURED.items()
            for name, path in sources(prefix, source.pattern, source.folder, source.alternate,
                                      root=root, skipped=skipped).items()
            if source.has_peaks(path)
        ]
        self.broken = self._check_presets([(key, path) for key, _, _, path in found])
        if "rooflow.formats.ncu.native" in sys.modules:  # every report read: its child ends
            sys.modules["rooflow.formats.ncu.native"].stop()
        measured = [m for m in found if m[0] not in self.broken]
        self.measured = {
            key: source_input("measured", path, source.folder) for key, source, _, path in measured
        }
        self.own_preset = {
            f"{source.kind}-{name}": key for key, source, name, _ in measured if source.kind
        }
        self.gpu_preset = {
            dataset: preset
            for dataset, names in self.gpus.items()
            if (preset := device_preset(datasheet_presets, names))
        }
        self.known_presets = set(datasheet_presets) | set(self.measured)
        # A datasheet preset whose name no file can hold: left out (measured ones were
        # skipped by sources()); a dataset or comparison naming it is not drawn on it.
        self.unusable_presets = {
            p: why for p in sorted(_named_presets(config) & set(datasheet_presets))
            if (why := name_problem(p))}
        for preset, why in self.unusable_presets.items():
            skipped.append((preset, f"skipped preset {preset!r}: {why}"))
        self.known_presets -= set(self.unusable_presets)
        self.skipped = list(dict.fromkeys(line for _, line in skipped))
        gone = {key for key, _ in skipped} - set(self.datasets)
        self.comparisons: Mapping[str, Mapping] = self._comparisons(
            config.get("comparisons", {}), gone)
        self.model_checks: Mapping[str, Mapping] = self._comparisons(
            config.get("model_checks", {}), gone, ("measured", "model"))
        self.warnings: list[str] = list(self.skipped) + [
            f"preset {key!r} not built: {line}; its datasets are drawn on their other presets"
            for key, line in self.broken.items()]
        self.rebuild: list[str] = []  # points files removed by remove_corrupt_points
        # Decided once per dataset: the input functions ask for them per job.
        self._presets = {d: self._decide_presets(d) for d in self.datasets}
        self.all_presets = sorted({p for presets in self._presets.values() for p in presets})

    def _check_presets(self, found: list[tuple[str, str]]) -> dict[str, str]:
        """Measured preset → why it cannot be built (:func:`preset_problem`), of ``found``.

        A preset built whole is noted in :data:`.paths.PEAKS_CHECKED` with its files' sizes and
        time stamps, and not built again while they stay the same: planning runs on every
        Snakemake invocation, and building a preset imports the validation library
        (bench/NOTES.md). A bad one is checked, and warned about, on every run.
        """
        try:
            checked = read_json(paths.PEAKS_CHECKED, "rooflow's planning notes")
        except InputError:
            checked = {}
        good, broken = {}, {}
        for key, path in found:
            files = _identity(path)
            if isinstance(checked, dict) and checked.get(key) == files:
                good[key] = files
            elif line := preset_problem(key, path):
                broken[key] = line
            else:
                good[key] = files
        if good != checked:
            from rooflow.io import atomic_path

            try:
                with atomic_path(paths.PEAKS_CHECKED) as tmp:
                    tmp.write_text(json.dumps(good), encoding="utf-8")
            except OSError:
                pass  # a folder not writable: built again next time
        return broken

    def _comparisons(
        self, comparisons: Mapping[str, Mapping], gone: set[str],
        sides: tuple[str, str] = ("baseline", "new"),
    ) -> dict[str, Mapping]:
        """Config ``comparisons`` (``model_checks``) less those naming a skipped dataset."""
        kept: dict[str, Mapping] = {}
        what = "comparison" if sides == ("baseline", "new") else "model check"
        for name, entry in comparisons.items():
            lost = [entry[s] for s in sides if entry[s] in gone]
            if lost:
                self.skipped.append(f"skipped {what} {name!r}: its dataset {lost[0]!r} "
                                    "was skipped")
            elif why := name_problem(name):
                self.skipped.append(f"skipped {what} {name!r}: {why}")
            else:
                kept[name] = {**entry, **({"presets": [
                    p for p in entry["presets"] if p not in self.unusable_presets]}
                    if entry.get("presets") else {})}
        return kept

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
        # A measured preset that cannot be built is left out where it is named.
        named = [p for p in opts.get("presets") or [] if p not in self.broken]
        told = (opts.get("device") not in self.broken and opts.get("device")) or named
        device = (opts.get("device") not in self.broken and opts.get("device")) or (
            None if named else self.own_preset.get(dataset, gpu)
        )
        hook = KINDS[self.datasets[dataset][0]].preset_hook  # unitrace: a run on one stack
        if hook:
            device = resolve(hook)(self, dataset, device, opts)
        presets = named or ([device] if device else [
            p for p in self.config["presets"] if p not in self.broken])
        presets = [p for p in presets if p not in self.unusable_presets]  # said once
        if device in self.unusable_presets:
            device = None
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
                      if p != gpu and p in self.datasheet_presets
                      and self.datasheet_presets[p].devices]
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
        presets = [p for p in entry.get("presets") or [] if p not in self.broken] or shared
        unknown = sorted(set(presets) - self.known_presets)
        if unknown or not presets:
            raise ValueError(
                f"config: comparison {name!r}: no preset to draw on "
                f"(unknown: {unknown}, shared by both datasets: {shared})"
            )
        return presets

    def model_check_presets(self, name: str) -> list[str]:
        """Model check ``name``'s presets: its own, else its measured dataset's; ValueError."""
        entry, problem = self.model_checks[name], ""
        if lost := [entry[s] for s in ("measured", "model") if entry[s] not in self.datasets]:
            problem = f"{lost[0]!r} is not a dataset; known: {sorted(self.datasets)}"
        presets = [] if problem else [p for p in entry.get("presets") or []
                                      if p not in self.broken] or self.dataset_presets(
            entry["measured"])
        if unknown := sorted(set(presets) - self.known_presets):
            problem = f"unknown presets {unknown}"
        if problem or not presets:
            raise ValueError(f"config: model check {name!r}: {problem or 'no preset'}")
        return list(presets)

    @cached_property
    def batches(self) -> list[Batch]:
        """The workflow's batch rules, made once (:func:`.batches.dataset_batches`)."""
        return dataset_batches(self)

    def manifests(self, datasets: Iterable[str] | None = None) -> list[str]:
        """The manifests of the batches holding ``datasets`` (default: every batch)."""
        wanted = None if datasets is None else set(datasets)
        return [b.manifest for b in self.batches
                if wanted is None or not wanted.isdisjoint(b.datasets)]

    def targets(self, on_disk: Set[str] | None = None) -> list[str]:
        """Every output of the workflow, or (``on_disk`` given) what ``rule all`` asks for.

        Per dataset and preset, per preset, per comparison and preset, and the summary and
        the check that every dataset was read (:data:`DATASETS_READ`) when there is any dataset.
        ``on_disk``: the batch jobs' outputs present
        (:func:`rooflow.workflow.batches.outputs_on_disk`); a batch job is then asked for
        by one or two files (:func:`rooflow.workflow.batches.asked_for`).
        """
        targets = []
        for batch in self.batches:  # what each dataset's batch job writes
            targets += asked_for(batch, self, on_disk)
        for preset in self.all_presets:
            targets += [paths.fill(p, preset=preset) for p in (
                paths.OVERVIEW_PLOT, paths.OVERVIEW_TABLE, paths.OVERVIEW_PAGE)]
        for name in self.comparisons:
            for preset in self.comparison_presets(name):
                targets += [paths.fill(p, preset=preset, comparison=name) for p in (
                    paths.COMPARE_PLOT, paths.COMPARE_TABLE, paths.COMPARE_PAGE)]
        for name in self.model_checks:
            targets += [paths.fill(p, preset=preset, model_check=name)
                        for preset in self.model_check_presets(name)
                        for p in (paths.MODEL_CHECK_PLOT, paths.MODEL_CHECK_TABLE)]
        if self.datasets:
            targets += [paths.SUMMARY, DATASETS_READ]
        return targets + [p for p in self.rebuild if p not in targets]

    def raw_input(self, kind: str, name: str) -> dict[str, str | list[str]]:
        """The raw inputs of dataset ``kind-name`` by role, from its registry entry.

        The raw file (or folder, and its files), its companions and what its entry
        ``reads`` (the family models; every spec file: a spec dataset reads its own file
        only, so adding a spec reruns no other spec). A NAME not found (a
        target asked for by hand) gets its pattern's path.
        """
        k = KINDS[kind]
        default = f"{self.root}/{k.pattern}".format(name=name)
        files = source_input("raw", self.sources[kind].get(name, default), k.folder)
        for i, companion in enumerate(k.companions):
            path = f"{self.root}/{companion}".format(name=name)
            if not unusable(path) and not link_out(path, self.root):  # else the job
                # says it is missing: no other stops
                files[f"companion{i}"] = path
        if "families" in k.reads:
            files["families"] = self.config["families"]
        if "specs" in k.reads:
            files["specs"] = list(self.sources["specs"].values())
        return files

    def preset_input(self, preset: str) -> dict[str, str | list[str]]:
        """hardware.yaml, plus a measured preset's file (or folder, and the files in it)."""
        return {"hardware": self.config["hardware"]} | self.measured.get(preset, {})

    def points_files(self) -> dict[str, str]:
        """Dataset id → its points file, every dataset."""
        return {d: points_file(*kind_name) for d, kind_name in self.datasets.items()}

    def remove_corrupt_points(self) -> list[str]:
        """Remove the points files that are not whole Parquet files; one line for each.

        A run killed while the file system was writing, a full disk or anything else
        overwriting it: read, it would fail every job after it and remove their good
        outputs. Removed, it is never read, and it is kept in :attr:`rebuild`, which
        :meth:`targets` asks for: its batch's job remakes it in this run, and the dataset's
        other outputs with it (a dataset with a missing output is made again whole,
        :func:`rooflow.workflow.batches.build_batch`). Reads 16 bytes of each
        (:func:`rooflow.workflow.failed.is_whole_parquet`).
        """
        lines = []
        for path in self.points_files().values():
            if os.path.lexists(path) and not is_whole_parquet(path):
                os.remove(path)
                self.rebuild.append(path)
                lines.append(f"{path} was not a whole Parquet file (a killed run, a full "
                             "disk?): removed, rebuilt in this run")
        return lines

    def aggregate_rows(self, preset: str) -> list[str]:
        """The overview rows of the datasets drawn on ``preset``.

        :data:`rooflow.workflow.paths.DATASET_OVERVIEW_ROWS`, in :meth:`preset_datasets`'
        order.
        """
        return [paths.fill(paths.DATASET_OVERVIEW_ROWS, preset=preset, kind=kind, name=name)
                for kind, name in (self.datasets[d] for d in self.preset_datasets(preset))]

    def roofs_text(self, preset: str) -> str:
        """The preset's default roofs in words, for the report captions."""
        if preset in self.measured:
            return f"peaks from {self.measured[preset]['measured']}"
        p = self.datasheet_presets[preset]
        return (
            f"{p.name}: {p.default_compute} {p.peak_flop_per_s / 1e12:g} TFLOP/s, "
            f"{p.default_memory} {p.peak_bytes_per_s / 1e9:g} GB/s, ridge point "
            f"{p.ridge_point:.4g} FLOP/byte (source: {p.source})"
        )


def _named_presets(config: Mapping) -> set[str]:
    """Every preset the config names.

    Its ``presets``; each dataset's, comparison's and model check's ``presets`` and ``device``.
    """
    named = set(config.get("presets", ()))
    for section in ("datasets", "comparisons", "model_checks"):
        for entry in (config.get(section) or {}).values():
            named.update(entry.get("presets") or ())
            if entry.get("device"):
                named.add(entry["device"])
    return named
