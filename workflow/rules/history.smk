from rooflow.workflow import workload_plan

try:  # config `history` (rooflow.workflow.workload_plan); one line and exit 1 when wrong
    HISTORIES = workload_plan.histories(config, PLAN)
except ValueError as _err:
    sys.exit(one_line_error(_err))


wildcard_constraints:
    history=DATASET_NAME,


rule history:
    """Runs of config `history` in order: each kernel's trend, steps judged as `check`."""
    input:
        unpack(lambda wc: workload_plan.history_input(PLAN, HISTORIES[wc.history])),
    output:
        plot=report(
            paths.HISTORY_PLOT,
            caption="../report/history.rst",
            category="history",
            labels={"history": "{history}", "output": "plot"},
        ),
        table=report(
            paths.HISTORY_TABLE,
            caption="../report/history.rst",
            category="history",
            labels={"history": "{history}", "output": "table"},
        ),
        # Not in the Snakemake report: the page inlines Bokeh's JS, too big to repeat there.
        html=paths.HISTORY_PAGE,
    log:
        paths.HISTORY_LOG,
    conda:
        ROOFLOW_ENV
    resources:
        mem_mb=jobmemory.analysis_job,
        runtime=10,
    params:
        name="{history}",
        roofs_at=config["roofs_at"],
        runs=lambda wc: HISTORIES[wc.history]["runs"],
        labels=lambda wc: HISTORIES[wc.history]["labels"],
        preset=lambda wc: HISTORIES[wc.history]["preset"],
        max_slowdown=lambda wc: HISTORIES[wc.history]["max_slowdown"],
        confidence=lambda wc: HISTORIES[wc.history]["confidence"],
    script:
        "../scripts/history.py"
