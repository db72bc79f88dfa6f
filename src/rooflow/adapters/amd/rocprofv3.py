"""rocprofv3 counter collection (CSV) → roofline points.

``rocprofv3 --pmc C1 C2 ... --output-format csv -o NAME -- app`` writes (ROCm/rocprofiler-sdk
docs, "Using rocprofv3", counter collection and "rocprofv3 advanced options"):

* ``NAME_counter_collection.csv``, long: one row per dispatch × counter:
  ``Correlation_Id``, ``Dispatch_Id``, ``Agent_Id``, ``Queue_Id``, ``Process_Id``,
  ``Thread_Id``, ``Grid_Size``, ``Kernel_Id``, ``Kernel_Name``, ``Workgroup_Size``,
  ``LDS_Block_Size``, ``Scratch_Size``, ``VGPR_Count``, [``Accum_VGPR_Count``],
  ``SGPR_Count``, ``Counter_Name``, ``Counter_Value``, [``Start_Timestamp``,
  ``End_Timestamp`` (ns)]. Rows are pivoted on ``Dispatch_Id`` (a counter given twice for
  one dispatch, e.g. per instance, is summed). Older builds have no timestamps: then
  ``NAME_kernel_trace.csv`` (``--kernel-trace``) beside it gives them, by ``Dispatch_Id``.
* ``NAME_agent_info.csv``: one row per agent; ``Agent_Id`` ``"Agent N"`` (or ``N``) is the
  row with ``Logical_Node_Id`` N (default ``--agent-index relative``). ``Name`` (``gfx950``,
  else decoded from ``Gfx_Target_Version``: 90500 → gfx950) picks the formulas;
  ``Device_Id`` (PCI id, 30115 = MI355X per rocprof-compute ``mi_gpu_spec.yaml``) names the
  GPU, else ``Product_Name``; ``Wave_Front_Size`` is the wave size VALU work is counted
  with (else the architecture's, :func:`~rooflow.adapters.amd.counters.wave_size`), as
  rocprof-compute's own conversion of this file takes it (``Wave_Size``,
  ``v3_counter_csv_to_v2_csv``).

A dataset is ``resources/rocprofv3/NAME_counter_collection.csv`` with its agent info
beside it. Formulas: :mod:`rooflow.adapters.amd.counters`; time ``End_Timestamp −
Start_Timestamp`` (ns). When a dispatch's timestamps give no time (End = Start: rounded
when saved), every dispatch's time comes from its busy cycles, as rocprof-compute's
"Kernel Time (Cycles)" (:func:`rooflow.adapters.amd.rocprof.cycle_time`):
``GRBM_GUI_ACTIVE / Num_Xcc / Max_Engine_Clk_Fcompute`` of the agent (MHz: the KFD
topology's maximum engine clock, ``amdgpu_amdkfd_get_max_engine_clock_in_mhz``, the peak
clock as sysinfo ``max_sclk`` is), said in the log.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from rooflow.adapters.amd.counters import CHIP_IDS, canonical_columns, gfx_target, plan, wave_size
from rooflow.adapters.amd.kernels import Dispatches, check_values, checked_dispatches
from rooflow.adapters.amd.rocprof import cycle_time
from rooflow.errors import InputError
from rooflow.formats.sniffing import ROCPROFV3_SUFFIX as SUFFIX
from rooflow.settings import Settings
from rooflow.validate import coerce_numeric, read_csv_text

DURATION = "End_Timestamp - Start_Timestamp"
CLOCK, XCCS = "Max_Engine_Clk_Fcompute", "Num_Xcc"
"""agent_info columns of the clock (MHz) and the XCCs, for a time from cycles."""
_NEEDED = ("Dispatch_Id", "Kernel_Name", "Counter_Name", "Counter_Value")


def _collection(path: Path) -> Path:
    if not path.is_dir():
        return path
    found = sorted(path.glob(f"*{SUFFIX}"))
    if len(found) != 1:
        raise InputError(str(path), f"holds {len(found)} *{SUFFIX} files; give one",
                         check="one counter collection")
    return found[0]


def _gfx(version: str) -> str | None:
    """``Gfx_Target_Version`` (major·10000 + minor·100 + stepping, hex digits) → gfx name."""
    if not version.isdigit() or int(version) < 10000:
        return None
    v = int(version)
    return f"gfx{v // 10000}{v // 100 % 100:x}{v % 100:x}"


def agent_gpu(collection: Path, agents: list[str],
              ) -> tuple[str | None, str, float | None, dict[str, str]]:
    """(gfx target, GPU name, wave size, clock) of the agents used, from ``*_agent_info.csv``.

    The clock is what :func:`~rooflow.adapters.amd.rocprof.cycle_time` reads, in sysinfo's
    names: ``max_sclk`` the first agent's ``Max_Engine_Clk_Fcompute`` (MHz), ``num_xcd``
    its ``Num_Xcc``. Without the file: (None, "", None, {}) and the counter names choose
    the formulas.

    Raises:
        InputError: an agent not in the file; dispatches on GPUs of different kinds.
    """
    info_path = collection.with_name(collection.name[: -len(SUFFIX)] + "_agent_info.csv")
    if not collection.name.endswith(SUFFIX) or not info_path.is_file():
        return None, "", None, {}
    info = read_csv_text(info_path)
    if "Logical_Node_Id" not in info.columns:
        raise InputError(str(info_path), "lacks column Logical_Node_Id", check="columns")
    rows = {(r.get("Logical_Node_Id") or ""): r for r in info.iter_rows(named=True)}
    gpus = set()
    clock: dict[str, str] = {}
    for agent in agents:
        match = re.fullmatch(r"(?:Agent\s*)?(\d+)", agent.strip())
        row = rows.get(match.group(1)) if match else None
        if row is None:
            raise InputError(str(info_path), "no agent with this Logical_Node_Id",
                             column="Logical_Node_Id", value=agent)
        arch = gfx_target(row.get("Name") or "") or _gfx(row.get("Gfx_Target_Version") or "")
        chip = row.get("Device_Id") or ""
        name = CHIP_IDS[int(chip)][0] if chip.isdigit() and int(chip) in CHIP_IDS else (
            row.get("Product_Name") or row.get("Name") or "")
        wave = (row.get("Wave_Front_Size") or "").strip()
        clock = clock or {"max_sclk": (row.get(CLOCK) or "").strip(),
                          "num_xcd": (row.get(XCCS) or "").strip()}
        gpus.add((arch, name, float(wave) if wave in ("32", "64") else None))
    if len(gpus) > 1:
        raise InputError(str(info_path), "dispatches ran on different GPU kinds: "
                         + ", ".join(sorted(f"{n} ({a}{f', wave{w:g}' if w else ''})"
                                            for a, n, w in gpus)),
                         check="one GPU kind")
    arch, name, wave = next(iter(gpus), (None, "", None))
    return arch, name, wave, clock or {"max_sclk": "", "num_xcd": ""}


def _timestamps(collection: Path, long: pl.DataFrame) -> tuple[pl.DataFrame, Path]:
    """Per-dispatch Start/End_Timestamp: from the collection, else its kernel trace."""
    if {"Start_Timestamp", "End_Timestamp"} <= set(long.columns):
        return long.select("Dispatch_Id", "Start_Timestamp", "End_Timestamp"), collection
    trace = collection.with_name(collection.name.replace(SUFFIX, "_kernel_trace.csv"))
    if collection.name.endswith(SUFFIX) and trace.is_file():
        frame = read_csv_text(trace)
        if {"Dispatch_Id", "Start_Timestamp", "End_Timestamp"} <= set(frame.columns):
            return frame.select("Dispatch_Id", "Start_Timestamp", "End_Timestamp"), trace
    raise InputError(str(collection), "no Start_Timestamp/End_Timestamp and no kernel trace "
                     "beside it: collect with `rocprofv3 --kernel-trace` too", check="time")


def read_collection(path: str | Path) -> Dispatches:
    """Dispatch rows (pivoted), formulas and GPU of a rocprofv3 counter collection.

    Raises:
        InputError: missing columns; no timestamps; counters missing as
            :func:`rooflow.adapters.amd.counters.plan` says; a bad value.
    """
    collection = _collection(Path(path))
    long = read_csv_text(collection)
    missing = [c for c in _NEEDED if c not in long.columns]
    if missing:
        raise InputError(str(collection), "lacks column(s) " + ", ".join(missing),
                         check="required columns")
    long = check_values(long.with_row_index("_row", offset=1), ["Counter_Value"], collection)
    if long["Counter_Name"].null_count():
        i = int(long["Counter_Name"].is_null().arg_true()[0])
        raise InputError(str(collection), "empty counter name", row=i + 1,
                         column="Counter_Name")
    agents = long["Agent_Id"].drop_nulls().unique(maintain_order=True).to_list() \
        if "Agent_Id" in long.columns else []
    arch, device, wave, clock = agent_gpu(collection, agents)
    times, time_file = _timestamps(collection, long)
    times = coerce_numeric(times.unique("Dispatch_Id", keep="first", maintain_order=True),
                           ["Start_Timestamp", "End_Timestamp"], time_file)
    wide = long.pivot(on="Counter_Name", index="Dispatch_Id", values="Counter_Value",
                      aggregate_function="sum")
    first = long.group_by("Dispatch_Id", maintain_order=True).agg(
        pl.col("_row").first(), pl.col("Kernel_Name").first())
    frame = first.join(wide, on="Dispatch_Id", maintain_order="left").join(
        times, on="Dispatch_Id", how="left", maintain_order="left",
    ).with_columns((pl.col("End_Timestamp") - pl.col("Start_Timestamp")).alias(DURATION))
    found = canonical_columns(frame.columns)
    formulas = plan(arch, found, str(collection))
    frame = frame.rename({col: name for name, col in found.items() if col != name})
    info_name = collection.name[: -len(SUFFIX)] + "_agent_info.csv"
    frame, notes = cycle_time(frame, clock, formulas.arch, device, collection, frame["_row"],
                              names=(info_name, CLOCK, XCCS))
    wave = wave or wave_size(formulas.arch)
    if wave != 64 and formulas.ops:
        notes += (f"VALU work counted × {wave:g} lanes per instruction (wave size)",)
    return checked_dispatches(frame, formulas, collection, kernel="Kernel_Name", time=DURATION,
                              device=device, rows=frame["_row"], wave=wave, notes=notes)


def rocprofv3_points(path: str | Path) -> pl.DataFrame:
    """Canonical points of a rocprofv3 counter collection, series "rocprofv3".

    Raises:
        InputError: as :func:`read_collection`; no kernel with bytes and a time.
    """
    return read_collection(path).points("rocprofv3")


def load(path: str | Path, settings: Settings) -> pl.DataFrame:
    """Registry entry (kind ``rocprofv3``): a counter collection, or a rocpd database.

    A ``*_counter_collection.csv`` (or its folder); a rocpd database (SQLite):
    :mod:`rooflow.adapters.amd.rocpd`.
    """
    from rooflow.formats.sqlitedb import is_sqlite

    if is_sqlite(Path(path)):
        from rooflow.adapters.amd.rocpd import rocpd_points

        return rocpd_points(path)
    return rocprofv3_points(path)
