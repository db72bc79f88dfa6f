"""The kind registry is self-contained: callers ask a kind's entry, never its name (issue 33, 2)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import click
import pytest

from rooflow.adapters import load_points
from rooflow.cli.inputs import datasets
from rooflow.defaults import config_defaults, schema
from rooflow.errors import InputError
from rooflow.kinds import KINDS, Option, option_keys, options, resolve
from rooflow.settings import ADAPTER_KEYS, Settings

REPO = Path(__file__).resolve().parents[1]
ROOFLINE_CSV = REPO / "resources" / "roofline" / "flash_attention.csv"

_NAME = "|".join(sorted(KINDS, key=len, reverse=True))
KIND_NAME_TEST = re.compile(
    rf"""(==|!=)\s*["']({_NAME})["']"""           # kind == "pytorch"
    rf"""|["']({_NAME})["']\s*(==|!=)"""           # "pytorch" == kind
    rf"""|\bin\s*[(\[{{][^)\]}}]*["']({_NAME})["']"""  # kind in ("pytorch", "ncu")
)
"""A test of a kind's name written as a comparison with a string literal."""


def _kind_name_tests(root: Path) -> list[str]:
    """``path:line: text`` of each kind-name test in the code outside adapters/ and kinds.py."""
    allowed = (root / "src/rooflow/adapters", root / "src/rooflow/kinds.py")
    files = [p for d in ("src", "workflow") for p in (root / d).rglob("*")
             if p.suffix in (".py", ".smk") or p.name == "Snakefile"]
    found = []
    for path in sorted(files):
        if any(path == a or a in path.parents for a in allowed):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if KIND_NAME_TEST.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


@pytest.mark.parametrize("line, hit", [
    ('if sm.params.kind == "pytorch":', True),
    ("if kind != 'unitrace' or not device:", True),
    ('if "ncu" == this:', True),
    ('if kind in ("rocprof", "rocprofv3"):', True),
    ('factor = TRACE if KINDS[kind].event_trace else POINTS', False),
    ('KINDS["ncu"].pattern', False),  # a registry look-up, no test of the name
])
def test_the_kind_name_pattern_finds_comparisons_only(line, hit):
    assert bool(KIND_NAME_TEST.search(line)) is hit


def test_no_kind_name_is_tested_outside_the_adapters_and_the_registry():
    assert _kind_name_tests(REPO) == []


def test_a_kind_name_test_elsewhere_is_found(tmp_path):
    (tmp_path / "src/rooflow/adapters").mkdir(parents=True)
    (tmp_path / "src/rooflow/adapters/x.py").write_text('if kind == "pytorch":\n')  # allowed
    (tmp_path / "workflow/scripts").mkdir(parents=True)
    (tmp_path / "workflow/scripts/points.py").write_text('x = 1\nif kind == "pytorch":\n')
    assert _kind_name_tests(tmp_path) == ['workflow/scripts/points.py:2: if kind == "pytorch":']


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_reference_of_an_entry_names_a_function(name):
    kind = KINDS[name]
    for ref in (kind.reader, kind.sniffer, kind.device_reader, kind.preset_hook):
        assert not ref or callable(resolve(ref)), ref
    hooks = kind.hooks()
    assert hooks is None or all(callable(getattr(hooks, f))
                                for f in ("points_metadata", "summary_lines", "notes"))
    assert kind.one_run in ("", "folder", "all")
    assert not kind.one_run == "folder" or kind.folder  # the folder form names the files


def test_sniffers_live_beside_their_adapters():
    for kind in KINDS.values():
        reader, sniffer = (ref.partition(":")[0] for ref in (kind.reader, kind.sniffer))
        assert sniffer.startswith("rooflow.adapters.") and sniffer.endswith(".sniff")
        assert sniffer.rpartition(".")[0] == reader.rpartition(".")[0], kind.name


def _schema_types(key: str) -> set[str]:
    """The JSON types the config schema allows at ``key`` (``section.key`` for a section's)."""
    props = schema("config")["properties"]
    section, _, name = key.rpartition(".")
    prop = props[section]["properties"][name] if section else props[name]
    given = prop["type"]
    return {given} if isinstance(given, str) else set(given)


_JSON_TYPES = {str: "string", Path: "string", bool: "boolean", int: "number", float: "number",
               type(None): "null"}


@pytest.mark.parametrize("option", list(options().values()), ids=lambda o: o.key)
def test_each_option_is_a_config_key_of_the_same_types(option):
    wanted = {"object" if t.__name__ == "Mapping" else _JSON_TYPES[t] for t in option.types}
    if option.path:  # a path is given as a string; Settings' None: found beside the input
        wanted -= {"null"}
    assert _schema_types(option.key) == wanted


def test_the_adapter_keys_are_the_options_keys_in_the_schema_order():
    # config.schema.yaml lists families, specs_dir, ..., family_map, variant_prefix, then
    # the sections benchmarks, ncu, pytorch: the points jobs' params keep that order.
    assert ADAPTER_KEYS == ("families", "specs_dir", "family_map", "variant_prefix",
                            "benchmarks", "ncu", "pytorch")
    assert set(ADAPTER_KEYS) == set(option_keys())


def test_settings_fields_are_the_kinds_options():
    assert set(Settings.__dataclass_fields__) == set(options())


def test_from_config_reads_every_option_at_its_key(tmp_path):
    given = {"families": "f.yaml", "specs_dir": "s", "family_map": {"a": "GEMM"},
             "variant_prefix": "v", "benchmarks": {"min_tflops": 1.5, "min_ai": 2},
             "ncu": {"per_launch": True, "tensor_flop_per_inst": {"7.0": 512}},
             "pytorch": {"per_launch": True}}
    got = Settings.from_config(given, root=tmp_path)
    assert got == Settings(families=tmp_path / "f.yaml", specs_dir=tmp_path / "s",
                           family_map={"a": "GEMM"}, variant_prefix="v", min_tflops=1.5,
                           min_ai=2, tensor_flop_per_inst={"7.0": 512}, per_launch=True,
                           pytorch_per_launch=True)
    defaults = config_defaults()
    plain = Settings.from_config({}, root=tmp_path)
    assert plain.specs_dir == tmp_path / defaults["specs_dir"]
    assert plain.per_launch is plain.pytorch_per_launch is False


def test_an_option_of_the_wrong_type_is_refused_for_its_kind_only():
    wrong = Settings(per_launch="yes")  # type: ignore[arg-type]
    with pytest.raises(InputError) as err:
        load_points("ncu", ROOFLINE_CSV, wrong)
    assert str(err.value) == ("<input>: option ncu.per_launch of kind ncu must be bool "
                              "[check: option type] (value: 'yes')")
    assert load_points("roofline", ROOFLINE_CSV, wrong).height > 0  # not an option of it


def test_option_check_says_none_for_an_unset_type():
    option = Option("min_ai", "benchmarks.min_ai", (int, float, type(None)))
    option.check("benchmarks", None)
    with pytest.raises(InputError, match="must be int or float or none"):
        option.check("benchmarks", "2")


def test_kind_choices_of_every_command_are_the_registry():
    from rooflow.cli.main import cli

    ctx = click.Context(cli)
    found = 0
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        for param in getattr(command, "params", []):
            if param.name == "kind":
                assert list(param.type.choices) == list(KINDS), name
                found += 1
    assert found >= 4  # plot, table, compare, convert, check, ...


def _unitrace(path: Path) -> Path:
    path.write_text("== Kernel Metrics ==\nKernel,Device,SubDeviceId,\n")
    return path


def test_files_of_one_run_are_one_input_as_each_kind_says(tmp_path):
    # unitrace (one_run "all"): its reports, wherever they are; ncu (one_run "folder"): the
    # CSV exports of one folder, a CSV no kind matches among them too; roofline: one each.
    (tmp_path / "u").mkdir()
    (tmp_path / "n").mkdir()
    flops, nbytes = _unitrace(tmp_path / "u" / "flops.txt"), _unitrace(tmp_path / "b.txt")
    passes = [tmp_path / "n" / f"{p}.csv" for p in ("p1", "p2")]
    for p in passes:
        p.write_text('"ID","Kernel Name","Metric Name"\n')
    stray = tmp_path / "n" / "notes.csv"
    stray.write_text("a,b\n1,2\n")
    one, two = (shutil.copy(ROOFLINE_CSV, tmp_path / f"{n}.csv") for n in ("r1", "r2"))
    got = datasets((flops, passes[0], Path(one), nbytes, passes[1], stray, Path(two)), None)
    assert got == [([flops, nbytes], "unitrace"), ([passes[0], passes[1], stray], "ncu"),
                   ([Path(one)], "roofline"), ([Path(two)], "roofline")]
    # --kind given: no folder is taken as one run, each file is its own input
    assert datasets(tuple(passes), "ncu") == [([passes[0]], "ncu"), ([passes[1]], "ncu")]
    with pytest.raises(InputError, match="not a file rooflow reads"):
        datasets((stray,), None)  # alone, no kind reads it
