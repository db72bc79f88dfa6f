rule aggregate:
    """Every dataset of one preset on one plot, and their tables concatenated."""
    input:
        unpack(aggregate_input),
    output:
        plot=report(
            paths.OVERVIEW_PLOT,
            caption="../report/overview.rst",
            category="{preset}",
            subcategory="all datasets",
            labels={"dataset": "all", "output": "plot"},
        ),
        table=report(
            paths.OVERVIEW_TABLE,
            caption="../report/table.rst",
            category="{preset}",
            subcategory="all datasets",
            labels={"dataset": "all", "output": "table"},
        ),
        # The same table for rule summary: Parquet, read back as written (the CSV's
        # cells are guarded for spreadsheets).
        parquet=paths.OVERVIEW_TABLE_PARQUET,
    log:
        paths.AGGREGATE_LOG,
    retries: 1
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.preset_job(aggregate_rows),
        runtime=30,
    params:
        options=report_param(config["plot_defaults"]),
        preset="{preset}",
        # Each dataset's rows of the table, as its batch's job analysed them: params, the
        # batches' manifests standing for them as inputs (thousands of files would be
        # thousands of DAG edges).
        rows=aggregate_rows,
        roofs_at=config["roofs_at"],
        datasets=aggregate_datasets,
        roofs=roofs_text,
    script:
        "../scripts/aggregate.py"


rule summary:
    """Kernels of every dataset ranked by potential time saved, per preset; failed datasets."""
    input:
        unpack(summary_input),
    output:
        report(
            paths.SUMMARY,
            caption="../report/summary.rst",
            category="Summary",
            labels={"output": "kernels ranked by potential time saved"},
        ),
    log:
        paths.SUMMARY_LOG,
    conda:
        ROOFLOW_ENV
    params:
        presets=ALL_PRESETS,
        datasets=list(PLAN.datasets),
        # A function: Snakemake fills a string param's {braces} as wildcards, and a
        # skipped file's name may hold some (a{b}.csv: WildcardError, no summary).
        skipped=lambda wildcards: report_param(PLAN.skipped),
        model_checks=model_check_keys(),
        points=ALL_POINTS,
    script:
        "../scripts/summary.py"


rule datasets_read:
    """Fails, printing each dataset's error line, while any input could not be read."""
    input:
        summary=paths.SUMMARY,
        manifests=PLAN.manifests(),
    output:
        paths.DATASETS_READ,
    log:
        paths.DATASETS_READ_LOG,
    conda:
        ROOFLOW_ENV
    params:
        datasets=list(PLAN.datasets),
        points=ALL_POINTS,
    script:
        "../scripts/datasets_read.py"
