"""Nsight Compute ingest: layouts, units, the NERSC FLOP/byte/time formulas, errors."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.ncu.reader import KERNEL_COLUMNS, ncu_kernels, ncu_points, read_ncu
from rooflow.errors import InputError
from rooflow.formats.units import number, to_base_units
from rooflow.points import PER_CALL_SCHEMA, POINT_SCHEMA

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
EXAMPLE = ROOT / "resources" / "ncu" / "a100_dgemm_triad_hgemm.csv"
B200 = "torch_sdpa_flash__gqa_bf16_b64_ctx4k_p64.ncu.csv"


def shared(*parts: str) -> Path:
    path = DATA.joinpath(*parts)
    assert path.is_file(), f"shared test data missing: {path}"
    return path


SASS = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
MODERN = ["ID", "Process ID", "Kernel Name", "Context", "Stream", "CC", "Section Name",
          "Body Item Label", "Metric Name", "Metric Unit", "Metric Value", "Rule Name"]
OLD = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
       "Context", "Stream", "Section Name", "Metric Name", "Metric Unit", "Metric Value"]


def metrics(**overrides: tuple[str, str]) -> dict[str, tuple[str, str]]:
    """A complete metric set (unit, value) of one launch; FLOP = 2·10 + 5 + 3 = 28 (fp64)."""
    values = {SASS.format(p + op): ("inst", "0") for p in "dfh" for op in ("fma", "mul", "add")}
    values |= {
        SASS.format("dfma"): ("inst", "10"), SASS.format("dmul"): ("inst", "5"),
        SASS.format("dadd"): ("inst", "3"),
        "sm__inst_executed_pipe_tensor.sum": ("inst", "0"),
        "dram__bytes.sum": ("byte", "14"), "gpu__time_duration.sum": ("nsecond", "2"),
    }
    return values | overrides


def write_long(tmp_path: Path, launches: list[tuple[str, str, dict]], header=MODERN) -> Path:
    """A details-page export; launches = (ID, kernel, metrics)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    for launch, kernel, values in launches:
        for name, (unit, value) in values.items():
            cells = {"ID": launch, "Kernel Name": kernel, "CC": "8.0", "Metric Name": name,
                     "Metric Unit": unit, "Metric Value": value}
            writer.writerow([cells.get(column, "") for column in header])
    path = tmp_path / "export.csv"
    path.write_text("==PROF== Connected to process 1 (/bin/app)\n" + out.getvalue())
    return path


@pytest.mark.shared
def test_nersc_gpp_known_values() -> None:
    # output.csv, kernel sigma_gpp_gpu_29 (one launch, CC 8.9), values from the file:
    #   dfma 734,774,600,586  dmul 371,957,323,851  dadd 122,305,685,313
    #   ffma  24,541,362,358  fmul/fadd/h*/tensor 0
    #   fp64 FLOP = 2·734,774,600,586 + 371,957,323,851 + 122,305,685,313 = 1,963,812,210,336
    #   fp32 FLOP = 2·24,541,362,358                                       =    49,082,724,716
    #   FLOP      = 2,012,894,935,052 ≈ 2.013e12
    #   mix: fp64 1,963,812,210,336 / 2,012,894,935,052 = 97.56 % → 97.6 %, fp32 2.44 % → 2.4 %
    #   time = sm__cycles_elapsed.avg / .per_second = 36,873,068,823 / 1,619,726,202.90 Hz
    #        = 22.765 s
    #   AI DRAM = 2,012,894,935,052 / 134,957,158,144 (dram__bytes)    = 14.915 FLOP/byte
    #   AI L2   = 2,012,894,935,052 / 225,714,841,568 (lts__t_bytes)   =  8.918 FLOP/byte
    #   AI L1   = 2,012,894,935,052 / 455,104,804,320 (l1tex__t_bytes) =  4.423 FLOP/byte
    #   performance = 2.013e12 FLOP / 22.765 s = 88.4 GFLOP/s
    path = shared("ncu", "nersc-gpp", "output.csv")
    kernels = ncu_kernels(path)
    assert kernels.columns == list(KERNEL_COLUMNS)
    k = kernels.row(0, named=True)
    assert (k["kernel"], k["launches"], k["cc"], k["precision"]) == (
        "sigma_gpp_gpu_29", 1, "8.9", "fp64")
    assert k["ops_fp64"] == 1_963_812_210_336
    assert k["ops_fp32"] == 49_082_724_716
    assert k["ops_fp16"] == k["ops_fp16_tensor"] == 0
    assert k["precision_mix"] == "fp64 97.6%, fp32 2.4%"
    assert k["flop"] == 2_012_894_935_052
    assert k["time_s"] == pytest.approx(22.765, abs=5e-4)

    points = ncu_points(path)
    # one launch: calls 1, every per-call time the kernel's, no standard deviation
    assert points.schema == pl.Schema({**POINT_SCHEMA, **PER_CALL_SCHEMA})
    assert points["calls"].to_list() == [1] * 3
    assert points["time_per_call_median_s"].to_list() == pytest.approx([22.765] * 3, abs=5e-4)
    assert points["time_per_call_std_s"].to_list() == [None] * 3
    assert points["level"].to_list() == ["DRAM", "L2", "L1"]
    assert points["arithmetic_intensity"].to_list() == pytest.approx(
        [14.915, 8.918, 4.423], abs=5e-4)
    assert points["performance"].to_list() == pytest.approx([88.4e9] * 3, rel=1e-3)
    assert set(points["series"]) == {"ncu"} and set(points["bytes_model"]) == {"measured"}
    assert set(points["label"]) == {"sigma_gpp_gpu_29"} and set(points["precision"]) == {"fp64"}
    assert points["source"][0] == str(path)


@pytest.mark.shared
def test_export_after_application_output_parses() -> None:
    # output1.csv starts with 7 lines of program output and ==PROF== lines.
    # fp64 FLOP = 2·817,773,953,820 + 803,017,623,077 + 158,180,752,242 = 2,596,746,282,959
    # time = 49,398,007,062.67 cycle / 1,619,999,997.89 Hz = 30.4926 s
    k = ncu_kernels(shared("ncu", "nersc-gpp", "output1.csv")).row(0, named=True)
    assert k["kernel"] == "sigma_gpp_gpu_34"
    assert k["flop"] == 2_596_746_282_959
    assert k["time_s"] == pytest.approx(49_398_007_062.67 / 1_619_999_997.89)
    assert k["bytes_dram"] == 516_327_794_816


@pytest.mark.shared
def test_failed_profile_is_rejected_naming_kernel_and_metric() -> None:
    path = shared("ncu", "nersc-gpp", "output8.csv")
    with pytest.raises(InputError) as err:
        ncu_points(path)
    text = str(err.value)
    assert "sigma_gpp_gpu_39" in text and "dram__bytes.sum" in text and "'nan'" in text
    assert "failed or incomplete profile" in text
    assert "the profiler reported: ==ERROR== LaunchFailed" in text  # its preamble
    assert err.value.row == 1 and "\n" not in text


@pytest.mark.shared
def test_raw_wide_layout_and_its_units_row() -> None:
    table = read_ncu(shared("ncu", "raw-wide-b200", B200))
    assert table["launch"].n_unique() == 16
    time = table.filter(pl.col("metric") == "gpu__time_duration.sum").sort("launch")
    # First launch: gpu__time_duration.sum = 687488, units row "ns" → 687,488e-9 s.
    first = time.row(0, named=True)
    assert (first["row"], first["launch"], first["unit"], first["text"]) == (
        1, 0, "second", "687488")
    assert first["value"] == pytest.approx(687_488e-9)
    assert first["cc"] == "10.0" and first["kernel"].startswith("void flash_fwd_kernel<")
    name = table.filter(pl.col("metric") == "device__attribute_display_name").row(0, named=True)
    assert name["text"] == "NVIDIA B200" and name["value"] is None


@pytest.mark.shared
def test_raw_wide_export_without_roofline_metrics_lists_them_all() -> None:
    with pytest.raises(InputError) as err:
        ncu_kernels(shared("ncu", "raw-wide-b200", B200))
    text = str(err.value)
    for metric in ("dram__bytes.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum",
                   "sm__sass_thread_inst_executed_op_dfma|mul|add_pred_on.sum",
                   "sm__sass_thread_inst_executed_op_hfma|mul|add_pred_on.sum",
                   "sm__inst_executed_pipe_tensor.sum", "sm__ops_path_tensor_src_"):
        assert metric in text
    assert "gpu__time_duration" not in text  # present in the export
    assert err.value.check == "required metrics"


def test_example_resource() -> None:
    kernels = ncu_kernels(EXAMPLE)
    assert kernels["kernel"].str.extract(r"^(\w+)").to_list() == [
        "dgemm_nn_kernel", "stream_triad", "ampere_h16816gemm_128x128_ldg8_stages_64x3_nn"]
    dgemm, triad, hgemm = kernels.iter_rows(named=True)
    # dgemm: 2·68,719,476,736 dfma + 16,777,216 dmul + 16,777,216 dadd = 137,472,507,904;
    # gpu__time_duration 15.62 msecond (preferred to the cycle pair) = 0.01562 s;
    # dram 1.21 Gbyte = 1.21e9 byte → AI 113.61 FLOP/byte.
    assert dgemm["flop"] == 137_472_507_904 and dgemm["precision"] == "fp64"
    assert dgemm["time_s"] == pytest.approx(0.01562)
    assert dgemm["bytes_dram"] == pytest.approx(1.21e9)
    # triad, launches 1 and 3: FLOP 2·(2·67,108,864) = 268,435,456;
    # time 1.16 msecond + "1,172.48" usecond = 0.00233248 s;
    # dram 1,610,612,736 byte + 1.62 Gbyte = 3,230,612,736 byte.
    assert (triad["launches"], triad["launch_id"]) == (2, 1)
    assert triad["flop"] == 268_435_456
    assert triad["time_s"] == pytest.approx(0.00233248)
    assert triad["bytes_dram"] == pytest.approx(3_230_612_736)
    # hgemm: op-path counter sm__ops_path_tensor_src_fp16_dst_fp32 = 137,438,953,472 FLOP
    # (used instead of 33,554,432 tensor inst × factor) + fp32 2·16,777,216 = 33,554,432.
    assert hgemm["ops_fp16_tensor"] == 137_438_953_472 and hgemm["ops_fp32"] == 33_554_432
    assert hgemm["precision"] == "fp16-tensor"
    assert ncu_kernels(EXAMPLE, tensor_flop_per_inst={"8.0": 1.0})["flop"].to_list() == (
        kernels["flop"].to_list())

    points = ncu_points(EXAMPLE)
    assert points.height == 9 and points["row"].to_list() == [0] * 9
    assert points["kernel"].unique(maintain_order=True).to_list() == kernels["kernel"].to_list()

    per_launch = ncu_points(EXAMPLE, per_launch=True)
    assert per_launch.height == 12
    labels = per_launch["label"].unique(maintain_order=True).to_list()
    assert labels[1].startswith("stream_triad(") and labels[1].endswith(" [launch 1]")
    assert labels[3].endswith(" [launch 3]")


def test_tensor_factor_is_looked_up_by_compute_capability(tmp_path: Path) -> None:
    # 1,000 tensor-pipe instructions on CC 8.0 and no op-path counters: FLOP per
    # instruction is unknown for CC 8.0 (HMMA.16816 = 4096, HMMA.1688 = 2048), so an error
    # names the counters to collect; a factor for "8.0" or "default" fixes it; plus 28 fp64.
    path = write_long(tmp_path, [("0", "mma", metrics(**{
        "sm__inst_executed_pipe_tensor.sum": ("inst", "1,000")}))])
    with pytest.raises(InputError) as err:
        ncu_kernels(path)
    assert "sm__ops_path_tensor_" in str(err.value) and "tensor_flop_per_inst" in str(err.value)
    assert err.value.check == "tensor FLOP" and "\n" not in str(err.value)
    with pytest.raises(InputError):
        ncu_kernels(path, tensor_flop_per_inst={"9.0": 1})
    assert ncu_kernels(path, tensor_flop_per_inst={"default": 4096})[
        "ops_fp16_tensor"].item() == 4_096_000
    k = ncu_kernels(path, tensor_flop_per_inst={"8.0": 2048, "default": 1}).row(0, named=True)
    assert (k["ops_fp16_tensor"], k["flop"], k["precision"]) == (2_048_000, 2_048_028,
                                                                   "fp16-tensor")
    # fp64 28 / 2,048,028 = 0.0014%: under a tenth of a percent, named all the same.
    assert k["precision_mix"] == "fp16-tensor 100.0%, fp64 <0.1%"


def test_tensor_factor_known_for_volta(tmp_path: Path) -> None:
    # CC 7.0: 512 FLOP per HMMA instruction (NERSC method) without configuration;
    # a CC-specific setting overrides it, "default" does not.
    header = MODERN
    path = write_long(tmp_path, [("0", "mma", metrics(**{
        "sm__inst_executed_pipe_tensor.sum": ("inst", "1,000")}))], header=header)
    path.write_text(path.read_text().replace('"8.0"', '"7.0"'))
    assert ncu_kernels(path)["ops_fp16_tensor"].item() == 512_000
    assert ncu_kernels(path, tensor_flop_per_inst={"default": 1})[
        "ops_fp16_tensor"].item() == 512_000
    assert ncu_kernels(path, tensor_flop_per_inst={"7.0": 1024})[
        "ops_fp16_tensor"].item() == 1_024_000


def test_2020_header_units_and_split_dram_bytes(tmp_path: Path) -> None:
    # No CC column; dram read 1.5 Kbyte + write 0.5 Kbyte = 2,000 byte; time 4 usecond;
    # FLOP 28 → AI 0.014 FLOP/byte, 7e6 FLOP/s. Two launches of one kernel sum.
    values = metrics(**{"gpu__time_duration.sum": ("usecond", "4"),
                        "dram__bytes_read.sum": ("Kbyte", "1.5"),
                        "dram__bytes_write.sum": ("Kbyte", "0.5")})
    del values["dram__bytes.sum"]
    path = write_long(tmp_path, [("0", "k", values), ("1", "k", values)], header=OLD)
    k = ncu_kernels(path).row(0, named=True)
    assert (k["cc"], k["launches"], k["flop"]) == ("", 2, 56)
    assert k["bytes_dram"] == pytest.approx(4000) and k["time_s"] == pytest.approx(8e-6)
    assert k["bytes_l2"] is None and k["bytes_l1"] is None
    point = ncu_points(path).row(0, named=True)
    assert point["arithmetic_intensity"] == pytest.approx(0.014)
    assert point["performance"] == pytest.approx(7e6)


@pytest.mark.parametrize(
    ("override", "check", "fragment"),
    [
        ({"dram__bytes.sum": ("%", "14")}, "unit", "is in '%'"),
        # n/a: not measured for this launch, so the kernel has no bytes at any level
        ({"dram__bytes.sum": ("byte", "n/a")}, "required metrics", "no bytes at any memory"),
        ({"dram__bytes.sum": ("byte", "fourteen")}, "numeric", "is not a number"),
        ({"dram__bytes.sum": ("byte", "-14")}, ">= 0", "is negative"),
        ({"gpu__time_duration.sum": ("nsecond", "0")}, "time > 0", "no positive time"),
        ({"gpu__time_duration.sum": ("%", "2")}, "unit", "is in '%'"),
    ],
)
def test_bad_metric_values(tmp_path: Path, override: dict, check: str, fragment: str) -> None:
    path = write_long(tmp_path, [("0", "k", metrics(**override))])
    with pytest.raises(InputError) as err:
        ncu_kernels(path)
    assert err.value.check == check and fragment in str(err.value)
    assert "kernel 'k'" in str(err.value) and err.value.row is not None


def test_metric_absent_for_one_launch(tmp_path: Path) -> None:
    # Launch 1 of kernel k has no DRAM bytes: k's DRAM bytes are unknown, so k (its only
    # level) cannot be placed; per launch, launch 0 is (28 FLOP / 14 byte = AI 2).
    partial = metrics()
    del partial["dram__bytes.sum"]
    path = write_long(tmp_path, [("0", "k", metrics()), ("1", "k", partial)])
    with pytest.raises(InputError, match=r"launch 1\): no bytes at any memory level.*dram"):
        ncu_kernels(path)
    said: list[str] = []
    points = ncu_points(path, per_launch=True, log=said.append)
    assert points["label"].to_list() == ["k [launch 0]"]
    assert points["arithmetic_intensity"].to_list() == [2.0]
    assert [s for s in said if "left out" in s] == [
        f"{path}: left out: kernel 'k' (launch 1): no bytes at any memory level (none of "
        "them has a value here): collect DRAM dram__bytes.sum"]


def test_not_an_ncu_export(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="no Nsight Compute table"):
        read_ncu(path)
    with pytest.raises(InputError, match="file not found"):
        read_ncu(tmp_path / "missing.csv")


def test_bad_launch_id_is_reported_with_its_row(tmp_path: Path) -> None:
    path = write_long(tmp_path, [("0", "k", metrics()), ("x1", "k", metrics())])
    with pytest.raises(InputError) as err:
        read_ncu(path)
    assert err.value.column == "ID" and err.value.value == "x1"
    assert err.value.row == len(metrics()) + 1


def test_units_to_base() -> None:
    frame = pl.DataFrame({
        "text": ["1,234.5", "2", "3", "4", "5", "6", "n/a", "7", "8.00", "2.5", "3"],
        "unit": ["byte", "Kbyte", "Mbyte", "usecond", "cycle/nsecond", "Mhz", "ms", "%",
                 "Gbyte/second", "cycle/usecond", "Kbyte/cycle"],
    }).with_columns(number(pl.col("text")).alias("value"))
    out = to_base_units(frame)
    assert out["value"].to_list() == pytest.approx(
        [1234.5, 2e3, 3e6, 4e-6, 5e9, 6e6, None, 7, 8e9, 2.5e6, 3e3], nan_ok=True)
    assert out["unit"].to_list() == [
        "byte", "byte", "byte", "second", "hz", "hz", "second", "%", "byte/second", "hz",
        "byte/cycle"]


def test_per_call_statistics_of_three_launches(tmp_path: Path) -> None:
    # Three launches of kernel k, 1, 2 and 6 ms (gpu__time_duration.sum):
    #   calls 3; mean (1 + 2 + 6) / 3 = 3 ms; median 2 ms; min 1 ms; max 6 ms;
    #   std (ddof 1) = sqrt(((1-3)² + (2-3)² + (6-3)²) / (3 - 1)) = sqrt(14 / 2)
    #                = sqrt(7) = 2.6458 ms
    launches = [(str(i), "k", metrics(**{"gpu__time_duration.sum": ("msecond", ms)}))
                for i, ms in enumerate(("1", "2", "6"))]
    path = write_long(tmp_path, launches)
    k = ncu_kernels(path).row(0, named=True)
    assert k["launches"] == 3 and k["time_s"] == pytest.approx(9e-3)
    assert (k["time_per_call_s"], k["time_per_call_median_s"], k["time_per_call_min_s"],
            k["time_per_call_max_s"]) == pytest.approx((3e-3, 2e-3, 1e-3, 6e-3))
    assert k["time_per_call_std_s"] == pytest.approx(2.6458e-3, abs=1e-7)
    point = ncu_points(path).row(0, named=True)
    assert point["calls"] == 3
    assert point["time_per_call_std_s"] == pytest.approx(2.6458e-3, abs=1e-7)
    # per launch: each row is one call, its own time, no standard deviation
    rows = ncu_points(path, per_launch=True)
    assert rows["calls"].to_list() == [1, 1, 1]
    assert rows["time_per_call_s"].to_list() == pytest.approx([1e-3, 2e-3, 6e-3])
    assert rows["time_per_call_std_s"].to_list() == [None, None, None]
