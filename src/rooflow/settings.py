"""Adapter settings: the config keys the input adapters read (defaults from the config schema)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rooflow.defaults import DEFAULT_FAMILIES, config_defaults

_D = config_defaults()

ADAPTER_KEYS = ("families", "specs_dir", "family_map", "variant_prefix", "benchmarks", "ncu",
                "pytorch")
"""Config keys the adapters read: a change to one re-runs the ``points`` jobs, and only those."""


@dataclass(frozen=True)
class Settings:
    """Adapter settings (config.yaml keys of the same names; see config/README.md).

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

        Keys absent from ``config`` take the schema's defaults.
        """
        cfg = {**_D, **{k: v for k, v in config.items() if v is not None}}
        bench = {**_D["benchmarks"], **cfg["benchmarks"]}
        ncu = {**_D["ncu"], **cfg["ncu"]}
        pytorch = {**_D["pytorch"], **cfg["pytorch"]}
        return cls(
            families=root / cfg["families"],
            family_map=dict(cfg["family_map"]),
            variant_prefix=cfg["variant_prefix"],
            specs_dir=root / cfg["specs_dir"],
            min_tflops=bench["min_tflops"],
            min_ai=bench["min_ai"],
            tensor_flop_per_inst=dict(ncu["tensor_flop_per_inst"]),
            per_launch=ncu["per_launch"],
            pytorch_per_launch=pytorch["per_launch"],
        )
