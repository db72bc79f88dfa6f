rule aggregate:
    """Every dataset of one preset on one plot, and their tables concatenated."""
    input:
        unpack(aggregate_input),
    output:
        plot=report(
            "results/plots/{preset}/all.png",
            caption="../report/overview.rst",
            category="{preset}",
            subcategory="all datasets",
            labels={"dataset": "all", "output": "plot"},
        ),
        table=report(
            "results/tables/{preset}/all.csv",
            caption="../report/table.rst",
            category="{preset}",
            subcategory="all datasets",
            labels={"dataset": "all", "output": "table"},
        ),
    log:
        "logs/aggregate/{preset}.log",
    retries: 1
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=analysis_mem_mb,
        runtime=30,
    params:
        options=report_param(config["plot_defaults"]),
        preset="{preset}",
        roofs_at=config["roofs_at"],
        datasets=aggregate_datasets,
        selections=aggregate_selections,
        roofs=roofs_text,
    script:
        "../scripts/aggregate.py"


rule summary:
    """Kernels of every dataset ranked by potential time saved, per preset; failed datasets."""
    input:
        unpack(summary_input),
    output:
        report(
            "results/summary.md",
            caption="../report/summary.rst",
            category="Summary",
            labels={"output": "kernels ranked by potential time saved"},
        ),
    log:
        "logs/summary.log",
    conda:
        ROOFLOW_ENV
    params:
        presets=ALL_PRESETS,
        datasets=list(PLAN.datasets),
        # A function: Snakemake fills a string param's {braces} as wildcards, and a
        # skipped file's name may hold some (a{b}.csv: WildcardError, no summary).
        skipped=lambda wildcards: report_param(PLAN.skipped),
        model_checks=model_check_keys(),
    script:
        "../scripts/summary.py"


rule datasets_read:
    """Fails, printing each dataset's error line, while any input could not be read."""
    input:
        summary="results/summary.md",
        points=all_points,
    output:
        "results/datasets_read.txt",
    log:
        "logs/datasets_read.log",
    conda:
        ROOFLOW_ENV
    params:
        datasets=list(PLAN.datasets),
    script:
        "../scripts/datasets_read.py"
