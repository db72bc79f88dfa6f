"""``rooflow project`` and ``rooflow history``: one workload on many presets, many runs on one.

Built, like ``check`` (:mod:`rooflow.cli.commands`), from the CLI's own kind option and input
loader, and added to the command group on first use. The logic is in
:mod:`rooflow.project` and :mod:`rooflow.history`.
"""

from __future__ import annotations

from pathlib import Path

import click

from rooflow.cli.commands import CheckedCommand
from rooflow.cli.preset_options import AliasedOption, preset_file_option
from rooflow.cli.table_options import table_path


def _presets(preset_key: str, preset_file: Path):
    """The presets of ``--preset A,B,C`` (order kept), datasheet roofs."""
    from rooflow.roofs import read_presets
    from rooflow.roofs.preset import select_preset

    keys = [k.strip() for k in preset_key.split(",") if k.strip()]
    if not keys:
        raise click.BadParameter("give one or more preset names, A,B,C", param_hint="--preset")
    presets = read_presets(preset_file)
    return [select_preset(presets, k) for k in dict.fromkeys(keys)], presets


def project_command(kind_option, load_files) -> click.Command:
    """``rooflow project FILE... --preset A,B,C`` (:mod:`rooflow.project`)."""

    @click.command("project", cls=CheckedCommand)  # files checked, outputs all or none
    @click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
    @kind_option
    @click.option("--preset", "--hardware", "preset_key", required=True, metavar="A,B,C",
                  cls=AliasedOption,
                  help="Presets to project on, comma-separated (see `rooflow presets`).")
    @preset_file_option
    @click.option("--measured-on", metavar="PRESET", default=None,
                  help="The preset of the GPU the times were measured on (default: the "
                       "first of --preset).")
    @click.option("--per-kernel", is_flag=True,
                  help="The table has one row per kernel and preset, not per preset.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                  callback=table_path, help="The table, CSV or .json (default: stdout).")
    @click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also draw the workload on each preset, in a grid (png, svg, pdf).")
    @click.option("--html", "html_page", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also write an interactive page of the projection here.")
    def project(files, kind, preset_key, preset_file, measured_on, per_kernel, output,
                plot_path, html_page) -> None:
        """Project a measured workload onto other GPUs: roofline and projected times.

        Per kernel and preset: max(FLOP / compute roof, bytes / memory roof per level,
        launches × launch overhead), and the time at the kernel's measured % of roof
        (docs/cli.md#projecting-a-workload-onto-other-gpus).
        """
        from rooflow.export import write_table
        from rooflow.project import project as run_projection
        from rooflow.roofs.preset import select_preset

        chosen, known = _presets(preset_key, preset_file)
        home = select_preset(known, measured_on) if measured_on else chosen[0]
        result = run_projection(load_files(files, kind), chosen, home)
        write_table(result.kernels if per_kernel else result.totals, output or "-")
        if plot_path is not None:
            from rooflow.plotting.project import plot_projection

            plot_projection(result, {p.key: p for p in chosen}, plot_path)
        if html_page is not None:
            from rooflow.html.project import projection_page

            projection_page(result, {p.key: p for p in chosen}, html_page)
        click.echo(result.summary(), err=True)
        written = [str(p) for p in (output, plot_path, html_page) if p]
        if written:
            click.echo("wrote " + ", ".join(written), err=True)

    return project


def history_command(preset_options, kind_option, load_files, select_preset) -> click.Command:
    """``rooflow history RUN... --preset H`` (:mod:`rooflow.history`)."""

    @click.command("history", cls=CheckedCommand)
    @click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
    @kind_option
    @preset_options
    @click.option("--label", "labels", default=None, metavar="A,B,C",
                  help="The runs' names, comma-separated, in order (default: file names).")
    @click.option("--max-slowdown", default="5%", show_default=True,
                  help="check's floor: slowdown per call always allowed (5% or 0.05).")
    @click.option("--confidence", default="99.9%", show_default=True,
                  help="check's one-sided level of the noise bound.")
    @click.option("--normalize-names", is_flag=True,
                  help="Match kernels without template arguments and parameter lists.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                  callback=table_path, help="The table, CSV or .json (default: stdout).")
    @click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also draw the trend (png, svg, pdf).")
    @click.option("--html", "html_page", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also write an interactive trend page here.")
    def history(runs, kind, preset_key, peak_tflops, peak_bandwidth, preset_file, labels,
                max_slowdown, confidence, normalize_names, output, plot_path,
                html_page) -> None:
        """Each kernel across runs in order: time per call, % of roof, regressions.

        Each step is judged as `rooflow check` judges two runs
        (docs/cli.md#history-across-runs).
        """
        from rooflow.analysis import analyze
        from rooflow.check import parse_confidence, parse_fraction
        from rooflow.cli.adapter_options import read_per_launch
        from rooflow.export import write_table
        from rooflow.history import history as run_history
        from rooflow.history import summary

        names = ([s.strip() for s in labels.split(",")] if labels is not None
                 else [r.name for r in runs])
        if len(names) != len(runs):
            raise click.BadParameter(f"{len(names)} labels for {len(runs)} runs",
                                     param_hint="--label")
        try:
            floor = parse_fraction(max_slowdown)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--max-slowdown") from None
        try:
            level = parse_confidence(confidence)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--confidence") from None
        read_per_launch()  # every call is read: the noise model needs them
        preset = select_preset(preset_key, peak_tflops, peak_bandwidth, preset_file)
        tables = [analyze(load_files((r,), kind), preset) for r in runs]
        table = run_history(tables, names, max_slowdown=floor, confidence=level,
                            normalize=normalize_names)
        write_table(table, output or "-")
        if plot_path is not None:
            from rooflow.plotting.history import plot_history

            plot_history(table, plot_path, title=f"History on {preset.key}")
        if html_page is not None:
            from rooflow.html.history import history_page

            history_page(table, html_page, title=f"History on {preset.key}")
        click.echo(summary(table), err=True)

    return history

