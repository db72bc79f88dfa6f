"""The steps the CLI and the Snakemake rule scripts share: load → analyze → write.

Input kinds (one adapter each, all returning canonical points):

========== ============================================ ===========================
kind       raw input                                    adapter
========== ============================================ ===========================
roofline   ``resources/roofline/NAME.csv``              rooflow.roofline_csv
benchmarks ``resources/benchmarks/NAME.csv`` (+ specs)  rooflow.benchmarks
specs      ``resources/specs/NAME.yaml``                rooflow.models.spec_points
ncu        ``resources/ncu/NAME.csv``                   rooflow.profilers.ncu
rocprof    ``resources/rocprof/NAME/pmc_perf.csv``      rooflow.profilers.rocprof
========== ============================================ ===========================

Adapters are imported on use, so a job loads only the libraries it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from rooflow.errors import InputError
from rooflow.paths import DEFAULT_FAMILIES, REPO_ROOT

KINDS = ("roofline", "benchmarks", "specs", "ncu", "rocprof")
MAX_WARNINGS = 20  # above-roof points listed one by one; the rest are counted


@dataclass(frozen=True)
class Settings:
    """Adapter settings (config.yaml keys of the same names; see config/README.md)."""

    families: Path = DEFAULT_FAMILIES
    family_map: Mapping[str, str] = field(default_factory=dict)
    variant_prefix: str = "bench"
    specs_dir: Path = REPO_ROOT / "resources" / "specs"
    min_tflops: float | None = None
    min_ai: float | None = None
    tensor_flop_per_inst: Mapping[str, float] = field(default_factory=dict)
    per_launch: bool = False

    @classmethod
    def from_config(cls, config: Mapping, root: Path = Path(".")) -> Settings:
        """Settings from a validated Snakemake config (paths relative to ``root``)."""
        bench = config.get("benchmarks", {})
        return cls(
            families=root / config.get("families", "config/families.yaml"),
            family_map=config.get("family_map", {}),
            variant_prefix=config.get("variant_prefix", "bench"),
            specs_dir=root / config.get("specs_dir", "resources/specs"),
            min_tflops=bench.get("min_tflops"),
            min_ai=bench.get("min_ai"),
            tensor_flop_per_inst=config.get("ncu", {}).get("tensor_flop_per_inst", {}),
            per_launch=config.get("ncu", {}).get("per_launch", False),
        )


def load_points(kind: str, path: str | Path, settings: Settings = Settings()) -> pl.DataFrame:
    """Validate one raw input and return its canonical points.

    Raises:
        InputError: anything wrong with the input (see each adapter).
    """
    if kind == "roofline":
        from rooflow.roofline_csv import read_roofline_csv

        return read_roofline_csv(path)
    if kind in ("benchmarks", "specs"):
        from rooflow.models import load_families

        families = load_families(settings.families)
        if kind == "specs":
            from rooflow.models import spec_points

            return spec_points(path, families, dict(settings.family_map), settings.variant_prefix)
        from rooflow.benchmarks import benchmark_points

        return benchmark_points(
            path, settings.specs_dir, families, dict(settings.family_map),
            min_tflops=settings.min_tflops, min_ai=settings.min_ai,
        )
    if kind == "ncu":
        from rooflow.profilers.ncu import ncu_points

        return ncu_points(
            path, per_launch=settings.per_launch,
            tensor_flop_per_inst=dict(settings.tensor_flop_per_inst) or None,
        )
    if kind == "rocprof":
        from rooflow.profilers.rocprof import rocprof_points

        folder = Path(path)
        return rocprof_points(folder.parent if folder.is_file() else folder)
    raise InputError(str(path), f"unknown input kind; known: {', '.join(KINDS)}", value=kind)


def report(
    points: pl.DataFrame,
    preset,
    *,
    table_path: str | Path | None,
    plot_path: str | Path | None,
    options=None,
    limits=None,
    log: Callable[[str], None] = print,
) -> pl.DataFrame:
    """Analyze ``points`` on ``preset``, write the table (CSV) and the plot(s).

    Points above the roof are drawn and each is reported through ``log``.

    Returns:
        The analysis table (:data:`rooflow.analysis.TABLE_COLUMNS`).
    """
    from rooflow.analysis import above_roof, analyze
    from rooflow.io import write_csv

    table = analyze(points, preset)
    above = above_roof(table)
    if above.height > MAX_WARNINGS:
        log(f"warning: {above.height} points are above the roof of {preset.key}; "
            f"the first {MAX_WARNINGS} follow (all are flagged in the table's above_roof column)")
    for r in above.head(MAX_WARNINGS).iter_rows(named=True):
        log(
            f"warning: {r['source']} row {r['row']} ({r['label'] or r['kernel']}, {r['series']}, "
            f"{r['level']}) is above the roof of {preset.key}: "
            f"{r['performance'] / 1e12:.4g} TFLOP/s > {r['attainable'] / 1e12:.4g} TFLOP/s "
            f"({r['pct_of_roof']:.0f}% of roof); drawn, not clipped"
        )
    unroofed = table.filter(pl.col("memory_roof").is_null())["level"].unique().to_list()
    if unroofed:
        log(f"note: {preset.key} has no memory roof for level(s) {', '.join(unroofed)}")
    if table_path is not None:
        write_csv(table, table_path)
    if plot_path is not None:
        from rooflow.plotting import PlotOptions, plot_roofline

        plot_roofline(table, preset, plot_path, options=options or PlotOptions(), limits=limits)
    return table


def load_preset(key: str, hardware_file: str | Path, empirical_file: str | Path | None = None):
    """The preset ``key``: from hardware.yaml, or built from a measured-peaks file.

    ``empirical_file`` is an Empirical Roofline Toolkit ``roofline.json`` or an
    Omniperf ``roofline.csv``; the preset is then named ``key``.

    Raises:
        InputError: unknown key, or a bad hardware/peaks file.
    """
    from rooflow.hardware import load_hardware, preset_from_mapping

    if empirical_file is None:
        presets = load_hardware(hardware_file)
        if key not in presets:
            raise InputError(str(hardware_file), "unknown hardware preset", value=key)
        return presets[key]
    path = Path(empirical_file)
    if path.suffix == ".json":
        from rooflow.profilers.ert import ert_preset

        mapping = ert_preset(path)
    else:
        from rooflow.profilers.rocprof import omniperf_preset

        mapping = omniperf_preset(path)
    return preset_from_mapping(key, mapping, source=str(path))


def plot_options(options: Mapping):
    """:class:`rooflow.plotting.PlotOptions` from a config ``plot_defaults``-style mapping."""
    from rooflow.plotting import PlotOptions

    known = PlotOptions.__dataclass_fields__
    return PlotOptions(**{k: v for k, v in options.items() if k in known})
