"""No text of a plot lies over another text, a marker, a line, or off the canvas.

Every shipped example (resources/) and a real file of every family in ../shared/data
(traces, ncu CSV and report, rocprof, rocprof-compute workloads and database, unitrace,
trajectories, a comparison, a model check) are plotted by the CLI, in-process; each
figure is measured just before it is written, at the dpi it is written at
(:func:`overlap_check.overlaps`, the plot-overlap probe's measure) and must show zero
overlaps of every kind.
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


# Commands whose plot is --plot (their -o is the table). The projection's panels were a
# row of 4 narrow ones whose roof and ridge labels were never settled (four ridge labels
# over compute labels, a key past the canvas); the history's run names and "Run" fell off
# the canvas below.
PLOT_OPTION = {
    "projection": ["project", str(RES / "pytorch" / "h100_llama_layer.json"), "--preset",
                   "h100-sxm,h200,b200,mi300x"],
    "history": ["history", str(RES / "roofline" / "flash_attention.csv"),
                str(RES / "roofline" / "flash_attention_tuned.csv"), "--preset",
                "arc-pro-b70"],
}


@pytest.mark.parametrize("args", PLOT_OPTION.values(), ids=PLOT_OPTION.keys())
def test_shipped_projection_and_history_have_no_overlaps(args, tmp_path, monkeypatch):
    _assert_clear(_measure(monkeypatch, [*args, "--plot", str(tmp_path / "out.png"), "-o",
                                         str(tmp_path / "out.csv")]))


def test_model_check_has_no_overlaps(tmp_path, monkeypatch):
    model = tmp_path / "model.csv"
    # The shipped ncu DGEMM against its model: 2·4096³ FLOP, 3·4096²·8 bytes.
    model.write_text("kernel,flop,bytes\ndgemm_4096,137438953472,402653184\n")
    _assert_clear(_measure(monkeypatch, [
        "model-check", str(RES / "ncu" / "a100_dgemm_triad_hgemm.csv"), "--model", str(model),
        "--map", "^dgemm=dgemm_4096", "--hardware", "a100-sxm", "-o", str(tmp_path / "m.png"),
        "--table", str(tmp_path / "m.csv")]))


GH200 = "ncu-rep/gh200-triton-silu-fullset/silu-2025-04-18-v8.ncu-rep"
REAL = {
    # One plot per family of real file in ../shared/data (SOURCES.md): traces, ncu CSV and
    # report, rocprof, rocprof-compute workloads and database, unitrace, spec trajectories,
    # comparisons; the model check below. The examples among them: the SGLang
    # trace (a leader line over the "fp32: 163 TFLOP/s" label; roof labels over operator
    # labels) and the MI325X workload (the numbered key over the bandwidth panel).
    "sglang trace": ["plot",
                     "pytorch/tracelens-mi300x-sglang-qwen3-8b/sglang_Qwen3-8B_prefilldecode.json.gz",
                     "--hardware", "mi300x"],
    "resnet trace": ["plot", "pytorch/tracelens-mi300x-resnet-train/resnet_act_checkpoint.json.gz",
                     "--hardware", "mi300x"],
    "ncu nersc-gpp": ["plot", "ncu/nersc-gpp/output.csv", "--hardware", "v100-nersc"],
    "ncu v100 details": ["plot", "ncu/modern-details-v100/output.csv", "--hardware",
                         "v100-nersc"],
    "ncu report": ["plot", "ncu-rep/h100pcie-rmsnorm-fullset/2025-04-21_v1.ncu-rep",
                   "--hardware", "h100-pcie"],
    # On its own peaks, per launch: the note names three clocks (≈ 270 characters), which
    # ran off both sides of the canvas as one line.
    "ncu report, own peaks": ["plot", GH200, "--per-launch", "--preset-file", GH200],
    # A numbered key beside a bandwidth-only panel: the key ran over the panel and its
    # numbers over the markers.
    "ddp trace, key": ["plot", "pytorch/hta-a100-ddp-109k/rank0.json.gz", "--key"],
    # 40 labels asked for on clustered points: those with no clear place are left out.
    "ddp trace, labels": ["plot", "pytorch/hta-a100-ddp-109k/rank0.json.gz", "--annotate"],
    "vllm trace, key": ["plot", "pytorch/tracelens-b200-vllm-eager/eager_trace.json.gz",
                        "--key"],
    "rocprof laplacian": ["plot", "rocprof/mi250x-laplacian-two-pass/results.csv",
                          "--hardware", "mi250x"],
    "mi325x workload": ["plot", "omniperf/mi325x-hipkittens-gemm", "--hardware", "mi325x"],
    "mi300a workload": ["plot", "omniperf/mi300a-fortran-collapse", "--hardware", "mi300a"],
    "mi308x workload": ["plot", "omniperf/mi308x-montecarlo-pi", "--hardware", "mi300x"],
    "rocprof-compute db": ["plot",
                           "rocprof-compute-db/mi350-montecarlo-pi/rocprof_compute_23ed6f36.db",
                           "--hardware", "mi350x"],
    "unitrace": ["plot", "intel/unitrace-pvc-gemm-fp16", "--hardware", "max-1550"],
    "trajectory": ["plot", "xe-forge/examples/vllm/1_BatchedMoE.yaml", "--hardware",
                   "h100-sxm", "--trajectory", "M"],
    "compare nersc-gpp": ["compare", "ncu/nersc-gpp/output.csv", "ncu/nersc-gpp/output1.csv",
                          "--hardware", "v100-nersc"],
    # No kernel matched; one run's rows partly bandwidth-only (counted, not drawn).
    "compare sglang traces": [
        "compare", "pytorch/tracelens-mi300x-sglang-decode-graph/sglang_Qwen3-8B_decode.json.gz",
        "pytorch/tracelens-mi300x-sglang-qwen3-8b/sglang_Qwen3-8B_prefilldecode.json.gz",
        "--preset", "mi300x"],
}


@pytest.mark.shared
@pytest.mark.parametrize("args", list(REAL.values()), ids=list(REAL.keys()))
def test_real_inputs_have_no_overlaps(args, tmp_path, monkeypatch):
    files = [a if a.startswith("-") or "/" not in a else str(SHARED / a) for a in args]
    if not all(Path(f).exists() for f in files if f.startswith(str(SHARED))):
        pytest.skip("../shared/data not here")
    _assert_clear(_measure(monkeypatch, [*files, "-o", str(tmp_path / "out.png")]))


@pytest.mark.shared
def test_a_real_projection_has_no_overlaps(tmp_path, monkeypatch):
    # The B200 vLLM trace on MI300X: its fp32 label had to move below its roof for the
    # two-line bf16 label between the bf16 and fp8 roofs (0.3 decades apart); placed
    # first, it kept its place over that label (a second pass of the layout now moves it).
    trace = SHARED / "pytorch" / "tracelens-b200-vllm-eager" / "eager_trace.json.gz"
    if not trace.exists():
        pytest.skip("../shared/data not here")
    _assert_clear(_measure(monkeypatch, [
        "project", str(trace), "--preset", "b200,h100-sxm,mi300x", "--plot",
        str(tmp_path / "out.png"), "-o", str(tmp_path / "out.csv")]))


@pytest.mark.shared
def test_real_model_check_has_no_overlaps(tmp_path, monkeypatch):
    gemm = SHARED / "ncu" / "smsp-a100-gemm" / "gemm.csv"
    if not gemm.exists():
        pytest.skip("../shared/data not here")
    model = tmp_path / "model.csv"
    # Its randomInit kernel's own FLOP (3,355,443,200) against a model of 2³³ bytes.
    model.write_text("kernel,flop,bytes\nrandom_init,3355443200,8589934592\n")
    _assert_clear(_measure(monkeypatch, [
        "model-check", str(gemm), "--model", str(model), "--map", "randomInit=random_init",
        "--hardware", "a100-sxm", "-o", str(tmp_path / "m.png"),
        "--table", str(tmp_path / "m.csv")]))


def test_an_overview_of_long_dataset_names_keeps_its_legend_on_the_canvas():
    """The workflow's overview (rule html_overview: colour by dataset, the preset's DRAM
    roof). The shipped "ncu-a100_dgemm_triad_hgemm" (26 characters) already reached past
    the right edge. Two names of 53 and 47 characters that differ only in their middle
    are cut in the middle until the legend fits (layout.fit_legend), over both at once:
    alike after the cut, they are numbered apart, never shown as one name."""
    import polars as pl

    from rooflow.adapters import load_points
    from rooflow.analysis import analyze
    from rooflow.plotting import PlotOptions, figure
    from rooflow.roofs import load_preset

    a100 = load_preset("a100-sxm")
    names = ["ncu-a100_dgemm_triad_hgemm_and_a_suffix_as_long_again",
             "ncu-a100_sgemm_saxpy_and_a_suffix_as_long_again"]
    tables = [analyze(load_points("ncu", RES / "ncu" / path), a100)
              .insert_column(0, pl.lit(name).alias("dataset"))
              for name, path in zip(names, ("a100_dgemm_triad_hgemm.csv", "a100_sgemm_saxpy"),
                                    strict=True)]
    table = pl.concat(tables, how="diagonal_relaxed").filter(
        pl.col("memory_roof_name") == a100.default_memory)
    fig = figure(table, a100, PlotOptions(color_by="dataset", connect=True))
    _assert_clear([overlaps(fig)])
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    cut = [t for t in texts if "…" in t]
    assert len(cut) == 2 and len(set(cut)) == 2 and not set(names) & set(texts)
    assert all(t.startswith("ncu-a100_") and len(t) < 47 for t in cut)
    assert "— area: share of time —" in texts  # the legend's own words fit: left whole
