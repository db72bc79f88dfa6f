"""Rule `aggregate`: every dataset of one preset on one plot (DRAM/HBM level) + one table."""

from rooflow.rulescript import run


def step(log):
    from dataclasses import replace
    from pathlib import Path

    import polars as pl

    from rooflow.analysis import analyze
    from rooflow.io import write_csv
    from rooflow.pipeline import load_preset, plot_options
    from rooflow.plotting import plot_roofline

    sm = snakemake  # noqa: F821
    preset = load_preset(sm.wildcards.preset, sm.input.hardware, sm.input.get("empirical"))
    tables = []
    for path in map(Path, sm.input.points):
        dataset = f"{path.parent.name}-{path.stem}"
        table = analyze(pl.read_parquet(path), preset)
        tables.append(table.insert_column(0, pl.lit(dataset).alias("dataset")))
    table = pl.concat(tables, how="vertical")
    write_csv(table, sm.output.table)
    # One level per kernel on the overview: the preset's DRAM/HBM roof.
    main_level = table.filter(pl.col("memory_roof_name") == preset.default_memory)
    options = replace(plot_options(sm.params.options), color_by="dataset", annotate=False,
                      connect=True, title=f"{preset.name}: all datasets")
    plot_roofline(main_level, preset, sm.output.plot, options=options)
    log(f"{len(tables)} datasets, {table.height} rows on {preset.key}")


run(step, snakemake.log[0])  # noqa: F821
