"""Every source of roofs, one module each, all giving one :class:`~rooflow.roofs.preset.Preset`.

================ ============================================ =========================
source           file                                         module
================ ============================================ =========================
datasheet        ``hardware.yaml`` (packaged, or the config's)  :mod:`.datasheet`
ERT              ``resources/ert/NAME.json``                  :mod:`.ert` → ``ert-NAME``
Omniperf         ``resources/rocprof/NAME/roofline.csv``      :mod:`.omniperf` →
                                                              ``omniperf-NAME``
rocprof-compute  ``resources/rocprof/NAME.db`` (analysis      :mod:`.computedb` →
database         database with benchmark peaks)               ``rocprofdb-NAME``
pti-gpu (Intel)  ``resources/intel/NAME.csv`` (unitrace       :mod:`.intel_config` →
                 roofline device config)                      ``intel-NAME``
Nsight Compute   ``resources/ncu/NAME.csv`` or a folder of    :mod:`.ncu` → ``ncu-NAME``
                 passes ``NAME/*.csv``, with "Theoretical"
                 peak rows (an ncu dataset's own export)
================ ============================================ =========================

:data:`MEASURED` is the one list of measured-peaks files; the workflow discovers them
from it. The command line's ``--preset-file`` takes any of them too
(:func:`read_presets`, :func:`choose_preset`), detected from the content
(:func:`peaks_source`).
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
        alternate: another file form, as :attr:`rooflow.adapters.Kind.alternate`.
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
    alternate: str = ""

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
        MeasuredSource("rocprofdb", KINDS["rocprof"].alternate, "computedb",
                       "computedb_preset", peaks="has_peaks", kind="rocprof"),
        MeasuredSource("intel", "intel/{name}.csv", "intel_config", "intel_preset"),
        MeasuredSource("ncu", KINDS["ncu"].pattern, "ncu", "ncu_preset",
                       folder=KINDS["ncu"].folder, peaks="has_peaks", kind="ncu",
                       alternate=KINDS["ncu"].alternate),
    )
}


def peaks_source(path: str | Path | Sequence[str | Path]) -> MeasuredSource | None:
    """The measured-peaks kind of ``path`` from its content, or None when it is none.

    An ERT ``roofline.json`` (``.json``, or a JSON object naming ``empirical``); a pti-gpu
    device config (``key,value`` lines with pti-gpu keys such as ``FP32_GFLOPS``); an
    Omniperf/rocprof-compute ``roofline.csv`` (``device`` and ``HBMBw`` columns) or a
    workload folder holding one; a rocprof-compute analysis database (SQLite); Nsight
    Compute: several files, or a file or folder that
    :func:`rooflow.formats.sniffing.ncu_files` recognises (whether it holds the peaks is
    :func:`.ncu.ncu_preset`'s to say). Reads only the first bytes, as input detection does.
    """
    from rooflow.formats import sniffing
    from rooflow.roofs.intel_config import sniff as is_intel

    if not isinstance(path, str | Path):
        return MEASURED["ncu"]
    path = Path(path)
    if path.is_dir():
        if (path / "roofline.csv").is_file():
            return MEASURED["omniperf"]
        return MEASURED["ncu"] if sniffing.ncu_files(path) else None
    if sniffing.compute_database(path):
        return MEASURED["rocprofdb"]
    head = sniffing.head_text(path).lstrip()
    if path.suffix.lower() == ".json" or (head.startswith("{") and '"empirical"' in head):
        return MEASURED["ert"]
    if is_intel(path):
        return MEASURED["intel"]
    if sniffing.ncu_files(path):
        return MEASURED["ncu"]
    if {"device", "hbmbw"} <= set(sniffing.csv_header(path)):
        return MEASURED["omniperf"]
    return None


def measured_source(path: str | Path | Sequence[str | Path]) -> MeasuredSource:
    """The measured-peaks kind of ``path`` (:func:`peaks_source`; else Omniperf).

    Anything :func:`peaks_source` does not recognise is read as an Omniperf
    ``roofline.csv``, whose reader then names the columns it lacks.
    """
    return peaks_source(path) or MEASURED["omniperf"]


TOOL_STEM = "roofline"
"""The stem the tools give their own roofline files (ERT ``roofline.json``, a rocprof-compute
workload's ``roofline.csv``): such a file is named by its folder."""


def measured_name(path: str | Path | Sequence[str | Path]) -> str:
    """The ``NAME`` of the preset ``PREFIX-NAME`` of a measured-peaks file given by hand.

    A folder's name; a file's stem, or its folder's name when the stem is the tools'
    own ``roofline`` (ERT ``roofline.json``, a workload's ``roofline.csv``: the folder
    names the run, as in the workflow's ``rocprof/NAME/roofline.csv``); of several files,
    the first's. Spaces become ``_``.
    """
    first = Path(path if isinstance(path, str | Path) else next(iter(path)))
    if first.is_dir():
        name = first.resolve().name
    elif first.stem == TOOL_STEM:
        name = first.resolve().parent.name
    else:
        name = first.stem
    return name.replace(" ", "_")


def read_presets(path: str | Path) -> dict[str, Preset]:
    """The presets of a ``--preset-file``: a hardware.yaml's, or a measured-peaks file's one.

    ``path`` is a hardware.yaml (``.yaml``/``.yml``, or any file that no peaks reader
    recognises but names ``presets:``), or a measured-peaks file or folder
    (:func:`peaks_source`), whose preset is ``PREFIX-NAME`` (:func:`measured_name`).

    Raises:
        InputError: neither, or a bad file (as :func:`load_preset`).
    """
    from rooflow.formats.sniffing import head_text
    from rooflow.roofs.datasheet import load_hardware

    path = Path(path)
    source = None if path.suffix.lower() in (".yaml", ".yml") else peaks_source(path)
    if source is not None:
        key = f"{source.prefix}-{measured_name(path)}"
        return {key: load_preset(key, measured_file=path)}
    if (path.suffix.lower() in (".yaml", ".yml") or not path.exists()
            or any(line.startswith("presets:") for line in head_text(path).splitlines())):
        return load_hardware(path)
    raise InputError(
        str(path), "neither a hardware.yaml (presets:) nor a measured-peaks file: an ERT "
        "roofline.json, a rocprof-compute/Omniperf roofline.csv (or its workload folder), a "
        "pti-gpu device config CSV, or an ncu --csv export with the device's peaks",
        check="hardware file",
    )


def choose_preset(
    hardware_file: str | Path,
    key: str | None,
    *,
    peak_tflops: float | None = None,
    peak_bandwidth_gbs: float | None = None,
) -> Preset:
    """The preset the command line draws on: ``--preset`` of ``--preset-file``, or peaks.

    A hardware.yaml: as :func:`rooflow.roofs.preset.select_preset` (``key``, else both
    peaks for a custom roof). A measured-peaks file holds one preset, taken when ``key``
    is left out; ``--peak-tflops``/``--peak-bandwidth`` override its defaults.

    Raises:
        InputError: as :func:`read_presets` and ``select_preset``; ``key`` is not the one
            preset of a measured-peaks file.
    """
    from rooflow.roofs.preset import select_preset

    path = Path(hardware_file)
    measured = path.suffix.lower() not in (".yaml", ".yml") and peaks_source(path) is not None
    presets = read_presets(path) if key or measured else {}
    if measured:
        (only,) = presets
        if key not in (None, only):
            raise InputError(
                str(path), f"a measured-peaks file holds one preset, {only!r}: give "
                f"--preset {only} or leave --preset out", column="preset", value=key,
                check="preset of the peaks file",
            )
        key = only
    return select_preset(presets, key, peak_tflops=peak_tflops,
                         peak_bandwidth_gbs=peak_bandwidth_gbs)


def load_preset(
    key: str,
    hardware_file: str | Path | None = None,
    measured_file: str | Path | Sequence[str | Path] | None = None,
) -> Preset:
    """The preset ``key``: from a hardware.yaml, or built from a measured-peaks file.

    Args:
        key: preset id.
        hardware_file: datasheet presets (default: the packaged ``hardware.yaml``).
        measured_file: an ERT ``roofline.json``, an Omniperf ``roofline.csv`` (or its
            workload folder), a pti-gpu device config CSV, or ``ncu --csv`` export(s)
            with "Theoretical" peaks (a file, a folder of passes or several files); the
            preset is then named ``key``.

    Raises:
        InputError: unknown key, or a bad hardware/peaks file.
    """
    from rooflow.roofs.preset import preset_from_mapping

    if measured_file is None:
        from rooflow.roofs.datasheet import load_hardware

        presets = load_hardware(*([hardware_file] if hardware_file else []))
        if key not in presets:
            raise InputError(str(hardware_file), "unknown preset", value=key)
        return presets[key]
    source = measured_source(measured_file)
    if (source.prefix == "omniperf" and isinstance(measured_file, str | Path)
            and Path(measured_file).is_dir()):
        measured_file = Path(measured_file) / "roofline.csv"  # a workload folder
    where = (str(measured_file) if isinstance(measured_file, str | Path)
             else ", ".join(map(str, measured_file)))
    return preset_from_mapping(key, source.mapping(measured_file), source=where)
