"""Family models (config/families.yaml) and spec variants → theoretical roofline points."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters.specs import spec_points
from rooflow.errors import InputError
from rooflow.models.families import load_families, resolve_family
from rooflow.points import POINT_SCHEMA

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "config" / "families.yaml"
VLLM = REPO.parent / "shared" / "data" / "xe-forge" / "examples" / "vllm"


@pytest.fixture(scope="module")
def families():
    return load_families(FAMILIES)


def _apply(families, name: str, **dims: int) -> dict:
    frame = pl.DataFrame({k: [v] for k, v in dims.items()})
    return families[name].apply(frame, source="test").row(0, named=True)


def test_shipped_families(families) -> None:
    assert sorted(families) == ["BatchedMoE", "FusedMoE", "UnifiedAttention"]
    assert families["FusedMoE"].labels == {0: "bf16", 1: "fp8 w8a8", 2: "int8 w8a8",
                                           3: "int8 w8a16"}


def test_batched_moe_bf16(families) -> None:
    # FLOP = E·M·N·K·2 = 128·64·2048·768·2 = 25 769 803 776
    # bytes (act = w = 2): E·M·K·2 = 12 582 912; E·N·K·2 = 402 653 184;
    #   E·M·N·2 = 33 554 432; E·4 = 512 → 448 791 040; AI = 57.42 FLOP/byte
    out = _apply(families, "BatchedMoE", E=128, M=64, K=768, N=2048, QUANT=0)
    assert out["flop"] == 25_769_803_776
    assert out["bytes"] == 448_791_040
    assert out["flop"] / out["bytes"] == pytest.approx(57.42, abs=0.005)
    assert out["series"] == "bf16"


@pytest.mark.parametrize(
    ("quant", "expected", "series"),
    [
        # fp8 w8a8 (act = w = 1): 6 291 456 + 201 326 592 + 16 777 216 + 512
        (1, 224_395_776, "fp8 w8a8"),
        # int8 w8a16 (act 2, w 1): 12 582 912 + 201 326 592 + 33 554 432 + 512
        (2, 247_464_448, "int8 w8a16"),
    ],
)
def test_batched_moe_quant_widths(families, quant: int, expected: int, series: str) -> None:
    out = _apply(families, "BatchedMoE", E=128, M=64, K=768, N=2048, QUANT=quant)
    assert (out["bytes"], out["series"]) == (expected, series)


def test_fused_moe_eact_is_e_when_many_tokens(families) -> None:
    # M·TOPK = 80·8 = 640 > E = 128 → Eact = 128
    # FLOP = 640·384·2048·2 = 1 006 632 960
    # bytes: A once 80·2048·2 = 327 680; 128·384·2048·2 = 201 326 592; 640·384·2 = 491 520;
    #   640·4 = 2 560 → 202 148 352
    out = _apply(families, "FusedMoE", M=80, TOPK=8, N=384, K=2048, E=128, QUANT=0)
    assert (out["flop"], out["bytes"]) == (1_006_632_960, 202_148_352)


def test_fused_moe_eact_is_routed_tokens_when_few(families) -> None:
    # M·TOPK = 2·8 = 16 < E = 128 → Eact = 16 experts' weights read
    # FLOP = 16·384·2048·2 = 25 165 824
    # bytes: A 2·2048·2 = 8 192; 16·384·2048·2 = 25 165 824; 16·384·2 = 12 288; 16·4 = 64
    #   → 25 186 368
    out = _apply(families, "FusedMoE", M=2, TOPK=8, N=384, K=2048, E=128, QUANT=0)
    assert (out["flop"], out["bytes"]) == (25_165_824, 25_186_368)


def test_fused_moe_int8_w8a16(families) -> None:
    # act 2, w 1: 327 680 + 128·384·2048·1 = 100 663 296 + 491 520 + 2 560 = 101 485 056
    out = _apply(families, "FusedMoE", M=80, TOPK=8, N=384, K=2048, E=128, QUANT=3)
    assert (out["bytes"], out["series"]) == (101_485_056, "int8 w8a16")


def test_fused_moe_prefill_counts_each_tensor_once(families) -> None:
    # resources/specs/2_FusedMoE.yaml bench-gpu-3, Qwen3-30B-A3B w13 prefill (Hugging Face
    # config.json: hidden 2048, moe_intermediate 768 → N = 2·768 = 1536, 128 experts, top-8):
    # M = 4096, TOPK = 8, N = 1536, K = 2048, E = 128, bf16 (2 bytes); Eact = min(128, 32768)
    #   A read once         4096·2048·2        =  16 777 216
    #   weights, 128 experts 128·1536·2048·2   = 805 306 368
    #   C, a row per (token, expert) 32768·1536·2 = 100 663 296
    #   topk_ids            32768·4            =     131 072
    #   compulsory bytes                        = 922 877 952 (≈ 923 MB)
    # Reading A once per routed expert (32768·2048·2 = 134 217 728) gave 1 040 318 464.
    points = spec_points(REPO / "resources" / "specs" / "2_FusedMoE.yaml", families)
    row = points.filter(pl.col("label").str.contains("w13 prefill")).row(0, named=True)
    assert (row["flop"], row["bytes"]) == (206_158_430_208, 922_877_952)


@pytest.mark.parametrize(
    ("kqm", "expected", "series"),
    [
        # bf16 KV: TQ·QH·D·2 = 8·32·128·2 = 65 536 (Q) + 2·4096·8·128·2 = 16 777 216 (K, V)
        #   + 65 536 (O) = 16 908 288
        (0, 16_908_288, "bf16"),
        # fp8 KV: 65 536 + 2·4096·8·128·1 = 8 388 608 + 65 536 = 8 519 680
        (1, 8_519_680, "fp8 kv"),
    ],
)
def test_unified_attention(families, kqm: int, expected: int, series: str) -> None:
    # FLOP = 4·TQ·QH·D·MKV = 4·8·32·128·4096 = 536 870 912
    out = _apply(families, "UnifiedAttention", TQ=8, QH=32, KH=8, D=128, MKV=4096, KQM=kqm)
    assert (out["flop"], out["bytes"], out["series"]) == (536_870_912, expected, series)


def test_causal_prefill_of_the_shipped_spec(families) -> None:
    # resources/specs/3_UnifiedAttention.yaml bench-gpu-1, llama3.1-8B prefill 2k, CAUSAL 1:
    # QH 32, D 128, NS 1, TQ = MKV = S = 2048. Query–key pairs S(S+1)/2 = 2048·2049/2 =
    # 2 098 176; FLOP = 4·QH·D·pairs = 16 384 · 2 098 176 = 34 376 515 584 (full attention
    # 4·2048·32·128·2048 = 68 719 476 736: (S+1)/2S = 50.02 %).
    # bytes (KQM 0): Q 2048·32·128·2 = 16 777 216 + K, V 2·1·2048·8·128·2 = 8 388 608
    #   + O 16 777 216 = 41 943 040 → AI = 819.6 FLOP/byte (full: 1 638.4).
    points = spec_points(REPO / "resources/specs/3_UnifiedAttention.yaml", families)
    row = points.filter(pl.col("kernel") == "bench-gpu-1").row(0, named=True)
    assert (row["flop"], row["bytes"]) == (34_376_515_584, 41_943_040)
    assert row["arithmetic_intensity"] == pytest.approx(819.6)
    decode = points.filter(pl.col("kernel") == "bench-gpu").row(0, named=True)
    assert decode["flop"] == 4 * 32 * 128 * 8192  # not causal: the seed's formula


@pytest.mark.parametrize(("dims", "flop"), [
    # Chunked prefill: a 512-token chunk appended to a sequence of MKV = 4096 tokens (its
    # own included). Query i (0-based) sees 4096 − 512 + 1 + i = 3585 + i keys:
    # pairs = 512·3585 + 512·511/2 = 1 835 520 + 130 816 = 1 966 336;
    # FLOP = 4·32·128 · 1 966 336 = 16 384 · 1 966 336 = 32 216 449 024.
    ({"NS": 1, "TQ": 512, "MKV": 4096}, 32_216_449_024),
    # Two such sequences (TQ = 1024 tokens, QS = 512 each): twice the pairs.
    ({"NS": 2, "TQ": 1024, "MKV": 4096}, 64_432_898_048),
    # Decode (one new token per sequence, QS = 1): MKV pairs, as full attention:
    # 4·32·128·8·4096 = 536 870 912.
    ({"NS": 8, "TQ": 8, "MKV": 4096}, 536_870_912),
])
def test_causal_attention_counts_the_pairs_the_mask_keeps(families, dims, flop) -> None:
    out = _apply(families, "UnifiedAttention", QH=32, KH=8, D=128, KQM=0, CAUSAL=1, **dims)
    assert out["flop"] == flop
    full = _apply(families, "UnifiedAttention", QH=32, KH=8, D=128, KQM=0, CAUSAL=0, **dims)
    assert full["flop"] == 4 * dims["TQ"] * 32 * 128 * dims["MKV"]


def test_missing_code_dim_means_code_zero(families) -> None:
    out = _apply(families, "BatchedMoE", E=128, M=64, K=768, N=2048)
    assert (out["bytes"], out["series"]) == (448_791_040, "bf16")


def test_unknown_quant_code(families) -> None:
    frame = pl.DataFrame({"E": [1, 1], "M": [1, 1], "K": [1, 1], "N": [1, 1], "QUANT": [0, 7]})
    with pytest.raises(InputError) as err:
        families["BatchedMoE"].apply(frame, source="bench.csv")
    assert (err.value.file, err.value.row, err.value.column, err.value.value) == (
        "bench.csv", 2, "QUANT", 7)
    assert "known: 0, 1, 2" in str(err.value)


def test_missing_dim_names_data_file(families) -> None:
    frame = pl.DataFrame({"E": [1], "M": [1], "K": [1]})
    with pytest.raises(InputError) as err:
        families["BatchedMoE"].apply(frame, source="spec.yaml")
    assert str(err.value).startswith("spec.yaml")
    assert "'N'" in str(err.value)


def test_dim_named_like_a_width_is_refused(families) -> None:
    frame = pl.DataFrame({"E": [1], "M": [1], "K": [1], "N": [1], "act": [3]})
    with pytest.raises(InputError, match="'act' is also a width"):
        families["BatchedMoE"].apply(frame, source="spec.yaml")


GOOD_FAMILY = """\
families:
  Gemm:
    widths:
      0: {x: 2, label: bf16}
    define:
      MN: "M*N"
    flop: "2*MN*K"
    bytes: "(M*K + K*N + MN)*x"
"""


def _families(tmp_path: Path, text: str):
    path = tmp_path / "families.yaml"
    path.write_text(text, encoding="utf-8")
    return load_families(path)


def test_family_without_code_uses_code_zero(tmp_path: Path) -> None:
    # FLOP = 2·4·5·6 = 240; bytes = (4·6 + 6·5 + 4·5)·2 = 148
    model = _families(tmp_path, GOOD_FAMILY)["Gemm"]
    out = model.apply(pl.DataFrame({"M": [4], "N": [5], "K": [6]}), source="s").row(0, named=True)
    assert (out["flop"], out["bytes"], out["series"]) == (240, 148, "bf16")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('    flop: "2*MN*K"\n', "", "'flop' is a required property"),
        ("    define:", "    defines:", "Additional properties"),
        ("{x: 2, label: bf16}", "{x: two, label: bf16}", "not of type 'number'"),
        ("{x: 2, label: bf16}", "{x: 0, label: bf16}", "less than or equal to the minimum"),
        ("{x: 2, label: bf16}", "{x: 2}", "'label' is a required property"),
        ("      0: {x", "      zero: {x", "does not match"),
        ('"2*MN*K"', "\"__import__('os')\"", "only calls to min"),
        ('"2*MN*K"', '"K.real"', "Attribute is not allowed"),
        ("      0: {x: 2, label: bf16}",
         "      0: {x: 2, label: bf16}\n      1: {y: 1, label: fp8}", "same widths"),
        ('      MN: "M*N"', '      x: "M*N"', "also a width name"),
        ("      0: {x", "      1: {x", "needs code 0"),
    ],
)
def test_families_yaml_errors(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in GOOD_FAMILY
    with pytest.raises(InputError) as err:
        _families(tmp_path, GOOD_FAMILY.replace(old, new))
    assert message in str(err.value)
    assert str(err.value).startswith(str(tmp_path / "families.yaml"))


@pytest.mark.parametrize(
    ("name", "family_map", "declared", "expected"),
    [
        ("2_FusedMoE", None, None, "FusedMoE"),
        ("2_BatchedMoE", None, None, "BatchedMoE"),
        ("4_UnifiedAttention_MixedDtype", None, None, "UnifiedAttention_MixedDtype"),
        ("4_UnifiedAttention_MixedDtype", {"4_UnifiedAttention_MixedDtype": "UnifiedAttention"},
         None, "UnifiedAttention"),
        ("7_UnifiedAttention_MixedDtype", {"UnifiedAttention_MixedDtype": "UnifiedAttention"},
         None, "UnifiedAttention"),
        ("1_Test", None, "FusedMoE", "FusedMoE"),
        ("1_Test", {"1_Test": "BatchedMoE"}, "FusedMoE", "BatchedMoE"),
        ("BatchedMoE", None, None, "BatchedMoE"),
    ],
)
def test_resolve_family(name, family_map, declared, expected) -> None:
    assert resolve_family(name, family_map, declared) == expected


@pytest.mark.shared
@pytest.mark.parametrize(
    ("name", "count", "family", "bytes_model"),
    [
        ("1_BatchedMoE.yaml", 20, "BatchedMoE", "family"),
        ("2_FusedMoE.yaml", 11, "FusedMoE", "family"),
        ("3_UnifiedAttention.yaml", 15, "UnifiedAttention", "family"),
        ("4_UnifiedAttention_MixedDtype.yaml", 10, "UnifiedAttention_MixedDtype", "inputs-only"),
    ],
)
def test_every_real_spec_converts(families, name, count, family, bytes_model) -> None:
    points = spec_points(VLLM / name, families)
    assert points.schema == pl.Schema(POINT_SCHEMA)
    assert points.height == count
    assert points["kernel"].str.starts_with("bench").all()
    assert (points["family"] == family).all()
    assert (points["bytes_model"] == bytes_model).all()
    assert points["performance"].is_null().all()
    assert (points["arithmetic_intensity"] > 0).all()
    assert (points["arithmetic_intensity"] == points["flop"] / points["bytes"]).all()
    assert (points["label"] != "").all() and (points["level"] == "DRAM").all()
    assert (points["source"] == str(VLLM / name)).all()


@pytest.mark.shared
def test_real_spec_point_values(families) -> None:
    points = spec_points(VLLM / "1_BatchedMoE.yaml", families)
    row = points.filter(pl.col("kernel") == "bench-gpu").row(0, named=True)
    assert (row["flop"], row["bytes"]) == (25_769_803_776, 448_791_040)
    assert row["label"] == "qwen3-30b-A3B: swiglu output -> final output"
    assert (row["series"], row["row"]) == ("bf16", 9)  # 9th variant in the file
    series = dict(points.select("kernel", "series").iter_rows())
    assert series["bench-gpu-13"] == "fp8 w8a8" and series["bench-gpu-17"] == "int8 w8a16"


@pytest.mark.shared
def test_mixed_dtype_inputs_only(families) -> None:
    # bench-gpu-3 (QH 32, KH 8, D 128, BS 16, TQ 8, MKV 4096, NB 2048), no model:
    # FLOP = 4·8·32·128·4096 = 536 870 912
    # bytes = query 8·32·128·2 = 65 536 + key/value caches 2·(2048·16·8·128·1) = 67 108 864
    #   → 67 174 400 (each tensor once, at its own dtype: bf16 query, fp8 caches)
    points = spec_points(VLLM / "4_UnifiedAttention_MixedDtype.yaml", families)
    row = points.filter(pl.col("kernel") == "bench-gpu-3").row(0, named=True)
    assert (row["flop"], row["bytes"]) == (536_870_912, 67_174_400)
    assert row["series"] == "bfloat16/float8_e4m3fn"


@pytest.mark.shared
def test_mixed_dtype_mapped_to_family_model(families) -> None:
    # KQM 1 → fp8 KV, NS = 8 sequences:
    # 65 536 + 2·8·4096·8·128·1 + 65 536 = 67 239 936 (see test_unified_attention)
    mapping = {"4_UnifiedAttention_MixedDtype": "UnifiedAttention"}
    points = spec_points(VLLM / "4_UnifiedAttention_MixedDtype.yaml", families, mapping)
    row = points.filter(pl.col("kernel") == "bench-gpu-3").row(0, named=True)
    assert (row["family"], row["bytes"], row["bytes_model"]) == (
        "UnifiedAttention", 67_239_936, "family")
    # fp8 KV cache, bf16 attention math
    assert row["precision"] == "bf16-tensor"


@pytest.mark.shared
def test_decode_attention_counts_every_sequence(families) -> None:
    # "llama3.1-8B decode (8 sequences, 1 token each)": TQ 8, QH 32, KH 8, D 128, MKV 4096,
    # NS 8, KQM 0 (bf16 KV, 2 bytes).
    # FLOP = 4·TQ·QH·D·MKV = 4·8·32·128·4096 = 536 870 912
    # bytes = TQ·QH·D·2 + 2·NS·MKV·KH·D·kv + TQ·QH·D·2
    #       = 65 536 + 2·8·4096·8·128·2 + 65 536 = 134 348 800  → 3.996 FLOP/byte
    # (one sequence's cache, as the original formula, would give 16 908 288 → 31.75: 8× high)
    points = spec_points(VLLM / "3_UnifiedAttention.yaml", families)
    row = points.filter(pl.col("label").str.contains("llama3.1-8B decode")).row(0, named=True)
    assert (row["flop"], row["bytes"]) == (536_870_912, 134_348_800)
    assert row["arithmetic_intensity"] == pytest.approx(3.996, abs=5e-4)


def test_quant_codes_carry_a_compute_precision(families) -> None:
    # FusedMoE QUANT 1 fp8 w8a8 → fp8-tensor, 2 int8 w8a8 → int8-tensor (OP),
    # 3 int8 w8a16 → bf16-tensor (weights dequantized), 0 bf16 → bf16-tensor
    frame = pl.DataFrame({"M": [4] * 4, "TOPK": [2] * 4, "N": [8] * 4, "K": [8] * 4,
                          "E": [4] * 4, "QUANT": [0, 1, 2, 3]})
    out = families["FusedMoE"].apply(frame, source="t")
    assert out["precision"].to_list() == ["bf16-tensor", "fp8-tensor", "int8-tensor",
                                          "bf16-tensor"]


SPEC = """\
inputs:
  A: {shape: [M, K], dtype: bfloat16}
  B: {shape: [K, N], dtype: float32}
  idx: {shape: [M], dtype: int32}
bench-a:
  # given bytes
  - dims: {M: 4, N: 5, K: 6}
    flop: "2*M*N*K"
    bytes: "1000"
bench-b:
  - params: [A, idx]
    dtype: float16
    dims: {M: 4, N: 5, K: 6}
    flop: "2*M*N*K"
bench-c:
  - params: [A, B]
    dims: {M: 4, N: 5, K: 6}
    flop: "M*N*K"
ci:
  - dims: {M: 1, N: 1, K: 1}
    flop: "1"
"""


def test_spec_without_model(tmp_path: Path, families) -> None:
    path = tmp_path / "9_Custom.yaml"
    path.write_text(SPEC, encoding="utf-8")
    points = spec_points(path, families)
    assert points["kernel"].to_list() == ["bench-a", "bench-b", "bench-c"]
    assert points["family"].unique().to_list() == ["Custom"]
    assert points["label"].to_list() == ["given bytes", "bench-b", "bench-c"]
    assert points["row"].to_list() == [1, 2, 3]
    # bench-a: FLOP 2·4·5·6 = 240, bytes given 1000
    # bench-b: A at fp16 4·6·2 = 48 + idx (int32, not replaced) 4·4 = 16 → 64; B not a param
    # bench-c: FLOP 4·5·6 = 120; A bf16 4·6·2 = 48 + B fp32 6·5·4 = 120 → 168
    assert points["flop"].to_list() == [240, 240, 120]
    assert points["bytes"].to_list() == [1000, 64, 168]
    assert points["bytes_model"].to_list() == ["given", "inputs-only", "inputs-only"]
    assert points["series"].to_list() == ["bfloat16/float32/int32", "float16", "bfloat16/float32"]


def test_variant_prefix(tmp_path: Path, families) -> None:
    path = tmp_path / "9_Custom.yaml"
    path.write_text(SPEC, encoding="utf-8")
    assert spec_points(path, families, variant_prefix="ci")["flop"].to_list() == [1]
    assert spec_points(path, families, variant_prefix="none").height == 0


@pytest.mark.shared
def test_unknown_quant_code_in_spec(tmp_path: Path, families) -> None:
    text = (VLLM / "1_BatchedMoE.yaml").read_text().replace("QUANT: 2", "QUANT: 5", 1)
    path = tmp_path / "1_BatchedMoE.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        spec_points(path, families)
    assert (err.value.column, err.value.value, err.value.row) == ("QUANT", 5, 18)
    assert "variant 'bench-gpu-17'" in str(err.value)


def test_gigantic_dims_overflow(tmp_path: Path, families) -> None:
    # Dims pass validation up to 2**53, but (M·N·K)**8 = (2**159)**8 = 2**1272 exceeds the
    # largest float64 (~2**1024) → inf → an error naming the variant.
    big = 9007199254740992  # 2**53
    text = SPEC.replace('flop: "M*N*K"', 'flop: "(M*N*K)**8"').replace(
        "bench-c:\n  - params: [A, B]\n    dims: {M: 4, N: 5, K: 6}",
        f"bench-c:\n  - params: [A, B]\n    dims: {{M: {big}, N: {big}, K: {big}}}")
    assert f"M: {big}" in text
    path = tmp_path / "9_Custom.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="is not finite") as err:
        spec_points(path, families)
    assert "variant 'bench-c'" in str(err.value)
