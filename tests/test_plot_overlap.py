"""No text of a plot lies over another text, a marker, a line, or off the canvas.

Every shipped example (resources/) and a handful of real inputs (../shared/data: a PyTorch
trace, an ncu CSV, a rocprof workload, a comparison) are plotted by the CLI, in-process;
each figure is measured just before it is written (:func:`overlap_check.overlaps`, the
plot-overlap probe's measure) and must show zero overlaps of every kind.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.figure
import pytest
from overlap_check import overlaps

from rooflow.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources"
SHARED = ROOT.parent / "shared" / "data"


def _measure(monkeypatch, args: list[str]) -> list[dict]:
    """Run ``rooflow ARGS``; the overlaps of each figure it writes."""
    found: list[dict] = []
    savefig = matplotlib.figure.Figure.savefig

    def measured(fig, *a, **k):
        if not found or found[-1]["fig"] is not fig:  # a figure is measured once
            found.append({"fig": fig, **overlaps(fig)})
        return savefig(fig, *a, **k)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", measured)
    try:
        main(args)
    except SystemExit as exit_:
        assert exit_.code in (0, None), f"rooflow {' '.join(args)} exited {exit_.code}"
    assert found, "no figure written"
    return [{k: v for k, v in f.items() if k != "fig"} for f in found]


def _assert_clear(results: list[dict]) -> None:
    for r in results:
        assert r == {"text_text": [], "off_canvas": [], "text_marker": [], "text_line": []}


EXAMPLES = {
    "flash attention, pairs and labels": [
        "plot", str(RES / "roofline" / "flash_attention.csv"), "--hardware", "arc-pro-b70",
        "--connect", "--annotate"],
    "ncu CSV": ["plot", str(RES / "ncu" / "a100_dgemm_triad_hgemm.csv"), "--hardware",
                "a100-sxm"],
    "ncu metric exports": ["plot", str(RES / "ncu" / "a100_sgemm_saxpy"), "--hardware",
                           "a100-sxm"],
    "rocprof": ["plot", str(RES / "rocprof" / "mi210_gemm_triad"), "--hardware", "mi210"],
    "pytorch trace": ["plot", str(RES / "pytorch" / "h100_llama_layer.json"), "--hardware",
                      "h100-sxm"],
    "trajectory": ["plot", str(RES / "specs" / "1_BatchedMoE.yaml"), "--hardware", "h100-sxm",
                   "--trajectory", "M"],
    "compare": ["compare", str(RES / "roofline" / "flash_attention.csv"),
                str(RES / "roofline" / "flash_attention_tuned.csv"), "--hardware",
                "arc-pro-b70"],
}


@pytest.mark.parametrize("args", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_shipped_examples_have_no_overlaps(args, tmp_path, monkeypatch):
    _assert_clear(_measure(monkeypatch, [*args, "-o", str(tmp_path / "out.png")]))


def test_model_check_has_no_overlaps(tmp_path, monkeypatch):
    model = tmp_path / "model.csv"
    # The shipped ncu DGEMM against its model: 2·4096³ FLOP, 3·4096²·8 bytes.
    model.write_text("kernel,flop,bytes\ndgemm_4096,137438953472,402653184\n")
    _assert_clear(_measure(monkeypatch, [
        "model-check", str(RES / "ncu" / "a100_dgemm_triad_hgemm.csv"), "--model", str(model),
        "--map", "^dgemm=dgemm_4096", "--hardware", "a100-sxm", "-o", str(tmp_path / "m.png"),
        "--table", str(tmp_path / "m.csv")]))


REAL = {
    # The example: roof labels over operator labels, a ridge label under the GEMMs.
    "sglang trace": ["plot",
                     "pytorch/tracelens-mi300x-sglang-qwen3-8b/sglang_Qwen3-8B_prefilldecode.json.gz",
                     "--hardware", "mi300x"],
    "ncu nersc-gpp": ["plot", "ncu/nersc-gpp/output.csv", "--hardware", "v100-nersc"],
    "rocprof laplacian": ["plot", "rocprof/mi250x-laplacian-two-pass/results.csv",
                          "--hardware", "mi250x"],
    "compare nersc-gpp": ["compare", "ncu/nersc-gpp/output.csv", "ncu/nersc-gpp/output1.csv",
                          "--hardware", "v100-nersc"],
}


@pytest.mark.shared
@pytest.mark.parametrize("args", list(REAL.values()), ids=list(REAL.keys()))
def test_real_inputs_have_no_overlaps(args, tmp_path, monkeypatch):
    files = [a if a.startswith("-") or "/" not in a else str(SHARED / a) for a in args]
    if not all(Path(f).exists() for f in files if f.startswith(str(SHARED))):
        pytest.skip("../shared/data not here")
    _assert_clear(_measure(monkeypatch, [*files, "-o", str(tmp_path / "out.png")]))
