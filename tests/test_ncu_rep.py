"""Nsight Compute reports (.ncu-rep) read with NVIDIA's ncu-report package (issue 19, item 1).

The shared reports are read for real; ranges, actions and odd metric values no shared report
shows come from a stand-in for the ``ncu_report`` module with the same interface.
"""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import detect_kind, load_points
from rooflow.adapters.ncu.reader import ncu_breakdown, ncu_points
from rooflow.adapters.ncu.sniff import ncu as sniff
from rooflow.analysis import analyze
from rooflow.errors import InputError
from rooflow.formats.ncu.pages import read_ncu
from rooflow.roofs import MEASURED, load_preset
from rooflow.roofs.ncu import ncu_preset

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RTX3060 = DATA / "ncu-rep" / "rtx3060-vector-add" / "vector_add.ncu-rep"
RTX3060_CSV = DATA / "ncu" / "raw-wide-rtx3060" / "vector_add.csv"
NERSC = DATA / "ncu-rep" / "nersc-gpp" / "output1.ncu-rep"
VECTOR_ADD = "vector_add(double *, double *, double *)"


def _quiet(_: str) -> None:
    pass


@pytest.mark.shared
def test_rtx3060_report_and_its_csv_export_give_the_same_points() -> None:
    # The same run (SOURCES.md). By hand, from the report's metrics:
    #   FLOP fp64 = 2·dfma 268,435,456 + dmul 134,217,728 = 671,088,640
    #   time = gpu__time_duration.sum 13,317,280 ns = 0.01331728 s → 50.392 GFLOP/s
    #   DRAM = dram__bytes_read 2,156,288,000 + write 1,082,322,688 = 3,238,610,688 byte
    #     (the CSV shows them as 2.156288 + 1.082323 Gbyte = 3,238,611,000: 1e-7 apart)
    #   L2 = lts__t_sectors 101,209,052 × 32 = 3,238,689,664 byte
    #   L1 = l1tex__lsu_writeback_active_mem_lg 20,971,520 cycle × 128 = 2,684,354,560 byte
    assert sniff(RTX3060) and detect_kind(RTX3060) == "ncu"
    report = load_points("ncu", RTX3060)
    export = load_points("ncu", RTX3060_CSV)
    assert report.columns == export.columns and report.height == export.height == 3
    for column in ("kernel", "label", "level", "precision", "device", "series", "flop",
                   "time_s", "performance"):
        assert report[column].to_list() == export[column].to_list(), column
    for column in ("bytes", "arithmetic_intensity"):
        assert report[column].to_list() == pytest.approx(export[column].to_list(), rel=1e-6)
    row = report.row(0, named=True)
    assert (row["kernel"], row["level"], row["precision"]) == (VECTOR_ADD, "DRAM", "fp64")
    assert row["flop"] == 671_088_640 and row["time_s"] == pytest.approx(0.01331728)
    assert row["device"] == "NVIDIA GeForce RTX 3060 Laptop GPU"
    assert report["bytes"].to_list() == pytest.approx([3_238_610_688, 3_238_689_664,
                                                      2_684_354_560])
    assert row["performance"] == pytest.approx(50.392e9, rel=1e-4)
    assert row["source"] == str(RTX3060)


@pytest.mark.shared
def test_report_metrics_have_their_units_and_the_actions_identity() -> None:
    table = read_ncu(RTX3060)
    assert set(table["launch"]) == {0} and set(table["row"]) == {1}
    assert set(table["kernel"]) == {VECTOR_ADD} and set(table["cc"]) == {"8.6"}
    metric = {r["metric"]: r for r in table.iter_rows(named=True)}
    # ns → second, byte/s → byte/second, inst/cycle as written; strings have no value.
    assert (metric["gpu__time_duration.sum"]["unit"], metric["gpu__time_duration.sum"]["text"]
            ) == ("second", "13317280.0")
    assert metric["gpu__time_duration.sum"]["value"] == pytest.approx(0.01331728)
    assert metric["dram__bytes.sum.per_second"]["unit"] == "byte/second"
    assert metric["sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"][
        "unit"] == "inst/cycle"
    name = metric["device__attribute_display_name"]
    assert (name["text"], name["value"]) == ("NVIDIA GeForce RTX 3060 Laptop GPU", None)
    assert not any(m.startswith("regex:") for m in metric)  # requests, not metrics


@pytest.mark.shared
def test_nersc_report_gives_points_from_its_section_rates() -> None:
    # 2 actions of sigma_gpp_gpu_34, rates only (no counts), each with its own clock:
    #   launch 0: 30,492,203,776 ns at SM 1,619,999,996.115291 Hz
    #     → 49,397,370,... SM cycles = 30.492203776 s × 1.619999996115291e9
    #     fp64 per cycle = 2·dfma 16.555009990249953 + dmul 16.256282937708527
    #                      + dadd 3.202210001185683 = 52.568512919393... inst/cycle
    #     DRAM 17,696,341,670.93925 byte/s, L2 (lts2xbar) 21,883,238,831.468052 byte/s,
    #     L1 (writeback mem_lg) 48,815,447,389.4593 byte/s, each × 30.492203776 s
    #   launch 1: 101,792 ns at 1,618,244,393.7965002 Hz, dadd 3.1827720251814644/cycle
    #     (dfma, dmul 0), DRAM 41,322,854,448.286705 byte/s
    t0, hz0, t1, hz1 = 30.492203776, 1_619_999_996.115291, 101_792e-9, 1_618_244_393.7965002
    flop0 = (2 * 16.555009990249953 + 16.256282937708527 + 3.202210001185683) * t0 * hz0
    flop1 = 3.1827720251814644 * t1 * hz1
    dram = 17_696_341_670.93925 * t0 + 41_322_854_448.286705 * t1
    assert flop0 == pytest.approx(2_596_746_282_959)  # = the CSV export's count (output1.csv)
    launches = ncu_breakdown(NERSC, per_launch=True).kernels
    assert launches["ops_fp64"].to_list() == pytest.approx([flop0, flop1])
    assert launches["bytes_dram"].to_list() == pytest.approx([17_696_341_670.93925 * t0,
                                                              41_322_854_448.286705 * t1])
    assert launches["bytes_l2"][0] == pytest.approx(21_883_238_831.468052 * t0)
    assert launches["bytes_l1"][0] == pytest.approx(48_815_447_389.4593 * t0)
    said: list[str] = []
    points = ncu_points(NERSC, log=said.append)
    assert points["level"].to_list() == ["DRAM", "L2", "L1"]
    row = points.row(0, named=True)
    assert (row["kernel"], row["precision"], row["device"]) == (
        "sigma_gpp_gpu_34", "fp64", "NVIDIA GeForce RTX 4060 Laptop GPU")
    assert row["flop"] == pytest.approx(flop0 + flop1)
    assert row["time_s"] == pytest.approx(t0 + t1)
    assert row["arithmetic_intensity"] == pytest.approx((flop0 + flop1) / dram)  # 4.8123
    assert row["arithmetic_intensity"] == pytest.approx(4.8123, abs=5e-5)
    assert row["performance"] == pytest.approx((flop0 + flop1) / (t0 + t1))  # 85.16 GFLOP/s
    assert any("no fp32 FLOP" in s for s in said) and not any("left out" in s for s in said)


@pytest.mark.shared
def test_nersc_report_gives_its_ncu_preset_from_the_peaks() -> None:
    # Launch 0's peaks × its clocks:
    #   fp64 = dfma.sum.peak_sustained 48 inst/cycle × 2 × SM 1,619,999,996.115291 Hz
    #        = 155.52 GFLOP/s
    #   DRAM = 32 byte/cycle × 7,993,005,232.105661 Hz          = 255.776 GB/s
    #   L2   = lts2xbar 1,024 byte/cycle × 1,619,919,298.6463661 = 1,658.797 GB/s
    #   L1   = writeback mem_lg 3,072 byte/cycle × 1,619,999,996.115291 = 4,976.640 GB/s
    assert MEASURED["ncu"].has_peaks(NERSC)
    mapping = ncu_preset(NERSC)
    assert mapping["name"] == "NVIDIA GeForce RTX 4060 Laptop GPU"
    assert mapping["compute"] == {"fp64": pytest.approx(48 * 2 * 1_619_999_996.115291 / 1e12)}
    assert mapping["memory"] == {
        "DRAM": pytest.approx(32 * 7_993_005_232.105661 / 1e9),
        "L2": pytest.approx(1024 * 1_619_919_298.6463661 / 1e9),
        "L1": pytest.approx(3072 * 1_619_999_996.115291 / 1e9)}
    assert mapping["empirical"] is False
    preset = load_preset("ncu-nersc-gpp", measured_file=NERSC)
    table = analyze(ncu_points(NERSC, log=_quiet), preset)
    # DRAM: AI 4.8123 × 255.776 GB/s = 1,230.9 GFLOP/s > the fp64 roof 155.52: compute-bound
    # at 85.16 / 155.52 = 54.8 % of roof.
    row = table.row(0, named=True)
    assert (row["level"], row["bound"]) == ("DRAM", "compute")
    assert row["pct_of_roof"] == pytest.approx(100 * 85.16e9 / 155.52e9, abs=0.01)


@pytest.mark.shared
def test_several_exports_of_one_run_merge_like_passes(tmp_path: Path) -> None:
    # Two copies of the report (two "passes") and the report with its own CSV export:
    # per kernel and launch, the first file's metrics, the points of the report alone.
    copy = tmp_path / "pass2.ncu-rep"
    shutil.copyfile(RTX3060, copy)
    alone = ncu_breakdown(RTX3060).kernels
    twice = ncu_breakdown([RTX3060, copy])
    assert twice.kernels.drop("file").equals(alone.drop("file")) and not twice.notes
    mixed = ncu_breakdown([RTX3060, RTX3060_CSV])
    assert mixed.kernels["bytes_dram"].to_list() == [3_238_610_688]
    assert mixed.kernels["flop"].to_list() == alone["flop"].to_list()


@pytest.mark.shared
def test_cli_table_of_a_report_matches_its_csv_export(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rooflow.cli.main import cli

    tables = []
    for source in (RTX3060, RTX3060_CSV):
        out = tmp_path / f"{source.suffix.strip('.')}.csv"
        result = CliRunner().invoke(cli, ["table", str(source), "--hardware", "a100-sxm",
                                          "-o", str(out)])
        assert result.exit_code == 0, result.output
        tables.append(pl.read_csv(out))
    report, export = tables
    assert report["kernel"].to_list() == export["kernel"].to_list() == [VECTOR_ADD] * 3
    for column in ("flop", "time_s", "performance", "bound", "memory_roof"):
        assert report[column].to_list() == export[column].to_list(), column
    # The compute roof is at the SM clock held, which the CSV gives to 9 digits
    # (817.173377 cycle/usecond) and the report in full (817,173,376.7456 Hz).
    assert report["clock_hz"].to_list() == pytest.approx(export["clock_hz"].to_list(), rel=1e-9)
    # L1 has no roof on a100-sxm: no % of roof there.
    for column in ("pct_of_roof", "compute_roof"):
        assert report[column].fill_null(-1).to_list() == pytest.approx(
            export[column].fill_null(-1).to_list(), rel=1e-6), column


@pytest.mark.shared
def test_workflow_finds_a_report_dataset_and_its_preset(tmp_path: Path, monkeypatch) -> None:
    from rooflow.defaults import config_defaults, plot_defaults
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.workflow.planning import Plan

    monkeypatch.chdir(tmp_path)
    (tmp_path / "resources" / "ncu").mkdir(parents=True)
    shutil.copyfile(RTX3060, tmp_path / "resources" / "ncu" / "va.ncu-rep")
    config = {**config_defaults(), "plot_defaults": plot_defaults(), "presets": ["h100-sxm"]}
    plan = Plan(config, load_hardware())
    assert plan.datasets == {"ncu-va": ("ncu", "va")}
    assert plan.sources["ncu"]["va"] == "resources/ncu/va.ncu-rep"
    assert plan.measured == {"ncu-va": {"measured": "resources/ncu/va.ncu-rep"}}
    assert plan.dataset_presets("ncu-va") == ["ncu-va"]


# A stand-in for the ncu_report module: ranges → actions → metrics, as its interface.


class _Metric:
    def __init__(self, value, unit: str) -> None:
        self._value, self._unit = value, unit

    def has_value(self) -> bool:
        return self._value is not None

    def value(self):
        return self._value

    def unit(self) -> str:
        return self._unit


class _Action:
    NameBase_DEMANGLED = 1

    def __init__(self, name: str, metrics: dict) -> None:
        self._name, self._metrics = name, metrics

    def name(self, base: int | None = None) -> str:
        return self._name if base == self.NameBase_DEMANGLED else self._name.split("(")[0]

    def metric_names(self) -> list[str]:
        return list(self._metrics)

    def metric_by_name(self, name: str) -> _Metric:
        return _Metric(*self._metrics[name])


class _Range:
    def __init__(self, actions: list[_Action]) -> None:
        self._actions = actions

    def num_actions(self) -> int:
        return len(self._actions)

    def action_by_idx(self, i: int) -> _Action:
        return self._actions[i]


def _fake_module(ranges: list[list[_Action]]) -> types.ModuleType:
    class Context:
        def num_ranges(self) -> int:
            return len(ranges)

        def range_by_idx(self, i: int) -> _Range:
            return _Range(ranges[i])

    module = types.ModuleType("ncu_report")
    module.load_report = lambda path: Context()  # type: ignore[attr-defined]
    return module


def _use(monkeypatch, module: types.ModuleType | None) -> None:
    """Stand ``module`` in for ncu_report, read in this process (no child runs it)."""
    from rooflow.formats.ncu import native

    monkeypatch.setitem(sys.modules, "ncu_report", module)

    def read(path, **_):
        found = native.extract(module, str(path))
        if isinstance(found, dict):
            raise InputError(str(path), found["error"], check=found["check"])
        return found

    monkeypatch.setattr(native, "cached_launches", read)


def _kernel(dfma: object, tensor: object = 0.0, dram: float = 1000.0) -> dict:
    """Time 1,000 ns, dfma thread instructions, DRAM bytes; device attributes of CC 9.0."""
    return {
        "gpu__time_duration.sum": (1000.0, "ns"),
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum": (dfma, "inst"),
        "sm__ops_path_tensor_src_fp64.sum": (tensor, ""),
        "dram__bytes.sum": (dram, "byte"),
        "device__attribute_display_name": ("NVIDIA Test GPU", ""),
        "device__attribute_compute_capability_major": (9, ""),
        "device__attribute_compute_capability_minor": (0, ""),
        "regex:sm__.*": ("sm__a,sm__b", "inst"),
    }


def _report(tmp_path: Path) -> Path:
    path = tmp_path / "run.ncu-rep"
    path.write_bytes(b"NVR\x00" + bytes(60))
    return path


def test_ranges_and_actions_are_numbered_as_ncu_ids(tmp_path: Path, monkeypatch) -> None:
    # Two ranges: [k(a), k(b)] and [j]. Launch IDs run over the report: 0, 1, 2. Tensor
    # path n/a for launch 2 (no value: not measured), 500 DMMA ops for launch 0.
    # k: fp64 2·(100 + 300) = 800 FLOP + 500 fp64-tensor; DRAM 2,000 byte; 2 µs.
    # j: 2·50 = 100 FLOP, 4,000 byte, 1 µs → AI 0.025.
    _use(monkeypatch, _fake_module([
        [_Action("k(int)", _kernel(100, 500.0)), _Action("k(int)", _kernel(300))],
        [_Action("j(float*)", _kernel(50, None, 4000.0))],
    ]))
    path = _report(tmp_path)
    table = read_ncu(path)
    assert table.select("launch", "row", "kernel").unique(maintain_order=True).rows() == [
        (0, 1, "k(int)"), (1, 2, "k(int)"), (2, 3, "j(float*)")]
    assert set(table["cc"]) == {"9.0"} and set(table["device"]) == {"NVIDIA Test GPU"}
    tensor = table.filter(pl.col("metric") == "sm__ops_path_tensor_src_fp64.sum")
    assert tensor["text"].to_list() == ["500.0", "0.0", "n/a"]
    assert tensor["value"].to_list() == [500.0, 0.0, None]
    kernels = {r["kernel"]: r for r in ncu_breakdown(path).kernels.iter_rows(named=True)}
    assert (kernels["k(int)"]["ops_fp64"], kernels["k(int)"]["ops_fp64_tensor"]) == (800, 500)
    assert kernels["k(int)"]["precision"] == "fp64" and kernels["k(int)"]["launches"] == 2
    assert kernels["k(int)"]["time_s"] == pytest.approx(2e-6)
    assert (kernels["j(float*)"]["flop"], kernels["j(float*)"]["bytes_dram"]) == (100, 4000)
    assert kernels["j(float*)"]["ops_fp64_tensor"] is None  # n/a: not counted, not 0


def test_a_report_without_kernels_or_without_the_package(tmp_path: Path, monkeypatch) -> None:
    path = _report(tmp_path)
    _use(monkeypatch, _fake_module([]))
    with pytest.raises(InputError, match="no profiled kernel in the report"):
        read_ncu(path)
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # not installed: ImportError
    with pytest.raises(InputError) as err:
        load_points("ncu", path)
    assert "pip install 'rooflow[ncu]'" in str(err.value)
    assert "ncu --import NAME.ncu-rep --csv" in str(err.value) and "\n" not in str(err.value)


def test_the_real_reader_refuses_what_is_no_report(tmp_path: Path) -> None:
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(b"NVR\x00\x02\x00\x00\x00" + bytes(200))
    with pytest.raises(InputError, match="no profiled kernel"):
        load_points("ncu", cut)
    text = tmp_path / "notes.ncu-rep"
    text.write_text("not a report\n")
    assert not sniff(text) and sniff(cut)


@pytest.mark.shared
def test_an_ncu_preset_names_its_launch_s_kernel_shortened_not_cut() -> None:
    # The rmsnorm report's launch 0 is 'rms_norm_matrix_kernel(float *, float *, float *,
    # int, int, float)': its source names it with its arguments elided, as plots and
    # messages do, never cut off after 60 characters mid-list.
    report = next((DATA / "ncu-rep" / "h100pcie-rmsnorm-fullset").glob("*.ncu-rep"))
    source = ncu_preset(report)["source"]
    assert "launch 0 'rms_norm_matrix_kernel(…)': SM 1103 MHz" in source
