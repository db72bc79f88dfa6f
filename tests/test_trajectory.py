"""Sweep trajectories: dims carried by the adapters, paths grouped and ordered, drawn on
the PNG and the page, the CLI's --trajectory and its error."""

from __future__ import annotations

import gc
import math
import subprocess
import sys
import weakref
from pathlib import Path

import polars as pl
import pytest

from rooflow.adapters import load_points
from rooflow.analysis import analyze
from rooflow.dims import bad_dims, format_dims, parse_dims
from rooflow.errors import InputError
from rooflow.plotting import PlotOptions, figure
from rooflow.plotting.trajectory import MAX_ARROWS, arrow_segments, check_dim, trajectories
from rooflow.points import to_points
from rooflow.roofs import load_preset
from rooflow.roofs.preset import custom_preset
from rooflow.settings import Settings

ROOFLOW = Path(sys.executable).with_name("rooflow")

# A benchmark sweep over M: BatchedMoE bench-gpu-1 (E=128, K=2048, N=1536, bf16) at
# M = 64 … 4096 and FusedMoE bench-gpu (TOPK=8, N=1536, K=2048, E=128, bf16) at M = 16 … 1024,
# the rows of each family out of M order.
SWEEP = """family,shape_key,config,baseline_us,triton_us,tflops
1_BatchedMoE,bench-gpu-1,M=1024,700.0,480.0,13.4
1_BatchedMoE,bench-gpu-1,M=64,120.0,100.0,4.0
1_BatchedMoE,bench-gpu-1,M=4096,2100.0,1500.0,17.2
1_BatchedMoE,bench-gpu-1,M=256,300.0,220.0,7.3
2_FusedMoE,bench-gpu,M=16,90.0,80.0,0.6
2_FusedMoE,bench-gpu,M=256,260.0,200.0,4.0
2_FusedMoE,bench-gpu,M=64,110.0,95.0,2.1
2_FusedMoE,bench-gpu,M=1024,800.0,560.0,5.8
"""


@pytest.fixture(scope="module")
def h100():
    return load_preset("h100-sxm")


@pytest.fixture
def sweep(tmp_path) -> Path:
    path = tmp_path / "sweep.csv"
    path.write_text(SWEEP)
    return path


def sweep_table(repo: Path, path: Path, h100) -> pl.DataFrame:
    settings = Settings(specs_dir=repo / "resources/specs")
    return analyze(load_points("benchmarks", path, settings), h100)


def test_dims_text_round_trips_and_bad_cells_are_found():
    assert format_dims({"M": 64, "N": 128}) == "M=64,N=128"
    assert parse_dims(" M = 64 , N=0.5") == {"M": "64", "N": "0.5"}
    assert parse_dims("") == {}
    cells = pl.DataFrame({"dims": ["", "M=64,N=128", "M = 64 , N=0.5", "M=64;N=1", "M=1,M=2",
                                   "M=1e5", "M", "M=1,"]})
    assert cells.select(bad_dims())["dims"].to_list() == [False, False, False, True, True,
                                                          True, True, True]


def test_adapters_carry_the_dims(repo, sweep):
    specs = load_points("specs", repo / "resources/specs/1_BatchedMoE.yaml")
    # bench-gpu-5 of the YAML: dims {E: 128, M: 256, K: 2048, N: 1536, QUANT: 0}, as written.
    five = specs.filter(pl.col("kernel") == "bench-gpu-5")
    assert five["dims"].cast(pl.String).to_list() == ["E=128,M=256,K=2048,N=1536,QUANT=0"]
    bench = load_points("benchmarks", sweep, Settings(specs_dir=repo / "resources/specs"))
    # Row 1: bench-gpu-1's dims (M=64) with the config's M=1024 over them; both series.
    first = bench.filter(pl.col("row") == 1)
    assert first["dims"].cast(pl.String).to_list() == ["E=128,M=1024,K=2048,N=1536,QUANT=0"] * 2
    # A roofline CSV has none unless it gives a dims column.
    csv = load_points("roofline", repo / "resources/roofline/flash_attention.csv")
    assert set(csv["dims"].cast(pl.String)) == {""}


def test_a_roofline_csv_gives_dims_in_a_column_and_a_bad_one_is_named(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text('series,dims,ai,tflops\nfa,"MKV=2048, NS=16",11,2.5\nfa,MKV=4096;NS=16,20,5\n')
    with pytest.raises(InputError) as err:
        load_points("roofline", path)
    assert (err.value.row, err.value.column, err.value.value) == (2, "dims", "MKV=4096;NS=16")
    path.write_text('series,dims,ai,tflops\nfa,"MKV=2048, NS=16",11,2.5\n')
    assert load_points("roofline", path)["dims"].cast(pl.String).to_list() == ["MKV=2048, NS=16"]


def _table(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, orient="row", schema=[
        "series", "dims", "arithmetic_intensity", "performance"]).with_columns(
        family=pl.lit("gemm"), level=pl.lit("DRAM"), precision=pl.lit(""),
        source=pl.lit("t.csv"))


def test_many_paths_legend_counts_them_and_fits_the_canvas():
    """1,001 sweeps: the legend says how many (thousands separated) on two lines, and its
    box stays inside the figure (on one line it was cut at the canvas's right edge)."""
    n = 8 * 1001
    points = to_points(pl.DataFrame({
        "kernel": ["gemm"] * n, "family": ["gemm"] * n,
        "dims": [f"M={k // 8},N={2 ** (k % 8 + 4)}" for k in range(n)],
        "arithmetic_intensity": [10.0 * (1 + k % 8) for k in range(n)],
        "performance": [1e12 * (1 + k % 8) for k in range(n)]}))
    preset = custom_preset(1000, 3000)
    fig = figure(analyze(points, preset), preset, PlotOptions(trajectory="N"))
    legend = fig.axes[0].get_legend()
    assert legend.get_texts()[-1].get_text() == "1,001 paths as N grows,\nfirst 60 drawn"
    fig.canvas.draw()
    assert legend.get_window_extent().x1 <= fig.bbox.x1


def test_paths_are_computed_once_per_table_and_do_not_keep_it():
    """A report asks for one table's paths for its note, PNG and page: the second ask is
    the first's answer; another table (even equal) is computed afresh; the kept answer
    does not keep its table alive."""
    table = _table([("run", "M=64", 10.0, 1e12), ("run", "M=128", 20.0, 2e12)])
    paths = trajectories(table, "M")
    assert trajectories(table, "M") is paths and len(paths) == 1
    assert trajectories(table, "M", "series") is not paths  # another colour column
    again = trajectories(table.clone(), "M")
    assert again == paths and again is not paths
    moved = table.with_columns(arithmetic_intensity=pl.Series([10.0, 30.0]))
    assert trajectories(moved, "M")[0].x == (10.0, 30.0)
    held = weakref.ref(moved)
    del moved
    gc.collect()
    assert held() is None

def test_paths_group_a_family_by_the_other_dims_and_order_by_the_dim():
    table = _table([
        ("run", "M=256,N=64", 40.0, 4e12),
        ("run", "M=64,N=64", 10.0, 1e12),
        ("run", "M=1024,N=64", 160.0, 16e12),  # "1024" < "256" as text: numbers order
        ("run", "M=64,N=128", 20.0, 2e12),     # alone with N=128: a point, no path
        ("run", "N=64", 5.0, 1e12),            # no M
        ("run", "", 5.0, 1e12),                # no dims
        ("base", "N=64,M=64", 10.0, 0.5e12),   # the other dims in another order: one group
        ("base", "M=1024,N=64", 160.0, 8e12),
        ("base", "M=256,N=64", 40.0, 2e12),
    ])
    run, base = trajectories(table, "M")
    assert (run.series, run.others, run.values) == ("run", "N=64", ("64", "256", "1024"))
    assert run.x == (10.0, 40.0, 160.0) and run.y == (1e12, 4e12, 16e12)
    assert run.end_labels == ("M=64", "M=1024") and run.labelled
    # Arrowheads halfway on the log axes: √(10·40) = 20, √(1e12·4e12) = 2e12;
    # √(40·160) = 80, √(4e12·16e12) = 8e12.
    assert run.midpoints() == [(20.0, 2e12), (80.0, 8e12)]
    # Base: the same sweep's ends at the same intensities, labelled once (by run).
    assert base.values == ("64", "256", "1024") and base.y == (0.5e12, 2e12, 8e12)
    assert not base.labelled
    # N: M=64 has N=64 and N=128 (one path); the other M values one N each (no path).
    (n,) = trajectories(table, "N")
    assert (n.others, n.values, n.x) == ("M=64", ("64", "128"), (10.0, 20.0))


def test_two_kernels_at_one_shape_are_two_paths_and_files_are_apart():
    """Two gemm kernels (labels cublas, cutlass) at M=64 and M=128: one path each, never a
    zig-zag 64 → 64 → 128 → 128; the same family in another file is another path."""
    table = _table([
        ("run", "M=64", 10.0, 1e12), ("run", "M=64", 12.0, 2e12),
        ("run", "M=128", 20.0, 2e12), ("run", "M=128", 24.0, 4e12),
    ]).with_columns(label=pl.Series(["cublas", "cutlass"] * 2))
    cublas, cutlass = trajectories(table, "M")
    assert (cublas.values, cublas.x) == (("64", "128"), (10.0, 20.0))
    assert (cutlass.values, cutlass.x) == (("64", "128"), (12.0, 24.0))
    # Labels apart: the second path's ends are elsewhere, so it is labelled too.
    assert cublas.labelled and cutlass.labelled
    # No column parts them: no path rather than a wrong one.
    assert trajectories(table.drop("label"), "M") == ()
    two_files = pl.concat([_table([("run", "M=64", 10.0, 1e12), ("run", "M=128", 20.0, 2e12)]),
                           _table([("run", "M=64", 11.0, 1e12), ("run", "M=128", 22.0, 2e12)])
                           .with_columns(source=pl.lit("u.csv"))])
    assert [p.x for p in trajectories(two_files, "M")] == [(10.0, 20.0), (11.0, 22.0)]


def test_other_dims_are_compared_by_value():
    """N=064, N=64.0 and N=64 are one shape: one path over M, its others written N=64."""
    table = _table([("run", "M=16,N=064", 10.0, 1e12), ("run", "M=32,N=64.0", 20.0, 2e12),
                    ("run", "M=64,N=64", 40.0, 4e12)])
    (path,) = trajectories(table, "M")
    assert (path.values, path.others) == (("16", "32", "64"), "N=64")


def test_points_off_the_log_axes_are_left_out_and_big_sweeps_are_bounded():
    table = _table([("run", "M=64", 10.0, 0.0), ("run", "M=128", 20.0, 2e12),
                    ("run", "M=256", 40.0, 4e12)])
    (path,) = trajectories(table, "M")  # performance 0 has no place on a log axis
    assert path.values == ("128", "256")
    # 250 segments get MAX_ARROWS = 12 arrowheads, the first and the last among them.
    heads = arrow_segments(250)
    assert len(heads) == MAX_ARROWS == 12 and heads[0] == 0 and heads[-1] == 249
    assert arrow_segments(3) == [0, 1, 2]


def test_small_and_negative_dims_are_written_without_exponent():
    """A spec's unused eps=1.0e-5 is kept as 0.00001 (the cell pattern reads no 1e-05)."""
    text = format_dims({"M": 16, "K": 512, "eps": 1.0e-5, "off": -1, "s": 0.5})
    assert text == "M=16,K=512,eps=0.00001,off=-1,s=0.5"
    frame = pl.DataFrame({"dims": [text]})
    assert not frame.select(bad_dims())["dims"][0]


def test_a_dim_no_point_has_is_one_error_naming_the_dims():
    table = _table([("run", "M=64,N=64", 10.0, 1e12), ("run", "", 10.0, 1e12)])
    with pytest.raises(InputError) as err:
        check_dim(table, "K")
    assert str(err.value) == "t.csv: trajectory K: no point has dim K (dims: M, N)"
    with pytest.raises(InputError, match="no point has dims"):
        check_dim(_table([("run", "", 10.0, 1e12)]), "M")


def test_a_benchmark_sweep_draws_one_path_per_family_and_series(repo, sweep, h100):
    table = sweep_table(repo, sweep, h100)
    paths = trajectories(table, "M")
    assert sorted((p.family, p.series) for p in paths) == [
        ("BatchedMoE", "Optimized"), ("BatchedMoE", "Original"),
        ("FusedMoE", "Optimized"), ("FusedMoE", "Original")]
    batched = next(p for p in paths if p.family == "BatchedMoE")
    assert batched.values == ("64", "256", "1024", "4096")
    # M=64: FLOP/E = 2·M·N·K = 2·64·1536·2048 = 402,653,184; bytes/E = 2MK + 2NK + 2MN + 4
    # = 262,144 + 6,291,456 + 196,608 + 4 = 6,750,212; intensity 59.6505 FLOP/byte.
    assert batched.x[0] == pytest.approx(402_653_184 / 6_750_212)
    fused = next(p for p in paths if p.family == "FusedMoE")
    # M=16: FLOP = M·TOPK·N·K·2 = 16·8·1536·2048·2 = 805,306,368; bytes = M·K·2 +
    # Eact·N·K·2 + M·TOPK·N·2 + M·TOPK·4 (Eact = min(128, 128) = 128) = 65,536 +
    # 805,306,368 + 393,216 + 512 = 805,765,632: 0.99943 FLOP/byte.
    assert fused.x[0] == pytest.approx(805_306_368 / 805_765_632)
    fig = figure(table, h100, PlotOptions(trajectory="M"))
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if line.get_gid() == "trajectory"]
    assert len(lines) == 4
    # One colour per family, the points' own (Tableau blue, orange in first-seen order).
    assert {line.get_color() for line in lines} == {"#1f77b4", "#ff7f0e"}
    arrows = [t for t in ax.texts if t.get_gid() == "trajectory-arrow"]
    assert len(arrows) == 2 * 3 + 2 * 3  # a head per segment: 4 points → 3, per series
    labels = sorted(t.get_text() for t in ax.texts if t.get_gid() == "trajectory-label")
    assert labels == ["M=1024", "M=16", "M=4096", "M=64"]  # one pair per family's sweep
    assert [t.get_text() for t in ax.get_legend().get_texts()][-1] == "4 paths as M grows"
    # The points stay unlabelled: the ends' labels say the shapes.
    assert not [t for t in ax.texts if "qwen" in t.get_text().lower()]


def test_the_page_draws_the_paths_as_the_png(repo, sweep, h100):
    from bokeh.models import Arrow
    from bokeh.models.annotations import Label
    from page_models import page_items

    table = sweep_table(repo, sweep, h100)
    fig = page_items(table, h100, title="sweep", color_by="family", max_points=4000, top_n=40,
                     series_order=(), trajectory="M")[0]
    lines = [r for r in fig.renderers if r.name == "trajectory"]
    assert len(lines) == 4
    arrows = [a for a in fig.center if isinstance(a, Arrow) and a.name == "trajectory-arrow"]
    assert sorted(len(a.source.data["x0"]) for a in arrows) == [3, 3, 3, 3]
    # Each head halfway along its segment: x1 = √(x0 · next x0) on the log axis.
    for a in arrows:
        x0, x1 = a.source.data["x0"], a.source.data["x1"]
        assert x1[0] == pytest.approx(math.sqrt(x0[0] * x0[1]))
    labels = [a for a in fig.center if isinstance(a, Label) and a.name == "trajectory-label"]
    assert sorted(label.text for label in labels) == ["M=1024", "M=16", "M=4096", "M=64"]


def test_cli_draws_the_sweep_and_refuses_a_dim_no_point_has(repo, sweep, tmp_path):
    png, page = tmp_path / "sweep.png", tmp_path / "sweep.html"
    proc = subprocess.run([ROOFLOW, "plot", str(sweep), "--hardware", "h100-sxm",
                           "--trajectory", "M", "-o", str(png), "--html", str(page)],
                          capture_output=True, text=True, cwd=repo, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert png.stat().st_size and 'M grows' in page.read_text()
    proc = subprocess.run([ROOFLOW, "plot", str(sweep), "--hardware", "h100-sxm",
                           "--trajectory", "Q", "-o", str(tmp_path / "q.png"),
                           "--table", str(tmp_path / "q.csv")],
                          capture_output=True, text=True, cwd=repo, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        f"rooflow: error: {sweep}: trajectory Q: no point has dim Q "
        "(dims: E, K, M, N, QUANT, TOPK)")
    assert not (tmp_path / "q.png").exists() and not (tmp_path / "q.csv").exists()


def test_a_dim_that_makes_no_path_is_said(repo, tmp_path):
    """The shipped benchmark rows have M, but no two of one family differ only in M."""
    proc = subprocess.run([ROOFLOW, "plot", "resources/benchmarks/moe_attention.csv",
                           "--hardware", "h100-sxm", "--trajectory", "M",
                           "-o", str(tmp_path / "m.png")],
                          capture_output=True, text=True, cwd=repo, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert ("note: trajectory M: no two points of one family differ only in M; no path drawn"
            in proc.stderr)


def test_a_spec_sweep_runs_along_the_roof(repo, h100):
    # BatchedMoE bench-gpu-1 (M=64) and bench-gpu-5 (M=256) differ only in M: one path;
    # the other variants differ in E, K, N or QUANT too.
    table = analyze(load_points("specs", repo / "resources/specs/1_BatchedMoE.yaml"), h100)
    (path,) = trajectories(table, "M")
    assert (path.series, path.values) == ("bf16", ("64", "256"))
    assert path.others == "E=128,K=2048,N=1536,QUANT=0"


def test_config_sets_a_trajectory_per_dataset():
    from rooflow.defaults import plot_defaults, schema_error
    from rooflow.pipeline import plot_options

    assert plot_defaults()["trajectory"] is None and PlotOptions().trajectory is None
    config = {"presets": ["h100-sxm"], "datasets": {"benchmarks-sweep": {"trajectory": "M"}}}
    assert schema_error("config", config) is None
    # A dataset's options are the defaults with its own entry over them (Plan.dataset_options).
    assert plot_options({**plot_defaults(), **config["datasets"]["benchmarks-sweep"]}
                        ).trajectory == "M"
    for bad in ("M N", "", 3):
        config["datasets"]["benchmarks-sweep"]["trajectory"] = bad
        error = schema_error("config", config)
        assert error is not None and list(error.absolute_path)[-1] == "trajectory"
    # Not for every dataset at once: one without the dim would fail its draw job.
    error = schema_error("config", {"presets": ["h100-sxm"],
                                    "plot_defaults": {"trajectory": "M"}})
    assert error is not None and list(error.absolute_path) == ["plot_defaults", "trajectory"]


def test_a_parquet_with_numbers_in_text_columns_reads_them_as_text(tmp_path):
    """A numeric family is text (was an internal error); numeric dims are no NAME=VALUE
    items: one line naming the row and column, exit 1."""
    frame = pl.DataFrame({"family": [7, 7], "series": ["a", "a"], "dims": ["M=64", "M=128"],
                          "arithmetic_intensity": [1.0, 2.0], "tflops": [1.0, 2.0]})
    good = tmp_path / "good.parquet"
    frame.write_parquet(good)
    points = load_points("roofline", good)
    assert points["family"].cast(pl.String).to_list() == ["7", "7"]
    bad = tmp_path / "bad.parquet"
    frame.with_columns(dims=pl.Series([64, 128])).write_parquet(bad)
    proc = subprocess.run([ROOFLOW, "table", str(bad), "--hardware", "h100-sxm"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith(f"rooflow: error: {bad}, row 1, column 'dims'") and "'64'" in line


def test_a_plain_roofline_column_is_a_trajectory_dim(tmp_path):
    """`--trajectory SeqLen` on a roofline CSV whose SeqLen is a column of its own."""
    path = tmp_path / "seqlen.csv"
    # fa at SeqLen 1024 … 4096, rows out of order, Original and Optimized: two paths.
    path.write_text("kernel,series,SeqLen,ai,tflops\n"
                    "fa,Original,4096,80,40\nfa,Original,1024,20,10\nfa,Original,2048,40,20\n"
                    "fa,Optimized,1024,20,15\nfa,Optimized,4096,80,60\n"
                    "fa,Optimized,2048,40,30\n")
    paths = trajectories(analyze(load_points("roofline", path), custom_preset(100, 1000)),
                         "SeqLen")
    assert [(p.series, p.values, p.x) for p in paths] == [
        ("Original", ("1024", "2048", "4096"), (20.0, 40.0, 80.0)),
        ("Optimized", ("1024", "2048", "4096"), (20.0, 40.0, 80.0))]
    png = tmp_path / "seqlen.png"
    proc = subprocess.run([ROOFLOW, "plot", str(path), "--peak-tflops", "100",
                           "--peak-bandwidth", "1000", "--trajectory", "SeqLen", "-o", str(png)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert png.stat().st_size
    assert "note: trajectory" not in proc.stderr  # paths drawn: no "no path" note


def test_page_end_labels_clear_the_roof_labels(repo, h100):
    """The BatchedMoE spec's M path (M=64 → M=256, along the HBM roof): placed outward from
    its start, "M=64" lay over the rotated "HBM: 3,350 GB/s" label on the page. No end
    label's estimated box covers another text or a marker now."""
    from bokeh.models.annotations import Label

    from rooflow.html.page import page_items
    from rooflow.html.places import covered, label_corners, obstacles

    table = analyze(load_points("specs", repo / "resources/specs/1_BatchedMoE.yaml"), h100)
    fig = page_items(table, h100, title="t", color_by="family", max_points=4000, top_n=10,
                     series_order=(), trajectory="M")[0]
    labels = [a for a in fig.center if a.is_a(Label)]
    ends = [a for a in labels if a.name == "trajectory-label"]
    assert sorted(a.text for a in ends) == ["M=256", "M=64"]
    for end in ends:
        assert covered(label_corners(fig, end), obstacles(fig, leave_out=[end])) == 0, end.text


def test_an_end_label_turns_from_a_covered_outward_place():
    """A path end at (300, 200) px going right and up at 45°. Its label "M=64" (4 × 5.6 =
    22.4 by 12 px): outward, 7 × 0.707 = 4.95 px off both ways, left-aligned, bottom: x
    304.95 … 327.35, y 204.95 … 216.95. A 2 px marker at (320, 212) covers it: turned 45°
    (straight up, offset (0, 7), centred, bottom: x 288.8 … 311.2, y 207 … 219) it is
    clear. A second marker at (295, 215) covers that too: turned −45° (straight right,
    offset (7, 0), left, centre: x 307 … 329.4, y 194 … 206), clear of both."""
    import numpy as np

    from rooflow.html.trajectory import _clear_place

    def marker(x: float, y: float) -> np.ndarray:
        return np.array([(x - 1, y - 1), (x + 1, y - 1), (x + 1, y + 1), (x - 1, y + 1)])

    end, out = np.array([300.0, 200.0]), (math.sqrt(0.5), math.sqrt(0.5))
    (dx, dy), ha, va = _clear_place(end, "M=64", marker(320, 212)[None], out)
    assert (round(dx, 9), round(dy, 9), ha, va) == (0, 7, "center", "bottom")
    both = np.stack([marker(320, 212), marker(295, 215)])
    (dx, dy), ha, va = _clear_place(end, "M=64", both, out)
    assert (round(dx, 9), round(dy, 9), ha, va) == (7, 0, "left", "center")


def test_the_page_cuts_long_path_names_in_the_middle_and_keeps_them_apart(repo, sweep, h100):
    # Families of 80 characters that differ only at their ends: cut at the end (as before),
    # two paths read the same; cut in the middle (short_names, 50), each keeps its end.
    from bokeh.models import Legend
    from page_models import page_items

    table = sweep_table(repo, sweep, h100).with_columns(
        family=pl.lit("F" * 70) + pl.col("family").cast(pl.String))
    fig = page_items(table, h100, title="sweep", color_by="family", max_points=4000,
                     top_n=40, series_order=(), trajectory="M")[0]
    legend = next(lg for lg in fig.select(type=Legend) if "grows" in lg.title)
    names = [item.label.value for item in legend.items]
    assert len(names) == 4 and len(set(names)) == 4
    assert all(len(n) <= 50 and "…" in n for n in names), names
