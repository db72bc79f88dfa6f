"""``rooflow ARGS`` run in the test's own process, for the tests that feed it hostile input."""

from __future__ import annotations

from rooflow.cli.main import main


def run_full(capsys, *args: object) -> tuple[int, str, str]:
    """``rooflow ARGS`` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def run(capsys, *args: object) -> tuple[int, list[str]]:
    """``rooflow ARGS`` in this process: (exit code, stderr lines)."""
    code, _, err = run_full(capsys, *args)
    return code, err.splitlines()
