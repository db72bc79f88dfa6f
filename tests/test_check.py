"""`rooflow check`: the CI performance gate with a noise model (issue 21, item 2)."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest

from rooflow.analysis import analyze
from rooflow.check import FLOOR_ONLY, check_runs, parse_fraction, t_quantile
from rooflow.points import to_points
from rooflow.roofs.preset import select_preset

ROOFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rooflow")
PEAKS = ("--peak-tflops", "100", "--peak-bandwidth", "1000")
PRESET = select_preset({}, None, peak_tflops=100, peak_bandwidth_gbs=1000)

# Launch times in ms. gemm: median 1.00, |deviations| 0, .01, .01, 0, .02 → MAD 0.01 (1 %);
# noisy: median 1.0, |deviations| 0, .2, .2, .1, .1 → MAD 0.1 (10 %); copy: no spread.
GEMM = [1.00, 1.01, 0.99, 1.00, 1.02]
NOISY = [1.0, 1.2, 0.8, 1.1, 0.9]
COPY = [0.1, 0.1, 0.1]


def run(gemm=1.0, noisy=1.0, extra=False) -> pl.DataFrame:
    """Canonical points, one row per launch; times scaled by the factors given."""
    rows = ([("gemm", 1e9, 1e6, t * gemm) for t in GEMM]
            + [("noisy", 1e9, 1e6, t * noisy) for t in NOISY]
            + [("copy", 0.0, 1e7, t) for t in COPY]
            + ([("extra", 1e9, 1e6, 1.0)] if extra else []))
    frame = pl.DataFrame(rows, schema=["kernel", "flop", "bytes", "ms"], orient="row")
    return to_points(frame.with_columns(
        time_s=pl.col("ms") / 1e3, row=pl.int_range(1, pl.len() + 1, dtype=pl.Int64),
        arithmetic_intensity=pl.when(pl.col("flop") > 0).then(pl.col("flop") / pl.col("bytes")),
        performance=pl.col("flop") / (pl.col("ms") / 1e3), source=pl.lit("run.csv")))


def rooflow(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOFLOW, *args], capture_output=True, text=True, timeout=120)


def result(new: pl.DataFrame, **kwargs):
    return check_runs(analyze(run(), PRESET), analyze(new, PRESET), **kwargs)


def test_noise_model_worked_by_hand():
    r = result(run(gemm=1.2, noisy=1.1, extra=True))
    t = {row["kernel"]: row for row in r.table.iter_rows(named=True)}
    # gemm, 5 calls a side: median 1.00 ms, MAD 0.01 ms → σ = 1.4826 × 0.01 = 1.4826 % of
    # the median (the same relative spread at 1.2 ms); se of each median = 1.2533 × 1.4826 %
    # / √5 = 0.83099 %; combined √2 × 0.83099 = 1.17521 %; t quantile 99.9 %, 4 degrees of
    # freedom = 7.1732 (A&S table 26.10) → allowed max(5 %, 7.1732 × 1.17521 %) = 8.430 %;
    # 20 % slower per call → regressed
    assert t["gemm"]["noise_pct_baseline"] == pytest.approx(1.4826)
    assert t["gemm"]["se_pct"] == pytest.approx(1.17521, rel=1e-4)
    assert t["gemm"]["quantile"] == pytest.approx(7.1732, rel=1e-4)
    assert t["gemm"]["allowed_pct"] == pytest.approx(8.4301, rel=1e-4)
    assert t["gemm"]["slowdown_pct"] == pytest.approx(20.0)
    assert t["gemm"]["roof_drop_pct"] == pytest.approx(100 * (1 - 1 / 1.2))
    assert t["gemm"]["status"] == "regressed" and t["gemm"]["compared"] == "time per call"
    # noisy: MAD 0.1 ms → σ 14.826 %, se 8.30993 % a side, combined 11.7521 %; × 7.1732
    # = 84.30 % allowed: 10 % slower is noise
    assert t["noisy"]["allowed_pct"] == pytest.approx(84.301, rel=1e-4)
    assert t["noisy"]["status"] == "ok"
    # copy: no spread → the 5 % floor; unchanged
    assert t["copy"]["allowed_pct"] == pytest.approx(5.0) and t["copy"]["status"] == "ok"
    assert t["extra"]["status"] == "only in new" and t["extra"]["calls_baseline"] == 0
    assert r.table["kernel"][0] == "gemm"  # regressions first
    assert r.summary() == (
        "1 of 3 kernels regressed (time per call, median over calls; allowed: the 5 % "
        "floor, or the one-sided 99.9 % bound of their noise); 1 only in new")


def test_floor_and_confidence_move_the_threshold():
    assert result(run(gemm=1.2), max_slowdown=0.25).count("regressed") == 0
    # noisy 10 % slower: allowed 84.3 % at 99.9 %; at 60 % confidence the t quantile with 4
    # degrees of freedom is 0.2707 → 0.2707 × 11.7521 % = 3.18 % < the 5 % floor → regressed
    assert result(run(noisy=1.1), confidence=0.6).count("regressed") == 1
    assert result(run()).count("regressed") == 0


def test_parse_fraction():
    assert parse_fraction("5%") == pytest.approx(0.05)
    assert parse_fraction("0.1") == pytest.approx(0.1)
    with pytest.raises(ValueError):
        parse_fraction("-1%")


def test_cli_exit_codes_lines_junit_json_markdown(tmp_path):
    base, same, slower = (tmp_path / f"{n}.csv" for n in ("base", "same", "slower"))
    run().write_csv(base)
    run().write_csv(same)
    run(gemm=1.2, extra=True).write_csv(slower)
    proc = rooflow("check", str(base), str(same), *PEAKS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    junit, out, md = tmp_path / "check.xml", tmp_path / "check.json", tmp_path / "check.md"
    proc = rooflow("check", str(base), str(slower), *PEAKS, "--junit", str(junit), "-o",
                   str(out), "--markdown", str(md))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == ["REGRESSED gemm: time per call 1 ms -> 1.2 ms (+20.0 %), % of roof 1 -> "
                     "0.833 (-16.7 %); allowed 8.4 % (noise 1.5 % / 1.5 %, se 1.18 % x 7.17; "
                     "5 / 5 calls)"]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert sorted(cases) == ["copy", "extra", "gemm", "noisy"]
    assert suite.get("failures") == "1" and suite.get("skipped") == "1"
    assert cases["gemm"].find("failure") is not None
    assert cases["extra"].find("skipped") is not None
    document = json.loads(out.read_text())
    assert document["table"] == "check" and document["units"]["slowdown_pct"].startswith("%")
    assert [r["status"] for r in document["records"]][0] == "regressed"
    table = md.read_text()
    assert "| gemm | kernel | none | **regressed** | time per call | 5 / 5 | 1 -> 1.2 ms |" \
        in table
    for line in table.splitlines()[4:]:  # no empty cell: every one holds text
        assert "||" not in line.replace(" ", "") and "|  |" not in line
    assert cases["gemm"].get("classname") == "rooflow.check.kernel"
    # selection applies: without gemm, nothing regressed
    assert rooflow("check", str(base), str(slower), *PEAKS, "--exclude",
                   "gemm").returncode == 0


def test_cli_bad_input_exits_2(tmp_path):
    run().write_csv(tmp_path / "base.csv")
    proc = rooflow("check", str(tmp_path / "base.csv"), str(tmp_path / "missing.csv"), *PEAKS)
    assert proc.returncode == 2
    assert proc.stderr.startswith("rooflow: error: ") and proc.stderr.count("\n") == 1


@pytest.mark.parametrize(("option", "line"), [
    (("-o", "base.csv"), "base.csv: is also an input (base.csv)"),
    (("--markdown", "new.csv"), "new.csv: is also an input (new.csv)"),
    (("--junit", "base.csv"), "base.csv: is also an input (base.csv)"),
    (("--junit", "gate.xml", "--markdown", "gate.xml"),
     "gate.xml: is named twice as an output (also as gate.xml)"),
])
def test_cli_refuses_an_output_that_is_an_input_or_another_output(tmp_path, option, line):
    # As every command: refused before anything is read or written; exit 2, a gate's bad input.
    run().write_csv(tmp_path / "base.csv")
    run(gemm=1.2).write_csv(tmp_path / "new.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = subprocess.run([ROOFLOW, "check", "base.csv", "new.csv", *PEAKS, *option],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rooflow: error: {line}"), lines
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("option", [("--max-slowdown", "x"), ("--bogus",), ("--kernel", "("),
                                    ("--kernel", "attention")])
def test_cli_bad_options_exit_2_not_1(tmp_path, option):
    run().write_csv(tmp_path / "base.csv")
    proc = rooflow("check", str(tmp_path / "base.csv"), str(tmp_path / "base.csv"), *PEAKS,
                   *option)
    assert proc.returncode == 2 and proc.stderr.startswith("rooflow: error: ")


@pytest.mark.shared
def test_a_real_workload_against_itself_passes(shared_data):
    workload = str(shared_data / "omniperf/mi325x-hipkittens-gemm")
    proc = rooflow("check", workload, workload, "--hardware", "mi325x")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("0 of 32 kernels regressed")


def test_per_kernel_tolerance_overrides_the_default():
    # gemm 20 % slower: allowed 8.43 % by default, 25 % with its own floor
    r = result(run(gemm=1.2), overrides={"GEMM": 0.25})
    t = {row["kernel"]: row for row in r.table.iter_rows(named=True)}
    assert t["gemm"]["allowed_pct"] == pytest.approx(25.0) and t["gemm"]["status"] == "ok"
    assert t["copy"]["allowed_pct"] == pytest.approx(5.0)
    # the first match wins
    r = result(run(gemm=1.2), overrides={"gem": 0.1, "gemm": 0.25})
    assert r.count("regressed") == 1


def test_cli_allow(tmp_path):
    base, slower = tmp_path / "base.csv", tmp_path / "slower.csv"
    run().write_csv(base)
    run(gemm=1.2).write_csv(slower)
    assert rooflow("check", str(base), str(slower), *PEAKS, "--allow",
                   "gemm=25%").returncode == 0
    proc = rooflow("check", str(base), str(slower), *PEAKS, "--allow", "gemm")
    assert proc.returncode == 2 and "--allow: 'gemm' is not REGEX=TOLERANCE" in proc.stderr


# ------------------------------------------------------------------ per call (issue 31, 1)


def _trace(path: Path, durations_us: list[int], first_event: int = 0) -> Path:
    """A PyTorch trace of aten::mm [4,4]x[4,4] fp32 calls, one kernel each.

    ``first_event`` unrelated CPU operators come first, so the calls' event indices differ
    between two traces of the same work (as between two real runs).
    """
    events: list[dict] = [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1,
                           "tid": 1, "ts": i, "dur": 1, "args": {}} for i in range(first_event)]
    for i, dur in enumerate(durations_us, 1):
        ts = 100 * i
        events += [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ts,
             "dur": 50, "args": {"External id": i, "Input Dims": [[4, 4], [4, 4]],
                                 "Input type": ["float", "float"]}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
             "tid": 1, "ts": ts + 5, "dur": 1, "args": {"correlation": i}},
            {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts + 10,
             "dur": dur, "args": {"correlation": i, "External id": i, "device": 0}}]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return path


def test_three_identical_calls_against_two_is_unchanged(tmp_path):
    # Two 1 ms aten::mm calls, then three: 2 ms → 3 ms summed (+50 %, what was compared
    # before), 1 ms → 1 ms per call (median of [1, 1] and of [1, 1, 1]): unchanged.
    base = _trace(tmp_path / "base.json", [1000, 1000])
    new = _trace(tmp_path / "new.json", [1000, 1000, 1000], first_event=2)
    out = tmp_path / "check.json"
    proc = rooflow("check", str(base), str(new), *PEAKS, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    (record,) = json.loads(out.read_text())["records"]
    assert record["kernel"] == "aten::mm [4,4]x[4,4] fp32" and record["series"] == "pytorch"
    assert (record["calls_baseline"], record["calls_new"]) == (2, 3)
    assert record["time_s_baseline"] == record["time_s_new"] == pytest.approx(1e-3)
    assert record["slowdown_pct"] == pytest.approx(0.0)


def test_per_launch_pairs_pytorch_calls_by_operator_shape_and_order(tmp_path):
    # The new run's calls sit at other event indices (two operators come first): matched by
    # operator, shapes and order among those calls, every one is 1 ms → 2 ms (+100 %);
    # one call a side, so judged on the 5 % floor alone, and the line says so.
    base = _trace(tmp_path / "base.json", [1000, 1000, 1000])
    new = _trace(tmp_path / "new.json", [2000, 2000, 2000], first_event=2)
    proc = rooflow("check", str(base), str(new), *PEAKS, "--per-launch")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(": time")[0] for line in lines] == [
        f"REGRESSED aten::mm [4,4]x[4,4] fp32 #{k} (series pytorch)" for k in (1, 2, 3)]
    assert all("(+100.0 %)" in line and "judged on the floor alone" in line
               for line in lines)
    assert "3 with one call per side: judged on the floor alone" in proc.stderr
    # Without --per-launch: one kernel, median 1 ms → 2 ms over 3 / 3 calls
    proc = rooflow("check", str(base), str(new), *PEAKS)
    assert proc.returncode == 1 and "3 / 3 calls" in proc.stdout


def _one(ms: float | None, performance: float | None = None, kernel: str = "gemm"):
    frame = pl.DataFrame({"kernel": [kernel], "flop": [1e9], "bytes": [1e6],
                          "time_s": [None if ms is None else ms / 1e3],
                          "performance": [performance if ms is None else 1e9 / (ms / 1e3)]},
                         schema_overrides={"time_s": pl.Float64, "performance": pl.Float64})
    return to_points(frame.with_columns(row=pl.lit(1), arithmetic_intensity=pl.lit(1e3),
                                        source=pl.lit("run.csv")))


def test_one_call_per_side_is_judged_on_the_floor_alone():
    # 1 ms → 1.04 ms: +4 % < 5 % floor; → 1.06 ms: +6 % > 5 %. No noise estimate: no se.
    ok = check_runs(analyze(_one(1.0), PRESET), analyze(_one(1.04), PRESET))
    bad = check_runs(analyze(_one(1.0), PRESET), analyze(_one(1.06), PRESET))
    assert ok.count("ok") == 1 and bad.count("regressed") == 1
    row = bad.table.row(0, named=True)
    assert row["note"] == FLOOR_ONLY and row["se_pct"] is None
    assert row["allowed_pct"] == pytest.approx(5.0)
    assert "judged on the floor alone" in bad.lines()[0]
    assert bad.summary().endswith("; 1 with one call per side: judged on the floor alone")


def test_without_times_throughput_is_compared_and_said():
    # Rates only (an ncu section without a duration): 1.0 → 0.8 TFLOP/s is 1 / 0.8 − 1 =
    # 25 % slower per call → regressed, compared in FLOP/s.
    r = check_runs(analyze(_one(None, 1e12), PRESET), analyze(_one(None, 0.8e12), PRESET))
    row = r.table.row(0, named=True)
    assert row["compared"] == "FLOP/s" and row["slowdown_pct"] == pytest.approx(25.0)
    assert row["status"] == "regressed" and row["time_s_baseline"] is None
    assert "compared by throughput (no times)" in r.summary()
    assert r.lines()[0].startswith("REGRESSED gemm: FLOP/s 1e+12 FLOP/s -> 8e+11 FLOP/s")


@pytest.mark.parametrize(("new_kernel", "why"), [
    ("other", "nothing judged: no kernel in common (1 only in baseline, 1 only in new)"),
])
def test_nothing_judged_exits_2_with_one_line(tmp_path, new_kernel, why):
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    _one(1.0).write_csv(base)
    _one(1.0, kernel=new_kernel).write_csv(new)
    proc = rooflow("check", str(base), str(new), *PEAKS)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [f"rooflow: error: {why} (--allow-unjudged to pass)"]
    proc = rooflow("check", str(base), str(new), *PEAKS, "--allow-unjudged")
    assert proc.returncode == 0
    assert proc.stderr.splitlines()[-1] == f"{why}; passed with --allow-unjudged"


def test_kernels_without_times_or_rates_are_not_judged():
    # Theoretical points (FLOP and bytes, no time, no rate): nothing to compare.
    theory = _one(None)
    r = check_runs(analyze(theory, PRESET), analyze(theory, PRESET))
    assert r.count("not judged") == 1 and r.judged == 0
    assert r.unjudged() == ("nothing judged: 1 kernel(s) in common, none with times or "
                            "throughputs of one unit in both runs")


def test_t_quantile_against_tables():
    # Student's t, one-sided 99.9 % (Abramowitz & Stegun table 26.10): 1 df 318.31,
    # 4 df 7.173, 10 df 4.144, 30 df 3.385; 97.5 %, 4 df 2.776.
    assert t_quantile(0.999, 1) == pytest.approx(318.31, rel=1e-4)
    assert t_quantile(0.999, 4) == pytest.approx(7.173, rel=1e-3)
    assert t_quantile(0.999, 10) == pytest.approx(4.144, rel=1e-3)
    assert t_quantile(0.999, 30) == pytest.approx(3.385, rel=1e-3)
    assert t_quantile(0.975, 4) == pytest.approx(2.776, rel=1e-3)
    # scipy.stats.t.ppf(p, df) (SciPy 1.17), written down so the test needs no SciPy.
    reference = {
        1: (0.32491969623290634, 6.313751514675037, 318.30883898555015),
        2: (0.2886751345948128, 2.9199855803537242, 22.327124770119866),
        3: (0.2766706623326898, 2.3533634348018233, 10.214531852407383),
        5: (0.2671808657041451, 2.0150483733330233, 5.893429531356009),
        7: (0.2631668613520229, 1.8945786050900062, 4.785289628638333),
        20: (0.2567427538545021, 1.7247182429207866, 3.5518083432033323),
        99: (0.25402901215180673, 1.6603911560169906, 3.1746038497557523),
        1000: (0.25341451583949876, 1.6463788172854643, 3.0984021639129233),
    }
    for df, values in reference.items():
        for p, value in zip((0.6, 0.95, 0.999), values, strict=True):
            assert t_quantile(p, df) == pytest.approx(value, rel=1e-9)


# ------------------------------------------------ false positives and power (seeded runs)


def _simulated(rng, kernels: int, calls: int, sigma: float, factor: float = 1.0):
    """``kernels`` kernels of ``calls`` iid normal calls: 1 ms × factor, relative σ."""
    import numpy as np

    times = 1e-3 * factor * (1 + sigma * rng.standard_normal((kernels, calls)))
    frame = pl.DataFrame({"kernel": np.repeat([f"k{i}" for i in range(kernels)], calls),
                          "time_s": times.ravel(), "flop": 1e9, "bytes": 1e6})
    return analyze(to_points(frame.with_columns(
        row=pl.int_range(1, pl.len() + 1), arithmetic_intensity=pl.lit(1e3),
        performance=pl.col("flop") / pl.col("time_s"), source=pl.lit("sim"))), PRESET)


def _rate(calls: int, sigma: float, factor: float = 1.0, floor: float = 0.05,
          kernels: int = 1000, seed: int = 31):
    """Share of kernels flagged, and share above the floor alone, over seeded runs."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(seed)
    base = _simulated(rng, kernels, calls, sigma)
    new = _simulated(rng, kernels, calls, sigma, factor)
    r = check_runs(base, new, max_slowdown=floor)
    above_floor = float((r.table["slowdown_pct"] > floor * 100).mean())
    return r.count("regressed") / kernels, above_floor


@pytest.mark.parametrize(("calls", "sigma", "most"), [
    # measured with seed 31, 1000 kernels each (docs/cli.md#performance-gate)
    (5, 0.05, 0.01), (10, 0.05, 0.01), (100, 0.05, 0.01), (5, 0.30, 0.01), (20, 0.30, 0.01),
])
def test_identical_runs_rarely_regress(calls, sigma, most):
    flagged, above_floor = _rate(calls, sigma)
    assert flagged <= most
    if sigma == 0.30:
        # The 5 % floor alone would flag these noisy kernels: the noise term matters.
        assert above_floor >= 0.3


def test_a_10_pct_slowdown_is_found():
    # 100 calls, σ 5 %: se of a median 1.2533 × 5 % / 10 = 0.627 %, combined 0.886 %,
    # × t(99.9 %, 99 df) 3.175 = 2.81 % < the 5 % floor: judged at 5 % → found ≥ 90 %.
    flagged, _ = _rate(100, 0.05, factor=1.1)
    assert flagged >= 0.9
    # without the floor, the noise bound alone still finds it, and stays quiet on
    # identical runs
    assert _rate(100, 0.05, factor=1.1, floor=0.0)[0] >= 0.9
    assert _rate(5, 0.05, floor=0.0)[0] <= 0.01


def test_per_launch_pairs_ncu_launches_by_kernel_and_order(tmp_path):
    # resources/ncu holds stream_triad twice (1.16 ms, then 1.17248 ms): read per call by
    # default (one kernel, 2 / 2 calls), one to one with --per-launch (#1 and #2).
    ncu = str(Path(__file__).resolve().parents[1] / "resources/ncu/a100_dgemm_triad_hgemm.csv")
    out = tmp_path / "check.json"
    assert rooflow("check", ncu, ncu, "--hardware", "a100-sxm", "-o", str(out)).returncode == 0
    triad = [r for r in json.loads(out.read_text())["records"]
             if r["kernel"].startswith("stream_triad")]
    assert [(r["calls_baseline"], r["calls_new"]) for r in triad] == [(2, 2)]
    assert triad[0]["time_s_baseline"] == pytest.approx((1.16e-3 + 1.17248e-3) / 2)
    proc = rooflow("check", ncu, ncu, "--hardware", "a100-sxm", "--per-launch", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    triad = [r for r in json.loads(out.read_text())["records"]
             if r["kernel"].startswith("stream_triad")]
    assert [r["kernel"][-2:] for r in triad] == ["#1", "#2"]
    assert [r["time_s_new"] for r in triad] == pytest.approx([1.16e-3, 1.17248e-3])
    assert all(r["note"] == FLOOR_ONLY for r in triad)


def test_many_kernels_are_judged_without_a_python_row_each():
    """A check of 50,000 one-call kernels builds no Python object per kernel (history of
    10⁷ kernels: a dict per kernel passed 16 GB). tracemalloc sees Python's allocations
    only: a dict of 21 entries per kernel is ≈ 1.2 kB, 60 MB for 50,000; polars' columns
    are not counted. The verdicts stay right: kernel i is 1 + (i + ½)/100,000 slower (the
    5 % floor alone, one call each): i ≥ 5,000 regressed, 45,000 of them."""
    import tracemalloc

    n = 50_000
    def one(scale: float) -> pl.DataFrame:
        frame = pl.DataFrame({"kernel": [f"k{i}" for i in range(n)]}).with_row_index("i")
        ms = 1.0 + scale * (pl.col("i").cast(pl.Float64) + 0.5) / 100_000
        return analyze(to_points(frame.select(
            "kernel", flop=pl.lit(1e9), bytes=pl.lit(1e6), time_s=ms / 1e3,
            row=pl.col("i").cast(pl.Int64) + 1, arithmetic_intensity=pl.lit(1e3),
            performance=1e9 / (ms / 1e3), source=pl.lit("run.csv"))), PRESET)

    base, new = one(0.0), one(1.0)
    tracemalloc.start()
    table = check_runs(base, new).table
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6, f"{peak / 1e6:.0f} MB of Python objects"
    # base 1 ms each; slowdown (i + ½)/10⁵ > 0.05 ⇔ i ≥ 5,000: i = 5,000 … 49,999.
    assert (table["status"] == "regressed").sum() == 45_000
    assert table["kernel"][0] == "k49999"  # the worst first
