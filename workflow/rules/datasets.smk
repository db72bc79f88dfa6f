import rooflow
from rooflow.workflow.batches import batch_inputs, members
from rooflow.workflow.draw import bokehjs_files

# One job per batch of datasets reads and draws those of them that changed
# (rooflow.workflow.batches): one rule per batch, its outputs spelled out.
BATCHES = PLAN.batches
# The pages under results/html/ load one shared copy of Bokeh's JS (rule bokehjs), not
# each its own inlined 1.6 MB.
BOKEHJS = bokehjs_files()


# Tables and PNGs go to the Snakemake report, under their preset (`report(` may not begin
# a line: Snakemake's parser would read the `report:` directive).
CAPTIONS = {"table": "../report/dataset_table.rst", "plot": "../report/roofline.rst"}
in_report = report


for _batch in BATCHES:
    _members = members(PLAN, _batch, ADAPTER_SETTINGS, rooflow.__version__)

    rule:
        name:
            _batch.name
        input:
            **batch_inputs(PLAN, _batch.presets),
            # Rewritten (its rule rerun) it changes no page: a Bokeh release is a new folder.
            bokehjs=ancient(BOKEHJS),
        output:
            manifest=update(_batch.manifest),
            datasets=dataset_outputs(_batch),
        log:
            _batch.log,
        conda:
            ROOFLOW_ENV
        resources:
            mem_mb=jobmemory.batch_job(_members),
            runtime=jobmemory.batch_runtime(len(_batch.datasets), len(_batch.presets)),
        params:
            presets=list(_batch.presets),
            formats=list(_batch.formats),
            roofs_at=config["roofs_at"],
            digest=_members.digest,
            members=_members,
            roofs=[rst_text(PLAN.roofs_text(p)) for p in _batch.presets],
        script:
            "../scripts/datasets.py"
