"""NVIDIA's native report reader, run in a child process: a corrupt report cannot end rooflow.

``ncu_report`` parses a ``.ncu-rep`` with protobuf in native code; some corrupt files (one
byte of a block header changed is enough) fail its internal checks, and it calls
``abort()``: SIGABRT, the whole process gone, whatever Python code called it (the CLI, a
batch job, Snakemake's own process while it plans). So every report is read in a child
(``python -m rooflow.formats.ncu.native``, kept for the next report until one crashes:
:class:`_Reader`) that returns plain data: per profiled kernel launch, its kernel name
and its metrics ``(name, unit, value as text)``. What the library logs (protobuf's and
absl's ``E…``/``F…`` lines, "All log messages before absl::InitializeLog()…") goes to a
temporary file, never to the user; the last ``F``/``E`` line's message is kept for the
error line. The answers travel as JSON lines on a private copy of fd 1, so nothing the
library prints can be taken for one.

A crash (the child killed by a signal, or any exit but the protocol's) is one
:class:`~rooflow.errors.InputError` line naming the file, the signal and the library's
last check; a metric name that is not UTF-8 (``ncu_report`` gives it with surrogate
escapes, and its own ``metric_by_name`` then raises TypeError) is one line too: ncu writes
ASCII metric ids, so such a name is a corrupt report.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from rooflow.errors import InputError

Launch = tuple[str, list[tuple[str, str, str]]]
"""A profiled kernel launch: its kernel name, its metrics ``(name, unit, text)``."""

_LOG_LINE = re.compile(r"^[FE]\d{4} [^\]]*\] ?(.*)$")
"""An absl/glog line: severity, date, time, thread, ``file:line]``, then the message."""


def printable(text: str) -> str:
    r"""``text`` with bytes that were not UTF-8 (surrogate escapes) written as ``\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape")
        return raw.decode("utf-8", "backslashreplace")


def _text(metric: Any) -> str:
    """A metric's value as text (``str`` of a float round-trips); "n/a" where it has none."""
    value = metric.value() if metric.has_value() else None
    return "n/a" if value is None else printable(str(value))


def first_text(module: Any, path: str, metric: str) -> str | dict[str, str]:
    """The value (as text) of ``metric`` in the report's first launch that has it, else "".

    Only that metric is looked up (planning's GPU name): much less than :func:`extract`.
    """
    try:
        context = module.load_report(path)
    except Exception as err:  # noqa: BLE001 - as extract
        return {"error": f"Nsight Compute report not readable: {printable(str(err))}",
                "check": "ncu-report"}
    for r in range(context.num_ranges()):
        actions = context.range_by_idx(r)
        for a in range(actions.num_actions() if actions is not None else 0):
            found = actions.action_by_idx(a).metric_by_name(metric)
            if found is not None and found.has_value() and (text := _text(found).strip()):
                return text
    return ""


def extract(module: Any, path: str) -> list[Launch] | dict[str, str]:
    """Every launch of the report at ``path``, read with ``module`` (``ncu_report``).

    Returns:
        The launches in profiling order over all ranges (ncu's ``ID``), metric-collection
        requests (``regex:…``) left out; or ``{"error": line, "check": check}`` for a
        report the reader refuses or a metric name that is not UTF-8.
    """
    try:
        context = module.load_report(path)
    except Exception as err:  # noqa: BLE001 - the package raises what its native layer gives
        return {"error": f"Nsight Compute report not readable: {printable(str(err))}",
                "check": "ncu-report"}
    launches: list[Launch] = []
    for r in range(context.num_ranges()):
        actions = context.range_by_idx(r)
        for a in range(actions.num_actions() if actions is not None else 0):
            action = actions.action_by_idx(a)
            kernel = printable(action.name(action.NameBase_DEMANGLED) or action.name())
            metrics: list[tuple[str, str, str]] = []
            for name in action.metric_names():
                if printable(name) != name:
                    return {"error": f"launch {len(launches)} ({kernel[:80]}): metric name "
                            f"'{printable(name)[:120]}' is not UTF-8: the report is corrupt",
                            "check": "utf-8 metric name"}
                if ":" in name:  # "regex:sm__…": the request that collected the metrics
                    continue
                metric = action.metric_by_name(name)
                if metric is not None:
                    metrics.append((name, printable(metric.unit() or ""), _text(metric)))
            launches.append((kernel, metrics))
    return launches


def installed() -> bool:
    """Whether the ``ncu_report`` package can be imported (without importing it here)."""
    if "ncu_report" in sys.modules:
        return sys.modules["ncu_report"] is not None
    import importlib.util

    return importlib.util.find_spec("ncu_report") is not None


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return str(-code)


def _last_check(stderr: bytes) -> str | None:
    """The last absl/glog ``F``/``E`` line's message on the child's stderr, else its last line."""
    lines = [" ".join(line.split()) for line in stderr.decode("utf-8", "replace").splitlines()]
    checks = [m.group(1) for line in lines if (m := _LOG_LINE.match(line)) and m.group(1)]
    last = (checks or [line for line in lines if line] or [None])[-1]
    return last[:200] if last else None


class _Reader:
    """One child that reads reports one after another, a JSON line in and out per report.

    The path goes in on its stdin, the launches come out on the private copy of its fd 1.
    NVIDIA's library is slow to start in a process (its first action read) and quick per
    small report after: one child for a planning that reads many reports pays the start
    once. After a crash or a time-out the next report starts a new child. Its
    stderr (the library's log lines) goes to an unnamed temporary file, read only for the
    error line of a crash.
    """

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.log: Any = None
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        # -P: not the working folder first on the child's path; rooflow found where this
        # process found it (the workflow puts its own src/ first).
        here = str(Path(__file__).resolve().parents[3])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [here, os.environ.get("PYTHONPATH")]))}
        self.log = tempfile.TemporaryFile()
        proc = subprocess.Popen([sys.executable, "-P", "-m", __name__], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=self.log)
        self.lines = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, self.lines), daemon=True).start()
        self.proc = proc
        return proc

    def stop(self) -> None:
        """End the child (it exits at the end of its input), if one runs."""
        if self.proc is not None:
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def read(self, path: str, timeout: float | None, source: str,
             metric: str | None = None) -> object:
        """The child's :func:`extract` (or :func:`first_text` of ``metric``) of ``path``.

        Errors name ``source``, the path as given.
        """
        with self.lock:
            proc = self.proc if self.proc is not None and self.proc.poll() is None \
                else self._start()
            logged = os.fstat(self.log.fileno()).st_size  # this report's log starts here
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps([path, metric]).encode() + b"\n")
                proc.stdin.flush()
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                proc.kill()
                proc.wait()
                self.proc = None
                raise InputError(source, f"ncu_report took longer than {timeout:g} s reading "
                                 "the report", check="ncu-report") from None
            except OSError:  # the child died before it read the path
                line = None
            if line is not None:
                return json.loads(line)
            code = proc.wait()
            self.proc = None
            self.log.seek(logged)
            how = f"signal {_signal_name(code)}" if code < 0 else f"exit status {code}"
            raise InputError(source, f"ncu_report crashed reading the report ({how}); the "
                             "file is corrupt or from an unsupported Nsight Compute version",
                             check="ncu-report", value=_last_check(self.log.read()))


def _pump(stream: Any, lines: queue.Queue[bytes | None]) -> None:
    """Each line of the child's answers into ``lines``; None when it ends."""
    for line in stream:
        lines.put(line)
    lines.put(None)


_READER = _Reader()
atexit.register(_READER.stop)


def stop() -> None:
    """End the reading child now (planning, once it has read every report it needs)."""
    _READER.stop()


def launches(path: str | Path, *, timeout: float | None = None) -> list[Launch]:
    """The launches of a ``.ncu-rep`` report (:func:`extract`), read in a child process.

    Args:
        path: the report (checked as a readable regular file by the caller).
        timeout: seconds the child may take (None: no limit).

    Raises:
        InputError: the reader crashed (signal or exit status named, with its last
            logged check), took longer than ``timeout``, refused the file, or a metric
            name is not UTF-8.
    """
    # Absolute: the child keeps the working folder it started in.
    result = _READER.read(os.path.abspath(path), timeout, str(path))
    if isinstance(result, dict):
        raise InputError(str(path), result["error"], check=result["check"])
    assert isinstance(result, list)
    return [(kernel, [tuple(m) for m in metrics]) for kernel, metrics in result]


def first_value(path: str | Path, metric: str, *, timeout: float | None = None) -> str:
    """:func:`first_text` of a report, read in the child; "" where no launch has it.

    Raises:
        InputError: as :func:`launches`.
    """
    result = _READER.read(os.path.abspath(path), timeout, str(path), metric)
    if isinstance(result, dict):
        raise InputError(str(path), result["error"], check=result["check"])
    return str(result)


_CACHE: dict[tuple[str, int, int], list[Launch] | InputError] = {}
_CACHED = 4
"""Reports whose launches (or error) :func:`cached_launches` keeps."""


def cached_launches(path: str | Path, *, timeout: float | None = None) -> list[Launch]:
    """:func:`launches`, or its error, kept for the last few reports read (size, time stamp).

    A batch job reads each pass once; the command line may read one twice (its kind,
    then its points).
    """
    info = os.stat(path)
    key = (os.fspath(path), info.st_size, info.st_mtime_ns)
    if key not in _CACHE:
        try:
            _CACHE[key] = launches(path, timeout=timeout)
        except InputError as err:
            _CACHE[key] = err
        while len(_CACHE) > _CACHED:
            del _CACHE[next(iter(_CACHE))]
    found = _CACHE[key]
    if isinstance(found, InputError):
        raise found
    return found


def _child() -> int:
    """The child: per path on stdin, its JSON answer on the private copy of fd 1; exit 0."""
    out = os.fdopen(os.dup(1), "w", encoding="ascii")
    os.dup2(2, 1)  # what the library prints goes where its logs go: not the answers
    import ncu_report  # noqa: PLC0415 - only in the child

    for line in sys.stdin:
        path, metric = json.loads(line)
        answer = (extract(ncu_report, path) if metric is None
                  else first_text(ncu_report, path, metric))
        json.dump(answer, out, ensure_ascii=True)
        out.write("\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_child())
