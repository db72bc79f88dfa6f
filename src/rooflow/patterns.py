"""User regular expressions (``--kernel``, ``--exclude``, ``--map``, config ``select``).

Checked and matched by one engine, polars' (Rust's ``regex`` crate), which never
backtracks. A module of its own, below :mod:`rooflow.selection` and
:mod:`rooflow.defaults` (the config schema's ``format: regex``), so neither imports the other.
"""

from __future__ import annotations


def regex_error(pattern: str) -> str | None:
    """Why polars cannot match ``pattern`` (its first line), or None when it can.

    The one check of every user pattern (``--kernel``, ``--exclude``, config ``select``,
    ``--map``, the config schema's ``format: regex``): polars' engine, Rust's ``regex``
    crate, is also the one that matches, so what passes here never fails a job later.
    It has no backtracking (matching is linear in the text), and refuses look-around and
    back-references, and patterns whose compiled program passes its size limit.
    """
    import polars as pl

    try:
        pl.select(pl.lit("").str.contains(pattern))
    except pl.exceptions.PolarsError as err:
        text = str(err).split("This error occurred in")[0]  # then polars' expression
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        said = next((line for line in lines if line.startswith("error:")), lines[0])
        return said.removeprefix("error:").removeprefix("regex error:").strip()[:200]
    return None
