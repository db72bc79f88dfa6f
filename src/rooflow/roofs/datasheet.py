"""Datasheet presets: ``hardware.yaml`` (peaks in TFLOP/s and GB/s, each citing its source).

The packaged file (``rooflow/data/hardware.yaml``) is the CLI's default; the workflow reads
the file its config names (``config/hardware.yaml``, a link to the packaged one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from rooflow.defaults import DEFAULT_HARDWARE, schema_error
from rooflow.errors import InputError
from rooflow.roofs.partition import partition_presets
from rooflow.roofs.preset import Preset, schema_checked_preset
from rooflow.safeload import MAX_CONFIG_BYTES, load_yaml, read_text


def load_hardware(path: str | Path = DEFAULT_HARDWARE) -> dict[str, Preset]:
    """Read and validate ``hardware.yaml``; return presets by key, in file order.

    Then the compute-partition presets of its partitionable AMD GPUs
    (:func:`rooflow.roofs.partition.partition_presets`: ``mi300x-cpx``, ...).

    Raises:
        InputError: not a readable regular file, malformed YAML (or nested too deep,
            or expanding past the alias bound), a schema violation (names the key path;
            NaN and infinities included), or a ``devices`` name that two presets list.
    """
    path = Path(path)
    # Checked before reading (FIFO, device, size), aliases and nesting bounded.
    text = read_text(path, "a hardware YAML", max_bytes=MAX_CONFIG_BYTES)
    data = load_yaml(text, str(path))
    violation = schema_error("hardware", data)
    if violation is not None:
        where = ".".join(str(p) for p in violation.absolute_path)
        raise InputError(
            str(path), violation.message, column=where or None, check="hardware schema"
        )
    valid = cast("dict[str, Any]", data)  # the schema made it a mapping with ``presets``
    presets = {  # each entry was checked with the file
        key: schema_checked_preset(key, entry, source=str(path))
        for key, entry in valid["presets"].items()
    }
    # A device name picks the preset measured data is drawn on: it may name one GPU only.
    owner: dict[str, str] = {key.casefold(): key for key in presets}
    for key, preset in presets.items():
        for name in preset.devices:
            other = owner.setdefault(name.casefold(), key)
            if other != key:
                raise InputError(
                    str(path), f"device name also identifies preset '{other}'",
                    column=f"presets.{key}.devices", check="one preset per device", value=name,
                )
    # AMD compute partitions (mi300x-cpx, ...): each GPU's share, picked by the partition
    # a profile names (rooflow.formats.devices.partition_names).
    return presets | partition_presets(presets)
