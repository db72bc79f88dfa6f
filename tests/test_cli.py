"""The `rooflow` command line, run as a user would (subprocess)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import polars as pl
import pytest

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")


def rooflow(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_presets_command_lists_presets():
    proc = rooflow("presets")
    assert proc.returncode == 0
    out = proc.stdout
    assert "arc-pro-b70" in out and "301.8" in out  # ridge 183.5e12 / 608e9
    # every roof with its source: the B70's derived XMX figure cites its derivation
    assert "367 INT8 TOPS / 2" in out and "608 GB/s" in out
    # a preset without cache roofs says so
    assert "no vendor or published microbenchmark figure for the L2 or SLM" in out


def test_plot_with_preset_and_table(repo, tmp_path):
    out, table = tmp_path / "fa.png", tmp_path / "fa.csv"
    proc = rooflow("plot", str(repo / "resources/roofline/flash_attention.csv"), "--hardware",
                   "arc-pro-b70", "--connect", "--annotate", "--key", "--series-order",
                   "Optimized,Original", "--dpi", "80", "-t", "FA", "-o", str(out),
                   "--table", str(table))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The shipped file states fp16-tensor: all compute-bound at 183.5 TFLOP/s (AI 900 and
    # 1,500 > ridge 183.5 / 0.608 = 301.8): 35 / 183.5 = 19.07 %, …
    assert pl.read_csv(table)["pct_of_roof"].to_list() == pytest.approx(
        [35 / 1.835, 74 / 1.835, 18 / 1.835, 71 / 1.835])
    # Without its precision no roof is assumed (fp16-tensor would say 19.1 % … 38.7 %):
    # not judged, and said.
    unstated = tmp_path / "unstated.csv"
    pl.read_csv(repo / "resources/roofline/flash_attention.csv").drop("precision").write_csv(
        unstated)
    proc = rooflow("plot", str(unstated), "--hardware", "arc-pro-b70", "-o", str(out),
                   "--table", str(table))
    assert proc.returncode == 0, proc.stderr
    t = pl.read_csv(table)
    assert t["roof_note"].to_list() == ["precision not given"] * 4
    assert t["pct_of_roof"].null_count() == 4 and t["bound"].null_count() == 4



def test_program_ends_without_teardown_but_keeps_output_and_cleanups(repo, tmp_path):
    """The program ends by os._exit after the atexit handlers (rooflow.cli.program.console):
    block-buffered stdout still arrives whole, exit codes stand, and a library's own
    cleanup still runs: matplotlib, given a config folder it cannot write, makes a
    temporary one and removes it at exit."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    buffered = subprocess.run([ROOFLOW, "hardware"], capture_output=True, text=True, env=env)
    assert buffered.returncode == 0
    assert buffered.stdout == rooflow("hardware").stdout and buffered.stdout.count("\n") > 100

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env |= {"MPLCONFIGDIR": "/proc/rooflow-unwritable", "TMPDIR": str(scratch)}
    out = tmp_path / "fa.png"
    proc = subprocess.run([ROOFLOW, "plot", str(repo / "resources/roofline/flash_attention.csv"),
                           "--hardware", "h100-sxm", "--dpi", "40", "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "temporary cache directory" in proc.stderr  # matplotlib did make one
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list(scratch.iterdir()) == []  # ... and removed it

    missing = rooflow("plot", str(tmp_path / "missing.csv"), "--hardware", "h100-sxm")
    assert missing.returncode == 1 and missing.stderr.startswith("rooflow: error:")

    # A table small enough to wait in stdout's buffer until the end, which cannot be
    # written there: an error, never exit 0.
    with open("/dev/full", "w") as full:
        table = str(repo / "resources/roofline/flash_attention.csv")
        lost = subprocess.run([ROOFLOW, "table", table, "--hardware", "h100-sxm"], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env)
    assert lost.returncode == 1
    assert lost.stderr.splitlines()[-1] == ("rooflow: error: could not write standard output: "
                                            "No space left on device")


def test_program_ends_the_normal_way_when_a_handler_came_before_it(tmp_path):
    """An exit handler registered before rooflow's (sitecustomize here; coverage measuring
    subprocesses does the same) would be skipped by the quick exit: it runs."""
    (tmp_path / "sitecustomize.py").write_text(
        "import atexit, pathlib\n"
        f"atexit.register(pathlib.Path({str(tmp_path / 'ran')!r}).touch)\n")
    proc = subprocess.run([ROOFLOW, "--version"], capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0 and "rooflow" in proc.stdout
    assert (tmp_path / "ran").exists()

def test_plot_custom_roof_svg(repo, tmp_path):
    out = tmp_path / "fa.svg"
    proc = rooflow("plot", str(repo / "resources/roofline/flash_attention.csv"),
                   "--peak-tflops", "100", "--peak-bandwidth", "1000", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().lstrip().startswith("<?xml")


def test_plot_reports_points_above_roof(tmp_path):
    csv = tmp_path / "hot.csv"
    csv.write_text("ai,tflops\n1,50\n")
    proc = rooflow("plot", str(csv), "--peak-tflops", "100", "--peak-bandwidth", "1000",
                   "-o", str(tmp_path / "hot.png"))
    assert proc.returncode == 0
    assert "above the roof" in proc.stderr and (tmp_path / "hot.png").exists()


# Bad input exits 1; a usage error (an option value refused, a missing argument) 2.
@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["plot", "missing.csv", "--hardware", "h100-sxm"], 1),
        (["plot", "BAD", "--hardware", "no-such-gpu"], 1),
        (["plot", "BAD", "--hardware", "h100-sxm"], 1),
        (["plot", "BAD", "--peak-tflops", "10"], 1),
        (["plot", "BAD", "--hardware", "h100-sxm", "-o", "x.gif"], 2),
        (["from-spec", "missing.yaml"], 1),
        (["plot"], 2),
    ],
)
def test_user_errors_one_line_no_output(tmp_path, args, code):
    bad = tmp_path / "bad.csv"
    bad.write_text("ai,tflops\n10,abc\n")
    args = [str(bad) if a == "BAD" else a for a in args]
    proc = rooflow(*args, cwd=tmp_path)
    assert proc.returncode == code
    assert proc.stderr.startswith("rooflow: error:")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


@pytest.mark.shared
def test_from_ncu_real_nersc_export(shared_data, tmp_path):
    out = tmp_path / "gpp.csv"
    proc = rooflow("from-ncu", str(shared_data / "ncu/nersc-gpp/output.csv"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    t = pl.read_csv(out)
    assert set(t["level"]) == {"DRAM", "L2", "L1"}
    ai = dict(zip(t["level"], t["arithmetic_intensity"], strict=True))
    # known values of the NERSC GPP export (hand-worked in tests/test_ncu.py)
    assert ai["DRAM"] == pytest.approx(14.915, rel=1e-4)
    assert ai["L1"] == pytest.approx(4.423, rel=1e-3)
    assert t["performance"][0] == pytest.approx(88.4e9, rel=1e-3)
    # the written table plots as it is (canonical points CSV)
    png = tmp_path / "gpp.png"
    proc = rooflow("plot", str(out), "--hardware", "a100-sxm", "-o", str(png))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.shared
def test_from_ncu_rejects_nan_export_and_missing_metrics(shared_data, tmp_path):
    proc = rooflow("from-ncu", str(shared_data / "ncu/nersc-gpp/output8.csv"), "-o",
                   str(tmp_path / "x.csv"))
    assert proc.returncode == 1 and "nan" in proc.stderr.lower()
    wide = next((shared_data / "ncu/raw-wide-b200").glob("*.csv"))
    proc = rooflow("from-ncu", str(wide))
    assert proc.returncode == 1 and "dram__bytes" in proc.stderr
    assert not (tmp_path / "x.csv").exists()


def test_from_rocprof_example_workload(repo):
    proc = rooflow("from-rocprof", str(repo / "resources/rocprof/mi210_gemm_triad"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("series,") and len(lines) == 1 + 11  # 3 kernels × levels


# `rooflow convert` and the from-* aliases: one path (load_points), one column set.

POINT_COLUMNS = ["series", "family", "label", "pair", "kernel", "dims", "level", "precision",
                 "precision_mix", "flop", "bytes", "time_s", "arithmetic_intensity",
                 "performance", "bytes_model", "source", "row", "device", "clock_hz",
                 "memory_clock_hz", "l2_clock_hz", "launches"]
PER_CALL_COLUMNS = ["calls", "time_per_call_s", "time_per_call_median_s",
                    "time_per_call_std_s", "time_per_call_min_s", "time_per_call_max_s"]


def test_convert_roofline_csv(repo, tmp_path):
    out = tmp_path / "fa.csv"
    proc = rooflow("convert", str(repo / "resources/roofline/flash_attention.csv"), "-o",
                   str(out))
    assert proc.returncode == 0, proc.stderr
    assert "read as roofline" in proc.stderr
    t = pl.read_csv(out)
    assert t.columns == POINT_COLUMNS
    # 4 points given as AI and TFLOP/s: 35, 74, 18, 71 TFLOP/s (see test_plot_with_preset)
    assert t["performance"].to_list() == pytest.approx([35e12, 74e12, 18e12, 71e12])
    assert t["series"].to_list() == ["Original", "Optimized"] * 2


def test_convert_to_parquet_writes_parquet_read_back_as_the_same_points(repo, tmp_path):
    """A .parquet output is Parquet (not CSV text under that name), and reads back."""
    source = str(repo / "resources/roofline/flash_attention.csv")
    out = tmp_path / "fa.parquet"
    proc = rooflow("convert", source, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"PAR1"
    assert pl.read_parquet(out)["performance"].to_list() == pytest.approx(
        [35e12, 74e12, 18e12, 71e12])
    tables = [rooflow("table", path, "--hardware", "h100-sxm") for path in (source, str(out))]
    assert tables[0].returncode == tables[1].returncode == 0, tables[1].stderr
    assert tables[0].stdout == tables[1].stdout


def test_convert_ncu_passes_folder_list_and_from_ncu_agree(repo, tmp_path):
    run = repo / "resources/ncu/a100_sgemm_saxpy"  # two passes of one run: flops, bytes
    outs = {name: tmp_path / f"{name}.csv" for name in ("folder", "list", "kind", "alias")}
    passes = [str(p) for p in sorted(run.glob("*.csv"))]
    for args in (["convert", str(run), "-o", str(outs["folder"])],
                 ["convert", *passes, "-o", str(outs["list"])],
                 ["convert", "--kind", "ncu", *passes, "-o", str(outs["kind"])],
                 ["from-ncu", *passes, "-o", str(outs["alias"])]):
        proc = rooflow(*args)
        assert proc.returncode == 0, proc.stderr
    folder = pl.read_csv(outs["folder"])
    assert folder.columns == POINT_COLUMNS + PER_CALL_COLUMNS  # ncu: per-call times too
    # one dataset: both kernels once per level (not a point per pass), FLOP and bytes merged
    assert folder.height == 6 and set(folder["level"]) == {"DRAM", "L2", "L1"}
    assert (folder.filter(pl.col("flop") > 0)["kernel"].unique().len()
            == folder["kernel"].unique().len())
    listed = pl.read_csv(outs["list"])
    assert listed.drop("source").equals(folder.drop("source"))
    assert outs["kind"].read_text() == outs["alias"].read_text() == outs["list"].read_text()


def test_convert_kind_is_a_choice_of_the_registry(tmp_path):
    from rooflow.kinds import KINDS

    proc = rooflow("convert", "--kind", "nsight", "x.csv", cwd=tmp_path)
    assert proc.returncode == 2  # a usage error (docs/cli.md, exit codes)
    assert proc.stderr.startswith("rooflow: error: Invalid value for '--kind': 'nsight'")
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert all(f"'{k}'" in proc.stderr for k in KINDS)
    assert list(tmp_path.iterdir()) == []
    help_text = rooflow("convert", "--help").stdout
    assert "[" + "|".join(KINDS) + "]" in help_text.replace("\n", "").replace(" ", "")


@pytest.mark.parametrize(("args", "code"), [
    (["convert", "FA", "NCU"], 1),  # files of two kinds are not one input
    (["convert", "missing.csv"], 1),
    (["convert", "--kind", "ncu", "FA"], 1),
    (["convert"], 2),  # no file: a usage error
])
def test_convert_user_errors_one_line_no_output(repo, tmp_path, args, code):
    paths = {"FA": repo / "resources/roofline/flash_attention.csv",
             "NCU": repo / "resources/ncu/a100_dgemm_triad_hgemm.csv"}
    args = [str(paths.get(a, a)) for a in args]
    proc = rooflow(*args, "-o", "out.csv", cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.startswith("rooflow: error:"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("alias", "kind", "inputs", "options"), [
    ("from-benchmark", "benchmarks", ["resources/benchmarks/moe_attention.csv"], []),
    ("from-spec", "specs", ["resources/specs/2_FusedMoE.yaml"], ["--variant-prefix", "bench-gpu-"]),
    ("from-ncu", "ncu", ["resources/ncu/a100_dgemm_triad_hgemm.csv"], ["--per-launch"]),
    ("from-rocprof", "rocprof", ["resources/rocprof/mi210_gemm_triad"], []),
])
def test_from_aliases_write_what_convert_writes(repo, tmp_path, alias, kind, inputs, options):
    alias_out, convert_out = tmp_path / "alias.csv", tmp_path / "convert.csv"
    proc = rooflow(alias, *inputs, "-o", str(alias_out), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    proc = rooflow("convert", "--kind", kind, *inputs, "-o", str(convert_out), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    columns = POINT_COLUMNS + (PER_CALL_COLUMNS if kind == "ncu" else [])
    assert pl.read_csv(alias_out).columns == columns
    assert alias_out.read_text() == convert_out.read_text()
    # the alias's own options still act (and keep the canonical columns)
    if options:
        proc = rooflow(alias, *inputs, *options, "-o", str(alias_out), cwd=repo)
        assert proc.returncode == 0, proc.stderr
        optioned = pl.read_csv(alias_out)
        assert optioned.columns == columns
        assert not optioned.equals(pl.read_csv(convert_out))


def test_from_benchmark_writes_precision_and_level(repo, tmp_path):
    # moe_attention.csv row 4 is 1_BatchedMoE bench-gpu-2, QUANT 1 = fp8 w8a8: the family
    # model's fp8-tensor (families.yaml), bytes at DRAM (compulsory-traffic model).
    out = tmp_path / "moe.csv"
    proc = rooflow("from-benchmark", "resources/benchmarks/moe_attention.csv", "-o", str(out),
                   cwd=repo)
    assert proc.returncode == 0, proc.stderr
    fp8 = pl.read_csv(out).filter(pl.col("row") == 4)
    assert fp8["series"].to_list() == ["Original", "Optimized"]
    assert fp8["kernel"].to_list() == ["bench-gpu-2"] * 2
    assert fp8["precision"].to_list() == ["fp8-tensor"] * 2
    assert fp8["level"].to_list() == ["DRAM"] * 2 and fp8["bytes_model"][0] == "family"


def test_convert_then_table_is_the_table_of_every_shipped_example(repo, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from rooflow.cli.main import cli
    from rooflow.kinds import KINDS
    from rooflow.workflow.planning import sources

    # Every dataset the example run builds (resources/), on two presets (a100-sxm has no
    # fp8 roof, mi300x one; different memory levels). In-process: these ~45 commands as
    # subprocesses would take a minute.
    monkeypatch.chdir(repo)
    runner = CliRunner()
    datasets = [(kind, name, path) for kind, k in KINDS.items()
                for name, path in sources(kind, k.pattern, k.folder, k.alternate).items()]
    assert {kind for kind, _, _ in datasets} >= {"roofline", "benchmarks", "specs", "ncu",
                                                   "rocprof"}
    for kind, name, path in datasets:
        points = tmp_path / f"{kind}-{name}.csv"
        done = runner.invoke(cli, ["convert", path, "-o", str(points)])
        assert done.exit_code == 0, done.output
        for preset in ("a100-sxm", "mi300x"):
            converted = runner.invoke(cli, ["table", str(points), "--hardware", preset])
            direct = runner.invoke(cli, ["table", path, "--hardware", preset])
            assert converted.exit_code == direct.exit_code == 0, (path, direct.output)
            assert converted.stdout == direct.stdout, (path, preset)


@pytest.mark.shared
def test_from_unitrace_pair_is_convert_of_the_two_reports(shared_data, tmp_path):
    folder = shared_data / "intel" / "unitrace-pvc-gemm-fp16"
    reports = [str(folder / "gemm_fp16_flops.1799853"), str(folder / "gemm_fp16_bytes.1799860")]
    alias_out, convert_out = tmp_path / "alias.csv", tmp_path / "convert.csv"
    assert rooflow("from-unitrace", *reports, "-o", str(alias_out)).returncode == 0
    proc = rooflow("convert", *reports, "-o", str(convert_out))
    assert proc.returncode == 0, proc.stderr
    assert "read as unitrace" in proc.stderr
    assert pl.read_csv(alias_out).columns == POINT_COLUMNS
    assert alias_out.read_text() == convert_out.read_text()
    assert pl.read_csv(alias_out).height == 4


def test_load_points_takes_one_path_or_a_list(repo):
    from rooflow.adapters import load_points

    fa = repo / "resources/roofline/flash_attention.csv"
    tuned = repo / "resources/roofline/flash_attention_tuned.csv"
    one, both = load_points("roofline", fa), load_points("roofline", [fa, str(tuned)])
    assert both.height == one.height + load_points("roofline", tuned).height
    assert both["source"].cast(pl.String).unique(maintain_order=True).to_list() == [
        str(fa), str(tuned)]
    run = repo / "resources/ncu/a100_sgemm_saxpy"
    passes = load_points("ncu", sorted(run.glob("*.csv")))
    assert passes.drop("source").equals(load_points("ncu", run).drop("source"))
    from rooflow.errors import InputError

    with pytest.raises(InputError, match="no ncu input given"):
        load_points("ncu", [])


API_CHECK = """
import sys
# A module set to None cannot be imported: what runs while it is blocked works without it.
HEAVY = ("polars", "matplotlib", "rooflow.adapters", "rooflow.plotting")
sys.modules.update(dict.fromkeys(HEAVY))
import rooflow
assert set(rooflow.__all__) >= {"load_points", "analyze", "load_preset", "plot_roofline"}
for name in HEAVY:
    del sys.modules[name]
sys.modules["matplotlib"] = None  # the API but plot_roofline works without matplotlib
from rooflow.adapters import load_points
from rooflow.analysis import analyze
from rooflow.roofs import load_preset
assert (rooflow.load_points, rooflow.analyze, rooflow.load_preset) == (
    load_points, analyze, load_preset)
del sys.modules["matplotlib"]
from rooflow.plotting import plot_roofline
assert rooflow.plot_roofline is plot_roofline
assert set(rooflow.__all__) >= {"load_points", "analyze", "load_preset", "plot_roofline"}
assert set(rooflow.__all__) <= set(dir(rooflow))
try:
    rooflow.no_such_name
except AttributeError as err:
    assert "no_such_name" in str(err)
else:
    raise AssertionError("no AttributeError")
print("ok")
"""


def test_api_names_resolve_lazily():
    python = str(Path(ROOFLOW).with_name("python"))
    proc = subprocess.run([python, "-c", API_CHECK], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_readme_library_example_runs(repo, tmp_path):
    """The README's "Library API" example, as written, on the shipped inputs."""
    section = (repo / "README.md").read_text().split("### Library API", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    (tmp_path / "resources").symlink_to(repo / "resources")
    proc = subprocess.run([str(Path(ROOFLOW).with_name("python")), "-c", code],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "pct_of_roof" in proc.stdout
    assert (tmp_path / "saxpy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args", [
    ("table", "{fa}", "--preset", "arc-pro-b70", "-o", "t.png"),
    ("plot", "{fa}", "--preset", "arc-pro-b70", "-o", "fa.png", "--table", "fa.html"),
    ("compare", "{fa}", "{fa}", "--preset", "arc-pro-b70", "--table", "c.svg"),
    ("project", "{fa}", "--preset", "arc-pro-b70", "--preset", "b200", "-o", "p.PNG"),
    ("convert", "{fa}", "-o", "points.pdf"),
])
def test_a_table_named_as_a_picture_or_page_is_a_usage_error(repo, tmp_path, args):
    # `rooflow project … -o p.png` wrote its CSV table into p.png: refused before any
    # reading, exit 2 (docs/cli.md, exit codes), one line naming the option, nothing written.
    fa = str(repo / "resources/roofline/flash_attention.csv")
    proc = rooflow(*(a.format(fa=fa) for a in args), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert line.startswith("rooflow: error: Invalid value for ") and (
        "a table is written here, not a ." in line and "name it .csv or .json" in line)
    assert list(tmp_path.iterdir()) == []
