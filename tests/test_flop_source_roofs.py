"""Which roof a point is judged on: its precision and where its FLOP come from.

rocprof-compute counts a VALU instruction as 64 lanes × (1, or 2 for an FMA) FLOP, packed or
not (a ``v_pk_fma_f32``, two FP32 FMAs per lane, counts as one FMA), and its own VALU peak
is ``$max_sclk · $cu_per_gpu · 64 · 2`` (ROCm/rocprofiler-compute @95b600ea,
``analysis_configs/gfx942/0200_system-speed-of-light.yaml``, "VALU FLOPs" peak). AMD's
datasheet FP32 figures on CDNA 2-4 are the packed rate, twice that (CDNA 3 white paper:
MI300X FP32 163.4 = 2 × FP64 vector 81.7; ROCm "AMD Instinct MI250 microarchitecture"
table: Vector FP32 128, Packed FP32 256 FLOP/clk/CU). Counter FLOP meet the per-instruction
roof, model FLOP the datasheet's.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.analysis import analyze
from rooflow.errors import InputError
from rooflow.points import to_points
from rooflow.roofs.datasheet import load_hardware
from rooflow.roofs.preset import preset_from_mapping


@pytest.fixture(scope="module")
def presets():
    return load_hardware()


# (preset, CUs × 128 FLOP/clk × peak engine clock = per-instruction TFLOP/s, datasheet
# packed FP32). CU counts and clocks: CDNA 3 white paper (MI300X 304 CUs, MI300A 228, 2.1
# GHz; MI325X the MI300X's XCDs), MI355X/MI350X brochures (256 CUs, 2.4 / 2.2 GHz), CDNA 2
# white paper (MI250X 110 CUs per GCD, MI210 104, 1.7 GHz); rocprof-compute
# mi_gpu_spec.yaml gives the same CU counts.
PER_INSTRUCTION = [
    ("mi300x", 81.7, 163.4),   # 304 × 128 × 2.1 GHz = 81,715 GFLOP/s; packed 304 × 256 × 2.1
    ("mi325x", 81.7, 163.4),   # as MI300X (same CUs and clock)
    ("mi300a", 61.3, 122.6),   # 228 × 128 × 2.1 = 61,286; packed 122.6
    ("mi355x", 78.6, 157.3),   # 256 × 128 × 2.4 = 78,643; packed 157.3
    ("mi350x", 72.1, 144.2),   # 256 × 128 × 2.2 = 72,090; packed 144.2
    ("mi250x", 23.9, 47.9),    # one GCD: 110 × 128 × 1.7 = 23,936; packed 110 × 256 × 1.7
    ("mi210", 22.6, 45.3),     # 104 × 128 × 1.7 = 22,630; packed 104 × 256 × 1.7 = 45,261
]


@pytest.mark.parametrize(("key", "counted", "packed"), PER_INSTRUCTION)
def test_amd_fp32_roofs_by_hand(presets, key, counted, packed):
    p = presets[key]
    assert p.compute_roof("fp32", counted=True) == ("fp32 per instruction",
                                                    pytest.approx(counted * 1e12))
    assert p.compute_roof("fp32") == ("fp32", pytest.approx(packed * 1e12))
    # Each cites its figure: the per-instruction roof its own source line.
    assert "x 128 x" in p.sources["fp32 per instruction"]
    # fp64 has no packed form on CDNA 2-4: one roof serves both sources.
    assert p.compute_roof("fp64", counted=True) == p.compute_roof("fp64")


def rocprof_compute_workload(folder: Path, fma_f32: int, time_ns: int) -> Path:
    """A rocprof-compute workload: one dispatch of ``fma_f32`` FP32 FMA wavefront
    instructions in ``time_ns``, 1,024 KiB read from HBM, on an MI300X (sysinfo)."""
    counters = {"SQ_INSTS_VALU_ADD_F32": 0, "SQ_INSTS_VALU_MUL_F32": 0,
                "SQ_INSTS_VALU_TRANS_F32": 0, "SQ_INSTS_VALU_FMA_F32": fma_f32,
                "FETCH_SIZE": 1024, "WRITE_SIZE": 0}
    header = ["Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp", *counters]
    (folder / "pmc_perf.csv").write_text(",".join(header) + "\n" + ",".join(
        map(str, [0, "valu_peak", 0, time_ns, *counters.values()])) + "\n")
    (folder / "sysinfo.csv").write_text(
        "gpu_model,gpu_arch,compute_partition,memory_partition,cu_per_gpu,num_xcd,max_sclk\n"
        "MI300X_A1,gfx942,SPX,NPS1,304,8,2100\n")
    return folder


def test_rocprof_compute_kernel_at_its_valu_peak_is_100_percent(presets, tmp_path):
    # 638,281,250 FMA instructions × 64 lanes × 2 FLOP = 81.7e9 FLOP in 1 ms = 81.7 TFLOP/s,
    # the MI300X per-instruction roof (304 × 128 × 2.1 GHz, rounded as the preset: 81.7):
    # 100 % of roof. Against the datasheet's packed 163.4 it was 50 %.
    # AI = 81.7e9 FLOP / 1,048,576 B = 77,915 FLOP/byte, far right of the ridge
    # (81.7 / 5.325 = 15.3): compute-bound.
    points = load_points("rocprof", rocprof_compute_workload(tmp_path, 638_281_250, 1_000_000))
    row = analyze(points.filter(pl.col("level") == "DRAM"), presets["mi300x"]).row(0, named=True)
    assert row["precision"] == "fp32" and row["flop"] == 81.7e9
    assert row["compute_roof_name"] == "fp32 per instruction"
    assert row["compute_roof"] == pytest.approx(81.7e12)
    assert row["bound"] == "compute"
    assert row["pct_of_roof"] == pytest.approx(100.0)


COUNTERS = {"SQ_INSTS_VALU_ADD_F32": 0, "SQ_INSTS_VALU_MUL_F32": 0, "SQ_INSTS_VALU_TRANS_F32": 0,
            "SQ_INSTS_VALU_FMA_F32": 638_281_250, "FETCH_SIZE": 1024, "WRITE_SIZE": 0}


def rocprof_v1_run(folder: Path) -> Path:
    """rocprof v1 ``results.csv``: the same dispatch, 1 ms."""
    (folder / "results.csv").write_text(
        "Index,KernelName,DurationNs," + ",".join(COUNTERS) + "\n"
        + "0,valu_peak,1000000," + ",".join(map(str, COUNTERS.values())) + "\n")
    return folder


def rocprofv3_collection(folder: Path) -> Path:
    """rocprofv3 counter collection (one row per counter): the same dispatch, 1 ms."""
    path = folder / "run_counter_collection.csv"
    path.write_text("Dispatch_Id,Kernel_Name,Counter_Name,Counter_Value,Start_Timestamp,"
                    "End_Timestamp\n" + "".join(f"1,valu_peak,{name},{value},0,1000000\n"
                                                for name, value in COUNTERS.items()))
    return path


@pytest.mark.parametrize(("kind", "build"), [("rocprofv1", rocprof_v1_run),
                                             ("rocprofv3", rocprofv3_collection)])
def test_every_amd_profiler_meets_the_per_instruction_roof(presets, tmp_path, kind, build):
    # The dispatch of the rocprof-compute test through rocprof v1 and rocprofv3: 81.7e9
    # FLOP in 1 ms on an MI300X is 100 % of the 81.7 TFLOP/s per-instruction roof.
    points = load_points(kind, build(tmp_path))
    row = analyze(points.filter(pl.col("level") == "DRAM"), presets["mi300x"]).row(0, named=True)
    assert row["compute_roof_name"] == "fp32 per instruction"
    assert row["pct_of_roof"] == pytest.approx(100.0)


def test_the_same_flop_from_a_model_meet_the_datasheet_roof(presets):
    # 81.7e9 FLOP in 1 ms given by a spec or benchmark (bytes_model "given"): judged on the
    # packed 163.4 TFLOP/s, so 81.7 / 163.4 = 50 % of roof.
    model = to_points(pl.DataFrame({
        "precision": ["fp32"], "flop": [81.7e9], "time_s": [1e-3], "performance": [81.7e12],
        "arithmetic_intensity": [77_915.0], "level": ["DRAM"], "bytes_model": ["given"]}))
    row = analyze(model, presets["mi300x"]).row(0, named=True)
    assert row["compute_roof_name"] == "fp32" and row["compute_roof"] == pytest.approx(163.4e12)
    assert row["pct_of_roof"] == pytest.approx(50.0)


def test_counter_and_model_points_in_one_table_each_meet_their_roof(presets):
    # Two fp32 points at 40.85 TFLOP/s, AI 1000 (compute-bound on both roofs): the counted
    # one is 40.85 / 81.7 = 50 %, the model one 40.85 / 163.4 = 25 %.
    both = to_points(pl.DataFrame({
        "precision": ["fp32", "fp32"], "flop": [1e12, 1e12], "performance": [40.85e12] * 2,
        "arithmetic_intensity": [1000.0, 1000.0], "bytes_model": ["measured", "family"],
        "row": [1, 2]}))
    t = analyze(both, presets["mi300x"])
    assert t["compute_roof_name"].cast(pl.String).to_list() == ["fp32 per instruction", "fp32"]
    assert t["pct_of_roof"].to_list() == pytest.approx([50.0, 25.0])


def test_nvidia_counts_as_its_datasheet(presets):
    # ncu counts 2·FFMA + FADD + FMUL per thread instruction; the H100 SXM FP32 67 is
    # 132 SMs × 128 FP32 lanes × 2 × 1.98 GHz = 66.9, rounded: one roof for both sources.
    p = presets["h100-sxm"]
    for precision in ("fp64", "fp32", "fp16", "fp16-tensor"):
        assert p.compute_roof(precision, counted=True) == p.compute_roof(precision)


def test_a_per_instruction_roof_needs_its_compute_roof():
    entry = {"name": "x", "source": "s", "compute": {"fp64": 1.0},
             "per_instruction": {"fp32": 1.0}, "memory": {"HBM": 1.0},
             "default_compute": "fp64", "default_memory": "HBM"}
    with pytest.raises(InputError) as err:
        preset_from_mapping("x", entry, source="hw.yaml")
    assert "presets.x.per_instruction.fp32" in str(err.value)
