"""Rules `report` / `report_extra_format`: one dataset on one preset → table and plot."""

from rooflow.rulescript import run


def step(log):
    from dataclasses import replace
    from pathlib import Path

    from rooflow.escape import from_report_param
    from rooflow.failed import failure, write_placeholders
    from rooflow.pipeline import plot_options, report
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.selection import Selection, select_points

    sm = snakemake  # noqa: F821
    if line := failure(sm.input.points):  # its input could not be read: say so, in its place
        outputs = [p for p in (sm.output.get("table"), sm.output.plot) if p]
        write_placeholders(outputs, f"{sm.wildcards.kind}-{sm.wildcards.name}", line)
        log(f"not built: {line}")
        return
    opts = from_report_param(sm.params.options)
    preset = load_preset(sm.params.preset, sm.input.hardware, sm.input.get("measured"))
    preset = preset.with_override(opts.get("peak_tflops"), opts.get("peak_bandwidth"))
    plot = Path(sm.output.plot)
    options = replace(plot_options(opts), formats=(plot.suffix.lstrip("."),))
    selection = Selection.from_mapping(opts.get("select"))
    points = select_points(read_points(sm.input.points), selection, preset, sm.input.points)
    report(points, preset, table_path=sm.output.get("table"), plot_path=plot, options=options,
           log=log)
    log(f"{points.height} points on {preset.key}")


run(step, snakemake.log[0])  # noqa: F821
