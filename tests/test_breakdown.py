"""One per-kernel breakdown contract: the same operation counts through every profiler reader
give the same table columns and points; summarize_precisions worked by hand."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.adapters.amd.rocprof import read_workload
from rooflow.adapters.amd.rocprofv1 import read_runs
from rooflow.adapters.amd.rocprofv3 import read_collection
from rooflow.adapters.breakdown import (
    BREAKDOWN_SCHEMA,
    OPS_COLUMNS,
    breakdown_table,
    kernel_points,
    precision_mix,
    summarize_precisions,
)
from rooflow.adapters.intel.unitrace import unitrace_kernels
from rooflow.adapters.ncu.reader import ncu_kernels
from rooflow.errors import InputError
from rooflow.points import PRECISIONS

# One kernel, 1 µs, 1,024 DRAM bytes, with operations fp16-tensor 996·1024, fp32 3·1024 and
# int8-tensor 1·1024 (K = 1024 so every profiler's events-to-operations factor divides):
#   fp16-tensor 1,019,904 = ncu src_fp16 1,019,904 = AMD 512·MOPS_F16 1,992
#                         = unitrace 512·XMX_FP16 1,992
#   fp32        3,072     = ncu 1·fadd 3,072 = AMD 64·ADD_F32 48 = unitrace 32·FP32 96
#   int8-tensor 1,024     = ncu src_int8 1,024 = AMD 512·MOPS_I8 2 = unitrace 1024·XMX_INT8 1
# total 1,024,000 operations: shares 99.6 %, 0.3 %, 0.1 % exactly. fp16-tensor dominates;
# flop = FLOP precisions only = 1,019,904 + 3,072 = 1,022,976 (the int8 OP are another unit).
OPS = {"fp16-tensor": 1_019_904.0, "fp32": 3_072.0, "int8-tensor": 1_024.0}
FLOP = 1_022_976
MIX = "fp16-tensor 99.6%, fp32 0.3%, int8-tensor 0.1%"
AMD = {"SQ_INSTS_VALU_ADD_F32": 48, "SQ_INSTS_VALU_MUL_F32": 0, "SQ_INSTS_VALU_TRANS_F32": 0,
       "SQ_INSTS_VALU_FMA_F32": 0, "SQ_INSTS_VALU_MFMA_MOPS_F16": 1992,
       "SQ_INSTS_VALU_MFMA_MOPS_I8": 2, "FETCH_SIZE": 1, "WRITE_SIZE": 0}  # 1 KiB = 1,024 B


def ncu_export(folder: Path) -> Path:
    """An ``ncu --csv`` details page, metric ids."""
    metrics = [("gpu__time_duration.sum", "nsecond", "1000"), ("dram__bytes.sum", "byte", "1024"),
               ("sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "3072"),
               ("sm__ops_path_tensor_src_fp16.sum", "", "1019904"),
               ("sm__ops_path_tensor_src_int8.sum", "", "1024")]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["ID", "Kernel Name", "Device", "CC", "Section Name", "Metric Name",
                     "Metric Unit", "Metric Value"])
    for name, unit, value in metrics:
        writer.writerow([0, "gemm", 0, "8.0", "Command line profiler metrics", name, unit, value])
    path = folder / "ncu.csv"
    path.write_text(out.getvalue())
    return path


def rocprof_workload(folder: Path) -> Path:
    """A rocprof-compute ``pmc_perf.csv``, one dispatch."""
    header = ["Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp", *AMD]
    (folder / "pmc_perf.csv").write_text(
        ",".join(header) + "\n" + ",".join(map(str, [0, "gemm", 0, 1000, *AMD.values()])) + "\n")
    return folder


def rocprofv1_run(folder: Path) -> Path:
    """A rocprof v1 ``results.csv`` with timestamps."""
    header = ["Index", "KernelName", "DurationNs", *AMD]
    (folder / "results.csv").write_text(
        ",".join(header) + "\n" + ",".join(map(str, [0, "gemm", 1000, *AMD.values()])) + "\n")
    return folder


def rocprofv3_collection(folder: Path) -> Path:
    """A rocprofv3 counter collection (long: one row per counter), no agent info."""
    rows = ["Dispatch_Id,Kernel_Name,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp"]
    rows += [f"1,gemm,{name},{value},0,1000" for name, value in AMD.items()]
    path = folder / "run_counter_collection.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def unitrace_report(folder: Path) -> Path:
    """One unitrace report holding the FLOP and the byte counters."""
    metrics = {"GpuTime[ns]": 1000, "XVE_INST_EXECUTED_FP64[events]": 0,
               "XVE_INST_EXECUTED_FP32[events]": 96, "XVE_INST_EXECUTED_FP16[events]": 0,
               "XVE_INST_EXECUTED_XMX_FP16[events]": 1992,
               "XVE_INST_EXECUTED_XMX_BF16[events]": 0, "XVE_INST_EXECUTED_XMX_INT8[events]": 1,
               "GPU_MEMORY_BYTE_READ[bytes]": 1024, "GPU_MEMORY_BYTE_WRITE[bytes]": 0,
               "L3_BYTE_READ[bytes]": 1024, "L3_BYTE_WRITE[bytes]": 0}
    path = folder / "flops.txt"
    path.write_text("\n".join([
        "== Kernel Metrics ==", "", "Kernel,Device,SubDeviceId," + ",".join(metrics) + ",",
        "gemm,0,0," + ",".join(map(str, metrics.values())) + ","]) + "\n")
    return path


READERS = {  # kind → (builder, per-kernel table of what it built)
    "ncu": (ncu_export, ncu_kernels),
    "rocprof": (rocprof_workload, lambda path: read_workload(path).kernels()),
    "rocprofv1": (rocprofv1_run, lambda path: read_runs(path).kernels()),
    "rocprofv3": (rocprofv3_collection, lambda path: read_collection(path).kernels()),
    "unitrace": (unitrace_report, unitrace_kernels),
}


@pytest.mark.parametrize("kind", READERS)
def test_every_reader_gives_the_same_breakdown_and_points(kind: str, tmp_path: Path) -> None:
    build, kernels_of = READERS[kind]
    path = build(tmp_path)
    kernels = kernels_of(path)
    assert kernels.select(list(BREAKDOWN_SCHEMA)).schema == pl.Schema(BREAKDOWN_SCHEMA)
    k = kernels.row(0, named=True)
    assert (k["kernel"], k["launches"], k["bytes_dram"]) == ("gemm", 1, 1024)
    assert k["time_s"] == pytest.approx(1e-6)  # 1,000 ns · 1e-9: not exactly 1e-6 in binary
    assert {p: k[OPS_COLUMNS[p]] for p in OPS} == OPS
    assert (k["precision"], k["flop"], k["precision_mix"]) == ("fp16-tensor", FLOP, MIX)
    # The counts no reader can see here are null (not measured), never a made-up 0.
    assert k["ops_int32"] is None and k["bytes_l2"] is None
    # The points: AI = 1,022,976 / 1,024 = 999 FLOP/byte; 1,022,976 FLOP / 1 µs.
    dram = load_points(kind, path).filter(pl.col("level") == "DRAM").row(0, named=True)
    assert (dram["precision"], dram["flop"], dram["precision_mix"]) == ("fp16-tensor", FLOP, MIX)
    assert dram["arithmetic_intensity"] == 999
    assert dram["performance"] == pytest.approx(1.022976e12)


def test_summarize_precisions_by_hand() -> None:
    # AMD fp64 kernel with address arithmetic: int32 600, fp64 300, int64 90, fp32 10 of
    # 1,000 operations. int32 is the largest but never decides (address math): fp64, whose
    # unit (FLOP) holds fp64 + fp32 = 310. Shares 60.0, 30.0, 9.0, 1.0 %: exact, no rounding.
    s = summarize_precisions({"int32": 600, "fp64": 300, "int64": 90, "fp32": 10})
    assert s == ("fp64", 310, "int32 60.0%, fp64 30.0%, int64 9.0%, fp32 1.0%")
    # Address arithmetic only (a copy): no precision, flop 0, the mix still names it.
    assert summarize_precisions({"int32": 3, "int64": 2, "fp16": None}) == (
        "", 0, "int32 60.0%, int64 40.0%")
    # int8 MFMA GEMM with an fp32 epilogue: int8-tensor 512,000 OP beats fp32 6,400 FLOP;
    # flop = 512,000 OP (FLOP are another unit). Shares in tenths of a percent:
    # 1000·512,000/518,400 = 987.65 → 987, 1000·6,400/518,400 = 12.35 → 12; the one tenth
    # left goes to the larger remainder (0.65): 98.8 % + 1.2 % = 100.0 %.
    assert summarize_precisions({"fp32": 6_400, "int8-tensor": 512_000}) == (
        "int8-tensor", 512_000, "int8-tensor 98.8%, fp32 1.2%")
    # Thirds: 333.33 tenths each → 333 × 3 = 999, the tenth left goes to the first in
    # PRECISIONS order on equal remainders and shares (fp64), and so does the dominance tie.
    assert summarize_precisions({"fp16": 1, "fp32": 1, "fp64": 1}) == (
        "fp64", 3, "fp64 33.4%, fp32 33.3%, fp16 33.3%")
    # 99,990 / 6 / 4 of 100,000: 999.9, 0.06, 0.04 tenths → 999, 0, 0 and the tenth left to
    # the largest remainder (0.9): 100.0 %; the two small shares round to 0 and are kept as
    # "<0.1%", not dropped.
    assert summarize_precisions({"fp16-tensor": 99_990, "fp32": 6, "fp16": 4}).mix == (
        "fp16-tensor 100.0%, fp32 <0.1%, fp16 <0.1%")
    # One precision: no mix; nothing counted: nothing.
    assert summarize_precisions({"fp32": 5, "fp64": 0}) == ("fp32", 5, "")
    assert summarize_precisions({}) == ("", 0, "")
    with pytest.raises(ValueError, match="unknown precision"):
        summarize_precisions({"fp128": 1})


def test_mix_shares_sum_to_100_and_stay_within_a_tenth() -> None:
    counts = [7, 13, 1, 977, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    ops = dict(zip(PRECISIONS, counts, strict=True))
    items = [item.rsplit(" ", 1) for item in precision_mix(ops).split(", ")]
    shown = {p: 0.0 if v == "<0.1%" else float(v.removesuffix("%")) for p, v in items}
    assert round(sum(shown.values()), 6) == 100.0
    total = sum(counts)
    assert all(abs(shown[p] - 100 * ops[p] / total) < 0.1 for p in ops)


def test_breakdown_table_fills_the_contract_and_refuses_strays() -> None:
    table = breakdown_table(pl.DataFrame({
        "kernel": ["k"], "launches": [2], "row": [1], "time_s": [1e-3], "ops_fp64": [10.0],
        "bytes_dram": [8.0], "launch_id": [5]}))
    assert table.columns == [*BREAKDOWN_SCHEMA, "launch_id"]
    k = table.row(0, named=True)
    assert (k["device"], k["precision"], k["flop"], k["ops_fp32"]) == ("", "fp64", 10, None)
    with pytest.raises(ValueError, match="unknown columns"):
        breakdown_table(table.rename({"bytes_dram": "bytes_hbm"}))


def test_a_rate_that_overflows_is_one_clear_error() -> None:
    """Found by hypothesis: 1e300 FLOP in 1e-306 s overflows FLOP/s to inf (a unit slip)."""
    kernels = breakdown_table(pl.DataFrame({
        "kernel": ["a", "b"], "launches": [1, 1], "row": [1, 2], "ops_fp32": [1e10, 1e300],
        "time_s": [1e-3, 1e-306], "bytes_dram": [1e6, 1e6]}))
    with pytest.raises(InputError, match=r"row 2, column 'performance'.*\[check: finite\]"):
        kernel_points(kernels.with_columns(label=pl.col("kernel")), series="s",
                      source="x.csv")
