"""Sniffer of kind ``unitrace`` (:attr:`rooflow.kinds.Kind.sniffer`); imports no reader.

The identifying mark used by both the sniffer and its reader lives here.
"""

from __future__ import annotations

from pathlib import Path

from rooflow.formats.sniffing import folder_files, head_text

UNITRACE_MARKER = "== Kernel Metrics =="


def unitrace(path: Path) -> bool:
    """A unitrace metrics report (its kernel-metrics marker and table header), or a folder.

    A folder holding one: the reports of a program's runs, under any names (``NAME.<pid>``).
    """
    if path.is_dir():
        return any(unitrace(p) for p in folder_files(path))
    head = head_text(path, 4 << 20)
    return UNITRACE_MARKER in head and "Kernel,Device," in head


def unitrace_reports(folder: Path) -> list[Path]:
    """The unitrace reports directly in ``folder``, by name (other files ignored)."""
    return [p for p in folder_files(folder) if unitrace(p)]
