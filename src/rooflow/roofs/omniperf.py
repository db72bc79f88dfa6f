"""Omniperf / rocprof-compute ``roofline.csv`` (measured peaks per device) → empirical preset.

The roofs are the ones rocprof-compute's own roofline draws (ROCm/rocprofiler-compute
``src/utils/roofline_calc.py``, ``calc_ceilings``/``constuct_roof``; keys of
``0400_roofline.yaml``): one row per device, peaks in GB/s and GFLOP/s (GOP/s for
``MFMAI8Ops``), each with ``...Low``/``...High`` spread columns (not read). Precision keys
are :data:`rooflow.points.PRECISIONS` names, the ones :mod:`rooflow.adapters.amd.counters`
gives kernels, so a kernel meets the roof of the unit that did its work:
``MFMAF64Flops`` → fp64-tensor, ``MFMAF32Flops`` → fp32-matrix, ``MFMAF16Flops`` →
fp16-tensor, ``MFMABF16Flops`` → bf16-tensor; when present, ``MFMAF8Flops`` →
fp8-tensor, ``MFMAF6F4Flops`` → fp6-tensor (gfx950) and ``MFMAI8Ops`` → int8-tensor, an
integer roof (TOP/s in the preset, judged only against int8-tensor points).
"""

from __future__ import annotations

from pathlib import Path

import pandera.polars as pa

from rooflow.errors import InputError
from rooflow.validate import check, coerce_numeric, read_csv_text

_ROOFS = {  # roofline.csv column → (preset section, key); GB/s and GFLOP/s
    "HBMBw": ("memory", "HBM"), "L2Bw": ("memory", "L2"), "L1Bw": ("memory", "L1"),
    "LDSBw": ("memory", "LDS"), "FP32Flops": ("compute", "fp32"),
    "FP64Flops": ("compute", "fp64"), "MFMABF16Flops": ("compute", "bf16-tensor"),
    "MFMAF16Flops": ("compute", "fp16-tensor"), "MFMAF32Flops": ("compute", "fp32-matrix"),
    "MFMAF64Flops": ("compute", "fp64-tensor"),
}
_OPTIONAL = {  # written by some rocprof-compute versions only
    "MFMAF8Flops": ("compute", "fp8-tensor"), "MFMAF6F4Flops": ("compute", "fp6-tensor"),
    "MFMAI8Ops": ("compute", "int8-tensor"),
}


class RooflineCsv(pa.DataFrameModel):
    """Omniperf ``roofline.csv`` after numeric coercion: one row per device."""

    device: float = pa.Field(ge=0, unique=True)
    peaks: float = pa.Field(alias=r"^(HBM|L2|L1|LDS)Bw$|^(MFMA\w+|FP32|FP64)Flops$|^MFMAI8Ops$",
                            regex=True, gt=0)

    class Config:
        strict = False


def omniperf_preset(roofline_csv: str | Path, *, key: int | str | None = None) -> dict:
    """Measured preset from an Omniperf ``roofline.csv``.

    The file has one row per device with measured peaks: ``HBMBw``, ``L2Bw``, ``L1Bw``,
    ``LDSBw`` (GB/s), ``FP32Flops``, ``FP64Flops``, ``MFMA{BF16,F16,F32,F64}Flops``
    (GFLOP/s), optionally ``MFMAF8Flops``, ``MFMAF6F4Flops`` (GFLOP/s) and ``MFMAI8Ops``
    (GOP/s), each with ``...Low``/``...High`` spread columns (not used).

    Args:
        roofline_csv: path of ``roofline.csv``.
        key: the ``device`` to use; default the first row.

    Returns:
        The preset mapping of ``config/hardware.yaml``: ``name``, ``source``, ``compute``
        (fp32, fp64, bf16-tensor, fp16-tensor, fp32-matrix, fp64-tensor and, when in
        the file, fp8-tensor, fp6-tensor → TFLOP/s, int8-tensor → TOP/s),
        ``memory`` (HBM, L2, L1, LDS → GB/s), ``default_compute`` "fp32",
        ``default_memory`` "HBM", ``empirical`` True.

    Raises:
        InputError: missing columns, a peak that is not a positive number, a repeated or
            unknown device.
    """
    path = Path(roofline_csv)
    frame = read_csv_text(path)
    missing = [c for c in ("device", *_ROOFS) if c not in frame.columns]
    if missing:
        raise InputError(str(path), "lacks column(s): " + ", ".join(missing), check="columns")
    roofs = {**_ROOFS, **{c: v for c, v in _OPTIONAL.items() if c in frame.columns}}
    frame = check(coerce_numeric(frame, ["device", *roofs], path), RooflineCsv, path)
    if frame.is_empty():
        raise InputError(str(path), "has no device row", check="rows")
    devices = frame["device"].to_list()
    if key is None:
        index = 0
    else:
        matches = [i for i, d in enumerate(devices) if str(key).strip() in (str(d), f"{d:g}")]
        if not matches:
            raise InputError(
                str(path), "no such device; devices: " + ", ".join(f"{d:g}" for d in devices),
                column="device", value=key,
            )
        index = matches[0]
    row = frame.row(index, named=True)
    device = f"{row['device']:g}"
    preset: dict = {
        "name": f"{path.parent.name or path.stem} device {device} (Omniperf empirical)",
        "source": f"{path} (empirical, Omniperf roofline.csv, device {device})",
        "compute": {},
        "memory": {},
        "default_compute": "fp32",
        "default_memory": "HBM",
        "empirical": True,
    }
    for column, (section, name) in roofs.items():
        # GFLOP/s → TFLOP/s for compute roofs; GB/s stays GB/s.
        preset[section][name] = row[column] / 1e3 if section == "compute" else row[column]
    return preset
