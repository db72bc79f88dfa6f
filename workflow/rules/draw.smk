from rooflow.workflow.draw import bokehjs_files

# One job per dataset writes its table, plot(s) and page on every preset (rooflow.workflow.draw):
# one rule per group of datasets that write the same outputs.
DRAW_RULES = PLAN.draw_rules
# The pages under results/html/ load one shared copy of Bokeh's JS (rule bokehjs), not
# each its own inlined 1.6 MB.
BOKEHJS = bokehjs_files()


# Tables and PNGs go to the Snakemake report, under their preset (`report(` may not begin
# a line: Snakemake's parser would read the `report:` directive).
CAPTIONS = {"table": "../report/dataset_table.rst", "plot": "../report/roofline.rst"}
in_report = report

# Inputs and params are fixed patterns where they can be: Snakemake calls a function (and
# inspects its signature) once per job, thousands of times in a large project.
for _draw in DRAW_RULES:
    _options = shared_options(PLAN, _draw.datasets)  # None: each dataset's own, per job
    _outputs = {
        key: (
            in_report(
                path,
                caption=CAPTIONS[shown],
                category=preset,
                subcategory="{kind}",
                labels={"dataset": "{kind}-{name}", "output": shown},
            )
            if shown
            else path
        )
        for key, path, preset, shown in _draw.described_outputs()
    }

    rule:
        name:
            _draw.name
        input:
            **draw_inputs(PLAN, _draw.presets),
            # Rewritten (its rule rerun) it changes no page: a Bokeh release is a new folder.
            bokehjs=ancient(BOKEHJS),
        output:
            **_outputs,
        log:
            paths.DRAW_LOG,
        wildcard_constraints:
            name=_draw.constraint or DATASET_NAME,
        conda:
            ROOFLOW_ENV
        resources:
            mem_mb=jobmemory.analysis_job,
            runtime=10 * len(_draw.presets),
        params:
            presets=list(_draw.presets),
            roofs_at=config["roofs_at"],
            dataset="{kind}-{name}",
            options=plot_options if _options is None else report_param(_options),
            roofs=[rst_text(PLAN.roofs_text(p)) for p in _draw.presets],
        script:
            "../scripts/draw.py"


# The largest group's rule is unconstrained: each other group's rule takes its own datasets.
if len(DRAW_RULES) > 1:
    workflow.ruleorder(*(r.name for r in DRAW_RULES[1:]), DRAW_RULES[0].name)
