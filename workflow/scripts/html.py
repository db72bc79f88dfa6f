"""Rule `html_overview`: the interactive page of every dataset of one preset.

(Each dataset's own page is written by its batch's job: rooflow.workflow.batches.)
"""

from rooflow.workflow.rulescript import run


def step(log):
    import polars as pl

    from rooflow.analysis import analyze
    from rooflow.escape import from_report_param
    from rooflow.html.page import roofline_page
    from rooflow.points import concat_tables, read_points
    from rooflow.roofs import load_preset
    from rooflow.selection import Selection, select_points
    from rooflow.workflow.failed import failure, write_placeholders

    sm = snakemake  # noqa: F821
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    built = [(d, p, s) for d, p, s in zip(sm.params.datasets, sm.params.points,
                                          from_report_param(sm.params.selections),
                                          strict=True) if failure(p) is None]
    if not built:
        write_placeholders(sm.output, f"{preset.key}: all datasets",
                           "no dataset drawn on this preset could be read")
        log("no dataset read")
        return
    # each dataset has the per-call and traffic ratio columns of its own (concat_tables)
    table = concat_tables([
        analyze(select_points(read_points(p), Selection.from_mapping(s), preset, p),
                preset).insert_column(0, pl.lit(d).alias("dataset"))
        for d, p, s in built])
    roofline_page(table, preset, sm.output[0], title=f"{preset.name}: all datasets",
                  color_by="dataset", bokehjs=list(sm.input.bokehjs))
    log(f"{table.height} rows on {preset.key} → {sm.output[0]}")


run(step, snakemake.log[0])  # noqa: F821
