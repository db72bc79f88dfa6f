"""Rule `summary`: results/summary.md, kernels ranked by potential time saved."""

from rooflow.rulescript import run


def step(log):
    import polars as pl

    from rooflow.io import atomic_path
    from rooflow.summary import summary_markdown

    sm = snakemake  # noqa: F821
    tables = {preset: pl.read_csv(p) for preset, p in zip(sm.params.presets, sm.input,
                                                              strict=True)}
    with atomic_path(sm.output[0]) as tmp:
        tmp.write_text(summary_markdown(tables))
    log(f"summary of {len(tables)} presets")


run(step, snakemake.log[0])  # noqa: F821
