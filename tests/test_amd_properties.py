"""Property tests for the AMD readers: random counter subsets, truncated files, shuffled rows,
huge and tiny values → canonical points or one InputError line, never another exception."""

from __future__ import annotations

import os
import random
from pathlib import Path

import polars as pl
import pytest
from amd_counters import roofline_counters
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooflow.adapters import load_points
from rooflow.errors import InputError
from rooflow.points import POINT_SCHEMA

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
EXAMPLES = int(os.environ.get("ROOFLOW_HYPOTHESIS_EXAMPLES", "60"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
COUNTERS = sorted({*roofline_counters("gfx90a"), *roofline_counters("gfx942"),
                   "SQ_INSTS_VALU_INT32", "SQ_INSTS_VALU_INT64", "SQ_INSTS_VALU_MFMA_MOPS_I8",
                   "FETCH_SIZE", "WRITE_SIZE"})
values = st.one_of(
    st.integers(0, 10**6).map(str), st.sampled_from(["0", "0.0", "1e300", "1e-300", "5e-324",
                                                     "1e400", "-1", "nan", "", "x"]),
    st.floats(min_value=0, max_value=1e308).map(repr),
)


def outcome(kind: str, path: Path) -> None:
    try:
        points = load_points(kind, path)
    except InputError as err:
        assert "\n" not in str(err)
        return
    assert points.schema == pl.Schema(POINT_SCHEMA)


@SETTINGS
@given(columns=st.lists(st.sampled_from(COUNTERS), unique=True, max_size=len(COUNTERS)),
       cells=st.lists(values, min_size=len(COUNTERS) * 2, max_size=len(COUNTERS) * 2),
       times=st.sampled_from([("0", "100"), ("100", "100"), ("5", "1e30"), ("1", "2")]))
def test_random_counter_subsets(tmp_path: Path, columns, cells, times) -> None:
    header = ["Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp", *columns]
    rows = [[str(i), f"k{i % 2}", *times, *cells[i * len(COUNTERS):][:len(columns)]]
            for i in range(2)]
    (tmp_path / "pmc_perf.csv").write_text(
        "\n".join(",".join(r) for r in [header, *rows]) + "\n")
    outcome("rocprof", tmp_path)


@SETTINGS
@given(columns=st.lists(st.sampled_from([*COUNTERS, "GRBM_GUI_ACTIVE", "Wave_Size"]),
                        unique=True, max_size=12),
       cells=st.lists(values, min_size=24, max_size=24),
       times=st.sampled_from([("0", "100"), ("100", "100"), ("5", "1e30"), ("", "")]),
       sysinfo=st.sampled_from(["", "gpu_arch,max_sclk,num_xcd,wave_size\ngfx942,2100,8,64\n",
                                "gpu_arch,chip_id,compute_partition\ngfx942,29861,CPX\n"]))
def test_random_long_tables(tmp_path: Path, columns, cells, times, sysinfo) -> None:
    # Long (rocpd) pmc_perf.csv: two dispatches × the chosen counters, equal or missing
    # timestamps with or without the cycle counter and clock.
    lines = ["Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp,Counter_Name,Counter_Value"]
    lines += [f"{d},k{d},{times[0]},{times[1]},{name},{cells[d * 12 + i]}"
              for d in range(2) for i, name in enumerate(columns)]
    (tmp_path / "pmc_perf.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "sysinfo.csv").unlink(missing_ok=True)
    if sysinfo:
        (tmp_path / "sysinfo.csv").write_text(sysinfo)
    outcome("rocprof", tmp_path)


SAMPLE_FILES = {
    "rocprof": DATA / "omniperf/mi300a-fortran-collapse/pmc_perf.csv",
    "rocprofv1": DATA / "rocprof/mi250x-laplacian-two-pass/data_movement.csv",
    "rocprofv3": DATA / "rocprofv3/mi355x-hipkittens-lds/lds_conflict_counter_collection.csv",
}


@pytest.mark.shared
@SETTINGS
@given(kind=st.sampled_from(sorted(SAMPLE_FILES)), cut=st.floats(0, 1), seed=st.integers(0, 99))
def test_truncated_and_shuffled_files(tmp_path: Path, kind: str, cut: float, seed: int) -> None:
    source = SAMPLE_FILES[kind]
    folder = tmp_path / kind
    folder.mkdir(exist_ok=True)
    lines = source.read_text().splitlines()
    body = lines[1:]
    random.Random(seed).shuffle(body)
    text = "\n".join([lines[0], *body])
    text = text[: int(len(text) * cut)] if seed % 2 else text
    # Keep the sample's companions (sysinfo, the timing run, agent info) beside the copy.
    for other in source.parent.iterdir():
        if other != source:
            (folder / other.name).write_bytes(other.read_bytes())
    (folder / source.name).write_text(text)
    outcome(kind, folder / source.name)
