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
Nsight Compute   ``resources/ncu/NAME.csv`` or a folder of    :mod:`.ncu` → ``ncu-NAME``
                 passes ``NAME/*.csv``, with "Theoretical"
                 peak rows (an ncu dataset's own export)
================ ============================================ =========================

:data:`MEASURED` is the one list of measured-peaks files; the workflow discovers them
from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from rooflow.errors import InputError
from rooflow.kinds import KINDS
from rooflow.roofs.preset import Preset


@dataclass(frozen=True)
class MeasuredSource:
    """A measured-peaks file kind: ``resources/<pattern>`` becomes preset ``<prefix>-NAME``.

    Attributes:
        prefix: preset id prefix.
        pattern: file under ``resources/``, with ``{name}``.
        module: module (in this package) of ``function``.
        function: ``function(path) -> dict``, the preset mapping (hardware.yaml layout).
        folder: the folder form, as :attr:`rooflow.adapters.Kind.folder`.
        peaks: function of ``module`` that tells cheaply whether a file (or folder) holds
            the peaks; empty: every file found does.
        kind: input kind whose dataset ``<kind>-NAME`` is this preset's own export: the
            GPU it was measured on, so its default device.
    """

    prefix: str
    pattern: str
    module: str
    function: str
    folder: str = ""
    peaks: str = ""
    kind: str = ""

    def mapping(self, path: str | Path | Sequence[str | Path]) -> dict:
        """The preset mapping (hardware.yaml layout) read from ``path``."""
        return getattr(import_module(f"rooflow.roofs.{self.module}"), self.function)(path)

    def has_peaks(self, path: str | Path) -> bool:
        """Whether ``path`` (found by ``pattern`` or ``folder``) is a source of this preset."""
        return not self.peaks or getattr(import_module(f"rooflow.roofs.{self.module}"),
                                         self.peaks)(path)


MEASURED: dict[str, MeasuredSource] = {
    s.prefix: s
    for s in (
        MeasuredSource("ert", "ert/{name}.json", "ert", "ert_preset"),
        MeasuredSource("omniperf", "rocprof/{name}/roofline.csv", "omniperf", "omniperf_preset"),
        MeasuredSource("intel", "intel/{name}.csv", "intel_config", "intel_preset"),
        MeasuredSource("ncu", KINDS["ncu"].pattern, "ncu", "ncu_preset",
                       folder=KINDS["ncu"].folder, peaks="has_peaks", kind="ncu"),
    )
}


def measured_source(path: str | Path | Sequence[str | Path]) -> MeasuredSource:
    """The measured-peaks kind of ``path``.

    ``.json`` is ERT; an ``ncu --csv`` export, a folder or several files are Nsight
    Compute passes; a CSV of ``key,value`` lines with pti-gpu keys (``FP32_GFLOPS``, ...)
    an Intel device config; any other file an Omniperf ``roofline.csv``.
    """
    from rooflow.roofs.intel_config import sniff as is_intel

    if not isinstance(path, str | Path) or Path(path).is_dir():
        return MEASURED["ncu"]
    if Path(path).suffix == ".json":
        return MEASURED["ert"]
    if is_intel(path):
        return MEASURED["intel"]
    from rooflow.formats.sniffing import ncu as is_ncu

    return MEASURED["ncu" if is_ncu(Path(path)) else "omniperf"]


def load_preset(
    key: str,
    hardware_file: str | Path | None = None,
    measured_file: str | Path | Sequence[str | Path] | None = None,
) -> Preset:
    """The preset ``key``: from a hardware.yaml, or built from a measured-peaks file.

    Args:
        key: preset id.
        hardware_file: datasheet presets (default: the packaged ``hardware.yaml``).
        measured_file: an ERT ``roofline.json``, an Omniperf ``roofline.csv``, a pti-gpu
            device config CSV, or ``ncu --csv`` export(s) with "Theoretical" peaks (a
            file, a folder of passes or several files); the preset is then named ``key``.

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
    source = measured_source(measured_file)
    where = (str(measured_file) if isinstance(measured_file, str | Path)
             else ", ".join(map(str, measured_file)))
    return preset_from_mapping(key, source.mapping(measured_file), source=where)
