"""One name per thing in ``src/rooflow``: no two module-level classes share a name, and a
module basename repeats only where the modules are one subject seen by different wings."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rooflow"

SAME_SUBJECT = {
    # A result, its plot (plotting/) and its page (html/): one subject, three outputs.
    "compare": {"compare.py", "plotting/compare.py", "html/compare.py"},
    "history": {"history.py", "plotting/history.py", "html/history.py"},
    "project": {"project.py", "plotting/project.py", "html/project.py"},
    "model_vs_measured": {"model_vs_measured.py", "plotting/model_vs_measured.py"},
    "trajectory": {"plotting/trajectory.py", "html/trajectory.py"},
    # One file format: its vocabulary (formats/), its points (adapters/), its roofs (roofs/)
    # and, for the roofline CSV's own chart, its plot.
    "roofline": {"formats/roofline.py", "adapters/roofline.py", "plotting/roofline.py"},
    "computedb": {"adapters/amd/computedb.py", "roofs/computedb.py"},
}
"""Basename → the modules that may hold it (paths under ``src/rooflow``)."""


def _kind_roles() -> dict[str, set[str]]:
    """``sniff`` and ``reader``: the role a kind's registry entry names in its adapter
    package (``Kind.sniffer``, ``Kind.reader``), one module per package, like ``__init__``."""
    from rooflow.kinds import KINDS

    roles: dict[str, set[str]] = defaultdict(set)
    for kind in KINDS.values():
        for ref in (kind.sniffer, kind.reader):
            module = ref.partition(":")[0].removeprefix("rooflow.").replace(".", "/") + ".py"
            if Path(module).stem in ("sniff", "reader"):
                roles[Path(module).stem].add(module)
    return {role: where for role, where in roles.items() if len(where) > 1}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _repeated(names: dict[str, list[str]]) -> dict[str, set[str]]:
    return {n: set(where) for n, where in names.items() if len(where) > 1}


def test_no_two_classes_share_a_name():
    """Module-level classes only: a class nested in another (pandera's ``Config``) is
    named by its framework and reached through its owner."""
    classes: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                classes[node.name].append(str(path.relative_to(SRC)))
    assert _repeated(classes) == {}


def test_module_basenames_repeat_only_for_one_subject():
    bases: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        if path.name != "__init__.py":
            bases[path.stem].append(path.relative_to(SRC).as_posix())
    assert _repeated(bases) == SAME_SUBJECT | _kind_roles()


def test_checks_find_a_repeated_name():
    """The two checks above can fail: a repeat is reported with where it is."""
    assert _repeated({"Plan": ["a.py", "b.py"], "Preset": ["c.py"]}) == {"Plan": {"a.py", "b.py"}}
