"""The original Xe-Forge ``roofline.py``, which rooflow replaces, as ``make bench`` runs it.

The script (``../shared/baselines/xe-forge-scripts/roofline.py``, smarcink/Xe-Forge @
1aca67ea, Apache-2.0; ``../shared/baselines/README.md``) is run where it lies, never
copied here, by the interpreter of a throw-away venv of its own
(``results/benchmarks/xf-venv``): matplotlib, numpy and pyyaml at the releases of
``bench/baseline-constraints.txt``, those of rooflow's own venv.

Both sides plot on one roof given as numbers, ``--peak-tflops 117 --peak-bandwidth 456``
(:data:`ROOF`): the script's ``arc-b580`` preset, whose figures rooflow's preset of that
name rounds differently (116.7 TFLOP/s), so a preset name would give the two plots
different roofs. The inputs (``bench/generate.py``) have columns both read:
series, label, pair, arithmetic_intensity, tflops (rooflow also reads precision, which
the script ignores).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from generate import REPO  # bench/ is on sys.path

ORIGINAL = REPO.parent / "shared" / "baselines" / "xe-forge-scripts" / "roofline.py"
CONSTRAINTS = Path(__file__).with_name("baseline-constraints.txt")
ROOF = ("--peak-tflops", "117", "--peak-bandwidth", "456")
"""The roof of every timed plot, on both sides: 117 TFLOP/s, 456 GB/s."""


def original_python(venv: Path) -> Path | None:
    """The interpreter of ``venv`` (made or brought up to :data:`CONSTRAINTS` here), or
    None, after one line saying so, when the original script is not beside the checkout."""
    if not ORIGINAL.exists():
        print(f"make bench: {ORIGINAL} is missing (../shared, beside this checkout: "
              "README 'Set up and run'): the original script's rows are skipped", flush=True)
        return None
    python, stamp = venv / "bin" / "python", venv / ".installed"
    wanted = CONSTRAINTS.read_text()
    if not python.exists() or not stamp.exists() or stamp.read_text() != wanted:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-c", str(CONSTRAINTS),
                        "matplotlib", "numpy", "pyyaml"], check=True)
        stamp.write_text(wanted)
    return python


def original_cmd(python: Path, path: Path, output: Path) -> list[str]:
    """The original script's plot of the roofline CSV ``path`` on :data:`ROOF`."""
    return [str(python), str(ORIGINAL), str(path), *ROOF, "-o", str(output)]
