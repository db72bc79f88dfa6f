"""Rule `bokehjs`: one copy of Bokeh's JS bundles for every page under results/html/."""

from rooflow.workflow.rulescript import run


def step(log):
    from rooflow.html.bokehjs import version, write_bundles

    sm = snakemake  # noqa: F821
    write_bundles(sm.output)
    log(f"BokehJS {version()} → {len(sm.output)} bundles")


run(step, snakemake.log[0])  # noqa: F821
