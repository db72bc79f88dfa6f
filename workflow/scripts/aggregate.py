"""Rule `aggregate`: every dataset of one preset on one plot (DRAM/HBM level) + one table."""

from rooflow.workflow.rulescript import run


def step(log):
    import os
    from dataclasses import replace

    import polars as pl

    from rooflow.errors import InputError
    from rooflow.escape import from_report_param
    from rooflow.io import write_csv, write_parquet
    from rooflow.pipeline import plot_options
    from rooflow.plotting import plot_roofline
    from rooflow.points import concat_tables
    from rooflow.roofs import load_preset
    from rooflow.workflow.failed import is_placeholder, is_whole_parquet, write_placeholders

    sm = snakemake  # noqa: F821
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    # Datasets not built (an input that could not be read, options that did not fit the
    # data: their rows a placeholder) are left out; results/summary.md lists them.
    tables = []
    for dataset, rows in zip(sm.params.datasets, sm.params.rows, strict=True):
        # The manifests stand for these files as inputs: a file gone or cut is said here.
        if not os.path.exists(rows):
            raise InputError(rows, f"dataset {dataset}'s overview rows are missing: run the "
                             "whole workflow (its batch job writes them)", check="overview rows")
        if not is_whole_parquet(rows):
            raise InputError(rows, f"dataset {dataset}'s overview rows are cut short: delete "
                             "the file and run the workflow again (its batch job remakes it)",
                             check="overview rows")
        table = pl.read_parquet(rows)
        if is_placeholder(table.columns):
            log(f"left out, not built: {dataset}")
            continue
        tables.append(table.insert_column(0, pl.lit(dataset).alias("dataset")))
    if not tables:
        write_placeholders([sm.output.table, sm.output.parquet, sm.output.plot],
                           f"{preset.key}: all datasets",
                           "no dataset drawn on this preset was built")
        return
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
