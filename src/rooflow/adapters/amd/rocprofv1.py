"""rocprof (v1) CSV output, one run or several runs of one program → roofline points.

``rocprof --timestamp on -i input.txt -o results.csv app`` writes one row per dispatch:
``Index``, ``KernelName``, ``gpu-id``, ``queue-id``, ``queue-index``, ``pid``, ``tid``,
``grd``, ``wgr``, ``lds``, ``scr``, ``arch_vgpr``/``vgpr``, ``accum_vgpr``, ``sgpr``,
``wave_size``, ``sig``, ``obj``, then the ``pmc:`` counters of the input file in order
and, with timestamps, ``DispatchNs``, ``BeginNs``, ``EndNs``, ``CompleteNs`` (ns) and
``DurationNs`` (= EndNs − BeginNs). Counters that do not fit one pass are collected in
several runs (one CSV each); the dispatches of all runs are joined on ``Index`` +
``KernelName`` (``pid``, ``tid`` and ``obj`` differ between runs). Kernel time is
``DurationNs`` (else ``EndNs − BeginNs``) from a run with timestamps, preferring the one
with the fewest counters (counter collection serialises and slows kernels).

A dataset is a folder (``resources/rocprofv1/NAME/`` with ``results.csv`` and the other
runs' CSVs); every ``*.csv`` in it whose header has ``Index`` and ``KernelName`` is a run
(``results.stats.csv`` and other summaries are skipped). Counter columns are the
names that start upper-case (``FETCH_SIZE``, ``TCP_TCC_READ_REQ_sum``, ``TCC_HIT[3]``,
``GPUBusy``) other than the dispatch fields; a counter in
several runs is taken from the first.

Formulas: :mod:`rooflow.adapters.amd.counters`; VALU work is counted × the dispatch's
``wave_size`` (of the timed run; else the architecture's). rocprof v1 carries no
architecture, so the counter names choose (``TCC_EA0_*`` → gfx942, ...); the usual DRAM
counters are the derived ``FETCH_SIZE`` and ``WRITE_SIZE`` in KiB ("The total kilobytes
fetched from / written to the video memory", ROCm/rocprofiler
``src/core/counters/metrics/derived_counters.xml``): HBM bytes = 1024·(FETCH_SIZE +
WRITE_SIZE). Without FLOP counters (``SQ_INSTS_VALU_*``) the rows are bandwidth-only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl

from rooflow.adapters.amd import sniff
from rooflow.adapters.amd.counters import WAVE, canonical_columns, plan, wave_size
from rooflow.adapters.amd.kernels import Dispatches, check_values, checked_dispatches
from rooflow.adapters.amd.sniff import ROCPROF_V1_KEY as KEY
from rooflow.errors import InputError
from rooflow.settings import Settings
from rooflow.validate import coerce_numeric, read_csv_text

# Dispatch fields that start upper-case; the others (gpu-id, pid, grd, ...) are lower-case.
_FIELDS = {"Index", "KernelName", "DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs"}
DURATION = "DurationNs"
_SPAN = "EndNs - BeginNs"
_WAVE = "wave_size"


def runs(path: str | Path) -> list[Path]:
    """The run CSVs of a dataset: ``path``'s folder (or ``path`` itself), ``results.csv`` first.

    Raises:
        InputError: no rocprof v1 CSV there.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if not path.exists():
        raise InputError(str(path), "file not found")
    files = sorted(folder.glob("*.csv"), key=lambda f: (f.name != "results.csv", f.name))
    found = [f for f in files if sniff.rocprofv1(f)]
    if not found:
        raise InputError(str(path), "no rocprof CSV here (a header with Index and KernelName)",
                         check="format")
    return found


def _read_run(path: Path) -> tuple[pl.DataFrame, list[str], str | None]:
    """(frame with the key, time and counters; counters; time column or None)."""
    frame = read_csv_text(path)
    if frame.select(pl.struct(KEY).is_duplicated().any()).item():
        raise InputError(str(path), "repeated Index + KernelName", check="unique dispatches")
    counters = [c for c in frame.columns if c[:1].isupper() and c not in _FIELDS]
    time = None
    if DURATION in frame.columns:
        time = DURATION
    elif {"BeginNs", "EndNs"} <= set(frame.columns):
        frame = coerce_numeric(frame, ["BeginNs", "EndNs"], path)
        frame = frame.with_columns((pl.col("EndNs") - pl.col("BeginNs")).alias(_SPAN))
        time = _SPAN
    frame = check_values(frame, counters, path)
    wave = [_WAVE] if _WAVE in frame.columns else []
    return frame.select(*KEY, *([time] if time else []), *wave, *counters), counters, time


def _same_dispatches(base: pl.DataFrame, base_file: Path, run: pl.DataFrame, file: Path) -> None:
    """Raise unless ``run`` profiled the dispatches of ``base`` (by Index + KernelName)."""
    for frame, other, where in ((run, base, file), (base, run, base_file)):
        extra = frame.with_row_index("_i").join(other.select(KEY), on=list(KEY), how="anti")
        if extra.height:
            first = extra.row(0, named=True)
            raise InputError(
                str(where), f"dispatch not in {(base_file if where == file else file).name} "
                "(runs are joined on Index + KernelName and must profile the same dispatches)",
                row=first["_i"] + 1, check="same dispatches",
                value=f"{first['Index']} {first['KernelName']}",
            )


def read_runs(path: str | Path) -> Dispatches:
    """Dispatch rows of all runs, joined, with the formulas their counters allow.

    Raises:
        InputError: no run with timestamps; a dispatch (Index + KernelName) missing from
            a run; counters missing as :func:`rooflow.adapters.amd.counters.plan` says;
            a bad value.
    """
    files = runs(path)
    read = [(f, *_read_run(f)) for f in files]
    timed = [(f, frame, counters, t) for f, frame, counters, t in read if t is not None]
    if not timed:
        raise InputError(str(path), "no run with timestamps (DurationNs or BeginNs/EndNs): "
                         "add a run with `rocprof --timestamp on`", check="time")
    base_file, base, _, time = min(timed, key=lambda r: len(r[2]))
    merged, taken = base, set(base.columns)
    for file, frame, counters, _ in read:
        new = [c for c in counters if c not in taken]
        if file == base_file or not new:
            continue
        _same_dispatches(merged, base_file, frame, file)
        joined = merged.join(frame.select(*KEY, *new), on=list(KEY), how="left",
                             maintain_order="left")
        merged, taken = joined, taken | set(new)
    found = canonical_columns(merged.columns)
    formulas = plan(None, found, str(path), tool="rocprofv1")
    merged = merged.rename({col: name for name, col in found.items() if col != name})
    default = wave_size(formulas.arch)
    wave: str | float = default
    if _WAVE in merged.columns:
        merged, wave = merged.with_columns(pl.col(_WAVE).fill_null(f"{default:g}")), _WAVE
    dispatches = checked_dispatches(merged, formulas, base_file, kernel="KernelName", time=time,
                                    wave=wave)
    lanes = sorted(set(dispatches.frame[WAVE].to_list()))
    if formulas.ops and lanes != [64.0]:
        dispatches = replace(dispatches, notes=(
            "VALU work counted × " + " and ".join(f"{x:g}" for x in lanes)
            + " lanes per instruction (wave_size)",))
    return replace(dispatches, source=Path(path))


def rocprof_v1_points(path: str | Path) -> pl.DataFrame:
    """Canonical points of a rocprof v1 dataset, series "rocprofv1".

    Raises:
        InputError: as :func:`read_runs`; no kernel with bytes and a time.
    """
    return read_runs(path).points("rocprofv1")


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry (kind ``rocprofv1``): the folder of ``path`` (or the folder itself)."""
    return rocprof_v1_points(path)
