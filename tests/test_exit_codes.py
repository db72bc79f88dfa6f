"""docs/cli.md's exit-code table, command by command: bad input 1, a bad option 2.

``check`` follows ``diff``: 0 the same, 1 a regression, 2 trouble (bad input included).
"""

from __future__ import annotations

import pytest

from rooflow.cli.main import cli, main

PEAKS = ["--peak-tflops", "100", "--peak-bandwidth", "1000"]

# Each command with a bad input in its place: BAD is a CSV whose value is not a number,
# YAML a spec that is not YAML; the options each needs to get as far as reading it, and
# an output (OUT: out.png or out.csv) that must not be written.
BAD_INPUT = {
    "plot": ["BAD", *PEAKS, "-o", "out.png"],
    "table": ["BAD", *PEAKS, "-o", "out.csv"],
    "compare": ["BAD", "BAD2", *PEAKS, "-o", "out.png"],
    "check": ["BAD", "BAD2", *PEAKS, "-o", "out.csv"],
    "model-check": ["BAD", "--model", "BAD2", "--map", "a=b", *PEAKS, "-o", "out.png"],
    "convert": ["BAD", "-o", "out.csv"],
    "from-benchmark": ["BAD", "-o", "out.csv"],
    "from-spec": ["YAML", "-o", "out.csv"],
    "from-ncu": ["BAD", "-o", "out.csv"],
    "from-rocprof": ["BAD", "-o", "out.csv"],
    "from-unitrace": ["BAD", "-o", "out.csv"],
    "presets": ["--preset-file", "YAML"],
    "hardware": ["--hardware-file", "YAML"],  # the hidden old name of presets
    "project": ["BAD", "--preset", "h100-sxm,mi300x", "-o", "out.csv"],
    "history": ["BAD", "BAD2", *PEAKS, "-o", "out.csv"],
}


def _exit_code(argv: list[str]) -> int:
    try:
        main(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
    return 0


def test_every_command_is_in_the_table():
    assert set(BAD_INPUT) == set(cli.list_commands(None))  # type: ignore[arg-type]


@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_bad_input_exits_1_in_one_line_check_2(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("BAD", "BAD2"):
        (tmp_path / name).with_suffix(".csv").write_text("ai,tflops\n10,abc\n")
    (tmp_path / "spec.yaml").write_text("kernels: [\n")
    files = {"BAD": "BAD.csv", "BAD2": "BAD2.csv", "YAML": "spec.yaml"}
    code = _exit_code([command, *(files.get(a, a) for a in BAD_INPUT[command])])
    err = capsys.readouterr().err
    assert code == (2 if command == "check" else 1), err
    assert err.startswith("rooflow: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["BAD.csv", "BAD2.csv", "spec.yaml"]


def test_ctrl_c_exits_130_and_writes_nothing(tmp_path, monkeypatch, capsys):
    # Ctrl-C while drawing: click turns the KeyboardInterrupt into Abort; the table's 130,
    # not 1 (bad input, or a regression for check).
    import rooflow.pipeline

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.csv").write_text("arithmetic_intensity,tflops,precision\n10,5,fp32\n")
    monkeypatch.setattr(rooflow.pipeline, "report", interrupted)
    assert _exit_code(["plot", "ok.csv", *PEAKS, "-o", "out.png"]) == 130
    assert capsys.readouterr().err.endswith("rooflow: interrupted (nothing written)\n")
    assert [p.name for p in tmp_path.iterdir()] == ["ok.csv"]


@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_bad_option_exits_2_in_one_line(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _exit_code([command, "--no-such-option"]) == 2
    err = capsys.readouterr().err
    assert err == "rooflow: error: No such option '--no-such-option'.\n"
