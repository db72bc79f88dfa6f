"""AMD: the FETCH_SIZE fallback's note per architecture; partitions judged on their share."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.amd.counters import plan
from rooflow.analysis import analyze
from rooflow.kinds import device_names
from rooflow.points import to_points
from rooflow.roofs.datasheet import load_hardware
from rooflow.roofs.preset import device_preset

FETCH = ["FETCH_SIZE", "WRITE_SIZE"]


def test_fetch_size_fallback_says_how_it_miscounts_per_architecture():
    # gfx942: ROCm/rocprofiler counts a non-32-byte read as 64 B, rocprofiler-sdk @8ab1ed78 as
    # 128 B (derived_counters.xml gfx940 block; counter_defs.yaml): a 128-byte read is
    # undercounted by the first, a 64-byte one overcounted by the second.
    notes = " ".join(plan("gfx942", FETCH, "x.csv").notes)
    assert "FETCH_SIZE" in notes and "undercounted" in notes and "overcounted" in notes
    # gfx950: FETCH_SIZE is the gfx942 TCC_BUBBLE formula (rocm-systems @1b1610fc), not its
    # 32/64/128-byte read buckets: undercounted.
    notes = " ".join(plan("gfx950", FETCH, "x.csv").notes)
    assert "gfx942 TCC_BUBBLE formula" in notes and "undercounted" in notes
    # gfx90a: FETCH_SIZE is its own TCC_EA formula, exact: no note about it.
    assert not any("FETCH_SIZE" in n for n in plan("gfx90a", FETCH, "x.csv").notes)

@pytest.fixture(scope="module")
def presets():
    return load_hardware()


def test_mi300x_cpx_is_one_eighth_of_the_compute_and_l2_roofs(presets):
    # MI300X: 8 XCDs of 38 CUs (CDNA 3 white paper); CPX = 1 XCD = 38 CUs, 1/8 of each roof:
    # fp32 per instruction 81.7 / 8 = 10.2125 TFLOP/s (38 × 128 × 2.1 GHz = 10.21),
    # fp32 163.4 / 8 = 20.425, fp16-tensor 1307.4 / 8 = 163.425; L2 (per XCD: 2 KB/clk
    # each) 34.4 TB/s / 8 = 4.3 TB/s.
    cpx = presets["mi300x-cpx"]
    assert cpx.compute["fp32 per instruction"] == pytest.approx(10.2125e12)
    assert cpx.compute["fp32"] == pytest.approx(20.425e12)
    assert cpx.compute["fp16-tensor"] == pytest.approx(163.425e12)
    assert cpx.memory["L2"] == pytest.approx(4.3e12)
    # HBM in NPS1 is shared by all partitions: its share is not determinable. The whole
    # GPU's 5,325 GB/s stays as an upper bound, and the preset says so.
    assert cpx.memory["HBM"] == pytest.approx(5325e9)
    assert "not determinable" in cpx.roof_notes["HBM"]


def test_partition_with_its_own_memory_partition_gets_its_hbm_share(presets):
    # MI300X QPX (4 partitions of 2 XCDs) in NPS4 (4 memory partitions of 2 of the 8 HBM
    # stacks): 1/4 of everything, HBM 5,325 / 4 = 1,331.25 GB/s, fp64 81.7 / 4 = 20.425.
    qpx = presets["mi300x-qpx-nps4"]
    assert qpx.memory["HBM"] == pytest.approx(1331.25e9) and not qpx.roof_notes
    assert qpx.compute["fp64"] == pytest.approx(20.425e12)
    # MI300A TPX: 3 partitions of 2 of its 6 XCDs: fp64 61.3 / 3 = 20.433 TFLOP/s.
    assert presets["mi300a-tpx"].compute["fp64"] == pytest.approx(61.3e12 / 3)
    # MI355X DPX in NPS2: HBM3e 8,000 / 2 = 4,000 GB/s; fp32 per instruction 78.6 / 2.
    dpx = presets["mi355x-dpx-nps2"]
    assert dpx.memory["HBM3e"] == pytest.approx(4000e9)
    assert dpx.compute["fp32 per instruction"] == pytest.approx(39.3e12)


def sysinfo(folder: Path, model: str, partition: str, memory: str, xcds: int) -> Path:
    (folder / "sysinfo.csv").write_text(
        "gpu_model,gpu_arch,compute_partition,memory_partition,num_xcd\n"
        f"{model},gfx942,{partition},{memory},{xcds}\n")
    return folder


def test_a_partition_profile_picks_the_partition_preset(presets, tmp_path):
    cpx = sysinfo(tmp_path, "MI300X_A1", "CPX", "NPS1", 1)
    # Most specific first: the memory partition too (no NPS1 preset: the next name decides).
    assert device_names("rocprof", cpx)[:2] == ("MI300X CPX NPS1", "MI300X CPX")
    assert device_preset(presets, device_names("rocprof", cpx)) == "mi300x-cpx"
    qpx = sysinfo(tmp_path, "MI300X_A1", "QPX", "NPS4", 2)
    assert device_preset(presets, device_names("rocprof", qpx)) == "mi300x-qpx-nps4"
    # No compute_partition: fewer XCDs than the GPU name the mode (MI300X: 4 XCDs = DPX).
    dpx = sysinfo(tmp_path, "MI300X", "NA", "NA", 4)
    assert device_preset(presets, device_names("rocprof", dpx)) == "mi300x-dpx"


@pytest.mark.shared
def test_an_spx_profile_stays_on_the_whole_gpu(presets, shared_data):
    # The shipped MI325X workload says SPX (its num_xcd 1 is wrong, rocprof.py notes it):
    # the whole GPU.
    names = device_names("rocprof", shared_data / "omniperf" / "mi325x-hipkittens-gemm")
    assert device_preset(presets, names) == "mi325x"
    names = device_names("rocprof", shared_data / "omniperf" / "mi300x-kernel")
    assert device_preset(presets, names) == "mi300x"


def test_rocprofv3_agent_with_one_xcd_is_a_cpx_partition(presets, tmp_path):
    # agent_info of an MI355X (Device_Id 30115) agent with Num_Xcc 1 of its 8: CPX.
    (tmp_path / "r_counter_collection.csv").write_text(
        "Agent_Id,Dispatch_Id,Kernel_Name,Counter_Name,Counter_Value\nAgent 2,1,k,X,1\n")
    (tmp_path / "r_agent_info.csv").write_text(
        "Logical_Node_Id,Agent_Type,Num_Xcc,Cu_Count,Device_Id,Name,Product_Name\n"
        "2,GPU,1,32,30115,gfx950,AMD Radeon Graphics\n")
    names = device_names("rocprofv3", tmp_path / "r_counter_collection.csv")
    assert names[0] == "MI355X CPX"
    assert device_preset(presets, names) == "mi355x-cpx"


def test_a_cpx_kernel_at_its_valu_peak_is_100_percent_and_says_the_hbm_caveat(presets):
    # A counted fp32 kernel at 10.2125 TFLOP/s (the CPX's 81.7 / 8), AI 10,000: compute-bound
    # on the per-instruction roof (HBM 5,325 GB/s × 10,000 = 53 PFLOP/s): 100 % of roof;
    # against the whole GPU's 81.7 it would be 12.5 %.
    point = to_points(pl.DataFrame({
        "precision": ["fp32"], "flop": [1e12], "performance": [10.2125e12],
        "arithmetic_intensity": [10_000.0], "level": ["HBM"], "bytes_model": ["measured"]}))
    row = analyze(point, presets["mi300x-cpx"]).row(0, named=True)
    assert row["compute_roof_name"] == "fp32 per instruction"
    assert row["pct_of_roof"] == pytest.approx(100.0)
    assert "upper bound" in row["roof_note"] and "not determinable" in row["roof_note"]
