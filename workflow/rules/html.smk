rule html:
    """Interactive roofline page of one dataset on one preset (one offline HTML file)."""
    input:
        unpack(report_input),
    # Not in the Snakemake report: each page inlines Bokeh's JS, too big to repeat there.
    output:
        "results/html/{preset}/{kind}-{name}.html",
    log:
        "logs/html/{preset}/{kind}-{name}.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        options=plot_options,
        preset="{preset}",
        dataset=dataset_id,
        datasets=[],
        selections=[],
    script:
        "../scripts/html.py"


rule html_overview:
    """Interactive page of every dataset of one preset."""
    input:
        unpack(aggregate_input),
    output:
        "results/html/{preset}/all.html",
    log:
        "logs/html/{preset}/all.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        preset="{preset}",
        datasets=aggregate_datasets,
        selections=aggregate_selections,
    script:
        "../scripts/html.py"
