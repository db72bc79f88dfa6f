rule aggregate:
    """Every dataset of one preset on one plot, and their tables concatenated."""
    input:
        unpack(aggregate_input),
    output:
        plot="results/plots/{preset}/all.png",
        table="results/tables/{preset}/all.csv",
    log:
        "logs/aggregate/{preset}.log",
    retries: 1
    conda:
        "../../environment.yml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        options=config["plot_defaults"],
        preset="{preset}",
        datasets=aggregate_datasets,
    script:
        "../scripts/aggregate.py"


rule summary:
    """Kernels of every dataset ranked by potential time saved, per preset."""
    input:
        summary_input,
    output:
        "results/summary.md",
    log:
        "logs/summary.log",
    conda:
        "../../environment.yml"
    params:
        presets=ALL_PRESETS,
    script:
        "../scripts/summary.py"
