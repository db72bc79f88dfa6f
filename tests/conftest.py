"""Shared fixtures: the real input data beside the repository, and the repo root."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; its absence is a failure, never a skip."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"real test data missing: {SHARED_DATA} (see DEVELOPERS.md)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
