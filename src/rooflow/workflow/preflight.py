"""Checks the workflow makes before any job: config files and input paths.

Snakemake shows an exception raised while it parses the workflow with its traceback frames;
``workflow/rules/*.smk`` turn these checks' ``ValueError`` (or returned line) into one line
and exit status 1 (:func:`one_line_error`). :func:`unusable` says which paths under
``resources/`` no job could read, so that planning skips them (:mod:`rooflow.workflow.planning`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from typing import TypeVar

from rooflow.errors import InputError

_T = TypeVar("_T")

MAX_CONFIG_BYTES = 16 * 2**20
"""Largest config file read (the shipped one is ~2 KB)."""
MAX_CONFIG_DEPTH = 64
"""Deepest nesting of a config file (the shipped one nests 4 deep)."""
MAX_CONFIG_NODES = 1_000_000
"""Values of a config file once YAML aliases are expanded (Snakemake walks them all)."""


def load_checked(load: Callable[[str], _T], path: str) -> _T:
    """``load(path)``, any error of it raised as a ``ValueError`` of one line.

    Used for hardware.yaml and families.yaml, read once before any job: an
    :class:`~rooflow.errors.InputError` is its line; anything else (a file that is not
    UTF-8, nested past the parser's recursion) names the file and the error.
    """
    try:
        return load(path)
    except InputError as err:
        raise ValueError(f"rooflow: error: {err}") from None
    except Exception as err:  # noqa: BLE001 - a config file: one line, whatever broke
        message = " ".join(str(err).split())[:300]
        raise ValueError(
            f"rooflow: error: {path}: cannot be read ({type(err).__name__}: {message})"
        ) from None


def one_line_error(err: Exception) -> str:
    """The line the workflow prints for an error found while planning (config, inputs)."""
    line = " ".join(str(err).split())
    return line if line.startswith("rooflow: ") else f"rooflow: error: {line}"


def config_file_error(path: str) -> str | None:
    """One line if the config file at ``path`` is not UTF-8 YAML (None if it is, or is absent).

    Checked before Snakemake reads it (``configfile:``), which would show a traceback for
    a file that is not UTF-8 or nested past the parser's recursion.
    """
    from rooflow.defaults import safe_load

    if not os.path.exists(path):
        return None  # Snakemake says so
    try:
        if why := unusable(path):
            raise ValueError(why)
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ValueError(f"larger than {MAX_CONFIG_BYTES // 2**20} MiB")
        if why := _too_big(safe_load(data.decode("utf-8"))):
            raise ValueError(why)
    except Exception as err:  # noqa: BLE001 - a config file: one line, whatever broke
        return f"rooflow: error: {path}: cannot be read ({type(err).__name__}: " + (
            " ".join(str(err).split())[:300] + ")")
    return None


def _too_big(data: object) -> str | None:
    """Why ``data`` nests too deep or expands too far to be walked, or None."""
    stack, seen = [(data, 1)], 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if depth > MAX_CONFIG_DEPTH:
            return f"nested deeper than {MAX_CONFIG_DEPTH} levels"
        if seen > MAX_CONFIG_NODES:
            return f"more than {MAX_CONFIG_NODES} values once its aliases are expanded"
        if isinstance(value, dict):
            stack += [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            stack += [(v, depth + 1) for v in value]
    return None


def config_error(config: Mapping) -> str | None:
    """One line for the first violation of the config schema by ``config``, or None.

    Snakemake's ``validate`` says the same in a dozen lines (schema and instance dumped).
    """
    from rooflow.defaults import schema_error

    violation = schema_error("config", config)
    if violation is None:
        return None
    where = ".".join(str(p) for p in violation.absolute_path) or "(top level)"
    message = " ".join(violation.message.split())
    if violation.cause is not None:  # a format's reason (a regex polars cannot match)
        message += f": {' '.join(str(violation.cause).split())}"
    if len(message) > 300:
        message = message[:300] + "…"
    return f"rooflow: error: config, key '{where}': {message} [check: config schema]"


def unusable(path: str) -> str | None:
    """Why the workflow cannot take ``path`` as an input, or None if it can.

    A link to nothing (its target missing, or a loop), something that is neither a regular
    file nor a folder (a FIFO would block the job, a device never end), or a file or
    folder this user cannot read. Checked without opening it.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "a link to nothing (its target is missing, or a loop)"
    if stat.S_ISDIR(mode):
        return None if os.access(path, os.R_OK | os.X_OK) else "a folder that cannot be read"
    if not stat.S_ISREG(mode):
        return "not a regular file (a FIFO, socket or device)"
    return None if os.access(path, os.R_OK) else "a file that cannot be read"
