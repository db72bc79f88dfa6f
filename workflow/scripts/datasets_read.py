"""Rule `datasets_read`: fails, one line per dataset whose input could not be read."""

from rooflow.workflow.rulescript import run


def step(log):
    from pathlib import Path

    from rooflow.workflow.failed import failures

    sm = snakemake  # noqa: F821
    points = dict(zip(sm.params.datasets, sm.input.points, strict=True))
    failed = failures(points)
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
