"""Click pieces the CLI (:mod:`rooflow.cli.main`) composes, kept here to keep it small.

- :func:`check_command`: ``rooflow check``, the CI performance gate (:mod:`rooflow.check`),
  added to the command group by :class:`Group` when first asked for.
- :class:`CheckedCommand` and :func:`run`: a command's files checked before it runs, its
  outputs written all or none, its failure one line alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click

from rooflow.cli.table_options import table_options, table_path
from rooflow.errors import InputError


class Group(click.Group):
    """The ``rooflow`` command group: the commands of :mod:`rooflow.cli.main`, and ``check``.

    ``check`` is built on first use from the CLI's own preset and kind options and input
    loaders, so it reads inputs and presets exactly as ``compare`` does.
    """

    lazy: dict[str, Callable[[], click.Command]] = {}
    """Command name → a function that builds it (``check``, ``model-check``): set by
    :mod:`rooflow.cli.main`, which owns the options and loaders they are built from."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, ``check`` included."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``; ``check`` is built and added on first use."""
        if cmd_name in self.lazy and cmd_name not in self.commands:
            self.add_command(self.lazy[cmd_name](), cmd_name)
        return super().get_command(ctx, cmd_name)


def _bad_input(message: str) -> NoReturn:
    """Exit 2 with the one error line: to a gate, exit 1 means "regressed".

    The line is terminal-safe (:func:`rooflow.escape.terminal_text`): it may quote a name.
    """
    from rooflow.escape import terminal_text

    click.echo(f"rooflow: error: {terminal_text(message)}", err=True)
    sys.exit(2)


class _Gate(click.Command):
    """A command whose usage errors and bad inputs exit 2 (exit 1 is its verdict)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            _bad_input(err.format_message())

    def invoke(self, ctx: click.Context):
        """Check its files as every command's (:func:`check_files`), then run it.

        A file refused, or an option value refused in it (``--kernel '('``), exits 2.
        """
        try:
            check_files(ctx)
        except InputError as err:
            _bad_input(str(err))
        try:
            return super().invoke(ctx)
        except click.ClickException as err:  # a usage error, a file click cannot open
            _bad_input(err.format_message())
        except InputError as err:  # bad input found while it runs: trouble, not a verdict
            _bad_input(str(err))


def check_command(preset_options, kind_option, load_files, select_preset) -> click.Command:
    """``rooflow check``, built with the CLI's preset options and loaders.

    So its --preset and --preset-file behave as every other command's.
    """

    def fraction(option: str, value: str | None) -> float:
        from rooflow.check import parse_fraction

        try:
            return parse_fraction(value or "0")
        except ValueError:
            _bad_input(f"{option} '{value}' is not a percentage (5%) or a fraction (0.05)")

    @click.command("check", cls=_Gate)
    @click.argument("baseline", type=click.Path(path_type=Path))
    @click.argument("new", type=click.Path(path_type=Path))
    @kind_option
    @preset_options
    @click.option("--max-slowdown", default="5%", show_default=True,
                  help="The floor of the tolerance: slowdown per call (or drop in % of "
                       "roof) always allowed, e.g. 5% or 0.05.")
    @click.option("--allow", "overrides", multiple=True, metavar="REGEX=TOLERANCE",
                  help="Per-kernel floor instead of --max-slowdown for kernels the "
                       "regular expression matches, e.g. 'allreduce=15%' (repeatable; the "
                       "first match wins).")
    @click.option("--confidence", default="99.9%", show_default=True,
                  help="One-sided level of the noise bound: a slowdown within the "
                       "standard error of the medians times this Student-t quantile passes.")
    @click.option("--allow-unjudged", is_flag=True,
                  help="Exit 0, not 2, when no kernel can be judged (no kernel in common, "
                       "no times).")
    @click.option("--normalize-names", is_flag=True,
                  help="Match kernels without template arguments and parameter lists.")
    @click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also write a Markdown summary (a CI job page) here.")
    @click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also write JUnit XML (one test case per kernel) here.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                  callback=table_path,
                  help="Also write the per-kernel table here (CSV; .json: JSON).")
    @table_options()
    def check(baseline, new, kind, preset_key, peak_tflops, peak_bandwidth, preset_file,
              max_slowdown, overrides, confidence, allow_unjudged, normalize_names,
              markdown_path, junit_path, output, selection) -> None:
        """CI gate: exit 1 when a kernel regressed from BASELINE to NEW, else 0.

        A kernel regresses when its time per call (the median over its calls) grew by
        more than --max-slowdown or its noise. Prints one line per regressed kernel;
        nothing judged, bad input or options exit 2 (docs/cli.md#performance-gate).
        With --per-launch, calls are matched one to one by kernel and order.
        """
        from rooflow.analysis import analyze
        from rooflow.check import (
            check_runs,
            junit,
            markdown,
            parse_confidence,
            parse_override,
            write,
        )
        from rooflow.cli.adapter_options import read_per_launch
        from rooflow.escape import terminal_text
        from rooflow.export import write_table

        try:
            allow = dict(parse_override(o) for o in overrides)
        except ValueError as err:
            _bad_input(f"--allow: {err}")
        try:
            level = parse_confidence(confidence)
        except ValueError as err:
            _bad_input(f"--confidence {err}")
        pair_calls = read_per_launch()  # every call is read; --per-launch pairs them
        try:
            preset = select_preset(preset_key, peak_tflops, peak_bandwidth, preset_file,
                                   (baseline, new), kind)
            runs = selection.runs([load_files((f,), kind) for f in (baseline, new)], preset)
        except InputError as err:
            _bad_input(str(err))
        result = check_runs(*(analyze(r, preset) for r in runs),
                            max_slowdown=fraction("--max-slowdown", max_slowdown),
                            confidence=level, normalize=normalize_names,
                            pair_calls=pair_calls, overrides=allow)
        why = result.unjudged()
        if why is not None and not allow_unjudged:
            _bad_input(f"{why} (--allow-unjudged to pass)")
        title = (f"rooflow check: {terminal_text(baseline.name)} -> "
                 f"{terminal_text(new.name)} on {preset.key}")
        for path, text in ((markdown_path, markdown(result, title)),
                           (junit_path, junit(result, "rooflow.check"))):
            if path is not None:
                write(text, path)
        if output is not None:
            write_table(result.table, output)
        for line in result.lines():
            click.echo(line)
        click.echo(terminal_text(result.summary() if why is None else
                                 f"{why}; passed with --allow-unjudged"), err=True)
        if result.count("regressed"):
            sys.exit(1)

    return check


def model_check_command(preset_options, kind_option, load_files, select_preset) -> click.Command:
    """``rooflow model-check``: measured kernels against their model points.

    Built with the CLI's preset options and loaders (:mod:`rooflow.model_vs_measured`).
    """

    @click.command("model-check", cls=CheckedCommand)  # files checked, outputs all or none
    @click.argument("measured", nargs=-1, required=True, type=click.Path(path_type=Path))
    @click.option("--model", "model_path", required=True, type=click.Path(path_type=Path),
                  help="The model points: a spec YAML, a benchmark CSV or a roofline CSV "
                       "with flop and bytes (kind detected).")
    @click.option("--map", "maps", multiple=True, required=True, metavar="REGEX=MODEL",
                  help="Measured kernels the regular expression finds -> the model point "
                       "named MODEL (its kernel, label or pair, or a part of one); "
                       "repeatable, the first match wins.")
    @kind_option
    @preset_options
    @click.option("-t", "--title", default=None)
    @click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                  help="The plot (png, svg, pdf): model hollow, measured filled, arrows.")
    @click.option("--table", type=click.Path(dir_okay=False, path_type=Path),
                  callback=table_path,
                  help="The table, CSV or .json (default: stdout when no -o).")
    def model_check(measured, model_path, maps, kind, preset_key, peak_tflops, peak_bandwidth,
                    preset_file, title, output, table) -> None:
        """Model vs measurement: FLOP ratio, excess traffic per level, both intensities.

        Each kernel of MEASURED (any profiler kind) that a --map pattern finds is set
        against its model point (docs/cli.md#model-vs-measurement).
        """
        from rooflow.export import write_table
        from rooflow.model_vs_measured import parse_mapping, reconcile, summary

        try:
            mappings = [parse_mapping(m) for m in maps]
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--map") from None
        if output is not None and output.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise click.BadParameter(f"unsupported image format '{output.suffix}' (png, svg, "
                                     "pdf)", param_hint="-o")
        from rooflow.cli.adapter_options import read_per_launch

        read_per_launch()  # every call read: the model counts one (reconcile divides)
        preset = select_preset(preset_key, peak_tflops, peak_bandwidth, preset_file, measured,
                               kind)
        result = reconcile(load_files(measured, kind), load_files((model_path,), None),
                           mappings, preset)
        if output is not None:
            from rooflow.plotting.model_vs_measured import plot_model_vs_measured

            plot_model_vs_measured(result, preset, output, title=title or
                                   f"Model vs measurement on {preset.name}")
            click.echo(f"wrote {output}", err=True)
        if table is not None or output is None:
            write_table(result, table)
        if table is not None:
            click.echo(f"wrote {table} ({result.height} rows)", err=True)
        click.echo(summary(result), err=True)

    return model_check


OUTPUTS = ("output", "table", "html_page", "preset_out", "markdown_path", "junit_path",
           "plot_path")
"""The parameters naming files a command writes; every other path parameter is an input."""


def check_files(ctx: click.Context) -> None:
    """Refuse a command's files before it runs: the checks of :class:`CheckedCommand`.

    Raises:
        InputError: an input that is not a regular file (a FIFO, a device), or an output
            (:data:`OUTPUTS`) that is an input, a folder or another output.
    """
    from rooflow.io import check_outputs
    from rooflow.safeload import check_file

    inputs = [p for name, value in ctx.params.items() if name not in OUTPUTS
              for p in (value if isinstance(value, tuple | list) else (value,))
              if isinstance(p, Path)]
    for path in inputs:
        if os.path.lexists(path) and not path.is_dir():
            check_file(path)
    check_outputs([ctx.params.get(name) for name in OUTPUTS], inputs)


class CheckedCommand(click.Command):
    """A command whose files are checked before it runs (one line, exit 1, nothing written).

    Inputs that are not regular files (a FIFO, a device) are refused before any is
    opened (:func:`rooflow.safeload.check_file`); an output that is an input, a folder, or
    another output is refused (:func:`rooflow.io.check_outputs`). Its outputs are written
    all or none: :func:`run` runs it inside :func:`rooflow.io.all_or_none`.
    """

    def invoke(self, ctx: click.Context):
        """Check the command's files (:func:`check_files`), then run it."""
        check_files(ctx)
        return super().invoke(ctx)


def _file_refused(err: click.UsageError) -> bool:
    """Whether click refused a file given to a path parameter (not readable, a folder).

    That is bad input (exit 1); a missing or malformed parameter is a usage error (2).
    """
    param = getattr(err, "param", None)
    return (isinstance(err, click.BadParameter) and not isinstance(err, click.MissingParameter)
            and param is not None and isinstance(param.type, click.Path))


def run(group: click.Group, argv: list[str] | None) -> None:
    """Run ``group``'s command: on failure one line on stderr, its exit code, no file written.

    The command's outputs are written all or none (:func:`rooflow.io.all_or_none`), and
    what it said on the way (read as, warnings, wrote) is held until it succeeds, so a
    failure is its one line alone. The exit codes are docs/cli.md's table: bad input 1;
    a usage error (an unknown option, an option value refused, a missing argument) 2,
    as click exits; anything unexpected 2, its traceback in a log file the line names; a
    command's own exit (``check``: 1 when a kernel regressed) keeps its files and words.
    A write the system refused (disk full, read-only) is one line naming the output and
    the OS's reason, exit 1, no file written; control characters (from kernel names) are
    escaped in everything printed.
    """
    import contextlib
    import io

    from rooflow.errors import terminal_line
    from rooflow.escape import terminal_lines
    from rooflow.io import all_or_none

    held = io.StringIO()
    code, line = 0, None
    try:
        with contextlib.redirect_stderr(held), all_or_none(()):
            try:
                group.main(args=argv, prog_name="rooflow", standalone_mode=False)
            except SystemExit as err:  # the command's own verdict: its files stand
                code = err.code if isinstance(err.code, int) else 1
    except InputError as err:
        code, line = 1, f"rooflow: error: {err}"
    except click.exceptions.Exit as err:
        code = err.exit_code
    except click.UsageError as err:  # click's convention: 2, as Unix tools exit on bad usage
        code, line = 1 if _file_refused(err) else 2, f"rooflow: error: {err.format_message()}"
    except click.ClickException as err:
        code, line = 1, f"rooflow: error: {err.format_message()}"
    except (click.Abort, KeyboardInterrupt):  # click turns Ctrl-C into Abort
        code, line = 130, "rooflow: interrupted (nothing written)"
    except Exception as err:  # noqa: BLE001 - the one place that turns bugs into one line
        from rooflow.errors import internal_error_line

        code, line = 2, internal_error_line(err)
    if line is None:  # kernel names in the notes: no control character reaches the terminal
        sys.stderr.write(terminal_lines(held.getvalue()))
    else:
        click.echo(terminal_line(line), err=True)
    if code:
        sys.exit(code)
