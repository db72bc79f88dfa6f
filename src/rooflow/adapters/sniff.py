"""Sniffers of the kinds ``roofline``, ``benchmarks`` and ``specs``.

Their adapters are modules of this package; each kind's :attr:`rooflow.kinds.Kind.sniffer`
names its function here. Each reads at most the first 64 KiB
(:mod:`rooflow.formats.sniffing`) and imports no reader, so kind detection stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from rooflow.formats.sniffing import csv_header, head_text


def roofline(path: Path) -> bool:
    """A CSV (or Parquet) whose header names an intensity, or flop with bytes columns."""
    from rooflow.formats.roofline import CANONICAL, LEVEL_BYTES_PREFIX

    if path.suffix.lower() == ".parquet":
        return path.is_file()
    names = {CANONICAL.get(c, c) for c in csv_header(path)}
    return "arithmetic_intensity" in names or (
        "flop" in names and any(n == "bytes" or n.startswith(LEVEL_BYTES_PREFIX) for n in names))


def benchmarks(path: Path) -> bool:
    """A CSV whose header has ``family`` and ``shape_key``."""
    return {"family", "shape_key"} <= set(csv_header(path))


def specs(path: Path) -> bool:
    """A ``.yaml``/``.yml`` file whose text has a ``flop:`` key (a spec variant)."""
    return path.suffix.lower() in (".yaml", ".yml") and "flop:" in head_text(path)
