"""A PNG file of an opaque 8-bit RGB picture: rows unfiltered, deflated by ISA-L at level 1.

Pillow, which matplotlib hands its PNGs to, chooses one of PNG's five row filters for
every row by trying each (``libImaging/ZipEncode.c``) and offers no way to choose one
filter: on a roofline plot (2,200 × 1,300 px at 200 dpi, mostly flat colour) that trial
is two thirds of the encode (bench/NOTES.md, "PNG encode"), and unfiltered rows deflate
as small. The file format is the PNG specification's (W3C, "Portable Network Graphics
(PNG) Specification", 3rd edition, §5 datastream, §11.2 IHDR, §11.3.5.3 pHYs). Intel's
ISA-L (python-isal's ``isal_zlib``, a zlib stream as RFC 1950 defines it) deflates, about
ten times quicker than stdlib zlib at level 1 and as small (bench/NOTES.md); where isal is
not installed (it has wheels for x86-64 and ARM64 only), stdlib zlib does. Stdlib zlib
checksums the chunks.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

try:
    from isal.isal_zlib import compress
except ImportError:  # the same zlib stream, ten times slower (see above)
    from zlib import compress

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1
"""Deflate level: ISA-L's 0, 1 and 2 take one time on a plot's rows and 1 is within 0.3 %
of 2's size (0's is 26 % larger); zlib's 1 is its quickest that deflates."""


def _chunk(tag: bytes, data: bytes) -> bytes:
    """Length, type, data and the CRC-32 of type and data (§5.3)."""
    return (struct.pack(">I", len(data)) + tag + data
            + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag))))


def write_png(path: str | Path, rgba: np.ndarray, dpi: float) -> None:
    """Write the RGB channels of ``rgba`` as a PNG file with its resolution.

    Args:
        path: file written (created or replaced).
        rgba: ``(height, width, 4)`` uint8 pixels, top row first (Agg's buffer); alpha is
            dropped: the picture must be opaque (the figure is drawn on white).
        dpi: dots per inch, stored in ``pHYs`` as pixels per metre (rounded as Pillow
            does), so a report sizes the picture as matplotlib would.

    Raises:
        ValueError: ``rgba`` is not ``(height, width, 4)`` uint8.
        OSError: ``path`` cannot be written.
    """
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"expected (height, width, 4) uint8 pixels, got {rgba.shape} "
                         f"{rgba.dtype}")
    height, width = rgba.shape[:2]
    rows = np.empty((height, 1 + 3 * width), np.uint8)
    rows[:, 0] = 0  # each row's filter type: None (§9.2)
    pixels = rows[:, 1:]
    for channel in range(3):  # one strided copy each: quicker than reshaping the RGB view
        pixels[:, channel::3] = rgba[:, :, channel]
    per_metre = int(dpi / 0.0254 + 0.5)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    with open(path, "wb") as out:
        out.write(SIGNATURE + _chunk(b"IHDR", header)
                  + _chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))
                  + _chunk(b"IDAT", compress(rows.data, LEVEL)) + _chunk(b"IEND", b""))
