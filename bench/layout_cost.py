"""What the layout pass adds to a 2-point plot (issue 34: at most 0.1 s).

    python bench/layout_cost.py [REPEATS]

Draws and saves the same 2-point roofline PNG (labelled, 200 dpi) ``REPEATS`` times
(default 20) with the layout pass and without it, alternating; without it, the fixed
texts (roof, ridge labels, notes) stay at their first place (``place_fixed_texts`` does
nothing) and each point label at its first place (``place_point_texts`` tries one).
Prints the median and mean of process (CPU) time and wall time per plot, and the
difference. CPU time is the figure to read on a shared machine; wall time follows it
when the machine is idle.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from rooflow.analysis import analyze
from rooflow.plotting import PlotOptions, layout, plot_roofline
from rooflow.points import to_points
from rooflow.roofs.preset import custom_preset


def _two_points():
    preset = custom_preset(100, 1000)  # 100 TFLOP/s, 1000 GB/s
    points = to_points(pl.DataFrame({
        "kernel": ["gemm", "triad"], "precision": ["fp32", "fp32"],
        "arithmetic_intensity": [200.0, 0.08], "performance": [6e13, 7e10],
        "time_s": [2e-3, 1e-3], "row": [1, 2]}))
    return analyze(points, preset), preset


def _without_pass():
    """Patch the pass out: every text stays at its first place, none left out (the
    stub's empty set: no text covering). Returns the undo.

    ``settle_labels`` and ``place_point_texts`` look both up in :mod:`.layout` when
    called, so the patches reach every caller.
    """
    saved = layout.place_fixed_texts, layout.ring_places
    first = layout.ring_places()[:1]
    layout.place_fixed_texts = lambda *a, **k: set()  # type: ignore[assignment]
    layout.ring_places = lambda: first  # type: ignore[assignment]

    def undo():
        layout.place_fixed_texts, layout.ring_places = saved
    return undo


def main(repeats: int) -> None:
    table, preset = _two_points()
    options = PlotOptions(annotate=True)
    times: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "two.png"
        plot_roofline(table, preset, out, options=options)  # warm: imports, font cache
        for _ in range(repeats):
            for mode in ("with", "without"):
                undo = _without_pass() if mode == "without" else (lambda: None)
                try:
                    c0, w0 = time.process_time(), time.perf_counter()
                    plot_roofline(table, preset, out, options=options)
                    times[mode].append((time.process_time() - c0, time.perf_counter() - w0))
                finally:
                    undo()
    for mode, ts in times.items():
        cpu, wall = np.array(ts).T
        print(f"{mode:8s} pass: CPU median {statistics.median(cpu):.3f} s, mean "
              f"{cpu.mean():.3f} s; wall median {statistics.median(wall):.3f} s, mean "
              f"{wall.mean():.3f} s ({repeats} plots)")
    cpu_with = statistics.median(t[0] for t in times["with"])
    cpu_without = statistics.median(t[0] for t in times["without"])
    print(f"the layout pass adds {cpu_with - cpu_without:.3f} s CPU (median) to a 2-point plot")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
