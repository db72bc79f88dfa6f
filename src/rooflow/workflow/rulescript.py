"""Glue for the Snakemake rule scripts: logging and clean failure on bad input."""

from __future__ import annotations

import contextlib
import resource
import sys
from collections.abc import Callable
from pathlib import Path

from rooflow.errors import InputError, WriteError, internal_error_line
from rooflow.escape import terminal_text
from rooflow.workflow.paths import TRACEBACK


def traceback_path(log_path: str | Path) -> Path:
    """Where a job's traceback goes: beside its log, ``<log>.traceback``.

    Never in the log itself: the workflow profiles show a failed job's log on screen
    (``show-failed-logs``), and that must be the one error line.
    """
    return Path(TRACEBACK.format(log=log_path))


def peak_rss_mb() -> float:
    """This program's peak resident memory so far, in MiB.

    Linux: ``VmHWM`` of ``/proc/self/status``, the peak of this program alone.
    ``getrusage``'s ``ru_maxrss`` (elsewhere) also counts the process that started it
    (Snakemake) up to the exec.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes there, else KiB


def run(
    step: Callable[[Callable[[str], None]], None],
    log_path: str,
    failed: Callable[[str], None] | None = None,
) -> None:
    """Run ``step(log)`` with stderr sent to the rule's log file.

    An :class:`InputError` becomes one line ``rooflow: error: ...`` in the log and exit
    code 1 (Snakemake then removes the job's outputs); any other error one line
    ``rooflow: internal error: ... (details in <log>.traceback)``, the traceback in that
    file, exit 2. The profiles' ``show-failed-logs`` puts the log, so that line, on
    screen; nothing else is printed there.

    ``failed``: called with the line instead of failing (the job then ends with exit 0),
    for a job whose outputs record the failure (a model check's placeholders; a batch job
    records a dataset's own bad input itself: :func:`rooflow.workflow.batches.make_points`).
    A write the system refused (:class:`~rooflow.errors.WriteError`: disk full, read-only)
    or another :class:`OSError` is the machine's trouble, not the input's: never recorded,
    the job fails (exit 1, or 2 with its traceback), and the next run tries again.

    A job that succeeds (``failed`` included) ends its log with its peak resident memory,
    ``peak RSS N MB`` (:func:`peak_rss_mb`), to set beside the ``mem_mb`` it declared
    (:mod:`rooflow.workflow.jobmemory`); a failed job's log stays its one error line.

    Plots are drawn on Agg canvases outside pyplot (:func:`rooflow.plotting.new_figure`),
    whatever matplotlib backend the job's environment names.
    """
    details = traceback_path(log_path)
    details.unlink(missing_ok=True)  # an earlier run's: not this one's
    # stderr (warnings, libraries' messages) to the log while the step runs, put back after.
    with open(log_path, "w") as log_file, contextlib.redirect_stderr(log_file):

        def log(message: str) -> None:  # shown on screen: one line, no control character
            print(terminal_text(message), file=log_file, flush=True)

        transient = False
        try:
            step(log)
        except WriteError as err:
            code, line, transient = 1, f"rooflow: error: {err}", True
        except InputError as err:
            code, line = 1, f"rooflow: error: {err}"
        except OSError as err:  # the system's, not the input's: no failure of the dataset
            log_file.flush()
            code, line, transient = 2, internal_error_line(err, str(details)), True
        except Exception as err:  # noqa: BLE001 - bugs become one line; traceback apart
            log_file.flush()
            code, line = 2, internal_error_line(err, str(details))
        else:
            log(f"peak RSS {peak_rss_mb():.0f} MB")
            return
        log(line)
        if failed is not None and not transient:
            try:
                failed(line)
                log(f"peak RSS {peak_rss_mb():.0f} MB")
                return
            except WriteError as err:  # a full disk: the job fails, nothing recorded
                code, line = 1, f"rooflow: error: {err}"
                log(line)
            except Exception as err:  # noqa: BLE001 - one line as well
                code, line = 2, internal_error_line(err, str(details))
                log(line)
        sys.exit(code)
