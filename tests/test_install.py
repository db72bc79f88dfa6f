"""A built wheel (not the source tree) installed in a fresh venv works from any folder.

The wheel is built from a copy of the sources by pip, with build isolation as
``pip install .`` (it needs setuptools>=68 from the package index or pip's cache); the
fresh venv sees this interpreter's site-packages for the
pinned libraries through a path entry, but not its ``.pth`` files, so the editable
rooflow of the development venv is not importable there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(cmd: list, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src-copy"
    shutil.copytree(REPO / "src", src / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    # As `pip install .` does: an isolated build env with the build-system requirements
    # (setuptools>=68, from the package index or pip's cache), then a wheel.
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp / "dist", src],
         cwd=tmp)
    (wheel,) = (tmp / "dist").glob("rooflow-*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp)
    bin_dir = venv / "bin"
    _run([sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "--quiet",
          "--no-deps", "--no-index", wheel], cwd=tmp)
    # Dependencies: this interpreter's site-packages as a plain path entry (no .pth files).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    work = tmp / "elsewhere"
    work.mkdir()
    return {"wheel": wheel, "venv": venv, "bin": bin_dir, "env": env, "work": work}


def test_the_wheel_holds_the_package_data(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    for data in ("hardware.yaml", "families.yaml", "config.schema.yaml",
                 "hardware.schema.yaml", "families.schema.yaml"):
        assert f"rooflow/data/{data}" in names
    assert "rooflow/adapters/__init__.py" in names and "rooflow/py.typed" in names


def test_installed_rooflow_is_the_venv_copy(installed):
    out = _run([installed["bin"] / "python", "-c",
                "import rooflow, rooflow.defaults as d; print(rooflow.__file__); "
                "print(d.DEFAULT_HARDWARE)"], cwd=installed["work"], env=installed["env"])
    module, hardware = out.stdout.split()
    venv = str(installed["venv"].resolve())
    assert Path(module).resolve().as_posix().startswith(venv), module
    assert Path(hardware).resolve().as_posix().startswith(venv), hardware
    assert str(REPO) not in out.stdout


def test_installed_cli_lists_presets_from_any_folder(installed):
    out = _run([installed["bin"] / "rooflow", "hardware"], cwd=installed["work"],
               env=installed["env"])
    assert "h100-sxm: NVIDIA H100" in out.stdout
    assert "mi300x:" in out.stdout


def test_installed_cli_plots_a_roofline_csv(installed):
    work = installed["work"]
    # Two points under the H100 SXM roofs (HBM 3350 GB/s): AI 10 → bandwidth roof
    # 10 × 3.35 TB/s = 33.5 TFLOP/s, 20 measured; AI 500 → above the ridge, 300 measured.
    (work / "some.csv").write_text("label,arithmetic_intensity,tflops\n"
                                   "stream-ish,10,20\ngemm,500,300\n")
    _run([installed["bin"] / "rooflow", "plot", "some.csv", "--hardware", "h100-sxm",
          "-o", "out.png", "--table", "out.csv"], cwd=work, env=installed["env"])
    assert (work / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = (work / "out.csv").read_text().splitlines()
    assert len(table) == 3


def test_python_m_rooflow_is_the_program(installed):
    out = _run([installed["bin"] / "python", "-m", "rooflow", "--version"],
               cwd=installed["work"], env=installed["env"])
    assert out.stdout.strip() == "rooflow, version 0.1.0"
