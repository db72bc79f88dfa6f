"""The memory-level vocabulary: one name per physical level, whatever the vendor calls it.

The canonical names are those of the hierarchical roofline literature (NERSC: DRAM, L2,
L1; AMD: HBM, L2, vL1D, LDS; Intel: GDDR/HBM, L3, SLM), one per physical role:

========  ================================================  ===========================
name      synonyms (vendors' words, case-insensitive)       what it is
========  ================================================  ===========================
DRAM      HBM (and HBM2/2e/3/3e), GDDR (5/6/6X/7), LPDDR5,  device memory
          VRAM
L3        LLC, MALL (AMD Infinity Cache)                     last-level cache before DRAM
L2        —                                                  L2 cache
L1        vL1D (AMD), L1TEX (NVIDIA), L1D                    L1 / texture cache
LDS       SLM (Intel), SMEM, SHARED                          on-chip scratchpad
========  ================================================  ===========================

Points (:mod:`rooflow.points`) carry canonical names only; presets keep the device's own
word for a roof (``HBM`` on an MI300X) and are matched through :func:`canonical_level`, so
an AMD HBM point, an ncu DRAM point and a roof named ``HBM`` are one level. Markers (PNG
and HTML) and the display order (farthest memory first) are here too.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """One memory level.

    Attributes:
        name: canonical name.
        synonyms: other names of the same level (upper case).
        marker: matplotlib marker of its points.
        bokeh_marker: Bokeh marker type of its points.
    """

    name: str
    synonyms: tuple[str, ...]
    marker: str
    bokeh_marker: str


LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("DRAM", ("HBM", "HBM2", "HBM2E", "HBM3", "HBM3E", "GDDR", "GDDR5", "GDDR6",
                       "GDDR6X", "GDDR7", "LPDDR5", "VRAM"), "o", "circle"),
        Level("L3", ("LLC", "MALL"), "D", "diamond"),
        Level("L2", (), "s", "square"),
        Level("L1", ("VL1D", "L1TEX", "L1D"), "^", "triangle"),
        Level("LDS", ("SLM", "SMEM", "SHARED"), "v", "inverted_triangle"),
    )
}
"""Canonical level → :class:`Level`, in display order (farthest from the cores first)."""

OTHER_MARKER = ("P", "plus")
"""(matplotlib, Bokeh) marker of a point whose level is not known (never a valid point)."""

_CANONICAL = {alias: lv.name for lv in LEVELS.values() for alias in (lv.name, *lv.synonyms)}


def canonical_level(name: str) -> str | None:
    """The canonical name of level ``name`` (``"hbm"`` → ``"DRAM"``), or None if unknown."""
    return _CANONICAL.get(name.strip().upper())


def marker(name: str, bokeh: bool = False) -> str:
    """The marker of level ``name`` (any synonym) in matplotlib or Bokeh terms."""
    level = LEVELS.get(canonical_level(name) or "")
    if level is None:
        return OTHER_MARKER[bokeh]
    return level.bokeh_marker if bokeh else level.marker


def known_levels() -> str:
    """The vocabulary for an error message: ``DRAM (HBM, GDDR, …), L3 (LLC, MALL), …``."""
    return ", ".join(f"{lv.name} ({', '.join(lv.synonyms)})" if lv.synonyms else lv.name
                     for lv in LEVELS.values())
