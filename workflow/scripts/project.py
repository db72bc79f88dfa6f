"""Rule `project`: one configured projection → plot, totals, per-kernel table, page."""

from rooflow.workflow.rulescript import run


def step(log):

    from rooflow.html.project import projection_page
    from rooflow.io import write_csv
    from rooflow.plotting.project import plot_projection
    from rooflow.points import read_points
    from rooflow.project import project
    from rooflow.roofs import load_preset
    from rooflow.workflow.failed import failure, write_placeholders

    sm = snakemake  # noqa: F821
    if line := failure(sm.input.points):  # a dataset that could not be read: say so
        write_placeholders(sm.output, sm.params.name, f"{sm.params.dataset}: {line}")
        log(f"not built: {sm.params.dataset}: {line}")
        return
    presets = {k: load_preset(k, sm.input.hardware) for k in sm.params.presets}
    home = presets.get(sm.params.measured_on) or load_preset(sm.params.measured_on,
                                                             sm.input.hardware)
    result = project(read_points(sm.input.points), list(presets.values()), home)
    plot_projection(result, presets, sm.output.plot)
    write_csv(result.totals, sm.output.table)
    write_csv(result.kernels, sm.output.kernels)
    projection_page(result, presets, sm.output.html)
    log(result.summary())


run(step, snakemake.log[0])  # noqa: F821
