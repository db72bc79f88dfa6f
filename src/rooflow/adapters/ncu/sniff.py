"""Sniffer of kind ``ncu`` (:attr:`rooflow.kinds.Kind.sniffer`); imports no reader."""

from __future__ import annotations

from pathlib import Path

from rooflow.formats.sniffing import ncu_files


def ncu(path: Path) -> bool:
    """An ``ncu --csv`` export or ``.ncu-rep`` report, or a folder of exports (passes).

    The check is :func:`rooflow.formats.sniffing.ncu_files`, which the measured-peaks
    reader asks too.
    """
    return ncu_files(path)
