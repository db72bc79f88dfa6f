"""Rule `summary`: results/summary.md, kernels ranked by potential time saved."""

from rooflow.workflow.rulescript import run


def step(log):
    import polars as pl

    from rooflow.escape import from_report_param
    from rooflow.io import atomic_path
    from rooflow.summary import summary_markdown
    from rooflow.workflow.batches import failed_lines
    from rooflow.workflow.failed import is_placeholder

    sm = snakemake  # noqa: F821
    lines = failed_lines(sm.input.manifests)  # unread inputs, and options that did not fit
    failed = {d: lines[d] for d in sm.params.datasets if d in lines}
    tables = {}
    for preset, path in zip(sm.params.presets, sm.input.tables, strict=True):
        # The aggregate's table as it made it, read when its preset's turn comes: one
        # preset's table in memory at a time (rooflow.summary.summary_markdown).
        table = pl.scan_parquet(path)
        if not is_placeholder(table.collect_schema().names()):  # a dataset of it was built
            tables[preset] = table
    from rooflow.escape import markdown_text
    from rooflow.kinds import KINDS

    built = {dataset: path for dataset, path in zip(sm.params.datasets, sm.params.points,
                                                    strict=True) if dataset not in failed}
    kind_lines = [line for kind in KINDS.values() if kind.extras  # PyTorch: GPU time coverage
                  for line in kind.hooks().summary_lines(built, tables, markdown_text)]
    text = summary_markdown(tables, failed=failed, skipped=from_report_param(sm.params.skipped),
                            kind_lines=kind_lines)
    from rooflow.model_vs_measured import markdown_section

    checks = {key: pl.read_parquet(path)  # model vs measurement: one line each
              for key, path in zip(sm.params.model_checks, sm.input.models, strict=True)}
    if checks:
        text = text.rstrip("\n") + "\n\n" + markdown_section(checks)
    with atomic_path(sm.output[0]) as tmp:
        tmp.write_text(text)
    log(f"summary of {len(tables)} presets; {len(failed)} datasets not built")


run(step, snakemake.log[0])  # noqa: F821
