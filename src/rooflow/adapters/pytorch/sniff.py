"""Sniffer of kind ``pytorch`` (:attr:`rooflow.kinds.Kind.sniffer`); imports no reader."""

from __future__ import annotations

from pathlib import Path

from rooflow.formats.sniffing import json_head

PYTORCH_KEYS = ('"traceEvents"', '"schemaVersion"')
"""Top-level keys of a Chrome-trace JSON; Kineto writes ``schemaVersion`` first."""


def pytorch(path: Path) -> bool:
    """A PyTorch profiler trace (plain or gzip'd JSON).

    A JSON object whose first 64 KiB name ``traceEvents`` or ``schemaVersion``.
    """
    head = json_head(path).lstrip("\ufeff \t\r\n")
    return head.startswith("{") and any(key in head for key in PYTORCH_KEYS)
