"""Atomic output files: write to a temporary name beside the target, then rename.

A run killed mid-write therefore leaves either the old file or none, never half a file;
its temporary file is removed by the next run that writes the target. A command's outputs
are written all or none (:func:`all_or_none`), never over one of its inputs.

A target that is a character device or a FIFO (``-o /dev/null``, ``-o >(gzip)``) is
written into, never replaced: the rename would put a regular file in its place (as root,
in ``/dev``). A block device or a socket is refused. A write the system refuses (disk
full, read-only folder, no permission) is a :class:`~rooflow.errors.WriteError` naming the
target and the OS's reason; its temporary file is removed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import polars as pl


def current_umask() -> int:
    """This process' umask, read without changing it (Linux), else set and put back."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def special_kind(path: str | Path) -> str | None:
    """What ``path`` is when it is no regular file or folder, else None.

    ``character device``, ``FIFO``, ``block device`` or ``socket`` (a link is followed).
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    for test, name in ((stat.S_ISCHR, "character device"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return None


WRITTEN_INTO = ("character device", "FIFO")
"""Special files an output is written into (never replaced); others are refused."""
_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def write_error(path: str | Path, err: BaseException) -> Exception | None:
    """The :class:`~rooflow.errors.WriteError` for ``err`` raised writing ``path``, or None.

    An :class:`OSError`, or a polars error that wraps one (polars' Rust writers report
    ``... (os error 28)``, no errno), names ``path`` and the OS's reason; anything else is
    no write error (None).
    """
    from rooflow.errors import WriteError

    code: int | None = None
    if isinstance(err, OSError) and err.errno is not None:
        code = err.errno
    elif isinstance(err, (OSError, pl.exceptions.PolarsError)) and (
            found := _OS_ERROR.search(str(err))):
        code = int(found[1])
    elif isinstance(err, pl.exceptions.PolarsError):
        code = _disk_refusal(path)
    if code is None:
        return None
    name = errno.errorcode.get(code, str(code))
    return WriteError(str(path), f"cannot write: {os.strerror(code)} ({name})",
                      check="output written", errno=code)


_NEARLY_FULL = 1 << 20
"""Free bytes under which a failed polars write is blamed on the disk (see below)."""


def _disk_refusal(path: str | Path) -> int | None:
    """ENOSPC or EROFS when ``path``'s file system is full or read-only, else None.

    Some polars writers lose the OS error of a failed write (a Parquet file with
    metadata on a full disk: ``Invalid thrift: transport error``): the file system says
    what refused it.
    """
    try:
        fs = os.statvfs(Path(path).parent)
    except OSError:
        return None
    if fs.f_flag & os.ST_RDONLY:
        return errno.EROFS
    return errno.ENOSPC if fs.f_bavail * fs.f_frsize < _NEARLY_FULL else None


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """OS refusals inside the block re-raised as :func:`write_error` naming ``path``."""
    try:
        yield
    except Exception as err:
        problem = write_error(path, err)
        if problem is None:
            raise
        raise problem from None


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; rename it to ``path`` on success.

    Inside :func:`all_or_none` the rename waits for the command's other outputs. Temporary
    files a killed run left for ``path`` are removed first (:func:`remove_stale_temps`).
    A character device or FIFO at ``path`` is written into instead (its temporary file is
    in the system's temporary folder, not beside it); a block device or socket is refused.

    Raises:
        InputError: ``path`` is a block device or a socket.
        WriteError: the system refused a write (disk full, read-only, no permission).
    """
    path = Path(path)
    special = special_kind(path)
    _refuse_special(path, special)
    with _writing(path):
        if special:
            fd, tmp = tempfile.mkstemp(prefix=".rooflow-", suffix=".tmp")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temps(path)
            fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp",
                                       dir=path.parent)
        os.close(fd)
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp makes 0600: outputs are shared
    staged = _STAGED.get()
    try:
        with _writing(path):
            yield Path(tmp)
        if staged is None:
            _put(Path(tmp), path)
        else:  # renamed with the command's other outputs, by all_or_none
            staged.append((Path(tmp), path))
            tmp = ""
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def _refuse_special(path: Path, special: str | None) -> None:
    from rooflow.errors import InputError

    if special and special not in WRITTEN_INTO:
        raise InputError(str(path), f"is a {special}: rooflow writes only files, character "
                         "devices (/dev/null) and FIFOs", check="output")


def _put(tmp: Path, path: Path) -> None:
    """Move the finished ``tmp`` to ``path``: a rename, or a copy into a device or FIFO.

    Raises:
        InputError: a FIFO with no reader (nothing would read what is written).
        WriteError: the system refused the rename or the write.
    """
    from rooflow.errors import InputError

    special = special_kind(path)
    _refuse_special(path, special)
    with _writing(path):
        if not special:
            os.replace(tmp, path)
            return
        try:  # a FIFO without a reader: ENXIO at once, rather than waiting for one
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as err:
            if err.errno != errno.ENXIO:
                raise
            raise InputError(str(path), "is a FIFO that nobody reads: nothing written",
                             check="output") from None
        os.set_blocking(fd, True)
        try:
            with open(tmp, "rb") as src, open(fd, "wb", closefd=False) as dst:
                shutil.copyfileobj(src, dst)
        finally:
            os.close(fd)
        os.unlink(tmp)


# --- all outputs or none ----------------------------------------------------------------

_STAGED: ContextVar[list[tuple[Path, Path]] | None] = ContextVar("rooflow_staged", default=None)


@contextmanager
def all_or_none(outputs: Iterable[str | Path | None],
                inputs: Iterable[str | Path] = ()) -> Iterator[None]:
    """A command's outputs: every one written, or none.

    Each :func:`atomic_path` inside keeps its temporary file until the block ends; then
    all are renamed into place, or, when the block raises, all are removed (a table is
    not left behind when the plot after it fails). Nested blocks join the outer one.

    Args:
        outputs: the paths the block will write (None and "-", stdout, are skipped).
        inputs: the files and folders it reads.

    Raises:
        InputError: an output is an input (the same file, by any name), a folder, or
            named twice.
    """
    check_outputs(outputs, inputs)
    if _STAGED.get() is not None:
        yield
        return
    staged: list[tuple[Path, Path]] = []
    token = _STAGED.set(staged)
    try:
        yield
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    finally:
        _STAGED.reset(token)
    pending = staged[::-1]
    try:
        while pending:
            tmp, path = pending[-1]
            _put(tmp, path)
            pending.pop()
    except BaseException:
        for tmp, _ in pending:
            tmp.unlink(missing_ok=True)
        raise


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)  # links and other names of one file
    except OSError:  # one does not exist (yet)
        return a.resolve() == b.resolve()


def check_outputs(outputs: Iterable[str | Path | None], inputs: Iterable[str | Path] = ()) -> None:
    """Refuse outputs that would overwrite an input, a folder, or each other.

    Raises:
        InputError: naming the output and what it collides with.
    """
    from rooflow.errors import InputError

    paths = [Path(p) for p in outputs if p is not None and str(p) != "-"]
    sources = [Path(p) for p in inputs if p is not None and str(p) != "-"]
    for i, path in enumerate(paths):
        if path.is_dir():
            raise InputError(str(path), "is a folder, not an output file", check="output")
        _refuse_special(path, special_kind(path))
        for source in sources:
            if _same_file(path, source):
                raise InputError(str(path), f"is also an input ({source}): rooflow never "
                                 "writes over its inputs", check="output is not an input")
        for other in paths[:i]:
            if _same_file(path, other):
                raise InputError(str(path), f"is named twice as an output (also as {other})",
                                 check="distinct outputs")


# --- temporary files of killed runs ----------------------------------------------------

STALE_AGE_S = 3600
"""A temporary output file untouched this long is a killed run's, whoever made it."""
_HOST = (socket.gethostname().replace("/", "_") or "host")[:64]


_STEM_MAX = 120
"""Bytes of a target's name kept in its temporary file's name: with the host (≤ 64), the
pid and mkstemp's 8 letters it stays within a file name's 255 bytes."""


def _temp_stem(path: Path) -> str:
    """``path``'s name, or for a long one its first bytes and a hash of the whole."""
    name = path.name
    if len(name.encode()) <= _STEM_MAX:
        return name
    digest = hashlib.sha256(name.encode(errors="surrogateescape")).hexdigest()[:16]
    head = name.encode(errors="surrogateescape")[:_STEM_MAX - 17]
    return head.decode(errors="ignore") + "~" + digest


def _temp_prefix(path: Path) -> str:
    """``.NAME.HOST-PID.``: the writer of a temporary file, so the next run knows it dead."""
    return f".{_temp_stem(path)}.{_HOST}-{os.getpid()}."


def remove_stale_temps(path: str | Path) -> list[Path]:
    """Remove the temporary files of ``path`` that killed runs left (``.NAME.*.tmp``).

    One of this host is stale when the process that made it is gone; another host's (a
    shared cluster folder), or an older rooflow's unnamed one, when it was not modified
    for :data:`STALE_AGE_S`. Files of running writers on this host are kept.

    Returns:
        The files removed.
    """
    path = Path(path)
    start, removed = f".{_temp_stem(path)}.", list[Path]()
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(start) and name.endswith(".tmp")):
            continue
        writer = name[len(start):-len(".tmp")].rpartition(".")[0]
        host, _, pid = writer.rpartition("-")
        try:
            if host == _HOST and pid.isdigit():  # ours: stale once its writer is gone
                stale = not _alive(int(pid))
            else:
                stale = now - entry.stat(follow_symlinks=False).st_mtime > STALE_AGE_S
            if stale:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:  # gone meanwhile, or not ours to remove
            continue
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def write_csv(frame: pl.DataFrame, path: str | Path | None) -> None:
    """Write ``frame`` as CSV atomically, or to stdout when ``path`` is None or "-".

    Text cells a spreadsheet would run as a formula get a leading ``'``
    (:func:`rooflow.escape.neutralize_csv`).
    """
    from rooflow.escape import neutralize_csv

    frame = neutralize_csv(frame)  # no cell a spreadsheet would run as a formula
    if path is None or str(path) == "-":
        sys.stdout.write(frame.write_csv())
        return
    with atomic_path(path) as tmp:
        frame.write_csv(tmp)


def write_parquet(frame: pl.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as Parquet atomically."""
    with atomic_path(path) as tmp:
        frame.write_parquet(tmp)
