"""Issue 34's last items: numbers at the points, what was left out on the plot, short names
in messages, axis limits from the config and on `compare`, leader lines clear of text."""

from __future__ import annotations

import logging
from pathlib import Path

import matplotlib.figure
import numpy as np
import polars as pl
import pytest
from overlap_check import overlaps
from test_plotting import PRESET, fp64_only_table, table

from rooflow.cli.main import main
from rooflow.errors import InputError, LeftOut
from rooflow.escape import short_name
from rooflow.plotting import PlotOptions, figure

RES = Path(__file__).resolve().parents[1] / "resources"


def _clear(fig) -> None:
    assert overlaps(fig) == {"text_text": [], "off_canvas": [], "text_marker": [],
                             "text_line": []}


def test_multi_level_key_numbers_sit_at_their_kernels_binding_points():
    # fp64_only_table: dgemm (AI 20, 5 TFLOP/s) and fast (AI 1, 2 TFLOP/s, above its roof)
    # are judged, at DRAM and L2 alike; sgemm, saxpy (fp32) have no roof: listed with ⊗,
    # not numbered. Each number is drawn at its kernel's binding row.
    t, preset = fp64_only_table(("DRAM", "L2"))
    fig = figure(t, preset, PlotOptions(annotate=False))
    ax = fig.axes[0]
    key = [a.get_text() for a in ax.texts if a.get_gid() == "kernel-key"]
    numbered = [k.split("\n")[0].split(" ", 1) for k in key if k[0].isdigit()]
    assert [n for n, _ in numbered] == ["1", "2"]
    numbers = {a.get_text(): a.xy for a in ax.texts if a.get_gid() == "key-number"}
    assert sorted(numbers) == ["1", "2"]
    binding = t.filter(pl.col("binding"))
    for n, name in numbered:
        row = binding.filter(pl.col("kernel") == name).row(0, named=True)
        assert numbers[n][0] == pytest.approx(row["arithmetic_intensity"])
        assert numbers[n][1] == pytest.approx(row["performance"] / 1e12)  # TFLOP/s
    _clear(fig)


def test_kernel_key_starts_below_the_legend_not_at_a_fixed_height():
    # Two levels: a two-entry legend ends near the top, so the key starts above the 55 %
    # it started at whatever the legend held, and below the legend's last entry.
    t, preset = fp64_only_table(("DRAM", "L2"))
    fig = figure(t, preset, PlotOptions(annotate=False))
    ax = fig.axes[0]
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    first = next(a for a in ax.texts if a.get_gid() == "kernel-key")
    top = first.get_window_extent().y1
    assert top <= legend.y0
    assert ax.transAxes.inverted().transform((0, top))[1] > 0.55


def test_left_out_notes_reach_the_plot_shortened():
    with LeftOut() as left_out:
        log = logging.getLogger("rooflow.adapters")
        log.warning("%s: %s", "data/run.db", "3 kernel(s) left out, no FLOP: " + "k" * 200)
        log.warning("%s: %s", "data/run.db", "FLOP split among fp32, fp64 by their rates")
    lines = left_out.lines()
    # The path is dropped (the title names the dataset); whole, for the page.
    assert lines == ("3 kernel(s) left out, no FLOP: " + "k" * 200,)
    fig = figure(table(), PRESET, PlotOptions(annotate=False, left_out=lines))
    notes = next(a for a in fig.axes[0].texts if a.get_gid() == "notes").get_text()
    # On the PNG: 90 characters, the last an ellipsis.
    assert lines[0][:89] + "…" in notes.split("\n")
    _clear(fig)


def test_more_than_three_left_out_notes_are_counted():
    from rooflow.plotting.labels import left_out_lines

    assert left_out_lines(("a", "b", "c", "d", "e")) == [
        "a", "b", "c", "+2 more notes on what was left out (stderr)"]


def test_messages_shorten_a_5000_character_template_name():
    name = "void gemm<" + ", ".join(["float"] * 830) + ">(float*, int)"
    assert len(name) > 5000
    assert short_name(name) == "void gemm<…>(…)"
    # No brackets: cut in the middle to 40 characters, 15 head, "…", 24 tail.
    plain = "k" * 2500 + "_tail_" + "j" * 2500
    assert short_name(plain) == "k" * 15 + "…" + "j" * 24
    # A point no plot can place names its kernel: one line, the name shortened.
    bad = table(2).with_columns(kernel=pl.lit(plain), performance=pl.Series([1e40, 1.0]),
                                source=pl.lit("run.csv"), row=pl.Series([1, 2]))
    with pytest.raises(InputError) as err:
        figure(bad, PRESET)
    message = str(err.value)
    assert "k" * 15 + "…" + "j" * 24 in message and len(message) < 300


def test_axis_limits_from_the_config_per_preset_and_checked():
    from rooflow.defaults import schema_error
    from rooflow.pipeline import axis_range

    config = {"presets": ["h100-sxm"]}
    assert schema_error("config", config | {"plot_defaults": {"xlim": [0.1, 1e3]}}) is None
    per_preset = {"xlim": {"h100-sxm": [0.1, 1e3]}, "ylim": [1e9, 1e16]}
    assert schema_error("config", config | {"datasets": {"ncu-run": per_preset}}) is None
    error = schema_error("config", config | {"plot_defaults": {"ylim": [1e15, 1e9]}})
    assert error is not None and "low 1e+15 is not below high 1e+09" in str(error.cause)
    assert schema_error("config", config | {"plot_defaults": {"xlim": [0, 1]}}) is not None
    assert axis_range(per_preset["xlim"], "h100-sxm") == (0.1, 1e3)
    assert axis_range(per_preset["xlim"], "a100-sxm") is None  # not named: fitted
    assert axis_range(per_preset["ylim"], "a100-sxm") == (1e9, 1e16)
    ax = figure(table(), PRESET, PlotOptions(annotate=False,
                                             xlim=axis_range([0.5, 5e3], "any"))).axes[0]
    assert ax.get_xlim() == pytest.approx((0.5, 5e3))


def _figures(monkeypatch, args: list[str]) -> list:
    """Run ``rooflow ARGS`` in this process; the figures it saved."""
    seen = []
    savefig = matplotlib.figure.Figure.savefig

    def keep(fig, *a, **k):
        seen.append(fig)
        return savefig(fig, *a, **k)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    main(args)
    return seen


def test_compare_takes_fixed_axes(tmp_path, monkeypatch):
    seen = _figures(monkeypatch, [
        "compare", str(RES / "roofline" / "flash_attention.csv"),
        str(RES / "roofline" / "flash_attention_tuned.csv"), "--preset", "arc-pro-b70",
        "--xlim", "0.1,1e4", "--ylim", "1e11,1e15", "-o", str(tmp_path / "c.png")])
    ax = seen[0].axes[0]
    assert ax.get_xlim() == pytest.approx((0.1, 1e4))
    assert ax.get_ylim() == pytest.approx((0.1, 1000))  # TFLOP/s


def test_labels_with_no_clear_place_are_left_out_and_counted():
    # Forty labelled points on one spot: the first labels take the clear places around
    # it; the rest would lie over them, so they are left out, and the note counts them.
    n = 40
    t = table(n).with_columns(arithmetic_intensity=pl.Series(np.full(n, 10.0)),
                              performance=pl.Series(np.full(n, 5e12)),
                              label=pl.Series([f"kernel_number_{i}" for i in range(n)]))
    fig = figure(t, PRESET, PlotOptions(annotate=True, top_n=n))
    ax = fig.axes[0]
    drawn = [a for a in ax.texts if a.get_gid() == "point-label"]
    assert 0 < len(drawn) < n
    assert any(a.get_text() == f"{n - len(drawn)} labels left out: no place clear of the "
               "points, lines and other labels" for a in ax.texts)
    assert [a.get_text() for a in drawn] == [f"kernel_number_{i}" for i in range(len(drawn))]
    _clear(fig)


def test_compare_counts_the_labels_it_leaves_out(tmp_path, monkeypatch):
    # 30 kernels on one spot, each 1.1-4× faster: of the 12 most changed, the labels with
    # no clear place are left out, and the summary beside the plot counts them.
    for name, speed in (("a", lambda i: 1.0), ("b", lambda i: 1.1 + 0.1 * i)):
        rows = "".join(f"k{i},10,{speed(i)},fp32\n" for i in range(30))
        (tmp_path / f"{name}.csv").write_text("label,arithmetic_intensity,tflops,precision\n"
                                             + rows)
    seen = _figures(monkeypatch, [
        "compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--peak-tflops", "100",
        "--peak-bandwidth", "1000", "-o", str(tmp_path / "c.png")])
    ax = seen[0].axes[0]
    drawn = sum(a.get_gid() == "point-label" for a in ax.texts)
    assert 0 < drawn < 12
    assert any(a.get_text().endswith(f"{12 - drawn} of 12 labels left out: no clear place")
               for a in ax.texts)
    _clear(seen[0])


def test_leader_lines_cross_no_text():
    # Twelve labelled points packed below the roof's flat part, beside its label: labels
    # are set apart with leader lines, and no leader may cross a text (the roof's label
    # included), as none may cross a roof.
    n = 12
    ai = np.geomspace(150, 400, n)
    t = table(n).with_columns(arithmetic_intensity=pl.Series(ai),
                              performance=pl.Series(np.full(n, 6e13) * np.geomspace(1, 1.3, n)),
                              label=pl.Series([f"kernel_number_{i}" for i in range(n)]))
    fig = figure(t, PRESET, PlotOptions(annotate=True))
    ax = fig.axes[0]
    assert any(ln.get_gid() == "point-label-leaders" for ln in ax.lines)
    _clear(fig)


def test_a_notes_box_with_no_clear_place_inside_goes_below_the_legend():
    # A 10 × 10 grid of points from edge to edge of fixed axes (AI 1–1,000 FLOP/byte,
    # 0.1–100 TFLOP/s) leaves no corner or edge where the box of three long left-out lines
    # and the above-roof note covers nothing: it goes right of the axes, below the legend,
    # wrapped to that column, every word kept; nothing there overlaps or runs off.
    ai = np.repeat(np.geomspace(1, 1000, 10), 10)
    perf = np.tile(np.geomspace(1e11, 1e14, 10), 10)
    t = table(100).with_columns(arithmetic_intensity=pl.Series(ai), performance=pl.Series(perf),
                                above_roof=pl.Series(perf > np.minimum(1e14, ai * 1e12)))
    left = [f"kernel 'void some_kernel_{i}<float, 128>(float*, int)' (launch {i}) ran no FLOP"
            for i in range(3)]
    fig = figure(t, PRESET, PlotOptions(annotate=False, left_out=left, xlim=(0.9, 1100),
                                        ylim=(9e10, 1.1e14)))
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    note = next(a for a in ax.texts if a.get_gid() == "notes")
    box, legend = note.get_window_extent(renderer), ax.get_legend().get_window_extent(renderer)
    assert box.x0 > ax.bbox.x1 and box.y1 < legend.y0 and box.x1 < fig.bbox.x1
    assert note.get_text().replace("\n", "").replace(" ", "") == "".join(
        ["22 points above the roof: check peaks, units or clocks", *left]).replace(" ", "")
    # (The grid leaves the DRAM roof's label no clear place either: not this test's.)
    found = [str(entry) for kind in overlaps(fig).values() for entry in kind]
    assert not [entry for entry in found if note.get_text()[:12] in entry]
    # Few points leave its first place, inside the axes' top-left corner, clear: it stays.
    fig = figure(table(), PRESET, PlotOptions(annotate=False, left_out=left[:1]))
    note = next(a for a in fig.axes[0].texts if a.get_gid() == "notes")
    assert note.get_position() == (0.01, 0.99) and note.get_text().split("\n") == left[:1]


def test_notes_wrap_a_long_name_after_its_separators_not_mid_word():
    from rooflow.plotting.roofs import wrap

    note = ("left out: kernel 'void at::native::vectorized_elementwise_kernel<4, "
            "at::native::FillFunctor<float>>(int)' ran no FLOP")
    lines = wrap(note, 30)
    assert all(len(line) <= 30 for line in lines)
    # The 52-character word breaks after "::" and "_" (the last within 30 characters),
    # the words around it at spaces; nothing is lost.
    assert lines == ["left out: kernel 'void", "at::native::vectorized_",
                     "elementwise_kernel<4,", "at::native::FillFunctor<",
                     "float>>(int)' ran no FLOP"]  # the line after a cut word fills on
    assert "".join(lines).replace(" ", "") == note.replace(" ", "")
    # No separator: cut at the width.
    assert wrap("x" * 45, 20) == ["x" * 20, "x" * 20, "x" * 5]


def _thin_roof_at_the_top(tensor: float = 989):
    """A panel as the projection grid drew h100-sxm's: fp32 points (the bold fp32 × HBM
    roof, 67 TFLOP/s; HBM 2,050 GB/s here, ridge 67 / 2.05 = 32.7 FLOP/byte) and the
    preset's fp16-tensor roof, 989 TFLOP/s, thin, just under the 1,000 TFLOP/s top. The
    points span 0.05–5 FLOP/byte: the fitted x axis runs 0.01–1,000 (32.7 × 30 = 980 at
    the right, core.FLAT_ROOM). The thin roof's flat part runs from 989 / 2.05 = 482
    FLOP/byte to 1,000, a third of a decade, narrower than its label; above it there is
    no room under the top."""
    from rooflow.analysis import analyze
    from rooflow.points import to_points
    from rooflow.roofs.preset import preset_from_mapping

    preset = preset_from_mapping("h", {
        "name": "h", "source": "test", "compute": {"fp32": 67, "fp16-tensor": tensor},
        "memory": {"HBM": 2050}, "default_compute": "fp16-tensor",
        "default_memory": "HBM"}, source="test")
    analysed = analyze(to_points(pl.DataFrame({
        "kernel": ["a", "b", "c"], "precision": "fp32",
        "arithmetic_intensity": [0.05, 1.0, 5.0], "performance": [1e11, 2e12, 5e12],
        "time_s": [1e-3] * 3, "row": [1, 2, 3]})), preset)
    return analysed, preset


def test_a_thin_roofs_label_with_no_clear_place_is_left_out_on_png_and_page():
    # Kept, the fp16-tensor label crossed the dashed slope rising to its roof (the
    # projection grid of the rmsnorm .ncu-rep on h100-sxm, b200, mi300x, mi355x). It is now
    # left out, as the labels of b200's and mi355x's tensor roofs above the top are; the
    # data's roof keeps its label. At 500 TFLOP/s (room above it under the top) it is kept.
    # The flat part's start needs no room for a ridge marker: a thin roof has none.
    from bokeh.models.annotations import Label
    from page_models import page_items

    for tensor, kept in ((989, False), (500, True)):
        analysed, preset = _thin_roof_at_the_top(tensor)
        fig = figure(analysed, preset, PlotOptions(annotate=False))
        ax = fig.axes[0]
        assert ax.get_xlim() == (0.01, 1000) and ax.get_ylim()[1] == 1000
        _clear(fig)
        names = [t.get_text() for t in ax.texts if t.get_gid() == "roof-label:compute"]
        assert [n.startswith("fp16-tensor") for n in names].count(True) == kept, names
        assert any(n.startswith("fp32") for n in names), names
        # The page (the same fitted frame) leaves out the same label.
        page = page_items(analysed, preset, title="t", color_by="family", max_points=100,
                          top_n=5, series_order=())[0]
        assert (page.x_range.start, page.y_range.end) == (0.01, 1000)
        texts = [a.text for a in page.center if isinstance(a, Label)
                 and a.name == "roof-label:compute"]
        assert [t.startswith("fp16-tensor") for t in texts].count(True) == kept, texts
        assert any(t.startswith("fp32") for t in texts), texts
