"""**The registry of input kinds**: the one list of what rooflow reads, and all it knows per kind.

Each kind maps raw files to the canonical points table (:mod:`rooflow.points`) through an
adapter of :mod:`rooflow.adapters`. Its :class:`Kind` entry names everything else the
program asks of it: its sniffer (content check), reader, device reader, the options its
reader takes (:class:`Option`), and its hooks (extra outputs, how given files make one
run). Callers ask the entry, never the kind's name: a test finds any ``== "pytorch"``-style
test of a kind name outside :mod:`rooflow.adapters` and this module.

The workflow's discovery (:mod:`rooflow.workflow.planning`), the config schema's dataset-id
pattern and adapter option keys (checked by tests), the CLI's ``--kind`` choices (checked by
a test) and the README's input table are derived from :data:`KINDS`.

Functions are named as ``"module:function"`` and imported on use: this module imports no
adapter, so detection stays cheap (each sniffer imports no reader) and the layers below the
adapters (models, roofs, formats) may use the registry.

Adding a kind: its reader ``load(path, settings) -> points`` in :mod:`rooflow.adapters`
(``path`` may be a list of files for a kind with ``folder`` or ``companions``), its sniffer
beside it (``sniff.py``), its GPU name reader (if the file names one) in
:mod:`rooflow.formats.devices`, its options on :class:`rooflow.settings.Settings` and in the
config schema, and one :class:`Kind` entry below (docs/architecture.md has the checklist).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from rooflow.errors import InputError

DATASET_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
"""The ``NAME`` of a dataset ``KIND-NAME`` (a file or folder name under ``resources/``), and
of presets and comparisons: the one definition. The workflow's wildcards and discovery use
it; the config schema's ``$defs/name`` and dataset-id pattern hold it (checked by a test)."""


def resolve(ref: str) -> Any:
    """The object a ``"package.module:name"`` reference names (its module imported now)."""
    module, _, name = ref.partition(":")
    return getattr(import_module(module), name)


@dataclass(frozen=True)
class Option:
    """One option a kind's reader takes: its schema.

    Attributes:
        field: the attribute of :class:`rooflow.settings.Settings` that holds it.
        key: its config key, ``section.key`` for a key of a kind's own section
            (``ncu.per_launch``); its default is the config schema's.
        types: the types its value may have (``type(None)`` where it may be unset).
        path: a file or folder, relative to the workflow's folder in the config.
    """

    field: str
    key: str
    types: tuple[type, ...]
    path: bool = False

    def check(self, kind: str, value: object) -> None:
        """Refuse a value of another type than :attr:`types` (a caller's mistake).

        Raises:
            InputError: one line naming the kind, the option and the value.
        """
        if not isinstance(value, self.types):
            wanted = " or ".join("none" if t is type(None) else t.__name__ for t in self.types)
            raise InputError(None, f"option {self.key} of kind {kind} must be {wanted}",
                             check="option type", value=value)


_FAMILIES = Option("families", "families", (Path,), path=True)
_FAMILY_MAP = Option("family_map", "family_map", (Mapping,))
_VARIANT_PREFIX = Option("variant_prefix", "variant_prefix", (str,))
_SPECS_DIR = Option("specs_dir", "specs_dir", (Path, type(None)), path=True)
_NUMBER_OR_NONE = (int, float, type(None))


@dataclass(frozen=True)
class Kind:
    """One input kind: what it is, and what the program asks of it.

    Attributes:
        name: kind id, the ``KIND`` of dataset ids ``KIND-NAME``.
        pattern: raw file under ``resources/``, with ``{name}`` for the dataset name.
        description: one line for the docs and ``--help``.
        reader: ``"module:function"`` of its reader ``load(path, settings) -> points``.
        sniffer: ``"module:function"`` of its content check ``sniff(path) -> bool``, which
            reads a few KiB and imports no reader (``sniff.py`` beside the reader).
        device_reader: ``"module:function"`` of ``read(path) -> GPU names``, most specific
            first (:mod:`rooflow.formats.devices`), read when the workflow plans; empty:
            the kind's files name no GPU.
        options: the options its reader takes (:class:`Option`).
        extras: module of its hooks for extra outputs, with ``points_metadata(path)``
            (stored with the workflow's points file), ``summary_lines(points_files,
            tables, md)`` (a ``summary.md`` section) and ``notes(points, table, preset,
            log)`` (the CLI's notes); empty: none (``pytorch``: the trace's GPU time
            coverage).
        reads: further inputs the adapter reads, named as the workflow's config keys:
            ``families`` (the family models), ``specs`` (every spec file of the spec
            folder); the workflow lists them as inputs of the dataset's job.
        companions: further files of a folder dataset (patterns with ``{name}``) that
            the adapter reads beside ``pattern``; the workflow lists them as inputs.
        folder: the other form of a dataset, several files of one run in a folder, as
            a pattern with ``{name}`` and ``*`` (``ncu/{name}/*.csv``); the adapter is
            given the folder and reads them together, the workflow lists them as inputs.
        alternate: another single-file form the adapter reads, as a pattern with
            ``{name}`` (``roofline/{name}.parquet``: millions of points load faster).
        one_run: which files given on the command line are one run, read together:
            ``"folder"``: those of one folder matching :attr:`folder`'s file pattern
            (ncu's passes, a file no kind matches among them included); ``"all"``: all of
            the kind's (unitrace's FLOP and bytes reports, paired per kernel); empty: each
            file is its own.
        own_peaks: prefix of the :data:`rooflow.roofs.MEASURED` source whose peaks an
            input of this kind may hold: the CLI draws it on them when no preset is given.
        preset_hook: ``"module:function"`` of ``hook(plan, dataset, device, options) ->
            preset id``, which may draw a dataset on a finer preset than its device's
            (unitrace: a run on one stack of two); empty: none.
        per_call_suffix: a point per call (series named as the kind) is named
            ``kernel @<row>`` (``pytorch``): a regression check compares calls by name
            without it.
        event_trace: the reader holds every event of the file in memory (a trace): the
            workflow declares more memory per input byte for its job.
    """

    name: str
    pattern: str
    description: str
    reader: str
    sniffer: str
    device_reader: str = ""
    options: tuple[Option, ...] = ()
    extras: str = ""
    reads: tuple[str, ...] = ()
    companions: tuple[str, ...] = ()
    folder: str = ""
    alternate: str = ""
    one_run: str = ""
    own_peaks: str = ""
    preset_hook: str = ""
    per_call_suffix: bool = False
    event_trace: bool = False

    def loader(self) -> Callable:
        """The reader ``load(path, settings)``."""
        return resolve(self.reader)

    def sniff(self, path: Path) -> bool:
        """Whether ``path`` looks like this kind (its sniffer; no reader is imported)."""
        return bool(resolve(self.sniffer)(Path(path)))

    def device_names(self, path: str | Path) -> tuple[str, ...]:
        """The names of the GPU the raw input ``path`` ran on, most specific first.

        ``()`` when the kind or the file does not say; never raises (a bad file fails in
        its own job, with its own message).
        """
        if not self.device_reader:
            return ()
        try:
            return tuple(resolve(self.device_reader)(Path(path)))
        except (OSError, ValueError, csv.Error, RecursionError):  # RecursionError: JSON too deep
            return ()

    def hooks(self) -> Any:
        """The module of :attr:`extras` (its hook functions), or None."""
        return import_module(self.extras) if self.extras else None

    def check_options(self, settings: object) -> None:
        """Check the values of this kind's options on ``settings`` against :attr:`options`.

        Raises:
            InputError: a value of the wrong type (:meth:`Option.check`).
        """
        for option in self.options:
            option.check(self.name, getattr(settings, option.field))


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("roofline", "roofline/{name}.csv",
             "roofline CSV (or Parquet): intensity (or flop + bytes) and performance per "
             "point", reader="rooflow.adapters.roofline:load",
             sniffer="rooflow.adapters.sniff:roofline",
             device_reader="rooflow.formats.devices:roofline",
             alternate="roofline/{name}.parquet"),
        Kind("benchmarks", "benchmarks/{name}.csv",
             "benchmark results CSV: baseline vs optimized times per kernel shape",
             reader="rooflow.adapters.benchmarks:load",
             sniffer="rooflow.adapters.sniff:benchmarks",
             options=(_FAMILIES, _SPECS_DIR, _FAMILY_MAP,
                      Option("min_tflops", "benchmarks.min_tflops", _NUMBER_OR_NONE),
                      Option("min_ai", "benchmarks.min_ai", _NUMBER_OR_NONE)),
             reads=("families", "specs")),
        Kind("specs", "specs/{name}.yaml",
             "kernel spec YAML: shapes and a FLOP formula per variant",
             reader="rooflow.adapters.specs:load", sniffer="rooflow.adapters.sniff:specs",
             options=(_FAMILIES, _FAMILY_MAP, _VARIANT_PREFIX), reads=("families",)),
        Kind("ncu", "ncu/{name}.csv",
             "Nsight Compute `ncu --csv` export (details or raw page) or `ncu -o` report "
             "(.ncu-rep), or a folder of several CSV passes of one run",
             reader="rooflow.adapters.ncu.reader:load",
             sniffer="rooflow.adapters.ncu.sniff:ncu",
             device_reader="rooflow.formats.devices:ncu",
             options=(Option("per_launch", "ncu.per_launch", (bool,)),
                      Option("tensor_flop_per_inst", "ncu.tensor_flop_per_inst", (Mapping,))),
             folder="ncu/{name}/*.csv", alternate="ncu/{name}.ncu-rep", one_run="folder",
             own_peaks="ncu"),
        Kind("rocprof", "rocprof/{name}/pmc_perf.csv",
             "rocprof-compute/Omniperf workload folder (pmc_perf.csv, sysinfo.csv), or "
             "rocprof-compute's analysis database (rocprof_compute_*.db)",
             reader="rooflow.adapters.amd.rocprof:load",
             sniffer="rooflow.adapters.amd.sniff:rocprof",
             device_reader="rooflow.formats.devices:rocprof",
             alternate="rocprof/{name}.db"),
        Kind("rocprofv1", "rocprofv1/{name}/results.csv",
             "rocprof (v1) CSVs of one program: timing run + counter runs, joined",
             reader="rooflow.adapters.amd.rocprofv1:load",
             sniffer="rooflow.adapters.amd.sniff:rocprofv1"),
        Kind("rocprofv3", "rocprofv3/{name}_counter_collection.csv",
             "rocprofv3 counter collection CSV (+ NAME_agent_info.csv), or its rocpd "
             "database (SQLite, PID_results.db)",
             reader="rooflow.adapters.amd.rocprofv3:load",
             sniffer="rooflow.adapters.amd.sniff:rocprofv3",
             device_reader="rooflow.formats.devices:rocprofv3",
             alternate="rocprofv3/{name}.db"),
        Kind("unitrace", "unitrace/{name}.txt",
             "Intel unitrace reports of one program: a folder holding the FLOP run's "
             "(VectorEngine138) and the bytes run's (ComputeBasic) reports, under any names "
             "(NAME.<pid>, or flops.txt + bytes.txt), or one report holding both",
             reader="rooflow.adapters.intel.unitrace:load",
             sniffer="rooflow.adapters.intel.sniff:unitrace",
             folder="unitrace/{name}/*", one_run="all",
             preset_hook="rooflow.formats.devices:stack_preset"),
        Kind("pytorch", "pytorch/{name}.json",
             "PyTorch profiler trace (Kineto JSON, or .json.gz) recorded with "
             "record_shapes=True: one point per operator shape",
             reader="rooflow.adapters.pytorch.reader:load",
             sniffer="rooflow.adapters.pytorch.sniff:pytorch",
             device_reader="rooflow.formats.devices:pytorch",
             options=(Option("pytorch_per_launch", "pytorch.per_launch", (bool,)),),
             extras="rooflow.adapters.pytorch.extras",
             alternate="pytorch/{name}.json.gz", per_call_suffix=True, event_trace=True),
    )
}


def options() -> dict[str, Option]:
    """Every kind's options, by :attr:`Option.field` (in registry order)."""
    return {o.field: o for k in KINDS.values() for o in k.options}


def option_keys() -> tuple[str, ...]:
    """The top-level config keys of every kind's options (a section for ``ncu.per_launch``)."""
    return tuple(dict.fromkeys(o.key.split(".")[0] for o in options().values()))


def device_names(kind: str, path: str | Path) -> tuple[str, ...]:
    """:meth:`Kind.device_names` of the kind named ``kind`` (``()`` for an unknown one)."""
    entry = KINDS.get(kind)
    return entry.device_names(path) if entry else ()


def detect_kind(path: str | Path) -> str:
    """The kind of a raw file or folder, from its content.

    Every kind's sniffer is asked in registry order, the roofline CSV (the most
    permissive) last.

    Raises:
        InputError: not a folder nor a readable regular file of bounded size
            (:func:`rooflow.safeload.check_file`); a failed ncu profile (its ``==ERROR==``
            lines quoted, :func:`rooflow.formats.sniffing.failed_ncu`); no kind matches
            (the line lists the kinds and what each needs).
    """
    path = Path(path)
    if not path.is_dir():
        from rooflow.safeload import check_file

        check_file(path)  # a FIFO or device is refused before a sniffer opens it
    for kind in sorted(KINDS.values(), key=lambda k: k.name == "roofline"):
        if kind.sniff(path):
            return kind.name
    from rooflow.formats.sniffing import failed_ncu, not_an_input

    said = failed_ncu(path)
    if said is not None:  # ncu ran and wrote its reason instead of a table
        raise InputError(str(path), "a failed Nsight Compute profile, no table: "
                         + (f"the profiler reported {' | '.join(said)}" if said else
                            "ncu wrote no kernel (profile again; see its ==PROF== lines)"),
                         check="ncu csv header")
    what = not_an_input(path) if not path.is_dir() else _folder_inputs(path)
    if what is not None:
        raise InputError(str(path), what, check="kind detection")
    raise InputError(
        str(path), "not a file rooflow reads (use --kind to force one); kinds: "
        + "; ".join(f"{k.name}: {k.description}" for k in KINDS.values()),
        check="kind detection",
    )


def _folder_inputs(folder: Path, shown: int = 4) -> str | None:
    """A line naming the inputs in ``folder``, which is not one dataset; None when none.

    A folder of one input file (``ncu-rep/gh200/NAME.ncu-rep``) is not that input: the
    line names the files to give, each with its kind (sniffed, no adapter imported).
    """
    from rooflow.formats.sniffing import not_an_input

    try:
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return None
    order = sorted(KINDS.values(), key=lambda k: k.name == "roofline")  # as detect_kind
    found = [(p.name, kind.name) for p in files
             if (kind := next((k for k in order if k.sniff(p)), None)) is not None]
    if not found:  # only peaks or companion files: say what the first one is
        what = next(((p.name, w) for p in files if (w := not_an_input(p))), None)
        return f"a folder holding no input: {what[0]} is {what[1]}" if what else None
    listed = ", ".join(f"{name} ({kind})" for name, kind in found[:shown])
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    return f"a folder, not one input of any kind: give its file(s): {listed}{more}"


def kind_mismatch(kind: str, path: str | Path) -> str | None:
    """The kind ``path`` looks like when it is not ``kind`` (a misplaced file), else None."""
    if KINDS[kind].sniff(Path(path)):
        return None
    try:
        return detect_kind(path)
    except InputError:
        return None
