"""The ``rooflow`` command line: the workflow's steps, one file at a time.

A user error prints one line on stderr (``rooflow: error: ...``), exits 1, shows no
traceback and leaves no output file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rooflow.defaults import DEFAULT_FAMILIES, DEFAULT_HARDWARE, config_defaults, plot_defaults
from rooflow.errors import InputError

_positive = click.FloatRange(min=0, min_open=True)
_PLOT = plot_defaults()
_CONFIG = config_defaults()


def _warn(message: str) -> None:
    click.echo(message, err=True)


def _load_presets(path: Path):
    from rooflow.roofs.datasheet import load_hardware

    return load_hardware(path)


hardware_file_option = click.option(
    "--hardware-file", type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_HARDWARE, show_default=True, help="Hardware presets YAML.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rooflow")
def cli() -> None:
    """Roofline analysis of GPU kernel measurements."""


@cli.command()
@click.argument("csv", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--hardware", "hardware", help="Hardware preset (see `rooflow hardware`).")
@click.option("--peak-tflops", type=_positive, help="Peak compute, TFLOP/s.")
@click.option("--peak-bandwidth", type=_positive, help="Peak DRAM/HBM bandwidth, GB/s.")
@click.option("--connect", is_flag=True, help="Arrow Original → Optimized per pair.")
@click.option("--annotate/--no-annotate", default=None,
              help="Label points (de-overlapped); default: when there are at most 20.")
@click.option("--key", is_flag=True, help="Numbered side key.")
@click.option("--series-order", default="", help="Comma-separated series order: a,b.")
@click.option("--dpi", type=click.IntRange(20, 1200), default=_PLOT["dpi"], show_default=True)
@click.option("--top-n", type=click.IntRange(1), default=_PLOT["top_n"], show_default=True,
              help="Labels/key entries shown (by headroom); the rest are counted.")
@click.option("--density/--no-density", default=None,
              help=f"Draw points as a density image; default: above "
                   f"{_PLOT['density_threshold']:,} points.")
@click.option("-t", "--title", default=None)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Output image (.png, .svg or .pdf; default: ./CSV-STEM.png).")
@click.option("--table", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the analysis table (CSV) here.")
@hardware_file_option
def plot(csv, hardware, peak_tflops, peak_bandwidth, connect, annotate, key, series_order, dpi,
         top_n, density, title, output, table, hardware_file) -> None:
    """Plot a roofline CSV (or Parquet) on a hardware preset (or a custom roof)."""
    from rooflow.adapters import load_points
    from rooflow.pipeline import report
    from rooflow.plotting import PlotOptions
    from rooflow.roofs.preset import select_preset

    presets = _load_presets(hardware_file) if hardware else {}
    preset = select_preset(presets, hardware, peak_tflops=peak_tflops,
                           peak_bandwidth_gbs=peak_bandwidth)
    points = load_points("roofline", csv)
    output = output or Path(csv.stem + ".png")
    fmt = output.suffix.lstrip(".").lower() or "png"
    if fmt not in ("png", "svg", "pdf"):
        raise click.BadParameter(f"unsupported image format '.{fmt}' (png, svg, pdf)",
                                 param_hint="-o")
    options = PlotOptions(
        connect=connect, annotate=annotate, key=key,
        series_order=[s.strip() for s in series_order.split(",") if s.strip()],
        dpi=dpi, title=title, formats=(fmt,), top_n=top_n, density=density,
    )
    report(points, preset, table_path=table, plot_path=output, options=options, log=_warn)
    click.echo(f"wrote {output}", err=True)


@cli.command("hardware")
@hardware_file_option
def hardware_cmd(hardware_file) -> None:
    """Print the hardware presets: default roofs, ridge point and every roof."""
    presets = _load_presets(hardware_file)
    rows = [("preset", "name", "compute (TFLOP/s)", "memory (GB/s)", "ridge (FLOP/byte)",
             "other roofs")]
    for p in presets.values():
        others = [f"{k} {v / 1e12:g}" for k, v in p.compute.items() if k != p.default_compute]
        others += [f"{k} {v / 1e9:g} GB/s" for k, v in p.memory.items() if k != p.default_memory]
        rows.append((
            p.key, p.name + (" [measured]" if p.empirical else ""),
            f"{p.default_compute} {p.peak_flop_per_s / 1e12:g}",
            f"{p.default_memory} {p.peak_bytes_per_s / 1e9:g}",
            f"{p.ridge_point:.1f}", ", ".join(others),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def _write(frame, output: Path | None) -> None:
    from rooflow.io import write_csv

    write_csv(frame, output)
    if output is not None:
        click.echo(f"wrote {output} ({frame.height} rows)", err=True)


output_option = click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
    help="Output CSV (default: stdout).",
)
families_option = click.option(
    "--families", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_FAMILIES,
    show_default=True, help="Family models YAML.",
)
family_map_option = click.option(
    "--family", "family_map", multiple=True, metavar="STEM=FAMILY",
    help="Map a spec file stem to a family (repeatable).",
)


def _parse_family_map(items: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in items:
        stem, sep, family = item.partition("=")
        if not sep or not stem or not family:
            raise click.BadParameter(f"'{item}' is not STEM=FAMILY", param_hint="--family")
        out[stem] = family
    return out


@cli.command("from-benchmark")
@click.argument("csv", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@click.option("--min-tflops", type=float, help="Drop pairs whose Optimized TFLOP/s is below T.")
@click.option("--min-ai", type=float, help="Drop pairs whose arithmetic intensity is below A.")
@click.option("--specs", "specs_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(_CONFIG["specs_dir"]), show_default=True,
              help="Folder of kernel spec YAMLs.")
@families_option
@family_map_option
def from_benchmark(csv, output, min_tflops, min_ai, specs_dir, families, family_map) -> None:
    """Benchmark results CSV → roofline CSV (Original/Optimized pairs)."""
    import polars as pl

    from rooflow.adapters import load_points
    from rooflow.settings import Settings

    settings = Settings(families=families, family_map=_parse_family_map(family_map),
                        specs_dir=specs_dir, min_tflops=min_tflops, min_ai=min_ai)
    points = load_points("benchmarks", csv, settings)
    _write(points.select("series", "family", "label", "pair", "arithmetic_intensity",
                         tflops=pl.col("flop_per_s") / 1e12), output)


@cli.command("from-spec")
@click.argument("yaml_file", metavar="YAML", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@click.option("--variant-prefix", default=_CONFIG["variant_prefix"], show_default=True,
              help="Variants whose key starts with this become points.")
@families_option
@family_map_option
def from_spec(yaml_file, output, variant_prefix, families, family_map) -> None:
    """Kernel spec YAML → theoretical roofline points (flop, bytes, intensity)."""
    from rooflow.adapters import load_points
    from rooflow.settings import Settings

    settings = Settings(families=families, family_map=_parse_family_map(family_map),
                        variant_prefix=variant_prefix)
    points = load_points("specs", yaml_file, settings)
    _write(points.select("series", "family", "label", "arithmetic_intensity", "flop", "bytes",
                         "bytes_model"), output)


@cli.command("from-ncu")
@click.argument("csv", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@click.option("--per-launch", is_flag=True, help="One point per launch, not per kernel name.")
@click.option("--tensor-flop-per-inst", type=_positive, default=None,
              help="FLOP per tensor-pipe instruction (default: 512, NERSC method).")
def from_ncu(csv, output, per_launch, tensor_flop_per_inst) -> None:
    """Nsight Compute CSV export → canonical points (one row per kernel × memory level)."""
    from rooflow.adapters import load_points
    from rooflow.settings import Settings

    factor = {"default": tensor_flop_per_inst} if tensor_flop_per_inst else {}
    settings = Settings(per_launch=per_launch, tensor_flop_per_inst=factor)
    _write(load_points("ncu", csv, settings), output)


@cli.command("from-rocprof")
@click.argument("workload_dir", type=click.Path(file_okay=False, path_type=Path))
@output_option
def from_rocprof(workload_dir, output) -> None:
    """rocprof/Omniperf workload folder → canonical points (kernel × memory level)."""
    from rooflow.adapters import load_points

    _write(load_points("rocprof", workload_dir), output)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 1."""
    try:
        cli.main(args=argv, prog_name="rooflow", standalone_mode=False)
    except InputError as err:
        click.echo(f"rooflow: error: {err}", err=True)
        sys.exit(1)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.ClickException as err:
        click.echo(f"rooflow: error: {err.format_message()}", err=True)
        sys.exit(1)
    except click.Abort:
        click.echo("rooflow: aborted", err=True)
        sys.exit(1)
