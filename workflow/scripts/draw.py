"""Rules `draw`, `draw_on_PRESET`...: one dataset's tables, plots and pages on all its presets."""

from rooflow.workflow.rulescript import run


def step(log):
    from rooflow.escape import from_report_param
    from rooflow.workflow.draw import Target, draw_dataset

    sm = snakemake  # noqa: F821
    targets = [
        Target(preset, sm.input.hardware, sm.input.get(f"measured_{i}"),
               sm.output[f"table_{i}"], sm.output[f"plot_{i}"], sm.output[f"page_{i}"])
        for i, preset in enumerate(sm.params.presets)
    ]
    draw_dataset(sm.input.points, sm.params.dataset, targets,
                 from_report_param(sm.params.options), log, roofs_at=sm.params.roofs_at,
                 bokehjs=list(sm.input.bokehjs))


run(step, snakemake.log[0])  # noqa: F821
