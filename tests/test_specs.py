"""Spec YAML parsing: real xe-forge specs, comment labels, structure errors, YAML safety."""

from __future__ import annotations

import time
from pathlib import Path

import polars as pl
import pytest

from rooflow.errors import InputError
from rooflow.models.spec_yaml import Tensor, dtype_width, read_spec, read_yaml

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
VLLM = SHARED / "xe-forge" / "examples" / "vllm"

GOOD = """\
inputs:
  A:
    shape: [M, K]
    dtype: bfloat16
inits:
  - dim: M
  - dim: K
ci:
  - params: [A]
    dims: {M: 2, K: 3}
    flop: "M*K*2"
bench-gpu:

  # the label
  - params: [A]
    dtype: float32
    dims: {M: 4, K: 5}
    flop: "M*K*2"
"""


def _write(tmp_path: Path, text: str, name: str = "1_Test.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.shared
def test_shared_data_present() -> None:
    # The real inputs are required: a missing shared data dir fails the suite.
    assert sorted(p.name for p in VLLM.glob("*.yaml")) == [
        "1_BatchedMoE.yaml",
        "2_FusedMoE.yaml",
        "3_UnifiedAttention.yaml",
        "4_UnifiedAttention_MixedDtype.yaml",
    ]


@pytest.mark.shared
@pytest.mark.parametrize(
    ("name", "count", "key", "label"),
    [
        ("1_BatchedMoE.yaml", 21, "bench-gpu", "qwen3-30b-A3B: swiglu output -> final output"),
        ("2_FusedMoE.yaml", 12, "bench-gpu-10", "Llama4 Scout w13 (large batch): int8 w8a16"),
        ("3_UnifiedAttention.yaml", 16, "bench-gpu-2",
         "llama3.1-8B decode (8 sequences, 1 token each)"),
        # Section comments above a key ("# ---") are not labels; the one below is.
        ("4_UnifiedAttention_MixedDtype.yaml", 11, "bench-gpu",
         "DeepSeek-V3 prefill: fp8 KV cache, 128 KV heads compressed from MLA"),
    ],
)
def test_real_specs_parse(name: str, count: int, key: str, label: str) -> None:
    spec = read_spec(VLLM / name)
    assert len(spec.variants) == count
    assert spec.variants[key].label == label
    assert spec.variants["ci"].label is None
    assert spec.family_key is None


@pytest.mark.shared
def test_real_spec_contents() -> None:
    spec = read_spec(VLLM / "4_UnifiedAttention_MixedDtype.yaml")
    assert spec.inputs["key_cache"] == Tensor(("NB", "BS", "KH", "D"), "float8_e4m3fn")
    variant = spec.variants["bench-gpu-3"]
    assert variant.dtype is None
    assert variant.dims["TQ"] == 8 and variant.dims["KQM"] == 1
    assert variant.flop == "4*TQ*QH*D*MKV"
    assert variant.params == ("query", "key_cache", "value_cache")


def test_label_skips_blank_lines_and_dims_frame(tmp_path: Path) -> None:
    spec = read_spec(_write(tmp_path, GOOD))
    assert spec.variants["bench-gpu"].label == "the label"
    assert spec.variants["bench-gpu"].line == 12
    frame = spec.dims_frame(["bench-gpu"])
    assert frame.columns == ["variant", "index", "dtype", "K", "M"]
    assert frame.row(0) == ("bench-gpu", 2, "float32", 5, 4)


def test_family_key(tmp_path: Path) -> None:
    spec = read_spec(_write(tmp_path, "family: FusedMoE\n" + GOOD))
    assert spec.family_key == "FusedMoE"
    assert spec.variants["bench-gpu"].line == 13


def test_repeated_family_key(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="key 'family' repeats line 1"):
        read_spec(_write(tmp_path, "family: A\n" + GOOD + "family: B\n"))


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "ci: [1, 2\nbench-gpu: 3\n")  # unclosed flow list
    with pytest.raises(InputError) as err:
        read_spec(path)
    text = str(err.value)
    assert text.startswith(str(path))
    assert "line 2: malformed YAML" in text


def test_alias_bomb_refused_quickly(tmp_path: Path) -> None:
    # "Billion laughs": 9 levels of 9 aliases expand to 9**9 ≈ 3.9e8 nodes.
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    path = _write(tmp_path, "\n".join(lines) + "\n")
    start = time.perf_counter()
    with pytest.raises(InputError, match="alias bomb"):
        read_spec(path)
    assert time.perf_counter() - start < 1.0


def test_few_aliases_are_fine(tmp_path: Path) -> None:
    path = _write(tmp_path, "x: &d {M: 1}\ny: *d\n", "plain.yaml")
    assert read_yaml(path) == {"x": {"M": 1}, "y": {"M": 1}}


def test_yaml_tags_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "x: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(InputError, match="malformed YAML"):
        read_spec(path)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # M is in the shape of A and in the flop formula: it must be an integer
        ("    dims: {M: 4, K: 5}", "    dims: {M: 4.5, K: 5}", "dim 'M' is used in a tensor shape"),
        ("    dims: {M: 4, K: 5}", "    dims: {M: '4', K: 5}", "dim 'M' is used in a tensor shape"),
        ("    dims: {M: 4, K: 5}", "    dims: {M: true, K: 5}",
         "dim 'M' is used in a tensor shape"),
        ("    dims: {M: 4, K: 5}", "    dims: {M: 99999999999999999999, K: 5}", "64-bit"),
        ("    dims: {M: 4, K: 5}", "    dims: {M: -4, K: 5}", "dim 'M' out of range"),
        ("    dims: {M: 4, K: 5}", "    dims: {M: 9007199254740993, K: 5}", "out of range"),
        ("    dims: {M: 4, K: 5}", "    dims: {K: 5}", "does not set dim 'M' from 'inits'"),
        ("    dims: {M: 4, K: 5}", "    dims: {M: 4, K: 5, index: 1}", "dim name must be"),
        ("    dims: {M: 4, K: 5}", "", "needs a 'dims' mapping"),
        ('    flop: "M*K*2"\n', "    flop: 7\n", "needs a 'flop' formula string"),
        ("    dtype: float32", "    dtype: float128", "unknown dtype"),
        ("  - params: [A]\n    dtype", "  - params: [Z]\n    dtype", "'params' must name"),
    ],
)
def test_variant_structure_errors(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as err:
        read_spec(path)
    text = str(err.value)
    assert message in text
    assert text.startswith(str(path)) and "\n" not in text


def test_errors_name_the_variant_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD.replace("{M: 4, K: 5}", "{M: -4, K: 5}"))
    with pytest.raises(InputError) as err:
        read_spec(path)
    assert "line 12: variant 'bench-gpu'" in str(err.value)
    assert err.value.column == "M"


def test_second_variant_list_element_refused(tmp_path: Path) -> None:
    text = GOOD + '  - params: [A]\n    dims: {M: 1, K: 1}\n    flop: "M"\n'
    with pytest.raises(InputError, match="one-element list"):
        read_spec(_write(tmp_path, text))


def test_repeated_top_level_key(tmp_path: Path) -> None:
    text = GOOD + 'ci:\n  - params: [A]\n    dims: {M: 1, K: 1}\n    flop: "M"\n'
    with pytest.raises(InputError, match="key 'ci' repeats line 8"):
        read_spec(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- 1\n- 2\n", "must be a YAML mapping"),
        ("inputs: {}\n", "no variants"),
        ("family: 3\n" + GOOD, "'family' must be a non-empty string"),
        ("inputs:\n  A: {shape: [M, 0.5], dtype: int8}\nci: []\n", "shape must be a list"),
        ("inputs:\n  A: {shape: [M]}\nci: []\n", "needs 'shape' and 'dtype'"),
        ("inits: [M]\nci: []\n", "'inits' must be a list"),
        ("ci:\n  dims: {M: 1}\n", "one-element list"),
    ],
)
def test_document_structure_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_spec(_write(tmp_path, text))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        read_spec(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("dtype", "width"),
    [("float64", 8), ("float32", 4), ("bfloat16", 2), ("float16", 2), ("float8_e4m3fn", 1),
     ("float8_e5m2", 1), ("int64", 8), ("int32", 4), ("int8", 1), ("uint8", 1)],
)
def test_dtype_width(dtype: str, width: int) -> None:
    assert dtype_width(dtype, source="s.yaml", where="x") == width


def test_unknown_dtype_width() -> None:
    with pytest.raises(InputError, match="unknown dtype"):
        dtype_width("complex64", source="s.yaml", where="x")


def test_unused_dims_may_be_any_yaml_value(tmp_path: Path) -> None:
    # Real specs carry dims no formula or shape reads (SCALING_FACTOR: 1.5, eps strings,
    # lists): they are kept out of the dims, the variant converts.
    text = GOOD.replace("    dims: {M: 4, K: 5}",
                        "    dims: {M: 4, K: 5, SCALING_FACTOR: 1.5, EPS: '1e-5', SIZES: [4096]}")
    spec = read_spec(_write(tmp_path, text))
    dims = spec.variants["bench-gpu"].dims
    assert dims == {"M": 4, "K": 5, "SCALING_FACTOR": 1.5}
    assert spec.dims_frame()["SCALING_FACTOR"].dtype == pl.Float64


def test_float_dim_used_in_a_formula_is_fine(tmp_path: Path) -> None:
    # flop = M·K·2·S = 4·5·2·1.5 = 60
    from rooflow.adapters.specs import spec_points

    text = GOOD.replace("    dims: {M: 4, K: 5}", "    dims: {M: 4, K: 5, S: 1.5}").replace(
        '    flop: "M*K*2"', '    flop: "M*K*2*S"')
    points = spec_points(_write(tmp_path, text), {})
    assert points.filter(pl.col("kernel") == "bench-gpu")["flop"].to_list() == [60.0]


def test_string_dim_used_in_a_formula_is_named(tmp_path: Path) -> None:
    text = GOOD.replace("    dims: {M: 4, K: 5}", "    dims: {M: 4, K: 5, S: 'x'}").replace(
        '    flop: "M*K*2"', '    flop: "M*K*2*S"')
    with pytest.raises(InputError, match="dim 'S' is used in a formula, so it must be a number"):
        read_spec(_write(tmp_path, text))
