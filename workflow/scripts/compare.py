"""Rule `compare`: one configured comparison on one preset → plot, table, page."""

from rooflow.workflow.rulescript import run


def step(log):

    from rooflow.analysis import analyze
    from rooflow.compare import compare_tables
    from rooflow.html.compare import comparison_page
    from rooflow.io import write_csv
    from rooflow.pipeline import axis_range
    from rooflow.plotting.compare import plot_comparison
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.workflow.failed import failure, write_placeholders

    sm = snakemake  # noqa: F821
    for side in ("baseline", "new"):  # a dataset that could not be read: say so, in its place
        if line := failure(sm.input[side]):
            write_placeholders(sm.output, sm.params.name, f"{side} {sm.params[side]}: {line}")
            log(f"not built: {side} {sm.params[side]}: {line}")
            return
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    # The analysis tables (every column) live only through compare_tables(): its table
    # is all that is drawn and written.
    comp = compare_tables(*[analyze(read_points(p), preset)
                            for p in (sm.input.baseline, sm.input.new)],
                          normalize=sm.params.normalize)
    title = f"{sm.params.name}: {sm.params.baseline} → {sm.params.new} on {preset.key}"
    plot_comparison(comp, preset, sm.output.plot, title=title,
                    xlim=axis_range(sm.params.xlim, preset.key),
                    ylim=axis_range(sm.params.ylim, preset.key))
    write_csv(comp.table, sm.output.table)
    comparison_page(comp, preset, sm.output.html, title=title)
    log(comp.summary())


run(step, snakemake.log[0])  # noqa: F821
