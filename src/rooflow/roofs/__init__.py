"""Every source of roofs, one module each, all giving one :class:`~rooflow.roofs.preset.Preset`.

================ ============================================ =========================
source           file                                         module
================ ============================================ =========================
datasheet        ``hardware.yaml`` (packaged, or the config's)  :mod:`.datasheet`
ERT              ``resources/ert/NAME.json``                  :mod:`.ert` → ``ert-NAME``
Omniperf         ``resources/rocprof/NAME/roofline.csv``      :mod:`.omniperf` →
                                                              ``omniperf-NAME``
pti-gpu (Intel)  ``resources/intel/NAME.csv`` (unitrace       :mod:`.intel_config` →
                 roofline device config)                      ``intel-NAME``
================ ============================================ =========================

:data:`MEASURED` is the one list of measured-peaks files; the workflow discovers them
from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from rooflow.errors import InputError
from rooflow.roofs.preset import Preset


@dataclass(frozen=True)
class MeasuredSource:
    """A measured-peaks file kind: ``resources/<pattern>`` becomes preset ``<prefix>-NAME``."""

    prefix: str
    pattern: str
    module: str
    function: str

    def mapping(self, path: Path) -> dict:
        """The preset mapping (hardware.yaml layout) read from ``path``."""
        return getattr(import_module(f"rooflow.roofs.{self.module}"), self.function)(path)


MEASURED: dict[str, MeasuredSource] = {
    s.prefix: s
    for s in (
        MeasuredSource("ert", "ert/{name}.json", "ert", "ert_preset"),
        MeasuredSource("omniperf", "rocprof/{name}/roofline.csv", "omniperf", "omniperf_preset"),
        MeasuredSource("intel", "intel/{name}.csv", "intel_config", "intel_preset"),
    )
}


def measured_source(path: str | Path) -> MeasuredSource:
    """The measured-peaks kind of ``path``.

    ``.json`` is ERT; a CSV of ``key,value`` lines with pti-gpu keys (``FP32_GFLOPS``, ...)
    an Intel device config; any other file an Omniperf ``roofline.csv``.
    """
    from rooflow.roofs.intel_config import sniff

    if Path(path).suffix == ".json":
        return MEASURED["ert"]
    return MEASURED["intel" if sniff(path) else "omniperf"]


def load_preset(
    key: str, hardware_file: str | Path | None = None, measured_file: str | Path | None = None
) -> Preset:
    """The preset ``key``: from a hardware.yaml, or built from a measured-peaks file.

    Args:
        key: preset id.
        hardware_file: datasheet presets (default: the packaged ``hardware.yaml``).
        measured_file: an ERT ``roofline.json``, an Omniperf ``roofline.csv`` or a
            pti-gpu device config CSV; the preset is then named ``key``.

    Raises:
        InputError: unknown key, or a bad hardware/peaks file.
    """
    from rooflow.roofs.preset import preset_from_mapping

    if measured_file is None:
        from rooflow.roofs.datasheet import load_hardware

        presets = load_hardware(*([hardware_file] if hardware_file else []))
        if key not in presets:
            raise InputError(str(hardware_file), "unknown hardware preset", value=key)
        return presets[key]
    path = Path(measured_file)
    return preset_from_mapping(key, measured_source(path).mapping(path), source=str(path))
