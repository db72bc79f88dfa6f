"""CPU per plot of a workflow batch job on small datasets (issue 33 §4, full-build throughput).

    python bench/draw_cost.py [DATASETS] [--profile FILE] [--keep DIR] [--own-renderers]

Makes a workflow copy of 20 4-row roofline CSVs (bench/generate.py ``workflow_copy``),
reads ``DATASETS`` of them (default 10) as a batch job does (``rooflow.workflow.batches``:
``load_points``, ``check_plottable``, Parquet), then, in this one process, writes each
dataset's analysis table and roofline PNG on the config's presets as that job does
(:func:`rooflow.workflow.draw.draw_dataset` up to ``report``, the plots on one shared
renderer and its static layers, :func:`rooflow.plotting.canvas.shared_renderer`;
``--own-renderers``: each figure its own renderer, drawn whole, as outside a batch job;
the interactive page is not drawn: its cost is measured apart). The first dataset warms
the process up (imports, font cache); the others are the steady state, one sample per
plot (dataset and preset).

Prints the median and mean process (CPU) time per plot of ``report``, split into: the
analysis and warnings (the rest of ``report``), table write (``write_table``), figure
building (``figure`` less the layout pass), the layout pass (``place_fixed_texts``,
``place_point_texts``), Agg draw (``savefig`` to Agg's RGBA buffer) and PNG encode
(the rest of ``save``: the RGB copy and encode, :mod:`rooflow.plotting.png`). CPU time
is the figure to read on a shared machine. ``--profile FILE``: the steady-state plots
under cProfile, its stats written to FILE and the top entries by tottime and cumulative
time printed.
``--keep DIR``: the tables and PNGs copied to DIR (to compare two versions' pixels).

The parts are timed by wrapping those functions here, in this script only.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import workflow_copy  # noqa: E402

PARTS = ["analysis", "table write", "figure building", "layout pass", "Agg draw",
         "PNG encode"]


class Clock:
    """Process time spent in wrapped functions, per part, for the plot being made."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, owner, name: str, part: str) -> None:
        """Time ``owner.name`` (a module or class attribute) as ``part``."""
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent[part] += time.process_time() - start
        setattr(owner, name, timed)


def _instrument(clock: Clock) -> None:
    import matplotlib.figure
    from PIL import Image

    import rooflow.export
    from rooflow.plotting import layout, roofline

    clock.wrap(rooflow.export, "write_table", "table write")
    clock.wrap(roofline, "figure", "figure")
    clock.wrap(roofline, "save", "save")
    clock.wrap(layout, "place_fixed_texts", "layout pass")
    clock.wrap(layout, "place_point_texts", "layout pass")
    clock.wrap(matplotlib.figure.Figure, "savefig", "Agg draw")
    clock.wrap(Image.Image, "save", "PIL save")


def _datasets(work: Path, n: int):
    """(config, plan, [(dataset id, points path)]) of ``n`` datasets of a workflow copy,
    their points written as the `points` job writes them."""
    import yaml
    from snakemake.utils import validate

    from rooflow.adapters import load_points
    from rooflow.defaults import schema_path
    from rooflow.plotting.core import check_plottable
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.settings import Settings
    from rooflow.workflow.planning import Plan, points_file

    os.chdir(workflow_copy(work / "workflow", 20))
    config = yaml.safe_load(Path("config/config.yaml").read_text())
    validate(config, str(schema_path("config")))  # the schema's defaults, as common.smk
    plan = Plan(config, load_hardware(config["hardware"]))
    chosen = []
    for dataset in sorted(plan.datasets)[:n]:
        kind, name = plan.datasets[dataset]
        points = load_points(kind, plan.sources[kind][name], Settings.from_config(config))
        check_plottable(points)
        path = Path(points_file(kind, name))
        path.parent.mkdir(parents=True, exist_ok=True)
        points.write_parquet(path)
        chosen.append((dataset, str(path)))
    return config, plan, chosen


def _draw(config, plan, dataset: str, points_path: str, out: Path, clock: Clock,
          samples: list[dict[str, float]] | None) -> None:
    """``draw_dataset``'s loop for one dataset without its pages; one sample per plot."""
    from rooflow.pipeline import axis_range, plot_options, report
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.roofs.datasheet import load_hardware
    from rooflow.selection import Selection, select_points

    options = plan.dataset_options(dataset)
    plot = replace(plot_options(options), formats=("png",))
    selection = Selection.from_mapping(options.get("select"))
    points = read_points(points_path)
    datasheet = load_hardware(config["hardware"])
    for preset_id in plan.dataset_presets(dataset):
        preset = (datasheet[preset_id] if preset_id in datasheet
                  else load_preset(preset_id, config["hardware"], None))
        preset = preset.with_override(options.get("peak_tflops"),
                                      options.get("peak_bandwidth")).with_roofs_at(
                                          config["roofs_at"])
        selected = select_points(points, selection, preset, points_path)
        fixed = replace(plot, xlim=axis_range(options.get("xlim"), preset_id),
                        ylim=axis_range(options.get("ylim"), preset_id))
        clock.spent.clear()
        start = time.process_time()
        report(selected, preset, table_path=out / f"{dataset}-{preset_id}.csv",
               plot_path=out / f"{dataset}-{preset_id}.png", options=fixed, log=lambda _: None)
        total = time.process_time() - start
        if samples is not None:
            s = clock.spent
            samples.append({
                "report": total,
                "analysis": total - s["table write"] - s["figure"] - s["save"],
                "table write": s["table write"],
                "figure building": s["figure"] - s["layout pass"],
                "layout pass": s["layout pass"],
                "Agg draw": s["Agg draw"],
                "PNG encode": s["save"] - s["Agg draw"],
            })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", type=int, nargs="?", default=10)
    parser.add_argument("--profile", type=Path, help="cProfile the steady-state plots")
    parser.add_argument("--keep", type=Path, help="copy the tables and PNGs written here")
    parser.add_argument("--own-renderers", action="store_true",
                        help="each figure its own renderer, drawn whole (no shared_renderer block)")
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")  # as rooflow's programs and the workflow's jobs choose
    clock = Clock()
    _instrument(clock)
    samples: list[dict[str, float]] = []
    from rooflow.plotting.canvas import shared_renderer

    # As a batch job draws its plots (rooflow.workflow.batches.build_batch), unless asked not.
    block = contextlib.nullcontext() if args.own_renderers else shared_renderer()
    with tempfile.TemporaryDirectory() as tmp, block:
        work = Path(tmp)
        out = work / "out"
        out.mkdir()
        config, plan, chosen = _datasets(work, args.datasets)
        first, *rest = chosen
        _draw(config, plan, *first, out, clock, None)  # warm-up: imports, font cache
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        for dataset, path in rest:
            _draw(config, plan, dataset, path, out, clock, samples)
        if profiler is not None:
            profiler.disable()
            import pstats

            profiler.dump_stats(args.profile)
            for key in ("tottime", "cumulative"):
                pstats.Stats(profiler).sort_stats(key).print_stats(30)
        if args.keep:
            shutil.copytree(out, args.keep, dirs_exist_ok=True)
        os.chdir(work.parent)  # out of the folder before it is removed
    print(f"{len(samples)} plots ({len(rest)} datasets × their presets, after a warm-up "
          f"dataset), CPU s per plot:")
    for part in ["report", *PARTS]:
        values = [s[part] for s in samples]
        print(f"  {part:16s} median {statistics.median(values):.4f}  "
              f"mean {statistics.fmean(values):.4f}")


if __name__ == "__main__":
    main()
