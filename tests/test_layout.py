"""The layout's single sources agree: the kinds registry, the config schema, the docs, paths."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rooflow.defaults import (
    DATA,
    DEFAULT_FAMILIES,
    DEFAULT_HARDWARE,
    safe_load,
    schema,
    schema_error,
)
from rooflow.kinds import KINDS
from rooflow.roofs import MEASURED

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "rooflow"


def _schema_kinds() -> list[str]:
    """The kind alternation of ``datasets.propertyNames.pattern``: ``^(a|b|c)-...$``."""
    pattern = schema("config")["properties"]["datasets"]["propertyNames"]["pattern"]
    found = re.match(r"^\^\(([a-z0-9_|]+)\)-", pattern)
    assert found, f"dataset-id pattern not of the form ^(kind|kind)-...: {pattern}"
    return found.group(1).split("|")


def _markdown_table(text: str, heading: str) -> list[list[str]]:
    """Body rows (cells stripped) of the first table after the line ``heading``."""
    lines = text.splitlines()
    start = lines.index(heading)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return [r for r in rows[1:] if not set("".join(r)) <= set("-: ")]


def test_schema_dataset_pattern_lists_exactly_the_registry_kinds():
    assert sorted(_schema_kinds()) == sorted(KINDS)


def test_schema_dataset_pattern_accepts_every_kind_and_nothing_else():
    pattern = re.compile(schema("config")["properties"]["datasets"]["propertyNames"]["pattern"])
    for kind in KINDS:
        assert pattern.match(f"{kind}-some_name.v2")
        assert not pattern.match(f"{kind}-")
    assert not pattern.match("nosuchkind-x")


def _doc_paths(kind) -> list[str]:
    """How the docs write a kind's file pattern and folder pattern: `resources/ncu/NAME.csv`."""
    return [f"`resources/{p.replace('{name}', 'NAME')}`"
            for p in (kind.pattern, kind.alternate, kind.folder) if p]


def test_readme_input_table_has_a_row_per_kind_with_its_file_pattern():
    rows = _markdown_table((REPO / "README.md").read_text(), "## Inputs (`resources/`)")
    files = {r[0]: r[1] for r in rows}
    for name, kind in KINDS.items():
        assert name in files, f"README input table lacks kind {name!r}"
        assert files[name] == " or ".join(_doc_paths(kind))
    # Any other row is a measured-peaks source (presets, not datasets).
    extra = set(files) - set(KINDS)
    assert extra <= set(MEASURED), f"README input rows that are no kind: {extra}"


def test_config_readme_names_every_kind():
    text = (REPO / "config" / "README.md").read_text()
    for name, kind in KINDS.items():
        for path in _doc_paths(kind):
            assert path in text, name


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_has_a_loader_and_a_sniffer(name):
    kind = KINDS[name]
    assert "{name}" in kind.pattern
    assert callable(kind.loader())
    assert not kind.sniff(REPO / "pyproject.toml")


def test_config_links_point_at_the_packaged_files():
    for name, packaged in (("hardware.yaml", DEFAULT_HARDWARE), ("families.yaml",
                                                                 DEFAULT_FAMILIES)):
        link = REPO / "config" / name
        assert link.is_symlink(), f"config/{name} should link to the packaged file"
        assert link.resolve() == packaged.resolve()


def test_packaged_hardware_file_meets_its_schema():
    text = DEFAULT_HARDWARE.read_text(encoding="utf-8-sig")
    assert schema_error("hardware", safe_load(text)) is None


def test_package_data_holds_the_defaults_and_schemas():
    names = {p.name for p in DATA.iterdir()}
    assert {"hardware.yaml", "families.yaml", "config.schema.yaml", "hardware.schema.yaml",
            "families.schema.yaml"} <= names
    assert not (REPO / "workflow" / "schemas").exists()


# Paths the docs and the Makefile name: `docs/...`, `config/...`, `src/rooflow/...` etc.
# Example paths in error lines and the worked example, and a folder the profiler commands
# write into: not files of the repository.
EXAMPLES = {"resources/roofline/broken.csv", "resources/specs/4_DenseGemm.yaml",
            "resources/rocprofv3"}
_PATH = re.compile(r"(?<![\w/.])((?:src|workflow|config|docs|tests|bench|resources)/[\w./-]*"
                   r"[\w/])")


DOCS = ["README.md", "CONTRIBUTING.md", "config/README.md", "bench/NOTES.md",
        *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", [*DOCS, "Makefile", "environment.yml", "config/config.yaml"])
def test_paths_named_in_docs_exist(doc):
    text = (REPO / doc).read_text()
    missing = []
    for path in sorted(set(_PATH.findall(text))):
        # Placeholders (NAME, {preset}, <rule>) and example inputs are not repository paths.
        if path in EXAMPLES or re.search(r"[{<*]|NAME", path):
            continue
        if not (REPO / path).exists():
            missing.append(path)
    assert not missing, f"{doc} names missing paths: {missing}"


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("doc", DOCS)
def test_relative_links_in_docs_resolve(doc):
    """Every relative link and image of the docs names an existing file (and heading)."""
    path = REPO / doc
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists() or (anchor and anchor not in _anchors(linked.read_text())):
            broken.append(target)
    assert not broken, f"{doc}: broken links {broken}"


def test_every_module_sits_in_one_wing_of_the_import_contract():
    """pyproject.toml's layers contract (checked by `lint-imports` in `make lint`) names
    every top-level module and package of rooflow once: a new module must be placed in the
    program, workflow or domain wing, or the contract would not constrain it."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["type"] == "layers")["layers"]
    named = [m.strip() for layer in layers for m in layer.split(":")]
    top = {f"rooflow.{p.stem}" for p in (REPO / "src/rooflow").glob("*.py")
           if p.stem != "__init__"}
    top |= {f"rooflow.{p.parent.name}" for p in (REPO / "src/rooflow").glob("*/__init__.py")}
    assert sorted(named) == sorted(top)
    assert {c["type"] for c in contracts["contracts"]} == {"layers", "acyclic_siblings",
                                                           "forbidden"}
    # The domain that may not import click is the domain wing, module for module.
    forbidden = next(c for c in contracts["contracts"] if c["type"] == "forbidden")
    assert forbidden["source_modules"] == [m.strip() for m in layers[-1].split(":")]
    assert forbidden["forbidden_modules"] == ["click"]


def test_detecting_a_kind_needs_no_reader():
    """Kind detection reads a few KiB: it works with no kind's reader, nor pandera or
    polars, importable (each module set to None in ``sys.modules``)."""
    readers = sorted({k.reader.partition(":")[0] for k in KINDS.values()})
    code = (
        f"import sys; sys.modules.update(dict.fromkeys(('pandera', 'polars', *{readers!r}))); "
        "from rooflow.kinds import detect_kind; "
        f"print(detect_kind({str(REPO / 'resources')!r} + '/roofline/flash_attention.csv'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["roofline"]


def test_models_and_roofs_import_nothing_from_adapters():
    """The layers below the adapters (models, roofs, formats) never import them."""
    lower = [p for d in ("models", "roofs", "formats") for p in (SRC / d).rglob("*.py")]
    assert lower
    offenders = [str(p.relative_to(REPO)) for p in lower
                 if re.search(r"^\s*(from|import) rooflow\.adapters", p.read_text(), re.M)]
    assert not offenders


def _requirements(lines: list[str]) -> dict[str, str]:
    """Project name (normalised) → its version specifier, of requirement lines."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found = {}
    for line in lines:
        line = line.split(" #")[0].strip()
        if line and not line.startswith("#"):
            req = Requirement(line)
            found[canonicalize_name(req.name)] = str(req.specifier)
    return found


def test_each_dependency_has_a_lower_bound_and_one_pin_at_it():
    """pyproject.toml: lower bounds; requirements.txt (the constraints file): the pins, the
    same releases, for every dependency and extra, and nothing else; then the lock: an
    exact pin of each package they pull in, none of them a dependency."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"],
              *(r for extra in project["optional-dependencies"].values() for r in extra
                if not r.startswith("rooflow["))]
    bounds = _requirements(wanted)
    direct, _, lock = (REPO / "requirements.txt").read_text().partition("\n# The lock:")
    pins = _requirements(direct.splitlines())
    locked = _requirements(lock.splitlines()[1:])  # past the heading's first line
    assert set(bounds) == set(pins)
    assert locked and not set(locked) & set(pins)
    assert all(v.startswith("==") and "," not in v for v in locked.values()), locked
    # What matplotlib draws with (numpy, fontTools, contourpy, Pillow): locked too.
    assert {"numpy", "pillow", "contourpy", "fonttools"} <= set(locked)
    for name, bound in bounds.items():
        assert bound.startswith(">=") and "," not in bound, (name, bound)
        assert pins[name] == "==" + bound[2:], (name, pins[name], bound)
    assert {"workflow", "ncu", "test"} == set(project["optional-dependencies"])
    assert not any(r.startswith("snakemake") for r in project["dependencies"])


def test_the_package_imports_no_snakemake():
    """Every module of the package (the workflow's glue included) loads without Snakemake."""
    code = ("import pkgutil, importlib, sys\n"
            "sys.modules['snakemake'] = None  # not importable, as where it is not installed\n"
            "import rooflow\n"
            "for m in pkgutil.walk_packages(rooflow.__path__, 'rooflow.'):\n"
            "    importlib.import_module(m.name)\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr
