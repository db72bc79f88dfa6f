"""Glue for the Snakemake rule scripts: logging and clean failure on bad input."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from rooflow.errors import InputError, internal_error_line


def run(step: Callable[[Callable[[str], None]], None], log_path: str) -> None:
    """Run ``step(log)`` with stderr sent to the rule's log file.

    An :class:`InputError` becomes one line, written to the log and to the
    terminal, and exit code 1 (Snakemake then removes the job's outputs); any other
    error one "internal error" line on the terminal, its traceback in the log, exit 2.
    Plots are drawn with matplotlib's Agg (a job has no display).
    """
    # Read when matplotlib is first imported: jobs that draw nothing never import it.
    os.environ["MPLBACKEND"] = "agg"
    with open(log_path, "w") as log_file:
        sys.stderr = log_file

        def log(message: str) -> None:
            print(message, file=log_file, flush=True)

        try:
            step(log)
        except InputError as err:
            line = f"rooflow: error: {err}"
            log(line)
            print(line, file=sys.__stderr__, flush=True)
            sys.exit(1)
        except Exception as err:  # noqa: BLE001 - bugs become one line; traceback in the log
            log_file.flush()
            line = internal_error_line(err, log_path)
            print(line, file=sys.__stderr__, flush=True)
            sys.exit(2)
