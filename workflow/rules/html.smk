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
    """Interactive page of every dataset of one preset, from rule aggregate's table."""
    input:
        unpack(preset_input),
        # The analysis table as rule aggregate made it: not made again from the points.
        table=paths.OVERVIEW_TABLE_PARQUET,
        bokehjs=ancient(BOKEHJS),
    output:
        paths.OVERVIEW_PAGE,
    log:
        paths.OVERVIEW_PAGE_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.analysis_job,
        runtime=30,
    params:
        preset="{preset}",
        roofs_at=config["roofs_at"],
    script:
        "../scripts/html.py"
