"""Every shared ncu export: points or one clear InputError; hand-worked values per layout."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.adapters.ncu.reader import ncu_breakdown, ncu_points
from rooflow.adapters.ncu.sniff import ncu as sniff
from rooflow.errors import InputError
from rooflow.roofs import MEASURED
from rooflow.roofs.ncu import ncu_preset

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ncu"
FILES = sorted(DATA.glob("*/*.csv"))
ERRORS = {  # file → fragment of its one-line error (default settings)
    "output8.csv": "failed or incomplete profile",
    "torch_sdpa_flash__gqa_bf16_b64_ctx4k_p64.ncu.csv": "dram__bytes.sum",
}
LEFT_OUT = {  # file → kernels left out (tensor-pipe instructions, no op-path counters or
    # factor: one line each naming the counters), the others placed
    "output_A100.csv": 2, "bert_flashattn_nsight.csv": 6, "gemm.csv": 1, "share_tile.csv": 1,
}


@pytest.mark.shared
def test_the_shared_folder_is_there() -> None:
    assert len(FILES) == 12, FILES


@pytest.mark.shared
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_export_gives_points_or_one_clear_error(path: Path) -> None:
    assert sniff(path)
    if path.name in ERRORS:
        with pytest.raises(InputError) as err:
            load_points("ncu", path)
        assert ERRORS[path.name] in str(err.value) and "\n" not in str(err.value)
    else:
        said: list[str] = []
        points = ncu_points(path, log=said.append)
        assert load_points("ncu", path).equals(points)  # check_points inside
        assert points.height > 0
        left = [s for s in said if ": left out: " in s]
        assert len(left) == LEFT_OUT.get(path.name, 0), left
        assert all("sm__ops_path_tensor_" in s and "\n" not in s for s in left)
        assert not set(points["kernel"]) & {s.split("'")[1] for s in left}


def test_sniff_rejects_other_files(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("series,arithmetic_intensity,tflops\nx,1,2\n")
    (tmp_path / "b.bin").write_bytes(bytes(range(256)) * 10)
    assert not sniff(tmp_path / "a.csv") and not sniff(tmp_path / "b.bin")
    assert not sniff(tmp_path / "missing.csv") and not sniff(tmp_path)


def _launch(path: Path, launch: int, **kwargs) -> dict:
    kernels = ncu_breakdown(path, per_launch=True, **kwargs).kernels
    return kernels.filter(pl.col("launch_id") == launch).row(0, named=True)


@pytest.mark.shared
def test_modern_details_v100_tensor_gemm() -> None:
    # Launch 10, cutlass_70_tensorop_s884gemm, CC 7.0 (512 FLOP per HMMA, NERSC):
    #   tensor 33,554,432,000 inst × 512 = 17,179,869,184,000 FLOP (fp16-tensor)
    #   fmul 419,430,400 → fp32 419,430,400 FLOP; total 17,180,288,614,400
    #   time = 224,198,002.15 cycle / 1,236,080,147.79 Hz = 0.181378 s
    #   AI DRAM = 17,180,288,614,400 / 25,174,959,968 = 682.44 FLOP/byte
    k = _launch(DATA / "modern-details-v100" / "output.csv", 10)
    assert k["ops_fp16_tensor"] == 17_179_869_184_000 and k["ops_fp32"] == 419_430_400
    assert k["flop"] == 17_180_288_614_400 and k["precision"] == "fp16-tensor"
    assert k["time_s"] == pytest.approx(0.181378, rel=1e-5)
    assert k["flop"] / k["bytes_dram"] == pytest.approx(682.44, rel=1e-5)


@pytest.mark.shared
def test_legacy_kerneltime_label_rows_and_short_rows() -> None:
    # No CC column, tensor instructions in other kernels: needs a "default" factor.
    # Launch 3: ffma 1,280 → fp32 2,560 FLOP; hadd 256 × 2 (half2) → fp16 512 FLOP;
    #   total 3,072; mix fp32 2,560/3,072 = 83.33% → 83.3%, fp16 16.67% → 16.7%;
    #   time = 3,579.30 / 916,827,944.75 = 3.9040e-6 s;
    #   dram 0 byte (no DRAM point), L2 146,976 byte → AI 3,072 / 146,976 = 0.020902.
    # "Block Size" / "Registers Per Thread" label rows are read and ignored.
    path = DATA / "legacy-kerneltime-a100" / "bert_flashattn_nsight.csv"
    k = _launch(path, 3, tensor_flop_per_inst={"default": 4096})
    assert (k["flop"], k["precision"], k["cc"]) == (3072, "fp32", "")
    assert k["precision_mix"] == "fp32 83.3%, fp16 16.7%"
    assert k["time_s"] == pytest.approx(3579.30 / 916_827_944.75)
    assert k["bytes_dram"] == 0 and k["bytes_l2"] == 146_976
    points = ncu_points(path, per_launch=True, tensor_flop_per_inst={"default": 4096})
    mine = points.filter(pl.col("label").str.ends_with("[launch 3]"))
    assert mine["level"].to_list() == ["L2", "L1"]
    assert mine["arithmetic_intensity"][0] == pytest.approx(0.020902, rel=1e-4)


@pytest.mark.shared
def test_smsp_spelling_and_print_fp() -> None:
    # gemm.csv launch 0 (randomInit), smsp__ names, ".00" values: ffma 838,860,800 →
    #   1,677,721,600 FLOP fp32; time = 5,143,174,222.52 / 764,999,989.86 = 6.72310 s;
    #   AI DRAM = 1,677,721,600 / 5,318,969,728 = 0.315422. Launch 2 ran 104,857,600
    #   tensor-pipe instructions on CC 8.0, so a factor must be configured.
    k = _launch(DATA / "smsp-a100-gemm" / "gemm.csv", 0, tensor_flop_per_inst={"8.0": 4096})
    assert k["flop"] == 1_677_721_600 and k["precision"] == "fp32"
    assert k["time_s"] == pytest.approx(6.72310, rel=1e-5)
    assert k["flop"] / k["bytes_dram"] == pytest.approx(0.315422, rel=1e-5)


@pytest.mark.shared
def test_raw_wide_rtx3060_scaled_units() -> None:
    # FP64 only: 2·268,435,456 dfma + 134,217,728 dmul = 671,088,640 FLOP;
    # time 13.317280 msecond = 0.01331728 s → 50.392 GFLOP/s;
    # DRAM (2.156288 + 1.082323) Gbyte = 3,238,611,000 byte → AI 0.207215;
    # L2 lts__t_sectors 101,209,052 × 32 = 3,238,689,664 byte;
    # L1 l1tex__lsu_writeback_active_mem_lg 20,971,520 cycle × 128 = 2,684,354,560 byte.
    result = ncu_breakdown(DATA / "raw-wide-rtx3060" / "vector_add.csv")
    k = result.kernels.row(0, named=True)
    assert (k["flop"], k["precision"], k["cc"]) == (671_088_640, "fp64", "8.6")
    assert k["device"] == "NVIDIA GeForce RTX 3060 Laptop GPU"
    assert k["time_s"] == pytest.approx(0.01331728)
    assert k["bytes_dram"] == pytest.approx(3_238_611_000)
    assert (k["bytes_l2"], k["bytes_l1"]) == (3_238_689_664, 2_684_354_560)
    assert any("tensor" in m for m in result.missing)
    points = ncu_points(DATA / "raw-wide-rtx3060" / "vector_add.csv", log=lambda _: None)
    assert points["arithmetic_intensity"][0] == pytest.approx(0.207215, rel=1e-5)
    assert points["performance"][0] == pytest.approx(50.392e9, rel=1e-4)
    assert set(points["device"]) == {"NVIDIA GeForce RTX 3060 Laptop GPU"}


@pytest.mark.shared
def test_raw_wide_rtx3060_theoretical_peaks() -> None:
    # fp64 60 inst/cycle × 2 × 817.173377 cycle/usecond = 98.0608 GFLOP/s;
    # fp32 3,840 × 2 × 817.173377e6 = 6.27589 TFLOP/s;
    # DRAM 48 byte/cycle × 5.992585 cycle/nsecond = 287.644 GB/s.
    preset = ncu_preset(DATA / "raw-wide-rtx3060" / "vector_add.csv")
    assert preset["compute"]["fp64"] == pytest.approx(0.0980608, rel=1e-5)
    assert preset["compute"]["fp32"] == pytest.approx(6.27589, rel=1e-5)
    assert preset["memory"] == {"DRAM": pytest.approx(287.644, rel=1e-5)}
    assert preset["empirical"] is False and "817 MHz" in preset["source"]
    with pytest.raises(InputError, match="no Theoretical peaks"):
        ncu_preset(DATA / "nersc-gpp" / "output.csv")


@pytest.mark.shared
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_preset_discovery_agrees_with_the_preset_reader(path: Path) -> None:
    # The workflow's cheap text search (no parsing) finds preset ncu-NAME exactly where
    # ncu_preset reads one: only the RTX 3060 raw page has Theoretical peaks. Not peaks:
    # "Theoretical Occupancy" (legacy A100), the ".pct_of_peak_sustained_*" metrics (B200).
    try:
        ncu_preset(path)
        readable = True
    except InputError:
        readable = False
    assert readable == (path.parent.name == "raw-wide-rtx3060")
    assert MEASURED["ncu"].has_peaks(path) == readable


@pytest.mark.shared
def test_bytes_and_time_only_gives_bandwidth_rows_and_says_why() -> None:
    # saxpy.csv (BOM, CRLF, program output first): dram op_read 134,221,568 + op_write
    # 43,631,104 = 177,852,672 byte; time 292,928 ns; no FLOP counters at all.
    path = DATA / "bytes-time-rtx5070" / "saxpy.csv"
    said: list[str] = []
    points = ncu_points(path, log=said.append)
    row = points.row(0, named=True)
    assert (row["level"], row["flop"], row["performance"]) == ("DRAM", 0.0, 0.0)
    assert row["arithmetic_intensity"] is None and row["bytes"] == 177_852_672
    assert row["time_s"] == pytest.approx(292_928e-9)
    assert any("fp32 FLOP" in s for s in said) and any("tensor" in s for s in said)
    assert len(said) == len(set(said))


@pytest.mark.shared
def test_no_flops_a100_counts_tensor_work_once_a_factor_is_set() -> None:
    # Launch 10, ampere_s16816gemm_fp16: 4,194,304,000 tensor inst × 4096 (HMMA.16816,
    # configured) = 17,179,869,184,000 FLOP; no vector counters (listed as missing).
    path = DATA / "no-flops-a100" / "output_A100.csv"
    result = ncu_breakdown(path, per_launch=True, tensor_flop_per_inst={"8.0": 4096})
    k = result.kernels.filter(pl.col("launch_id") == 10).row(0, named=True)
    assert k["flop"] == 17_179_869_184_000 and k["precision"] == "fp16-tensor"
    assert [m.split()[0] for m in result.missing] == ["fp64", "fp32", "fp16"]


@pytest.mark.shared
def test_cli_from_ncu_passes_and_preset_out(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rooflow.cli.main import cli

    export = DATA / "raw-wide-rtx3060" / "vector_add.csv"
    out, preset = tmp_path / "p.csv", tmp_path / "hw.yaml"
    result = CliRunner().invoke(cli, ["from-ncu", str(export), str(export), "-o", str(out),
                                      "--preset-out", str(preset)])
    assert result.exit_code == 0, result.output
    assert pl.read_csv(out)["level"].to_list() == ["DRAM", "L2", "L1"]
    assert "ncu-vector_add:" in preset.read_text() and "fp64" in preset.read_text()
