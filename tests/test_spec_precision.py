"""Precision is never assumed: a spec's dtype on its family's compute unit gives it.

Roofs from the packaged hardware.yaml: h100-sxm bf16 (non-tensor) 133.8 TFLOP/s and
bf16-tensor 989.4 TFLOP/s dense, HBM3 3,350 GB/s (NVIDIA H100 Tensor Core GPU datasheet
2023 and H100 architecture white paper 2022); arc-pro-b70 has bf16-tensor but no bf16
(vector) roof.
"""

from __future__ import annotations

import logging
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.specs import spec_points
from rooflow.analysis import analyze
from rooflow.errors import InputError
from rooflow.models.families import load_families
from rooflow.roofs import load_preset

REPO = Path(__file__).resolve().parents[1]

# RMS norm of X (M×N) with weight W (N): per element a square, a sum, a multiply by the
# reciprocal root and by W → 4 FLOP; bytes read X, write Y, read W, at 2 bytes (bf16).
RMS_NORM = """\
inputs:
  X: {shape: [M, N], dtype: bfloat16}
  W: {shape: [N], dtype: bfloat16}
bench-gpu:
  - params: [X, W]
    dims: {M: 4096, N: 8192}
    flop: "4*M*N"
    bytes: "2*M*N*2 + N*2"
"""

# C (M×N) = A (M×K) · B (K×N), bf16: 2·M·N·K FLOP; A, B read and C written once.
GEMM = """\
inputs:
  A: {shape: [M, K], dtype: bfloat16}
  B: {shape: [K, N], dtype: bfloat16}
bench-gpu:
  - params: [A, B]
    dims: {M: 4096, N: 4096, K: 4096}
    flop: "2*M*N*K"
    bytes: "(M*K + K*N + M*N)*2"
"""


def _spec(tmp_path: Path, name: str, text: str) -> pl.DataFrame:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return spec_points(path, load_families(REPO / "config/families.yaml"))


def test_bf16_rms_norm_is_judged_on_the_bf16_vector_roof(tmp_path):
    points = _spec(tmp_path, "rms_norm", RMS_NORM)  # "norm": a vector family
    assert points["precision"].to_list() == ["bf16"]
    table = analyze(points, load_preset("h100-sxm"))
    # AI = 4·M·N / (4·M·N + 2·N) = 134,217,728 / 134,234,112 = 0.999878 FLOP/byte; memory
    # roof there 0.999878 × 3,350 GB/s = 3.34959 TFLOP/s < bf16 133.8: memory-bound.
    assert table["compute_roof_name"].to_list() == ["bf16"]
    assert table["compute_roof"][0] == pytest.approx(133.8e12)
    assert table["arithmetic_intensity"][0] == pytest.approx(0.999878, rel=1e-6)
    assert table["attainable"][0] == pytest.approx(3.34959e12, rel=1e-5)
    assert table["bound"].to_list() == ["memory"]
    assert table["roof_note"].to_list() == [""]


def test_a_preset_without_the_bf16_vector_roof_says_so_and_never_falls_back(tmp_path):
    table = analyze(_spec(tmp_path, "rms_norm", RMS_NORM), load_preset("arc-pro-b70"))
    # arc-pro-b70 has bf16-tensor 183.5 but no bf16: no roof, not the tensor one.
    assert table["roof_note"].to_list() == ["no bf16 roof on arc-pro-b70"]
    assert table["compute_roof"].to_list() == [None]
    assert table["attainable"].to_list() == [None]
    assert table["bound"].to_list() == [None]


def test_bf16_gemm_is_judged_on_the_bf16_tensor_roof(tmp_path):
    points = _spec(tmp_path, "gemm", GEMM)  # "gemm": a tensor family
    assert points["precision"].to_list() == ["bf16-tensor"]
    # 2·4096³ = 137,438,953,472 FLOP; 3·4096²·2 = 100,663,296 bytes: AI 1,365.33, right
    # of the ridge 989.4 / 3.35 = 295.34, so compute-bound at 989.4 TFLOP/s. Measured at
    # 600 TFLOP/s: 600 / 989.4 = 60.643 % of roof (on the vector bf16 roof it would be
    # above it: 600 / 133.8 = 448 %).
    measured = points.with_columns(performance=pl.lit(600e12))
    table = analyze(measured, load_preset("h100-sxm"))
    assert table["arithmetic_intensity"][0] == pytest.approx(1365.333, rel=1e-6)
    assert table["compute_roof_name"].to_list() == ["bf16-tensor"]
    assert table["bound"].to_list() == ["compute"]
    assert table["pct_of_roof"][0] == pytest.approx(60.643, rel=1e-4)


def test_the_spec_overrides_its_family_unit(tmp_path):
    points = _spec(tmp_path, "gemm", "compute_unit: vector\n" + GEMM)
    assert points["precision"].to_list() == ["bf16"]
    with pytest.raises(InputError, match="'compute_unit' must be one of tensor, vector"):
        _spec(tmp_path, "gemm", "compute_unit: xmx\n" + GEMM)


def test_the_variant_dtype_comes_before_its_inputs(tmp_path):
    text = GEMM.replace("  - params: [A, B]\n", "  - params: [A, B]\n    dtype: float16\n")
    assert _spec(tmp_path, "gemm", text)["precision"].to_list() == ["fp16-tensor"]


@pytest.mark.parametrize(("name", "text", "why"), [
    # no pattern of compute_units matches "my_kernel": no unit, so no precision
    ("my_kernel", GEMM, "no compute unit (tensor or vector) for bfloat16"),
    # fp8 weights and bf16 activations: no one dtype to take
    ("gemm", GEMM.replace("dtype: bfloat16}\nbench", "dtype: float8_e4m3fn}\nbench"),
     "mixed input dtypes bfloat16/float8_e4m3fn and no variant dtype"),
    # vector units have no fp8 precision
    ("rms_norm", RMS_NORM.replace("bfloat16", "float8_e4m3fn"),
     "no vector precision for float8_e4m3fn"),
])
def test_no_precision_is_given_and_said(tmp_path, caplog, name, text, why):
    with caplog.at_level(logging.WARNING, logger="rooflow.specs"):
        points = _spec(tmp_path, name, text)
    assert points["precision"].to_list() == [""]
    (message,) = [r.getMessage().split(": ", 1)[1] for r in caplog.records]
    assert message.startswith(f"precision not given for 1 variant (bench-gpu): {why}")
    table = analyze(points, load_preset("h100-sxm"))
    assert table["roof_note"].to_list() == ["precision not given"]
    assert table["attainable"].to_list() == [None]
    assert table["performance"].to_list() == [None]  # theoretical: no roof to sit on


def test_a_family_model_unit_gives_its_width_codes_a_precision(tmp_path):
    families = tmp_path / "families.yaml"
    families.write_text(
        "families:\n  Norm2:\n    compute_unit: vector\n"
        "    widths: {0: {act: 2, label: act}}\n"
        "    flop: 4*M*N\n    bytes: 2*M*N*act\n", encoding="utf-8")
    spec = tmp_path / "Norm2.yaml"
    spec.write_text(RMS_NORM, encoding="utf-8")
    # The width code names no precision: the inputs' bfloat16 on the family's vector unit.
    assert spec_points(spec, load_families(families))["precision"].to_list() == ["bf16"]


def test_families_file_unit_and_pattern_errors(tmp_path):
    families = tmp_path / "families.yaml"
    base = "families:\n  G:\n    widths: {0: {a: 2, label: x}}\n    flop: '1'\n    bytes: '1'\n"
    families.write_text(base + "    compute_unit: xmx\n", encoding="utf-8")
    with pytest.raises(InputError, match="xmx"):
        load_families(families)
    families.write_text(base + "compute_units: {tensor: ['gemm(']}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_families(families)
    assert err.value.column == "$.compute_units.tensor[0]"


def test_a_benchmark_row_takes_its_variant_dtype_on_its_family_unit(tmp_path):
    from rooflow.adapters.benchmarks import benchmark_points

    # A model whose width code names no precision: the variant's bfloat16 inputs on the
    # family's tensor unit give bf16-tensor to both points of the row.
    families = tmp_path / "families.yaml"
    families.write_text(
        "families:\n  Gemm2:\n    compute_unit: tensor\n    widths: {0: {e: 2, label: bf16}}\n"
        "    flop: 2*M*N*K\n    bytes: (M*K + K*N + M*N)*e\n", encoding="utf-8")
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "Gemm2.yaml").write_text(GEMM, encoding="utf-8")
    csv = tmp_path / "bench.csv"
    csv.write_text("family,shape_key,baseline_us,triton_us,tflops\n"
                   "Gemm2,bench-gpu,400,200,687.19\n", encoding="utf-8")
    points = benchmark_points(csv, specs, load_families(families))
    assert points["precision"].to_list() == ["bf16-tensor"] * 2


def test_a_dim_may_not_be_named_precision(tmp_path):
    # The points' own precision column: a dim of that name would stand for it.
    text = GEMM.replace("{M: 4096,", "{precision: 16, M: 4096,")
    with pytest.raises(InputError, match="dim name must be an identifier") as err:
        _spec(tmp_path, "gemm", text)
    assert err.value.value == "precision"
