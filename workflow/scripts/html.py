"""Rule `html_overview`: the interactive page of every dataset of one preset.

(Each dataset's own page is written by its batch's job: rooflow.workflow.batches.)
"""

from rooflow.workflow.rulescript import run


def step(log):
    import polars as pl

    from rooflow.html.page import roofline_page
    from rooflow.roofs import load_preset
    from rooflow.workflow.failed import is_placeholder, write_placeholders

    sm = snakemake  # noqa: F821
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    # Rule aggregate's table of the datasets that were built (its placeholder when none
    # was).
    table = pl.read_parquet(sm.input.table)
    if is_placeholder(table.columns):
        write_placeholders(sm.output, f"{preset.key}: all datasets",
                           "no dataset drawn on this preset was built")
        log("no dataset built")
        return
    roofline_page(table, preset, sm.output[0], title=f"{preset.name}: all datasets",
                  color_by="dataset", bokehjs=list(sm.input.bokehjs))
    log(f"{table.height} rows on {preset.key} → {sm.output[0]}")


run(step, snakemake.log[0])  # noqa: F821
