"""One word for a set of roofs: ``--preset``, ``--preset-file`` and ``rooflow presets``.

The original Xe-Forge ``roofline.py`` names the preset ``--hardware``: that spelling, and
``--hardware-file`` and ``rooflow hardware``, still work but are left out of ``--help``.
"""

from __future__ import annotations

import csv
import io

import pytest
from click.testing import CliRunner

from rooflow.cli.main import cli


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", ["plot", "table", "compare", "check", "history",
                                     "project", "presets"])
def test_help_says_preset_never_hardware(command):
    text = invoke(command, "--help")
    assert "--preset-file" in text
    assert "--hardware" not in text
    if command != "presets":
        assert "--preset " in text or "--preset\n" in text


def test_top_level_help_lists_presets_not_hardware():
    commands = invoke("--help").split("Commands:")[1].split()
    assert "presets" in commands and "hardware" not in commands


def test_hardware_command_is_presets():
    assert invoke("hardware", "arc-pro-b70") == invoke("presets", "arc-pro-b70")


def test_hardware_option_is_preset(repo):
    """Both spellings choose the same preset: the shipped flash-attention file on the Arc
    Pro B70, fp16-tensor 183.5 TFLOP/s, 608 GB/s (config/hardware.yaml): every point is
    compute-bound (AI 900 and 1,500 > ridge 183.5e12 / 608e9 = 301.8 FLOP/byte), the first
    at 35 TFLOP/s = 35 / 183.5 = 19.07 % of its roof."""
    data = str(repo / "resources/roofline/flash_attention.csv")
    new = invoke("table", data, "--preset", "arc-pro-b70", "--format", "csv")
    old = invoke("table", data, "--hardware", "arc-pro-b70", "--format", "csv")
    assert new == old
    first = next(csv.DictReader(io.StringIO(new)))
    assert float(first["performance"]) == 35e12
    assert float(first["pct_of_roof"]) == pytest.approx(35 / 183.5 * 100, abs=0.01)
