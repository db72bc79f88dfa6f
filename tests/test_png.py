"""The PNG writer (rooflow.plotting.png): what Pillow reads back is what was written."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from rooflow.plotting.png import SIGNATURE, write_png


def _picture(height: int, width: int) -> np.ndarray:
    """Seeded opaque RGBA noise: every byte value in every channel, no two rows alike."""
    rgba = np.random.default_rng(7).integers(0, 256, (height, width, 4), dtype=np.uint8)
    rgba[:, :, 3] = 255
    return rgba


def test_pillow_reads_back_the_rgb_pixels_and_resolution(tmp_path):
    rgba = _picture(23, 37)
    write_png(tmp_path / "p.png", rgba, 200)
    with Image.open(tmp_path / "p.png") as image:
        image.load()  # Pillow checks every chunk's CRC and the zlib stream as it reads
        assert image.mode == "RGB" and image.size == (37, 23)
        assert np.array_equal(np.asarray(image), rgba[:, :, :3])
        # pHYs: 200 dpi / 0.0254 m per inch = 7,874.0157 → 7,874 px/m, which Pillow reads
        # back as 7,874 × 0.0254 = 199.9996 dpi (PNG spec §11.3.5.3: pixels per metre).
        assert image.info["dpi"] == pytest.approx((199.9996, 199.9996), abs=1e-4)


def test_chunks_are_laid_out_as_the_png_specification_says(tmp_path):
    write_png(tmp_path / "p.png", _picture(2, 3), 72)
    data = (tmp_path / "p.png").read_bytes()
    assert data[:8] == SIGNATURE == b"\x89PNG\r\n\x1a\n"
    tags, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        tag, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(tag + body), tag
        tags.append((tag, body))
        at += 12 + length
    assert [t for t, _ in tags] == [b"IHDR", b"pHYs", b"IDAT", b"IEND"]
    # IHDR: width 3, height 2, bit depth 8, colour type 2 (truecolour), methods 0, no interlace
    assert struct.unpack(">IIBBBBB", tags[0][1]) == (3, 2, 8, 2, 0, 0, 0)
    # 72 dpi / 0.0254 = 2,834.6 → 2,835 px/m, unit 1 (metre)
    assert struct.unpack(">IIB", tags[1][1]) == (2835, 2835, 1)
    rows = zlib.decompress(tags[2][1])
    assert len(rows) == 2 * (1 + 3 * 3) and rows[0] == rows[10] == 0  # filter None per row


@pytest.mark.parametrize("shape, dtype", [((4, 5, 3), np.uint8), ((4, 5, 4), np.uint16),
                                          ((20,), np.uint8)])
def test_not_rgba_bytes_is_refused(tmp_path, shape, dtype):
    with pytest.raises(ValueError, match="expected \\(height, width, 4\\) uint8"):
        write_png(tmp_path / "p.png", np.zeros(shape, dtype), 100)
    assert not (tmp_path / "p.png").exists()


def test_save_takes_aggs_own_canvas_size(tmp_path):
    # 20.4 in × 100 dpi is 2,039.99… in floating point; Agg's canvas is 2,040 px wide
    # (9.2 in × 100 = 920 px high): the size is read from Agg's buffer, not worked out.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from rooflow.plotting.roofline import save

    fig = Figure(figsize=(20.4, 9.2))
    FigureCanvasAgg(fig)
    fig.add_subplot().plot([1, 2], [3, 4])
    save(fig, tmp_path / "wide.png", "png", 100)
    with Image.open(tmp_path / "wide.png") as image:
        assert image.size == (2040, 920) and image.mode == "RGB"


def test_without_isal_stdlib_zlib_writes_the_same_pixels(tmp_path):
    # Where python-isal is not installed (no wheel for the platform), stdlib zlib deflates:
    # the same zlib stream format, so the same picture reads back.
    import subprocess
    import sys

    rgba = _picture(31, 17)
    np.save(tmp_path / "p.npy", rgba)
    z, pixels = str(tmp_path / "z.png"), str(tmp_path / "p.npy")
    code = ("import sys, numpy as np; sys.modules['isal'] = None\n"
            "from rooflow.plotting import png\n"
            "assert png.compress.__module__ == 'zlib', png.compress.__module__\n"
            f"png.write_png({z!r}, np.load({pixels!r}), 200)")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    write_png(tmp_path / "i.png", rgba, 200)
    for name in ("z.png", "i.png"):
        with Image.open(tmp_path / name) as image:
            assert np.array_equal(np.asarray(image), rgba[:, :, :3]), name
