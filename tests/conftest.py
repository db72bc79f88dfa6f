"""Shared fixtures: the real input data beside the repository, the repo root, and workflow
copies built by real Snakemake runs (helpers in workflow_copy.py).

Test tiers are pytest markers (registered in pyproject.toml): `workflow`, `shared`, `browser`,
`slurm`. Plain `pytest` (`make test-fast`) leaves out workflow, browser and slurm; `make test`
runs all. Without ../shared/data the tests marked `shared` are skipped, each saying where
the data must be (CI refuses to start without it: .ci/run).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from workflow_copy import EXAMPLE_CONFIG, copy_workflow, snakemake

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MISSING_SHARED = (f"real test data missing: {SHARED_DATA} (a checkout of the shared test inputs "
                  "beside the repository; README, 'Set up and run')")

# A test that requests one of these fixtures belongs to that tier and must carry its marker,
# so that `-m "not ..."` really leaves out what is slow or needs the machine set up.
FIXTURE_TIERS = {
    "shared_data": "shared",
    "workflow_copy": "workflow",
    "examples_build": "workflow",
    "chromium": "browser",
    "cluster": "slurm",
}


def pytest_collection_modifyitems(config, items):
    unmarked = [
        f"{item.nodeid} (fixture {fixture}: needs @pytest.mark.{tier})"
        for item in items
        for fixture, tier in FIXTURE_TIERS.items()
        if fixture in getattr(item, "fixturenames", ()) and not item.get_closest_marker(tier)
    ]
    if unmarked:
        raise pytest.UsageError("tests missing their tier marker:\n" + "\n".join(unmarked))
    if not SHARED_DATA.is_dir():
        skip = pytest.mark.skip(reason=MISSING_SHARED)
        for item in items:
            if item.get_closest_marker("shared"):
                item.add_marker(skip)


def pytest_report_header(config) -> str | None:
    return None if SHARED_DATA.is_dir() else f"{MISSING_SHARED}: the tests marked shared skip"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (tests using it are marked shared: skipped when it is missing)."""
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture
def workflow_copy(tmp_path) -> Path:
    """A fresh copy of the workflow, config and shipped inputs, not yet run."""
    return copy_workflow(tmp_path / "wf")


@pytest.fixture(scope="session")
def examples_build(tmp_path_factory) -> Path:
    """The shipped examples built once per session on EXAMPLE_CONFIG's presets.

    Shared by every test that reads its results; a test that changes the copy puts it back
    before it ends (test_workflow.py). Tests that need a run of their own (killed, on Slurm,
    other inputs) make their own copy.
    """
    work = copy_workflow(tmp_path_factory.mktemp("examples"))
    snakemake(work, *EXAMPLE_CONFIG)
    return work
