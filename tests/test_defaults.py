"""Every default has one source, the config schema: the code, the CLI and Snakemake agree."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from rooflow.cli.main import cli
from rooflow.defaults import (
    DEFAULT_FAMILIES,
    DEFAULT_HARDWARE,
    config_defaults,
    plot_defaults,
    schema,
    schema_path,
)
from rooflow.plotting import PlotOptions
from rooflow.settings import Settings

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "src" / "rooflow" / "data" / \
    "config.schema.yaml"


def _schema_defaults(props: dict) -> dict:
    """``default:`` of every property, nested objects' own properties included.

    Read from the schema file here, independently of :mod:`rooflow.defaults`.
    """
    out = {}
    for key, sub in props.items():
        if "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
        if "properties" in sub:
            nested = _schema_defaults(sub["properties"])
            if nested:
                out[key] = {**nested, **out.get(key, {})}
    return out


@pytest.fixture(scope="module")
def expected() -> dict:
    return _schema_defaults(yaml.safe_load(SCHEMA_FILE.read_text())["properties"])


def _cli_default(command: str, param: str):
    """The value the command's function receives for ``param`` when it is not given."""
    args = {"plot": ["x.csv"], "from-benchmark": ["x.csv"], "from-spec": ["x.yaml"],
            "from-ncu": ["x.csv"]}[command]
    return cli.commands[command].make_context(command, args).params[param]


def test_the_schema_gives_a_default_for_every_optional_key(expected):
    props = yaml.safe_load(SCHEMA_FILE.read_text())["properties"]
    assert set(expected) == set(props) - {"presets"}
    assert set(expected["plot_defaults"]) == {"connect", "annotate", "key", "series_order",
                                              "dpi", "title", "formats", "top_n", "density",
                                              "density_threshold", "trajectory", "xlim",
                                              "ylim"}


def test_plot_defaults_are_the_schema_defaults(expected):
    assert plot_defaults() == expected["plot_defaults"]


def test_config_defaults_are_the_schema_defaults(expected):
    # config_defaults() leaves plot_defaults to plot_defaults().
    assert config_defaults() == {**expected, "plot_defaults": {}}


def test_plot_options_fields_are_the_plot_defaults(expected):
    options = PlotOptions()
    for key, value in expected["plot_defaults"].items():
        got = getattr(options, key)
        assert (list(got) if isinstance(value, list) else got) == value, key


def test_settings_fields_are_the_config_defaults(expected):
    s = Settings()
    assert s.variant_prefix == expected["variant_prefix"]
    # Outside the workflow the specs folder is found beside each benchmarks CSV
    # (adapters.benchmarks.find_specs: a `specs` folder, a config's specs_dir, or the
    # schema's default resources/specs above it); the workflow passes its config's.
    assert s.specs_dir is None
    assert dict(s.family_map) == expected["family_map"]
    assert (s.min_tflops, s.min_ai) == (expected["benchmarks"]["min_tflops"],
                                        expected["benchmarks"]["min_ai"])
    assert s.per_launch == expected["ncu"]["per_launch"]
    assert dict(s.tensor_flop_per_inst) == expected["ncu"]["tensor_flop_per_inst"]
    # Outside the workflow the families file is the packaged one (config/ links to it).
    assert s.families == DEFAULT_FAMILIES


def test_settings_from_an_empty_config_equal_the_defaults(expected, tmp_path):
    s = Settings.from_config({}, root=tmp_path)
    assert dataclasses.replace(s, families=DEFAULT_FAMILIES, specs_dir=None) == Settings()
    assert s.families == tmp_path / expected["families"]
    assert s.specs_dir == tmp_path / expected["specs_dir"]


def test_cli_defaults_are_the_schema_defaults(expected):
    plot = expected["plot_defaults"]
    assert _cli_default("plot", "dpi") == plot["dpi"]
    assert _cli_default("plot", "top_n") == plot["top_n"]
    assert _cli_default("plot", "title") == plot["title"]
    for flag in ("connect", "annotate", "key"):
        assert _cli_default("plot", flag) is plot[flag]
    assert _cli_default("from-spec", "variant_prefix") == expected["variant_prefix"]
    assert _cli_default("from-benchmark", "specs_dir") is None  # found beside the CSV
    assert _cli_default("from-benchmark", "min_tflops") == expected["benchmarks"]["min_tflops"]
    assert _cli_default("from-benchmark", "min_ai") == expected["benchmarks"]["min_ai"]
    assert _cli_default("from-ncu", "per_launch") is expected["ncu"]["per_launch"]
    assert _cli_default("plot", "preset_file") == DEFAULT_HARDWARE
    assert _cli_default("from-spec", "families") == DEFAULT_FAMILIES


def test_snakemake_fills_every_default_into_a_minimal_config(expected):
    config = {"presets": ["x"]}
    validate(config, str(schema_path("config")))
    assert config == {"presets": ["x"], **expected}
    # What the workflow then hands to the adapters equals the CLI's settings.
    s = Settings.from_config(config)
    assert s.specs_dir == Path(expected["specs_dir"])
    assert dataclasses.replace(s, families=DEFAULT_FAMILIES, specs_dir=None) == Settings()


def test_snakemake_keeps_given_values_and_fills_the_rest(expected):
    config = {"presets": ["x"], "plot_defaults": {"dpi": 300}, "ncu": {"per_launch": True}}
    validate(config, str(schema_path("config")))
    assert config["plot_defaults"] == {**expected["plot_defaults"], "dpi": 300}
    assert config["ncu"] == {**expected["ncu"], "per_launch": True}


@pytest.mark.parametrize("name", ["config", "hardware", "families"])
def test_packaged_schemas_are_valid_json_schema(name):
    """rooflow validates against these without re-checking them on every call."""
    import jsonschema

    doc = schema(name)
    jsonschema.validators.validator_for(doc).check_schema(doc)
