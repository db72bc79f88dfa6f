"""Omniperf / rocprof-compute workload folders: the roofline formulas checked by hand, presets,
errors (the MI200 sample and the example workload; other GPUs in test_amd_formats.py)."""

from __future__ import annotations

import csv
import logging
import re
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.amd.counters import partition_xcds, roofline_counters
from rooflow.adapters.amd.rocprof import DURATION, read_workload
from rooflow.adapters.amd.rocprof import omniperf_points as rocprof_points
from rooflow.errors import InputError
from rooflow.kinds import detect_kind
from rooflow.points import POINT_SCHEMA
from rooflow.roofs.omniperf import omniperf_preset

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
EXAMPLE = ROOT / "resources" / "rocprof" / "mi210_gemm_triad"


def rocprof_kernels(path: str | Path) -> pl.DataFrame:
    """Per-kernel breakdown of a workload folder (Dispatches.kernels)."""
    return read_workload(path).kernels()


def shared_workload() -> Path:
    path = DATA / "omniperf" / "mi200-dispatch_0_1"
    assert (path / "pmc_perf.csv").is_file(), f"shared test data missing: {path}"
    return path


def write_workload(tmp_path: Path, rows: list[dict], *, drop: tuple[str, ...] = (),
                   arch: str = "gfx90a", extra: tuple[str, ...] = ()) -> Path:
    """A workload folder with one fp32 dispatch per row unless a row overrides counters."""
    columns = ["Kernel_Name", *extra, *roofline_counters(arch), "Start_Timestamp",
               "End_Timestamp"]
    columns = [c for c in columns if c not in drop]
    with (tmp_path / "pmc_perf.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(columns)
        for row in rows:
            base = {"Kernel_Name": "k", "SQ_INSTS_VALU_FMA_F32": 1, "TCC_EA_RDREQ_sum": 2,
                    "TCC_EA0_RDREQ_sum": 2, "Start_Timestamp": 100, "End_Timestamp": 164}
            writer.writerow([(base | row).get(c, 0) for c in columns])
    return tmp_path


def write_sysinfo(folder: Path, **fields: object) -> None:
    """A one-row ``sysinfo.csv`` holding ``fields``."""
    with (folder / "sysinfo.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(fields)
        writer.writerow(fields.values())


# The long (rocpd) pmc_perf.csv: rocprof-compute's COUNTERS_COLLECTION_QUERY columns
# (src/utils/rocpd_data.py, ROCm/rocm-systems projects/rocprofiler-compute @1b1610fc).
ROCPD = ["GPU_ID", "Dispatch_ID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
         "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "Kernel_Name",
         "Start_Timestamp", "End_Timestamp", "Kernel_ID", "Counter_Name", "Counter_Value"]
# Wide columns that are dispatch fields, not counters (and their later passes' _N copies).
NOT_COUNTERS = re.compile(r"(Dispatch_ID|GPU_ID|Queue_ID|PID|TID|Grid_Size|Workgroup_Size|"
                          r"LDS_Per_Workgroup|Scratch_Per_Workitem|Arch_VGPR|Accum_VGPR|SGPR|"
                          r"[Ww]ave_Size|wave_size|obj|Kernel_Name|Kernel_ID|Correlation_ID|"
                          r"XCC_Index|Start_Timestamp|End_Timestamp)(_\d+)?")


def to_long(wide: Path, out: Path) -> int:
    """Write the long (rocpd) form of a wide ``pmc_perf.csv``; the lines per dispatch.

    One line per dispatch × counter in the wide column order, a later pass's ``NAME_N`` copy
    as a second ``NAME`` line after the first pass's lines (as rocpd writes the passes).
    """
    with wide.open(newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0])
    counters = [c for c in header if not NOT_COUNTERS.fullmatch(c)]
    copies = {c: m.group(1) for c in counters
              if (m := re.fullmatch(r"(.+)_\d+", c)) and m.group(1) in header}
    order = [c for c in counters if c not in copies] + list(copies)
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(ROCPD)
        for row in rows:
            fields = [row.get(c, "") for c in ROCPD[:-2]]
            writer.writerows([*fields, copies.get(c, c), row[c]] for c in order)
    return len(order)


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
    assert h["performance"].item() == pytest.approx(137_455_730_688 / 981_760e-9)
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


def test_long_rocpd_table_gives_the_wide_points(tmp_path: Path) -> None:
    # The example workload rewritten as rocpd writes it: 4 dispatches × 30 counters = 120
    # lines. Same counters, same timestamps → the same kernels and points; a kernel's row
    # is the first line of its first dispatch (hgemm: dispatch 1 → line 30 + 1 = 31).
    lines = to_long(EXAMPLE / "pmc_perf.csv", tmp_path / "pmc_perf.csv")
    assert lines == 30
    wide, long = rocprof_kernels(EXAMPLE), rocprof_kernels(tmp_path)
    assert long["row"].to_list() == [1, 31, 61]
    assert long.drop("row").equals(wide.drop("row"))
    hgemm = long.row(1, named=True)
    assert hgemm["flop"] == 137_455_730_688 and hgemm["time_s"] == pytest.approx(981_760e-9)
    columns = [c for c in POINT_SCHEMA if c != "source"]
    assert rocprof_points(tmp_path).select(columns).equals(rocprof_points(EXAMPLE).select(columns))
    # Recognised as a workload by content, folder or file.
    assert detect_kind(tmp_path) == detect_kind(tmp_path / "pmc_perf.csv") == "rocprof"


@pytest.mark.shared
def test_long_rocpd_table_of_a_real_workload(shared_data: Path, tmp_path: Path) -> None:
    # MI300A Fortran workload (6 dispatches, 3 kernels, two passes: GRBM_*_13 copies):
    # its long form gives the wide form's kernels and points.
    source = shared_data / "omniperf/mi300a-fortran-collapse"
    (tmp_path / "sysinfo.csv").write_bytes((source / "sysinfo.csv").read_bytes())
    to_long(source / "pmc_perf.csv", tmp_path / "pmc_perf.csv")
    wide, long = rocprof_kernels(source), rocprof_kernels(tmp_path)
    assert long.height == 3 and long.drop("row").equals(wide.drop("row"))
    columns = [c for c in POINT_SCHEMA if c != "source"]
    assert rocprof_points(tmp_path).select(columns).equals(rocprof_points(source).select(columns))


def test_long_table_passes_and_their_time(tmp_path: Path) -> None:
    # Two dispatches, each measured in two passes (rocpd lines of a pass share its
    # timestamps); 5 lines per pass. Dispatch 0 ("a"): pass 1 900 ns, pass 2 1100 ns; the
    # time is the median of its 10 lines' End − Start = (900 + 1100) / 2 = 1000 ns (the wide
    # table's joined passes: the mean, 1000 ns too). SQ_INSTS_VALU_FMA_F32 is in both
    # passes (10, then 99): the first is taken.
    #   a: fp32 = 64·2·10 = 1,280 FLOP; HBM = 64·RDREQ 4 + 32·(WRREQ 2 − WRREQ_64B 2)
    #      + 64·2 = 384 byte; 1,000 ns
    #   b: fp32 = 64·2·20 = 2,560 FLOP; HBM 384 byte; (2,000 + 2,000) / 2 = 2,000 ns
    first = {"SQ_INSTS_VALU_ADD_F32": 0, "SQ_INSTS_VALU_MUL_F32": 0,
             "SQ_INSTS_VALU_TRANS_F32": 0, "SQ_INSTS_VALU_FMA_F32": 10, "SQ_WAVES": 7}
    second = {"TCC_EA_RDREQ_sum": 4, "TCC_EA_RDREQ_32B_sum": 0, "TCC_EA_WRREQ_sum": 2,
              "TCC_EA_WRREQ_64B_sum": 2, "SQ_INSTS_VALU_FMA_F32": 99}
    lines = ["Dispatch_ID,Kernel_Name,Grid_Size,Start_Timestamp,End_Timestamp,Counter_Name,"
             "Counter_Value"]
    for dispatch, kernel, fma, (t1, t2) in ((0, "a", 10, (900, 1100)),
                                            (1, "b", 20, (2000, 2000))):
        lines += [f"{dispatch},{kernel},256,100,{100 + t1},{n},{fma if 'FMA' in n else v}"
                  for n, v in first.items()]
        lines += [f"{dispatch},{kernel},256,5000,{5000 + t2},{n},{v}"
                  for n, v in second.items()]
    (tmp_path / "pmc_perf.csv").write_text("\n".join(lines) + "\n")
    a, b = rocprof_kernels(tmp_path).iter_rows(named=True)
    assert (a["kernel"], a["flop"], a["bytes_dram"], a["row"]) == ("a", 1_280, 384, 1)
    assert a["time_s"] == pytest.approx(1_000e-9)
    assert (b["kernel"], b["flop"], b["bytes_dram"], b["row"]) == ("b", 2_560, 384, 11)
    assert b["time_s"] == pytest.approx(2_000e-9)
    # A bad value of a counter the formulas read names its own line; one they do not
    # read (SQ_WAVES) is left alone.
    (tmp_path / "pmc_perf.csv").write_text(
        "\n".join([*lines[:3], lines[3].rsplit(",", 1)[0] + ",-3", lines[4],
                   lines[5].rsplit(",", 1)[0] + ",x", *lines[6:]]) + "\n")
    with pytest.raises(InputError) as err:
        rocprof_kernels(tmp_path)
    assert (err.value.row, err.value.column, str(err.value.value)) == (3, "Counter_Value", "-3.0")


def test_equal_timestamps_take_the_time_from_cycles(tmp_path: Path, caplog) -> None:
    # An MI325X (chip_id 29861, gfx942) in SPX: 8 XCDs (rocprof-compute mi_gpu_spec.yaml),
    # although its sysinfo says num_xcd 1 (as the shared MI325X sample does). Dispatch 2 has
    # End = Start, so every dispatch's time comes from its cycles:
    #   time = GRBM_GUI_ACTIVE / num_xcd / max_sclk = 4,200,000 / 8 / 2100 MHz
    #        = 525,000 cycles / 2.1 GHz = 250,000 ns       (dispatch 1: its 64 ns dropped)
    #   fp32 = 64·2·1 = 128 FLOP per dispatch → 256 FLOP / 500,000 ns = 512,000 FLOP/s
    write_workload(tmp_path, [{"GRBM_GUI_ACTIVE": 4_200_000},
                              {"GRBM_GUI_ACTIVE": 4_200_000, "End_Timestamp": 100}],
                   arch="gfx942", extra=("GRBM_GUI_ACTIVE",))
    write_sysinfo(tmp_path, gpu_arch="gfx942", gpu_model="MI300", chip_id=29861,
                  compute_partition="SPX", num_xcd=1, max_sclk=2100, cur_sclk=100)
    k = rocprof_kernels(tmp_path).row(0, named=True)
    assert k["time_s"] == pytest.approx(500_000e-9) and k["flop"] == 256
    with caplog.at_level(logging.WARNING):
        points = rocprof_points(tmp_path)
    assert points["performance"].to_list()[0] == pytest.approx(512_000)
    assert "1 of 2 dispatches have End_Timestamp = Start_Timestamp (first: row 2)" in caplog.text
    assert "GRBM_GUI_ACTIVE / num_xcd 8 / max_sclk 2100 MHz" in caplog.text
    assert "sysinfo num_xcd 1 taken as 8" in caplog.text
    # The same GPU in CPX: one XCD per partition → 4,200,000 / 2100 MHz = 2,000,000 ns.
    write_sysinfo(tmp_path, gpu_arch="gfx942", chip_id=29861, compute_partition="CPX",
                  num_xcd=1, max_sclk=2100)
    assert rocprof_kernels(tmp_path)["time_s"][0] == pytest.approx(2 * 2_000_000e-9)
    # No chip_id nor partition: sysinfo's num_xcd, 6 (MI300A_A1) → 4,200,000 / 6 / 2100 MHz
    # = 333,333.3 ns per dispatch.
    write_sysinfo(tmp_path, gpu_arch="gfx942", gpu_model="MI300A_A1", num_xcd=6,
                  max_sclk=2100)
    assert rocprof_kernels(tmp_path)["time_s"][0] == pytest.approx(2 * 1e6 / 3 * 1e-9)
    # gfx90a without num_xcd: one XCD (pre-MI300); 4,250,000 / 1700 MHz = 2,500,000 ns.
    write_workload(tmp_path, [{"GRBM_GUI_ACTIVE": 4_250_000, "End_Timestamp": 100}],
                   extra=("GRBM_GUI_ACTIVE",))
    write_sysinfo(tmp_path, gpu_arch="gfx90a", max_sclk=1700)
    assert rocprof_kernels(tmp_path)["time_s"][0] == pytest.approx(2_500_000e-9)
    # XCDs per partition: the GPU's split evenly (mi_gpu_spec.yaml num_xcds).
    assert [partition_xcds(n, p) for n, p in (("MI300A_A1", "TPX"), ("MI300X", "qpx"),
                                              ("MI308X", "DPX"), ("MI355X", "CPX"))] == [2, 2, 2, 1]
    assert partition_xcds("MI250X", "SPX") is None and partition_xcds("MI300X", "") is None


@pytest.mark.parametrize(
    ("extra", "sysinfo", "missing"),
    [
        ((), {"gpu_arch": "gfx942", "max_sclk": 2100, "num_xcd": 8},
         "no GRBM_GUI_ACTIVE counter in pmc_perf.csv"),
        (("GRBM_GUI_ACTIVE",), None, "no sysinfo.csv beside it (max_sclk, num_xcd)"),
        (("GRBM_GUI_ACTIVE",), {"gpu_arch": "gfx942", "num_xcd": 8}, "no max_sclk in sysinfo"),
        (("GRBM_GUI_ACTIVE",), {"gpu_arch": "gfx942", "max_sclk": 2100}, "no num_xcd in sysinfo"),
    ],
)
def test_equal_timestamps_without_cycles_is_one_clear_error(
    tmp_path: Path, extra: tuple[str, ...], sysinfo: dict | None, missing: str,
) -> None:
    rows = [{"GRBM_GUI_ACTIVE": 10}, {"GRBM_GUI_ACTIVE": 10, "End_Timestamp": 100}]
    write_workload(tmp_path, rows, arch="gfx942", extra=extra)
    if sysinfo is not None:
        write_sysinfo(tmp_path, **sysinfo)
    with pytest.raises(InputError) as err:
        rocprof_kernels(tmp_path)
    text = str(err.value)
    assert missing in text and "gives no time" in text and "\n" not in text
    assert (err.value.row, err.value.column) == (2, DURATION)


@pytest.mark.shared
def test_real_workload_with_rounded_timestamps(shared_data: Path, tmp_path: Path) -> None:
    # The MI300A workload with every End_Timestamp set to its Start_Timestamp. Dispatch 0
    # (row 1): GRBM_GUI_ACTIVE 5,511,451,314 over num_xcd 6 at max_sclk 2100 MHz:
    #   918,575,219 cycles / 2.1 GHz = 437,416,771 ns, against its timestamps'
    #   4512700567794144 − 4512700137147443 = 430,646,701 ns (+1.6 %: busy cycles around it).
    source = shared_data / "omniperf/mi300a-fortran-collapse"
    (tmp_path / "sysinfo.csv").write_bytes((source / "sysinfo.csv").read_bytes())
    with (source / "pmc_perf.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    with (tmp_path / "pmc_perf.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(row | {"End_Timestamp": row["Start_Timestamp"]} for row in rows)
    timed, cycled = read_workload(source), read_workload(tmp_path)
    assert cycled.frame["time_ns"][0] == pytest.approx(5_511_451_314 / 6 / 2100 * 1e3)
    assert cycled.frame["time_ns"][0] == pytest.approx(437_416_771, abs=1)
    assert timed.frame["time_ns"][0] == 430_646_701
    assert cycled.frame["time_ns"][0] / timed.frame["time_ns"][0] == pytest.approx(1.016, abs=1e-3)
    assert cycled.notes and "num_xcd 6 / max_sclk 2100 MHz" in cycled.notes[0]


def test_wave32_valu_work_by_hand(tmp_path: Path, caplog) -> None:
    # Wave_Size per dispatch (as rocprof-compute writes it): kernel "rdna" ran wave32,
    # "cdna" wave64, each FMA_F32 10 + ADD_F32 5 + INT32 3 wavefront instructions:
    #   rdna: fp32 = 32·(2·10 + 5) = 800 FLOP; int32 = 32·3 = 96 OP
    #   cdna: fp32 = 64·(2·10 + 5) = 1,600 FLOP; int32 = 64·3 = 192 OP
    work = {"SQ_INSTS_VALU_FMA_F32": 10, "SQ_INSTS_VALU_ADD_F32": 5, "SQ_INSTS_VALU_INT32": 3}
    write_workload(tmp_path, [work | {"Kernel_Name": "rdna", "Wave_Size": 32},
                              work | {"Kernel_Name": "cdna", "Wave_Size": 64}],
                   extra=("Wave_Size", "SQ_INSTS_VALU_INT32"))
    rdna, cdna = rocprof_kernels(tmp_path).iter_rows(named=True)
    assert (rdna["flop"], rdna["ops_int32"], rdna["precision"]) == (800, 96, "fp32")
    assert (cdna["flop"], cdna["ops_int32"]) == (1_600, 192)
    with caplog.at_level(logging.WARNING):
        rocprof_points(tmp_path)
    assert "VALU work counted × 32 and 64 lanes per instruction" in caplog.text
    # Without the column: sysinfo wave_size, else the architecture's (gfx1100, RDNA 3:
    # wave32; gfx942: wave64).
    write_workload(tmp_path, [work])
    for info, flop in (({"gpu_arch": "gfx1100", "wave_size": 32}, 800),
                       ({"gpu_arch": "gfx1100"}, 800), ({"gpu_arch": "gfx90a"}, 1_600),
                       ({"gpu_arch": "gfx90a", "wave_size": 32}, 800)):
        write_sysinfo(tmp_path, **info)
        assert rocprof_kernels(tmp_path)["flop"][0] == flop, info
    # The column's empty cell takes the fallback; a size other than 32 or 64 is refused.
    write_workload(tmp_path, [work | {"Wave_Size": ""}, work | {"Wave_Size": 16}],
                   extra=("Wave_Size",))
    with pytest.raises(InputError) as err:
        rocprof_kernels(tmp_path)
    assert (err.value.row, err.value.column, str(err.value.value)) == (2, "Wave_Size", "16.0")
