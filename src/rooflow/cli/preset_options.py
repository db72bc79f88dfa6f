"""The command line's preset options and the preset they choose (:func:`command_preset`).

--preset, --peak-tflops, --peak-bandwidth, --preset-file and --roofs-at. ``--hardware``
and ``--hardware-file`` stay accepted, left out of ``--help`` (:class:`AliasedOption`): the
original Xe-Forge ``roofline.py`` names the preset ``--hardware``.
"""

from __future__ import annotations

from pathlib import Path

import click

from rooflow.defaults import DEFAULT_HARDWARE, config_defaults

_CONFIG = config_defaults()
_positive = click.FloatRange(min=0, min_open=True)


class AliasedOption(click.Option):
    """An option whose later names are accepted but left out of ``--help``.

    The first name is the documented one; a later one is an older spelling, kept so that
    scripts written for it keep working.
    """

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        """The help line of the option's first name only."""
        names = self.opts
        self.opts = names[:1]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = names


preset_file_option = click.option(
    "--preset-file", "--hardware-file", "preset_file", cls=AliasedOption,
    type=click.Path(path_type=Path), default=DEFAULT_HARDWARE, show_default=True,
    help="Presets YAML (as config/hardware.yaml), or a measured-peaks file (docs/cli.md).",
)

def command_preset(preset_key, peak_tflops, peak_bandwidth, preset_file, files=(), kind=None):
    """The preset to draw ``files`` on, its roofs taken as ``--roofs-at`` says.

    :func:`rooflow.cli.inputs.select_preset` chooses it (a preset named, or the one of the
    inputs' GPU); its notes go to stderr.
    """
    from rooflow.cli.inputs import select_preset

    preset = select_preset(preset_key, peak_tflops, peak_bandwidth, preset_file, files, kind,
                           log=lambda message: click.echo(message, err=True))
    ctx = click.get_current_context(silent=True)
    roofs_at = ctx.meta.get(_ROOFS_AT, _CONFIG["roofs_at"]) if ctx else _CONFIG["roofs_at"]
    return preset.with_roofs_at(roofs_at)


_ROOFS_AT = "rooflow.roofs_at"
"""``click`` context key of ``--roofs-at``: every command that takes a preset reads it
where the preset is chosen (:func:`command_preset`), not as one more parameter each."""


def _keep_roofs_at(ctx: click.Context, _param, value: str) -> str:
    ctx.meta[_ROOFS_AT] = value
    return value


def preset_options(command):
    """--preset / --peak-tflops / --peak-bandwidth / --preset-file / --roofs-at."""
    for option in reversed([
        click.option("--preset", "--hardware", "preset_key", cls=AliasedOption,
                     help="Preset: the roofs to draw on (see `rooflow presets`)."),
        click.option("--peak-tflops", type=_positive, help="Peak compute, TFLOP/s."),
        click.option("--peak-bandwidth", type=_positive, help="Peak DRAM/HBM bandwidth, GB/s."),
        preset_file_option,
        click.option("--roofs-at", type=click.Choice(["clock", "datasheet"]),
                     default=_CONFIG["roofs_at"], show_default=True, expose_value=False,
                     callback=_keep_roofs_at, is_eager=True,
                     help="Compute roofs at the SM clock each kernel ran at (where the "
                          "input records it and the preset gives its clocks; DRAM and L2 "
                          "roofs at their clocks alike), or at the preset's datasheet "
                          "clock."),
    ]):
        command = option(command)
    return command
