"""--hardware-file: a hardware.yaml, or any measured-peaks file the workflow reads (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from rooflow.cli.main import main
from rooflow.errors import InputError
from rooflow.roofs import MEASURED, choose_preset, load_preset, peaks_source, read_presets

REPO = Path(__file__).resolve().parents[1]

# One fp64 point at 10 FLOP/byte and 1 TFLOP/s, one fp32 point: judged against each file's roofs.
POINTS = "arithmetic_intensity,tflops,precision,label\n10,1,fp64,a\n10,1,fp32,b\n"


@pytest.fixture
def points(tmp_path: Path) -> Path:
    path = tmp_path / "points.csv"
    path.write_text(POINTS)
    return path


def _table(points: Path, peaks: Path, tmp_path: Path, *extra: str) -> pl.DataFrame:
    out = tmp_path / "table.csv"
    main(["table", str(points), "--hardware-file", str(peaks), "-o", str(out), *extra])
    return pl.read_csv(out)


def _plot(points: Path, peaks: Path, tmp_path: Path) -> None:
    """``rooflow plot`` on the peaks file: it draws a (non-empty) PNG."""
    image = tmp_path / "p.png"
    main(["plot", str(points), "--hardware-file", str(peaks), "-o", str(image)])
    assert image.stat().st_size > 0


def _roofs(table: pl.DataFrame, label: str) -> tuple[str, float, str, float]:
    row = table.filter(pl.col("label") == label).row(0, named=True)
    return (row["compute_roof_name"], row["compute_roof"], row["memory_roof_name"],
            row["memory_roof"])


@pytest.mark.shared
def test_ert_roofline_json_plots_and_tables(shared_data, points, tmp_path, capsys):
    peaks = shared_data / "ert" / "kingspeak-p100-gpu" / "roofline.json"
    _plot(points, peaks, tmp_path)
    table = _table(points, peaks, tmp_path)
    # gflops "FP64 GFLOPs" 4258.4 → 4.2584e12 FLOP/s; gbytes DRAM 508.35 GB/s (default level).
    assert _roofs(table, "a") == ("fp64", pytest.approx(4.2584e12), "DRAM",
                                  pytest.approx(508.35e9))
    # No fp32 roof measured: not judged, and the note names the preset (folder name).
    assert table.filter(pl.col("label") == "b")["roof_note"][0] == (
        "no fp32 roof on ert-kingspeak-p100-gpu")
    capsys.readouterr()
    main(["hardware", "--hardware-file", str(peaks)])
    out = capsys.readouterr().out
    assert out.startswith("ert-kingspeak-p100-gpu: kp361.kingspeak.peaks (ERT empirical) "
                          "[measured]")


@pytest.mark.shared
@pytest.mark.parametrize("form", ["file", "folder"])
def test_omniperf_roofline_csv_or_its_workload_folder(shared_data, points, tmp_path, form):
    folder = shared_data / "omniperf" / "mi200-dispatch_0_1"
    peaks = folder / "roofline.csv" if form == "file" else folder
    _plot(points, peaks, tmp_path)
    table = _table(points, peaks, tmp_path)
    # Device 0: FP64Flops 20274.334, FP32Flops 20947.432 GFLOP/s; HBMBw 1388.8433 GB/s.
    assert _roofs(table, "a") == ("fp64", pytest.approx(20.274334e12), "HBM",
                                  pytest.approx(1388.8433e9))
    assert _roofs(table, "b")[:2] == ("fp32", pytest.approx(20.947432e12))
    assert list(read_presets(peaks)) == ["omniperf-mi200-dispatch_0_1"]


@pytest.mark.shared
def test_pti_gpu_device_config(shared_data, points, tmp_path):
    peaks = shared_data / "intel" / "unitrace-pvc-gemm-fp16" / "PVC_1tile.csv"
    _plot(points, peaks, tmp_path)
    # FP64_GFLOPS 32000, FP32_GFLOPS 32000 → 32e12; GPU_MEMORY_BW_in_GB_per_sec 1055 (DRAM).
    table = _table(points, peaks, tmp_path, "--hardware", "intel-PVC_1tile")
    assert _roofs(table, "a") == ("fp64", 32e12, "DRAM", 1055e9)
    assert _roofs(table, "b")[:2] == ("fp32", 32e12)


@pytest.mark.shared
def test_ncu_export_with_peaks(shared_data, points, tmp_path):
    peaks = shared_data / "ncu" / "raw-wide-rtx3060" / "vector_add.csv"
    assert peaks_source(peaks) is MEASURED["ncu"]
    table = _table(points, peaks, tmp_path)
    preset = load_preset("ncu-vector_add", measured_file=peaks)
    assert _roofs(table, "b")[1] == pytest.approx(preset.compute["fp32"])
    assert list(read_presets(peaks)) == ["ncu-vector_add"]


def test_repository_ert_example_and_list_hostname(points, tmp_path):
    example = REPO / "resources" / "ert" / "roofline.gpu-node-a100.json"
    assert choose_preset(example, None).key == "ert-roofline.gpu-node-a100"
    # ERT metadata HOSTNAME as socket.gethostbyaddr() gives it: a readable title, not a repr.
    data = json.loads(example.read_text())
    data["empirical"]["metadata"]["HOSTNAME"] = ["cn850", [], ["10.0.0.1"]]
    (tmp_path / "cn850-run").mkdir()
    peaks = tmp_path / "cn850-run" / "roofline.json"
    peaks.write_text(json.dumps(data))
    preset = choose_preset(peaks, None, peak_bandwidth_gbs=1000)
    assert (preset.key, preset.name) == ("ert-cn850-run", "cn850 (ERT empirical)")
    assert preset.peak_bytes_per_s == 1000e9 and preset.overridden
    table = _table(points, peaks, tmp_path)
    # FP64 GFLOPs 9412.7 → 9.4127e12; DRAM 1391.6 GB/s.
    assert _roofs(table, "a") == ("fp64", pytest.approx(9.4127e12), "DRAM",
                                  pytest.approx(1391.6e9))


def test_hardware_yaml_still_works_and_other_files_are_one_line(points, tmp_path, capsys):
    from rooflow.defaults import DEFAULT_HARDWARE

    assert "h100-sxm" in read_presets(DEFAULT_HARDWARE)
    assert peaks_source(DEFAULT_HARDWARE) is None
    table = _table(points, DEFAULT_HARDWARE, tmp_path, "--hardware", "h100-sxm")
    assert table.height == 2
    with pytest.raises(InputError, match="neither a hardware.yaml"):
        read_presets(points)
    example = REPO / "resources" / "ert" / "roofline.gpu-node-a100.json"
    for args in (["--hardware-file", str(points)],
                 ["--hardware-file", str(example), "--hardware", "h100-sxm"]):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_:
            main(["table", str(points), *args])
        assert exit_.value.code == 1
        err = capsys.readouterr().err
        assert err.startswith("rooflow: error:") and err.count("\n") == 1
    assert "holds one preset, 'ert-roofline.gpu-node-a100'" in err
