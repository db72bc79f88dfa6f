"""Which GPU a raw export names, read from its first bytes: one function per input kind.

The workflow's planner (:mod:`rooflow.workflow.planning`) knows only file paths before any job runs;
to draw a dataset on the preset of the GPU it ran on (:attr:`rooflow.roofs.preset.Preset.devices`)
it reads the names here, on every Snakemake invocation. So each reader opens at most a few
files, reads a bounded head of each (:data:`HEAD_LIMIT`), never raises and imports only the
standard library (but for a ``.ncu-rep`` report: NVIDIA's reader, see :func:`_ncu_report`).
Every file is checked before it is opened, as inputs are (:func:`_regular`): a FIFO
beside a folder dataset's files, or as its ``sysinfo.csv``, would hang planning.
A kind's :attr:`rooflow.kinds.Kind.device_reader` names its function here (named as the
kind; :meth:`rooflow.kinds.Kind.device_names` calls it, catching a bad file's error); a
kind without one (specs, benchmarks: theoretical; rocprofv1: ``gpu-id`` is an agent index;
unitrace: its ``Device`` column is an index too) names no GPU.

Each returns the names that identify the GPU, most specific first (a PCI chip id decoded
by :data:`CHIP_IDS` before a marketing or model name, the gfx target last), or ``()``:

======== ================================================================================
kind     names
======== ================================================================================
ncu      ``device__attribute_display_name`` ("NVIDIA H100 80GB HBM3"): a raw-page column,
         or a details-page metric row of the first launch; of a ``.ncu-rep`` report, the
         metric of its first action that has it (:func:`_ncu_report`)
rocprof  ``sysinfo.csv``: ``chip_id`` (decoded), ``gpu_model``, ``gpu_arch``; a compute
         partition first (:func:`partition_names`: ``MI300X CPX``)
rocprofv3 ``NAME_agent_info.csv``, the agent of the first dispatch: ``Device_Id``
         (decoded), ``Product_Name``, ``Name`` (gfx target); a compute partition
         first, from ``Num_Xcc``
roofline a ``device`` column (or alias) holding one value in the file's head
pytorch  the ``name`` all ``deviceProperties`` entries share (Kineto writes them first)
======== ================================================================================
"""

from __future__ import annotations

import csv
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from rooflow.formats.roofline import CANONICAL
from rooflow.formats.sniffing import (
    HEAD_BYTES,
    NCU_DEVICE_METRIC,
    NCU_KEY,
    ROCPROFV3_SUFFIX,
    json_head,
)

HEAD_LIMIT = 1 << 20
"""Bytes read at most from one file: an ncu raw page's header line alone can be ~100 KiB."""

CHIP_IDS = {  # PCI device id → (name, gfx target); RC src/utils/mi_gpu_spec.yaml @10c3c1ec
    29580: ("MI100", "gfx908"), 29711: ("MI210", "gfx90a"), 29708: ("MI250", "gfx90a"),
    29704: ("MI250X", "gfx90a"), 29856: ("MI300A", "gfx942"), 29857: ("MI300X", "gfx942"),
    29858: ("MI308X", "gfx942"), 29861: ("MI325X", "gfx942"), 30112: ("MI350X", "gfx950"),
    30114: ("MI358X", "gfx950"), 30115: ("MI355X", "gfx950"),
}
"""AMD Instinct PCI device id (decimal, as sysinfo ``chip_id`` and agent_info ``Device_Id``
write it) → (name, gfx target)."""


SPX_XCDS = {  # XCDs of the whole GPU: mi_gpu_spec.yaml num_xcds spx, RC @1b1610fc
    "MI300A": 6, "MI300X": 8, "MI308X": 4, "MI325X": 8, "MI350X": 8, "MI355X": 8, "MI358X": 8,
}
_PARTITIONS = {"SPX": 1, "DPX": 2, "TPX": 3, "QPX": 4}  # partitions per GPU; CPX: one per XCD

PARTITION_MODES: dict[str, tuple[str, ...]] = {
    # Compute partition modes below SPX, per GPU with a preset: AMD Instinct GPU
    # partitioning guides (instinct.docs.amd.com/projects/amdgpu-docs, gpu-partitioning:
    # MI300X SPX/DPX/QPX/CPX, MI300A SPX/TPX/CPX); MI325X as MI300X; MI350X/MI355X
    # SPX/DPX/QPX/CPX (aac.amd.com, "GPU Partitioning Modes").
    "MI300X": ("DPX", "QPX", "CPX"), "MI325X": ("DPX", "QPX", "CPX"),
    "MI300A": ("TPX", "CPX"), "MI350X": ("DPX", "QPX", "CPX"), "MI355X": ("DPX", "QPX", "CPX"),
}
"""GPU → its compute partition modes with fewer XCDs than the GPU (SPX is the whole GPU)."""


def mode_partitions(chip: str, mode: str) -> int:
    """Partitions ``mode`` splits ``chip`` into: DPX 2, TPX 3, QPX 4, CPX one per XCD."""
    return SPX_XCDS[chip] if mode == "CPX" else _PARTITIONS[mode]


def partition_names(chip: str | None, *, mode: str = "", xcds: str = "",
                    memory: str = "") -> tuple[str, ...]:
    """The names of the compute partition a profile ran on, most specific first, or ``()``.

    ``chip``: the GPU (``MI300X``; a stepping suffix ``_A1`` is dropped). ``mode``: the
    compute partition as sysinfo's ``compute_partition`` writes it (``CPX``); when it is
    not one of the GPU's (``NA``, empty), ``xcds`` (sysinfo ``num_xcd``, agent_info
    ``Num_Xcc``) below the GPU's :data:`SPX_XCDS` names the mode whose partitions have
    that many XCDs (MI300X: 4 DPX, 2 QPX, 1 CPX). An SPX profile, or one that does not
    say, names none: the whole GPU. ``memory`` (sysinfo ``memory_partition``, ``NPS4``)
    adds ``MI300X QPX NPS4`` first; the presets of :mod:`rooflow.roofs.partition` list
    these names.
    """
    chip = (chip or "").upper().split("_")[0]
    modes = PARTITION_MODES.get(chip, ())
    mode = mode.strip().upper()
    if not modes or mode == "SPX":
        return ()
    if mode not in modes:
        count = xcds.strip()
        mode = next((m for m in modes if count.isdigit() and SPX_XCDS[chip]
                     // mode_partitions(chip, m) == int(count)), "")
        if not mode:
            return ()
    nps = memory.strip().upper()
    named = f"{chip} {mode}"
    return (f"{named} {nps}", named) if re.fullmatch(r"NPS[0-9]+", nps) else (named,)


def gfx_target(text: str) -> str | None:
    """The ``gfxNNN`` in ``text`` (``gfx90a:sramecc+:xnack-`` → ``gfx90a``), or None."""
    match = re.search(r"gfx[0-9a-f]+", str(text).lower())
    return match.group(0) if match else None


def _names(*candidates: str | None) -> tuple[str, ...]:
    """Non-empty candidates, stripped, first occurrence kept (case-insensitively)."""
    seen: dict[str, str] = {}
    for name in candidates:
        name = (name or "").strip()
        if name and name.casefold() not in seen:
            seen[name.casefold()] = name
    return tuple(seen.values())


def _chip_name(chip: str) -> str | None:
    chip = chip.strip()
    return CHIP_IDS[int(chip)][0] if chip.isdigit() and int(chip) in CHIP_IDS else None


def _regular(path: Path) -> bool:
    """Whether ``path`` is a readable regular file (links followed), checked before opening.

    The checks :func:`rooflow.safeload.check_file` makes of every input: a FIFO beside a
    folder dataset's files would block planning forever at its ``open``, a device never
    end.
    """
    try:
        info = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and os.access(path, os.R_OK)


def _rows(path: Path, limit: int = HEAD_LIMIT) -> Iterator[list[str]]:
    """CSV rows of the first ``limit`` bytes of ``path`` (none if unreadable).

    The last line read may be cut; a reader stops at the first row that answers it.
    """
    if not _regular(path):
        return iter(())
    try:
        with open(path, "rb") as handle:
            head = handle.read(limit).decode("utf-8-sig", errors="replace")
    except OSError:
        return iter(())
    return csv.reader(head.splitlines())


def _first_row(path: Path) -> dict[str, str]:
    """The first data row of a small CSV (header → value), {} if there is none."""
    rows = _rows(path)
    header = next(rows, [])
    row = next(rows, [])
    return {k.strip(): v for k, v in zip(header, row, strict=False)} if row else {}


REPORT_LIMIT = 16 << 20
"""Bytes of the largest ``.ncu-rep`` report whose GPU is read at planning time."""
REPORT_SECONDS = 60.0
"""Seconds NVIDIA's reader may take on one report at planning time (a report of
:data:`REPORT_LIMIT` takes well under it)."""


def _ncu_report(path: Path) -> str:
    """``device__attribute_display_name`` of a report's first action that has it, else "".

    A report is binary (protobuf, its strings often compressed), so only NVIDIA's reader
    (``ncu_report``) gets the name, in a child process
    (:func:`rooflow.formats.ncu.native.first_value`): a corrupt report that makes the
    reader abort ends the child, not the planner. The reader loads the whole file, so a
    report over :data:`REPORT_LIMIT` names no GPU here (set the dataset's ``device:`` in
    config), which bounds planning's time; without the package, or for a report it
    cannot read (crash, refusal, :data:`REPORT_SECONDS` passed), none either: its own job
    says why.
    """
    if not _regular(path) or path.stat().st_size > REPORT_LIMIT:
        return ""
    from rooflow.errors import InputError
    from rooflow.formats.ncu.native import first_value, installed

    if not installed():
        return ""
    try:
        name = first_value(path, NCU_DEVICE_METRIC, timeout=REPORT_SECONDS)
    except InputError:
        return ""
    return "" if name == "n/a" else name


def ncu(path: Path) -> tuple[str, ...]:
    """The GPU of an ``ncu --csv`` export, or of the first pass of a folder that names one.

    Of a ``.ncu-rep`` report: :func:`_ncu_report`.
    """
    if path.suffix.lower() == ".ncu-rep":
        return _names(_ncu_report(path))
    files = sorted(path.glob("*.csv")) if path.is_dir() else [path]
    for file in files:
        if name := _ncu_file(file):
            return (name,)
    return ()


def _ncu_file(path: Path) -> str:
    rows = _rows(path)
    header: list[str] = []
    for cells in rows:  # program output and ==PROF== lines may come first
        if cells and cells[0].strip().lstrip("\ufeff") == NCU_KEY[0] and NCU_KEY[1] in cells:
            header = [c.strip() for c in cells]
            break
    if NCU_DEVICE_METRIC in header:  # raw page: a column; the units row has an empty ID
        column = header.index(NCU_DEVICE_METRIC)
        for cells in rows:
            if len(cells) > column and cells[0].strip() and cells[column].strip():
                return cells[column].strip()
        return ""
    if not {"ID", "Metric Name", "Metric Value"} <= set(header):
        return ""
    launch, name, value = (header.index(c) for c in ("ID", "Metric Name", "Metric Value"))
    first = None
    for cells in rows:  # details page: the attribute rows of the first launch, if collected
        if len(cells) <= max(launch, name, value) or cells[0].startswith("=="):
            continue
        first = first or cells[launch]
        if cells[launch] != first:
            break
        if cells[name].strip() == NCU_DEVICE_METRIC:
            return cells[value].strip()
    return ""


def rocprof(path: Path) -> tuple[str, ...]:
    """The GPU of a rocprof-compute workload folder (or its ``pmc_perf.csv``): ``sysinfo.csv``."""
    folder = path if path.is_dir() else path.parent
    info = _first_row(folder / "sysinfo.csv")
    chip = _chip_name(info.get("chip_id", ""))
    partition = partition_names(chip or info.get("gpu_model"),
                                mode=info.get("compute_partition", ""),
                                xcds=info.get("num_xcd", ""),
                                memory=info.get("memory_partition", ""))
    return _names(*partition, chip, info.get("gpu_model"), gfx_target(info.get("gpu_arch", "")))


def rocprofv3(path: Path) -> tuple[str, ...]:
    """The GPU of a rocprofv3 counter collection: the first dispatch's agent in agent_info."""
    if path.is_dir():
        found = sorted(path.glob(f"*{ROCPROFV3_SUFFIX}"))
        if len(found) != 1:
            return ()
        path = found[0]
    if not path.name.endswith(ROCPROFV3_SUFFIX):
        return ()
    agent = re.fullmatch(r"(?:Agent\s*)?(\d+)", _first_row(path).get("Agent_Id", "").strip())
    info = path.with_name(path.name[: -len(ROCPROFV3_SUFFIX)] + "_agent_info.csv")
    rows = _rows(info)
    header = [c.strip() for c in next(rows, [])]
    for cells in rows:
        row = dict(zip(header, cells, strict=False))
        if agent and row.get("Logical_Node_Id", "").strip() == agent.group(1):
            chip = _chip_name(row.get("Device_Id", ""))
            partition = partition_names(chip, xcds=row.get("Num_Xcc", ""))
            return _names(*partition, chip, row.get("Product_Name"),
                          gfx_target(row.get("Name", "")))
    return ()


def roofline(path: Path) -> tuple[str, ...]:
    """The one value of a roofline CSV's ``device`` column in the file's head, if one."""
    if path.suffix.lower() != ".csv":  # Parquet: no cheap read without polars
        return ()
    rows = _rows(path, HEAD_BYTES)
    header = [CANONICAL.get(c.strip().lower(), c.strip().lower()) for c in next(rows, [])]
    if "device" not in header:
        return ()
    column = header.index("device")
    values = {cells[column].strip() for cells in rows if len(cells) > column} - {""}
    return (values.pop(),) if len(values) == 1 else ()


GENERIC_DEVICE_NAMES = frozenset({"", "AMD Radeon Graphics"})
"""Names a profiler gives a GPU that tell no product (ROCm's marketing name of some
Instinct GCDs, an empty ``deviceProperties`` name): they pick no preset."""


def pytorch(path: Path) -> tuple[str, ...]:
    """The GPU of a PyTorch profiler trace: the name its ``deviceProperties`` all give."""
    head = json_head(path, HEAD_LIMIT)
    at = head.find('"deviceProperties"')
    start = head.find("[", at)
    if at < 0 or start < 0:
        return ()
    try:
        listed, _ = json.JSONDecoder().raw_decode(head, start)
    except ValueError:  # cut by the head limit, or not JSON
        return ()
    if not isinstance(listed, list):
        return ()
    names = {str(d.get("name") or "").strip() for d in listed if isinstance(d, dict)}
    names -= GENERIC_DEVICE_NAMES
    return (names.pop(),) if len(names) == 1 else ()


UNITRACE_HEADER = "Kernel,Device,SubDeviceId,"
"""Start of a unitrace Kernel Metrics header line (repeated before every kernel's rows)."""


def unitrace_stacks(path: Path) -> int | None:
    """How many stacks (distinct ``SubDeviceId``) the kernels of a unitrace dataset ran on.

    ``path``: a report, or a folder of the reports of one program. None when no report
    in it holds a Kernel Metrics row. A Max 1550 program on one stack (``ZE_AFFINITY_MASK``
    or FLAT hierarchy, one device) shows one ``SubDeviceId``; with implicit scaling over
    both stacks, each kernel has a row per stack (0 and 1). Kernel names may hold commas:
    the column is counted from the row's end (header and rows end with a comma).
    """
    files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
    stacks: set[str] = set()
    for file in files:
        width = column = None
        for cells in _rows(file):
            if ",".join(cells[:3]) + "," == UNITRACE_HEADER:
                width, column = len(cells), 2
            elif width and column is not None and len(cells) >= width:
                stacks.add(cells[len(cells) - width + column].strip())
    return len(stacks) or None


def stack_preset(plan, dataset: str, device: str | None, options: dict) -> str | None:
    """The preset a dataset measured on ``device`` is drawn on, one stack considered.

    The ``unitrace`` kind's :attr:`rooflow.kinds.Kind.preset_hook`: ``<device>-1stack``
    (``max-1550-1stack``) for a dataset whose kernels ran on one stack
    (:func:`unitrace_stacks`) when ``plan.datasheet_presets`` has that preset and the
    dataset's ``options`` name no ``presets``; the choice is added to ``plan.warnings``.
    Else ``device``. ``plan``: a :class:`rooflow.workflow.planning.Plan` (its ``datasets``,
    ``sources``, ``datasheet_presets``, ``warnings``).
    """
    kind, name = plan.datasets[dataset]
    one = f"{device}-1stack"
    if (not device or options.get("presets") or one not in plan.datasheet_presets
            or unitrace_stacks(Path(plan.sources[kind][name])) != 1):
        return device
    plan.warnings.append(f"dataset {dataset!r} ran on one stack of {device} (one "
                         f"SubDeviceId): drawn on {one}")
    return one
