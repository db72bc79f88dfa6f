"""Rule `summary`: results/summary.md, kernels ranked by potential time saved."""

from rooflow.rulescript import run


def step(log):
    from pathlib import Path

    import polars as pl

    from rooflow.io import atomic_path
    from rooflow.summary import summary_markdown

    sm = snakemake  # noqa: F821
    tables = {Path(p).parent.name: pl.read_csv(p) for p in sm.input}
    with atomic_path(sm.output[0]) as tmp:
        tmp.write_text(summary_markdown(tables))
    log(f"summary of {len(tables)} presets")


run(step, snakemake.log[0])  # noqa: F821
