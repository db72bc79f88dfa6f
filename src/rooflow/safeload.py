"""Reading files that may be broken or hostile: checked before reading, bounded while parsing.

Every file rooflow reads (raw inputs, ``hardware.yaml``, ``families.yaml``, spec YAMLs, ERT
JSON) goes through here, so one bad file is one :class:`~rooflow.errors.InputError` line,
never a hang, a traceback or an allocator abort:

- :func:`check_file` refuses, before opening, what is not a regular file (a FIFO named
  ``x.csv`` would block forever, ``/dev/zero`` behind a link would be read until memory runs
  out), what cannot be read, and files larger than :func:`max_input_bytes`;
- :func:`load_yaml` is ``yaml.safe_load`` after one pass over the parser's events that
  refuses nesting deeper than :data:`MAX_DEPTH` (the loader recurses per level) and
  documents that expand past :data:`MAX_NODES` nodes once aliases are followed (a few
  hundred bytes of nested aliases expand to gigabytes when walked);
- :func:`load_json` refuses ``NaN``/``Infinity`` literals and nesting deeper than
  :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

import yaml

from rooflow.errors import InputError

MAX_DEPTH = 64
"""Deepest nesting of a YAML or JSON document (rooflow's files nest at most 6 deep)."""
MAX_NODES = 100_000
"""YAML nodes once every alias is expanded (the packaged hardware.yaml has ~1 100)."""
MAX_CONFIG_BYTES = 16 * 2**20
"""Largest YAML/JSON configuration or peaks file (the packaged ones are ~20 KB)."""
MAX_FILE_BYTES = 2**31 - 1
"""Largest input file whatever the memory: one CSV line or string column of 2 GiB is past
what the CSV readers take (a 2 GiB sparse CSV made polars abort)."""
MEMORY_SHARE = 4
"""An input may be at most the memory given / this: readers hold the file's bytes, its
parsed columns and the derived ones at once."""


def memory_given() -> int | None:
    """Bytes of memory this process may use, None if unknown.

    The least of its address-space limit, its cgroup's limit (a Slurm job's ``mem_mb``)
    and the machine's memory.
    """
    limits = []
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft not in (resource.RLIM_INFINITY, -1):
            limits.append(soft)
    except (ImportError, OSError, ValueError):
        pass
    limits += _cgroup_limits()
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    limits = [v for v in limits if v > 0]
    return min(limits) if limits else None


def _cgroup_limits() -> list[int]:
    """Memory limits of this process' cgroup (v2 ``memory.max``, v1 ``limit_in_bytes``)."""
    found: list[int] = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, group = line.split(":", 2)
        if controllers == "":
            candidates = [Path("/sys/fs/cgroup") / group.lstrip("/") / "memory.max"]
        elif "memory" in controllers.split(","):
            candidates = [Path("/sys/fs/cgroup/memory") / group.lstrip("/")
                          / "memory.limit_in_bytes"]
        else:
            continue
        for candidate in candidates:
            try:
                text = candidate.read_text().strip()
            except OSError:
                continue
            if text.isdigit() and int(text) < 2**60:  # v1 writes ~2**63 for "no limit"
                found.append(int(text))
    return found


def max_input_bytes() -> int:
    """Largest input file read: :data:`MAX_FILE_BYTES`, less where memory is smaller."""
    memory = memory_given()
    return MAX_FILE_BYTES if memory is None else min(MAX_FILE_BYTES, memory // MEMORY_SHARE)


def _gb(n: int) -> str:
    return f"{n / 1e9:.3g} GB"


def check_file(path: str | Path, what: str = "an input file", *,
               max_bytes: int | None = None) -> int:
    """Refuse, before opening it, anything that is not a readable regular file of bounded size.

    Args:
        path: the file (links are followed).
        what: what it should be, for the errors ("a CSV file").
        max_bytes: its largest size (default :func:`max_input_bytes`).

    Returns:
        Its size in bytes.

    Raises:
        InputError: missing (or a dangling link), a folder, a FIFO, device or socket, not
            readable, or too large.
    """
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        why = "a link to a missing file" if path.is_symlink() else "file not found"
        raise InputError(str(path), why) from None
    except PermissionError:
        raise InputError(str(path), "cannot be read: permission denied") from None
    except OSError as err:  # a link loop, a name too long, ...
        raise InputError(str(path), f"cannot be read: {err.strerror or err}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(str(path), f"is a folder, not {what}")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device"
                if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise InputError(str(path), f"is {kind}, not {what}: refused before reading",
                         check="regular file")
    if not os.access(path, os.R_OK):
        raise InputError(str(path), "cannot be read: permission denied")
    limit = max_input_bytes() if max_bytes is None else max_bytes
    if info.st_size > limit:
        memory = memory_given()
        if max_bytes is None and memory is not None and limit < MAX_FILE_BYTES:
            why = (f"is {_gb(info.st_size)}: too large for the memory given: {_gb(memory)} "
                   f"(inputs up to {_gb(limit)} are read)")
        else:
            why = f"is {_gb(info.st_size)}, larger than rooflow reads as {what} ({_gb(limit)})"
        raise InputError(str(path), why, check="file size")
    return info.st_size


def read_bytes(path: str | Path, what: str = "an input file", *,
               max_bytes: int | None = None) -> bytes:
    """The file's bytes, after :func:`check_file`."""
    check_file(path, what, max_bytes=max_bytes)
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise InputError(str(path), f"cannot be read: {err.strerror or err}") from None


def read_text(path: str | Path, what: str = "a text file", *,
              max_bytes: int | None = None) -> str:
    """The file as UTF-8 text (BOM dropped), after :func:`check_file`."""
    data = read_bytes(path, what, max_bytes=max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(str(path), f"not UTF-8 text ({err.reason} at byte {err.start})",
                         check="utf-8") from None


# --- YAML ---------------------------------------------------------------------------------

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it


def yaml_error(source: str, err: yaml.YAMLError) -> InputError:
    """One line for a YAML syntax error, with its line number."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    return InputError(source, f"{where}malformed YAML: {problem}", check="yaml")


def check_yaml_events(text: str, source: str, *, max_nodes: int = MAX_NODES,
                      max_depth: int = MAX_DEPTH) -> None:
    """Count nodes as if every alias were expanded and track the nesting, on parser events.

    No object is built, so a "billion laughs" document or one nested thousands deep is
    refused after one read.

    Raises:
        InputError: malformed YAML, nesting deeper than ``max_depth``, or more than
            ``max_nodes`` nodes once aliases are expanded.
    """
    sizes: dict[str | None, int] = {}
    open_nodes: list[tuple[str | None, int]] = []
    total = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent):
                total += sizes.get(event.anchor, 1)
            elif isinstance(event, yaml.ScalarEvent):
                total += 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                total += 1
                open_nodes.append((event.anchor, total - 1))
                if len(open_nodes) > max_depth:
                    mark = event.start_mark
                    where = f"line {mark.line + 1}: " if mark is not None else ""
                    raise InputError(source, f"{where}YAML nested deeper than {max_depth} "
                                     "levels", check="yaml depth")
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, start = open_nodes.pop()
                if anchor:
                    sizes[anchor] = total - start
            if total > max_nodes:
                raise InputError(source, f"YAML expands to more than {max_nodes} nodes "
                                 "(alias bomb?)", check="yaml aliases")
    except yaml.YAMLError as err:
        raise yaml_error(source, err) from None


def load_yaml(text: str, source: str, *, max_nodes: int = MAX_NODES,
              max_depth: int = MAX_DEPTH) -> object:
    """``yaml.safe_load`` of ``text`` after :func:`check_yaml_events`.

    Raises:
        InputError: see :func:`check_yaml_events`; a value the safe constructors refuse
            (an integer of more than 4 300 digits).
    """
    check_yaml_events(text, source, max_nodes=max_nodes, max_depth=max_depth)
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as err:
        raise yaml_error(source, err) from None
    except (ValueError, RecursionError, MemoryError) as err:
        reason = " ".join(str(err).split())[:200] or type(err).__name__
        raise InputError(source, f"malformed YAML: {reason}", check="yaml") from None


def read_yaml(path: str | Path, what: str = "a YAML file", *,
              max_bytes: int = MAX_CONFIG_BYTES, max_nodes: int = MAX_NODES) -> object:
    """A YAML file: :func:`check_file`, UTF-8 text, then :func:`load_yaml`."""
    return load_yaml(read_text(path, what, max_bytes=max_bytes), str(path),
                     max_nodes=max_nodes)


# --- JSON ---------------------------------------------------------------------------------


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def load_json(text: str, source: str, *, max_depth: int = MAX_DEPTH) -> object:
    """``json.loads`` refusing ``NaN``/``Infinity`` and nesting deeper than ``max_depth``.

    Raises:
        InputError: not JSON, a non-finite number (``1e999`` too), or too deep.
    """
    depth = 0
    # Brackets outside strings give the nesting, before the recursive parser sees it.
    for match in _BRACKETS.finditer(_STRINGS.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > max_depth:
            raise InputError(source, f"JSON nested deeper than {max_depth} levels",
                             check="json depth")
    try:
        data = json.loads(text, parse_constant=_no_constant,
                          parse_float=_finite_float)
    except (json.JSONDecodeError, ValueError, RecursionError) as err:
        raise InputError(source, f"not JSON: {' '.join(str(err).split())[:200]}",
                         check="json") from None
    return data


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def read_json(path: str | Path, what: str = "a JSON file", *,
              max_bytes: int = MAX_CONFIG_BYTES) -> object:
    """A JSON file: :func:`check_file`, UTF-8 text, then :func:`load_json`."""
    return load_json(read_text(path, what, max_bytes=max_bytes), str(path))


# --- non-finite numbers in a loaded document ------------------------------------------------


def first_non_finite(data: object) -> tuple[list[str | int], float] | None:
    """The key path and value of the first NaN or infinite float in ``data``, else None.

    Iterative (no recursion), each container visited once (YAML aliases share them).
    """
    stack: list[tuple[object, list[str | int]]] = [(data, [])]
    seen: set[int] = set()
    while stack:
        node, where = stack.pop()
        if isinstance(node, float):
            if not math.isfinite(node):
                return where, node
        elif isinstance(node, dict | list):
            if id(node) in seen:
                continue
            seen.add(id(node))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((v, [*where, k]) for k, v in reversed(list(items)))
    return None
