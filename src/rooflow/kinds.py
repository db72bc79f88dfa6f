"""**The registry of input kinds**: the one list of what rooflow reads.

Each kind maps raw files to the canonical points table (:mod:`rooflow.points`) through an
adapter module of :mod:`rooflow.adapters`. The workflow's discovery
(:mod:`rooflow.workflow.planning`), the config schema's dataset-id pattern (checked by a test), the
CLI's ``--kind`` choices and the README's input table are derived from :data:`KINDS`.
This module imports no adapter: detection uses :mod:`rooflow.formats.sniffing` only, so it
stays cheap, and the layers below the adapters (models, roofs) may use the registry.

Adding a kind: one adapter module with ``load(path, settings) -> points`` (``path`` may be
a list of files for a kind with ``folder`` or ``companions``), its content
check in :mod:`rooflow.formats.sniffing` (named as the kind) and one :class:`Kind` entry
below.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from rooflow.errors import InputError

DATASET_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
"""The ``NAME`` of a dataset ``KIND-NAME`` (a file or folder name under ``resources/``), and
of presets and comparisons: the one definition. The workflow's wildcards and discovery use
it; the config schema's ``$defs/name`` and dataset-id pattern hold it (checked by a test)."""


@dataclass(frozen=True)
class Kind:
    """One input kind.

    Attributes:
        name: kind id, the ``KIND`` of dataset ids ``KIND-NAME``.
        pattern: raw file under ``resources/``, with ``{name}`` for the dataset name.
        module: adapter module (in :mod:`rooflow.adapters`) whose ``load(path, settings)`` reads it.
        description: one line for the docs and ``--help``.
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
    """

    name: str
    pattern: str
    module: str
    description: str
    reads: tuple[str, ...] = ()
    companions: tuple[str, ...] = ()
    folder: str = ""
    alternate: str = ""

    def loader(self):
        """The adapter's ``load(path, settings)`` function."""
        return import_module(f"rooflow.adapters.{self.module}").load

    def sniff(self, path: Path) -> bool:
        """Whether ``path`` looks like this kind.

        Its check is the function of :mod:`rooflow.formats.sniffing` named as the kind.

        No adapter is imported to detect a kind, so detection stays cheap.
        """
        from rooflow.formats import sniffing

        return bool(getattr(sniffing, self.name)(Path(path)))


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("roofline", "roofline/{name}.csv", "roofline",
             "roofline CSV (or Parquet): intensity (or flop + bytes) and performance per "
             "point", alternate="roofline/{name}.parquet"),
        Kind("benchmarks", "benchmarks/{name}.csv", "benchmarks",
             "benchmark results CSV: baseline vs optimized times per kernel shape",
             reads=("families", "specs")),
        Kind("specs", "specs/{name}.yaml", "specs",
             "kernel spec YAML: shapes and a FLOP formula per variant", reads=("families",)),
        Kind("ncu", "ncu/{name}.csv", "ncu",
             "Nsight Compute `ncu --csv` export (details or raw page) or `ncu -o` report "
             "(.ncu-rep), or a folder of several CSV passes of one run",
             folder="ncu/{name}/*.csv", alternate="ncu/{name}.ncu-rep"),
        Kind("rocprof", "rocprof/{name}/pmc_perf.csv", "amd.rocprof",
             "rocprof-compute/Omniperf workload folder (pmc_perf.csv, sysinfo.csv), or "
             "rocprof-compute's analysis database (rocprof_compute_*.db)",
             alternate="rocprof/{name}.db"),
        Kind("rocprofv1", "rocprofv1/{name}/results.csv", "amd.rocprofv1",
             "rocprof (v1) CSVs of one program: timing run + counter runs, joined"),
        Kind("rocprofv3", "rocprofv3/{name}_counter_collection.csv", "amd.rocprofv3",
             "rocprofv3 counter collection CSV (+ NAME_agent_info.csv), or its rocpd "
             "database (SQLite, PID_results.db)", alternate="rocprofv3/{name}.db"),
        Kind("unitrace", "unitrace/{name}.txt", "intel.unitrace",
             "Intel unitrace reports of one program: a folder holding the FLOP run's "
             "(VectorEngine138) and the bytes run's (ComputeBasic) reports, under any names "
             "(NAME.<pid>, or flops.txt + bytes.txt), or one report holding both",
             folder="unitrace/{name}/*"),
        Kind("pytorch", "pytorch/{name}.json", "pytorch",
             "PyTorch profiler trace (Kineto JSON, or .json.gz) recorded with "
             "record_shapes=True: one point per operator shape",
             alternate="pytorch/{name}.json.gz"),
    )
}


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
