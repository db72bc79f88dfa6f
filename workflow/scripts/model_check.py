"""Rule `model_check`: one configured model check on one preset → plot and table.

A check that fails (a map naming no model point, no kernel matched) writes placeholders
saying why, as a dataset that cannot be read does, so the summary still builds.
"""

from rooflow.workflow.rulescript import run


def step(log):

    from rooflow.errors import InputError
    from rooflow.io import write_csv, write_parquet
    from rooflow.model_vs_measured import parse_mapping, reconcile, summary
    from rooflow.plotting.model_vs_measured import plot_model_vs_measured
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.workflow.failed import failure, write_placeholders

    sm = snakemake  # noqa: F821
    for side in ("measured", "model"):  # a dataset that could not be read: say so, in its place
        if line := failure(sm.input[f"points_{side}"]):
            write_placeholders(sm.output, sm.params.name, f"{side} {sm.params[side]}: {line}")
            log(f"not built: {side} {sm.params[side]}: {line}")
            return
    try:
        mappings = [parse_mapping(m) for m in sm.params.mapping]
    except ValueError as err:
        raise InputError("config", f"model_checks: {sm.params.name}: map: {err}") from None
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    table = reconcile(read_points(sm.input.points_measured),
                      read_points(sm.input.points_model), mappings, preset)
    title = f"{sm.params.name}: {sm.params.model} → {sm.params.measured} on {preset.key}"
    plot_model_vs_measured(table, preset, sm.output.plot, title=title)
    write_csv(table, sm.output.table)
    write_parquet(table, sm.output.parquet)  # for rule summary: read back as written
    log(summary(table))


def failed(line):
    """A check that cannot be made is its own problem: its outputs say why (summary.md too)."""
    from rooflow.workflow.failed import write_placeholders

    sm = snakemake  # noqa: F821
    write_placeholders(sm.output, sm.params.name, line)


run(step, snakemake.log[0], failed=failed)  # noqa: F821
