"""Rule `points`: validate one raw input → canonical points (Parquet).

An input it cannot read gives a failed points file holding the error line (rooflow.workflow.failed):
the other datasets, the aggregates and the report still build; rule `datasets_read` fails.
"""

from functools import partial

from rooflow.workflow.failed import left_out_metadata, write_failed
from rooflow.workflow.rulescript import run


def step(log):
    from rooflow.adapters import KINDS, kind_mismatch, load_points
    from rooflow.errors import LeftOut
    from rooflow.io import atomic_path
    from rooflow.plotting.core import check_plottable
    from rooflow.settings import Settings

    sm = snakemake  # noqa: F821
    other = kind_mismatch(sm.params.kind, sm.input.raw)
    if other:
        log(f"warning: {sm.input.raw} looks like a {other} input, not {sm.params.kind}: "
            f"move it to resources/{other}/ if it is one")
    with LeftOut() as left:  # what the reader left out, said on the dataset's plots too
        points = load_points(sm.params.kind, sm.input.raw,
                             Settings.from_config(sm.params.settings))
    # A point no plot can place fails this dataset here, not every plot of its presets.
    check_plottable(points)
    hooks = KINDS[sm.params.kind].hooks()  # a PyTorch trace: where its GPU time went
    metadata = {**(hooks.points_metadata(sm.input.raw) if hooks else {}),
                **left_out_metadata(left.lines())}
    with atomic_path(sm.output[0]) as tmp:
        points.write_parquet(tmp, metadata=metadata or None)
    log(f"{points.height} points from {sm.input.raw}")


run(step, snakemake.log[0], failed=partial(write_failed, snakemake.output[0]))  # noqa: F821
