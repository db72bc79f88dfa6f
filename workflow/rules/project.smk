from rooflow.workflow import workload_plan

try:  # config `projections` (rooflow.workflow.workload_plan); one line and exit 1 when wrong
    PROJECTIONS = workload_plan.projections(config, PLAN)
    # Asked for by rule all: the projections' and the histories' outputs.
    TARGETS += workload_plan.targets(config, PLAN)
except ValueError as _err:
    sys.exit(one_line_error(_err))


wildcard_constraints:
    projection=DATASET_NAME,


rule project:
    """A dataset of config `projections` on several presets: roofline and projected times."""
    input:
        unpack(lambda wc: workload_plan.project_input(PLAN, PROJECTIONS[wc.projection])),
    output:
        plot=report(
            paths.PROJECT_PLOT,
            caption="../report/project.rst",
            category="projections",
            labels={"projection": "{projection}", "output": "plot"},
        ),
        table=report(
            paths.PROJECT_TABLE,
            caption="../report/project.rst",
            category="projections",
            labels={"projection": "{projection}", "output": "totals"},
        ),
        kernels=paths.PROJECT_KERNELS,
        # Not in the Snakemake report: the page inlines Bokeh's JS, too big to repeat there.
        html=paths.PROJECT_PAGE,
    log:
        paths.PROJECT_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=lambda wc, input: jobmemory.project_job(
            input, PROJECTIONS[wc.projection]
        ),
        runtime=10,
    params:
        name="{projection}",
        dataset=lambda wc: PROJECTIONS[wc.projection]["dataset"],
        presets=lambda wc: PROJECTIONS[wc.projection]["presets"],
        measured_on=lambda wc: PROJECTIONS[wc.projection]["measured_on"],
    script:
        "../scripts/project.py"
