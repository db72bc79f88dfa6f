"""The README's input table: one row per kind of the registry, each with its tool, format
definition and real samples (issue 35).

Columns: kind, file, written by, what is read, format definition, samples in
../shared/data. A kind's samples are folders or files SOURCES.md lists, and rooflow
detects (at least) one of them as that kind; a kind without one says why ("none: …").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rooflow.errors import InputError
from rooflow.kinds import KINDS, detect_kind
from rooflow.roofs import MEASURED, peaks_source

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
COLUMNS = ["kind", "file", "written by", "what is read", "format definition",
           "samples in `../shared/data`"]
LINK = re.compile(r"\[[^\]]+\]\(([^)\s]+)\)")


def _table(text: str, heading: str) -> list[list[str]]:
    """The first Markdown table after ``heading``: header, then rows (cells stripped)."""
    lines = text[text.index(heading):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return [rows[0], *rows[2:]]  # the |---| line left out


def readme_rows() -> dict[str, list[str]]:
    header, *rows = _table((REPO / "README.md").read_text(), "## Inputs (`resources/`)")
    assert header == COLUMNS
    assert all(len(row) == len(COLUMNS) for row in rows), "a row with another cell count"
    names = [row[0] for row in rows]
    assert len(names) == len(set(names)), f"a kind listed twice: {names}"
    return {row[0]: row for row in rows}


def test_the_table_lists_exactly_the_registry_kinds_and_the_peaks_files() -> None:
    rows = readme_rows()
    # Every kind of the registry; any other row a measured-peaks file (a preset, not a
    # dataset): ert and intel, whose kind is their own (not an input kind too).
    assert set(KINDS) <= set(rows)
    assert set(rows) - set(KINDS) == {"ert", "intel"} <= set(MEASURED)


def test_every_row_names_its_tool_and_links_its_format_definition() -> None:
    for kind, row in readme_rows().items():
        written, definition = row[2], row[4]
        assert written, f"{kind}: which tool or command writes it?"
        links = LINK.findall(definition)
        assert links, f"{kind}: no link to the format definition"
        for target in links:
            if not target.startswith("https://"):  # a file of this repository
                assert (REPO / target.split("#")[0]).exists(), f"{kind}: {target}"


def _sources_rows() -> list[str]:
    """The first cells (folder / file) of SOURCES.md's tables."""
    text = (SHARED / "SOURCES.md").read_text()
    return [line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| folder")]


def _detects(path: Path, kind: str) -> bool:
    """Whether ``path`` or something under it is detected as ``kind`` (a peaks file's
    prefix for the peaks rows)."""
    candidates = [path, *sorted(path.rglob("*"))] if path.is_dir() else [path]
    for item in candidates:
        if kind in MEASURED and kind not in KINDS:
            source = peaks_source(item)
            if source is not None and source.prefix == kind:
                return True
            continue
        try:
            if detect_kind(item) == kind:
                return True
        except InputError:
            continue
    return False


@pytest.mark.shared
@pytest.mark.parametrize("kind", sorted(readme_rows()))
def test_every_kind_has_a_real_sample_or_says_why_not(kind: str) -> None:
    samples = readme_rows()[kind][5]
    if samples.startswith("none: "):
        assert len(samples) > len("none: ") + 10, f"{kind}: say why there is no sample"
        return
    paths = re.findall(r"`([^`]+)`", samples)
    assert paths, f"{kind}: name the samples, or say 'none: why'"
    listed = _sources_rows()
    for sample in paths:
        parts = sample.rstrip("/").split("/")
        assert (SHARED / sample).exists(), sample
        # SOURCES.md says what it is: a row of its folder naming it.
        assert any(cell.startswith(parts[0] + "/") and all(p in cell for p in parts[1:])
                   for cell in listed), f"{kind}: {sample} is not in SOURCES.md"
        assert _detects(SHARED / sample, kind), f"{kind}: nothing in {sample} reads as {kind}"
