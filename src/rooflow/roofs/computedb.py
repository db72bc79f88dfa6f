"""rocprof-compute analysis database (``rocprof_compute_*.db``) → empirical preset.

``compute_workload.roofline_bench_extdata`` (JSON; schema: ROCm/rocm-systems @ d4aec3e6 :
``projects/rocprofiler-compute/src/utils/analysis_orm.py``) holds the measured peaks of the
roofline benchmark, under the column names of ``roofline.csv`` without the ``Low``/``High``
spread: ``HBMBw``, ``L2Bw``, ``L1Bw``, ``LDSBw`` (GB/s), ``FP32Flops``, ``FP64Flops``,
``MFMA{F64,F32,F16,BF16,F8}Flops`` (GFLOP/s), ``MFMAI8Ops`` (GOP/s), …. They map to roofs
as :mod:`rooflow.roofs.omniperf` maps that file's columns (keys it does not know, such as
``FP16Flops`` or ``MFMAF6Flops``, are not read); the database is the same rocprof-compute
run as the points :mod:`rooflow.adapters.amd.computedb` reads from it.
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

from rooflow.errors import InputError
from rooflow.formats import sqlitedb
from rooflow.roofs.omniperf import _OPTIONAL, _ROOFS


def _peaks(path: Path) -> tuple[str, dict]:
    """(workload name, the peaks JSON of the first workload holding one); ("", {}) if none."""
    con = sqlitedb.connect(path)
    try:
        rows = con.execute("SELECT name, roofline_bench_extdata FROM compute_workload "
                           "WHERE roofline_bench_extdata IS NOT NULL "
                           "ORDER BY workload_id").fetchall()
    except sqlite3.Error as err:
        raise InputError(str(path), f"no compute_workload peaks ({err}): not a rocprof-compute "
                         "analysis database", check="schema") from None
    finally:
        con.close()
    for name, text in rows:
        try:
            peaks = json.loads(text)
        except (TypeError, ValueError):
            raise InputError(str(path), "roofline_bench_extdata is not JSON",
                             column="roofline_bench_extdata") from None
        if isinstance(peaks, dict) and peaks:
            return str(name or ""), peaks
    return "", {}


def has_peaks(path: str | Path) -> bool:
    """Whether the database holds measured peaks (a roofline benchmark was run)."""
    try:
        return bool(_peaks(Path(path))[1])
    except InputError:
        return False


def computedb_preset(path: str | Path) -> dict:
    """Measured preset from a rocprof-compute database's roofline benchmark.

    Returns:
        The preset mapping of ``config/hardware.yaml``, as
        :func:`rooflow.roofs.omniperf.omniperf_preset`: ``compute`` (TFLOP/s; int8-tensor
        TOP/s), ``memory`` (GB/s), ``default_compute`` "fp32", ``default_memory`` "HBM",
        ``empirical`` True.

    Raises:
        InputError: not a readable rocprof-compute database; no peaks; a peak the omniperf
            roofs need missing, or not a positive finite number.
    """
    path = Path(path)
    workload, peaks = _peaks(path)
    if not peaks:
        raise InputError(str(path), "no roofline benchmark peaks (roofline_bench_extdata is "
                         "empty: profiled with --no-roof?)", column="roofline_bench_extdata")
    missing = [k for k in _ROOFS if k not in peaks]
    if missing:
        raise InputError(str(path), "roofline_bench_extdata lacks " + ", ".join(missing),
                         column="roofline_bench_extdata", check="columns")
    roofs = {**_ROOFS, **{k: v for k, v in _OPTIONAL.items() if k in peaks}}
    preset: dict = {
        "name": f"{workload or path.stem} (rocprof-compute empirical)",
        "source": f"{path} (empirical, rocprof-compute database roofline_bench_extdata)",
        "compute": {}, "memory": {}, "default_compute": "fp32", "default_memory": "HBM",
        "empirical": True,
    }
    for key, (section, name) in roofs.items():
        value = peaks[key]
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise InputError(str(path), "peak must be a positive number",
                             column=f"roofline_bench_extdata.{key}", value=value)
        # GFLOP/s → TFLOP/s for compute roofs; GB/s stays GB/s.
        preset[section][name] = value / 1e3 if section == "compute" else float(value)
    return preset
