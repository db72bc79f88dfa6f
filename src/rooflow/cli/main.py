"""The ``rooflow`` command line: the workflow's steps, one file at a time.

A user error prints one line on stderr (``rooflow: error: ...``), exits 1, shows no
traceback and leaves no output file.
"""

from __future__ import annotations

import copy
from pathlib import Path

import click

from rooflow.cli.adapter_options import adapter_options, tensor_option
from rooflow.cli.adapter_options import settings as _settings
from rooflow.cli.commands import (
    CheckedCommand,
    Group,
    check_command,
    model_check_command,
    run,
)
from rooflow.cli.preset_options import command_preset, preset_file_option, preset_options
from rooflow.cli.table_options import table_options, table_path
from rooflow.defaults import DEFAULT_FAMILIES, config_defaults, plot_defaults
from rooflow.errors import InputError
from rooflow.kinds import KINDS

_PLOT = plot_defaults()
_CONFIG = config_defaults()


def _warn(message: str) -> None:
    """One note on stderr, on one line: a kernel name's newline or ESC is escaped."""
    from rooflow.escape import terminal_text

    click.echo(terminal_text(message), err=True)


def _load_presets(path: Path):
    from rooflow.roofs import read_presets

    return read_presets(path)




@click.group(context_settings={"help_option_names": ["-h", "--help"]}, cls=Group)
@click.version_option(package_name="rooflow")
def cli() -> None:
    """Roofline analysis of GPU kernel measurements."""


cli.command_class = CheckedCommand  # inputs and outputs checked before a command runs
cli.lazy = {  # built on first use, from the same options and loaders as compare
    "check": lambda: check_command(preset_options, kind_option, _load_files, command_preset),
    "model-check": lambda: model_check_command(preset_options, kind_option, _load_files,
                                               command_preset),
    "project": lambda: _workload("project_command")(kind_option, _load_files),
    "history": lambda: _workload("history_command")(preset_options, kind_option,
                                                    _load_files, command_preset),
}


def _workload(name: str):
    """A command builder of :mod:`rooflow.cli.workload_commands`, imported when first used."""
    from rooflow.cli import workload_commands

    return getattr(workload_commands, name)


files_argument = click.argument("files", nargs=-1, required=True,
                                type=click.Path(path_type=Path))
def axis_options(command):
    """``--xlim``, ``--ylim``: fixed axes (``plot``, ``compare``)."""
    command = click.option("--ylim", callback=_limits, metavar="LO,HI", help="Fixed y axis, "
                           "FLOP/s: 1e12 is 1 TFLOP/s (default: fitted).")(command)
    return click.option("--xlim", callback=_limits, metavar="LO,HI", help="Fixed x axis, "
                        "FLOP/byte (default: fitted to the data and its ridges).")(command)


def kind_option(command):
    """``--kind``, and the adapters' settings (:mod:`rooflow.cli.adapter_options`)."""
    return click.option("--kind", type=click.Choice(list(KINDS)), default=None, help="Input "
                        "kind, instead of detecting it from the content (see README).")(
                            adapter_options(command))


def _load_files(files: tuple[Path, ...], kind: str | None, log=None):
    """Canonical points of every input among ``files`` (:func:`rooflow.cli.inputs.datasets`)."""
    from rooflow.adapters import load_points
    from rooflow.cli.inputs import datasets
    from rooflow.points import concat_tables

    frames = []
    for items, this in datasets(files, kind):
        frames.append(load_points(this, items if len(items) > 1 else items[0], _settings()))
        if log is not None:
            log(f"{', '.join(map(str, items))}: read as {this}")
    return concat_tables(frames)


def _image_format(output: Path) -> str:
    """The image format of ``-o`` (its suffix; png when it has none), or a usage error."""
    fmt = output.suffix.lstrip(".").lower() or "png"
    if fmt not in ("png", "svg", "pdf"):
        raise click.BadParameter(f"unsupported image format '.{fmt}' (png, svg, pdf)",
                                 param_hint="-o")
    return fmt




def _limits(_ctx, _param, value: str | None) -> tuple[float, float] | None:
    """``LO,HI`` as two positive numbers, LO < HI; None when not given."""
    if value is None:
        return None
    try:
        lo, hi = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r}: give LO,HI, two numbers") from None
    if not 0 < lo < hi < float("inf"):
        raise click.BadParameter(f"{value!r}: needs 0 < LO < HI")
    return lo, hi


def _dataset_name(files) -> str:
    """The files plotted, for a title: the first name, and how many more."""
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    return f"{files[0].name}{more}"


@cli.command()
@files_argument
@kind_option
@preset_options
@click.option("--connect", is_flag=True, help="Arrow Original → Optimized per pair.")
@click.option("--annotate/--no-annotate", default=None,
              help="Label points (de-overlapped); default: when there are at most 20.")
@click.option("--key", is_flag=True, help="Numbered side key.")
@click.option("--series-order", default="", help="Comma-separated series order: a,b.")
@click.option("--dpi", type=click.IntRange(20, 1200), default=_PLOT["dpi"], show_default=True)
@click.option("--top-n", type=click.IntRange(1), default=_PLOT["top_n"], show_default=True,
              help="Labels/key entries shown and groups (kernels) coloured: those that matter "
                   "most (potential time saved, then headroom); the rest are counted (grey).")
@click.option("--density/--no-density", default=None,
              help=f"Draw points as a density image; default: above "
                   f"{_PLOT['density_threshold']:,} points.")
@click.option("--trajectory", metavar="DIM", help="Join each kernel family's points that "
              "differ only in DIM (M, MKV, ...) in its order, ends labelled with its values.")
@axis_options
@click.option("-t", "--title", default=None)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Output image (.png, .svg or .pdf; default: ./FIRST-FILE-STEM.png).")
@click.option("--table", type=click.Path(dir_okay=False, path_type=Path), callback=table_path,
              help="Also write the analysis table here (CSV; .json: JSON).")
@click.option("--html", "html_page", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write an interactive page (one offline HTML file) here.")
@table_options()
def plot(files, kind, preset_key, peak_tflops, peak_bandwidth, preset_file, connect, annotate,
         key, series_order, dpi, top_n, density, trajectory, xlim, ylim, title, output, table,
         html_page, selection):
    """Plot any input rooflow reads (kind detected from the content) on a preset."""
    from rooflow.errors import LeftOut
    from rooflow.pipeline import report

    output = output or Path(files[0].stem + ".png")
    fmt = _image_format(output)
    preset = command_preset(preset_key, peak_tflops, peak_bandwidth, preset_file, files, kind)
    with LeftOut() as left_out:  # what the readers left out is said on the plot too
        points = selection(_load_files(files, kind, _warn), preset)
    from rooflow.plotting import PlotOptions

    options = PlotOptions(
        left_out=left_out.lines(),
        connect=connect, annotate=annotate, key=key,
        series_order=[s.strip() for s in series_order.split(",") if s.strip()],
        dpi=dpi, formats=(fmt,), top_n=top_n, density=density,
        trajectory=trajectory, xlim=xlim, ylim=ylim,
        # The dataset and the preset, as Nsight Compute and Advisor name their charts.
        title=title or f"{_dataset_name(files)} on {preset.name}",
    )
    analysed = report(points, preset, table_path=table, plot_path=output, options=options,
                      log=_warn, full_table=html_page is not None)
    click.echo(f"wrote {output}", err=True)
    if html_page:
        from rooflow.html.page import roofline_page

        roofline_page(analysed, preset, html_page, title=options.title or "", top_n=top_n,
                      series_order=options.series_order, trajectory=trajectory,
                      left_out=options.left_out)
        click.echo(f"wrote {html_page}", err=True)


@cli.command()
@click.argument("baseline", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@kind_option
@preset_options
@click.option("--normalize-names", is_flag=True,
              help="Match kernels without template arguments and parameter lists.")
@axis_options
@click.option("-t", "--title", default=None)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Comparison plot (.png, .svg, .pdf; default: ./BASELINE-vs-NEW.png).")
@click.option("--table", type=click.Path(dir_okay=False, path_type=Path), callback=table_path,
              help="Also write the per-kernel comparison here (CSV; .json: JSON).")
@click.option("--html", "html_page", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write an interactive comparison page here.")
@table_options()
def compare(baseline, new, kind, preset_key, peak_tflops, peak_bandwidth, preset_file,
            normalize_names, xlim, ylim, title, output, table, html_page, selection) -> None:
    """Compare two runs of the same kernels: arrows baseline → new, speedups, geomean."""
    from rooflow.analysis import analyze
    from rooflow.compare import compare_tables
    from rooflow.export import write_table
    from rooflow.plotting.compare import plot_comparison

    output = output or Path(f"{baseline.stem}-vs-{new.stem}.png")
    _image_format(output)
    preset = command_preset(preset_key, peak_tflops, peak_bandwidth, preset_file,
                           (baseline, new), kind)
    runs = selection.runs([_load_files((f,), kind, _warn) for f in (baseline, new)], preset)
    tables = [analyze(run, preset) for run in runs]
    comp = compare_tables(*tables, normalize=normalize_names)
    title = title or f"{baseline.name} → {new.name} on {preset.key}"
    plot_comparison(comp, preset, output, title=title, xlim=xlim, ylim=ylim)
    if table:
        write_table(comp.table, table)
    if html_page:
        from rooflow.html.compare import comparison_page

        comparison_page(comp, preset, html_page, title=title)
    click.echo(comp.summary(), err=True)
    click.echo("wrote " + ", ".join(str(p) for p in (output, table, html_page) if p), err=True)


@cli.command()
@files_argument
@kind_option
@preset_options
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              callback=table_path, help="Output table, CSV or .json (default: stdout).")
@table_options(readable=True)
def table(files, kind, preset_key, peak_tflops, peak_bandwidth, preset_file, output, selection):
    """Analysis table of any input rooflow reads (kind detected from the content).

    On a terminal (no -o, no --format) it is Markdown, ranked by potential time saved in
    human units; piped or written to a file, CSV with every column.
    """
    from rooflow.export import READABLE, asked_format, requested_format, stdout_is_terminal
    from rooflow.pipeline import report

    preset = command_preset(preset_key, peak_tflops, peak_bandwidth, preset_file, files, kind)
    points = selection(_load_files(files, kind, _warn), preset)
    on_terminal = output is None and asked_format() is None and stdout_is_terminal()
    with requested_format(READABLE if on_terminal else asked_format()):
        report(points, preset, table_path=output or "-", plot_path=None, log=_warn)


@cli.command("presets")
@click.argument("names", nargs=-1)
@preset_file_option
def presets_cmd(names, preset_file) -> None:
    """Print the presets (NAMES: those only): every roof with its source, the ridges.

    A ridge point per compute roof and memory roof: compute roof / memory roof, FLOP/byte
    (OP/byte for an integer roof).
    """
    from rooflow.points import op_unit

    presets = _load_presets(preset_file)
    unknown = [n for n in names if n not in presets]
    if unknown:
        raise click.UsageError(f"unknown preset {', '.join(unknown)}; known: "
                               f"{', '.join(presets)}")
    for p in (presets[n] for n in names) if names else presets.values():
        click.echo(f"{p.key}: {p.name}{' [measured]' if p.empirical else ''}; ridge point "
                   f"{p.ridge_point:.1f} FLOP/byte ({p.default_compute} / {p.default_memory})")
        click.echo(f"  source: {p.source}")
        # A roof cites its own source where it has one, else the preset's (above).
        rows = [(k, f"{v / 1e12:g} T{op_unit(k)}/s", p.sources.get(k, ""))
                for k, v in p.compute.items()]
        rows += [(k, f"{v / 1e9:g} GB/s", p.sources.get(k, "")) for k, v in p.memory.items()]
        width = max(len(r[0]) + len(r[1]) for r in rows) + 2
        for key, value, source in rows:
            click.echo(f"  {key}  {value.rjust(width - len(key))}  {source}".rstrip())
        for mkey, bw in p.memory.items():
            ridges = ", ".join(f"{c} {v / bw:,.3g}" for c, v in p.compute.items())
            click.echo(f"  ridge points on {mkey} (FLOP/byte): {ridges}")
        if p.no_cache_roofs:
            click.echo(f"  cache roofs: {p.no_cache_roofs}")
        if p.roof_clock_hz:
            base = f", base {p.base_clock_hz / 1e6:,.0f} MHz" if p.base_clock_hz else ""
            click.echo(f"  clocks: compute roofs at {p.roof_clock_hz / 1e6:,.0f} MHz{base}; "
                       f"{p.clock_source}")
        if p.launch_overhead_s:
            click.echo(f"  launch overhead: {p.launch_overhead_s * 1e6:g} µs; "
                       f"{p.launch_overhead_source}")
        click.echo("")


# `rooflow presets`, the first name of `presets`: still accepted, left out of --help.
cli.add_command(copy.copy(presets_cmd), "hardware")
cli.commands["hardware"].hidden = True


def _write(frame, output: Path | None) -> None:
    """Canonical points to ``output``: Parquet for a .parquet name (read back as points)."""
    if output is not None and output.suffix.lower() == ".parquet":
        from rooflow.io import write_parquet

        write_parquet(frame, output)
    else:
        from rooflow.export import write_table

        write_table(frame, output)
    if output is not None:
        click.echo(f"wrote {output} ({frame.height} rows)", err=True)


def _input_kind(files, kind: str | None) -> str:
    """``kind``, else the kind detected from each file's content (the files must agree)."""
    if kind is not None:
        return kind
    # A file of another tool among a folder's ncu passes is read (and skipped) with them.
    from rooflow.cli.inputs import datasets

    found = {str(f): k for items, k in datasets(files, None) for f in items}
    kind = found[str(files[0])]
    other = next((f for f, k in found.items() if k != kind), None)
    if other is not None:
        raise InputError(str(files[0]), f"read as {kind} but {other} as {found[other]}: "
                         "one input is of one kind; convert them one at a time, or force "
                         "one with --kind", check="kind detection")
    _warn(f"{', '.join(found)}: read as {kind}")
    return kind


def _one_input(files):
    """``load_points``' paths: the path itself when there is one, else the list."""
    return files[0] if len(files) == 1 else list(files)


output_option = click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), callback=table_path,
    help="Output CSV; JSON for a .json name, Parquet for .parquet (default: stdout CSV).",
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


@cli.command()
@files_argument
@kind_option
@output_option
@table_options(top=False)
def convert(files, kind, output, selection) -> None:
    """Any input rooflow reads → canonical points CSV (one row per kernel × memory level).

    FILES are one input: a file or folder, or several files of one run (ncu passes,
    merged per kernel and launch; unitrace FLOP report then bytes report). Files of the
    other kinds are read one by one and their points written together. The kind is
    detected from the content unless --kind is given; settings are the defaults (the
    from-* commands take each kind's options).
    """
    from rooflow.adapters import load_points

    _write(selection(load_points(_input_kind(files, kind), _one_input(files), _settings())),
           output)


@cli.command("from-benchmark")
@click.argument("csv", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@click.option("--min-tflops", type=float, help="Drop pairs whose Optimized TFLOP/s is below T.")
@click.option("--min-ai", type=float, help="Drop pairs whose arithmetic intensity is below A.")
@click.option("--specs", "specs_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of kernel spec YAMLs (default: found beside the "
              "CSV or through its workflow's config, else resources/specs).")
@families_option
@family_map_option
def from_benchmark(csv, output, min_tflops, min_ai, specs_dir, families, family_map) -> None:
    """Benchmark results CSV → canonical points (`convert --kind benchmarks` + options)."""
    from rooflow.adapters import load_points
    from rooflow.settings import Settings

    settings = Settings(families=families, family_map=_parse_family_map(family_map),
                        specs_dir=specs_dir, min_tflops=min_tflops, min_ai=min_ai)
    _write(load_points("benchmarks", csv, settings), output)


@cli.command("from-spec")
@click.argument("yaml_file", metavar="YAML", type=click.Path(dir_okay=False, path_type=Path))
@output_option
@click.option("--variant-prefix", default=_CONFIG["variant_prefix"], show_default=True,
              help="Variants whose key starts with this become points.")
@families_option
@family_map_option
def from_spec(yaml_file, output, variant_prefix, families, family_map) -> None:
    """Kernel spec YAML → theoretical points (`convert --kind specs` + options)."""
    from rooflow.adapters import load_points
    from rooflow.settings import Settings

    settings = Settings(families=families, family_map=_parse_family_map(family_map),
                        variant_prefix=variant_prefix)
    _write(load_points("specs", yaml_file, settings), output)


@cli.command("from-ncu")
@click.argument("exports", metavar="CSV...", nargs=-1, required=True,
                type=click.Path(path_type=Path))
@output_option
@click.option("--per-launch", is_flag=True, help="One point per launch, not per kernel name.")
@click.option("--preset-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the export's theoretical peaks as a hardware.yaml preset.")
@tensor_option
def from_ncu(exports, output, per_launch, preset_out) -> None:
    """Nsight Compute export(s) → canonical points (`convert --kind ncu` + options).

    CSV exports or .ncu-rep reports; several (or a folder of CSVs) are passes of one run:
    metrics are merged per kernel and launch ID, the first file's value winning.
    """
    from rooflow.adapters import load_points

    points = load_points("ncu", _one_input(exports), _settings(per_launch=per_launch))
    if preset_out is not None:
        import yaml

        from rooflow.roofs.ncu import ncu_preset

        mapping = ncu_preset(exports)
        first = Path(exports[0])  # the workflow's NAME: a folder's name, a file's stem
        key = "ncu-" + (first.name if first.is_dir() else first.stem).replace(" ", "_")
        from rooflow.io import atomic_path

        with atomic_path(preset_out) as tmp:
            tmp.write_text(yaml.safe_dump({"presets": {key: mapping}}, sort_keys=False))
        click.echo(f"wrote {preset_out} (preset {key})", err=True)
    _write(points, output)


@cli.command("from-rocprof")
@click.argument("path", type=click.Path(path_type=Path))
@output_option
def from_rocprof(path, output) -> None:
    """AMD profiler export → canonical points (`convert`, AMD kinds only).

    PATH: a rocprof-compute/Omniperf workload folder (pmc_perf.csv) or database
    (rocprof_compute_*.db), a rocprofv3 *_counter_collection.csv or rocpd database
    (*_results.db), or a folder of rocprof v1 CSVs (results.csv + counter runs).
    """
    from rooflow.adapters import load_points
    from rooflow.adapters.amd.detect import detect

    _write(load_points(detect(path), path), output)


@cli.command("from-unitrace")
@click.argument("flops_report", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("bytes_report", required=False,
                type=click.Path(dir_okay=False, path_type=Path))
@output_option
def from_unitrace(flops_report, bytes_report, output) -> None:
    """Intel unitrace reports → canonical points (`convert --kind unitrace`).

    FLOPS_REPORT: `unitrace --group VectorEngine138 -q` run; BYTES_REPORT: `unitrace
    --group ComputeBasic -q` run of the same program (omit it only when FLOPS_REPORT holds
    both counter sets).
    """
    from rooflow.adapters import load_points

    # A list: the reports themselves, whatever their names (one path is a dataset folder).
    reports = [flops_report] + ([bytes_report] if bytes_report else [])
    _write(load_points("unitrace", reports), output)


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors → one line, exit 1; anything unexpected → one line, exit 2.

    An unexpected error's traceback goes to a log file named on the line, never to the
    terminal. A failed command writes no file and prints its one line alone
    (:func:`rooflow.cli.commands.run`).
    """
    run(cli, argv)
