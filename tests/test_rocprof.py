"""Omniperf / rocprof-compute workload folders: the roofline formulas checked by hand, presets,
errors (the MI200 sample and the example workload; other GPUs in test_amd_formats.py)."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.amd.counters import roofline_counters
from rooflow.adapters.amd.rocprof import omniperf_kernels as rocprof_kernels
from rooflow.adapters.amd.rocprof import omniperf_points as rocprof_points
from rooflow.errors import InputError
from rooflow.points import POINT_SCHEMA
from rooflow.roofs.omniperf import omniperf_preset

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
EXAMPLE = ROOT / "resources" / "rocprof" / "mi210_gemm_triad"


def shared_workload() -> Path:
    path = DATA / "omniperf" / "mi200-dispatch_0_1"
    assert (path / "pmc_perf.csv").is_file(), f"shared test data missing: {path}"
    return path


def write_workload(tmp_path: Path, rows: list[dict], *, drop: tuple[str, ...] = ()) -> Path:
    """A workload folder with one fp32 dispatch per row unless a row overrides counters."""
    columns = ["Kernel_Name", *roofline_counters("gfx90a"), "Start_Timestamp", "End_Timestamp"]
    columns = [c for c in columns if c not in drop]
    with (tmp_path / "pmc_perf.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(columns)
        for row in rows:
            base = {"Kernel_Name": "k", "SQ_INSTS_VALU_FMA_F32": 1, "TCC_EA_RDREQ_sum": 2,
                    "Start_Timestamp": 100, "End_Timestamp": 164}
            writer.writerow([(base | row).get(c, 0) for c in columns])
    return tmp_path


@pytest.mark.shared
def test_real_vcopy_workload_by_hand() -> None:
    # vecCopy, dispatches 0 and 1 (pmc_perf.csv rows 1-2); every F16/F32/F64 VALU and MFMA
    # counter is 0: its only operations are integer (address arithmetic).
    #   int32 = 64·SQ_INSTS_VALU_INT32 = 64·(114,688 + 114,688)              = 14,680,064 OP
    #   int8-tensor = 512·SQ_INSTS_VALU_MFMA_MOPS_I8 = 0; int64 = 0
    #   LDS  = 32·4·(SQ_LDS_IDX_ACTIVE 0 − SQ_LDS_BANK_CONFLICT 0)            = 0
    #   L1   = 64·TCP_TOTAL_CACHE_ACCESSES_sum = 64·(524,288 + 524,288)       = 67,108,864
    #   L2   = 64·(READ 131,072 + WRITE 131,072 + atomics 0), per dispatch
    #        = 64·262,144·2                                                   = 33,554,432
    #   HBM, dispatch 0: 32·RDREQ_32B 0 + 64·(RDREQ 131,081 − 0)
    #                    + 32·(WRREQ 131,072 − WRREQ_64B 131,072) + 64·131,072 = 16,777,792
    #        dispatch 1: 64·131,073 + 32·(91,078 − 91,078) + 64·91,078         = 14,217,664
    #        sum                                                              = 30,995,456
    #   time = (1412189920601635 − 1412189920581155) + (1412189920636515 − 1412189920620835)
    #        = 20,480 + 15,680 ns = 36,160 ns
    kernels = rocprof_kernels(shared_workload())
    assert kernels.height == 1
    k = kernels.row(0, named=True)
    assert k["kernel"] == "vecCopy(double*, double*, double*, int, int) [clone .kd]"
    assert (k["launches"], k["row"], k["device"]) == (2, 1, "MI200")
    assert (k["ops_int32"], k["ops_int64"], k["ops_int8_tensor"], k["ops_fp64"]) == (
        14_680_064, 0, 0, 0)
    # Integer (address) work only: a copy, kept as bandwidth-only rows (flop 0).
    assert (k["precision"], k["flop"], k["precision_mix"]) == ("", 0, "")
    assert (k["bytes_lds"], k["bytes_l1"], k["bytes_l2"], k["bytes_dram"]) == (
        0, 67_108_864, 33_554_432, 30_995_456)
    assert k["time_s"] == pytest.approx(36_160e-9)
    # One point per level with traffic (LDS has none); intensity in OP/byte.
    points = rocprof_points(shared_workload())
    # AMD calls device memory HBM; points use the vocabulary's DRAM (rooflow.levels).
    assert points["level"].to_list() == ["DRAM", "L2", "L1"]
    assert points["bytes"].to_list() == [30_995_456, 33_554_432, 67_108_864]
    assert set(points["precision"]) == {""} and set(points["device"]) == {"MI200"}
    assert points["flop"].to_list() == [0, 0, 0]
    assert points["arithmetic_intensity"].is_null().all()


@pytest.mark.shared
def test_real_roofline_csv_preset() -> None:
    path = shared_workload() / "roofline.csv"
    # device 0: HBMBw 1388.8433 GB/s, FP32Flops 20947.432 GFLOP/s = 20.947432 TFLOP/s,
    # MFMAF16Flops 164937.09 GFLOP/s = 164.93709 TFLOP/s.
    preset = omniperf_preset(path)
    assert preset["memory"] == {"HBM": 1388.8433, "L2": 5018.3813, "L1": 9227.8584,
                                "LDS": 17717.145}
    assert preset["compute"]["fp32"] == pytest.approx(20.947432)
    assert preset["compute"]["fp16-tensor"] == pytest.approx(164.93709)
    assert set(preset["compute"]) == {"fp32", "fp64", "bf16-tensor", "fp16-tensor",
                                      "fp32-matrix", "fp64-tensor", "int8-tensor"}
    # MFMAI8Ops 166424.47 GOP/s → int8-tensor 166.42447 TOP/s (an integer roof).
    assert preset["compute"]["int8-tensor"] == pytest.approx(166.42447)
    assert (preset["default_compute"], preset["default_memory"], preset["empirical"]) == (
        "fp32", "HBM", True)
    assert "device 0" in preset["name"] and str(path) in preset["source"]
    assert omniperf_preset(path, key=3)["memory"]["HBM"] == 1389.2191
    with pytest.raises(InputError, match="no such device; devices: 0, 1, 2, 3"):
        omniperf_preset(path, key="7")


def test_example_workload_by_hand() -> None:
    kernels = rocprof_kernels(EXAMPLE)
    dgemm, hgemm, triad = kernels.iter_rows(named=True)
    # hgemm_mfma_kernel, dispatch 1:
    #   MFMA fp16 = 512·SQ_INSTS_VALU_MFMA_MOPS_F16 = 512·268,435,456     = 137,438,953,472
    #   VALU fp32 = 64·SQ_INSTS_VALU_MUL_F32        = 64·262,144          =      16,777,216
    #   LDS  = 128·(IDX_ACTIVE 25,165,824 − BANK_CONFLICT 786,432)        =   3,120,562,176
    #   L1   = 64·TCP_TOTAL_CACHE_ACCESSES 50,331,648                     =   3,221,225,472
    #   L2   = 64·(READ 12,582,912 + WRITE 1,048,576)                     =     872,415,232
    #   HBM  = 64·RDREQ 2,097,152 + 64·WRREQ_64B 1,048,576                =     201,326,592
    #   time = 2000002292480 − 2000001310720 = 981,760 ns
    assert hgemm["ops_fp16_tensor"] == 137_438_953_472 and hgemm["ops_fp32"] == 16_777_216
    assert hgemm["flop"] == 137_455_730_688 and hgemm["precision"] == "fp16-tensor"
    assert (hgemm["bytes_lds"], hgemm["bytes_l1"], hgemm["bytes_l2"], hgemm["bytes_dram"]) == (
        3_120_562_176, 3_221_225_472, 872_415_232, 201_326_592)
    assert hgemm["time_s"] == pytest.approx(981_760e-9)
    # dgemm_valu_kernel: fp64 = 64·(MUL 65,536 + 2·FMA 134,217,728) = 17,184,063,488.
    assert dgemm["ops_fp64"] == 17_184_063_488 and dgemm["precision"] == "fp64"
    # stream_triad, dispatches 2 and 3: fp64 = 2 · 64·2·524,288 = 134,217,728;
    # HBM = 64·8,388,610 + 64·4,194,304 = 805,306,496 and
    #       64·8,388,608 + 32·(4,194,560 − 4,194,048) + 64·4,194,048 = 805,306,368.
    assert triad["launches"] == 2 and triad["flop"] == 134_217_728
    assert triad["bytes_dram"] == 805_306_496 + 805_306_368 and triad["bytes_lds"] == 0

    points = rocprof_points(EXAMPLE)
    assert points.schema == pl.Schema(POINT_SCHEMA)
    # 3 kernels × (HBM, L2, L1, LDS), but the triad moves no LDS bytes: 11 points.
    assert points.height == 11
    assert points.filter(pl.col("kernel") == triad["kernel"])["level"].to_list() == [
        "DRAM", "L2", "L1"]
    h = points.filter((pl.col("kernel") == hgemm["kernel"]) & (pl.col("level") == "DRAM"))
    # AI = 137,455,730,688 / 201,326,592 = 682.75 FLOP/byte; 137,455,730,688 / 981,760 ns.
    assert h["arithmetic_intensity"].item() == pytest.approx(682.75)
    assert h["flop_per_s"].item() == pytest.approx(137_455_730_688 / 981_760e-9)
    assert set(points["series"]) == {"rocprof"} and set(points["bytes_model"]) == {"measured"}


def test_example_roofline_csv() -> None:
    preset = omniperf_preset(EXAMPLE / "roofline.csv")
    assert preset["memory"]["HBM"] == 1340.5
    assert preset["compute"]["bf16-tensor"] == pytest.approx(162.3405)


def test_missing_counters_are_all_listed(tmp_path: Path) -> None:
    # VALU F32 without its FMA counter and HBM without WRREQ_64B: both named, one error.
    drop = ("SQ_INSTS_VALU_FMA_F32", "TCC_EA_WRREQ_64B_sum")
    with pytest.raises(InputError) as err:
        rocprof_kernels(write_workload(tmp_path, [{}], drop=drop))
    assert all(name in str(err.value) for name in drop)
    assert err.value.check == "required counters"


def test_missing_timestamp_column(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="lacks column.*End_Timestamp"):
        rocprof_kernels(write_workload(tmp_path, [{}], drop=("End_Timestamp",)))


def test_absent_precision_is_noted_not_invented(tmp_path: Path, caplog) -> None:
    # No MFMA BF16 counter at all: the other precisions still count, and the log says so.
    k = rocprof_kernels(write_workload(tmp_path, [{}], drop=("SQ_INSTS_VALU_MFMA_MOPS_BF16",)))
    assert k["ops_bf16_tensor"][0] is None and k["flop"][0] == 128  # null: not measured
    rocprof_points(tmp_path)
    assert "MFMA BF16" in caplog.text


def test_legacy_column_names_and_optional_integer_counters(tmp_path: Path) -> None:
    # 64·2·1 fp32 FMA = 128 FLOP; HBM 64·2 = 128 byte; 64 ns.
    path = write_workload(tmp_path, [{}])
    text = (path / "pmc_perf.csv").read_text()
    (path / "pmc_perf.csv").write_text(
        text.replace("Kernel_Name", "KernelName").replace("Start_Timestamp", "BeginNs")
        .replace("End_Timestamp", "EndNs"))
    k = rocprof_kernels(path).row(0, named=True)
    assert (k["flop"], k["bytes_dram"], k["precision"]) == (128, 128, "fp32")
    assert k["time_s"] == pytest.approx(64e-9)
    assert k["ops_int32"] is None and k["ops_int8_tensor"] is None


@pytest.mark.parametrize(
    ("row", "column", "value"),
    [
        ({"TCP_TCC_READ_REQ_sum": -1}, "TCP_TCC_READ_REQ_sum", "-1.0"),
        ({"TCP_TCC_READ_REQ_sum": "many"}, "TCP_TCC_READ_REQ_sum", "many"),
        ({"End_Timestamp": 100}, "End_Timestamp - Start_Timestamp", "0.0"),
        ({"Kernel_Name": ""}, "Kernel_Name", None),
    ],
)
def test_bad_dispatch_rows(tmp_path: Path, row: dict, column: str, value: object) -> None:
    with pytest.raises(InputError) as err:
        rocprof_kernels(write_workload(tmp_path, [{}, row]))
    assert (err.value.row, err.value.column) == (2, column)
    if value is not None:
        assert str(err.value.value) == value


def test_bad_roofline_csv(tmp_path: Path) -> None:
    text = (EXAMPLE / "roofline.csv").read_text().splitlines()
    (tmp_path / "roofline.csv").write_text(text[0] + "\n" + text[1].replace("1340.5", "0", 1))
    with pytest.raises(InputError) as err:
        omniperf_preset(tmp_path / "roofline.csv")
    assert (err.value.row, err.value.column) == (1, "HBMBw")
    (tmp_path / "roofline.csv").write_text("device,HBMBw\n0,1\n")
    with pytest.raises(InputError, match="lacks column"):
        omniperf_preset(tmp_path / "roofline.csv")


def test_missing_workload_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        rocprof_points(tmp_path)
