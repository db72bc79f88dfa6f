"""Clocks: which rows a preset's clocks apply to, and the clocks a plot's roofs are drawn at.

A compute roof is a peak, units × operations per clock × clock; a DRAM roof bus bytes × 2 ×
memory clock; an L2 roof bytes per cycle × L2 clock. :func:`rooflow.analysis.analyze` judges
each point at the clocks it ran at (``clock_hz``, ``memory_clock_hz``, ``l2_clock_hz``)
where the preset gives its own (:attr:`~rooflow.roofs.preset.Preset.roof_clock_hz`,
:attr:`~rooflow.roofs.preset.Preset.memory_clock_hz`,
:attr:`~rooflow.roofs.preset.Preset.l2_clock_hz`); :func:`clock_note` tells a plot which
roofs to draw and what to say.
"""

from __future__ import annotations

import polars as pl

from rooflow.points import distinct
from rooflow.roofs.preset import Preset


def own_gpu(frame: pl.DataFrame, preset: Preset) -> pl.Expr:
    """Rows measured on ``preset``'s GPU, or on a GPU the input does not name.

    Their clocks scale the preset's roofs; another GPU's clock says nothing of this one's
    (an RTX 3060's 817 MHz SM clock, or its GDDR6's 5,992 MHz, drawn on an A100). Matched
    as :func:`rooflow.roofs.preset.device_preset` does: the preset's id or one of its
    ``devices``, case-insensitively. Reads ``device`` (a table without it: every row).
    """
    if "device" not in frame.columns:
        return pl.lit(True)
    names = {n.casefold() for n in (preset.key, *preset.devices)}
    devices = distinct(frame, "device").drop_nulls().to_list()
    if len(devices) == 1:  # one scalar, not a column per row
        return pl.lit(devices[0] == "" or devices[0].casefold() in names)
    return pl.col("device").replace_strict(
        {d: d == "" or d.casefold() in names for d in devices}, default=True,
        return_dtype=pl.Boolean)


def clock_note(table: pl.DataFrame, preset: Preset) -> tuple[Preset, str]:
    """The roofs a plot of ``table`` draws, at the clocks held, and the line that says so.

    Rows judged at the clock they ran at (:func:`analyze`): the preset's compute roofs at
    their clock, or at the median of their clocks when they differ (each row is judged at
    its own, in the table); the line names it and the datasheet clock ("roofs at 1,095
    MHz, the clock held while profiling (datasheet: 1,410 MHz)"; an ncu export's own
    peaks name the launch whose clocks they are at, "launch 0: 1,509 MHz"); the DRAM roof
    likewise at the memory clock and the L2 roof at the L2 clock, where the preset gives
    its own. ``roofs_at`` "datasheet" with clocks known: the preset, and a line naming
    the clocks. No clock (in the rows or on
    the preset: ``roof_note`` says the latter; rows of another GPU, :func:`own_gpu`, are
    left out): the preset and "". Reads ``clock_hz``, ``memory_clock_hz``,
    ``l2_clock_hz`` and ``device`` where the table has them.
    """
    if "clock_hz" in table.columns:
        table = table.filter(own_gpu(table, preset))
    sm = _held(table, "clock_hz", preset.roof_clock_hz)
    memory = _held(table, "memory_clock_hz", preset.memory_clock_hz)
    l2 = _held(table, "l2_clock_hz", preset.l2_clock_hz)
    if sm is None and memory is None and l2 is None:
        return preset, ""
    # An ncu export's own peaks are at the clocks of the launch they were read from.
    theirs = ("the datasheet" if preset.clock_launch is None
              else f"launch {preset.clock_launch}")
    if preset.roofs_at == "datasheet":
        ran = "; ".join(f"{what} ran at {held[1]}" for what, held in
                        (("the kernels", sm), ("their memory", memory), ("their L2", l2))
                        if held)
        clocks = "the datasheet clocks" if preset.clock_launch is None else f"{theirs}'s clocks"
        return preset, f"roofs at {clocks} (--roofs-at datasheet); {ran}"
    parts = []
    if sm is not None:
        median, held, several, unclocked, nominal = sm
        datasheet = f"{theirs.removeprefix('the ')}: {nominal}"
        parts.append(
            f"roofs at {median / 1e6:,.0f} MHz, the median clock held while profiling "
            f"(kernels {held}, each judged at its own; {datasheet})" if several else
            f"roofs at {held}, the clock held while profiling ({datasheet})"
            if held != nominal else f"roofs at {held}, {theirs}'s clock, held while profiling")
        if unclocked:
            parts.append(f"points without a clock at {theirs}'s")
    if memory is not None:
        parts.append(f"DRAM roof at the memory clock held, {memory[1]} (nominal {memory[4]})")
    if l2 is not None:
        parts.append(f"L2 roof at the L2 clock held, {l2[1]} (nominal {l2[4]})")
    return (preset.at_clock(sm[0] if sm else None, memory[0] if memory else None,
                            l2[0] if l2 else None), "; ".join(parts))


def _held(table: pl.DataFrame, column: str, nominal: float | None,
          ) -> tuple[float, str, bool, bool, str] | None:
    """What the clocks in ``column`` (Hz) were, for :func:`clock_note`.

    Returns:
        (median, "1,095 MHz" or a range, several, some rows without one, ``nominal`` as
        "1,410 MHz"); None when there are none or the preset gives no ``nominal``.
    """
    if column not in table.columns or nominal is None:
        return None
    clock = pl.col(column)
    median, low, high, unclocked = table.select(
        clock.median().alias("median"), clock.min().alias("low"), clock.max().alias("high"),
        clock.is_null().any().alias("unclocked")).row(0)
    if median is None:
        return None
    low, high = round(low / 1e6), round(high / 1e6)
    held = f"{median / 1e6:,.0f} MHz" if low == high else f"{low:,}–{high:,} MHz"
    return median, held, low != high, unclocked, f"{nominal / 1e6:,.0f} MHz"
