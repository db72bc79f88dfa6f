"""Rule `history`: one configured series of runs → trend plot, table, page."""

from rooflow.workflow.rulescript import run


def step(log):

    from rooflow.analysis import analyze
    from rooflow.history import history, summary
    from rooflow.html.history import history_page
    from rooflow.io import write_csv
    from rooflow.plotting.history import plot_history
    from rooflow.points import read_points
    from rooflow.roofs import load_preset
    from rooflow.workflow.failed import failure, write_placeholders

    sm = snakemake  # noqa: F821
    for run_id, path in zip(sm.params.runs, sm.input.runs, strict=True):
        if line := failure(path):  # a dataset that could not be read: say so, in its place
            write_placeholders(sm.output, sm.params.name, f"run {run_id}: {line}")
            log(f"not built: run {run_id}: {line}")
            return
    preset = load_preset(sm.params.preset, sm.input.hardware,
                         sm.input.get("measured")).with_roofs_at(sm.params.roofs_at)
    # The analysis tables (every column) live only through history(): its table is all
    # that is drawn and written.
    table = history([analyze(read_points(p), preset) for p in sm.input.runs],
                    sm.params.labels, max_slowdown=sm.params.max_slowdown,
                    confidence=sm.params.confidence)
    title = f"{sm.params.name} on {preset.key}"
    plot_history(table, sm.output.plot, title=title)
    write_csv(table, sm.output.table)
    history_page(table, sm.output.html, title=title)
    log(summary(table))


run(step, snakemake.log[0])  # noqa: F821
