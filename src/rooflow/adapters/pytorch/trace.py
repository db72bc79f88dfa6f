"""PyTorch profiler traces: streamed reading and the link from GPU work to operators.

The file is the Chrome-trace JSON that Kineto writes for ``torch.profiler``
(``export_chrome_trace``, ``tensorboard_trace_handler``), plain or gzip'd. Its facts, from
Kineto's ``libkineto/src/output_json.cpp`` and the traces in the test data:

* ``traceEvents`` holds complete events (``ph`` ``X``) with ``ts`` and ``dur`` in µs:
  ``cat`` ``cpu_op`` (an operator: ``args`` ``External id``, ``Input Dims``,
  ``Input type``, ``Concrete Inputs`` with ``record_shapes=True``), ``cuda_runtime`` /
  ``cuda_driver`` (a launch on the CPU thread: ``args.correlation``; ROCm traces use the
  same categories for HIP calls) and ``kernel`` / ``gpu_memcpy`` / ``gpu_memset`` (GPU
  work: ``args.correlation``, ``args.device``); flow events ``ac2g`` (``ph`` ``s`` on the
  launching thread, ``id`` = correlation) join a launch to its GPU work.
* 2021 traces (PyTorch 1.8–1.10) name these ``Operator``, ``Runtime``, ``Kernel``,
  ``Memcpy``, ``Memset`` and spell the GPU event's ``external id`` in lower case; the reader
  maps them onto today's (:data:`ERA_2021`), so nothing past it sees the era.
* ``deviceProperties`` (written before ``traceEvents``): ``id``, ``name``,
  ``computeMajor``/``computeMinor``, ``numSms``, ``totalGlobalMem``. ROCm kernels carry an
  agent index as ``device`` that is often no ``id`` there.

Linking (:func:`link`): GPU work → its launch (runtime event, else ``ac2g`` flow start)
by correlation id → the innermost ``cpu_op`` on the launching thread whose
``[ts, ts + dur]`` holds the launch. Newer traces also give the launching operator's
``External id`` on the GPU event: it is used when that operator holds the launch in time
(method ``id``); an id match that time containment contradicts is never used (older
traces give the correlation id there, and the two id spaces collide), the containment
answer is (method ``time``). Work with no launch event, or launched outside every
operator (CUDA/HIP graph replays), stays unlinked.
"""

from __future__ import annotations

import gzip
import io
import zlib
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ijson

from rooflow.errors import InputError
from rooflow.safeload import MAX_DEPTH

GPU_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
RUNTIME_CATEGORIES = frozenset({"cuda_runtime", "cuda_driver"})
ERA_2021 = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Kernel": "kernel",
            "Memcpy": "gpu_memcpy", "Memset": "gpu_memset",
            "operator": "cpu_op", "runtime": "cuda_runtime", "memcpy": "gpu_memcpy",
            "memset": "gpu_memset"}
"""The 2021 Kineto categories (PyTorch 1.8–1.10) → today's, read as Kineto's own viewer
reads both eras: pytorch/kineto @ 041e7ce99f1562dd81232ee58b7c454ef16bfae2
``tb_plugin/torch_tb_profiler/profiler/trace.py`` (``EventTypeMap``, keyed by the lower-cased
``cat``). The writer of that era (``libkineto/src/output_json.cpp`` @ cbae6007) gives
``Runtime`` / ``Kernel`` / ``Memcpy`` / ``Memset`` events ``args."external id"`` (lower
case; the launching ``Operator``'s ``External id``) and ``args.correlation``, in integer µs."""
_GZIP_MAGIC = b"\x1f\x8b"
_HEAD = 1 << 20  # deviceProperties lead the file; 1 MiB holds any device list


@dataclass(slots=True)
class Op:
    """One ``cpu_op`` event. ``index`` is its 1-based position in ``traceEvents``."""

    index: int
    name: str
    thread: tuple
    ts: float
    end: float
    ext: object
    dims: list | None
    types: list | None
    concrete: list | None


@dataclass(slots=True)
class Work:
    """One GPU event (kernel, memcpy, memset) and, after :func:`link`, its operator.

    ``op`` is an index into :attr:`Trace.ops` (-1: unlinked), ``method`` ``id``,
    ``time`` or why it is unlinked (``no launch``, ``outside ops``).
    """

    index: int
    name: str
    category: str
    dur_us: float
    correlation: object
    ext: object
    device: object
    op: int = -1
    method: str = ""


@dataclass
class Trace:
    """What :func:`read_trace` keeps of a trace: operators, GPU work, launches, devices."""

    source: str
    devices: list[dict]
    ops: list[Op] = field(default_factory=list)
    work: list[Work] = field(default_factory=list)
    launches: dict = field(default_factory=dict)
    flows: dict = field(default_factory=dict)
    contradicted: int = 0
    notes: list[str] = field(default_factory=list)
    """Events left out (wrong types, negative durations): one line per check."""

    @property
    def has_shapes(self) -> bool:
        """Whether any operator recorded its input shapes (``record_shapes=True``)."""
        return any(o.dims is not None for o in self.ops)


def open_trace(path: Path):
    """``path`` as a binary stream, gunzipped when it starts with the gzip magic."""
    fh = open(path, "rb")
    if fh.read(2) == _GZIP_MAGIC:
        fh.seek(0)
        return gzip.GzipFile(fileobj=fh)
    fh.seek(0)
    return fh


_BUF = 2048
"""Bytes ijson parses at a time. Its C parser makes every event of a buffer, each with its
prefix (``traceEvents.item.item...``, 5 characters a level), before :func:`_bounded` sees
the first: over a 64 KiB buffer of ``[`` that is 64 Ki prefixes of up to 320 KiB, tens of
GB. Over 2 KiB, past at most :data:`~rooflow.safeload.MAX_DEPTH` levels already checked,
it is at most 2 Ki prefixes of 11 KiB (≈ 11 MB) before the bound refuses the file."""
_READ_ERRORS = (ijson.JSONError, OSError, EOFError, zlib.error, UnicodeDecodeError)
"""What a broken file raises while it is read: bad JSON, a truncated or corrupt gzip."""


def _device_properties(path: Path) -> list[dict]:
    """``deviceProperties`` from the head of the file (Kineto writes them first).

    A head that cannot be read (a truncated gzip) gives none: :func:`read_trace` then
    reports the file.
    """
    found: list[dict] = []
    try:
        with open_trace(path) as fh:
            head = fh.read(_HEAD)
        events = _bounded(ijson.parse(io.BytesIO(head), use_float=True, buf_size=_BUF), path)
        for item in ijson.items(events, "deviceProperties.item"):
            if isinstance(item, dict):
                found.append(item)
    except _READ_ERRORS:
        pass  # the head is cut mid-document: the complete entries before it are kept
    return found


def _bounded(events: Iterator[tuple[str, str, object]], path: Path
             ) -> Iterator[tuple[str, str, object]]:
    """The ijson ``parse`` events, refused past :data:`~rooflow.safeload.MAX_DEPTH` levels.

    Counted from the events, before any object is built: a deeper document (a hostile
    one, thousands of levels) never reaches the builder or the code that walks what it
    built. The parser is given :data:`_BUF` bytes at a time, which bounds what it makes
    before this count sees it.

    Raises:
        InputError: the nesting passes the bound (naming ``path``).
    """
    depth = 0
    for event in events:
        kind = event[1]
        if kind == "start_map" or kind == "start_array":
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(str(path), f"JSON nested deeper than {MAX_DEPTH} levels",
                                 check="json depth")
        elif kind == "end_map" or kind == "end_array":
            depth -= 1
        yield event


class _Skip(Exception):  # noqa: N818 - not an error: one event left out, and why
    """An event whose field has the wrong type or value: ``field``, ``why``, ``value``."""

    def __init__(self, field: str, why: str, value: object) -> None:
        super().__init__(field)
        self.field, self.why, self.value = field, why, value


def _number(ev: dict, key: str, *, duration: bool = False) -> float:
    """``ev[key]`` as a number (0 when absent); a duration is also ≥ 0."""
    value = ev.get(key, 0.0)
    if value is None and duration:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value \
            or value in (float("inf"), float("-inf")):
        raise _Skip(key, "not a number of µs", value)
    if duration and value < 0:
        raise _Skip(key, "a negative duration", value)
    return float(value)


_SCALAR = (str, int, float, type(None))


def _scalar(holder: dict, key: str, default: object = None) -> object:
    """``holder[key]``: an id (a string, a number or null), never a list or an object."""
    value = holder.get(key, default)
    if not isinstance(value, _SCALAR):
        raise _Skip(key, "not a string or number", value)
    return value


def _external_id(args: dict) -> object:
    """The GPU event's operator id: ``external id``, else ``External id``.

    The 2021 spelling first (:data:`ERA_2021`), in the order Kineto's tb_plugin asks them
    (``DurationEvent``).
    """
    found = _scalar(args, "external id")
    return _scalar(args, "External id") if found is None else found


def _text(ev: dict, key: str) -> str:
    value = ev.get(key, "")
    if not isinstance(value, str):
        raise _Skip(key, "not a string", value)
    return value


def _args(ev: dict) -> dict:
    value = ev.get("args")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Skip("args", "not an object", value)
    return value


def _dims(value: object, level: int = 0) -> bool:
    """Whether ``value`` is Input Dims: a list (per input) of shapes.

    A shape is a list of finite numbers ≥ 0; a TensorList's, a list of those.
    """
    if not isinstance(value, list):
        return False
    if level == 0:
        return all(_dims(v, 1) for v in value)
    return level < 3 and all(
        _dims(v, level + 1) if isinstance(v, list)
        else isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < float("inf")
        for v in value)


def _list_of(args: dict, key: str, kinds: tuple) -> list | None:
    value = args.get(key)
    if value is None:
        return None
    if not (isinstance(value, list) and all(isinstance(v, kinds) for v in value)):
        raise _Skip(f"args.{key}", "not a list of strings", value)
    return value


@dataclass
class _Skipped:
    """Events left out of a trace, per check: how many and the first one."""

    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)

    def add(self, index: int, ev: dict, skip: _Skip) -> None:
        check = f"'{skip.field}' {skip.why}"
        if check not in self.counts:
            name = ev.get("name")
            named = f" ({name!r})" if isinstance(name, str) else ""
            value = repr(skip.value)
            value = value if len(value) <= 60 else value[:57] + "..."
            self.first[check] = f"first event {index}{named}: {skip.field} = {value}"
        self.counts[check] = self.counts.get(check, 0) + 1

    def notes(self) -> list[str]:
        return [f"{n:,} event{'' if n == 1 else 's'} skipped, {check}: {self.first[check]}"
                for check, n in self.counts.items()]


def read_trace(path: str | Path) -> Trace:
    """Stream ``path`` and keep operators, launches, flows and GPU work.

    Memory holds only those events: ``python_function`` and other events are dropped as
    they stream by (figures for a 239k-event trace: docs/speed.md). A kept event whose
    field has the wrong type (a ``dur`` that is a string, ``args`` or ``pid`` a list,
    ``name`` a number, dims that are no numbers) or a negative ``dur`` is left out, and
    :attr:`Trace.notes` says how many per check and the first one (its 1-based index in
    ``traceEvents``, name, field and value).

    Raises:
        InputError: not JSON (or a truncated or broken gzip, or garbage after the JSON),
            or nested deeper than :data:`rooflow.safeload.MAX_DEPTH` levels, naming the
            event reached.
    """
    path = Path(path)
    trace = Trace(source=str(path), devices=_device_properties(path))
    ops, work, launches, flows = trace.ops, trace.work, trace.launches, trace.flows
    skipped = _Skipped()
    # One object per distinct name, thread, dims, types and scalars: a 10⁷-event trace
    # repeats a few hundred, and each parsed copy costs ~100 bytes to ~1 KB.
    names: dict[str, str] = {}
    threads: dict[tuple, tuple] = {}
    shared: dict[tuple, list] = {}
    index = 0
    try:
        with open_trace(path) as fh:
            events = _bounded(ijson.parse(fh, use_float=True, buf_size=_BUF), path)
            for index, ev in enumerate(ijson.items(events, "traceEvents.item"), 1):
                if not isinstance(ev, dict):
                    continue
                ph, cat = ev.get("ph"), ev.get("cat")
                if not isinstance(cat, str):
                    continue
                cat = ERA_2021.get(cat, cat)
                try:
                    if ph == "X":
                        if cat == "cpu_op":
                            args = _args(ev)
                            ts = _number(ev, "ts")
                            thread = (_scalar(ev, "pid"), _scalar(ev, "tid"))
                            name = _text(ev, "name")
                            dims = args.get("Input Dims")
                            if dims is not None and not _dims(dims):
                                raise _Skip("args.Input Dims", "not lists of numbers ≥ 0", dims)
                            ops.append(Op(index, names.setdefault(name, name),
                                          threads.setdefault(thread, thread), ts,
                                          ts + _number(ev, "dur", duration=True),
                                          _scalar(args, "External id"),
                                          _shared(shared, "d", dims),
                                          _shared(shared, "t", _list_of(args, "Input type",
                                                                        (str,))),
                                          _shared(shared, "c", _list_of(
                                              args, "Concrete Inputs", _SCALAR))))
                        elif cat in RUNTIME_CATEGORIES:
                            args = _args(ev)
                            if (corr := _scalar(args, "correlation")) is not None:
                                thread = (_scalar(ev, "pid"), _scalar(ev, "tid"))
                                launches[corr] = (threads.setdefault(thread, thread),
                                                  _number(ev, "ts"))
                        elif cat in GPU_CATEGORIES:
                            args = _args(ev)
                            name = _text(ev, "name")
                            work.append(Work(index, names.setdefault(name, name), cat,
                                             _number(ev, "dur", duration=True),
                                             _scalar(args, "correlation"),
                                             _external_id(args),
                                             _scalar(args, "device", _scalar(ev, "pid"))))
                    elif ph == "s" and cat == "ac2g" and "id" in ev:
                        thread = (_scalar(ev, "pid"), _scalar(ev, "tid"))
                        if (corr := _scalar(ev, "id")) not in launches:  # else unused
                            flows[corr] = (threads.setdefault(thread, thread),
                                           _number(ev, "ts"))
                except _Skip as skip:
                    skipped.add(index, ev, skip)
    except _READ_ERRORS as err:
        raise InputError(str(path), f"not a readable trace JSON: {err}", row=index + 1 or None,
                         check="JSON") from None
    except InputError as err:  # too deep
        raise InputError(err.file, err.message, row=index + 1, check=err.check) from None
    if not index:
        raise InputError(str(path), "no traceEvents: not a PyTorch profiler trace",
                         check="trace events")
    for corr in [c for c in flows if c in launches]:  # :func:`link` asks launches first
        del flows[corr]
    trace.notes = skipped.notes()
    return trace


def _freeze(value: object) -> object:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def _shared(cache: dict[tuple, list], kind: str, value: list | None) -> list | None:
    """The first list equal to ``value`` read so far (never changed after reading)."""
    if value is None:
        return None
    return cache.setdefault((kind, _freeze(value)), value)


def link(trace: Trace) -> None:
    """Set each :class:`Work`'s operator and method (module docstring), in place.

    Also counts in :attr:`Trace.contradicted` the External id matches that time
    containment contradicted (not used).
    """
    ops = trace.ops
    by_ext: dict[object, list[int]] = defaultdict(list)
    by_thread: dict[tuple, list[int]] = defaultdict(list)
    for i, op in enumerate(ops):
        by_ext[op.ext].append(i)
        by_thread[op.thread].append(i)
    queries: dict[tuple, list[tuple[float, int]]] = defaultdict(list)
    places = []
    for w, item in enumerate(trace.work):
        launch = trace.launches.get(item.correlation) or trace.flows.get(item.correlation)
        places.append(launch)
        if launch is None:
            item.method = "no launch"
        else:
            queries[launch[0]].append((launch[1], w))
    inner = _innermost(ops, by_thread, queries)
    for w, item in enumerate(trace.work):
        launch = places[w]
        if launch is None:
            continue
        thread, ts = launch
        # Older traces put the correlation id in "External id": no operator id there.
        if item.ext is not None and item.ext != item.correlation and item.ext in by_ext:
            held = [i for i in by_ext[item.ext]
                    if ops[i].thread == thread and ops[i].ts <= ts <= ops[i].end]
            if held:
                item.op, item.method = held[-1], "id"
                continue
            trace.contradicted += 1
        found = inner.get(w, -1)
        item.op, item.method = (found, "time") if found >= 0 else (-1, "outside ops")


def _innermost(ops: list[Op], by_thread: dict, queries: dict) -> dict[int, int]:
    """Work index → the innermost op of its thread holding its launch time (a sweep).

    Operators of one thread nest (a call stack), so a stack of the open ones, swept in
    time order with the launches, gives the innermost in O(n log n).
    """
    found: dict[int, int] = {}
    for thread, asked in queries.items():
        order = sorted(by_thread.get(thread, ()), key=lambda i: (ops[i].ts, -ops[i].end))
        starts = [ops[i].ts for i in order]
        stack: list[int] = []
        j = 0
        for ts, w in sorted(asked):
            stop = bisect_right(starts, ts)
            while j < stop:
                o = order[j]
                while stack and ops[stack[-1]].end < ops[o].ts:
                    stack.pop()
                stack.append(o)
                j += 1
            while stack and ops[stack[-1]].end < ts:
                stack.pop()
            if stack:
                found[w] = stack[-1]
    return found
