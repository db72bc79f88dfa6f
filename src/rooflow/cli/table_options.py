"""The options of the commands that write tables: kernel selection and ``--format``.

Each reaches the command as a value of the domain (a :class:`rooflow.selection.Selection`;
the table format of :func:`rooflow.export.requested_format`).
"""

from __future__ import annotations

import functools

import click

from rooflow.errors import InputError
from rooflow.export import FORMATS, READABLE, requested_format
from rooflow.selection import Selection

NOT_TABLE = (".png", ".svg", ".svgz", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff",
             ".webp", ".gif", ".html", ".htm")
"""Suffixes of pictures and pages: a table written under one is text that opens as neither."""


def table_path(ctx: click.Context, param: click.Parameter, value):
    """Callback of a table's path option (``-o``, ``--table``): the path, checked.

    Raises:
        click.UsageError: its name is a picture's or a page's (:data:`NOT_TABLE`):
            ``rooflow project … -o p.png`` wrote a CSV named p.png. A usage error (exit
            2), not click's ``BadParameter``, which a path option's means a file refused
            (bad input, exit 1: :func:`rooflow.cli.commands.run`).
    """
    if value is not None and value.suffix.lower() in NOT_TABLE:
        raise click.UsageError(
            f"Invalid value for {param.get_error_hint(ctx)}: '{value.name}': a table is "
            f"written here, not a {value.suffix} (CSV; JSON for .json; Parquet for .parquet "
            "where the command writes points): name it .csv or .json", ctx=ctx)
    return value


def table_options(*, top: bool = True, readable: bool = False):
    """Click decorator for the commands that write tables (plot, table, compare, convert).

    The selection options (:func:`selection_options`, ``--top`` where a preset ranks
    kernels) and ``--format`` (:func:`format_option`; with ``md`` where ``readable``).
    """

    def decorate(command):
        return format_option(selection_options(top=top)(command), readable=readable)

    return decorate


def selection_options(*, top: bool = True):
    """Click decorator adding the selection options to a command.

    ``--kernel``, ``--exclude``, ``--level``, ``--precision`` (and ``--top`` where a preset
    ranks kernels) reach the command as one ``selection`` argument (a :class:`Selection`).
    """
    options = [
        click.option("--kernel", "sel_kernel", multiple=True, metavar="REGEX",
                     help="Keep only kernels whose name, label or family this regular "
                          "expression matches (searched, case-insensitive; repeatable: any)."),
        click.option("--exclude", "sel_exclude", multiple=True, metavar="REGEX",
                     help="Drop kernels this regular expression matches (repeatable)."),
        click.option("--level", "sel_level", multiple=True, metavar="LEVEL",
                     help="Keep only these memory levels (DRAM, L2, ...; repeatable)."),
        click.option("--precision", "sel_precision", multiple=True, metavar="PRECISION",
                     help="Keep only these precisions (fp32, fp16-tensor, ...; 'none': "
                          "bandwidth-only rows; repeatable)."),
    ]
    if top:
        options.append(click.option(
            "--top", "sel_top", type=click.IntRange(1), default=None, metavar="N",
            help="Keep only the N kernels with the most potential time saved on the preset "
                 "(after the filters)."))

    def decorate(command):
        @functools.wraps(command)
        def wrapper(*args, sel_kernel=(), sel_exclude=(), sel_level=(), sel_precision=(),
                    sel_top=None, **kwargs):
            try:
                selection = Selection(kernel=tuple(sel_kernel), exclude=tuple(sel_exclude),
                                      level=tuple(sel_level), precision=tuple(sel_precision),
                                      top=sel_top)
            except InputError as err:  # an option's value, not a file: a usage error
                raise click.UsageError(err.message) from None
            return command(*args, selection=selection, **kwargs)

        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper

    return decorate


def format_option(command, readable: bool = False):
    """Click decorator: ``--format csv|json`` for the command's tables (default: suffix).

    ``readable``: also ``md`` (:func:`to_markdown`).
    """
    @functools.wraps(command)
    def wrapper(*args, table_format=None, **kwargs):
        with requested_format(table_format):
            return command(*args, **kwargs)

    return click.option(
        "--format", "table_format",
        type=click.Choice((*FORMATS, READABLE) if readable else FORMATS), default=None,
        help="Table output format (default: json for a .json output, else csv"
             + ("; md, ranked in human units, on a terminal" if readable else "")
             + "; docs/cli.md#json-output).")(wrapper)
