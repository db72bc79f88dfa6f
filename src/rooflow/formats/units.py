"""Profiler numbers and units → plain floats in base units.

Nsight Compute prints values with thousands separators (``"134,957,158,144"``, with
``--print-fp`` ``"5,318,969,728.00"``) and, by default (``--print-units auto``), with the
unit scaled to the value's magnitude (``Gbyte``, ``msecond``, ``cycle/usecond``). Its
prefixes are decimal: it shows a 64 KiB shared-memory carveout as ``65.54 Kbyte``
(Nsight Compute CLI documentation, ``--print-units``).

Base units: ``byte``, ``second``, ``hz`` (cycles per second), the counts ``inst``,
``cycle``, ``op``, ``sector``, ``thread`` and ratios of them (``byte/second``,
``inst/cycle``, ``byte/cycle``). A unit outside this vocabulary (``%``, ``warp``,
``register/thread``, ...) is left as written with its value unscaled; callers check the
units of the metrics they use.
"""

from __future__ import annotations

import polars as pl

_PREFIXES = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_SUBSECOND = {"": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
_COUNTS = ("byte", "inst", "cycle", "op", "hz", "sector", "thread", "request")


def _scale_table() -> dict[str, tuple[float, str]]:
    # Keys are lower case: ncu writes "Kbyte", "Mhz" and "msecond"; "m" means mega for
    # bytes, counts and hertz and milli for seconds, so the families never collide.
    simple: dict[str, tuple[float, str]] = {}
    for prefix, factor in _PREFIXES.items():
        for base in _COUNTS:
            simple[prefix + base] = (factor, base)
    for prefix, factor in _SUBSECOND.items():
        simple[prefix + "second"] = (factor, "second")
        simple[prefix + "s"] = (factor, "second")
    table = dict(simple)
    for num, (f_num, b_num) in simple.items():
        if b_num == "hz":
            continue
        for den, (f_den, b_den) in simple.items():
            if b_den in ("second", "cycle") and b_num != b_den:
                base = "hz" if (b_num, b_den) == ("cycle", "second") else f"{b_num}/{b_den}"
                # Rounded so that 1/1e-9 is exactly 1e9.
                table[f"{num}/{den}"] = (float(f"{f_num / f_den:.12g}"), base)
    return table


UNIT_SCALE: dict[str, tuple[float, str]] = _scale_table()
"""Lower-case unit → (factor to the base unit, base unit)."""

MISSING_VALUES = frozenset({"nan", "-nan", "n/a", "inf", "-inf"})
"""Cell texts that mean "no value" (a failed or skipped measurement)."""


def number(text: pl.Expr) -> pl.Expr:
    """Float64 from a String expression with optional thousands separators.

    Null for empty cells, :data:`MISSING_VALUES` and text that is not a number; the
    caller tells these apart by the original text.
    """
    clean = text.str.strip_chars().str.replace_all(",", "", literal=True)
    value = clean.cast(pl.Float64, strict=False)
    return (
        pl.when(clean.str.to_lowercase().is_in(list(MISSING_VALUES)) | ~value.is_finite())
        .then(None)
        .otherwise(value)
    )


def to_base_units(frame: pl.DataFrame, *, value: str = "value", unit: str = "unit") -> pl.DataFrame:
    """Rescale ``value`` (Float64) by ``unit`` (String) into base units.

    Both columns are replaced: the value multiplied by the unit's factor, the unit by its
    base name (``Kbyte`` → ``byte`` and ×1e3, ``usecond`` → ``second`` and ×1e-6,
    ``cycle/nsecond`` → ``hz`` and ×1e9, ``Gbyte/second`` → ``byte/second`` and ×1e9).
    Units missing from :data:`UNIT_SCALE` are kept as written, with factor 1; a null unit
    becomes "".
    """
    key = pl.col(unit).fill_null("").str.strip_chars().str.to_lowercase()
    factors = {name: factor for name, (factor, _) in UNIT_SCALE.items()}
    bases = {name: base for name, (_, base) in UNIT_SCALE.items()}
    return frame.with_columns(
        (pl.col(value) * key.replace_strict(factors, default=1.0, return_dtype=pl.Float64)),
        key.replace_strict(bases, default=pl.col(unit).fill_null(""), return_dtype=pl.String)
        .alias(unit),
    )
