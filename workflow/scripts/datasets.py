"""Rules `datasets_NN`...: a batch of datasets, each read and drawn on all its presets
when its fingerprint changed (rooflow.workflow.batches)."""

from rooflow.workflow.rulescript import run, traceback_path


def step(log):
    from rooflow.workflow.batches import build_batch

    sm = snakemake  # noqa: F821
    presets = sm.params.presets
    build_batch(sm.params.members, presets, sm.params.formats,
                [(sm.input.hardware, sm.input.get(f"measured_{i}"))
                 for i in range(len(presets))],
                sm.output.manifest, log, roofs_at=sm.params.roofs_at,
                bokehjs=list(sm.input.bokehjs), traceback_file=str(traceback_path(sm.log[0])))


run(step, snakemake.log[0])  # noqa: F821
