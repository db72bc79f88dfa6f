"""Omniperf / rocprof-compute workload folders → per-kernel breakdown → roofline points.

A workload folder (``rocprof-compute profile -n NAME`` → ``workloads/NAME/<GPU>/``) holds:

* ``pmc_perf.csv``, wide: one row per dispatch, one column per counter; ``Kernel_Name``,
  ``Start_Timestamp``, ``End_Timestamp`` (ns; older Omniperf: ``KernelName``,
  ``BeginNs``, ``EndNs``), ``Wave_Size`` (``wave_size``). Columns are found by name,
  never by position; a counter repeated by a later pass has a ``_N`` suffix and is used
  when the plain name is absent; per-channel ``TCC_*[i]`` columns are not read (the
  ``_sum`` aggregates are).
* or ``pmc_perf.csv``, long (``--format-rocprof-output rocpd``, the default from ROCm 7):
  one row per dispatch × counter, the passes' ``results_*.csv`` concatenated: ``GPU_ID``,
  [``GUID``, ``Correlation_Id``], ``Dispatch_ID``, ``Grid_Size``, ``Workgroup_Size``,
  ``LDS_Per_Workgroup``, ``Scratch_Per_Workitem``, ``Arch_VGPR``, ``Accum_VGPR``,
  ``SGPR``, ``Kernel_Name``, ``Start_Timestamp``, ``End_Timestamp``, ``Kernel_ID``,
  ``Counter_Name``, ``Counter_Value`` (``COUNTERS_COLLECTION_QUERY`` of
  ``src/utils/rocpd_data.py``, ROCm/rocm-systems ``projects/rocprofiler-compute``
  @1b1610fc and later; no ``Wave_Size``). A table with ``Counter_Name`` and
  ``Counter_Value`` is read as rocprof-compute reads it (``process_rocpd_csv``): one
  dispatch per (``Dispatch_ID``, ``Kernel_Name``, ``Grid_Size``, ``Workgroup_Size``,
  ``LDS_Per_Workgroup``), the passes of a dispatch sharing its ``Dispatch_ID``; its
  duration the median of its rows' ``End_Timestamp − Start_Timestamp``; a counter given
  by several passes taken from its first row (the wide table's plain column is the first
  pass's too). Errors in a counter value name the line of the long table.
* ``sysinfo.csv`` (optional): one row; ``gpu_arch`` (gfx target) picks the formulas,
  ``chip_id`` (rocprof-compute 3.x) names the GPU, else ``gpu_model``. ``chip_id`` wins
  over ``gpu_model`` (an MI325X reports ``gpu_model`` MI300); ``hbm_bw`` and
  ``total_l2_chan`` are not read (wrong in that sample); ``wave_size``, ``max_sclk`` and
  ``num_xcd`` are (below). Without sysinfo, the counter names give the architecture.
* ``roofline.csv`` (optional): measured peaks, read by :mod:`rooflow.roofs.omniperf`.

Formulas: :mod:`rooflow.adapters.amd.counters` (rocprof-compute ``roofline_calc.py`` and
``0400_roofline.yaml``). VALU work is counted × the dispatch's wave size: its ``Wave_Size``
(``wave_size``) column, else sysinfo ``wave_size``, else the architecture's
(:func:`~rooflow.adapters.amd.counters.wave_size`: 64 on CDNA, 32 on RDNA).

Time per dispatch: ``End_Timestamp − Start_Timestamp`` (ns), as rocprof-compute's "Kernel
Time". When the timestamps cannot give one (a dispatch whose End equals its Start, or
without timestamps: rounded when the file was saved), every dispatch's time comes from its
busy cycles instead, rocprof-compute's "Kernel Time (Cycles)" ``GRBM_GUI_ACTIVE /
num_xcd`` over its clock ``max_sclk`` (MHz; the clock of all its peaks, ``cur_sclk`` is
"reserved, unused"): ``time_ns = GRBM_GUI_ACTIVE / num_xcd / max_sclk · 1000``, said in
the log. ``num_xcd`` is the GPU's (:func:`~rooflow.adapters.amd.counters.partition_xcds`
from ``chip_id`` and ``compute_partition``) when known, else sysinfo's, else 1 on gfx908
and gfx90a. GRBM_GUI_ACTIVE counts a little around the kernel: on the shared samples the
cycle time is 1.6 % (MI300A, 430.6 ms) and 2.7 % (MI325X, 43.5 µs) over the timestamps,
−16 % and +31 % on 20 µs copies (MI200, MI100), 9× on a pre-production MI300X: an estimate.
Without the cycle counter or the clock, one error names what is missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl

from rooflow.adapters.amd.counters import (
    CHIP_IDS,
    CYCLES,
    FAMILIES,
    WAVE,
    canonical_columns,
    gfx_target,
    partition_xcds,
    plan,
    wave_size,
)
from rooflow.adapters.amd.kernels import Dispatches, check_values, checked_dispatches
from rooflow.errors import InputError
from rooflow.settings import Settings
from rooflow.validate import coerce_numeric, read_csv_text

_LEGACY = {"KernelName": "Kernel_Name", "BeginNs": "Start_Timestamp", "EndNs": "End_Timestamp"}
DURATION = "End_Timestamp - Start_Timestamp"
LONG = ("Counter_Name", "Counter_Value")
"""Columns of a long (rocpd) ``pmc_perf.csv``: one counter value per row."""
DISPATCH = ("Dispatch_ID", "Kernel_Name", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup")
"""The columns naming one dispatch of a long table (rocprof-compute ``ROCPD_GROUP_COLUMNS``)."""
WAVE_COLUMNS = ("Wave_Size", "wave_size")
"""A dispatch's wave size: rocprofv2/v3-based workloads, rocprof v1-based ones (Omniperf 1.x)."""


def sysinfo(folder: Path) -> dict[str, str]:
    """The row of ``sysinfo.csv`` (stripped values); {} without the file.

    Raises:
        InputError: an unreadable ``sysinfo.csv`` or one without a data row.
    """
    path = folder / "sysinfo.csv"
    if not path.is_file():
        return {}
    frame = read_csv_text(path)
    if frame.is_empty():
        raise InputError(str(path), "has no data row", check="rows")
    return {k: (v or "").strip() for k, v in frame.row(0, named=True).items()}


def _gpu(info: dict[str, str]) -> tuple[str | None, str]:
    chip = info.get("chip_id", "")
    name, chip_arch = CHIP_IDS.get(int(chip), ("", None)) if chip.isdigit() else ("", None)
    arch = gfx_target(info.get("gpu_arch", "")) or chip_arch
    return arch, name or info.get("gpu_model", "")


def _number(text: str | None) -> float | None:
    """A positive finite number written in ``text``, else None."""
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def _pivot(long: pl.DataFrame, arch: str | None, pmc: Path) -> pl.DataFrame:
    """One row per dispatch of a long table, with the counters the formulas read.

    Columns: ``_row`` (the dispatch's first line), ``Kernel_Name``, :data:`DURATION` (the
    median of its lines'), ``Wave_Size`` if the table has it, then the counters.

    Raises:
        InputError: a missing column; an empty counter name; a timestamp or a read counter
            value that is not a number, negative or infinite (its line named).
    """
    missing = [c for c in ("Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp",
                           *LONG) if c not in long.columns]
    if missing:
        raise InputError(str(pmc), "lacks column(s) " + ", ".join(missing) + " of a long "
                         "(rocpd) table", check="required columns")
    long = long.with_row_index("_row", offset=1)
    if long["Counter_Name"].null_count():
        i = int(long["Counter_Name"].is_null().arg_true()[0])
        raise InputError(str(pmc), "empty counter name", row=i + 1, column="Counter_Name")
    found = canonical_columns(long["Counter_Name"].unique().to_list())
    formulas = plan(arch, found, str(pmc), tool="rocprof-compute")
    read = {*(found[c] for c in formulas.counters), CYCLES}
    wanted = pl.col("Counter_Name").is_in(list(read))
    # Only the values the formulas read are checked, each on its own line.
    long = check_values(long.with_columns(
        pl.when(wanted).then(pl.col("Counter_Value")).otherwise(pl.lit("0"))
        .alias("Counter_Value")), ["Counter_Value"], pmc)
    long = coerce_numeric(long, ["Start_Timestamp", "End_Timestamp"], pmc)
    key = [c for c in DISPATCH if c in long.columns]
    long = long.with_columns(pl.col("_row").min().over(key).alias("_dispatch"))
    dispatches = long.group_by("_dispatch", maintain_order=True).agg(
        pl.col("_row").first(), pl.col("Kernel_Name").first(),
        *[pl.col(c).drop_nulls().first() for c in WAVE_COLUMNS if c in long.columns],
        (pl.col("End_Timestamp") - pl.col("Start_Timestamp")).median().alias(DURATION),
    )
    counters = long.filter(wanted).pivot(on="Counter_Name", index="_dispatch",
                                         values="Counter_Value", aggregate_function="first")
    return dispatches.join(counters, on="_dispatch", how="left", maintain_order="left").drop(
        "_dispatch")


def _xcds(info: dict[str, str], arch: str | None, device: str) -> tuple[int | None, str]:
    """(XCDs of the profiled GPU or partition, or None; a note when sysinfo disagrees)."""
    partition = info.get("compute_partition", "")
    table = partition_xcds(device, partition)
    given = _number(info.get("num_xcd"))
    if table is not None:
        if given is not None and given != table:
            return table, (f"sysinfo num_xcd {given:g} taken as {table}, the XCDs of an "
                           f"{device} in {partition.upper()} (rocprof-compute mi_gpu_spec.yaml)")
        return table, ""
    if given is not None:
        return int(given), ""
    return (1, "") if FAMILIES.get(arch or "") in ("gfx908", "gfx90a") else (None, "")


def cycle_time(frame: pl.DataFrame, info: dict[str, str], arch: str | None, device: str,
               pmc: Path, rows: pl.Series, names: tuple[str, str, str] = (
                   "sysinfo.csv", "max_sclk", "num_xcd")) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """``frame`` with :data:`DURATION` from cycles when some dispatch's timestamps give none.

    ``info`` holds the clock (``max_sclk``, MHz) and the XCDs (``num_xcd``, and
    ``compute_partition``), as sysinfo.csv names them; ``names`` are the file and the
    fields they came from, as the messages name them (rocprofv3: its agent_info).

    Raises:
        InputError: a dispatch with End = Start (or no timestamp) and no cycle counter, no
            ``max_sclk`` or no XCD count (one line naming what is missing); a cycle count
            not > 0.
    """
    duration = frame[DURATION]
    unusable = duration.is_null() | (duration == 0)
    if not unusable.any() or (duration < 0).any():  # End < Start: a broken file, refused
        return frame, ()
    i = int(unusable.arg_true()[0])
    cycles = next((c for c in frame.columns if c == CYCLES), None) or next(
        (c for c in frame.columns if c.startswith(CYCLES + "_") and c[len(CYCLES) + 1:].isdigit()),
        None)
    mhz = _number(info.get("max_sclk"))
    xcds, xcd_note = _xcds(info, arch, device)
    source, clock, xcd = names
    missing = [] if cycles else [f"no {CYCLES} counter in {pmc.name}"]
    if not info:
        missing.append(f"no {source} beside it ({clock}, {xcd})")
    else:
        missing += [f"no {what} in {source}" for what, value in
                    ((clock, mhz), (xcd, xcds)) if value is None]
    if missing:
        raise InputError(
            str(pmc), "End_Timestamp − Start_Timestamp gives no time (timestamps without "
            "resolution?) and the cycles cannot either: " + "; ".join(missing),
            row=int(rows[i]), column=DURATION, check="time > 0", value=duration[i],
        )
    assert cycles is not None and mhz is not None and xcds is not None  # for the type checker
    frame = coerce_numeric(frame, [cycles], pmc)
    bad = (frame[cycles] > 0).fill_null(False).not_()
    if bad.any():
        j = int(bad.arg_true()[0])
        raise InputError(str(pmc), f"{CYCLES} must be > 0 to give the time (the timestamps "
                         "give none)", row=int(rows[j]), column=cycles, check="> 0",
                         value=frame[cycles][j])
    # The counter sums the XCDs: cycles / XCDs / (MHz × 10⁶) seconds, × 10⁹ for nanoseconds.
    frame = frame.with_columns((pl.col(cycles) / xcds / mhz * 1e3).alias(DURATION))
    note = (f"{int(unusable.sum())} of {frame.height} dispatches have End_Timestamp = "
            f"Start_Timestamp (first: row {int(rows[i])}): every dispatch's time is {cycles} / "
            f"{xcd} {xcds} / {clock} {mhz:g} MHz (rocprof-compute's Kernel Time (Cycles) "
            "at its clock; busy cycles around the kernel, a little longer than it)")
    return frame, (note, *([xcd_note] if xcd_note else []))


def _waves(frame: pl.DataFrame, info: dict[str, str], arch: str | None,
           ) -> tuple[pl.DataFrame, str | float, str]:
    """(frame, the wave size or the column of each dispatch's, where it comes from).

    ``Wave_Size`` or ``wave_size`` (or a pass's ``_N`` copy) per dispatch, its empty cells
    and a table without it taking sysinfo ``wave_size``, else the architecture's default.
    """
    column = next((c for c in WAVE_COLUMNS if c in frame.columns), None) or next(
        (c for c in frame.columns for w in WAVE_COLUMNS
         if c.startswith(w + "_") and c[len(w) + 1:].isdigit()), None)
    given = _number(info.get("wave_size"))
    default, source = (given, "sysinfo wave_size") if given else (
        wave_size(arch), f"the default of {arch or 'CDNA'}")
    if column is None:
        return frame, default, source
    return (frame.with_columns(pl.col(column).fill_null(f"{default:g}")), column,
            f"the {column} column, else {source}")


def read_workload(path: str | Path) -> Dispatches:
    """Dispatch rows, formulas and GPU of a workload folder (or its ``pmc_perf.csv``).

    Raises:
        InputError: no ``pmc_perf.csv``; no kernel-name or timestamp column; counters
            missing as :func:`rooflow.adapters.amd.counters.plan` says; a bad value; no
            time from the timestamps nor from the cycles.
    """
    folder = Path(path)
    folder = folder.parent if folder.is_file() else folder
    pmc = folder / "pmc_perf.csv"
    info = sysinfo(folder)
    arch, device = _gpu(info)
    frame = read_csv_text(pmc)
    rows = None
    if set(LONG) <= set(frame.columns):
        frame = _pivot(frame, arch, pmc)
        rows = frame["_row"]
    else:
        frame = frame.rename({o: n for o, n in _LEGACY.items()
                              if o in frame.columns and n not in frame.columns})
        missing = [c for c in ("Kernel_Name", "Start_Timestamp", "End_Timestamp")
                   if c not in frame.columns]
        if missing:
            raise InputError(str(pmc), "lacks column(s) " + ", ".join(missing),
                             check="required columns")
        frame = coerce_numeric(frame, ["Start_Timestamp", "End_Timestamp"], pmc).with_columns(
            (pl.col("End_Timestamp") - pl.col("Start_Timestamp")).alias(DURATION)
        )
    found = canonical_columns(frame.columns)
    formulas = plan(arch, found, str(pmc), tool="rocprof-compute")
    frame = frame.rename({col: name for name, col in found.items() if col != name})
    frame, notes = cycle_time(frame, info, arch, device, pmc,
                              pl.int_range(1, frame.height + 1, eager=True)
                              if rows is None else rows)
    frame, wave, source = _waves(frame, info, arch)
    dispatches = checked_dispatches(frame, formulas, pmc, kernel="Kernel_Name", time=DURATION,
                                    device=device, rows=rows, wave=wave, notes=notes)
    sizes = sorted(set(dispatches.frame[WAVE].to_list()))
    if formulas.ops and sizes != [64.0]:
        lanes = " and ".join(f"{s:g}" for s in sizes)
        dispatches = replace(dispatches, notes=(
            *notes, f"VALU work counted × {lanes} lanes per instruction (wave size: {source})"))
    return dispatches


def omniperf_points(path: str | Path) -> pl.DataFrame:
    """Canonical points of a workload folder, series "rocprof".

    Raises:
        InputError: as :func:`read_workload`; no kernel with bytes and a time.
    """
    return read_workload(path).points("rocprof")


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry (kind ``rocprof``): the workload folder of ``path``, or a database.

    A rocprof-compute analysis database (SQLite): :mod:`rooflow.adapters.amd.computedb`.
    """
    from rooflow.formats.sqlitedb import is_sqlite

    if is_sqlite(Path(path)):
        from rooflow.adapters.amd.computedb import computedb_points

        return computedb_points(path)
    return omniperf_points(path)
