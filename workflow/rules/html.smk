from rooflow.workflow.draw import bokehjs_files

# The pages under results/html/ load one shared copy of Bokeh's JS (the draw rules' and
# html_overview's `bokehjs` input), not each its own inlined 1.6 MB.
BOKEHJS = bokehjs_files()


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
        bokehjs=BOKEHJS,
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
        datasets=aggregate_datasets,
        selections=aggregate_selections,
    script:
        "../scripts/html.py"
