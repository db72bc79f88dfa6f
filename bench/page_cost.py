"""What one interactive page costs: BokehJS inlined (the CLI's) against shared (the workflow's).

    python bench/page_cost.py [REPEATS]

Writes the page of a 4-row dataset (the rows of `bench/generate.py` `workflow_copy`'s
files: two kernels, Original and Optimized) on h100-sxm ``REPEATS`` times (default 20)
each way, in turn, in one process after a first page of each (imports, caches): inlined
(the CLI's pages, and the workflow's before they shared Bokeh's JS) and shared (the
workflow's).
Prints the median and range of process (CPU) time per page and each page's size. CPU
time is the figure to read on a shared machine.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from rooflow.analysis import analyze
from rooflow.html.bokehjs import BUNDLES, write_bundles
from rooflow.html.page import roofline_page
from rooflow.points import to_points
from rooflow.roofs import load_preset


def _table():
    preset = load_preset("h100-sxm")
    rows = [(s, f"k{j}", f"p{j}", 10.0 * (j + 1), t) for j in range(2)
            for s, t in (("Original", 5.0), ("Optimized", 9.0))]
    frame = pl.DataFrame(rows, schema=["series", "label", "pair", "arithmetic_intensity",
                                       "tflops"], orient="row")
    points = to_points(frame.with_columns(precision=pl.lit("fp16-tensor")))
    return analyze(points, preset), preset


def main(repeats: int) -> None:
    table, preset = _table()
    with tempfile.TemporaryDirectory() as tmp:
        shared = [str(Path(tmp) / "bokeh" / "js" / f"{b}.min.js") for b in BUNDLES]
        write_bundles(shared)
        ways = {"inlined": None, "shared": shared}
        times: dict[str, list[float]] = {way: [] for way in ways}
        sizes: dict[str, int] = {}
        for i in range(repeats + 1):
            for n, (way, js) in enumerate(ways.items()):
                page = Path(tmp) / str(n) / f"p{i}.html"
                start = time.process_time()
                roofline_page(table, preset, page, title=f"roofline-sweep_{i} on H100",
                              bokehjs=js)
                if i:  # the first page of each way warms up
                    times[way].append(time.process_time() - start)
                sizes[way] = page.stat().st_size
    for way, spent in times.items():
        print(f"{way}: CPU median {statistics.median(spent) * 1000:.0f} ms "
              f"({min(spent) * 1000:.0f}–{max(spent) * 1000:.0f}), {sizes[way]:,} bytes")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
