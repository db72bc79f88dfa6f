"""Spec YAML parsing: real xe-forge specs, comment labels, structure errors, YAML safety."""

from __future__ import annotations

import logging
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
        ("    dims: {M: 4, K: 5}", "    dims: {M: 4, K: 5, index: 1}", "dim name must be"),
        ("    dims: {M: 4, K: 5}", "    dims: [4, 5]", "needs a 'dims' mapping"),
        ('    flop: "M*K*2"\n', "    flop: [7]\n", "'flop' must be a formula string or a number"),
        ('    flop: "M*K*2"\n', '    flop: "M*K*2"\n    bytes: true\n',
         "'bytes' must be a formula"),
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


def test_further_variant_list_elements_are_indexed_variants(tmp_path: Path) -> None:
    # Xe-Forge reads every entry of a variant's list (its variant_index): KEY, KEY[1], ...
    text = GOOD + '  - params: [A]\n    dims: {M: 1, K: 1}\n    flop: "M"\n'
    spec = read_spec(_write(tmp_path, text))
    assert list(spec.variants) == ["ci", "bench-gpu", "bench-gpu[1]"]
    second = spec.variants["bench-gpu[1]"]
    assert (second.dims, second.flop, second.label, second.line) == ({"M": 1, "K": 1}, "M",
                                                                      None, 12)


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
        ("inputs:\n  A: 3\nci: []\n", "must be a mapping of 'shape' and 'dtype'"),
        ("inits: [M]\nci: []\n", "'inits' must be a list"),
        ("inits:\n  - hidden: [1, 2]\nci: []\n", "'inits' must be a list"),
        ("ci:\n  dims: {M: 1}\n", "must be a list of mappings"),
        ("ci:\n  - 3\n", "must be a list of mappings"),
        ("default_variant: ci\nlowering: {target: xpu}\nci: []\n", "no variants"),
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


# Specs as Xe-Forge writes them (its own loader, xe_forge/core/spec_loader.py parse_spec) ----

XE_FORGE = """\
inputs:
  X:
    shape: [M, K]
    dtype: bfloat16
  bias:
    shape: [N]
inits:
  - hidden_size: N
  - eps: "1e-6"
  - dim: D_HEAD
default_variant: bench-gpu
lowering:
  target: xpu
  passes: [tile, fuse]
mode: gemm
ci:
  - params: [X]
    dims: {M: 4, K: 8, N: 16}
bench-gpu:
  # Linear with its weight (K x N) built from inits: not an input
  - params: [X]
    dims: {M: 1024, K: 8192, N: 8192}
    flop: "2*M*N*K"
bench-gpu-compulsory:
  - params: [X]
    dims: {M: 1024, K: 8192, N: 8192}
    flop: "2*M*N*K"
    bytes: "2*(M*K + K*N + M*N)"
bench-gpu-count:
  - params: [X, bias]
    dims: {M: 2, K: 3, N: 5}
    flop: 60
  - params: [X]
    dims: {M: 1, K: 3, N: 5}
    flop: 30
"""


def test_xe_forge_spec_keys_are_accepted_as_its_loader_does(tmp_path, caplog) -> None:
    with caplog.at_level(logging.DEBUG, logger="rooflow.specs"):
        spec = read_spec(_write(tmp_path, XE_FORGE))
    # Lists are variants (each entry of one: KEY, KEY[1]); other keys are not, said at debug.
    assert list(spec.variants) == ["ci", "bench-gpu", "bench-gpu-compulsory", "bench-gpu-count",
                                   "bench-gpu-count[1]"]
    said = caplog.text
    for key in ("default_variant", "lowering", "mode"):
        assert f"key {key!r} is not a variant" in said
    # Keyword inits: N is a dim of the variants, "1e-6" a literal, D_HEAD names no dim (a
    # literal text to Xe-Forge as well): accepted, the last one said at debug.
    assert "sets no dim 'D_HEAD'" in said
    # Without dtype an input is float32 (Xe-Forge's default); flop may be a number, or absent.
    assert spec.inputs["bias"] == Tensor(("N",), "float32")
    assert spec.variants["bench-gpu-count"].flop == "60"
    assert spec.variants["ci"].flop is None
    assert spec.variants["bench-gpu"].label == ("Linear with its weight (K x N) built from "
                                                "inits: not an input")


def test_xe_forge_spec_points_bytes_formula_and_inputs_only(tmp_path) -> None:
    from rooflow.adapters.specs import spec_points

    points = spec_points(_write(tmp_path, XE_FORGE, "9_Linear.yaml"), {})
    rows = {r["kernel"]: r for r in points.iter_rows(named=True)}
    assert list(rows) == ["bench-gpu", "bench-gpu-compulsory", "bench-gpu-count",
                          "bench-gpu-count[1]"]
    # FLOP 2·1024·8192·8192 = 137,438,953,472. Inputs only: X bf16 1024·8192·2 = 16,777,216
    # bytes → AI 8,192 (the weight, an init, is no input: traffic undercounted).
    gemm = rows["bench-gpu"]
    assert (gemm["flop"], gemm["bytes"], gemm["bytes_model"]) == (137_438_953_472,
                                                                  16_777_216, "inputs-only")
    assert gemm["arithmetic_intensity"] == 8192
    # The variant's bytes formula: 2·(1024·8192 + 8192·8192 + 1024·8192) = 2·83,886,080
    # = 167,772,160 bytes → AI 137,438,953,472 / 167,772,160 = 819.2 (compulsory traffic).
    given = rows["bench-gpu-compulsory"]
    assert (given["bytes"], given["bytes_model"]) == (167_772_160, "given")
    assert given["arithmetic_intensity"] == pytest.approx(819.2)
    # flop: 60 (a number); X bf16 2·3·2 = 12 + bias fp32 5·4 = 20 → 32 bytes.
    count = rows["bench-gpu-count"]
    assert (count["flop"], count["bytes"]) == (60, 32)
    # The list's second entry: flop 30, X 1·3·2 = 6 bytes.
    assert (rows["bench-gpu-count[1]"]["flop"], rows["bench-gpu-count[1]"]["bytes"]) == (30, 6)


def test_variant_without_flop_is_no_point(tmp_path, caplog) -> None:
    from rooflow.adapters.specs import spec_points

    text = XE_FORGE.replace('    flop: "2*M*N*K"\nbench-gpu-compulsory', "bench-gpu-compulsory")
    with caplog.at_level(logging.WARNING, logger="rooflow.specs"):
        points = spec_points(_write(tmp_path, text, "9_Linear.yaml"), {})
    assert "bench-gpu" not in points["kernel"].to_list()
    assert "variant 'bench-gpu' has no 'flop' formula" in caplog.text
    only_ci = "inputs:\n  X: {shape: [M]}\nbench-gpu:\n  - dims: {M: 4}\n"
    with pytest.raises(InputError, match="no 'bench\\*' variant has a 'flop' formula"):
        spec_points(_write(tmp_path, only_ci + "ci:\n  - dims: {M: 1}\n    flop: 1\n"), {})


def test_inputs_only_is_marked_in_the_table_and_on_the_plot(tmp_path) -> None:
    # The inputs-only point's intensity is an upper bound: said in the table's note column,
    # on the static plot's notes and on the page; the point with a bytes formula is not.
    from rooflow.adapters.specs import spec_points
    from rooflow.analysis import INPUTS_ONLY_NOTE, analyze
    from rooflow.plotting.roofline import figure
    from rooflow.roofs import load_preset

    points = spec_points(_write(tmp_path, XE_FORGE, "9_Linear.yaml"), {})
    preset = load_preset("h100-sxm")
    table = analyze(points, preset)
    notes = dict(zip(table["kernel"], table["roof_note"].cast(pl.String), strict=True))
    assert notes["bench-gpu"].endswith(INPUTS_ONLY_NOTE)
    assert INPUTS_ONLY_NOTE not in notes["bench-gpu-compulsory"]
    assert "intensity is an upper bound" in INPUTS_ONLY_NOTE
    fig = figure(table, preset)
    (box,) = [t for t in fig.axes[0].texts if t.get_gid() == "notes"]
    lines = box.get_text().splitlines()
    assert INPUTS_ONLY_NOTE in lines and len(lines) == len(set(lines))
    given = analyze(points.filter(pl.col("bytes_model") == "given"), preset)
    assert not given["roof_note"].cast(pl.String).str.contains("upper bound").any()


@pytest.mark.shared
def test_shared_inputs_only_spec_is_marked_from_the_cli(tmp_path) -> None:
    # 4_UnifiedAttention_MixedDtype has no family model: its bytes are its inputs'.
    from rooflow.analysis import INPUTS_ONLY_NOTE
    from rooflow.cli.main import main

    out = tmp_path / "t.csv"
    main(["table", str(VLLM / "4_UnifiedAttention_MixedDtype.yaml"), "--hardware",
          "arc-pro-b70", "-o", str(out)])
    table = pl.read_csv(out)
    assert (table["bytes_model"] == "inputs-only").all()
    assert table["roof_note"].str.contains(INPUTS_ONLY_NOTE, literal=True).all()
