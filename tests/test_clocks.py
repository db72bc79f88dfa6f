"""Clock-aware roofs and the launch floor (issue 31 items 3 and 10), worked by hand."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from rooflow.analysis import analyze
from rooflow.clocks import clock_note
from rooflow.errors import InputError
from rooflow.points import check_points, to_points
from rooflow.roofs.datasheet import load_hardware
from rooflow.roofs.preset import custom_preset, select_preset

# A100 fp64 (non-tensor): 9.7 TFLOP/s at the 1,410 MHz boost clock (A100 datasheet; white
# paper Table 1: 108 SMs × 32 FP64 FMA/clk × 2 FLOP × 1.41 GHz = 9.75). At the 1,095 MHz
# base clock (what ncu --clock-control base holds) the roof is 9.7 × 1095 / 1410
# = 7.5330 TFLOP/s.
A100_FP64_AT_BASE = 9.7e12 * 1095 / 1410


@pytest.fixture(scope="module")
def presets(repo):
    return load_hardware(repo / "config/hardware.yaml")


def _dfma(clock_hz=None, perf=A100_FP64_AT_BASE, **extra):
    """One fp64 point at intensity 100 FLOP/byte (compute-bound on an A100: ridge 4.76)."""
    return to_points(pl.DataFrame({
        "kernel": ["dfma"], "precision": ["fp64"], "flop": [perf], "bytes": [perf / 100],
        "time_s": [1.0], "arithmetic_intensity": [100.0], "performance": [perf],
        "clock_hz": [clock_hz], **{k: [v] for k, v in extra.items()}},
        schema_overrides={"clock_hz": pl.Float64}))


def test_a100_presets_give_their_clocks(presets):
    # White paper: boost 1410 MHz; base 1095 MHz (the clock the hand-worked case runs at).
    a100 = presets["a100-sxm"]
    assert (a100.roof_clock_hz, a100.base_clock_hz) == (1410e6, 1095e6)
    assert "1410 MHz" in a100.clock_source


def test_every_nvidia_and_amd_datasheet_preset_has_clocks_unless_it_says_why(presets):
    # Data of these GPUs can carry a clock; B200 and GB200: NVIDIA states no clock.
    for key, p in presets.items():
        if p.empirical or not key.startswith(("a1", "h1", "h2", "b2", "gb", "l4", "rtx", "mi")):
            continue
        assert p.roof_clock_hz or "states no clock" in p.source, key


def test_dfma_at_full_rate_at_the_base_clock_is_100_percent_of_the_roof_at_that_clock(presets):
    # Issue 31 item 3: a kernel at 7.533 TFLOP/s at 1,095 MHz is 100 % of the roof at the
    # clock held (7.533), and 7.533 / 9.7 = 77.66 % of the datasheet roof.
    a100 = presets["a100-sxm"]
    row = analyze(_dfma(1095e6), a100).row(0, named=True)
    assert row["compute_roof"] == pytest.approx(7.5330e12, rel=1e-4)
    assert row["pct_of_roof"] == pytest.approx(100.0)
    assert (row["clock_hz"], row["roof_clock_hz"]) == (1095e6, 1095e6)
    assert row["potential_time_saved_s"] == pytest.approx(0.0, abs=1e-12)
    row = analyze(_dfma(1095e6), a100.with_roofs_at("datasheet")).row(0, named=True)
    assert row["compute_roof"] == 9.7e12 and row["roof_clock_hz"] == 1410e6
    assert row["pct_of_roof"] == pytest.approx(77.66, abs=0.005)


def test_a_point_without_a_clock_keeps_the_datasheet_roof(presets):
    row = analyze(_dfma(None), presets["a100-sxm"]).row(0, named=True)
    assert row["compute_roof"] == 9.7e12 and row["roof_clock_hz"] == 1410e6
    assert row["clock_hz"] is None and row["roof_note"] == ""


def test_memory_roofs_are_not_scaled_with_the_sm_clock(presets):
    # AI 1 FLOP/byte on A100 HBM (2,039 GB/s): attainable 2.039 TFLOP/s at any SM clock.
    point = _dfma(1095e6, perf=1e12).with_columns(arithmetic_intensity=pl.lit(1.0))
    row = analyze(point, presets["a100-sxm"]).row(0, named=True)
    assert row["attainable"] == pytest.approx(2.039e12) and row["bound"] == "memory"


def test_a_preset_without_clocks_keeps_its_roofs_and_says_why(presets):
    # v100-nersc is measured (ERT) and gives no clock: 7.06886 TFLOP/s fp64 stays.
    row = analyze(_dfma(1095e6, perf=7e12), presets["v100-nersc"]).row(0, named=True)
    assert row["compute_roof"] == pytest.approx(7.06886e12) and row["roof_clock_hz"] is None
    assert row["roof_note"] == ("roofs as v100-nersc gives them, not at the clock held: "
                                "v100-nersc gives no clock for its roofs")


def test_a_compute_roof_given_by_hand_is_not_scaled(presets):
    custom = custom_preset(10, 1000)  # 10 TFLOP/s "peak": no clock
    assert analyze(_dfma(1095e6), custom).row(0, named=True)["compute_roof"] == 10e12
    overridden = select_preset(presets, "a100-sxm", peak_tflops=300)
    assert overridden.roof_clock_hz is None


def test_plot_note_names_the_clock_held_and_the_datasheet_clock(presets):
    a100 = presets["a100-sxm"]
    drawn, line = clock_note(analyze(_dfma(1095e6), a100), a100)
    assert line == "roofs at 1,095 MHz, the clock held while profiling (datasheet: 1,410 MHz)"
    # The roofs drawn are at that clock: fp64 9.7 → 7.533, fp16-tensor 312 → 242.3.
    assert drawn.compute["fp64"] == pytest.approx(7.5330e12, rel=1e-4)
    assert drawn.compute["fp16-tensor"] == pytest.approx(312e12 * 1095 / 1410)
    assert drawn.memory == a100.memory
    # Profiled at the boost clock (ncu --clock-control none on an idle A100): nothing moves.
    assert clock_note(analyze(_dfma(1410e6), a100), a100)[1] == (
        "roofs at 1,410 MHz, the datasheet's clock, held while profiling")
    ds = a100.with_roofs_at("datasheet")
    drawn, line = clock_note(analyze(_dfma(1095e6), ds), ds)
    assert drawn is ds and line == ("roofs at the datasheet clocks (--roofs-at datasheet); "
                                    "the kernels ran at 1,095 MHz")


def test_plot_note_of_kernels_at_several_clocks_gives_the_median_drawn(presets):
    a100 = presets["a100-sxm"]
    points = pl.concat([_dfma(1000e6), _dfma(1100e6), _dfma(1200e6)])
    drawn, line = clock_note(analyze(points, a100), a100)
    assert drawn.roof_clock_hz == 1100e6
    assert line == ("roofs at 1,100 MHz, the median clock held while profiling (kernels "
                    "1,000–1,200 MHz, each judged at its own; datasheet: 1,410 MHz)")


def test_check_points_refuses_a_zero_clock_and_zero_launches():
    with pytest.raises(InputError, match="clock_hz"):
        check_points(_dfma(0.0), "x.csv")
    with pytest.raises(InputError, match="launches"):
        check_points(_dfma(1e9, launches=0), "x.csv")


def _op(label, time_s, launches, headroom):
    """A bandwidth-bound operator point: DRAM, AI 0.1, performance = attainable / headroom."""
    perf = 0.1 * 2039e9 / headroom
    return {"kernel": label, "label": label, "precision": "fp32", "flop": perf * time_s,
            "bytes": perf * time_s / 0.1, "time_s": time_s, "arithmetic_intensity": 0.1,
            "performance": perf, "launches": launches}


def test_launch_floor_a_3us_call_saves_nothing_and_ranks_below_real_savings(presets):
    # Issue 31 item 10, on a preset with a 4 µs launch overhead:
    # aten::add_ [1]: 3 µs, 1 call, headroom 1000 → roofline time 3 ns, floor 1 × 4 µs:
    #   saved = 3 − max(0.003, 4) < 0 → 0 (without the floor: 3 × (1 − 1/1000) = 2.997 µs).
    # a copy: 100 µs, 1 call, headroom 2 → roofline time 50 µs > 4 µs: saved 50 µs.
    # 590 calls of 3.57 µs (2.108 ms, the A100 DDP trace's aten::add_): floor 590 × 4 µs
    #   = 2.36 ms > 2.108 ms → 0.
    preset = replace(presets["a100-sxm"], launch_overhead_s=4e-6)
    points = to_points(pl.DataFrame([_op("aten::add_ [1]", 3e-6, 1, 1000),
                                     _op("copy", 100e-6, 1, 2),
                                     _op("add x590", 2.108e-3, 590, 364255)]))
    table = analyze(points, preset)
    saved = dict(zip(table["label"], table["potential_time_saved_s"], strict=True))
    assert saved["aten::add_ [1]"] == 0.0 and saved["add x590"] == 0.0
    assert saved["copy"] == pytest.approx(50e-6)
    ranked = table.sort("potential_time_saved_s", descending=True)["label"].to_list()
    assert ranked[0] == "copy"
    # No launch overhead on the preset: the old formula, time × (1 − 1/headroom).
    bare = analyze(points, replace(preset, launch_overhead_s=None))
    assert bare["potential_time_saved_s"][0] == pytest.approx(2.997e-6)


def test_launch_floor_counts_a_point_without_launches_as_one(presets):
    # 3 µs, launches unknown, 4 µs overhead: floor 1 × 4 µs → saved 0.
    preset = replace(presets["a100-sxm"], launch_overhead_s=4e-6)
    point = {**_op("k", 3e-6, None, 1000)}
    table = analyze(to_points(pl.DataFrame([point])), preset)
    assert table["potential_time_saved_s"][0] == 0.0


def test_launch_overheads_are_sourced(presets):
    # A100 SXM: 5 µs, the 1st percentile of the spacing of back-to-back tiny kernels in
    # the A100 DDP trace; H100: the 3.0 µs of ~334,000 empty kernel calls per second.
    assert presets["a100-sxm"].launch_overhead_s == 5e-6
    assert "hta-a100-ddp-109k" in presets["a100-sxm"].launch_overhead_source
    assert presets["h100-sxm"].launch_overhead_s == 3e-6
    assert "334,000" in presets["h100-sxm"].launch_overhead_source


@pytest.mark.shared
def test_ncu_csv_kernel_clock_is_its_cycles_over_its_time(shared_data):
    # no-flops-a100 (A100 PCIe held at its 765 MHz base clock by ncu), the first kernel's
    # two launches: cycles 1,708,634.20 at 765,001,631.38 Hz and 1,708,616.37 at
    # 764,982,686.81 Hz; Σ cycles / Σ (cycles / Hz) = 764,992,159.03 Hz.
    from rooflow.adapters.ncu.reader import ncu_kernels, ncu_points

    path = shared_data / "ncu/no-flops-a100/output_A100.csv"
    first = ncu_kernels(path).row(0, named=True)
    assert first["launches"] == 2
    assert first["clock_hz"] == pytest.approx(764_992_159.03, rel=1e-10)
    points = ncu_points(path, log=lambda _: None)
    assert points["launches"].to_list()[0] == 2
    assert points["clock_hz"][0] == pytest.approx(764_992_159.03, rel=1e-10)


@pytest.mark.shared
def test_ncu_report_clock_scales_the_h100_pcie_roofs(shared_data, presets):
    # h100pcie-rmsnorm-fullset: sm__cycles_elapsed.avg.per_second of its 3 launches gives
    # 1,101.36 MHz (the clock ncu held); the fp32 roof 51 TFLOP/s at the 1,755 MHz boost
    # clock is 51 × 1101.36 / 1755 = 32.005 TFLOP/s there.
    from rooflow.adapters.ncu.reader import ncu_points

    points = ncu_points(shared_data / "ncu-rep/h100pcie-rmsnorm-fullset/2025-04-21_v1.ncu-rep",
                        log=lambda _: None)
    row = analyze(points, presets["h100-pcie"]).row(0, named=True)
    assert row["clock_hz"] == pytest.approx(1.10136e9, rel=1e-5)
    assert row["compute_roof"] == pytest.approx(32.005e12, rel=1e-4)
    assert row["roof_clock_hz"] == row["clock_hz"] and row["launches"] == 3


@pytest.mark.shared
def test_ddp_trace_aten_add_no_longer_tops_the_ranking(shared_data, presets):
    # hta-a100-ddp-109k: aten::add_ [1]x[1] is 590 kernel launches in 2.108 ms (3.57 µs
    # each); on a100-sxm (5 µs per launch) the floor is 590 × 5 µs = 2.95 ms > 2.108 ms:
    # it saves 0 (it saved 2.108 ms, and ranked first, without the floor).
    from rooflow.adapters.pytorch.reader import pytorch_points

    points = pytorch_points(shared_data / "pytorch/hta-a100-ddp-109k/rank0.json.gz",
                            log=lambda _: None)
    table = analyze(points, presets["a100-sxm"])
    add = table.filter(pl.col("label").str.starts_with("aten::add_ [1]x[1]")).row(0, named=True)
    assert (add["launches"], add["time_s"]) == (590, pytest.approx(2.108e-3))
    assert add["potential_time_saved_s"] == 0.0
    top = table.sort("potential_time_saved_s", descending=True, nulls_last=True).row(0, named=True)
    assert top["label"].startswith("aten::copy_")


def test_dram_roof_scales_with_the_memory_clock_only_where_both_are_known(presets):
    # a100-sxm: HBM 2,039 GB/s = 5120 bit / 8 × 2 × 1.593 GHz (memory_mhz 1593). At a
    # 1,215 MHz memory clock: 2039 × 1215 / 1593 = 1,555.2 GB/s (the A100 40 GB's 1,555).
    # L2 (7,219 GB/s) is never scaled; h100-pcie gives no memory clock: 2,000 GB/s stays.
    point = pl.concat([_dfma(None, perf=1e12, memory_clock_hz=1215e6)
                       .with_columns(level=pl.lit(lv).cast(pl.Categorical),
                                     arithmetic_intensity=pl.lit(1.0))
                       for lv in ("DRAM", "L2")])
    a100 = presets["a100-sxm"]
    table = analyze(point, a100)
    assert table["memory_roof"].to_list() == pytest.approx([1555.2e9, 7219e9], rel=1e-4)
    # Achieved bandwidth 1e10 byte / 1 s: 1e10 / 1,555.2e9 = 0.643 % of the roof held.
    assert table["pct_of_memory_roof"][0] == pytest.approx(1e10 / (2039e9 * 1215 / 1593) * 100)
    drawn, line = clock_note(table, a100)
    assert drawn.memory["HBM"] == pytest.approx(1555.2e9, rel=1e-4)
    assert drawn.compute == a100.compute  # no SM clock: compute roofs as given
    assert line == "DRAM roof at the memory clock held, 1,215 MHz (nominal 1,593 MHz)"
    assert analyze(point, a100.with_roofs_at("datasheet"))["memory_roof"][0] == 2039e9
    assert analyze(point, presets["h100-pcie"])["memory_roof"][0] == 2000e9


@pytest.mark.shared
def test_ncu_report_memory_clock(shared_data):
    # h100pcie-rmsnorm-fullset: dram__cycles_elapsed.avg.per_second 1,592.83 MHz (its
    # 5120-bit HBM2e: 640 B × 2 × 1.5928 GHz = 2,039 GB/s).
    from rooflow.adapters.ncu.reader import ncu_points

    points = ncu_points(shared_data / "ncu-rep/h100pcie-rmsnorm-fullset/2025-04-21_v1.ncu-rep",
                        log=lambda _: None)
    assert points["memory_clock_hz"][0] == pytest.approx(1.59284e9, rel=1e-5)


def test_another_gpus_clock_does_not_scale_the_roofs(presets):
    # An RTX 3060 kernel (817 MHz SM, 5,992 MHz GDDR6) drawn on a100-sxm: its clocks say
    # nothing of an A100's, so the A100 roofs stay (9.7 TFLOP/s fp64, 2,039 GB/s HBM) and
    # the note says why; the same point without a device name is taken as the A100's.
    a100 = presets["a100-sxm"]
    rtx = _dfma(817e6, memory_clock_hz=5992e6, device="NVIDIA GeForce RTX 3060 Laptop GPU")
    row = analyze(rtx, a100).row(0, named=True)
    assert (row["compute_roof"], row["roof_clock_hz"]) == (9.7e12, 1410e6)
    assert row["roof_note"] == ("roofs at a100-sxm's own clocks: measured on another GPU, "
                                "whose clock says nothing of this one's")
    assert clock_note(analyze(rtx, a100), a100) == (a100, "")
    own = _dfma(817e6, device="NVIDIA A100-SXM4-80GB")
    assert analyze(own, a100)["compute_roof"][0] == pytest.approx(9.7e12 * 817 / 1410)
