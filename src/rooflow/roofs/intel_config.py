"""pti-gpu roofline device config (``key,value`` CSV) → preset.

The unitrace roofline script reads one config per device (intel/pti-gpu
``tools/unitrace/scripts/roofline/device_configs/PVC_1tile.csv``; class ``Platform`` in
``roofline_libs.py``): two columns, no header, e.g. ``FP16_XMX_GFLOPS,314000``. Peaks
are GFLOP/s and GB/s (decimal). Keys and the roofs they become (precision names of
:mod:`rooflow.adapters.intel.unitrace`, so a kernel meets the roof of the unit that did its work):

=============================== ==================== ============
key                             roof                 unit
=============================== ==================== ============
``FP64_GFLOPS``                 compute ``fp64``     GFLOP/s
``FP32_GFLOPS``                 compute ``fp32``     GFLOP/s
``FP16_GFLOPS``                 compute ``fp16``     GFLOP/s
``FP16_XMX_GFLOPS``             compute ``fp16-tensor`` GFLOP/s
``BF16_XMX_GFLOPS``             compute ``bf16-tensor`` GFLOP/s
``GPU_MEMORY_BW_in_GB_per_sec`` memory ``DRAM`` (HBM) GB/s
``L3_BW_in_GB_per_sec``         memory ``L3``        GB/s
``PlatformName``                the preset's name
=============================== ==================== ============

Other keys are not roofs the script knows; they are ignored and listed in the preset's
``source`` (never an error). The default roofs are ``fp32`` (the script's ridge for its
"Bounded_by" column) and ``DRAM``.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from rooflow.errors import InputError

ROOFS: dict[str, tuple[str, str]] = {  # key → (preset section, roof)
    "FP64_GFLOPS": ("compute", "fp64"),
    "FP32_GFLOPS": ("compute", "fp32"),
    "FP16_GFLOPS": ("compute", "fp16"),
    "FP16_XMX_GFLOPS": ("compute", "fp16-tensor"),
    "BF16_XMX_GFLOPS": ("compute", "bf16-tensor"),
    "GPU_MEMORY_BW_in_GB_per_sec": ("memory", "DRAM"),
    "L3_BW_in_GB_per_sec": ("memory", "L3"),
}
NAME_KEY = "PlatformName"


def sniff(path: str | Path) -> bool:
    """Whether ``path`` looks like a device config (a ``*_GFLOPS`` or ``*_BW_*`` key line)."""
    if not Path(path).is_file():  # a FIFO would block the open, a device never end
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536).decode("utf-8", errors="replace")
    except OSError:
        return False
    keys = [line.split(",", 1)[0].strip() for line in head.splitlines() if "," in line]
    return any(k in ROOFS for k in keys)


def intel_preset(path: str | Path) -> dict:
    """Hardware preset mapping from a pti-gpu roofline device config.

    Returns:
        The ``hardware.yaml`` entry layout: ``name`` (``PlatformName``, else the file
        stem), ``source`` (the file, and any ignored keys), ``compute`` (see the module
        table, TFLOP/s), ``memory`` (``DRAM``, ``L3``, GB/s), ``default_compute``
        ``fp32`` (else the first compute roof), ``default_memory`` ``DRAM`` (else ``L3``),
        ``empirical`` False (the shipped configs hold peak figures).

    Raises:
        InputError: not a readable regular file of at most
            :data:`~rooflow.safeload.MAX_CONFIG_BYTES`, not UTF-8; a line that is not
            ``key,value``; a key given twice;
            a roof value that is not a finite number > 0; no compute or no memory roof.
    """
    from rooflow.safeload import MAX_CONFIG_BYTES, read_text

    path = Path(path)
    text = read_text(path, "a pti-gpu device config", max_bytes=MAX_CONFIG_BYTES)
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as err:
        raise InputError(str(path), f"not valid CSV: {err}") from None
    entries: dict[str, tuple[int, str]] = {}
    for line, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        if len(cells) != 2 or not cells[0]:
            # The first cell past the pair, or the lone cell: never the whole line.
            raise InputError(str(path), "expected one 'key,value' pair", row=line,
                             value=cells[min(2, len(cells) - 1)][:100], check="key,value")
        if cells[0] in entries:
            raise InputError(str(path), "key given twice", row=line, column=cells[0])
        entries[cells[0]] = (line, cells[1])

    preset: dict = {"compute": {}, "memory": {}}
    for key, (section, roof) in ROOFS.items():
        if key in entries:
            line, text_value = entries[key]
            preset[section][roof] = _peak(path, key, line, text_value) / (
                1e3 if section == "compute" else 1.0)  # GFLOP/s → TFLOP/s; GB/s stays
    for section, keys in (("compute", "*_GFLOPS"), ("memory", "*_BW_in_GB_per_sec")):
        if not preset[section]:
            raise InputError(str(path), f"no {section} roof: needs a {keys} key",
                             check="roofs")
    ignored = sorted(set(entries) - set(ROOFS) - {NAME_KEY})
    name = entries.get(NAME_KEY, (0, ""))[1] or path.stem
    compute, memory = preset["compute"], preset["memory"]
    return {
        "name": f"{name} (pti-gpu roofline device config)",
        "source": f"{path} (intel/pti-gpu unitrace roofline device config)"
        + (f"; ignored keys: {', '.join(ignored)}" if ignored else ""),
        "compute": compute,
        "memory": memory,
        "default_compute": "fp32" if "fp32" in compute else next(iter(compute)),
        "default_memory": "DRAM" if "DRAM" in memory else next(iter(memory)),
        "empirical": False,
    }


def _peak(path: Path, key: str, line: int, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise InputError(str(path), "peak is not a finite number > 0", row=line, column=key,
                         check="numeric", value=text)
    return value
