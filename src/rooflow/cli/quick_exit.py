"""How the ``rooflow`` program ends: without Python's teardown of what it imported.

Python ends a program by running the ``atexit`` handlers (matplotlib's removal of a
temporary config folder, logging's flush), then freeing every object its imports made
(matplotlib's, polars', numpy's) and collecting garbage again, for a process about to
vanish: a measurable share of a 2-point ``plot`` (bench/NOTES.md). The program
(:func:`rooflow.cli.program.console`) ends through :class:`QuickExit` instead.
"""

from __future__ import annotations

import atexit
import os
import sys


class QuickExit:
    """The ``atexit`` handler that ends the process at once, with exit code :attr:`code`.

    Registered when made, if no handler is registered yet. Handlers run last registered
    first, so this one runs after those the program then registers (its libraries'
    cleanups still run); one registered before it (``sitecustomize``, coverage measuring
    a subprocess) it would skip, so then the program ends the normal way. The handler
    flushes stdout and stderr, then calls ``os._exit``: the program's files must be
    closed by then (rooflow's are, through :mod:`rooflow.io`, before a command ends).

    A reader that stopped reading (``rooflow table ... | head``) is not an error; any
    other failure to write what stdout still holds (a full disk) is one line on stderr
    and exit code 1, never 0.
    """

    def __init__(self) -> None:
        self.code = 1
        """The exit code: 1 until the program sets it (an exception escaped; Python has
        printed it before the handlers run)."""
        # CPython's count of handlers; without it, assume one is there.
        if getattr(atexit, "_ncallbacks", lambda: 1)() == 0:
            atexit.register(self._exit)

    def _exit(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:  # None: the program was started with it closed
                    stream.flush()
            except (BrokenPipeError, ValueError):  # the reader stopped; already closed
                pass
            except OSError as err:
                if stream is sys.stdout and self.code == 0:  # else: the failure was said
                    self.code = 1
                    try:
                        print(f"rooflow: error: could not write standard output: "
                              f"{err.strerror or err}", file=sys.stderr, flush=True)
                    except (OSError, ValueError, AttributeError):
                        pass
        os._exit(self.code)
