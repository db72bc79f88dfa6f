"""Cheap content checks for kind detection: the first bytes of a file, its CSV header."""

from __future__ import annotations

import csv
from pathlib import Path

HEAD_BYTES = 65_536


def head_text(path: Path, limit: int = HEAD_BYTES) -> str:
    """The first ``limit`` bytes of ``path`` as text ("" for a folder or unreadable file)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8-sig", errors="replace")
    except OSError:
        return ""


def csv_header(path: Path) -> list[str]:
    """The first non-empty line of ``path`` parsed as a CSV header, names lower-cased."""
    for line in head_text(path).splitlines():
        if line.strip():
            try:
                return [c.strip().lower() for c in next(csv.reader([line]))]
            except csv.Error:
                return []
    return []
