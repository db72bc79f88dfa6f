"""Rule `points`: validate one raw input → canonical points (Parquet)."""

from rooflow.rulescript import run


def step(log):
    from rooflow.io import write_parquet
    from rooflow.pipeline import Settings, load_points

    settings = Settings.from_config(snakemake.params.settings)  # noqa: F821
    points = load_points(snakemake.wildcards.kind, snakemake.input.raw, settings)  # noqa: F821
    write_parquet(points, snakemake.output[0])  # noqa: F821
    log(f"{points.height} points from {snakemake.input.raw}")  # noqa: F821


run(step, snakemake.log[0])  # noqa: F821
