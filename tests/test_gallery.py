"""docs/gallery is current: regenerated into a temporary folder, its page is the same text
and each PNG the same picture as the one in docs/gallery.

Images are compared pixel by pixel, not byte by byte (zlib and PNG metadata may differ):
the same size, and at most 0.5 % of the pixels differing by more than 32 levels in a
channel (anti-aliasing of one moved glyph is a few hundred pixels of 715,000). A plot
whose layout, roofs, axes or texts changed moves thousands.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "docs" / "gallery"
MAX_CHANGED = 0.005


def _tool():
    spec = importlib.util.spec_from_file_location("gallery", ROOT / "tools" / "gallery.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def changed_share(a: Path, b: Path) -> float:
    """The share of pixels of ``a`` and ``b`` differing by more than 32 in some channel."""
    from PIL import Image

    x = np.asarray(Image.open(a).convert("RGB"), dtype=np.int16)
    y = np.asarray(Image.open(b).convert("RGB"), dtype=np.int16)
    if x.shape != y.shape:
        return 1.0
    return float(np.mean(np.abs(x - y).max(axis=2) > 32))


def test_changed_share_tells_a_moved_label_from_the_same_picture(tmp_path):
    from PIL import Image, ImageDraw

    base = Image.new("RGB", (400, 300), "white")
    ImageDraw.Draw(base).text((20, 20), "fp32: 19.5 TFLOP/s", fill="black")
    base.save(tmp_path / "a.png")
    base.save(tmp_path / "b.png", compress_level=9)  # other bytes, same picture
    moved = Image.new("RGB", (400, 300), "white")
    ImageDraw.Draw(moved).text((20, 200), "fp32: 19.5 TFLOP/s", fill="black")
    moved.save(tmp_path / "c.png")
    assert changed_share(tmp_path / "a.png", tmp_path / "b.png") == 0.0
    assert changed_share(tmp_path / "a.png", tmp_path / "c.png") > 0.0
    Image.new("RGB", (401, 300), "white").save(tmp_path / "d.png")
    assert changed_share(tmp_path / "a.png", tmp_path / "d.png") == 1.0


@pytest.mark.gallery
@pytest.mark.shared
def test_gallery_is_current(tmp_path):
    tool = _tool()
    if not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("../shared/data not here: the gallery's real files are missing")
    drawn = tool.build(tmp_path)
    assert len(drawn) == len(tool.ENTRIES)
    page = (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    assert page == tool.page(drawn), "docs/gallery.md is stale: run make gallery"
    for stem, _, _ in drawn:
        share = changed_share(tmp_path / f"{stem}.png", GALLERY / f"{stem}.png")
        assert share <= MAX_CHANGED, f"docs/gallery/{stem}.png is stale: run make gallery"
    assert sorted(p.name for p in GALLERY.glob("*.png")) == sorted(
        f"{stem}.png" for stem, _, _ in drawn), "docs/gallery holds images of no entry"
