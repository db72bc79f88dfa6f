"""Command-line options of the adapter settings (:class:`rooflow.settings.Settings`).

Every command that reads inputs (``plot``, ``table``, ``compare``, ``convert``, ``check``,
``from-ncu``) takes them through :data:`tensor_option`; the values are kept on the click
context, so the commands' signatures do not change, and :func:`settings` turns them into
the :class:`~rooflow.settings.Settings` the adapters read (None: the defaults).

``--tensor-flop-per-inst [CC=]FLOP`` (repeatable) is config ``ncu.tensor_flop_per_inst``:
FLOP per ``sm__inst_executed_pipe_tensor`` instruction, by compute capability or for every
one (``default``), for ncu exports without ``sm__ops_path_tensor_*`` counters.

``--per-launch`` (:func:`adapter_options` adds it next to it) is config ``ncu.per_launch``
and ``pytorch.per_launch``: one point per ncu kernel launch, per PyTorch operator call.

``--specs DIR`` is config ``specs_dir``: the kernel spec YAMLs of a benchmarks CSV (by
default found beside it, :func:`rooflow.adapters.benchmarks.find_specs`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

_KEY = "rooflow.tensor_flop_per_inst"
_LAUNCH = "rooflow.per_launch"
_SPECS = "rooflow.specs_dir"


class TensorFactor(click.ParamType):
    """``FLOP`` (any compute capability: config key ``default``) or ``CC=FLOP``."""

    name = "[CC=]FLOP"

    def convert(self, value: Any, param: Any, ctx: Any) -> tuple[str, float]:
        """``(CC or "default", FLOP)``; a usage error unless FLOP is a finite number > 0."""
        if isinstance(value, tuple):
            return value
        cc, _, flop = str(value).rpartition("=")
        try:
            factor = float(flop)
        except ValueError:
            factor = 0.0
        if not 0 < factor < float("inf"):
            self.fail(f"'{value}' is not FLOP > 0 or CC=FLOP (8.0=4096)", param, ctx)
        return (cc.strip() or "default", factor)


tensor_option = click.option(
    "--tensor-flop-per-inst", type=TensorFactor(), multiple=True, expose_value=False,
    callback=lambda ctx, _, values: ctx.meta.update({_KEY: dict(values)}),
    help="ncu: FLOP per tensor-pipe instruction where the export has no "
         "sm__ops_path_tensor_* counters, for every CC or as CC=FLOP (repeatable; config "
         "ncu.tensor_flop_per_inst; known: 7.0=512).")


per_launch_option = click.option(
    "--per-launch", is_flag=True, expose_value=False,
    callback=lambda ctx, _, value: ctx.meta.update({_LAUNCH: value}),
    help="One point per launch: per ncu kernel launch, per PyTorch operator call (config "
         "ncu.per_launch, pytorch.per_launch), not per kernel name or operator shape.")


specs_option = click.option(
    "--specs", type=click.Path(file_okay=False, path_type=Path), expose_value=False,
    callback=lambda ctx, _, value: ctx.meta.update({_SPECS: value}),
    help="Benchmarks CSVs: the folder of kernel spec YAMLs (config specs_dir; default: "
         "found beside the CSV or through its workflow's config, else resources/specs).")


def adapter_options(command):
    """``--tensor-flop-per-inst``, ``--per-launch`` and ``--specs`` on ``command``."""
    return specs_option(per_launch_option(tensor_option(command)))


def read_per_launch() -> bool:
    """Make the running command read its inputs one point per launch (or call).

    ``rooflow check`` and ``model-check`` need every call to compare per call. Returns
    whether ``--per-launch`` was given, which ``check`` then reads as "pair the calls one
    to one".
    """
    ctx = click.get_current_context()
    asked = bool(ctx.meta.get(_LAUNCH))
    ctx.meta[_LAUNCH] = True
    return asked


def settings(**given: Any):
    """Adapter settings: the running command's options and ``given`` ones; None: defaults."""
    from rooflow.settings import Settings

    ctx = click.get_current_context(silent=True)
    factors = ctx.meta.get(_KEY) if ctx else None
    if factors:
        given["tensor_flop_per_inst"] = factors
    if ctx and ctx.meta.get(_SPECS) is not None:
        given.setdefault("specs_dir", ctx.meta[_SPECS])
    if ctx and ctx.meta.get(_LAUNCH):
        given.setdefault("per_launch", True)
        given.setdefault("pytorch_per_launch", True)
    return Settings(**given) if given else None
