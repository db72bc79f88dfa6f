rule compare:
    """Two datasets of config `comparisons` on one preset: arrows baseline → new."""
    input:
        unpack(compare_input),
    output:
        plot=report(
            paths.COMPARE_PLOT,
            caption="../report/compare.rst",
            category="{preset}",
            subcategory="comparisons",
            labels={"dataset": "{comparison}", "output": "plot"},
        ),
        table=report(
            paths.COMPARE_TABLE,
            caption="../report/compare_table.rst",
            category="{preset}",
            subcategory="comparisons",
            labels={"dataset": "{comparison}", "output": "table"},
        ),
        # Not in the Snakemake report: the page inlines Bokeh's JS, too big to repeat there.
        html=paths.COMPARE_PAGE,
    log:
        paths.COMPARE_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.analysis_job,
        runtime=10,
    params:
        preset="{preset}",
        roofs_at=config["roofs_at"],
        name="{comparison}",
        baseline=lambda wc: COMPARISONS[wc.comparison]["baseline"],
        new=lambda wc: COMPARISONS[wc.comparison]["new"],
        normalize=lambda wc: COMPARISONS[wc.comparison].get("normalize_names", False),
        roofs=roofs_text,
        # The config's fixed axes (plot_defaults xlim/ylim), as on the datasets' plots.
        xlim=config["plot_defaults"]["xlim"],
        ylim=config["plot_defaults"]["ylim"],
    script:
        "../scripts/compare.py"
