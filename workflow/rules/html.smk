rule bokehjs:
    """Bokeh's JS, one copy that every page under results/html/ loads (rooflow.html.bokehjs)."""
    output:
        BOKEHJS,
    log:
        paths.BOKEHJS_LOG,
    conda:
        ROOFLOW_ENV
    script:
        "../scripts/bokehjs.py"


rule html_overview:
    """Interactive page of every dataset of one preset."""
    input:
        unpack(aggregate_input),
        bokehjs=ancient(BOKEHJS),
    output:
        paths.OVERVIEW_PAGE,
    log:
        paths.OVERVIEW_PAGE_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.preset_job(aggregate_points),
        runtime=30,
    params:
        preset="{preset}",
        points=aggregate_points,
        roofs_at=config["roofs_at"],
        datasets=aggregate_datasets,
        selections=aggregate_selections,
    script:
        "../scripts/html.py"
