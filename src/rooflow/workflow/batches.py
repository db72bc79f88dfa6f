"""The workflow's dataset jobs: one job reads and draws a batch of datasets.

A dataset is one raw input under ``resources/``. From it the workflow makes its canonical
points (:data:`rooflow.workflow.paths.POINTS`) and, per preset it is drawn on, an analysis
table, a roofline plot (PNG and the config's other ``formats``), an interactive page and
its rows of the preset's overview (rule ``aggregate`` concatenates them).
Each of those used to be two jobs of their own, a Python process each: in a project of
1,000 small files the interpreter's and the libraries' start-up, and Snakemake's work per
job, cost more than the analysis (bench/NOTES.md, "Workflow"). So the datasets are dealt
into a fixed number of batches (config ``batches``), each dataset into one by a hash of its
id, and one job per batch makes every output of its datasets.

A batch job redraws only what changed. Its rule records, per dataset, a *fingerprint*:
what its outputs are made from (the raw files' sizes and modification times, its kind,
adapter settings, plot options and presets, the preset files', the rooflow version). The
job keeps the fingerprints it last built with in its *manifest*
(:data:`~rooflow.workflow.paths.BATCH_MANIFEST`) and remakes a dataset only when its
fingerprint differs or one of its outputs is missing (its points only when what they are
read from changed: a changed plot option redraws from the points it has); the others'
files are left as they are (their outputs are ``update()`` outputs, which Snakemake does
not remove first). So a new results file reruns its batch's job, which draws that one
dataset, and the aggregates.

Snakemake is told what changed by the fingerprints' digest (a param), not by the raw files
as inputs: Snakemake records a job's inputs and params with each of its outputs, which for a
batch would grow as its datasets squared, and it judges an output older than any input as
out of date, which an untouched dataset's outputs always would be beside a new file. The
digest changes whenever a fingerprint does, and Snakemake reruns the job then.

Batches are per group of datasets that write the same outputs (their presets and image
formats), one rule per batch, its outputs spelled out (a rule's output patterns are fixed).
A dataset's batch changes only with config ``batches`` or its group (then its outputs are
made again once).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rooflow.workflow import paths
from rooflow.workflow.draw import DRAW_OUTPUTS, draw_paths, points_file

if TYPE_CHECKING:
    from rooflow.workflow.planning import Plan

RULE = "datasets"
"""Rule name prefix of the batches: ``datasets_on_a100_sxm_00``... (:func:`group_name`)."""


@dataclass(frozen=True)
class Member:
    """One dataset of a batch, as its job needs it.

    Attributes:
        dataset: id ``KIND-NAME``.
        kind, name: its kind (:data:`rooflow.kinds.KINDS`) and name.
        raw: its raw inputs by role (``raw``, companions, ``families``, ``specs``:
            :meth:`rooflow.workflow.planning.Plan.raw_input`).
        options: its plot options (config ``plot_defaults`` and its own entry).
        fingerprint: digest of what its outputs are made from (:func:`fingerprint`).
        points: digest of what its points file is made from (its raw inputs, kind,
            adapter settings, the rooflow version): a changed plot option redraws the
            dataset from the points it has.
    """

    dataset: str
    kind: str
    name: str
    raw: Mapping[str, str | list[str]]
    options: Mapping
    fingerprint: str
    points: str = ""


@dataclass(frozen=True)
class Members:
    """A batch's datasets, the ``members`` param of its job.

    Not a builtin type, so Snakemake records it neither with each output nor in the report
    (a batch's records would grow as its datasets squared): its :attr:`digest`, a param
    of its own, stands for it there.
    """

    members: tuple[Member, ...]
    settings: Mapping = field(default_factory=dict)

    def __str__(self) -> str:  # what the report shows of it
        return f"{len(self.members)} datasets"

    __repr__ = __str__

    @property
    def digest(self) -> str:
        """One digest of the members' ids and fingerprints."""
        text = "\n".join(f"{m.dataset} {m.fingerprint}" for m in self.members)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Batch:
    """One batch job's rule.

    Attributes:
        name: the Snakemake rule name.
        presets: the presets each of its datasets is drawn on, in config order.
        formats: image formats besides PNG (config ``formats``: ``svg``, ``pdf``).
        datasets: dataset ids ``KIND-NAME``, sorted.
    """

    name: str
    presets: tuple[str, ...]
    formats: tuple[str, ...]
    datasets: tuple[str, ...]

    @property
    def manifest(self) -> str:
        """The job's manifest, its first output (:data:`paths.BATCH_MANIFEST`)."""
        return paths.fill(paths.BATCH_MANIFEST, batch=self.name)

    @property
    def log(self) -> str:
        """The job's log (:data:`paths.BATCH_LOG`)."""
        return paths.fill(paths.BATCH_LOG, batch=self.name)

    def dataset_outputs(self, kind: str, name: str) -> list[tuple[str, str, str | None]]:
        """One dataset's outputs as ``(path, preset, report)``: its points, then per preset.

        ``report``: ``"table"`` or ``"plot"`` for the outputs shown in the Snakemake report
        (CSV, PNG), else None (points, other image formats, pages, overview rows; ``preset``
        is ``""`` for the points).
        """
        return dataset_outputs(kind, name, self.presets, self.formats)

    def outputs(self, plan: Plan) -> list[str]:
        """Every output: the manifest, then each dataset's (:meth:`dataset_outputs`)."""
        return [self.manifest] + [p for d in self.datasets
                                  for p, _, _ in self.dataset_outputs(*plan.datasets[d])]


def dataset_outputs(kind: str, name: str, presets: Sequence[str], formats: Sequence[str]
                    ) -> list[tuple[str, str, str | None]]:
    """A dataset's outputs (:meth:`Batch.dataset_outputs`)."""
    outputs: list[tuple[str, str, str | None]] = [(points_file(kind, name), "", None)]
    for preset in presets:
        table, plot, page, overview = draw_paths(kind, name, preset)
        outputs += [(table, preset, "table"), (plot, preset, "plot")]
        outputs += [(f"{plot.removesuffix('.png')}.{ext}", preset, None) for ext in formats]
        outputs += [(page, preset, None), (overview, preset, None)]
    return outputs


def batch_of(dataset: str, batches: int) -> int:
    """The batch of ``dataset`` among ``batches``.

    CRC-32 of its id, so the same in every process and run (Python's ``hash`` of a
    string is not).
    """
    return zlib.crc32(dataset.encode()) % batches


def dataset_batches(plan: Plan) -> list[Batch]:
    """The batch rules of ``plan``.

    Datasets grouped by presets and extra formats, each group dealt into config
    ``batches`` batches (:func:`batch_of`); empty ones left out.

    Returns:
        Batches by group (:func:`group_name`, in first-seen order), then by number.
    """
    count = plan.config["batches"]
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for dataset in plan.datasets:
        # Sorted: [svg, pdf] and [pdf, svg] write the same outputs, one rule.
        formats = tuple(sorted(f for f in plan.dataset_options(dataset)["formats"] if f != "png"))
        groups.setdefault((tuple(plan.dataset_presets(dataset)), formats), []).append(dataset)
    batches: list[Batch] = []
    taken: set[str] = set()
    width = len(str(count - 1))
    for (presets, formats), datasets in groups.items():
        base = group_name(presets, formats, taken)
        taken.add(base)
        dealt: dict[int, list[str]] = {}
        for dataset in datasets:
            dealt.setdefault(batch_of(dataset, count), []).append(dataset)
        batches += [Batch(f"{base}_{n:0{width}d}", presets, formats, tuple(sorted(dealt[n])))
                    for n in sorted(dealt)]
    return batches


NAME_CHARS = 100
"""Characters of a group's name at most before its batch number; a longer one is cut and
ends in the CRC-32 of the whole (a file name holds 255 bytes)."""


def group_name(presets: Sequence[str], formats: Sequence[str], taken: Set[str]) -> str:
    """A group's rule name prefix from what it writes: ``datasets_on_PRESET..._with_FORMAT``.

    Snakemake shows rule names on screen and in the report, so they say what the rule
    draws; and the name depends on nothing else, so adding a dataset renames no batch
    (a renamed batch makes its datasets again). A rule name is a Python identifier:
    every other character of a preset is ``_``. A name over :data:`NAME_CHARS`, or one
    taken by a group whose presets differ only in those characters, ends in the CRC-32
    of its presets and formats instead.
    """
    words = [RULE, "on", *presets, *(["with", *formats] if formats else [])]
    name = re.sub(r"\W", "_", "_".join(words), flags=re.ASCII)
    if len(name) > NAME_CHARS or name in taken:
        crc = zlib.crc32("\0".join([*presets, "", *formats]).encode())
        name = f"{name[:NAME_CHARS - 9]}_{crc:08x}"
    return name


def batch_inputs(plan: Plan, presets: Sequence[str]) -> dict[str, str | list[str]]:
    """Named inputs of a batch whose datasets are drawn on ``presets``.

    ``hardware`` and, per preset index ``i`` of a measured preset, ``measured_i`` and
    ``measured_i_files`` (:meth:`rooflow.workflow.planning.Plan.preset_input`). The raw
    inputs are not among them: their fingerprints are (the module's docstring says why).
    """
    inputs: dict[str, str | list[str]] = {}
    for i, preset in enumerate(presets):
        for key, files in plan.preset_input(preset).items():
            inputs[key.replace("measured", f"measured_{i}")] = files
    return inputs


def files_of(inputs: Mapping[str, str | list[str]]) -> list[str]:
    """Every path among named inputs (a name holds a path or a list of them)."""
    return [p for value in inputs.values()
            for p in ([value] if isinstance(value, str) else value)]


def stamps(files: Iterable[str]) -> list[list]:
    """``[path, size, mtime_ns]`` per file (``[path]`` for one that is missing).

    What Snakemake judges a file's change by.
    """
    out: list[list] = []
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            out.append([path])
            continue
        out.append([path, st.st_size, st.st_mtime_ns])
    return out


def fingerprint(parts: Mapping) -> str:
    """SHA-256 of ``parts`` as sorted JSON (what a dataset's outputs are made from)."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def members(plan: Plan, batch: Batch, settings: Mapping, version: str) -> Members:
    """The ``members`` param of ``batch``'s job: each dataset with its fingerprint.

    The fingerprint covers its raw inputs' :func:`stamps`, kind, adapter ``settings``,
    plot options, presets, formats, config ``roofs_at``, the preset files' stamps and the
    rooflow ``version``.
    """
    preset_files = sorted({f for p in batch.presets for f in files_of(plan.preset_input(p))})
    drawn = {"presets": batch.presets, "formats": batch.formats,
             "roofs_at": plan.config["roofs_at"], "preset_files": stamps(preset_files)}
    found = []
    for dataset in batch.datasets:
        kind, name = plan.datasets[dataset]
        raw = plan.raw_input(kind, name)
        options = plan.dataset_options(dataset)
        read = fingerprint({"kind": kind, "raw": stamps(files_of(raw)), "settings": settings,
                            "version": version})
        found.append(Member(dataset, kind, name, raw, options,
                            fingerprint({**drawn, "points": read, "options": options}), read))
    return Members(tuple(found), settings)


def asked_for(batch: Batch, plan: Plan, on_disk: Set[str] | None) -> list[str]:
    """What ``rule all`` asks of ``batch``'s job.

    Every output when ``on_disk`` is None (what is there is not known). Else (the outputs
    present: :func:`outputs_on_disk`) its manifest, plus its first output that is missing
    while the manifest is there: Snakemake then reruns the job, which remakes every
    dataset with a missing output. One file, not all: Snakemake looks a file asked for up
    in each of its rule's outputs, so asking for all of a batch's costs its outputs squared.
    """
    if on_disk is None:
        return batch.outputs(plan)
    if batch.manifest not in on_disk:
        return [batch.manifest]
    for dataset in batch.datasets:
        for path, _, _ in batch.dataset_outputs(*plan.datasets[dataset]):
            if path not in on_disk:
                return [batch.manifest, path]
    return [batch.manifest]


def outputs_on_disk(presets: Sequence[str], kinds: Iterable[str]) -> set[str] | None:
    """The files in the batch jobs' folders, as :func:`asked_for` reads them.

    The folders: the manifests', the points' of ``kinds``, the draw outputs' of
    ``presets``.
    One folder listing per folder, not one check per file. A link to nothing is not
    there (as Snakemake judges it). None when a folder cannot be listed (no permission):
    then what is there is not known.
    """
    folders = [paths.folder(paths.BATCH_MANIFEST)]
    folders += [paths.folder(paths.POINTS, kind=k) for k in kinds]
    folders += [paths.folder(out, preset=preset) for preset in presets
                for out in DRAW_OUTPUTS.values()]
    found: set[str] = set()
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                found.update(f"{folder}/{e.name}" for e in entries
                             if not e.is_symlink() or os.path.exists(e.path))
        except FileNotFoundError:
            continue
        except OSError:
            return None
    return found


def read_manifest(path: str) -> dict[str, dict]:
    """A batch's manifest (:class:`Member`'s digests, its error line).

    Dataset → ``{"fingerprint": ..., "points": ..., "failed": line or None}``.

    Empty when there is none or it is not such a JSON object (then every dataset of the
    batch is made again).
    """
    from rooflow.errors import InputError
    from rooflow.safeload import read_json

    if not os.path.isfile(path):
        return {}
    try:
        found = read_json(path)
    except (OSError, ValueError, InputError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(v, dict)}


def failed_lines(manifests: Iterable[str]) -> dict[str, str]:
    """Dataset → its error line, for each dataset of ``manifests`` that was not built."""
    return {dataset: entry["failed"] for path in manifests
            for dataset, entry in read_manifest(path).items() if entry.get("failed")}


def build_batch(found: Members, presets: Sequence[str], formats: Sequence[str],
                preset_inputs: Sequence[tuple[str, str | None]], manifest: str,
                log: Callable[[str], None], *, roofs_at: str, bokehjs: Sequence[str] | None,
                traceback_file: str) -> None:
    """Make the outputs of every dataset of a batch whose fingerprint changed.

    Args:
        found: the batch's datasets (:func:`members`).
        presets: what each is drawn on.
        formats: its image formats besides PNG.
        preset_inputs: per preset, ``(hardware.yaml, measured file or None)``.
        manifest: the manifest to read and rewrite (:func:`read_manifest`).
        log: where each dataset's lines go, after its id.
        roofs_at: config ``roofs_at``.
        bokehjs: the shared BokehJS bundles the pages load (None: inlined in each).
        traceback_file: where a bug's traceback goes (its line says so).

    A dataset whose input cannot be read gets a failed points file
    (:mod:`rooflow.workflow.failed`); one whose options do not fit its data, or whose
    reading or drawing hits a bug, gets placeholder outputs saying why; either way its
    line goes in the manifest (rule ``datasets_read`` fails on it) and the other datasets
    are still made. A write the system refuses
    (:class:`~rooflow.errors.WriteError`, :class:`OSError`) fails the job: Snakemake then
    puts back the outputs it had.
    """
    from rooflow.errors import InputError, WriteError, internal_error_line
    from rooflow.io import atomic_path
    from rooflow.plotting.canvas import shared_renderer
    from rooflow.workflow.draw import Target, draw_dataset
    from rooflow.workflow.failed import failure, is_whole_parquet, write_placeholders

    before = read_manifest(manifest)
    after: dict[str, dict] = {}
    datasheets: dict[str, Mapping] = {}  # hardware.yaml read once for the batch
    made = 0
    # The plots one after another on one renderer (their common texts' metrics measured
    # once), each starting from the pixels of an earlier plot's axes and roofs drawn alike.
    with shared_renderer():
        for m in found.members:
            outputs = dataset_outputs(m.kind, m.name, presets, formats)
            old = before.get(m.dataset, {})
            if old.get("fingerprint") == m.fingerprint and all(
                    os.path.exists(p) for p, _, _ in outputs):
                after[m.dataset] = old
                continue
            made += 1

            def say(line: str, dataset: str = m.dataset) -> None:
                log(f"{dataset}: {line}")

            points = points_file(m.kind, m.name)
            if old.get("points") == m.points and is_whole_parquet(points):  # options changed
                line = failure(points)
            else:
                line = make_points(m, found.settings, points, say, traceback_file)
            targets = [Target(preset, hardware, measured, *draw_paths(m.kind, m.name, preset))
                       for preset, (hardware, measured) in zip(presets, preset_inputs, strict=True)]
            if line is not None:
                say(line)  # draw_dataset writes the failed points' placeholders
            try:
                draw_dataset(points, m.dataset, targets, m.options, say, roofs_at=roofs_at,
                             bokehjs=bokehjs, datasheets=datasheets)
            except (WriteError, OSError):  # the machine's trouble: the job fails
                raise
            except Exception as err:  # noqa: BLE001 - its options, or a bug: the rest built
                line = (f"rooflow: error: {err}" if isinstance(err, InputError)
                        else internal_error_line(err, traceback_file))
                say(line)
                write_placeholders([p for p, _, _ in outputs[1:]], m.dataset, line)
            after[m.dataset] = {"fingerprint": m.fingerprint, "points": m.points, "failed": line}
    with atomic_path(manifest) as tmp:
        tmp.write_text(json.dumps(after, indent=1, sort_keys=True) + "\n")
    log(f"{made} of {len(found.members)} datasets made; the others were up to date")


def make_points(m: Member, settings: Mapping, path: str, log: Callable[[str], None],
                traceback_file: str) -> str | None:
    """Validate ``m``'s raw input and write its canonical points (Parquet) to ``path``.

    Returns None, or the error line of an input it could not read (or a bug in its
    reader), after writing a failed points file holding it (:mod:`rooflow.workflow.failed`).

    Raises:
        OSError: a write the system refused (also :class:`~rooflow.errors.WriteError`):
            the machine's trouble, not the input's, never recorded.
    """
    from rooflow.adapters import KINDS, kind_mismatch, load_points
    from rooflow.errors import InputError, LeftOut, WriteError, internal_error_line
    from rooflow.io import atomic_path
    from rooflow.plotting.core import check_plottable
    from rooflow.settings import Settings
    from rooflow.workflow.failed import left_out_metadata, write_failed

    raw = m.raw["raw"]
    assert isinstance(raw, str)
    try:
        if other := kind_mismatch(m.kind, raw):
            log(f"warning: {raw} looks like a {other} input, not {m.kind}: "
                f"move it to resources/{other}/ if it is one")
        with LeftOut() as left:  # what the reader left out, said on the dataset's plots too
            points = load_points(m.kind, raw, Settings.from_config(settings))
        # A point no plot can place fails this dataset here, not every plot of its presets.
        check_plottable(points)
        hooks = KINDS[m.kind].hooks()  # a PyTorch trace: where its GPU time went
        metadata = {**(hooks.points_metadata(raw) if hooks else {}),
                    **left_out_metadata(left.lines())}
        with atomic_path(path) as tmp:
            points.write_parquet(tmp, metadata=metadata or None)
    except (WriteError, OSError):
        raise
    except InputError as err:
        line = f"rooflow: error: {err}"
    except Exception as err:  # noqa: BLE001 - a bug in its reader: its line, the rest built
        line = internal_error_line(err, traceback_file)
    else:
        log(f"{points.height} points from {raw}")
        return None
    write_failed(path, line)
    return line
