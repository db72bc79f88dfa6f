"""Rule `aggregate`: every dataset of one preset on one plot (DRAM/HBM level) + one table."""

from rooflow.workflow.rulescript import run


def step(log):
    from dataclasses import replace

    import polars as pl

    from rooflow.analysis import analyze
    from rooflow.escape import from_report_param
    from rooflow.io import write_csv, write_parquet
    from rooflow.pipeline import plot_options
    from rooflow.plotting import plot_roofline
    from rooflow.points import concat_tables, read_points
    from rooflow.roofs import load_preset
    from rooflow.selection import Selection, select_points
    from rooflow.workflow.failed import failure, write_placeholders

    sm = snakemake  # noqa: F821
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    # Datasets whose input could not be read are left out (results/summary.md lists them).
    built = [(d, p, s) for d, p, s in zip(sm.params.datasets, sm.params.points,
                                          from_report_param(sm.params.selections), strict=True)
             if failure(p) is None]
    left_out = [d for d in sm.params.datasets if d not in {b[0] for b in built}]
    if left_out:
        log(f"left out, not built: {', '.join(left_out)}")
    if not built:
        write_placeholders([sm.output.table, sm.output.parquet, sm.output.plot],
                           f"{preset.key}: all datasets",
                           "no dataset drawn on this preset could be read")
        return
    tables = [
        analyze(select_points(read_points(path), Selection.from_mapping(select), preset, path),
                preset).insert_column(0, pl.lit(dataset).alias("dataset"))
        for dataset, path, select in built
    ]
    # each dataset has the per-call and traffic ratio columns of its own (concat_tables)
    table = concat_tables(tables)
    write_csv(table, sm.output.table)
    write_parquet(table, sm.output.parquet)  # for rule summary: read back as written
    # One level per kernel on the overview: the preset's DRAM/HBM roof.
    main_level = table.filter(pl.col("memory_roof_name") == preset.default_memory)
    options = replace(plot_options(from_report_param(sm.params.options)), color_by="dataset",
                      annotate=False, connect=True, title=f"{preset.name}: all datasets",
                      trajectory=None)  # a dataset's dim is not every dataset's
    plot_roofline(main_level, preset, sm.output.plot, options=options)
    log(f"{len(tables)} datasets, {table.height} rows on {preset.key}")


run(step, snakemake.log[0])  # noqa: F821
