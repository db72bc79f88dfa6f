"""Regular expressions from users (issue 32, item 6): none can hang, and one engine decides.

``--map``, ``--kernel``/``--exclude`` and config ``select`` patterns are checked and matched
by polars (Rust's ``regex`` crate: no backtracking, linear in the text). ``(a+)+$`` on
``a``·30 + ``b`` takes 2³⁰ steps in a backtracking engine (Python's ``re``: it hung
``model-check``); here it is one pass. A look-around, which ``re`` takes and polars refuses,
is refused up front (config schema, CLI option), never in every draw job.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_run import run

from rooflow.model_vs_measured import parse_mapping, reconcile
from rooflow.patterns import regex_error
from rooflow.selection import Selection
from rooflow.workflow.preflight import config_error

REPO = Path(__file__).resolve().parents[1]
ROOFLOW = str(Path(sys.executable).with_name("rooflow"))
EVIL = "a" * 30 + "b"  # (a+)+$ fails on it only after trying every split of the a's
REDOS = "(a+)+$"
LOOK_AROUND = ["(?<=a)b", "a(?=b)", "a(?!b)", "(?<!x)gemm"]
BACK_REFERENCE = r"(a)\1"




@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    model, measured = tmp_path / "model.csv", tmp_path / "measured.csv"
    model.write_text("name,flop,bytes\ngemm_1024,2147483648,12582912\n")
    measured.write_text("name,flop,time_us,bytes_dram,precision\n"
                        f"{EVIL},2164260864,1000,25165824,fp32\n"
                        "aaaa,1000000,10,1000000,fp32\n")
    return model, measured


def test_a_redos_map_pattern_finishes(files, tmp_path):
    """As a user runs it (a hang is caught by the timeout, as it would hang the user)."""
    model, measured = files
    done = subprocess.run([ROOFLOW, "model-check", str(measured), "--model", str(model),
                           "--map", f"{REDOS}=gemm_1024", "--hardware", "a100-sxm",
                           "--table", str(tmp_path / "t.csv")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # (a+)+$ matches "aaaa" (all a's to the end), not EVIL (it ends in b).
    assert (tmp_path / "t.csv").read_text().count("\naaaa,") == 1
    assert EVIL not in (tmp_path / "t.csv").read_text()


def test_first_mapping_that_matches_wins(files, tmp_path):
    from rooflow.adapters import load_points
    from rooflow.defaults import DEFAULT_HARDWARE
    from rooflow.roofs import choose_preset

    model_file, measured_file = files
    model_file.write_text("name,flop,bytes\ngemm_1024,2147483648,12582912\n"
                          "gemm_2048,17179869184,50331648\n")
    model, measured = (load_points("roofline", f) for f in (model_file, measured_file))
    mappings = [parse_mapping("b$=gemm_2048"), parse_mapping("a=gemm_1024")]
    table = reconcile(measured, model, mappings, choose_preset(DEFAULT_HARDWARE, "a100-sxm"))
    # EVIL holds an a and ends in b: both match, the first listed wins; aaaa: the second.
    assert dict(zip(table["kernel"], table["model"], strict=True)) == {
        EVIL: "gemm_2048", "aaaa": "gemm_1024"}


@pytest.mark.parametrize("pattern", [*LOOK_AROUND, BACK_REFERENCE])
def test_what_polars_refuses_is_refused_everywhere_up_front(capsys, files, tmp_path,
                                                            pattern):
    why = regex_error(pattern)
    assert why is not None and ("not supported" in why), why
    with pytest.raises(ValueError, match="is not a regular expression"):
        parse_mapping(f"{pattern}=gemm_1024")
    model, measured = files
    code, lines = run(capsys, "table", measured, "--hardware", "a100-sxm", "--kernel",
                      pattern, "-o", tmp_path / "t.csv")
    # An option value refused is a usage error, exit 2 (docs/cli.md).
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"rooflow: error: --kernel '{pattern}' is not a regular "
                               "expression:"), lines
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    bad = copy.deepcopy(config)
    bad.setdefault("datasets", {})["roofline-x"] = {"select": {"exclude": ["ok", pattern]}}
    line = config_error(bad)
    assert line is not None and "datasets.roofline-x.select.exclude.1" in line, line
    assert "not supported" in line
    bad = copy.deepcopy(config)
    bad["model_checks"] = {"m": {"measured": "a", "model": "b", "map": {pattern: "x"}}}
    line = config_error(bad)
    assert line is not None and "model_checks.m.map" in line and "not supported" in line


def test_what_the_schema_takes_the_filter_takes(files):
    """The ReDoS pattern passes the config schema and the CLI check, and filters in one
    pass: kernel EVIL is dropped by --exclude 'b$', 'aaaa' kept by --kernel '(a+)+$'."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config.setdefault("datasets", {})["roofline-x"] = {"select": {"kernel": REDOS}}
    assert config_error(config) is None
    from rooflow.adapters import load_points

    points = load_points("roofline", files[1])
    kept = Selection(kernel=(REDOS,))(points)
    assert set(kept["kernel"]) == {"aaaa"}
    kept = Selection(exclude=("b$",))(points)
    assert set(kept["kernel"]) == {"aaaa"}


def test_a_pattern_too_big_to_compile_is_refused():
    why = regex_error("x{1000}{1000}")  # 10⁶ copies: past the crate's size limit
    assert why is not None and "size limit" in why
