"""``python bench/attack.py [PYTEST ARGS]``: every hostile-input test, counted per root cause.

Each ``tests/test_hostile_NAME.py`` holds the reproducers of one root cause (the first line
of its docstring says which: native code that aborts, files opened at planning, ...); the
files are globbed, so one added by anyone is counted. Runs pytest once over all of them
(``-q``, its JUnit XML report read for the counts) with the arguments given (e.g. ``-m "not
workflow"`` for the quick cases alone) and prints one row per file: passed, failed (errors
included), skipped, and its root cause, then the totals. Exit status: pytest's.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"


def cause(path: Path) -> str:
    """The first line of the test file's docstring (its root cause), else its name."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.splitlines()[0] if doc else path.stem


def counts(report: Path) -> dict[str, dict[str, int]]:
    """Test module → {"passed", "failed", "skipped"} from a JUnit XML report."""
    found: dict[str, dict[str, int]] = {}
    for case in ET.parse(report).iter("testcase"):
        module = case.get("classname", "").split(".")[-1]
        outcome = ("failed" if case.find("failure") is not None or case.find("error")
                   is not None else "skipped" if case.find("skipped") is not None
                   else "passed")
        row = found.setdefault(module, {"passed": 0, "failed": 0, "skipped": 0})
        row[outcome] += 1
    return found


def main(args: list[str]) -> int:
    files = sorted(TESTS.glob("test_hostile_*.py"))
    if not files:
        print("no tests/test_hostile_*.py", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               f"--junitxml={report}", *map(str, files), *args], cwd=REPO)
        found = counts(report) if report.exists() else {}
    total = {"passed": 0, "failed": 0, "skipped": 0}
    print(f"\n{'file':<32} {'passed':>6} {'failed':>6} {'skipped':>7}  root cause")
    for path in files:
        row = found.get(path.stem, {"passed": 0, "failed": 0, "skipped": 0})
        for key in total:
            total[key] += row[key]
        print(f"{path.stem:<32} {row['passed']:>6} {row['failed']:>6} {row['skipped']:>7}  "
              f"{cause(path)}")
    print(f"{'total':<32} {total['passed']:>6} {total['failed']:>6} {total['skipped']:>7}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
