"""Adapter settings: the options the kinds' readers take (defaults from the config schema).

Which options exist, their config keys and types, is each kind's option schema
(:attr:`rooflow.kinds.Kind.options`); :class:`Settings` holds their values, and
:func:`rooflow.adapters.load_points` checks the ones of the kind it reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rooflow.defaults import DEFAULT_FAMILIES, config_defaults
from rooflow.kinds import option_keys, options

_D = config_defaults()

ADAPTER_KEYS = tuple(k for k in _D if k in option_keys())
"""Config keys the adapters read (the kinds' option keys, in the schema's order): a change
to one reads every dataset again (:mod:`rooflow.workflow.batches`: the datasets'
fingerprints); a plot option's redraws them from the points they have."""


@dataclass(frozen=True)
class Settings:
    """Adapter settings (config.yaml keys of the kinds' options; see config/README.md).

    Defaults are the config schema's; ``families`` defaults to the packaged
    ``families.yaml``; ``specs_dir`` None: found beside each benchmarks CSV
    (:func:`rooflow.adapters.benchmarks.find_specs`), else ``resources/specs`` of the
    working folder.
    """

    families: Path = DEFAULT_FAMILIES
    family_map: Mapping[str, str] = field(default_factory=dict)
    variant_prefix: str = _D["variant_prefix"]
    specs_dir: Path | None = None
    min_tflops: float | None = _D["benchmarks"]["min_tflops"]
    min_ai: float | None = _D["benchmarks"]["min_ai"]
    tensor_flop_per_inst: Mapping[str, float] = field(default_factory=dict)
    per_launch: bool = _D["ncu"]["per_launch"]
    pytorch_per_launch: bool = _D["pytorch"]["per_launch"]

    @classmethod
    def from_config(cls, config: Mapping, root: Path = Path(".")) -> Settings:
        """Settings from a validated Snakemake config (paths relative to ``root``).

        Every kind's option (:func:`rooflow.kinds.options`) is read at its config key;
        keys absent from ``config`` (or null) take the schema's defaults.
        """
        values: dict[str, object] = {}
        for name, option in options().items():
            section, _, key = option.key.rpartition(".")
            given = (config.get(section) or {}).get(key) if section else config.get(key)
            default = _D[section][key] if section else _D[key]
            value = default if given is None else given
            values[name] = (root / value if option.path
                            else dict(value) if isinstance(value, Mapping) else value)
        return cls(**values)  # type: ignore[arg-type]
