"""How a rooflow program ends: without Python's teardown of what it imported.

Python ends a program by running the ``atexit`` handlers (matplotlib's removal of a
temporary config folder, logging's flush), then freeing every object its imports made
(matplotlib's, polars', numpy's) and collecting garbage again, for a process about to
vanish: ≈ 0.13 s of a 2-point ``plot`` (bench/NOTES.md), and of every workflow job.
The ``rooflow`` program (:func:`rooflow.commands.console`) and the rule scripts
(:func:`rooflow.rulescript.run`) end through :class:`QuickExit` instead.
"""

from __future__ import annotations

import atexit
import os
import sys


class QuickExit:
    """The ``atexit`` handler that ends the process at once, with exit code :attr:`code`.

    Registered when made. Handlers run last registered first, so this one runs after
    those registered later (the libraries the program then imports register theirs:
    they still run) and stops those registered before it. It flushes stdout and stderr,
    then calls ``os._exit``: a program's files must be closed by then (rooflow writes
    each through :mod:`rooflow.io`, closed and renamed in place before the command ends).
    """

    def __init__(self) -> None:
        self.code = 1
        """The exit code: 1 until the program sets it (an exception escaped; Python has
        printed it before the handlers run)."""
        atexit.register(self._exit)

    def _exit(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe or file: nothing left to say
                pass
        os._exit(self.code)
