"""One shared copy of BokehJS for many pages: the workflow's (rule ``bokehjs``).

A page that inlines BokehJS (``bokeh.resources.INLINE``) carries 1.6 MB of it; thousands
of pages would repeat it thousands of times. The workflow's pages load Bokeh's own bundle
files instead, copied once into one folder (``ROOT/js/BUNDLE.min.js``, the layout of
Bokeh's static folder that its relative resources read), by a ``<script src>`` relative to
the page: a page opened from ``file://`` works offline, and the results folder can be
moved or copied as a whole. The CLI's pages, each handed around alone, keep inlining it
(:func:`rooflow.html.figure.write_page` without ``bokehjs``).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from importlib.metadata import version as _installed
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bokeh.resources import Resources

BUNDLES = ("bokeh", "bokeh-gl", "bokeh-widgets", "bokeh-tables", "bokeh-mathjax")
"""Bokeh's bundles for a standalone page (the components of ``bokeh.resources.Resources``).

A page loads only those its models need (``bokeh.embed.bundle``): ours ``bokeh`` and
``bokeh-widgets`` (the notes are ``Div`` widgets), and ``bokeh-mathjax`` when a roof label
or note holds TeX delimiters (a preset's own text). All are copied, so any page finds
what it loads; 3.9 MB once.
"""


BUNDLE_FILE = "js/{bundle}.min.js"
"""A bundle's file under the shared folder: the layout of Bokeh's static folder, which its
relative resources read."""


def version() -> str:
    """The installed Bokeh's version (its package metadata: no import of Bokeh)."""
    return _installed("bokeh")


def source(bundle: str) -> Path:
    """Bokeh's own minified file of ``bundle`` (one of :data:`BUNDLES`), in its package."""
    from bokeh.util.paths import bokehjs_path

    return bokehjs_path() / BUNDLE_FILE.format(bundle=bundle)


def root(files: Sequence[str | Path]) -> Path:
    """The folder of the shared bundles ``files`` (``ROOT/js/BUNDLE.min.js``, one per bundle).

    Raises:
        ValueError: ``files`` are not :data:`BUNDLES` in that layout under one folder.
    """
    paths = [Path(f) for f in files]
    top = paths[0].parent.parent if paths else Path()
    if sorted(paths) != sorted(top / BUNDLE_FILE.format(bundle=b) for b in BUNDLES):
        raise ValueError(f"not the BokehJS bundles {', '.join(BUNDLES)} under one folder's "
                         f"js/: {', '.join(map(str, paths))}")
    return top


def write_bundles(files: Sequence[str | Path]) -> None:
    """Copy Bokeh's bundles to ``files`` (:func:`root`'s layout), each atomically."""
    # Here, not on import: rooflow.io imports polars, and workflow.paths reads this module.
    from rooflow.io import atomic_path

    top = root(files)
    for bundle in BUNDLES:
        with atomic_path(top / BUNDLE_FILE.format(bundle=bundle)) as tmp:
            shutil.copyfile(source(bundle), tmp)


def resources(files: Sequence[str | Path], page: str | Path) -> Resources:
    """Bokeh resources that load the shared bundles ``files`` from ``page``, by relative paths.

    Minified and without Bokeh's developer mode whatever ``BOKEH_*`` variables say, so the
    paths are those of the files :func:`write_bundles` wrote.
    """
    from bokeh.resources import Resources

    return Resources(mode="relative", root_dir=Path(page).parent, base_dir=root(files),
                     minified=True, dev=False)
