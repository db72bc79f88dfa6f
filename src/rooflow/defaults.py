"""Package data and the one source of every default.

The default ``hardware.yaml`` and ``families.yaml`` and the JSON Schemas ship inside the
package (``rooflow/data/``) and are found with :mod:`importlib.resources`, so an installed
rooflow works from any folder. ``config/hardware.yaml`` and ``config/families.yaml`` in the
repository are links to these files: the workflow reads the files named in its config
(``hardware:``, ``families:``), the CLI reads the packaged ones unless given
``--preset-file`` / ``--families``.

Every default value (plot options, adapter settings) is the ``default:`` of its key in
``data/config.schema.yaml``; :class:`rooflow.settings.Settings`,
:class:`rooflow.plotting.PlotOptions` and the CLI options read them from here.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import jsonschema

DATA = Path(str(files("rooflow") / "data"))
DEFAULT_HARDWARE = DATA / "hardware.yaml"
DEFAULT_FAMILIES = DATA / "families.yaml"


def schema_path(name: str) -> Path:
    """Path of the packaged JSON Schema ``<name>.schema.yaml`` (config, hardware, families)."""
    return DATA / f"{name}.schema.yaml"


def safe_load(text: str, source: str = "<yaml>") -> object:
    """``yaml.safe_load`` with depth and aliases bounded: :func:`rooflow.safeload.load_yaml`.

    libyaml's C parser when PyYAML has it; the one YAML loader of rooflow.

    Raises:
        InputError: malformed, nested too deep or expanding past the alias bound.
    """
    from rooflow.safeload import load_yaml

    return load_yaml(text, source)


@cache
def schema(name: str) -> dict[str, Any]:
    """The packaged JSON Schema ``name`` as a mapping."""
    # A packaged file: a JSON Schema document is a mapping.
    return cast("dict[str, Any]", safe_load(schema_path(name).read_text()))


def schema_error(
    name: str, instance: object, definition: str | None = None
) -> jsonschema.ValidationError | None:
    """The most relevant violation of schema ``name`` (or its ``$defs`` entry) by ``instance``.

    Returns:
        A ``jsonschema.ValidationError`` (``best_match`` of all errors), or None when valid.
        The validator is built once per schema: ``jsonschema.validate`` re-checks the schema
        against its metaschema on every call, and one hardware.yaml makes many calls.
    """
    import jsonschema

    from rooflow.safeload import first_non_finite

    # JSON Schema's "number" takes NaN and infinities (NaN > 0 is false, so no bound
    # catches it): refused here, for every schema, before the schema's own checks.
    bad = first_non_finite(instance)
    if bad is not None:
        return jsonschema.ValidationError(f"{bad[1]} is not a finite number", path=bad[0],
                                          validator="finite", instance=bad[1])
    return jsonschema.exceptions.best_match(_validator(name, definition).iter_errors(instance))


@cache
def _validator(name: str, definition: str | None):
    import jsonschema

    full = schema(name)
    target = full if definition is None else full["$defs"][definition] | {"$defs": full["$defs"]}
    return jsonschema.validators.validator_for(full)(target, registry=_registry(),
                                                      format_checker=_formats())


@cache
def _formats():
    """``format: regex`` checked by the engine that matches (polars: Rust's regex crate).

    Not by Python's :mod:`re`: a look-around that ``re`` takes would fail every job.
    ``format: increasing``: an axis' ``[low, high]`` whose low is below its high.
    """
    import jsonschema

    from rooflow.patterns import regex_error

    checker = jsonschema.FormatChecker(formats=())

    @checker.checks("regex", raises=ValueError)
    def _regex(value: object) -> bool:
        if isinstance(value, str) and (why := regex_error(value)) is not None:
            raise ValueError(why)
        return True

    @checker.checks("increasing", raises=ValueError)
    def _increasing(value: object) -> bool:  # an axis' [low, high]: low below high
        if (isinstance(value, list) and len(value) == 2
                and all(isinstance(v, int | float) for v in value) and value[0] >= value[1]):
            raise ValueError(f"low {value[0]:g} is not below high {value[1]:g}")
        return True

    return checker


@cache
def _registry():
    """The packaged schemas by file name, so that one may ``$ref`` another.

    hardware.schema.yaml refers to ``config.schema.yaml#/$defs/name``, the one id pattern
    (:data:`rooflow.kinds.DATASET_NAME`).
    """
    from referencing import Registry, Resource

    return Registry().with_resources(
        (path.name, Resource.from_contents(schema(path.name.removesuffix(".schema.yaml"))))
        for path in DATA.glob("*.schema.yaml")
    )


def _defaults(properties: dict) -> dict:
    return {k: v["default"] for k, v in properties.items() if "default" in v}


@cache
def plot_defaults() -> dict:
    """Default plot options (``plot_defaults`` keys) from the config schema."""
    return _defaults(schema("config")["properties"]["plot_defaults"]["properties"])


@cache
def config_defaults() -> dict:
    """Top-level config defaults, nested objects included (``benchmarks``, ``ncu``)."""
    props = schema("config")["properties"]
    out = _defaults(props)
    for key, sub in props.items():
        if sub.get("type") == "object" and "properties" in sub and key != "plot_defaults":
            out[key] = {**_defaults(sub["properties"]), **out.get(key, {})}
    return out
