"""rooflow: validated GPU kernel measurements → roofline tables and plots.

The library API, imported on first use (``import rooflow`` loads neither polars nor
matplotlib)::

    import rooflow

    points = rooflow.load_points("ncu", ["pass1.csv", "pass2.csv"])  # canonical points
    preset = rooflow.load_preset("h100-sxm")                         # hardware roofs
    table = rooflow.analyze(points, preset)                          # bound, % of roof
    rooflow.plot_roofline(table, preset, "roofline.png")

* :func:`load_points` (:mod:`rooflow.adapters`): one input of a kind of
  :data:`rooflow.kinds.KINDS` (a path, or several files of one run) → canonical points
  (:mod:`rooflow.points`).
* :func:`load_preset` (:mod:`rooflow.roofs`): a preset, datasheet or measured.
* :func:`analyze` (:mod:`rooflow.analysis`): the analysis table of points on a preset.
* :func:`plot_roofline` (:mod:`rooflow.plotting`): draw an analysis table.

Errors in the input raise :class:`rooflow.errors.InputError`, whose message is one line.

Importing the package and calling its API change nothing in the calling process (no
environment variable, import hook, garbage-collector or other library setting): the
``rooflow`` program sets its own process up (:mod:`rooflow.cli.program`).
"""

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_API = {
    "load_points": "rooflow.adapters",
    "load_preset": "rooflow.roofs",
    "analyze": "rooflow.analysis",
    "plot_roofline": "rooflow.plotting",
}
"""Public name → the module defining it, imported when the name is first used."""

__all__ = ["__version__", "analyze", "load_points", "load_preset", "plot_roofline"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from rooflow.adapters import load_points
    from rooflow.analysis import analyze
    from rooflow.plotting import plot_roofline
    from rooflow.roofs import load_preset


def __getattr__(name: str):
    """The API names of :data:`_API`, imported on first use (PEP 562)."""
    if name in _API:
        value = getattr(import_module(_API[name]), name)
        globals()[name] = value  # later uses skip this function
        return value
    raise AttributeError(f"module 'rooflow' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
