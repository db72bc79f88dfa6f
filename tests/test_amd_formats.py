"""AMD profiler formats on real files: every sample gives points or one clear error, and one
kernel per format checked by hand (rocprof-compute formulas, rooflow.adapters.amd.counters)."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.adapters.amd.counters import arch_from_counters, canonical_columns, plan
from rooflow.adapters.amd.detect import detect
from rooflow.adapters.amd.rocprof import read_workload
from rooflow.adapters.amd.rocprofv1 import read_runs
from rooflow.adapters.amd.rocprofv3 import read_collection
from rooflow.cli.main import main
from rooflow.errors import InputError
from rooflow.points import POINT_SCHEMA

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SAMPLES = sorted(
    p.relative_to(DATA) for d in ("omniperf", "rocprof", "rocprofv3") for p in (DATA / d).rglob("*")
)


def dispatch(dispatches, row: int):
    """The breakdown of one dispatch (1-based data row) alone."""
    return replace(dispatches, frame=dispatches.frame.filter(pl.col("row") == row)).kernels()


@pytest.mark.shared
@pytest.mark.parametrize("sample", SAMPLES, ids=str)
def test_every_sample_gives_points_or_one_error(shared_data: Path, sample: Path) -> None:
    path = shared_data / sample
    try:
        points = load_points(detect(path), path)
    except InputError as err:
        assert "\n" not in str(err) and str(err).startswith(str(path.parent))
        return
    assert points.schema == pl.Schema(POINT_SCHEMA) and points.height > 0


@pytest.mark.shared
def test_mi300x_vecopy_hbm_by_gfx942_formula(shared_data: Path) -> None:
    # gfx942, dispatch 0 (row 1):
    #   HBM = 128·TCC_BUBBLE 65,536 + 32·RDREQ_32B 0 + 64·(RDREQ 65,778 − 65,536 − 0)
    #       + 32·(WRREQ 131,072 − WRREQ_64B 131,072) + 64·131,072
    #       = 8,388,608 + 15,488 + 0 + 8,388,608                       = 16,792,704 byte
    #   L2  = 64·(READ 65,536 + WRITE 131,072 + atomics 0)             = 12,582,912 byte
    #   time = 716479545415785 − 716479545398906                       = 16,879 ns
    #   int32 = 64·49,152 = 3,145,728 OP; int64 = 64·32,768 = 2,097,152 OP; no FLOP at all,
    #   and address arithmetic never decides: no precision, a copy (60 % / 40 %).
    w = read_workload(shared_data / "omniperf/mi300x-kernel")
    assert (w.plan.arch, w.device) == ("gfx942", "MI300X_A1")
    k = dispatch(w, 1).row(0, named=True)
    assert (k["bytes_dram"], k["bytes_l2"]) == (16_792_704, 12_582_912)
    assert k["time_s"] == pytest.approx(16_879e-9)
    assert (k["precision"], k["flop"], k["precision_mix"]) == (
        "", 0, "int32 60.0%, int64 40.0%")


@pytest.mark.shared
def test_mi300a_fp64_kernel(shared_data: Path) -> None:
    # dispatch 2 (row 3), __omp_offloading_32_6b6b__QQmain_l41.kd:
    #   fp64 = 64·(ADD 12,582,912 + MUL 2,097,152 + TRANS 2,097,152 + 2·FMA 12,582,912)
    #        = 64·41,943,040                                         = 2,684,354,560 FLOP
    #   fp32 = 64·(MUL 3,648 + TRANS 3,648)                         =       466,944 FLOP
    #   int32 = 64·100,670,592 = 6,442,917,888 OP; int64 = 64·39,845,888 = 2,550,136,832 OP
    #   VALU integer work (address arithmetic) does not decide the precision of a kernel
    #   with FLOP: fp64, flop = 2,684,354,560 + 466,944 = 2,684,821,504 FLOP; shares of
    #   all 11,677,876,224 operations, in tenths of a percent: int32 551.72, fp64 229.87,
    #   int64 218.37, fp32 0.04; floors 551 + 229 + 218 + 0 = 998, the two tenths left go to
    #   the largest remainders (fp64 .87, int32 .72): 55.2 %, 23.0 %, 21.8 %, < 0.1 %.
    #   HBM = 128·31,255,872 + 64·(31,714,488 − 31,255,872) + 32·(17,399,050 − 16,734,163)
    #       + 64·16,734,163 = 4,000,751,616 + 29,351,424 + 21,276,384 + 1,070,986,432
    #       = 5,122,365,856 byte
    #   LDS = 128·(IDX_ACTIVE 67,108,864 − BANK_CONFLICT 0)        = 8,589,934,592 byte
    #   time = 4512700570549352 − 4512700569069227                  = 1,480,125 ns
    w = read_workload(shared_data / "omniperf/mi300a-fortran-collapse")
    k = dispatch(w, 3).row(0, named=True)
    assert k["kernel"] == "__omp_offloading_32_6b6b__QQmain_l41.kd"
    assert (k["ops_fp64"], k["ops_fp32"]) == (2_684_354_560, 466_944)
    assert (k["precision"], k["flop"]) == ("fp64", 2_684_821_504)
    assert k["precision_mix"] == "int32 55.2%, fp64 23.0%, int64 21.8%, fp32 <0.1%"
    assert (k["bytes_dram"], k["bytes_lds"]) == (5_122_365_856, 8_589_934_592)
    assert k["time_s"] == pytest.approx(1_480_125e-9)


@pytest.mark.shared
def test_mi325x_bf16_mfma_gemm(shared_data: Path) -> None:
    # chip_id 29861 = MI325X although gpu_model says MI300; dispatch 67 (row 68), micro_tk:
    #   bf16-tensor = 512·MOPS_BF16 268,435,456 = 137,438,953,472 FLOP (= 2·4096³)
    #   fp32 = 64·(MUL 2,048 + TRANS 2,048)     =             262,144 FLOP
    #   flop = 137,439,215,616 (both FLOP), precision bf16-tensor
    #   HBM = 128·1,572,864 + 64·(1,574,019 − 1,572,864) + 32·(527,970 − 524,301)
    #       + 64·524,301 = 201,326,592 + 73,920 + 117,408 + 33,555,264 = 235,073,184 byte
    #   time = 4572254564705963 − 4572254564539436 = 166,527 ns
    w = read_workload(shared_data / "omniperf/mi325x-hipkittens-gemm")
    assert (w.plan.arch, w.device) == ("gfx942", "MI325X")
    k = dispatch(w, 68).row(0, named=True)
    assert k["kernel"] == "micro_tk(micro_globals) [clone .kd]"
    assert (k["ops_bf16_tensor"], k["ops_fp32"]) == (137_438_953_472, 262_144)
    assert (k["precision"], k["flop"]) == ("bf16-tensor", 137_439_215_616)
    assert k["bytes_dram"] == 235_073_184 and k["time_s"] == pytest.approx(166_527e-9)
    points = w.points("rocprof")
    assert set(points["device"]) == {"MI325X"}
    # elementwise kernels with only integer VALU work are bandwidth-only rows ("")
    assert {"bf16-tensor", "fp32", ""} <= set(points["precision"])


@pytest.mark.shared
def test_mi100_memory_rows_only(shared_data: Path, caplog) -> None:
    # gfx908: no per-precision counters. dispatch 0 (row 1):
    #   HBM = 32·RDREQ_32B 0 + 64·(RDREQ 131,484 − 0) + 32·(WRREQ 131,072 − 131,072)
    #       + 64·WRREQ_64B 131,072 = 8,414,976 + 8,388,608 = 16,803,584 byte
    #   time = 1414621055449622 − 1414621055425142 = 24,480 ns
    w = read_workload(shared_data / "omniperf/mi100-kernel")
    assert (w.plan.arch, w.device, w.plan.ops) == ("gfx908", "MI100", {})
    k = dispatch(w, 1).row(0, named=True)
    assert (k["bytes_dram"], k["flop"], k["precision"]) == (16_803_584, 0, "")
    assert k["time_s"] == pytest.approx(24_480e-9)
    with caplog.at_level(logging.WARNING):
        points = w.points("rocprof")
    assert "gfx908 (MI100) has no per-precision VALU or MFMA counters" in caplog.text
    assert points["arithmetic_intensity"].is_null().all()
    assert (points["flop"] == 0).all() and (points["performance"] == 0).all()


@pytest.mark.shared
def test_mi250x_two_pass_laplacian(shared_data: Path, caplog) -> None:
    # Timing from results.csv, counters from data_movement.csv, joined on Index + KernelName.
    # dispatch 1 (row 2), laplacian_kernel:
    #   HBM = 1024·(FETCH_SIZE 1,979,347.875 + WRITE_SIZE 1,043,147.625) KiB
    #       = 1024·3,022,495.5                                   = 3,095,035,392 byte
    #   L2  = 64·(TCP_TCC_READ_REQ 83,752,868 + WRITE_REQ 16,646,400) = 6,425,553,152 byte
    #   L1  = 64·TCP_TOTAL_CACHE_ACCESSES 265,822,200                = 17,012,620,800 byte
    #   time = DurationNs 2,647,539 ns (= EndNs 2001401023684049 − BeginNs 2001401021036510)
    folder = shared_data / "rocprof/mi250x-laplacian-two-pass"
    w = read_runs(folder)
    k = dispatch(w, 2).row(0, named=True)
    assert k["kernel"] == "laplacian_kernel"
    assert (k["bytes_dram"], k["bytes_l2"], k["bytes_l1"]) == (
        3_095_035_392, 6_425_553_152, 17_012_620_800)
    assert k["time_s"] == pytest.approx(2_647_539e-9)
    kernels = w.kernels()
    assert kernels.filter(pl.col("kernel") == "laplacian_kernel")["launches"].item() == 1001
    # No FLOP counters: bandwidth-only rows, and the reason is logged.
    with caplog.at_level(logging.WARNING):
        points = load_points("rocprofv1", folder / "results.csv")
    assert "no FLOP counters" in caplog.text and "SQ_INSTS_VALU_FMA_F64" in caplog.text
    assert (points["flop"] == 0).all() and points["arithmetic_intensity"].is_null().all()
    assert set(points["level"]) == {"DRAM", "L2", "L1"}


@pytest.mark.shared
def test_rocprof_v1_runs_must_profile_the_same_dispatches(shared_data: Path,
                                                         tmp_path: Path) -> None:
    # The counter run lost its last dispatch (Index 1003): the join refuses, naming it.
    source = shared_data / "rocprof/mi250x-laplacian-two-pass"
    (tmp_path / "results.csv").write_bytes((source / "results.csv").read_bytes())
    lines = (source / "data_movement.csv").read_text().splitlines()
    (tmp_path / "data_movement.csv").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(InputError) as err:
        read_runs(tmp_path)
    assert err.value.check == "same dispatches" and err.value.row == 1004
    assert str(err.value.value).startswith("1003 ")


@pytest.mark.shared
def test_rocprofv3_lds_only_is_refused(shared_data: Path) -> None:
    # SQ_INSTS_LDS and SQ_LDS_BANK_CONFLICT only: no FLOP nor byte counters on gfx950.
    path = shared_data / "rocprofv3/mi355x-hipkittens-lds/lds_conflict_counter_collection.csv"
    with pytest.raises(InputError) as err:
        read_collection(path)
    text = str(err.value)
    assert "no FLOP counters" in text and "no complete byte counters" in text
    # gfx950 (agent 2 of agent_info) → its read-size HBM counters are the ones asked for.
    assert "TCC_EA0_RDREQ_128B_sum" in text and "SQ_LDS_IDX_ACTIVE" in text
    assert "SQ_INSTS_VALU_MFMA_MOPS_BF16" in text and "\n" not in text


def test_rocprofv3_counters_and_agent(tmp_path: Path) -> None:
    # 2 dispatches × 7 counters, long; agent 1 = gfx942 by Gfx_Target_Version 90402.
    # dispatch 1: fp64 = 64·2·10 = 1,280 FLOP; HBM = 128·4 + 64·(6 − 4) + 32·(2 − 2)
    #   + 64·2 = 512 + 128 + 128 = 768 byte; time 1,000 ns.
    counters = {"SQ_INSTS_VALU_FMA_F64": 10, "TCC_BUBBLE_sum": 4, "TCC_EA0_RDREQ_sum": 6,
                "TCC_EA0_RDREQ_32B_sum": 0, "TCC_EA0_WRREQ_sum": 2, "TCC_EA0_WRREQ_64B_sum": 2}
    rows = ['"Dispatch_Id","Agent_Id","Kernel_Name","Counter_Name","Counter_Value",'
            '"Start_Timestamp","End_Timestamp"']
    for d in (1, 2):
        rows += [f'{d},"Agent 1","k{d}","{name}",{value:e},100,1100'
                 for name, value in counters.items()]
        rows += [f'{d},"Agent 1","k{d}","SQ_INSTS_VALU_{op}_F64",0,100,1100'
                 for op in ("ADD", "MUL", "TRANS")]
    (tmp_path / "run_counter_collection.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "run_agent_info.csv").write_text(
        "Node_Id,Logical_Node_Id,Agent_Type,Gfx_Target_Version,Device_Id,Name,Product_Name\n"
        "0,0,CPU,0,0,EPYC,EPYC\n1,1,GPU,90402,29857,,AMD Instinct MI300X\n")
    w = read_collection(tmp_path)
    assert (w.plan.arch, w.device) == ("gfx942", "MI300X")
    k = w.kernels().row(0, named=True)
    assert (k["flop"], k["precision"], k["bytes_dram"]) == (1_280, "fp64", 768)
    assert k["time_s"] == pytest.approx(1_000e-9)
    assert detect(tmp_path) == "rocprofv3"


def test_integer_kernels_count_op(tmp_path: Path) -> None:
    # int8 MFMA GEMM with an fp32 epilogue: int8-tensor 512·1,000 = 512,000 OP beats
    # fp32 64·(MUL 100) = 6,400 FLOP, so precision int8-tensor and flop = 512,000 OP (the
    # FLOP are not added), mix 512,000 / 518,400 = 98.77 % → 98.8 %, 1.23 % → 1.2 %; an
    # address-only kernel (int32 64·10 = 640, int64 64·5 = 320 OP) has no precision (address
    # arithmetic never decides), mix 66.67 % → 66.7 %, 33.33 % → 33.3 %.
    names = ["SQ_INSTS_VALU_MFMA_MOPS_I8", "SQ_INSTS_VALU_MUL_F32", "SQ_INSTS_VALU_ADD_F32",
             "SQ_INSTS_VALU_FMA_F32", "SQ_INSTS_VALU_TRANS_F32", "SQ_INSTS_VALU_INT32",
             "SQ_INSTS_VALU_INT64", "TCC_EA_RDREQ_sum", "TCC_EA_RDREQ_32B_sum",
             "TCC_EA_WRREQ_sum", "TCC_EA_WRREQ_64B_sum"]
    (tmp_path / "pmc_perf.csv").write_text(
        "Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp," + ",".join(names) + "\n"
        "0,igemm,0,100,1000,100,0,0,0,0,0,10,0,0,0\n"
        "1,index,0,100,0,0,0,0,0,10,5,10,0,0,0\n")
    kernels = read_workload(tmp_path).kernels()
    igemm, index = kernels.iter_rows(named=True)
    assert (igemm["precision"], igemm["flop"]) == ("int8-tensor", 512_000)
    assert igemm["precision_mix"] == "int8-tensor 98.8%, fp32 1.2%"
    assert (index["precision"], index["flop"], index["precision_mix"]) == (
        "", 0, "int32 66.7%, int64 33.3%")  # VALU integer only: bandwidth


def test_arch_and_duplicate_columns() -> None:
    # A later pass's copy (NAME_3) stands in for an absent counter; real names ending in
    # digits are never cut.
    found = canonical_columns(["TCC_EA_RDREQ_sum_3", "SQ_WAVES_LT_64", "SQ_INSTS_VALU_INT32"])
    assert found == {"TCC_EA_RDREQ_sum": "TCC_EA_RDREQ_sum_3",
                     "SQ_INSTS_VALU_INT32": "SQ_INSTS_VALU_INT32"}
    assert arch_from_counters(["TCC_BUBBLE_sum"]) == "gfx942"
    assert arch_from_counters(["TCC_EA0_RDREQ_128B_sum"]) == "gfx950"
    assert arch_from_counters(["TCC_EA_RDREQ_sum"]) is None


def test_gfx950_prefers_read_sizes_else_warns() -> None:
    hbm_sizes = ["TCC_EA0_RDREQ_128B_sum", "TCC_EA0_RDREQ_64B_sum", "TCC_EA0_RDREQ_32B_sum",
                 "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum"]
    assert plan("gfx950", hbm_sizes, "f").levels["HBM"].name.startswith("HBM (read sizes")
    bubble = plan("gfx950", ["TCC_BUBBLE_sum", "TCC_EA0_RDREQ_sum", *hbm_sizes[2:]], "f")
    assert bubble.levels["HBM"].name.startswith("HBM (TCC_BUBBLE")
    assert any("undercounted" in n for n in bubble.notes)


@pytest.mark.shared
def test_cli_from_rocprof_reads_all_formats(shared_data: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "p.csv"
    main(["from-rocprof", str(shared_data / "rocprof/mi250x-laplacian-two-pass"), "-o", str(out)])
    assert pl.read_csv(out).height == 12  # 4 kernels × HBM, L2, L1
    capsys.readouterr()
    with pytest.raises(SystemExit) as code:
        main(["from-rocprof", str(shared_data / "rocprofv3/mi355x-hipkittens-lds")])
    assert code.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("rooflow: error: ") and err.count("\n") == 1


def test_rocprofv3_wave32_agent(tmp_path: Path) -> None:
    # The agent's Wave_Front_Size (rocprof-compute's Wave_Size of this file) sets the lanes:
    # a gfx1100 (RDNA 3) agent at wave32, one dispatch of FMA_F64 10 wavefront instructions:
    #   fp64 = 32·2·10 = 640 FLOP (wave64 would be 1,280); HBM = 128·4 + 64·(6 − 4)
    #   + 32·(2 − 2) + 64·2 = 768 byte (by the counter names: TCC_BUBBLE → gfx942's formula).
    counters = {"SQ_INSTS_VALU_FMA_F64": 10, "SQ_INSTS_VALU_ADD_F64": 0,
                "SQ_INSTS_VALU_MUL_F64": 0, "SQ_INSTS_VALU_TRANS_F64": 0, "TCC_BUBBLE_sum": 4,
                "TCC_EA0_RDREQ_sum": 6, "TCC_EA0_RDREQ_32B_sum": 0, "TCC_EA0_WRREQ_sum": 2,
                "TCC_EA0_WRREQ_64B_sum": 2}
    rows = ["Dispatch_Id,Agent_Id,Kernel_Name,Counter_Name,Counter_Value,Start_Timestamp,"
            "End_Timestamp"]
    rows += [f"1,Agent 1,k,{name},{value},100,1100" for name, value in counters.items()]
    (tmp_path / "run_counter_collection.csv").write_text("\n".join(rows) + "\n")
    info = "Node_Id,Logical_Node_Id,Agent_Type,Wave_Front_Size,Name\n1,1,GPU,{},gfx1100\n"
    (tmp_path / "run_agent_info.csv").write_text(info.format(32))
    w = read_collection(tmp_path)
    k = w.kernels().row(0, named=True)
    assert (k["flop"], k["precision"], k["bytes_dram"]) == (640, "fp64", 768)
    assert any("32 lanes" in note for note in w.notes)
    # Without the column, the architecture's default: gfx1100 → wave32 too.
    (tmp_path / "run_agent_info.csv").write_text(
        "Node_Id,Logical_Node_Id,Agent_Type,Name\n1,1,GPU,gfx1100\n")
    assert read_collection(tmp_path).kernels()["flop"][0] == 640
    (tmp_path / "run_agent_info.csv").write_text(info.format(64))
    assert read_collection(tmp_path).kernels()["flop"][0] == 1_280


def test_rocprof_v1_wave_size_column(tmp_path: Path) -> None:
    # rocprof v1's per-dispatch wave_size: dispatch 0 at 32 lanes, dispatch 1 at 64, each
    # FMA_F32 10 + MUL_F32 4: 32·(2·10 + 4) = 768 and 64·24 = 1,536 FLOP; HBM by
    # FETCH_SIZE 1 + WRITE_SIZE 1 KiB = 2,048 byte each; DurationNs 1,000 ns each.
    names = ["SQ_INSTS_VALU_ADD_F32", "SQ_INSTS_VALU_MUL_F32", "SQ_INSTS_VALU_TRANS_F32",
             "SQ_INSTS_VALU_FMA_F32", "FETCH_SIZE", "WRITE_SIZE"]
    (tmp_path / "results.csv").write_text(
        "Index,KernelName,gpu-id,wave_size," + ",".join(names) + ",DurationNs\n"
        "0,a,0,32,0,4,0,10,1,1,1000\n1,b,0,64,0,4,0,10,1,1,1000\n")
    a, b = read_runs(tmp_path).kernels().iter_rows(named=True)
    assert (a["flop"], b["flop"]) == (768, 1_536)
    assert (a["bytes_dram"], a["time_s"]) == (2_048, pytest.approx(1e-6))
