"""Intel unitrace ingest: pti-gpu roofline formulas by hand, device config preset, errors."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooflow.adapters import load_points
from rooflow.adapters.intel.sniff import unitrace as sniff
from rooflow.adapters.intel.unitrace import unitrace_kernels, unitrace_points
from rooflow.cli.main import main
from rooflow.errors import InputError
from rooflow.points import POINT_SCHEMA, check_points
from rooflow.roofs import load_preset, measured_source
from rooflow.roofs.intel_config import intel_preset
from rooflow.roofs.preset import preset_from_mapping

HGEMM = "hgemm_nocopy_nn_64x40_4x8[SIMD16 {56; 1; 1} {64; 8; 1}]"
BINARY = "binary_test[SIMD16 {1; 1; 1} {4; 2; 1}]"
FLOP_HEADER = ["GpuTime[ns]", "XVE_INST_EXECUTED_FP16[events]", "XVE_INST_EXECUTED_FP32[events]",
               "XVE_INST_EXECUTED_FP64[events]", "XVE_INST_EXECUTED_XMX_INT8[events]",
               "XVE_INST_EXECUTED_XMX_FP16[events]", "XVE_INST_EXECUTED_XMX_BF16[events]"]
BYTE_HEADER = ["GpuTime[ns]", "L3_BYTE_READ[bytes]", "L3_BYTE_WRITE[bytes]",
               "GPU_MEMORY_BYTE_READ[bytes]", "GPU_MEMORY_BYTE_WRITE[bytes]",
               "SLM_BYTE_READ[bytes]", "SLM_BYTE_WRITE[bytes]"]


@pytest.fixture(scope="module")
def sample(shared_data) -> dict[str, Path]:
    folder = shared_data / "intel" / "unitrace-pvc-gemm-fp16"
    return {"flops": folder / "gemm_fp16_flops.1799853",
            "bytes": folder / "gemm_fp16_bytes.1799860", "config": folder / "PVC_1tile.csv"}


def report(rows: list[tuple[str, list]], header: list[str], *, trailing: str = ",",
           newline: str = "\n") -> str:
    """A unitrace report: a padded text table, then one header + row per launch."""
    lines = ["", "=== Kernel Properties ===", "",
             "   Kernel, Number of Arguments", "x[SIMD16 {1; 1; 1} {1; 1; 1}],   3", "",
             "== Kernel Metrics ==", ""]
    for kernel, values in rows:
        lines += ["", "Kernel,Device,SubDeviceId," + ",".join(header) + ",",
                  ",".join([kernel, "0", "0", *map(str, values)]) + trailing]
    return newline.join(lines) + newline


@pytest.mark.shared
def test_two_runs_merge_per_kernel_as_the_pti_gpu_script(sample):
    kernels = unitrace_kernels(sample["flops"], sample["bytes"])
    assert kernels["kernel"].to_list() == [BINARY, HGEMM]  # order of first launch
    hgemm = kernels.row(1, named=True)
    assert hgemm["launches"] == 2
    # XMX_FP16 events 2,048,000,000 per launch × 2 = 4,096,000,000; × 512 = 2.097152e12.
    assert hgemm["ops_fp16_tensor"] == 2_097_152_000_000
    # FP16 (vector) 4,000,000 × 2 × 64 = 512,000,000; FP32 8,102,400 × 2 × 32 = 518,553,600.
    assert hgemm["ops_fp16"] == 512_000_000 and hgemm["ops_fp32"] == 518_553_600
    assert hgemm["ops_fp64"] == 0 and hgemm["ops_bf16_tensor"] == 0
    # Point flop = all FLOP precisions: 2,097,152,000,000 + 512,000,000 + 518,553,600.
    assert hgemm["flop"] == 2_098_182_553_600 and hgemm["precision"] == "fp16-tensor"
    # fp32 518,553,600 / 2,098,182,553,600 = 0.0247 %; fp16 512e6 / ... = 0.0244 %: both
    # under a tenth of a percent (fp16-tensor 99.951 % → 100.0 %), named all the same.
    assert hgemm["precision_mix"] == "fp16-tensor 100.0%, fp32 <0.1%, fp16 <0.1%"
    # L3: (6,586,575,872 + 98,013,760) + (6,584,752,640 + 98,013,760) = 13,367,356,032.
    assert hgemm["bytes_l3"] == 13_367_356_032
    # GPU memory: (848,934,528 + 125,991,296) + (874,946,432 + 128,000,256) = 1,977,872,512.
    assert hgemm["bytes_dram"] == 1_977_872_512
    # Bytes-run GpuTime 4,733,040 + 4,504,960 = 9,238,000 ns (flops run 9,201,160: unused).
    assert hgemm["time_s"] == pytest.approx(9.238e-3, rel=1e-12)
    assert hgemm["bytes_lds"] is None  # ComputeBasic on PVC has no SLM counters


@pytest.mark.shared
def test_sample_points_dram_and_l3_and_a_bandwidth_only_kernel(sample):
    points = check_points(unitrace_points(sample["flops"], sample["bytes"]), "t")
    assert points.schema == POINT_SCHEMA
    assert points.select("kernel", "level").rows() == [
        (BINARY, "DRAM"), (BINARY, "L3"), (HGEMM, "DRAM"), (HGEMM, "L3")]
    dram = points.row(2, named=True)
    # 2,098,182,553,600 FLOP / 1,977,872,512 B = 1060.83 FLOP/B (script, max only: 1060.31).
    assert dram["arithmetic_intensity"] == pytest.approx(1060.828, rel=1e-6)
    # 2,098,182,553,600 / 0.009238 s = 2.27125e14 FLOP/s (script: 227,013.6 GFLOP/s).
    assert dram["performance"] == pytest.approx(2.271252e14, rel=1e-6)
    # L3: 2,098,182,553,600 / 13,367,356,032 = 156.963 FLOP/B.
    assert points.row(3, named=True)["arithmetic_intensity"] == pytest.approx(156.963, rel=1e-5)
    binary = points.row(0, named=True)  # no FLOP counted: bandwidth-only row
    # DRAM 5,248 + 512 = 5,760 B in 563,720 ns.
    assert (binary["flop"], binary["bytes"], binary["arithmetic_intensity"]) == (0, 5760, None)
    assert binary["time_s"] == pytest.approx(563_720e-9)


@pytest.mark.shared
def test_flops_report_alone_names_the_bytes_counters(sample):
    with pytest.raises(InputError, match=r"GPU_MEMORY_BYTE_READ, GPU_MEMORY_BYTE_WRITE, "
                       r"L3_BYTE_READ, L3_BYTE_WRITE.*ComputeBasic"):
        unitrace_points(sample["flops"])


@pytest.mark.shared
def test_bytes_report_alone_or_first_names_the_flop_counters(sample):
    for args in ((sample["bytes"],), (sample["bytes"], sample["flops"])):
        with pytest.raises(InputError, match=r"XVE_INST_EXECUTED_FP64.*VectorEngine138"):
            unitrace_points(*args)


@pytest.mark.shared
def test_dataset_folder_through_the_registry(sample, tmp_path):
    folder = tmp_path / "pvc"
    folder.mkdir()
    shutil.copy(sample["bytes"], folder / "bytes.txt")
    with pytest.raises(InputError, match=r"flops.txt: file not found.*VectorEngine138"):
        load_points("unitrace", folder / "bytes.txt")
    shutil.copy(sample["flops"], folder / "flops.txt")
    assert load_points("unitrace", folder / "bytes.txt").height == 4


def test_quoted_name_missing_trailing_comma_crlf_slm_and_int8(tmp_path):
    name = '"gemm<float, 4>::run[SIMD32 {2; 1; 1} {16; 1; 1}]"'
    flops = tmp_path / "flops"
    # One launch: INT8 XMX 10 events → 10 × 1024 = 10,240 OP > FP32 100 × 32 = 3,200 FLOP.
    flops.write_bytes(report([(name, [900, 0, 100, 0, 10, 0, 0])], FLOP_HEADER,
                             trailing="", newline="\r\n").encode())
    bytes_ = tmp_path / "bytes"
    # GpuTime 1,000 ns; DRAM 30 + 10 = 40 B; L3 100 + 60 = 160 B; SLM 500 + 300 = 800 B.
    bytes_.write_bytes(report([(name, [1000, 100, 60, 30, 10, 500, 300])], BYTE_HEADER,
                              newline="\r\n").encode())
    points = check_points(unitrace_points(flops, bytes_), "t")
    assert points["kernel"].unique().to_list() == [name.strip('"')]
    assert dict(zip(points["level"], points["bytes"], strict=True)) == {
        "DRAM": 40, "L3": 160, "LDS": 800}
    # Dominant int8-tensor: flop counts OP only (10,240), FP32 FLOP not mixed in.
    assert points["precision"].unique().to_list() == ["int8-tensor"]
    assert points["flop"].unique().to_list() == [10_240]
    # 10,240 OP / 1e-6 s = 1.024e10 OP/s; LDS intensity 10,240 / 800 = 12.8 OP/B.
    assert points["performance"][0] == pytest.approx(1.024e10)
    assert points.filter(level="LDS")["arithmetic_intensity"][0] == pytest.approx(12.8)


@pytest.mark.parametrize(("flop_rows", "byte_rows", "message"), [
    ([("k", [1, 1, 1, 1, 0, 1, 0])] * 2, [("k", [9, 1, 1, 1, 1, 0, 0])],
     "launched 2 time.*FLOP run.*but 1 in the bytes run"),
    ([("k", [1, 1, 1, 1, 0, 1, 0])], [("j", [9, 1, 1, 1, 1, 0, 0])], "launched 1 time"),
    ([("k", [1, "n/a", 1, 1, 0, 1, 0])], [("k", [9, 1, 1, 1, 1, 0, 0])],
     r"XVE_INST_EXECUTED_FP16\[events\]'.*not a finite number.*'n/a'"),
    ([("k", [1, 1, 1, 1, 0, 1, 0])], [("k", [0, 1, 1, 1, 1, 0, 0])], r"GpuTime\[ns\]'.*> 0"),
    ([("k", [1, 1, 1, 1, 0, 1, 0])], [("k", [9, 1, -1, 1, 1, 0, 0])], "L3_BYTE_WRITE"),
])
def test_inconsistent_or_bad_counts_are_one_line_errors(tmp_path, flop_rows, byte_rows,
                                                        message):
    flops, bytes_ = tmp_path / "f", tmp_path / "b"
    flops.write_text(report(flop_rows, FLOP_HEADER))
    bytes_.write_text(report(byte_rows, BYTE_HEADER))
    with pytest.raises(InputError, match=message) as err:
        unitrace_points(flops, bytes_)
    assert "\n" not in str(err.value)


def test_wrong_unit_extra_field_and_no_metrics_section(tmp_path):
    path = tmp_path / "r"
    both = ["GpuTime[us]", *FLOP_HEADER[1:], *BYTE_HEADER[1:]]  # + Device, SubDeviceId: 15
    path.write_text(report([("k", [1] * 13)], both))
    with pytest.raises(InputError, match=r"GpuTime\[us\]'.*expected 'ns'"):
        unitrace_points(path)
    path.write_text(report([("k", [1] * 14)], both))
    with pytest.raises(InputError, match="16 values, its header names 15"):
        unitrace_points(path)
    path.write_text("== L0 Backend ==\nKernel, Calls\nk, 1\n")
    with pytest.raises(InputError, match="no '== Kernel Metrics ==' section"):
        unitrace_points(path, path)
    assert not sniff(path)


@pytest.mark.shared
def test_sniff(sample):
    assert sniff(sample["flops"]) and sniff(sample["bytes"])
    assert not sniff(sample["config"]) and not sniff(sample["config"].parent / "missing")


@pytest.mark.shared
def test_a_folder_of_reports_as_exported_is_detected_and_read(sample, tmp_path):
    from rooflow.kinds import detect_kind, kind_mismatch

    # The shared folder as pti-gpu ships it: NAME.<pid> reports beside a device config.
    folder = sample["flops"].parent
    assert sniff(folder) and detect_kind(folder) == "unitrace"
    assert kind_mismatch("unitrace", folder) is None  # the workflow's check on its input
    pair = unitrace_points(sample["flops"], sample["bytes"])
    assert load_points("unitrace", folder).equals(pair)
    # The two reports in either order: told apart by their counters.
    assert load_points("unitrace", [sample["bytes"], sample["flops"]]).equals(pair)
    # More than one program's reports in a folder: which pair is meant is not guessed.
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for path in (sample["flops"], sample["bytes"]):
        shutil.copy(path, crowded / path.name)
        shutil.copy(path, crowded / (path.name + "0"))
    with pytest.raises(InputError, match="holds 4 unitrace reports.*folder of its own"):
        load_points("unitrace", crowded)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no report\n")
    assert not sniff(empty)
    with pytest.raises(InputError, match="holds no unitrace report"):
        load_points("unitrace", empty)


def test_one_report_with_both_counter_sets_is_read_alone(tmp_path):
    # A file beside no flops.txt/bytes.txt is read alone: here it holds both sets.
    both = ["GpuTime[ns]", *FLOP_HEADER[1:], *BYTE_HEADER[1:]]
    # FP32 10 events × 32 = 320 FLOP (the only work); GpuTime 1,000 ns; DRAM 3 + 1 = 4 B.
    path = tmp_path / "app.4242"
    path.write_text(report([("k", [1000, 0, 10, 0, 0, 0, 0, 5, 5, 3, 1, 0, 0])], both))
    points = load_points("unitrace", path)
    dram = points.filter(level="DRAM").row(0, named=True)
    assert (dram["flop"], dram["bytes"], dram["precision"]) == (320, 4, "fp32")
    assert dram["performance"] == pytest.approx(3.2e8)  # 320 FLOP / 1e-6 s
    assert load_points("unitrace", tmp_path).equals(points)  # the folder: its one report


@pytest.mark.shared
def test_cli_reads_reports_under_their_own_names(sample, tmp_path, capsys):
    # plot/table/convert take the two NAME.<pid> reports (any order) or their folder; the
    # device config of the same folder gives the roofs (--hardware-file).
    config = str(sample["config"])
    folder = sample["flops"].parent
    outputs = {}
    for name, files in (("pair", [sample["flops"], sample["bytes"]]),
                        ("reversed", [sample["bytes"], sample["flops"]]),
                        ("folder", [folder])):
        out = tmp_path / f"{name}.csv"
        main(["table", *map(str, files), "--hardware-file", config, "-o", str(out)])
        outputs[name] = out.read_text()
        image = tmp_path / f"{name}.png"
        main(["plot", *map(str, files), "--hardware-file", config, "-o", str(image)])
        assert image.stat().st_size > 0
    assert outputs["pair"] == outputs["reversed"] == outputs["folder"]
    assert outputs["pair"].count("\n") == 5  # header + 4 points
    # The hgemm meets the fp16-tensor roof of PVC_1tile: FP16_XMX_GFLOPS 314000 → 314e12.
    assert "fp16-tensor,314000000000000.0" in outputs["pair"]
    converted = tmp_path / "points.csv"
    main(["convert", str(folder), "-o", str(converted)])
    assert converted.read_text().count("\n") == 5
    assert "read as unitrace" in capsys.readouterr().err


@pytest.mark.shared
def test_device_config_preset(sample):
    mapping = intel_preset(sample["config"])
    # GFLOP/s / 1000 → TFLOP/s: FP16 39000 → 39, XMX 314000 → 314, FP32/FP64 32000 → 32.
    assert mapping["compute"] == {"fp64": 32.0, "fp32": 32.0, "fp16": 39.0,
                                  "fp16-tensor": 314.0, "bf16-tensor": 314.0}
    assert mapping["memory"] == {"DRAM": 1055.0, "L3": 2043.0}  # GB/s as written
    assert mapping["name"].startswith("PVC_1tile")
    assert measured_source(sample["config"]).prefix == "intel"
    preset = load_preset("intel-PVC_1tile", measured_file=sample["config"])
    # Ridge of the defaults fp32 / DRAM: 32,000 GFLOP/s / 1,055 GB/s = 30.33 FLOP/B.
    assert preset.ridge_point == pytest.approx(30.332, rel=1e-4)
    # The hgemm roof: fp16-tensor 314 TFLOP/s; L3 2,043 GB/s.
    assert preset.compute_roof("fp16-tensor") == ("fp16-tensor", 314e12)
    assert preset.memory_roof("HBM") == ("DRAM", 1055e9)


def test_device_config_extra_keys_reported_bad_values_fail(tmp_path):
    path = tmp_path / "dev.csv"
    path.write_text("FP32_GFLOPS,1000\nL3_BW_in_GB_per_sec,500\nINT8_XMX_GOPS,9\n")
    mapping = intel_preset(path)
    assert "ignored keys: INT8_XMX_GOPS" in mapping["source"]
    assert mapping["default_memory"] == "L3"  # no GPU memory key
    preset_from_mapping("intel-dev", mapping, source=str(path))
    for text, message in [("FP32_GFLOPS,fast\nL3_BW_in_GB_per_sec,5\n", "'FP32_GFLOPS'.*fast"),
                          ("FP32_GFLOPS,-1\nL3_BW_in_GB_per_sec,5\n", "> 0"),
                          ("FP32_GFLOPS,1,2\n", "key,value"),
                          ("FP32_GFLOPS,1\n", "no memory roof"),
                          ("FP32_GFLOPS,1\nFP32_GFLOPS,2\n", "twice")]:
        path.write_text(text)
        with pytest.raises(InputError, match=message):
            intel_preset(path)


@pytest.mark.shared
def test_cli_from_unitrace(sample, tmp_path, capsys):
    out = tmp_path / "points.csv"
    main(["from-unitrace", str(sample["flops"]), str(sample["bytes"]), "-o", str(out)])
    assert out.read_text().count("\n") == 5  # header + 4 points
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["from-unitrace", str(sample["bytes"])])
    assert exit_.value.code == 1
    assert capsys.readouterr().err.count("\n") == 1


def _sample_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.mark.shared
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_truncated_or_shuffled_reports_give_points_or_input_error(sample, tmp_path, data):
    files = {}
    for role in ("flops", "bytes"):
        lines = _sample_lines(sample[role])
        cut = data.draw(st.integers(0, len(lines)), label=f"{role} cut")
        lines = lines[:cut]
        if data.draw(st.booleans(), label=f"{role} shuffle"):
            lines = data.draw(st.permutations(lines), label=f"{role} order")
        if lines and data.draw(st.booleans(), label=f"{role} chop"):
            lines[-1] = lines[-1][: data.draw(st.integers(0, len(lines[-1])))]
        files[role] = tmp_path / role
        files[role].write_text("\n".join(lines))
    try:
        points = check_points(unitrace_points(files["flops"], files["bytes"]), "t")
    except InputError as err:
        assert "\n" not in str(err)
        return
    assert all(math.isfinite(v) for v in points["bytes"])
