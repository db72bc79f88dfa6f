"""Roofline plots as images (PNG, SVG, PDF; matplotlib) and what they share with the pages.

==================== ================================================================
module               holds
==================== ================================================================
:mod:`.core`         axis limits, units, number formats, roofs and their labels, the
                     ranking of the points that matter, colours, markers: shared with
                     :mod:`rooflow.html`; no matplotlib
:mod:`.roofline`     the roofline figure of an analysis table (:func:`plot_roofline`)
:mod:`.compare`      the comparison plot of two runs (:func:`plot_comparison`)
:mod:`.roofs`,       their pieces on a matplotlib axes: roofs, markers and arrows,
:mod:`.markers`,     labels and key, density images, the bandwidth-only panel, sweep
:mod:`.labels`,      trajectories (whose paths the pages draw too)
:mod:`.density`,
:mod:`.bandwidth`,
:mod:`.trajectory`
==================== ================================================================

This package only re-exports, on first use: ``import rooflow.plotting`` loads no
matplotlib and leaves its backend as the caller set it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rooflow.plotting.compare import plot_comparison
    from rooflow.plotting.core import Limits, axis_limits
    from rooflow.plotting.roofline import (
        PlotOptions,
        drawn_columns,
        figure,
        new_figure,
        plot_roofline,
    )

_EXPORTS = {"Limits": "core", "axis_limits": "core", "PlotOptions": "roofline",
            "drawn_columns": "roofline", "figure": "roofline", "new_figure": "roofline",
            "plot_roofline": "roofline", "plot_comparison": "compare"}
"""Public name → the module of this package defining it, imported when first used."""
__all__ = ["Limits", "PlotOptions", "axis_limits", "drawn_columns", "figure", "new_figure",
           "plot_comparison", "plot_roofline"]


def __getattr__(name: str):
    """The re-exported name ``name``, importing its module (and matplotlib) on first use."""
    if name in _EXPORTS:
        value = getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        globals()[name] = value  # later uses skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
