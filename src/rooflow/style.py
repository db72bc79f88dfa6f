"""Legend words and panel texts the PNG (matplotlib) and the page (Bokeh) share.

Colours and markers come from :mod:`rooflow.plotting.core` for both; the words a reader
matches between a PNG and its page are here, one string each, so both tell one story
(issue 34, item 7).
"""

from __future__ import annotations

SPEEDUP_LEGEND = {"faster or same": "faster (speedup ≥ 1)", "slower": "slower (speedup < 1)",
                  "no speedup (theoretical)": "no speedup (theoretical)"}
"""Legend words of each :func:`rooflow.plotting.core.speedup_group` of a comparison."""

MEASURED = "filled: measured"
THEORETICAL = "hollow: theoretical (on the roof)"
ABOVE_ROOF = "above the roof"

BANDWIDTH_AXIS = "achieved GB/s (bar: memory roof)"
BANDWIDTH_COLOR = "#1f77b4"
"""Achieved bandwidth of a bandwidth-only row (matplotlib's ``tab:blue``)."""


def bandwidth_title(rows: int) -> str:
    """Title of the bandwidth-only panel: ``bandwidth only (1 row)``, ``(2 rows)``."""
    return f"bandwidth only ({rows} {'row' if rows == 1 else 'rows'})"
