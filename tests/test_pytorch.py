"""PyTorch profiler traces (kind ``pytorch``): detection, linking, operator models, points.

FLOP and bytes below are worked out by hand from the recorded dims (the comments show the
arithmetic); GPU times are summed here from the raw JSON, independently of the adapter.
"""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from functools import cache
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import detect_kind, load_points
from rooflow.adapters.pytorch.operators import evaluate, load_operators
from rooflow.adapters.pytorch.reader import pytorch_points, pytorch_table
from rooflow.adapters.pytorch.trace import link, read_trace
from rooflow.analysis import analyze
from rooflow.errors import InputError
from rooflow.roofs.datasheet import load_hardware

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "resources" / "pytorch" / "h100_llama_layer.json"
ROOFLOW = str(Path(sys.executable).with_name("rooflow"))
BF, FP32, FP16 = "c10::BFloat16", "float", "c10::Half"

# folder under ../shared/data/pytorch → (device of the points, or the error's words)
TRACES = {
    "hta-a100-alexnet-noshapes": ("error", "record_shapes=True"),
    "tracelens-mi210-gpu-only": ("error", "no CPU operators"),
    "hta-a100-ddp-109k": ("points", "NVIDIA A100-SXM4-80GB"),
    "hta-a100-triton": ("points", "NVIDIA A100-PG509-200"),
    "hta-mi250-minitoy": ("points", "AMD Radeon Graphics (compute 9.0, 104 CUs, 64 GiB)"),
    "hta-sampled-nodevice-noflows": ("points", ""),
    "tracelens-b200-vllm-eager": ("points", "NVIDIA B200"),
    "tracelens-mi300x-compile-triton": ("points", "AMD Instinct MI300X"),
    "tracelens-mi300x-resnet-train": ("points", "AMD Instinct MI300X"),
    "tracelens-mi300x-sglang-qwen3-8b": ("points", "AMD Instinct MI300X"),
    "tracelens-mi300x-vllm-graph-replay": ("points",
                                           "unnamed GPU (compute 9.4, 304 CUs, 192 GiB)"),
    "tracelens-mi300x-xdit-sd3.5-239k": ("points", "AMD Instinct MI300X"),
}


def _trace(shared_data: Path, folder: str) -> Path:
    (path,) = (shared_data / "pytorch" / folder).glob("*.json.gz")
    return path


@cache
def _table(path: Path):
    return pytorch_table(path)


def _row(path: Path, label: str) -> dict:
    rows = _table(path).operators.filter(pl.col("label") == label)
    assert rows.height == 1, label
    return rows.row(0, named=True)


def _kernel_time(path: Path, name: str, dims: list) -> tuple[float, int]:
    """GPU seconds of the work launched inside ``name`` calls with ``dims``, and the calls.

    Plain JSON and a linear search: a launch (runtime event, by correlation) on the
    call's thread inside its [ts, ts + dur]; host↔device memcpy left out.
    """
    events = json.load(gzip.open(path))["traceEvents"]
    calls = [e for e in events if e.get("cat") == "cpu_op" and e["name"] == name
             and e["args"].get("Input Dims", [])[:len(dims)] == dims]
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and "correlation" in e.get("args", {})}
    total = 0.0
    for k in events:
        if k.get("cat") not in ("kernel", "gpu_memset", "gpu_memcpy") or (
                k["cat"] == "gpu_memcpy" and "DtoD" not in k["name"]):
            continue
        r = launches.get(k["args"].get("correlation"))
        if r and any(c["tid"] == r["tid"] and c["ts"] <= r["ts"] <= c["ts"] + c["dur"]
                     for c in calls):
            total += k["dur"]
    return total * 1e-6, len(calls)


# ---------------------------------------------------------------- every shared trace


@pytest.mark.shared
@pytest.mark.parametrize("folder", sorted(TRACES))
def test_every_shared_trace_gives_points_or_one_clear_error(shared_data, folder):
    path = _trace(shared_data, folder)
    assert detect_kind(path) == "pytorch"
    outcome, expected = TRACES[folder]
    if outcome == "error":
        with pytest.raises(InputError) as err:
            load_points("pytorch", path)
        line = str(err.value)
        assert expected in line and "\n" not in line and str(path) in line
        return
    points = load_points("pytorch", path)  # through the registry: check_points passes
    assert points.height > 0
    assert set(points["series"].to_list()) == {"pytorch"}
    assert set(points["device"].to_list()) == {expected}
    assert (points["time_s"] > 0).all()
    assert points["label"].n_unique() == points.height  # one point per operator shape


# ---------------------------------------------------------------- hand-worked operators


@pytest.mark.shared
def test_addmm_of_the_mi250_trace(shared_data):
    path = _trace(shared_data, "hta-mi250-minitoy")
    row = _row(path, "aten::addmm [128]x[5,128]x[128,128] fp32")
    # bias [128], A [5,128] = M×K, B [128,128] = K×N: 2·M·N·K + M·N = 2·5·128·128 + 5·128
    assert row["flop"] == 163_840 + 640
    # bias 128·4 + (A 640 + B 16,384 + C 640)·4 bytes = 512 + 70,656
    assert row["bytes"] == 71_168
    # its two kernels (direct_copy + hipBLASLt Cijk…MT64x16x32), 24.48 µs together
    seconds, calls = _kernel_time(path, "aten::addmm", [[128], [5, 128], [128, 128]])
    assert calls == 1 and math.isclose(seconds, 24.48e-6, rel_tol=1e-3)
    assert math.isclose(row["time_s"], seconds) and row["kernels"] == 2
    assert row["precision"] == "fp32-matrix"  # fp32 GEMM on CDNA: MFMA (MI16x16x1)


@pytest.mark.shared
def test_bmm_of_the_sampled_trace(shared_data):
    path = _trace(shared_data, "hta-sampled-nodevice-noflows")
    row = _row(path, "aten::bmm [2048,160,300]x[2048,300,40] fp32")
    # BATCH 2048, M 160, K 300, N 40: 2·2048·160·40·300 = 7,864,320,000 FLOP per call
    # bytes: 2048·(160·300 + 300·40 + 160·40)·4 = 2048·66,400·4 = 543,948,800 per call
    seconds, calls = _kernel_time(path, "aten::bmm", [[2048, 160, 300], [2048, 300, 40]])
    assert row["launches"] == calls > 0
    assert row["flop"] == 7_864_320_000 * calls
    assert row["bytes"] == 543_948_800 * calls
    # no External id there (old id space): linked by time containment, same kernels
    assert math.isclose(row["time_s"], seconds)
    # fp32 inputs, but CUTLASS tensorop_s1688gemm kernels: TF32 tensor cores
    assert row["precision"] == "tf32" and row["device"] == ""


@pytest.mark.shared
def test_convolution_of_the_resnet_trace(shared_data):
    path = _trace(shared_data, "tracelens-mi300x-resnet-train")
    row = _row(path, "aten::miopen_convolution [10,3,224,224]x[64,3,7,7] bf16")
    # Concrete Inputs: padding [3, 3], stride [2, 2], dilation [1, 1], groups 1
    # OH = OW = floor((224 + 2·3 − 1·(7 − 1) − 1) / 2) + 1 = floor(223 / 2) + 1 = 112
    # FLOP 2·N·F·OH·OW·Cin·KH·KW = 2·10·64·112·112·3·7·7 = 2,360,279,040 per call
    # bytes x 10·3·224·224·2 + w 64·3·7·7·2 + y 10·64·112·112·2
    #     = 3,010,560 + 18,816 + 16,056,320 = 19,085,696 per call
    seconds, calls = _kernel_time(path, "aten::miopen_convolution",
                                  [[10, 3, 224, 224], [64, 3, 7, 7]])
    assert row["launches"] == calls > 0
    assert row["flop"] == 2_360_279_040 * calls
    assert row["bytes"] == 19_085_696 * calls
    assert math.isclose(row["time_s"], seconds)
    assert row["precision"] == "bf16-tensor"


@pytest.mark.shared
def test_attention_of_the_compile_trace(shared_data):
    path = _trace(shared_data, "tracelens-mi300x-compile-triton")
    q = [8, 4096, 16, 128]  # [B, S, H, D]: the layout of _flash_attention_forward
    row = _row(path, "aten::_flash_attention_forward [8,4096,16,128]x[8,4096,16,128]x"
                     "[8,4096,16,128] bf16")
    # not causal (Concrete Inputs[8] "False"): QKᵀ + PV = 2·B·H·L·S·(E + EV)
    #   = 2·8·16·4096·4096·256 = 1,099,511,627,776
    assert row["flop"] == 1_099_511_627_776
    # q, k, v and the output, 8·4096·16·128 bf16 each: 4·134,217,728 = 536,870,912
    assert row["bytes"] == 536_870_912
    seconds, calls = _kernel_time(path, "aten::_flash_attention_forward", [q, q, q])
    assert calls == 1 and math.isclose(row["time_s"], seconds)
    assert math.isclose(seconds, 3.68e-3, rel_tol=1e-2)  # one attn_fwd kernel


@pytest.mark.shared
def test_causal_attention_of_the_xdit_trace_counts_the_pairs_its_mask_keeps(shared_data):
    path = _trace(shared_data, "tracelens-mi300x-xdit-sd3.5-239k")
    row = _row(path, "aten::_flash_attention_forward [1,77,12,64]x[1,77,12,64]x[1,77,12,64] "
                     "bf16")
    # is_causal "True", L = S = 77: query i keeps i + 1 keys, 77·78/2 = 3,003 pairs a head
    # (either corner); 2·1·12·3,003·(64 + 64) = 9,225,216 per call (L²/2 gave 9,106,944)
    assert row["flop"] == 9_225_216 * row["launches"]


# ---------------------------------------------------------------- every model, by hand

CASES = [  # model, op, dims, types, concrete, FLOP, bytes, precision (amd=False)
    # 2·15360·6144·4096; (15360·4096 + 4096·6144 + 15360·6144)·2
    ("mm", "aten::mm", [[15360, 4096], [4096, 6144]], [BF, BF], None,
     773_094_113_280, 364_904_448, "bf16-tensor"),
    # out= variant: the third input is the output, counted once as C
    ("mm", "aten::mm", [[32768, 2048], [2048, 2048], [32768, 2048]], [BF] * 3, None,
     274_877_906_944, 276_824_064, "bf16-tensor"),
    ("addmm", "aten::addmm", [[128], [5, 128], [128, 128], [], []],
     [FP32, FP32, FP32, "Scalar", "Scalar"], ["", "", "", "1", "1"], 164_480, 71_168, "fp32"),
    ("bmm", "aten::bmm", [[2048, 160, 300], [2048, 300, 40]], [FP32, FP32], None,
     7_864_320_000, 543_948_800, "fp32"),
    # 2·2·4·6·3 + 2·4·6 = 288 + 48; C 48·2 + 2·(12 + 18 + 24)·2 = 96 + 216
    ("baddbmm", "aten::baddbmm", [[2, 4, 6], [2, 4, 3], [2, 3, 6], [], []],
     [FP16, FP16, FP16, "Scalar", "Scalar"], None, 336, 312, "fp16-tensor"),
    # batch 8 × [128,64]·[64,32]: 2·8·128·32·64; (65,536 + 2,048 + 32,768)·2
    ("matmul", "aten::matmul", [[8, 128, 64], [64, 32]], [BF, BF], None,
     4_194_304, 200_704, "bf16-tensor"),
    # M = 4·10: 2·40·32·16 + 40·32 = 40,960 + 1,280; (640 + 512 + 1,280)·4 + 32·4
    ("linear", "aten::linear", [[4, 10, 16], [32, 16], [32]], [FP32] * 3, None,
     42_240, 9_856, "fp32"),
    # fp8 [16,32]·[32,64] → bf16 (out_dtype 15): 2·16·64·32; 512 + 2,048 + 16·64·2 + 4 + 4
    ("scaled_mm", "aten::_scaled_mm", [[16, 32], [32, 64], [], [], [], [], [], []],
     ["c10::Float8_e4m3fn"] * 2 + [FP32, FP32, "", "", "Scalar", "Scalar"],
     ["", "", "", "", "", "", "15", "False"], 65_536, 4_616, "fp8-tensor"),
    # no out_dtype: the output is fp8 too: 512 + 2,048 + 1,024 + 8
    ("scaled_mm", "aten::_scaled_mm", [[16, 32], [32, 64], [], []],
     ["c10::Float8_e4m3fn"] * 2 + [FP32, FP32], None, 65_536, 3_592, "fp8-tensor"),
    # 3×3 same-padding conv: OH = floor((8 + 2 − 2 − 1)/1) + 1 = 8
    # 2·1·4·8·8·3·3·3 + bias 4·64 = 13,824 + 256; x 768 + w 432 + b 16 + y 1,024
    ("conv2d", "aten::convolution",
     [[1, 3, 8, 8], [4, 3, 3, 3], [4], [], [], [], [], [], []],
     [FP32] * 3 + ["ScalarList"] * 3 + ["Scalar", "ScalarList", "Scalar"],
     ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"],
     14_080, 2_240, "fp32"),
    # AlexNet conv1: OH = floor((224 + 4 − 10 − 1)/4) + 1 = 55
    # 2·16·64·55·55·3·11·11 = 2,248,857,600; x 4,816,896 + w 46,464 + y 6,195,200
    ("cudnn_conv2d", "aten::cudnn_convolution",
     [[16, 3, 224, 224], [64, 3, 11, 11], [], [], [], [], [], [], []],
     [FP16, FP16] + ["ScalarList"] * 3 + ["Scalar"] * 4,
     ["", "", "[2, 2]", "[4, 4]", "[1, 1]", "1", "False", "False", "True"],
     2_248_857_600, 11_058_560, "fp16-tensor"),
    ("miopen_conv2d", "aten::miopen_convolution",
     [[10, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []],
     [BF, BF, ""] + ["ScalarList"] * 3 + ["Scalar"] * 3,
     ["", "", "", "[3, 3]", "[2, 2]", "[1, 1]", "1", "False", "False"],
     2_360_279_040, 19_085_696, "bf16-tensor"),
    # with a bias [64]: the same numbers, its add is the child aten::add_'s (test below)
    ("miopen_conv2d", "aten::miopen_convolution",
     [[10, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], [], [], []],
     [BF, BF, BF] + ["ScalarList"] * 3 + ["Scalar"] * 3,
     ["", "", "", "[3, 3]", "[2, 2]", "[1, 1]", "1", "False", "False"],
     2_360_279_040, 19_085_696, "bf16-tensor"),
    # grad input and grad weight: 2·10·512·7·7·512·3·3·2 = 4,624,220,160
    # dy 501,760 + x 501,760 + w 4,718,592 + dx 501,760 + dw 4,718,592
    ("conv2d_backward", "aten::convolution_backward",
     [[10, 512, 7, 7], [10, 512, 7, 7], [512, 512, 3, 3]] + [[]] * 8,
     [BF] * 3 + ["ScalarList"] * 4 + ["Scalar", "ScalarList", "Scalar", "ScalarList"],
     ["", "", "", "[0]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1",
      "[True, True, False]"], 4_624_220_160, 10_942_464, "bf16-tensor"),
    # causal, L = S = 77: 77·78/2 = 3,003 pairs; 2·1·12·3,003·128 = 9,225,216;
    # q, k, v, out: 4 × 1·12·77·64·2 = 473,088
    ("sdpa", "aten::scaled_dot_product_attention", [[1, 12, 77, 64]] * 3 + [[]] * 5,
     [BF] * 3 + ["", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "", "", "0.", "True", "0.125", "False"], 9_225_216, 473_088, "bf16-tensor"),
    ("sdpa_flash", "aten::_scaled_dot_product_flash_attention",
     [[8, 16, 4096, 128]] * 3 + [[]] * 4, [BF] * 3 + ["Scalar"] * 4,
     ["", "", "", "0.", "False", "False", "0.088"], 1_099_511_627_776, 536_870_912,
     "bf16-tensor"),
    # the CPU flash kernel, causal from the top left, L = 4 < S = 6, B = H = 1, E = EV = 8:
    # Σ_{i<4} (i + 1) = 10 pairs; 2·10·16 = 320; q 128 + k 192 + v 192 + out 128 (fp32)
    ("sdpa_flash_cpu", "aten::_scaled_dot_product_flash_attention_for_cpu",
     [[1, 1, 4, 8], [1, 1, 6, 8], [1, 1, 6, 8], [], [], [], []], [FP32] * 3 + ["Scalar"] * 4,
     ["", "", "", "0.", "True", "", ""], 320, 640, "fp32"),
    # GQA, Ev ≠ E, causal from the top left, L = 128 < S = 256: Σ_i (i + 1) = 128·129/2
    # = 8,256 pairs; 2·2·8·8,256·(64 + 32) = 25,362,432
    # q 262,144 + k 131,072 + v 65,536 + out 2·8·128·32·2 = 131,072
    ("sdpa_efficient", "aten::_scaled_dot_product_efficient_attention",
     [[2, 8, 128, 64], [2, 2, 256, 64], [2, 2, 256, 32], [], [], [], [], []],
     [FP16] * 3 + ["", "Scalar", "Scalar", "Scalar", ""],
     ["", "", "", "", "False", "0.", "True", ""], 25_362_432, 589_824, "fp16-tensor"),
    ("flash_attention_forward", "aten::_flash_attention_forward",
     [[8, 4096, 16, 128]] * 3 + [[]] * 12,
     [BF] * 3 + ["", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"] + [""] * 5,
     ["", "", "", "", "", "4096", "4096", "0.", "False", "False", "0.088"] + [""] * 4,
     1_099_511_627_776, 536_870_912, "bf16-tensor"),
    # custom_mask_type 1 (causal from the top left), L = S = 64: 64·65/2 = 2,080 pairs;
    # 2·1·4·2,080·(32 + 32) = 1,064,960; 4 × 64·4·32·2
    ("efficient_attention_forward", "aten::_efficient_attention_forward",
     [[1, 64, 4, 32]] * 3 + [[]] * 9, [FP16] * 3 + [""] * 3 + ["Scalar"] * 6,
     [""] * 6 + ["64", "64", "0.", "1", "False", ""], 1_064_960, 65_536, "fp16-tensor"),
    # 59,136 elements × 7; 2·59,136·2 + (768 + 768)·2
    ("layer_norm", "aten::native_layer_norm", [[1, 77, 768], [], [768], [768], []],
     [BF, "ScalarList", BF, BF, "Scalar"], ["", "[768]", "", "", "1e-05"],
     413_952, 239_616, "fp32"),
    # 4,096 × 4; 2·4,096·4 + 1,024·4
    ("rms_norm", "aten::rms_norm", [[4, 1024], [], [1024], []],
     [FP32, "ScalarList", FP32, "Scalar"], ["", "[1024]", "", "1e-06"],
     16_384, 36_864, "fp32"),
    # 888·2880 = 2,557,440 elements: × 4; out + input 2·5,114,880 + weight 5,760
    ("rms_norm_out", "_C::rms_norm", [[888, 2880], [888, 2880], [2880], []],
     [BF, BF, BF, "Scalar"], None, 10_229_760, 10_235_520, "fp32"),
    # × 5 (+ the add); input and residual read and written: 4·5,114,880 + 5,760
    ("fused_add_rms_norm", "_C::fused_add_rms_norm", [[888, 2880], [888, 2880], [2880], []],
     [BF, BF, BF, "Scalar"], None, 12_787_200, 20_465_280, "fp32"),
    # 62,914,560 elements × 5; 4 tensors × 125,829,120 + weight 8,192
    ("add_rms_norm_out", "aiter::add_rmsnorm", [[15360, 4096]] * 4 + [[4096], []],
     [BF] * 5 + ["Scalar"], None, 314_572_800, 503_324_672, "fp32"),
    # training: 8,028,160 × 8; 2·8,028,160·2 + 4·64·2
    ("batch_norm", "aten::native_batch_norm", [[10, 64, 112, 112]] + [[64]] * 4 + [[]] * 3,
     [BF] * 5 + ["Scalar"] * 3, ["", "", "", "", "", "True", "0.1", "1e-05"],
     64_225_280, 32_113_152, "fp32"),
    ("softmax", "aten::_softmax", [[1, 64, 256, 256], [], []], [FP32, "Scalar", "Scalar"],
     ["", "-1", "False"], 20_971_520, 33_554_432, "fp32"),
    ("gelu", "aten::gelu", [[1, 77, 5120], []], [BF, ""], ["", ""],
     3_153_920, 1_576_960, "fp32"),
    ("silu", "aten::silu", [[1, 512, 128, 128]], [BF], [""], 33_554_432, 33_554_432, "fp32"),
    # out [15360,12288], input [15360,24576]: 5·15360·12288; 754,974,720 + 377,487,360
    ("silu_and_mul", "sgl_kernel::silu_and_mul", [[15360, 12288], [15360, 24576]], [BF, BF],
     None, 943_718_400, 1_132_462_080, "fp32"),
    ("relu", "aten::clamp_min_", [[10, 64, 112, 112], []], [BF, "Scalar"], ["", "0"],
     8_028_160, 32_112_640, "fp32"),
    ("binary", "aten::add", [[1, 77, 768], [1, 77, 768], []], [BF, BF, "Scalar"],
     ["", "", "1"], 59_136, 354_816, "fp32"),
    # broadcast [4,8] · [8]: 32 outputs; 128 + 32 + 128
    ("binary", "aten::mul", [[4, 8], [8]], [FP32, FP32], None, 32, 288, "fp32"),
    ("binary", "aten::mul", [[1, 77, 3072], []], [BF, "Scalar"], None,
     236_544, 946_176, "fp32"),
    # fp32 → fp64 copy: 4·4096·8 written + 4·4096·4 read
    ("copy", "aten::copy_", [[4, 4096], [4, 4096], []], ["double", FP32, "Scalar"], None,
     0, 196_608, ""),
    ("fill", "aten::fill_", [[888, 3072], []], [BF, "Scalar"], None, 0, 5_455_872, ""),
    # 888 int64 indices + 888 rows of 2880 bf16 read and written: 7,104 + 10,229,760
    ("embedding", "aten::embedding", [[25136, 2880], [888], [], [], []],
     [BF, "long int", "Scalar", "Scalar", "Scalar"], None, 0, 10_236_864, ""),
    # 454,656 multiplies; input 909,312 + fp8 output 454,656 + scale 4
    ("fp8_quant", "_C::static_scaled_fp8_quant", [[888, 512], [888, 512], []],
     ["c10::Float8_e4m3fn", BF, FP32], None, 454_656, 1_363_972, "fp32"),
    # a reduction: every buffer once, 2 × 8·4096·2048·2 + 2048·2 = 268,439,552
    ("triton", "triton_red_fused_add_mean_mul_pow_rsqrt_0",
     [[8, 4096, 2048], [2048], [8, 4096, 2048], [], []], [BF, BF, BF, "Scalar", "Scalar"],
     ["", "", "", "32768", "2048"], 0, 268_439_552, ""),
    # pointwise, last buffer 32768·8192 = xnumel 268,435,456: it may be the output, no
    # buffer is proved in place: every buffer once, 2 × 268,435,456 bf16
    ("triton_pointwise", "triton_poi_fused__unsafe_view_mul_silu_2",
     [[8, 4096, 8192], [32768, 8192], []], [BF, BF, "Scalar"], ["", "", "268435456"], 0,
     1_073_741_824, ""),
    # the xdit trace's bias + GELU on an mm output in place: the last buffer [9728] is
    # smaller than xnumel 2·4096·9728 = 79,691,776, so it is no output and the first,
    # in_out_ptr0, is read and written: 2 × 159,383,552 + 9728·2 = 318,786,560 (once each
    # gave 159,403,008: half the traffic, half the achieved bandwidth)
    ("triton_pointwise", "triton_poi_fused_addmm_gelu_view_15",
     [[2, 4096, 9728], [9728], []], [BF, BF, "Scalar"], ["", "", "79691776"], 0,
     318_786_560, ""),
    # The xdit trace's fused cat of a slice: xnumel 512; [2,256] fp32 and [2,256] bf16,
    # each min(512, 512) elements: 512·4 + 512·2 = 3,072
    ("triton_pointwise_part", "triton_poi_fused__to_copy_cat_slice_1",
     [[2, 256], [2, 256], []], [FP32, BF, "Scalar"], ["", "", "512"], 0, 3_072, ""),
    # a slice of a [1,36864,2432] buffer into [2,4096,2432]: xnumel 19,922,944; the big
    # buffer read 19,922,944 elements (not its 89,653,248), [2432] whole:
    # (19,922,944 + 2,432 + 19,922,944)·2 = 79,696,640
    ("triton_pointwise_part", "triton_poi_fused_add_slice_3",
     [[1, 36864, 2432], [2432], [2, 4096, 2432], []], [BF, BF, BF, "Scalar"],
     ["", "", "", "19922944"], 0, 79_696_640, ""),
    # The xdit trace's tiled kernel (ynumel 8192, xnumel 2432: 19,922,944 indices): bf16
    # [2,2432,64,64] 39,845,888 + [2432] 4,864 + [1,36864,2432] clamped to 19,922,944
    # elements 39,845,888 + two fp32 [2,4096,1] 2·32,768 + [2,14592] 58,368 + [14592]
    # 29,184 + [2,4096,2432] 39,845,888 = 119,695,616
    ("triton_pointwise_part",
     "triton_poi_fused__unsafe_view_add_addmm_clone_convolution_mul_native_layer_norm_"
     "slice_split_transpose_unsqueeze_view_7",
     [[2, 2432, 64, 64], [2432], [1, 36864, 2432], [2, 4096, 1], [2, 4096, 1], [2, 14592],
      [14592], [2, 4096, 2432], [], []], [BF, BF, BF, FP32, FP32, BF, BF, BF, "Scalar", "Scalar"],
     [""] * 8 + ["8192", "2432"], 0, 119_695_616, ""),
    # vLLM graph-replay trace (MI300X), T = 8192, H = 64, HK = 8, E = EV = 64, bf16:
    # lower bound 2·64·8192·(64 + 64) = 134,217,728 FLOP; q 8192·64·64·2 = 67,108,864,
    # k = v = 8192·8·64·2 = 8,388,608, out 67,108,864: 150,994,944 bytes
    ("unified_attention", "vllm::unified_attention_with_output",
     [[8192, 64, 64], [8192, 8, 64], [8192, 8, 64], [8192, 64, 64], [], [], [], [0]],
     [BF, BF, BF, BF, "", "", "", BF], [""] * 8, 134_217_728, 150_994_944, "bf16-tensor"),
    # SGLang Qwen3-8B prefill trace (MI300X): L = 15360, H = 32, E = EV = 128, HK = 8,
    # B = 16 − 1 = 15, SK = 15,616 KV tokens. PAIRS = 15360·(15360/15 + 1)/2
    # = 15360·1025/2 = 7,872,000; FLOP 2·32·7,872,000·256 = 128,974,848,000.
    # q 15360·32·128·2 = 125,829,120; KV 15,616·8·256·2 = 63,963,136; out 125,829,120;
    # cu_seqlens_q 16·4 = 64, kv_indptr 64, kv_page_indices 15,616·4 = 62,464:
    # 315,683,968
    ("mha_batch_prefill", "aiter::mha_batch_prefill",
     [[15360, 32, 128], [835874, 8, 128], [835874, 8, 128], [16], [16], [15616]]
     + [[]] * 24, [BF, BF, BF, "int", "int", "int"] + ["Scalar"] * 24, None,
     128_974_848_000, 315_683_968, "bf16-tensor"),
    # decode, 4 sequences × 1 token, H = 32, HK = 8, E = EV = 128, block size 16, bf16
    # (x = 8), block table [4, 64] int32: FLOP ≥ 2·32·4·256 = 65,536; q 32,768 +
    # out 32,768 + one key and value per token 4·8·256·2 = 16,384 + seq_lens 16 +
    # one block-table entry per sequence 16 = 81,952
    ("paged_attention_v1", "_C::paged_attention_v1",
     [[4, 32, 128], [4, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [],
      [4, 64], [4], [], [], [], [], [], []],
     [BF, BF, BF, BF, "Scalar", "Scalar", "int", "int", "Scalar", "Scalar", "", "", FP32,
      FP32], None, 65_536, 81_952, "bf16-tensor"),
    ("paged_attention_v2", "_C::paged_attention_v2",
     [[4, 32, 128], [4, 32, 2], [4, 32, 2], [4, 32, 2, 128], [4, 32, 128],
      [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [4, 64], [4]],
     [BF, FP32, FP32, BF, BF, BF, BF, "Scalar", "Scalar", "int", "int"], None,
     65_536, 81_952, "bf16-tensor"),
    # vLLM graph-replay trace: hidden [8192, 3072] bf16 read and the output written,
    # router logits [8192, 32]: 2·50,331,648 + 524,288 = 101,187,584 bytes, FLOP 0
    ("moe_forward", "vllm::moe_forward", [[8192, 3072], [8192, 32], [], []],
     [BF, BF, "", ""], [""] * 4, 0, 101_187_584, ""),
    # vLLM graph-replay trace: T = 8192, query [8192, 4096], key [8192, 512], head 64,
    # cos_sin_cache [131072, 64] (RD = 64 = head: all rotated).
    # FLOP 3·(33,554,432 + 4,194,304)·64/64 = 113,246,208; bytes positions 8192·8
    # = 65,536 + 2·(67,108,864 + 8,388,608) = 150,994,944 + cache rows
    # min(8192, 131072)·64·2 = 1,048,576: 152,109,056
    ("rotary_embedding", "_C::rotary_embedding",
     [[8192], [8192, 4096], [8192, 512], [], [131072, 64], []],
     ["long int", BF, BF, "Scalar", BF, "Scalar"], ["", "", "", "64", "", "True"],
     113_246_208, 152_109_056, "fp32"),
    # SGLang decode trace: T = 32, query [32, 4096], key [32, 1024], head 128, cache
    # [41216, 128]: FLOP 3·(131,072 + 32,768) = 491,520; bytes 32·8 = 256
    # + 2·(262,144 + 65,536) = 655,360 + 32·128·2 = 8,192: 663,808
    ("rotary_embedding", "sgl_kernel::rotary_embedding",
     [[32], [32, 4096], [32, 1024], [], [41216, 128], []],
     ["long int", BF, BF, "Scalar", BF, "Scalar"], ["", "", "", "128", "", "True"],
     491_520, 663_808, "fp32"),
    # partial rotary (RD 32 of head 128) and no key: 3·(4·1024)·32/128 = 3,072;
    # positions 32 + 2·8,192·32/128 = 4,096 + 4 cache rows 4·32·2 = 256: 4,384
    ("rotary_embedding", "_C::rotary_embedding",
     [[4], [4, 1024], [], [], [2048, 32], []],
     ["long int", BF, "", "Scalar", BF, "Scalar"], ["", "", "", "128", "", "False"],
     3_072, 4_384, "fp32"),
    # [2, 64, 8, 8] fp32 in 8 groups, weight and bias [64]: 8,192 elements × 7 = 57,344;
    # 2·32,768 + 256 + 256 = 66,048
    ("group_norm", "aten::native_group_norm",
     [[2, 64, 8, 8], [64], [64], [], [], [], [], []], [FP32] * 3 + ["Scalar"] * 5,
     ["", "", "", "2", "64", "64", "8", "1e-05"], 57_344, 66_048, "fp32"),
    # backward of that, all three grads: 8,192 × (2 + 8 + 2 + 1) = 106,496;
    # dy 32,768 + x 32,768 + mean 64 + rstd 64 (2·8 fp32) + weight 256 + dx 32,768
    # + dweight and dbias 2·64·4 = 512: 99,200
    ("group_norm_backward", "aten::native_group_norm_backward",
     [[2, 64, 8, 8], [2, 64, 8, 8], [2, 8], [2, 8], [64], [], [], [], [], []],
     [FP32] * 5 + ["Scalar"] * 4 + ["ScalarList"],
     ["", "", "", "", "", "2", "64", "64", "8", "[True, True, True]"], 106_496, 99_200,
     "fp32"),
    # the ResNet training trace (MI300X): [10, 512, 7, 7] bf16 = 250,880 elements, train,
    # all grads: × 10 = 2,508,800; dy 501,760 + x 501,760 + weight 1,024 + save_mean and
    # save_invstd 2·2,048 + dx 501,760 + dweight and dbias 2·512·2 = 2,048: 1,512,448
    ("batch_norm_backward", "aten::native_batch_norm_backward",
     [[10, 512, 7, 7], [10, 512, 7, 7]] + [[512]] * 5 + [[], [], []],
     [BF] * 5 + [FP32, FP32, "Scalar", "Scalar", "ScalarList"],
     [""] * 7 + ["True", "1e-05", "[True, True, True]"], 2_508_800, 1_512_448, "fp32"),
    # inference, grad input only: 250,880 × 1; dy + x + weight 1,024 + running mean and
    # var 2·1,024 + dx: 3·501,760 + 3,072 = 1,508,352
    ("batch_norm_backward", "aten::native_batch_norm_backward",
     [[10, 512, 7, 7], [10, 512, 7, 7]] + [[512]] * 3 + [[], [], [], [], []],
     [BF] * 5 + ["", "", "Scalar", "Scalar", "ScalarList"],
     [""] * 7 + ["False", "1e-05", "[True, False, False]"], 250_880, 1_508_352, "fp32"),
]


@pytest.mark.parametrize(("model", "op", "dims", "types", "concrete", "flop", "size",
                          "precision"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_operator_model_by_hand(model, op, dims, types, concrete, flop, size, precision):
    fit = load_operators().fit(op, dims, types, concrete)
    assert not isinstance(fit, str), fit
    assert fit.model.name == model and fit.precision == precision
    assert evaluate([fit]) == [(flop, size)]


def test_triton_kernels_reading_scattered_parts_of_a_buffer_have_no_model():
    # an index or gather reads where its indices point: the buffer size overstates it
    fit = load_operators().fit("triton_poi_fused_index_select_slice_4",
                               [[2, 38, 4429, 64], [2, 333, 2432], []], [BF, BF, "Scalar"],
                               ["", "", "1295712"])
    assert fit == "no model"
    # a slice kernel without its xnumel recorded: no bytes, said
    models = load_operators()
    fit = models.fit("triton_poi_fused__unsafe_view_clone_slice_transpose_13",
                     [[2, 38, 4429, 64], [2, 333, 2432], []], [BF, BF, "Scalar"], None)
    assert evaluate([fit]) == ["triton_pointwise_part: FLOP 0 or bytes 0 not valid"]


def test_models_whose_inputs_cannot_give_their_numbers_say_so():
    models = load_operators()
    for name in ("unified_attention", "mha_batch_prefill", "paged_attention_v1",
                 "paged_attention_v2", "moe_forward"):
        assert models.models[name].note
    assert "bandwidth-only" in models.models["moe_forward"].note
    assert not models.models["mm"].note


def _attention(op: str, q: list, kv: list, concrete: list) -> float:
    """FLOP of one attention call with q / k = v dims (bf16), the rest None or Scalar."""
    n = len(concrete)
    fit = load_operators().fit(op, [q, kv, kv] + [[]] * (n - 3), [BF] * 3 + ["Scalar"] * (n - 3),
                               concrete)
    assert not isinstance(fit, str), fit
    ((flop, _),) = evaluate([fit])
    return flop


SDPA_CAUSAL = ["", "", "", "", "0.", "True", "", "False"]
FLASH_CAUSAL = ["", "", "", "", "", "", "", "0.", "True", "False", ""]


def _efficient(mask_type: int) -> list:
    return [""] * 6 + ["", "", "0.", str(mask_type), "False", ""]


@pytest.mark.parametrize(("op", "layout", "concrete", "flop"), [
    # L = 128 queries against S = 1,024 keys, B = 1, H = 32, E = EV = 128.
    # SDPA's is_causal is top-left (torch.nn.functional.scaled_dot_product_attention's
    # reference: torch.ones(L, S).tril(diagonal=0)): query i keeps keys 0..i,
    # Σ_{i<128} (i + 1) = 128·129/2 = 8,256 pairs; 2·1·32·8,256·(128 + 128) = 135,266,304
    # (4·32·128·8,256; L·S/2 gave 1,073,741,824)
    ("aten::scaled_dot_product_attention", "BHLE", SDPA_CAUSAL, 135_266_304),
    # _efficient_attention_forward custom_mask_type 1 = CausalFromTopLeft: the same
    ("aten::_efficient_attention_forward", "BLHE", _efficient(1), 135_266_304),
    # flash attention's bottom-right mask (flash_attn_func docstring): query i keeps keys
    # 0..S − L + i: Σ_{i<128} (897 + i) = 128·897 + 8,128 = 122,944 pairs;
    # 2·32·122,944·256 = 2,014,314,496
    ("aten::_flash_attention_forward", "BLHE", FLASH_CAUSAL, 2_014_314_496),
    # custom_mask_type 2 = CausalFromBottomRight: the same
    ("aten::_efficient_attention_forward", "BLHE", _efficient(2), 2_014_314_496),
    # no mask (custom_mask_type 0): 2·32·128·1,024·256 = 2,147,483,648
    ("aten::_efficient_attention_forward", "BLHE", _efficient(0), 2_147_483_648),
])
def test_causal_masks_keep_the_pairs_of_their_corner(op, layout, concrete, flop):
    q, kv = ([1, 32, 128, 128], [1, 32, 1024, 128]) if layout == "BHLE" else \
        ([1, 128, 32, 128], [1, 1024, 32, 128])
    assert _attention(op, q, kv, concrete) == flop


@pytest.mark.parametrize(("queries", "keys", "top_left", "bottom_right"), [
    # flash_attn_func's docstring draws both shapes (1 = keep):
    # L 2, S 5: bottom-right 11110 / 11111 = 9 pairs; top-left 10000 / 11000 = 3
    (2, 5, 3, 9),
    # L 5, S 2: bottom-right 00 / 00 / 00 / 10 / 11 = 3 pairs (three rows keep nothing);
    # top-left 10 / 11 / 11 / 11 / 11 = 9
    (5, 2, 9, 3),
])
def test_both_corners_against_flash_attentions_drawn_masks(queries, keys, top_left,
                                                          bottom_right):
    # one head of E = EV = 1: FLOP = 2·PAIRS·2 = 4·PAIRS
    q, kv = [1, 1, queries, 1], [1, 1, keys, 1]
    sdpa = _attention("aten::scaled_dot_product_attention", q, kv, SDPA_CAUSAL)
    q, kv = [1, queries, 1, 1], [1, keys, 1, 1]
    flash = _attention("aten::_flash_attention_forward", q, kv, FLASH_CAUSAL)
    assert (sdpa, flash) == (4 * top_left, 4 * bottom_right)


def test_fp32_gemms_on_tf32_tensor_cores_are_tf32():
    models = load_operators()
    fit = models.fit("aten::mm", [[4, 4], [4, 4]], [FP32, FP32], None)
    tensor_op = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>"
    assert models.kernel_precision(fit, [tensor_op]) == "tf32"
    assert models.kernel_precision(fit, ["ampere_sgemm_128x64_nn"]) == "fp32"


@pytest.mark.shared
def test_tf32_gemms_of_the_sampled_trace_stay_under_their_roof(shared_data):
    points = load_points("pytorch", _trace(shared_data, "hta-sampled-nodevice-noflows"))
    table = analyze(points, load_hardware()["a100-sxm"])
    gemm = table.filter(pl.col("family") == "GEMM")
    assert "tf32" in gemm["precision"].to_list()
    assert not gemm["above_roof"].any()


def test_every_operator_model_has_a_hand_worked_case():
    assert {c[0] for c in CASES} == set(load_operators().models)


def test_fp32_gemm_on_amd_is_matrix_work_and_vector_ops_stay_vector():
    models = load_operators()
    gemm = models.fit("aten::mm", [[4, 4], [4, 4]], [FP32, FP32], None, amd=True)
    add = models.fit("aten::add", [[4], [4]], [BF, BF], None, amd=True)
    # bf16 elementwise math runs in fp32 (ATen's opmath type)
    assert (gemm.precision, add.precision) == ("fp32-matrix", "fp32")


@pytest.mark.parametrize(("op", "dtype", "precision"), [
    # vector ops compute 16-bit floats in float (at::opmath_type, ATen/OpMathType.h)
    ("aten::add", FP16, "fp32"), ("aten::add", BF, "fp32"), ("aten::add", FP32, "fp32"),
    ("aten::add", "double", "fp64"), ("aten::add", "int", "int32"),
    ("aten::add", "long int", "int64"),
    ("aten::add", "c10::Float8_e4m3fn", ""),  # no fp8 vector roof: said, never replaced
    # matrix ops at the dtype's tensor/matrix precision
    ("aten::mm", BF, "bf16-tensor"), ("aten::mm", FP16, "fp16-tensor"),
    ("aten::mm", "double", "fp64-tensor"), ("aten::mm", FP32, "fp32"),
])
def test_the_precision_rule_of_the_points_docstring(op, dtype, precision):
    fit = load_operators().fit(op, [[4, 4], [4, 4]], [dtype, dtype], None)
    assert fit.precision == precision


def test_missing_concrete_inputs_are_assumed_and_said():
    fit = load_operators().fit("aten::cudnn_convolution", [[1, 3, 8, 8], [4, 3, 3, 3]],
                               [FP32, FP32], None)
    assert set(fit.assumed) == {"DH=1", "DW=1", "PH=0", "PW=0", "SH=1", "SW=1"}
    # stride 1, no padding: OH = OW = 6; 2·1·4·6·6·27
    assert evaluate([fit]) == [(7_776, (192 + 108 + 144) * 4)]


def test_calls_a_model_does_not_describe_say_why():
    models = load_operators()
    assert "1 dims where the model reads 2" in models.fit("aten::mm", [[5], [5, 3]],
                                                           [FP32, FP32], None)
    assert "K is 4 and 5" in models.fit("aten::mm", [[3, 4], [5, 6]], [FP32, FP32], None)
    # a transposed convolution is not a forward convolution
    transposed = models.fit("aten::convolution", [[1, 3, 8, 8], [3, 4, 3, 3], []],
                            [FP32, FP32, ""] + ["ScalarList"] * 3 + ["Scalar"],
                            ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "True"])
    assert "transposed is 1" in transposed
    assert models.fit("aten::nonzero", [[4]], [FP32], None) == "no model"


def test_a_formula_naming_nothing_is_refused(tmp_path):
    bad = tmp_path / "operators.yaml"
    text = (REPO / "src/rooflow/data/operators.yaml").read_text()
    bad.write_text(text.replace('flop: "2*M*N*K"\n    bytes: "(M*K', 'flop: "2*M*N*Q"\n'
                                '    bytes: "(M*K', 1))
    with pytest.raises(InputError, match="'Q', which no input"):
        load_operators(bad)


# ---------------------------------------------------------------- linking


@pytest.mark.shared
def test_old_id_space_is_never_matched_blindly(shared_data):
    # GPU "External id" == correlation here; some equal an unrelated op's External id
    trace = read_trace(_trace(shared_data, "hta-a100-alexnet-noshapes"))
    link(trace)
    assert {w.method for w in trace.work} == {"time"}
    ops_by_id = {op.ext: op for op in trace.ops}
    collisions = 0
    for w in trace.work:
        thread, ts = trace.launches[w.correlation]
        op = trace.ops[w.op]
        assert op.thread == thread and op.ts <= ts <= op.end
        blind = ops_by_id.get(w.ext)
        collisions += blind is not None and not (blind.ts <= ts <= blind.end)
    assert collisions == 17  # what a blind id match would have linked wrongly


def _synthetic(tmp_path: Path, events: list) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return path


def _op(name, ts, dur, ext, dims=None):
    args = {"External id": ext, "Input Dims": dims or [[4, 4], [4, 4]],
            "Input type": [FP32, FP32]}
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
            "dur": dur, "args": args}


def _launch(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": ts, "dur": 1, "args": {"correlation": corr}}


def _kernel(ts, dur, corr, ext=None):
    return {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": corr, "External id": ext, "device": 0}}


def test_link_methods_on_a_synthetic_trace(tmp_path):
    path = _synthetic(tmp_path, [
        _op("aten::mm", 0, 10, 1), _op("aten::linear", 20, 10, 2), _op("aten::mm", 22, 3, 3),
        _launch(23, 7), _kernel(40, 2, 7, ext=1),   # id 1 says op 1, but 23 is not in it
        _launch(27, 8), _kernel(43, 2, 8, ext=2),   # id 2 holds 27: linked by id
        {"ph": "s", "cat": "ac2g", "id": 9, "pid": 1, "tid": 1, "ts": 5},
        _kernel(46, 2, 9),                          # a flow start only: by time, op 1
        _kernel(50, 2, 10),                         # no launch event at all
        _launch(100, 11), _kernel(101, 2, 11),      # launched outside every operator
    ])
    trace = read_trace(path)
    link(trace)
    assert [(w.method, w.op) for w in trace.work] == [
        ("time", 2), ("id", 1), ("time", 0), ("no launch", -1), ("outside ops", -1)]
    assert trace.contradicted == 1


def test_a_miopen_convolution_bias_is_counted_once_by_its_child_add(tmp_path):
    # PyTorch adds a MIOpen convolution's bias with output->add_(bias), a child aten::add_
    # with its own kernel (miopen_convolution_add_bias_, aten/src/ATen/native/miopen/
    # Conv_miopen.cpp). x [1,4,8,8], w [8,4,3,3], bias [8], padding 1, stride 1, fp32:
    # OH = OW = floor((8 + 2 − 2 − 1) / 1) + 1 = 8.
    conv_args = {"External id": 1, "Input Dims": [[1, 4, 8, 8], [8, 4, 3, 3], [8], [], [], [],
                                                  [], [], []],
                 "Input type": [FP32, FP32, FP32] + ["ScalarList"] * 3 + ["Scalar"] * 3,
                 "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False",
                                     "False"]}
    add_args = {"External id": 2, "Input Dims": [[1, 8, 8, 8], [1, 8, 1, 1], []],
                "Input type": [FP32, FP32, "Scalar"], "Concrete Inputs": ["", "", "1"]}
    path = _synthetic(tmp_path, [
        {**_op("aten::miopen_convolution", 0, 20, 1), "args": conv_args}, _launch(2, 7),
        {**_op("aten::add_", 10, 5, 2), "args": add_args}, _launch(12, 8),
        _kernel(30, 4, 7, ext=1), _kernel(40, 1, 8, ext=2)])
    rows = {r["op"]: r for r in pytorch_table(path).operators.iter_rows(named=True)}
    conv, add = rows["aten::miopen_convolution"], rows["aten::add_"]
    # the convolution alone: 2·1·8·8·8·4·3·3 = 36,864 FLOP;
    # x 256·4 + w 288·4 + y 512·4 = 1,024 + 1,152 + 2,048 = 4,224 bytes
    assert (conv["flop"], conv["bytes"]) == (36_864, 4_224)
    # the bias add: 512 FLOP; y read 2,048 + bias 32 + y written 2,048 = 4,128 bytes
    assert (add["flop"], add["bytes"]) == (512, 4_128)
    # together one bias add, N·F·OH·OW = 512 (the conv counting it too gave 37,888)
    assert conv["flop"] + add["flop"] == 37_376


@pytest.mark.shared
def test_in_place_triton_kernels_of_the_xdit_trace_count_their_buffer_twice(shared_data):
    path = _trace(shared_data, "tracelens-mi300x-xdit-sd3.5-239k")
    row = _row(path, "triton_poi_fused_addmm_gelu_view_15 [2,4096,9728]x[9728] bf16")
    # in_out_ptr0 [2,4096,9728] read and written, the bias [9728] read:
    # 2·(2·4096·9728·2) + 9728·2 = 318,767,104 + 19,456 = 318,786,560 per call
    assert row["model"] == "triton_pointwise"
    assert row["bytes"] == 318_786_560 * row["launches"]


@pytest.mark.shared
def test_graph_replays_stay_unlinked_and_are_counted(shared_data):
    result = _table(_trace(shared_data, "tracelens-mi300x-vllm-graph-replay"))
    assert result.methods["outside ops"] == 361
    total = sum(result.shares.values())
    assert 0.95 < result.shares["unlinked"] / total < 0.97


@pytest.mark.shared
def test_communication_never_becomes_a_point(shared_data):
    path = _trace(shared_data, "tracelens-mi300x-resnet-train")
    result = _table(path)
    # record_param_comms: 47.2 ms of NCCL kernels (SOURCES.md)
    assert math.isclose(result.shares["communication"], 47.2e-3, rel_tol=5e-3)
    assert not result.operators.filter(pl.col("op") == "record_param_comms").height


@pytest.mark.shared
@pytest.mark.parametrize(("folder", "names", "preset"), [
    ("tracelens-mi300x-sglang-qwen3-8b", ("AMD Instinct MI300X",), "mi300x"),
    ("tracelens-b200-vllm-eager", ("NVIDIA B200",), "b200"),
    ("hta-a100-ddp-109k", ("NVIDIA A100-SXM4-80GB",), "a100-sxm"),
    ("hta-mi250-minitoy", (), None),  # "AMD Radeon Graphics" names no product
    ("tracelens-mi300x-vllm-graph-replay", (), None),  # name ""
    ("hta-sampled-nodevice-noflows", (), None),  # no deviceProperties
])
def test_the_gpu_of_a_trace_picks_its_preset(shared_data, folder, names, preset):
    from rooflow.kinds import device_names
    from rooflow.roofs.preset import device_preset

    found = device_names("pytorch", _trace(shared_data, folder))
    assert found == names
    assert device_preset(load_hardware(), found) == preset


def test_a_bandwidth_only_row_above_the_memory_roof_is_one_warning(tmp_path):
    from rooflow.pipeline import report

    # aten::copy_ of 2·4096·4096 fp32 (134 MB) in 10 µs: 13.4 TB/s, above 3.35 TB/s
    path = _synthetic(tmp_path, [
        _op("aten::copy_", 0, 10, 1, [[4096, 4096], [4096, 4096]]), _launch(5, 7),
        _kernel(20, 10, 7, ext=1)])
    lines = []
    report(pytorch_points(path, log=lambda _: None), load_hardware()["h100-sxm"],
           table_path=None, plot_path=None, log=lines.append)
    (warning,) = [line for line in lines if "above the roof" in line]
    assert "1.342e+04 GB/s > 3350 GB/s" in warning


# ---------------------------------------------------------------- the example and the CLI


def _example_table():
    points = pytorch_points(EXAMPLE, log=lambda _: None)
    return analyze(points, load_hardware()["h100-sxm"])


def test_example_gemms_near_the_compute_roof_vector_ops_on_the_memory_roof():
    table = _example_table()
    assert table.height == 9
    gemm = table.filter(pl.col("family") == "GEMM")
    assert set(gemm["bound"].to_list()) == {"compute"}
    assert all(65 < p < 72 for p in gemm["pct_of_roof"])
    vector = table.filter(pl.col("family").is_in(["elementwise", "norm"]))
    assert set(vector["bound"].to_list()) == {"memory"}
    assert all(80 < p < 90 for p in vector["pct_of_roof"])
    assert not table["above_roof"].any()


def test_per_launch_gives_each_call_its_point():
    points = pytorch_points(EXAMPLE, per_launch=True, log=lambda _: None)
    assert points.filter(pl.col("label").str.starts_with(
        "aten::mm [4096,4096]x[4096,11008] bf16 @")).height == 2
    assert (points["row"] > 0).all()


def test_the_log_says_how_kernels_were_linked_and_what_has_no_model():
    lines = []
    pytorch_points(EXAMPLE, log=lines.append)
    assert "12 by External id" in lines[0] and "0 unlinked" in lines[0]
    assert "host transfers 0.1 %" in lines[1]
    assert lines[2].endswith("no model: aten::cumsum 0.1 % (1 calls)")


def test_detection_plain_and_gzipped(tmp_path):
    gz = tmp_path / "trace.json.gz"
    gz.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    assert detect_kind(EXAMPLE) == detect_kind(gz) == "pytorch"
    assert pytorch_points(gz, log=lambda _: None).height == 9
    other = tmp_path / "roofline.json"
    other.write_text('{"empirical": {"gbytes": {}}}')
    with pytest.raises(InputError):
        detect_kind(other)


@pytest.mark.parametrize(("text", "words"), [
    ('{"schemaVersion": 1, "traceEvents": [{"ph": "X", ', "not a readable trace JSON"),
    ('{"schemaVersion": 1}', "no traceEvents"),
    ('{"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", '
     '"ts": 1, "dur": 1}]}', "no GPU activity"),
])
def test_broken_or_empty_traces_are_one_line(tmp_path, text, words):
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        pytorch_points(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_trace_whose_operators_have_no_model_is_refused(tmp_path):
    path = _synthetic(tmp_path, [_op("aten::nonzero", 0, 10, 1, [[4]]), _launch(5, 7),
                                 _kernel(20, 2, 7, ext=1)])
    with pytest.raises(InputError, match="no operator with a model ran on the GPU"):
        pytorch_points(path, log=lambda _: None)


def test_rooflow_plot_reads_a_trace(tmp_path):
    out = tmp_path / "t.png"
    proc = subprocess.run([ROOFLOW, "plot", str(EXAMPLE), "--hardware", "h100-sxm", "-o",
                           str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "read as pytorch" in proc.stderr and "GPU time" in proc.stderr and out.exists()


def _three_mm_calls(tmp_path: Path) -> Path:
    """Three aten::mm calls of one shape whose kernels ran 1, 2 and 6 ms (1000 µs each)."""
    events = []
    for i, dur in enumerate((1000, 2000, 6000)):
        start = i * 10_000
        events += [_op("aten::mm", start, 9_000, i + 1), _launch(start + 1, 100 + i),
                   _kernel(start + 2, dur, 100 + i, ext=i + 1)]
    return _synthetic(tmp_path, events)


def test_per_call_statistics_of_three_calls(tmp_path):
    # calls 3; GPU time 1 + 2 + 6 = 9 ms; mean 3 ms; median 2 ms; min 1 ms; max 6 ms;
    # std with ddof 1 = sqrt(((1-3)² + (2-3)² + (6-3)²) / (3 - 1)) = sqrt(7) = 2.6458 ms
    path = _three_mm_calls(tmp_path)
    row = pytorch_table(path).operators.row(0, named=True)
    assert (row["launches"], row["time_s"]) == (3, pytest.approx(9e-3))
    assert (row["time_per_call_s"], row["time_per_call_median_s"], row["time_per_call_min_s"],
            row["time_per_call_max_s"]) == pytest.approx((3e-3, 2e-3, 1e-3, 6e-3))
    assert row["time_per_call_std_s"] == pytest.approx(2.6458e-3, abs=1e-7)
    point = pytorch_points(path, log=lambda _: None).row(0, named=True)
    assert point["calls"] == 3
    assert point["time_per_call_median_s"] == pytest.approx(2e-3)
    assert point["time_per_call_std_s"] == pytest.approx(2.6458e-3, abs=1e-7)
    # per launch: one call per row, no standard deviation (null, not 0)
    rows = pytorch_points(path, per_launch=True, log=lambda _: None)
    assert rows["calls"].to_list() == [1, 1, 1]
    assert sorted(rows["time_per_call_s"].to_list()) == pytest.approx([1e-3, 2e-3, 6e-3])
    assert rows["time_per_call_std_s"].to_list() == [None, None, None]


def test_per_call_columns_in_the_analysis_table_and_its_json(tmp_path):
    from rooflow.export import to_json

    points = pytorch_points(_three_mm_calls(tmp_path), log=lambda _: None)
    table = analyze(points, load_hardware()["a100-sxm"])
    at = table.columns.index("time_s")
    assert table.columns[at + 1:at + 7] == [
        "calls", "time_per_call_s", "time_per_call_median_s", "time_per_call_std_s",
        "time_per_call_min_s", "time_per_call_max_s"]
    document = json.loads(to_json(table))
    assert document["units"]["time_per_call_median_s"] == "s"
    record = document["records"][0]
    assert record["calls"] == 3 and record["time_per_call_max_s"] == pytest.approx(6e-3)


def test_a_model_with_a_note_says_it_in_the_table_and_the_log(tmp_path):
    # vllm::moe_forward: bandwidth-only, its note in the table's note column and the log
    args = {"External id": 1, "Input Dims": [[8, 16], [8, 4], [], []],
            "Input type": [BF, BF, "", ""]}
    path = _synthetic(tmp_path, [
        {"ph": "X", "cat": "cpu_op", "name": "vllm::moe_forward", "pid": 1, "tid": 1,
         "ts": 0, "dur": 10, "args": args}, _launch(1, 7), _kernel(2, 2, 7, ext=1)])
    row = pytorch_table(path).operators.row(0, named=True)
    assert (row["status"], row["flop"]) == ("bandwidth-only", 0)
    assert row["note"].startswith("bandwidth-only: the expert weights are not inputs")
    lines: list[str] = []
    pytorch_points(path, log=lines.append)
    assert any("moe_forward (100.0 % of GPU time): bandwidth-only" in line for line in lines)
