"""Read-only access to the SQLite databases profilers write (rocpd, rocprof-compute).

A database is opened only after :func:`rooflow.safeload.check_file` (a regular, readable
file of bounded size) and a look at its first 16 bytes (SQLite's magic header), and then
read-only through a URI (``mode=ro``, ``immutable=1``: SQLite docs, "URI filenames"), so
reading never writes to it nor creates ``-wal`` / ``-journal`` / ``-shm`` files beside it.
Only explicit columns are ever selected: a rocpd file also stores the profiled process's
environment and command line (``rocpd_info_process``), which rooflow never reads.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

from rooflow.errors import InputError

MAGIC = b"SQLite format 3\x00"
"""First 16 bytes of every SQLite 3 database (sqlite.org/fileformat.html, 1.3)."""


def is_sqlite(path: Path) -> bool:
    """Whether ``path`` is a regular file starting with SQLite's magic header."""
    if not path.is_file():  # a FIFO would block the open
        return False
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def connect(path: str | Path) -> sqlite3.Connection:
    """A read-only connection to the database ``path`` (checked first; module doc).

    Raises:
        InputError: not a readable regular file of bounded size; not an SQLite database.
    """
    from rooflow.safeload import check_file

    path = Path(path)
    check_file(path, "an SQLite database")
    if not is_sqlite(path):
        raise InputError(str(path), "is not an SQLite database (no 'SQLite format 3' header)",
                         check="SQLite header")
    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise InputError(str(path), f"cannot be opened as SQLite: {err}",
                         check="SQLite open") from None


def names(con: sqlite3.Connection) -> dict[str, str]:
    """Table and view names of the database → ``table`` or ``view``."""
    return dict(con.execute(
        "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')").fetchall())


def columns(con: sqlite3.Connection, table: str) -> list[str]:
    """Column names of a table or view (``PRAGMA table_info``)."""
    return [row[1] for row in con.execute(f'PRAGMA table_info("{table}")').fetchall()]


def table_names(path: Path) -> dict[str, str]:
    """:func:`names` of ``path``, or {} when it is not a readable SQLite file (for sniffing)."""
    if not is_sqlite(path):
        return {}
    try:
        con = connect(path)
    except InputError:
        return {}
    try:
        return names(con)
    except sqlite3.Error:
        return {}
    finally:
        con.close()
