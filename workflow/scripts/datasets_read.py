"""Rule `datasets_read`: fails, one line per dataset whose input could not be read."""

from rooflow.workflow.rulescript import run


def step(log):
    from pathlib import Path

    from rooflow.workflow.batches import failed_lines

    sm = snakemake  # noqa: F821
    points = dict(zip(sm.params.datasets, sm.params.points, strict=True))
    lines = failed_lines(sm.input.manifests)  # unread inputs, and options that did not fit
    failed = {d: lines[d] for d in sm.params.datasets if d in lines}
    if failed:
        for line in failed.values():  # each names its input (or its log, for a bug)
            log(line)
        names = ", ".join(list(failed)[:10]) + (", …" if len(failed) > 10 else "")
        log(f"rooflow: error: {len(failed)} of {len(points)} datasets not built: "
            f"{names} (results/summary.md lists them; each one's outputs say why)")
        raise SystemExit(1)
    Path(sm.output[0]).write_text(f"{len(points)} datasets read\n")
    log(f"{len(points)} datasets read")


run(step, snakemake.log[0])  # noqa: F821
