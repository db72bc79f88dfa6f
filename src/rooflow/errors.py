"""User-facing input errors: one line naming file, row, column, check and value."""

from __future__ import annotations

import os


class InputError(Exception):
    """Bad user input (a raw file, a config entry, a CLI argument).

    The CLI and the rule scripts print ``str(err)`` as one line and exit 1 with no
    traceback. ``row`` is the 1-based data row (header excluded) when known.
    """

    def __init__(
        self,
        file: str | None,
        message: str,
        *,
        row: int | None = None,
        column: str | None = None,
        check: str | None = None,
        value: object = None,
    ) -> None:
        self.file = None if file is None else str(file)
        self.message = message
        self.row = row
        self.column = column
        self.check = check
        self.value = value
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = [self.file or "<input>"]
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        text = ", ".join(where) + ": " + self.message
        if self.check is not None:
            text += f" [check: {self.check}]"
        if self.value is not None:
            text += f" (value: {self.value!r})"
        # One line, whatever the message holds; no control character reaches a terminal.
        return terminal_line(text)


class WriteError(InputError):
    """The system refused to write an output (disk full, read-only folder, no permission).

    Exit 1 with one line naming the output and the OS's reason, like bad input; but it is
    no fault of any input: a workflow job never records it as its dataset's failure
    (:func:`rooflow.workflow.rulescript.run`), so the next run, with space freed, retries.
    ``errno`` is the OS error number.
    """

    def __init__(self, file: str | None, message: str, *, errno: int | None = None,
                 **kwargs) -> None:
        self.errno = errno
        super().__init__(file, message, **kwargs)


def terminal_line(text: object) -> str:
    r"""``text`` on one line, safe to print on a terminal.

    Newlines, tabs and carriage returns become ``\n``, ``\t``, ``\r``; every other
    control character (ESC, NUL, BEL, DEL, C1) and the Unicode line separators and bidi
    overrides become ``\xNN`` / ``\uNNNN`` (:func:`rooflow.escape.terminal_text`); runs
    of spaces become one.
    """
    from rooflow.escape import terminal_text

    return " ".join(terminal_text(str(text)).split())


def internal_error_line(err: BaseException, log_path: str | None = None) -> str:
    """One line for an unexpected error; its traceback is written to a log file.

    Args:
        err: the exception being handled.
        log_path: the log to append the traceback to (default: a new
            ``rooflow-*.log`` in the temporary folder).

    Returns:
        ``rooflow: internal error: <type>: <message> (details in <log>)``.
    """
    import tempfile
    import traceback

    if log_path is None:
        fd, log_path = tempfile.mkstemp(prefix="rooflow-", suffix=".log")
        os.close(fd)
    with open(log_path, "a") as log:
        traceback.print_exception(err, file=log)
    message = terminal_line(err)[:300]
    return f"rooflow: internal error: {type(err).__name__}: {message} (details in {log_path})"


LEFT_OUT_WORDS = ("left out", "skipped", "not placed")
"""Words of a reader's note that says rows or kernels of an input were left out."""


class LeftOut:
    """The readers' notes on what they left out, while a command loads its inputs.

    The readers log their notes (logger ``rooflow``, printed on stderr); those naming
    something left out (:data:`LEFT_OUT_WORDS`: "3 kernel(s) left out, no FLOP …") are
    also kept for the plot's notes and the page (:meth:`lines`): a plot read alone
    must not look complete when it is not. Use as a context manager around the load.
    """

    def __init__(self) -> None:
        import logging

        self.notes: list[str] = []
        outer = self

        class _Keep(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                text = record.getMessage()
                if any(w in text for w in LEFT_OUT_WORDS):
                    outer.notes.append(text)
                # A handler here stops Python's last-resort printing: print as it does.
                if (not logging.getLogger().handlers and logging.lastResort is not None
                        and record.levelno >= logging.lastResort.level):
                    logging.lastResort.handle(record)

        self._handler = _Keep()

    def __enter__(self) -> LeftOut:
        import logging

        logging.getLogger("rooflow").addHandler(self._handler)
        return self

    def __exit__(self, *exc) -> None:
        import logging

        logging.getLogger("rooflow").removeHandler(self._handler)

    def lines(self) -> tuple[str, ...]:
        """The notes for the plot and the page, each once, whole.

        The file's path is dropped: the plot's title names the dataset. A PNG's notes box
        cuts each (:func:`rooflow.plotting.labels.left_out_lines`).
        """
        import re

        # "path/to/file.db: " first
        return tuple(dict.fromkeys(re.sub(r"^\S*[/\\.]\S*?: ", "", n) for n in self.notes))
