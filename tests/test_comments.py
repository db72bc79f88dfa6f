"""No timing in a comment of ``src/`` or ``workflow/``: comments say why, and the figures
that showed it live in bench/NOTES.md, with when and where they were measured.

A docstring may name a duration that is not a timing of rooflow (a kernel's duration in
a worked example, a library's default): :data:`NOT_TIMINGS` lists each one.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s?[–-]\s?\d+(?:\.\d+)?)?\s?"
                  r"(?:ms|s|µs|us|ns|seconds?|minutes?|min)\b(?![/·])")
"""A number and a unit of time: ``0.75 ms``, ``1.4 s``, ``0.5–1 s``, ``20 µs``."""

NOT_TIMINGS = {
    ("src/rooflow/adapters/amd/computedb.py", "802,489 ns"): "a sample kernel's duration",
    ("src/rooflow/adapters/amd/rocprof.py", "430.6 ms"): "sample kernels' durations",
    ("src/rooflow/adapters/amd/rocprof.py", "20 µs copies"): "sample copies' duration",
    ("src/rooflow/adapters/breakdown.py", "1e-300 s"): "an input that overflows",
    ("src/rooflow/cli/program.py", "(≥ 50 ms)"): "the gain a process-level step must show",
    ("src/rooflow/cli/program.py", "0.5–1 s"): "jemalloc's own decay time",
    ("src/rooflow/export.py", "10 ms, 3 ms, 0.5 ms"): "how a time column's unit is chosen",
}
"""(file, text of its docstring line) → why that duration is not a timing of rooflow."""


def _sources() -> list[Path]:
    found = [*(ROOT / "src").rglob("*.py"), *(ROOT / "workflow").rglob("*.py"),
             *(ROOT / "workflow").rglob("*.smk"), ROOT / "workflow" / "Snakefile"]
    return sorted(p for p in found if "__pycache__" not in p.parts)


def _comments_and_docstrings(path: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(line, text) of each comment and each docstring line. Snakemake files are not
    Python: there, a comment is a ``#`` outside quotes to the end of its line."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        comments = []
        for number, line in enumerate(text.splitlines(), 1):
            code = re.sub(r"\"[^\"]*\"|'[^']*'", "", line)
            if "#" in code:
                comments.append((number, code[code.index("#"):]))
        return comments, []
    comments, docs = [], []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            comments.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING and tok.string.lstrip("rbuRBU").startswith(('"""', "'''")):
            docs += [(tok.start[0] + i, line) for i, line in enumerate(tok.string.splitlines())]
    return comments, docs


def _timings() -> tuple[list[str], set[tuple[str, str]]]:
    """Lines citing a time, and the :data:`NOT_TIMINGS` entries that matched a line."""
    found, used = [], set()
    for path in _sources():
        name = path.relative_to(ROOT).as_posix()
        comments, docs = _comments_and_docstrings(path)
        found += [f"{name}:{n}: {c.strip()}" for n, c in comments if TIME.search(c)]
        for n, line in docs:
            if TIME.search(line):
                allowed = [k for k in NOT_TIMINGS if k[0] == name and k[1] in line]
                used.update(allowed)
                if not allowed:
                    found.append(f"{name}:{n}: {line.strip()}")
    return found, used


def test_no_comment_or_docstring_cites_a_timing():
    found, used = _timings()
    assert found == [], "move the figure to bench/NOTES.md, keep the why"
    assert used == set(NOT_TIMINGS), "an entry of NOT_TIMINGS no longer matches: drop it"


def test_the_pattern_finds_timings_and_leaves_rates_alone():
    assert all(TIME.search(t) for t in ("cost ≈ 0.75 ms each", "dry runs: 1.4 s of 9 s",
                                        "not after 0.5–1 s", "a 3 µs call", "10 seconds"))
    assert not any(TIME.search(t) for t in ("608 GB/s", "FLOP/s", "time_s", "MI300s",
                                            "10⁷ rows", "2 dispatches"))
