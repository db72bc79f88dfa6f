"""What a command imports: only what it uses (issue 23, item 1; figures in bench/NOTES.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FLASH = str(REPO / "resources/roofline/flash_attention.csv")

# Runs the CLI in a fresh interpreter, set up as the rooflow program is (rooflow.cli.program),
# and writes the names in sys.modules at exit, after click's sys.exit.
WRAPPER = """
import atexit, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(
    "\\n".join(sorted(m for m, loaded in sys.modules.items() if loaded is not None))))
from rooflow.cli.program import set_up
set_up()
from rooflow.cli.main import main
main(sys.argv[2:])
"""

# What a plot never needs: adjustText (no longer used: rooflow.plotting.layout places labels)
# and what it imported (scipy.spatial, numpy.fft, numpy.f2py, pyplot), the pages (bokeh),
# the readers that validate (pandera).
# matplotlib.projections.geo is not listed: matplotlib.projections imports it, whatever
# the axes drawn (matplotlib 3.11).
LABEL_PLACEMENT = ("adjustText", "scipy", "matplotlib.pyplot", "numpy.fft", "numpy.f2py")
NOT_FOR_A_PLOT = ("bokeh", "pandera")


def _modules(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.txt"
    run = subprocess.run([sys.executable, "-c", WRAPPER, str(out), *args],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return set(out.read_text().split())


def _loaded(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == r or m.startswith(r + ".") for r in roots))


def test_labelled_small_plot_imports_no_bokeh_or_pandera(tmp_path):
    """The first plot of a new user: 4 points, labelled (automatic), and nothing more."""
    # The shipped file states its precision: its judged points are the labelled ones.
    modules = _modules(tmp_path, "plot", FLASH, "--hardware", "arc-pro-b70", "-o", "x.png")
    assert (tmp_path / "x.png").stat().st_size > 0
    assert not _loaded(modules, NOT_FOR_A_PLOT)


def test_two_point_plot_imports_no_label_placement(tmp_path):
    """Issue 23's smallest plot: two labelled points whose labels crowd nothing."""
    csv = tmp_path / "two.csv"
    csv.write_text("series,label,ai,tflops\nOriginal,k1,10,5\nOptimized,k1,100,20\n")
    modules = _modules(tmp_path, "plot", str(csv), "--hardware", "h100-sxm", "-o", "x.png")
    assert (tmp_path / "x.png").stat().st_size > 0
    assert not _loaded(modules, (*NOT_FOR_A_PLOT, *LABEL_PLACEMENT))


def test_two_row_plot_with_a_key_imports_no_label_placement(tmp_path):
    csv = tmp_path / "two.csv"
    csv.write_text("series,label,arithmetic_intensity,tflops\nA,k1,10,5\nA,k2,100,20\n")
    modules = _modules(tmp_path, "plot", str(csv), "--hardware", "h100-sxm", "--key",
                       "--no-annotate", "-o", "x.svg")
    assert not _loaded(modules, (*NOT_FOR_A_PLOT, *LABEL_PLACEMENT))


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_table_imports_no_plotting(tmp_path, fmt):
    modules = _modules(tmp_path, "table", FLASH, "--hardware", "arc-pro-b70",
                       "-o", f"t.{fmt}")
    assert not _loaded(modules, ("matplotlib", "numpy", "scipy", "bokeh", "pandera",
                                 "rooflow.plotting.roofline"))


# Draws the 4-point example with the rooflow program's set-up (rooflow.cli.program) and
# writes whether matplotlib built Line2D.set's signature, and which of the hook's lazy
# modules are still not loaded; argv[1] "plain" first empties the import hook's patches
# and lazy modules, as a process without it would import matplotlib.
DRAW = """
import sys
import rooflow.cli.program
hook = rooflow.cli.program.LeanImport
lazy = list(hook.LAZY)
if sys.argv[1] == "plain":
    hook.PATCHES, hook.LAZY = {}, {}
rooflow.cli.program.set_up()
from rooflow.cli.main import main
try:
    main(["plot", sys.argv[2], "--hardware", "arc-pro-b70", "-o", sys.argv[3]])
except SystemExit as stop:
    assert not stop.code, stop.code
from matplotlib.lines import Line2D
print("signature" if hasattr(Line2D.set, "__signature__") else "none")
print(",".join(m for m in lazy if type(sys.modules[m]).__name__ == "_LazyModule") or "-")
"""


def test_matplotlib_without_its_import_docs_draws_the_same_pixels(tmp_path):
    """The program's import hook (no import-time docs, unused modules deferred): same pixels."""
    import numpy as np
    from PIL import Image

    from rooflow.cli.program import LeanImport

    signature, unloaded, pixels = {}, {}, {}
    for how in ("plain", "lean"):
        png = tmp_path / f"{how}.png"
        run = subprocess.run([sys.executable, "-c", DRAW, how, FLASH, str(png)],
                             capture_output=True, text=True, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        signature[how], unloaded[how] = run.stdout.split()[-2:]
        pixels[how] = np.asarray(Image.open(png))
    assert signature == {"plain": "signature", "lean": "none"}
    # Imported by name on the way, never used by a plot: still not loaded once it is drawn
    # (label placement's pyplot, which these labels need, loads matplotlib.widgets).
    assert unloaded["plain"] == "-"
    assert set(unloaded["lean"].split(",")) == set(LeanImport.LAZY) - {
        "matplotlib.widgets"}
    assert pixels["lean"].shape == pixels["plain"].shape
    assert (pixels["lean"] == pixels["plain"]).all()
