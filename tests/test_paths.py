"""Every results/ and logs/ path is spelled once, in rooflow.workflow.paths (issue 33)."""

import re
from pathlib import Path

from rooflow.workflow import paths
from rooflow.workflow.batches import Batch
from rooflow.workflow.draw import points_file

REPO = Path(__file__).resolve().parents[1]
# A string literal that starts a results/ or logs/ path: "results/..., f'logs/...; not a
# docstring's first words ("""results/summary.md: ...).
LITERAL = re.compile(r"""(?<![\w`("'])[rfb]?["'](?:results|logs)/""")


def test_no_results_or_logs_path_is_spelled_outside_the_paths_module():
    files = [*(REPO / "src").rglob("*.py"), *(REPO / "workflow").rglob("*.smk"),
             *(REPO / "workflow/scripts").glob("*.py"), REPO / "workflow/Snakefile"]
    found = [f"{f.relative_to(REPO)}:{n}: {line.strip()}"
             for f in files if f.name != "paths.py"
             for n, line in enumerate(f.read_text().splitlines(), 1) if LITERAL.search(line)]
    assert len(files) > 20 and found == []


def test_the_check_finds_a_second_spelling():
    assert LITERAL.search('    table="results/tables/{preset}/all.csv",')
    assert LITERAL.search("targets += [f'logs/x/{name}.log']")
    assert not LITERAL.search('"""``results/summary.md``: the summary."""')
    assert not LITERAL.search('"""results/summary.md: the summary."""')


def test_fill_leaves_the_wildcards_not_given():
    assert paths.fill(paths.DATASET_PLOT, preset="h100-sxm") == (
        "results/plots/h100-sxm/{kind}-{name}.png")
    assert paths.fill(paths.POINTS, kind="ncu", name="x") == "results/points/ncu/x.parquet"
    assert paths.folder(paths.DATASET_TABLE, preset="mi300x") == "results/tables/mi300x"


def test_planning_and_batch_rules_use_the_same_patterns():
    assert points_file("ncu", "x") == paths.fill(paths.POINTS, kind="ncu", name="x")
    batch = Batch("datasets_on_h100_sxm_0", ("h100-sxm",), ("svg",), ("ncu-x",))
    assert batch.manifest == paths.fill(paths.BATCH_MANIFEST, batch=batch.name)
    assert batch.log == paths.fill(paths.BATCH_LOG, batch=batch.name)
    assert [p for p, _, _ in batch.dataset_outputs("ncu", "x")] == [
        points_file("ncu", "x"),
        paths.fill(paths.DATASET_TABLE, preset="h100-sxm", kind="ncu", name="x"),
        paths.fill(paths.DATASET_PLOT, preset="h100-sxm", kind="ncu", name="x"),
        "results/plots/h100-sxm/ncu-x.svg",
        paths.fill(paths.DATASET_PAGE, preset="h100-sxm", kind="ncu", name="x"),
        paths.fill(paths.DATASET_OVERVIEW_ROWS, preset="h100-sxm", kind="ncu", name="x"),
    ]
