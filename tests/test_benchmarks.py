"""Benchmark results CSV → Original/Optimized point pairs on the family model's intensity."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.benchmarks import benchmark_points
from rooflow.errors import InputError
from rooflow.models.families import load_families
from rooflow.points import POINT_SCHEMA

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "resources" / "specs"
SHIPPED = REPO / "resources" / "benchmarks" / "moe_attention.csv"
VLLM = REPO.parent / "shared" / "data" / "xe-forge" / "examples" / "vllm"
HEADER = "family,shape_key,config,baseline_us,triton_us,tflops\n"
KNOWN = '2_BatchedMoE,bench-gpu,"E=128,M=64,K=768,N=2048",826.56,784.2,32.861\n'
FUSED = '3_FusedMoE,bench-gpu-1,"E=32,M=64,K=2880,N=5760",2141.1,2009.19,33.818\n'


@pytest.fixture(scope="module")
def families():
    return load_families(REPO / "config" / "families.yaml")


def _csv(tmp_path: Path, body: str, header: str = HEADER) -> Path:
    path = tmp_path / "bench.csv"
    path.write_text(header + body, encoding="utf-8")
    return path


def _points(tmp_path: Path, families, body: str, **kwargs) -> pl.DataFrame:
    return benchmark_points(_csv(tmp_path, body), SPECS, families, **kwargs)


def test_known_batched_moe_row(tmp_path: Path, families) -> None:
    # FLOP = 128·64·2048·768·2 = 25 769 803 776
    # bytes (bf16) = 12 582 912 + 402 653 184 + 33 554 432 + 512 = 448 791 040
    # AI = 25 769 803 776 / 448 791 040 = 57.42 FLOP/byte
    # Optimized = 32.861 TFLOP/s; Original = 32.861·784.2/826.56 = 31.177 TFLOP/s
    points = _points(tmp_path, families, KNOWN)
    assert points.schema == pl.Schema(POINT_SCHEMA)
    original, optimized = points.rows(named=True)
    for point in (original, optimized):
        assert point["arithmetic_intensity"] == pytest.approx(57.42, abs=0.005)
        assert (point["flop"], point["bytes"]) == (25_769_803_776, 448_791_040)
        assert point["pair"] == "BatchedMoE:bench-gpu"
        assert point["family"] == "BatchedMoE"
        assert point["label"] == "qwen3-30b-A3B w2: swiglu output -> final output (M=64)"
        assert (point["kernel"], point["row"], point["bytes_model"]) == ("bench-gpu", 1, "family")
    assert (original["series"], optimized["series"]) == ("Original", "Optimized")
    assert optimized["performance"] / 1e12 == pytest.approx(32.861)
    assert original["performance"] / 1e12 == pytest.approx(31.177, abs=5e-4)
    assert optimized["time_s"] == pytest.approx(784.2e-6)
    assert original["time_s"] == pytest.approx(826.56e-6)


def test_known_fused_moe_row(tmp_path: Path, families) -> None:
    # Dims of FusedMoE bench-gpu-1 (TOPK 32) overlaid by E=32, M=64, K=2880, N=5760:
    # M·TOPK = 2048 > E → Eact = 32
    # FLOP = 2048·5760·2880·2 = 67 947 724 800
    # bytes = A once 64·2880·2 = 368 640 + 32·5760·2880·2 = 1 061 683 200
    #   + 2048·5760·2 = 23 592 960 + 2048·4 = 8 192 → 1 085 652 992; AI = 62.587
    # Original = 33.818·2009.19/2141.1 = 31.735 TFLOP/s
    original, optimized = _points(tmp_path, families, FUSED).rows(named=True)
    assert (optimized["flop"], optimized["bytes"]) == (67_947_724_800, 1_085_652_992)
    assert optimized["arithmetic_intensity"] == pytest.approx(62.587, abs=5e-4)
    assert original["performance"] / 1e12 == pytest.approx(31.735, abs=5e-4)
    assert optimized["pair"] == "FusedMoE:bench-gpu-1"


def test_shipped_benchmarks(families) -> None:
    points = benchmark_points(SHIPPED, SPECS, families)
    assert points.height == 16
    assert points["pair"].n_unique() == 8
    assert (points["arithmetic_intensity"] > 0).all()
    # tflops in the file agree with model FLOP / optimized time to 0.01 %
    optimized = points.filter(pl.col("series") == "Optimized")
    ratio = optimized["flop"] / optimized["time_s"] / optimized["performance"]
    assert ((ratio - 1).abs() < 1e-4).all()


def test_no_config_uses_variant_dims(tmp_path: Path, families) -> None:
    # BatchedMoE bench-gpu-2: E 128, M 64, K 2048, N 1536, fp8 w8a8 (act = w = 1):
    # FLOP = 128·64·1536·2048·2 = 51 539 607 552
    # bytes = 128·64·2048 = 16 777 216 + 128·1536·2048 = 402 653 184 + 128·64·1536
    #   = 12 582 912 + 512 → 432 013 824
    point = _points(tmp_path, families, "1_BatchedMoE,bench-gpu-2,,1101.2,905.6,56.912\n").row(0,
                                                                                     named=True)
    assert (point["flop"], point["bytes"]) == (51_539_607_552, 432_013_824)


def test_thresholds_drop_whole_pairs(tmp_path: Path, families) -> None:
    body = KNOWN + FUSED + "2_FusedMoE,bench-gpu,,251.9,212.6,15.152\n"  # AI 3.99
    assert _points(tmp_path, families, body).height == 6
    kept = _points(tmp_path, families, body, min_tflops=33.0)
    assert kept["pair"].unique().to_list() == ["FusedMoE:bench-gpu-1"]
    assert kept.height == 2  # the Original point at 31.7 TFLOP/s stays with its pair
    kept = _points(tmp_path, families, body, min_ai=10.0)
    assert sorted(kept["pair"].unique()) == ["BatchedMoE:bench-gpu", "FusedMoE:bench-gpu-1"]


def test_extra_columns_and_missing_config_column(tmp_path: Path, families) -> None:
    path = _csv(tmp_path, "1_BatchedMoE,bench-gpu,826.56,784.2,32.861,B200,x,1\n",
                header="family,shape_key,baseline_us,triton_us,tflops,device,label,flop\n")
    points = benchmark_points(path, SPECS, families)
    assert points.height == 2
    assert points["label"][0] == "qwen3-30b-A3B w2: swiglu output -> final output (M=64)"
    assert points["flop"][0] == 25_769_803_776


def test_same_shape_key_with_two_configs(tmp_path: Path, families) -> None:
    body = KNOWN + '2_BatchedMoE,bench-gpu,"E=128,M=32,K=768,N=2048",500,450,28.6\n'
    pairs = _points(tmp_path, families, body)["pair"].unique(maintain_order=True).to_list()
    assert pairs == ["BatchedMoE:bench-gpu (E=128,M=64,K=768,N=2048)",
                     "BatchedMoE:bench-gpu (E=128,M=32,K=768,N=2048)"]


def test_family_map_and_spec_family_key(tmp_path: Path, families) -> None:
    # 3_UnifiedAttention.yaml declares `family: UnifiedAttention`; a benchmark family
    # "Attention" reaches it only through the map.
    body = "Attention,bench-gpu-2,,118.4,95.3,11.267\n"
    with pytest.raises(InputError, match="no spec of family 'Attention'"):
        _points(tmp_path, families, body)
    points = _points(tmp_path, families, body, family_map={"Attention": "UnifiedAttention"})
    assert points["family"].unique().to_list() == ["UnifiedAttention"]


@pytest.mark.parametrize(
    ("body", "row", "column", "message"),
    [
        ("9_NoSuch,bench-gpu,,1,1,1\n", 1, "family", "no spec of family 'NoSuch'"),
        ("2_BatchedMoE,bench-gpu-99,,1,1,1\n", 1, "shape_key", "is not a variant of"),
        ('2_BatchedMoE,bench-gpu,"E=128;M=64",1,1,1\n', 1, "config", "str_matches"),
        ('2_BatchedMoE,bench-gpu,"E=1.5",1,1,1\n', 1, "config", "str_matches"),
        ('2_BatchedMoE,bench-gpu,"X=3",1,1,1\n', 1, "config", "sets 'X', not a dim"),
        ('2_BatchedMoE,bench-gpu,"E=3,E=4",1,1,1\n', 1, "config", "repeats a dim"),
        ('2_BatchedMoE,bench-gpu,"QUANT=9",1,1,1\n', 1, "QUANT", "unknown QUANT code"),
        ("2_BatchedMoE,bench-gpu,,-1,1,1\n", 1, "baseline_us", "greater_than"),
        ("2_BatchedMoE,bench-gpu,,1,0,1\n", 1, "triton_us", "greater_than"),
        ("2_BatchedMoE,bench-gpu,,1,1,inf\n", 1, "tflops", "finite"),
        ("2_BatchedMoE,bench-gpu,,1,1,fast\n", 1, "tflops", "not a number"),
        ("2_BatchedMoE,bench-gpu,,1,1,\n", 1, "tflops", "not_nullable"),
        (",bench-gpu,,1,1,1\n", 1, "family", "not_nullable"),
        (KNOWN + KNOWN, 2, None, "repeats an earlier row"),
    ],
)
def test_bad_rows(tmp_path: Path, families, body, row, column, message) -> None:
    path = _csv(tmp_path, body)
    with pytest.raises(InputError) as err:
        benchmark_points(path, SPECS, families)
    assert (err.value.file, err.value.row, err.value.column) == (str(path), row, column)
    assert message in str(err.value)


def test_missing_required_column(tmp_path: Path, families) -> None:
    path = _csv(tmp_path, "2_BatchedMoE,bench-gpu,1,1\n",
                header="family,shape_key,baseline_us,triton_us\n")
    with pytest.raises(InputError, match="tflops"):
        benchmark_points(path, SPECS, families)


def test_missing_specs_dir(tmp_path: Path, families) -> None:
    with pytest.raises(InputError, match="specs directory not found"):
        benchmark_points(_csv(tmp_path, KNOWN), tmp_path / "nope", families)


@pytest.mark.shared
def test_real_specs_dir(tmp_path: Path, families) -> None:
    # The xe-forge specs: BatchedMoE bench-gpu has the same dims as the known row.
    points = benchmark_points(_csv(tmp_path, KNOWN), VLLM, families)
    assert points["arithmetic_intensity"].to_list() == pytest.approx([57.42, 57.42], abs=0.005)
    assert points["label"][0] == "qwen3-30b-A3B: swiglu output -> final output"


def test_causal_prefill_performance_is_in_the_models_count(tmp_path: Path, families) -> None:
    # 3_UnifiedAttention bench-gpu-1 (prefill, CAUSAL 1) as in moe_attention.csv: the
    # harness's 132.127431 TFLOP/s count the spec's 4·TQ·QH·D·MKV = 68 719 476 736 FLOP
    # (/ 520.1 µs = 132.127 TFLOP/s); the model counts 34 376 515 584 (test_models), a
    # factor of 2049/4096. Optimized: 132.127431e12 · 2049/4096 = 66.0960e12 FLOP/s
    # (= 34 376 515 584 / 520.1 µs); Original: · 520.1 / 576.8 = 59.5987e12.
    points = _points(tmp_path, families, "3_UnifiedAttention,bench-gpu-1,,576.8,520.1,"
                     "132.127431\n")
    assert points["flop"].to_list() == [34_376_515_584] * 2
    assert points["performance"].to_list() == pytest.approx([59.5987e12, 66.0960e12],
                                                           rel=1e-5)
    decode = _points(tmp_path, families, "3_UnifiedAttention,bench-gpu-2,,762.6,613.8,"
                     "1.749335\n")  # not causal: the CSV's TFLOP/s as given
    assert decode["performance"][1] == 1.749335e12


def test_points_carry_the_family_models_compute_precision(tmp_path: Path, families) -> None:
    # BatchedMoE codes (families.yaml): 0 bf16 → bf16-tensor, 1 fp8 w8a8 → fp8-tensor; an
    # fp8 kernel must be judged against the fp8 roof, not the preset's default.
    points = _points(tmp_path, families, KNOWN
                     + "1_BatchedMoE,bench-gpu-2,,1101.2,905.6,56.912\n")
    assert points["precision"].to_list() == ["bf16-tensor"] * 2 + ["fp8-tensor"] * 2
