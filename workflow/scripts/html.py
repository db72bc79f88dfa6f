"""Rules `html` / `html_overview`: interactive roofline page(s) of one preset."""

from rooflow.rulescript import run


def step(log):
    import polars as pl

    from rooflow.analysis import analyze
    from rooflow.defaults import plot_defaults
    from rooflow.escape import from_report_param
    from rooflow.failed import failure, write_placeholders
    from rooflow.html.page import roofline_page
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.selection import Selection, select_points

    sm = snakemake  # noqa: F821
    preset = load_preset(sm.params.preset, sm.input.hardware, sm.input.get("measured"))
    if sm.params.datasets:  # the overview: every dataset of the preset, coloured by dataset
        built = [(d, p, s) for d, p, s in zip(sm.params.datasets, sm.input.points,
                                              from_report_param(sm.params.selections),
                                              strict=True) if failure(p) is None]
        if not built:
            write_placeholders(sm.output, f"{preset.key}: all datasets",
                               "no dataset drawn on this preset could be read")
            log("no dataset read")
            return
        table = pl.concat([
            analyze(select_points(read_points(p), Selection.from_mapping(s), preset, p),
                    preset).insert_column(0, pl.lit(d).alias("dataset"))
            for d, p, s in built])
        roofline_page(table, preset, sm.output[0], title=f"{preset.name}: all datasets",
                      color_by="dataset")
    elif line := failure(sm.input.points):  # its input could not be read: say so
        write_placeholders(sm.output, sm.params.dataset, line)
        log(f"not built: {line}")
        return
    else:
        opts = plot_defaults() | from_report_param(sm.params.options)  # as the PNG's
        preset = preset.with_override(opts.get("peak_tflops"), opts.get("peak_bandwidth"))
        selection = Selection.from_mapping(opts.get("select"))
        points = select_points(read_points(sm.input.points), selection, preset,
                               sm.input.points)
        table = analyze(points, preset)
        roofline_page(table, preset, sm.output[0],
                      title=opts.get("title") or f"{sm.params.dataset} on {preset.name}",
                      top_n=opts["top_n"], series_order=opts["series_order"],
                      trajectory=opts["trajectory"])
    log(f"{table.height} rows on {preset.key} → {sm.output[0]}")


run(step, snakemake.log[0])  # noqa: F821
