"""A point's dims: the shape it was run at, as text ``NAME=VALUE,NAME=VALUE``.

The ``dims`` column of the canonical points (:mod:`rooflow.points`) holds them: a spec
variant's numeric dims (:mod:`rooflow.adapters.specs`), a benchmark row's variant dims
overlaid by its ``config`` (:mod:`rooflow.adapters.benchmarks`), a roofline CSV's
``dims`` column as written and its number cells of columns it does not know (``SeqLen``);
"" where the input gives none (profilers). A name is a letter or ``_`` then letters,
digits, ``_``; a value a number written without exponent (``64``, ``0.5``, ``-1``,
``0.00001``), in the unit of the dim (elements, tokens, experts). Spaces around ``=`` and
``,`` are allowed; a name given twice is not. Trajectories
(:mod:`rooflow.plotting.trajectory`) join the points of one kernel family in the order of
one dim's values.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

import polars as pl

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_VALUE = r"-?[0-9]+(?:\.[0-9]+)?"
_ITEM = rf"\s*{_NAME}\s*=\s*{_VALUE}\s*"
DIMS_PATTERN = rf"^(?:{_ITEM}(?:,{_ITEM})*)?$"
"""A ``dims`` cell: "" or ``NAME=VALUE`` items joined by commas."""
DIM_NAME = rf"^{_NAME}$"
"""A dim name, whole."""
DIM_VALUE = rf"^{_VALUE}$"
"""A dim value, whole (a number written without exponent)."""


def format_dims(dims: Mapping[str, int | float]) -> str:
    """``{"M": 64, "N": 128, "eps": 1e-05}`` → ``"M=64,N=128,eps=0.00001"``.

    The mapping's order; floats positional, as :data:`DIMS_PATTERN` reads them.
    """
    return ",".join(f"{name}={_number(value)}" for name, value in dims.items())


def _number(value: int | float) -> str:
    if isinstance(value, float) and not value.is_integer():
        return format(Decimal(repr(value)), "f")  # the shortest round-trip digits
    return str(int(value))


def parse_dims(text: str) -> dict[str, str]:
    """``"M=64, N=128"`` → ``{"M": "64", "N": "128"}``: values as written, spaces cut.

    ``text`` is a checked cell (:func:`bad_dims`); "" → ``{}``.
    """
    items = (item.split("=") for item in text.split(",") if item.strip())
    return {name.strip(): value.strip() for name, value in items}


def bad_dims() -> pl.Expr:
    """True where column ``dims`` is not :data:`DIMS_PATTERN` or names a dim twice.

    Names are the words starting with a letter or ``_``: a value holds none.
    """
    text = pl.col("dims").cast(pl.String).fill_null("")
    names = text.str.extract_all(_NAME)
    return ~text.str.contains(DIMS_PATTERN) | (names.list.n_unique() < names.list.len())
