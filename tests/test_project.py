"""`rooflow project`: one workload on several presets (issue 36, item 1)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest

from rooflow.defaults import DEFAULT_HARDWARE
from rooflow.points import to_points
from rooflow.project import LAUNCH, NO_ROOF, PROJECTED, project
from rooflow.roofs import read_presets

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
PRESETS = read_presets(DEFAULT_HARDWARE)

# The workload (model FLOP: datasheet roofs), measured on an H100 SXM:
# gemm 10¹² FLOP bf16-tensor, 10⁹ B DRAM, 2.0 ms; copy 10⁶ FLOP fp32, 4·10⁹ B, 1.5 ms.
WORKLOAD = pl.DataFrame({
    "kernel": ["gemm", "copy"], "precision": ["bf16-tensor", "fp32"],
    "flop": [1e12, 1e6], "bytes": [1e9, 4e9], "time_s": [2.0e-3, 1.5e-3]})


def points(frame: pl.DataFrame = WORKLOAD) -> pl.DataFrame:
    return to_points(frame.with_columns(
        arithmetic_intensity=pl.col("flop") / pl.col("bytes"),
        performance=pl.col("flop") / pl.col("time_s"), source=pl.lit("w.csv"),
        row=pl.int_range(1, pl.len() + 1)))


def by(table: pl.DataFrame, *keys: str) -> dict:
    return {tuple(r[k] for k in keys): r for r in table.iter_rows(named=True)}


def test_roofline_and_projected_times_worked_by_hand():
    result = project(points(), [PRESETS["h100-sxm"], PRESETS["mi300x"]])
    k = by(result.kernels, "preset", "kernel")
    # h100-sxm (NVIDIA H100 datasheet, 2023: BF16 Tensor 989.4 TFLOP/s dense, FP32 67,
    # HBM3 3.35 TB/s): gemm max(10¹² / 989.4e12 = 1.0107 ms, 10⁹ / 3.35e12 = 0.2985 ms,
    # 1 launch × 3 µs) = 1.0107 ms, compute-limited; copy max(10⁶ / 67e12 = 1.5e-8 s,
    # 4e9 / 3.35e12 = 1.1940 ms) = 1.1940 ms, HBM-limited; total 2.2047 ms.
    assert k["h100-sxm", "gemm"]["roofline_time_s"] == pytest.approx(1.0107e-3, rel=1e-4)
    assert k["h100-sxm", "gemm"]["limiter"] == "bf16-tensor"
    assert k["h100-sxm", "copy"]["roofline_time_s"] == pytest.approx(1.1940e-3, rel=1e-4)
    assert k["h100-sxm", "copy"]["limiter"] == "HBM"
    # mi300x (AMD CDNA 3 white paper, 2024: BF16 matrix 1307.4 TFLOP/s, HBM3 5.325 TB/s):
    # gemm 10¹² / 1307.4e12 = 0.7649 ms; copy 4e9 / 5.325e12 = 0.7512 ms; total 1.5161 ms.
    assert k["mi300x", "gemm"]["roofline_time_s"] == pytest.approx(0.7649e-3, rel=1e-4)
    assert k["mi300x", "copy"]["roofline_time_s"] == pytest.approx(0.7512e-3, rel=1e-4)
    # Measured % of roof (on h100-sxm): gemm 1.0107 / 2.0 = 50.54 %, copy 1.1940 / 1.5 =
    # 79.60 %. Projected on mi300x at those shares: gemm 0.7649 / 0.5054 = 1.5135 ms,
    # copy 0.7512 / 0.7960 = 0.9437 ms; total 2.4572 ms (3.5 / 2.4572 = 1.4244× faster).
    assert k["mi300x", "gemm"]["pct_of_roof"] == pytest.approx(50.535, rel=1e-4)
    assert k["mi300x", "gemm"]["projected_time_s"] == pytest.approx(1.5135e-3, rel=1e-4)
    assert k["mi300x", "copy"]["projected_time_s"] == pytest.approx(0.94366e-3, rel=1e-4)
    t = by(result.totals, "preset")
    assert t["h100-sxm",]["roofline_time_s"] == pytest.approx(2.2047e-3, rel=1e-4)
    assert t["mi300x",]["roofline_time_s"] == pytest.approx(1.5161e-3, rel=1e-4)
    assert t["mi300x",]["projected_time_s"] == pytest.approx(2.4572e-3, rel=1e-4)
    # On the GPU it was measured on, the projection is the measurement itself.
    assert t["h100-sxm",]["projected_time_s"] == pytest.approx(3.5e-3)
    # Ranked fastest first: mi300x (2.4572 ms) before h100-sxm (3.5 ms).
    assert result.totals["preset"].to_list() == ["mi300x", "h100-sxm"]
    assert result.totals["rank"].to_list() == [1, 2]


def test_a_precision_without_a_roof_is_listed_apart():
    # h100-pcie has no bf16 (vector) roof (its datasheet gives none): the bf16 kernel is
    # not projected there, nor counted in its totals; h100-sxm has one (133.8 TFLOP/s).
    extra = pl.DataFrame({"kernel": ["hgemv"], "precision": ["bf16"], "flop": [1e9],
                          "bytes": [1e9], "time_s": [0.5e-3]})
    result = project(points(pl.concat([WORKLOAD, extra])),
                     [PRESETS["h100-sxm"], PRESETS["h100-pcie"]])
    k = by(result.kernels, "preset", "kernel")
    assert k["h100-pcie", "hgemv"]["status"] == NO_ROOF
    assert k["h100-pcie", "hgemv"]["roofline_time_s"] is None
    assert k["h100-pcie", "hgemv"]["projected_time_s"] is None
    assert "no bf16 roof on h100-pcie" in k["h100-pcie", "hgemv"]["note"]
    assert k["h100-sxm", "hgemv"]["status"] == PROJECTED
    t = by(result.totals, "preset")
    assert (t["h100-pcie",]["kernels"], t["h100-pcie",]["not_projected"]) == (2, 1)
    # Its measured time counts the projected kernels only: 2.0 + 1.5 ms.
    assert t["h100-pcie",]["measured_time_s"] == pytest.approx(3.5e-3)


def test_the_launch_floor_limits_a_tiny_kernel():
    # 10⁶ FLOP fp32 and 10⁴ B, 100 launches: on h100-sxm 10⁶ / 67e12 = 15 ns and 10⁴ /
    # 3.35e12 = 3 ns, but 100 launches × 3 µs (its launch_overhead) = 300 µs.
    tiny = pl.DataFrame({"kernel": ["tiny"], "precision": ["fp32"], "flop": [1e6],
                         "bytes": [1e4], "time_s": [4e-4], "launches": [100]})
    k = by(project(points(tiny), [PRESETS["h100-sxm"]]).kernels, "kernel")
    assert k["tiny",]["roofline_time_s"] == pytest.approx(300e-6)
    assert k["tiny",]["limiter"] == LAUNCH


def test_panels_share_identical_axes():
    from rooflow.plotting.project import figure

    # h100-sxm, mi300x and a100-sxm have different roofs (and own windows): one frame.
    result = project(points(), [PRESETS["h100-sxm"], PRESETS["mi300x"], PRESETS["a100-sxm"]])
    axes = figure(result, PRESETS).axes
    assert len(axes) == 3
    assert len({(ax.get_xlim(), ax.get_ylim()) for ax in axes}) == 1
    # Panels in the ranking's order: mi300x, h100-sxm, a100-sxm.
    assert [ax.get_title().split(":")[0] for ax in axes] == ["1. mi300x", "2. h100-sxm",
                                                            "3. a100-sxm"]


def test_measured_on_another_preset():
    # Measured on mi300x instead: gemm's share is 0.7649 / 2.0 = 38.25 %, so on h100-sxm
    # it projects to 2.0 × 1.0107 / 0.7649 = 2.6428 ms.
    result = project(points(), [PRESETS["h100-sxm"]], PRESETS["mi300x"])
    k = by(result.kernels, "kernel")
    assert k["gemm",]["projected_time_s"] == pytest.approx(2.6428e-3, rel=1e-4)
    assert result.measured_on == "mi300x"


def test_cli_totals_per_kernel_and_bad_preset(tmp_path):
    csv = tmp_path / "w.csv"
    csv.write_text("kernel,precision,flop,bytes,time_us\n"
                   "gemm,bf16-tensor,1e12,1e9,2000\ncopy,fp32,1e6,4e9,1500\n")
    out, per = tmp_path / "t.csv", tmp_path / "k.csv"
    run = subprocess.run([ROOFLOW, "project", str(csv), "--hardware", "h100-sxm,mi300x",
                          "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    totals = pl.read_csv(out)
    assert {"preset", "kernels", "measured_time_s", "roofline_time_s",
            "projected_time_s"} <= set(totals.columns)
    assert totals["preset"].to_list() == ["mi300x", "h100-sxm"]
    png, page = tmp_path / "p.png", tmp_path / "p.html"
    run = subprocess.run([ROOFLOW, "project", str(csv), "--hardware", "h100-sxm,mi300x",
                          "--per-kernel", "-o", str(per), "--plot", str(png), "--html",
                          str(page)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert pl.read_csv(per).height == 4  # 2 kernels × 2 presets
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "1. mi300x" in page.read_text() and "gemm" in page.read_text()
    bad = subprocess.run([ROOFLOW, "project", str(csv), "--hardware", "h100-sxm,nope",
                          "-o", str(tmp_path / "x.csv")], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 1
    assert "nope" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "x.csv").exists()
