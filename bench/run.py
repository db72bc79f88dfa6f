"""``make bench``: time the CLI and the workflow on synthetic inputs (bench/generate.py).

Writes results/benchmarks/timings.csv (every run, with the 1-minute load average before
it), jobs.csv (job counts) and README-table.md (medians against the targets of issues 23
and 33, beside the original Xe-Forge ``roofline.py`` where it plots the same file, the
machine's load before and after). Wall time and peak RSS of each run are measured by GNU
time around the command alone. A plot and the original script's plot of the same file
(bench/baseline.py), and the JSON and CSV outputs of one table, are run alternately, so a
drift of the machine's speed hits both sides of a ratio; every command of a pair runs once
untimed first, so no timed run reads its input or its libraries from disk.

``--repeat N``: at most N timed runs of each command (a reduced run).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
from baseline import ROOF, original_cmd, original_python  # bench/ is on sys.path
from generate import REPO, machine, points_frame, table_head, workflow_copy

OUT = REPO / "results" / "benchmarks"
INPUTS = OUT / "inputs"
BIN = Path(sys.executable).parent
PRESETS = 4  # config/config.yaml `presets`
TIME = "/usr/bin/time"  # GNU time (Debian package `time`)


def measure(cmd: list[str], cwd: Path = REPO, rc: int = 0) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and output of one run of ``cmd``; fails loudly.

    ``rc``: the exit status the run must end with (1: an input error is the expected
    outcome). GNU time reports the child's own figures: a child forked from this
    (polars-loaded) process would count the parent's pages in its peak RSS until it execs.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats:
        proc = subprocess.run([TIME, "-f", "%e %M", "-o", stats.name, *cmd], cwd=cwd,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != rc:
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}, not {rc}:\n"
                             f"{proc.stdout[-3000:]}")
        wall, rss_kb = stats.read().split()[-2:]
    return float(wall), int(rss_kb) / 1024, proc.stdout


def job_counts(out: str) -> dict[str, int]:
    """``snakemake -n --quiet rules`` output → {rule: jobs}; the batch rules
    (``datasets_on_PRESET..._NN``) count as one, ``datasets``."""
    rules = {}  # Snakemake prints its table twice
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("job", "total"):
            rules[parts[0]] = int(parts[1])
    counts: dict[str, int] = {}
    for rule, jobs in rules.items():
        rule = "datasets" if rule.startswith("datasets_on_") else rule
        counts[rule] = counts.get(rule, 0) + jobs
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="at most N timed runs of each command (a reduced run)")
    cap = parser.parse_args().repeat
    load_before = os.getloadavg()
    INPUTS.mkdir(parents=True, exist_ok=True)
    original = original_python(OUT / "xf-venv")  # None: ../shared is absent
    # Bytecode as any normal install has it (a wheel is compiled at install; an editable
    # one on first import): a machine with PYTHONDONTWRITEBYTECODE would otherwise time
    # the compilation of rooflow's modules in every command.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=True)
    for n in POINTS:
        path = INPUTS / f"points_{n}.csv"
        if not path.exists():
            points_frame(n).write_csv(path)
    flows = {f: workflow_copy(INPUTS / f"workflow_{f}", f) for f in (10, 100, 1000, 10_000)}
    rooflow, snakemake = str(BIN / "rooflow"), str(BIN / "snakemake")
    runs: list[dict] = []

    def times(repeat: int) -> int:
        return repeat if cap is None else min(repeat, cap)

    def run_once(name: str, cmd: list[str], i: int, cwd: Path = REPO, rc: int = 0) -> str:
        load = os.getloadavg()[0]
        wall, rss, out = measure(cmd, cwd, rc)
        runs.append({"benchmark": name, "run": i + 1, "wall_s": round(wall, 3),
                     "peak_rss_mb": round(rss, 1), "load_1min": round(load, 2)})
        print(f"{name} run {i + 1}: {wall:.2f} s, {rss:.0f} MB (load {load:.2f})", flush=True)
        return out

    def bench(name: str, cmd: list[str], repeat: int, cwd: Path = REPO, rc: int = 0,
              warm_up: bool = False) -> str:
        """``repeat`` timed runs of ``cmd``, after one untimed if ``warm_up`` (the input
        and the libraries in the page cache, so no timed run reads them from disk)."""
        if warm_up:
            measure(cmd, cwd, rc)
        out = ""
        for i in range(times(repeat)):
            out = run_once(name, cmd, i, cwd, rc)
        return out

    def side_by_side(name: str, cmd: list[str], other: str, other_cmd: list[str] | None,
                     repeat: int, other_repeat: int) -> None:
        """Both commands in turn, each once untimed first: a drift of the machine's speed
        hits both sides of their ratio. ``other_cmd`` None: ``cmd`` alone."""
        measure(cmd)
        if other_cmd:
            measure(other_cmd)
        for i in range(times(repeat)):
            run_once(name, cmd, i)
            if other_cmd and i < times(other_repeat):
                run_once(other, other_cmd, i)

    def plot_cmd(path: Path, *options: str) -> list[str]:
        return [rooflow, "plot", str(path), *ROOF, *options,
                "-o", str(OUT / "_".join([path.stem, *(o.strip("-") for o in options)]))
                + ".png"]

    parquet = INPUTS / "points_10000000.parquet"
    if not parquet.exists():
        points_frame(10_000_000).write_parquet(parquet)
    for n, repeat, original_runs in ((2, 7, 7), (1_000, 5, 3), (1_000_000, 5, 3)):
        csv = INPUTS / f"points_{n}.csv"
        cmd = original_cmd(original, csv, OUT / f"original_{n}.png") if original else None
        side_by_side(f"plot {n} points", plot_cmd(csv), original_name(n), cmd, repeat,
                     original_runs)
    # JSON against CSV: the same analysis table of 10⁵ rows, written each way.
    csv = INPUTS / "points_100000.csv"
    json_table, csv_table = (
        [rooflow, "table", str(csv), *ROOF, "--format", fmt, "-o", str(OUT / f"table.{fmt}")]
        for fmt in ("json", "csv"))
    side_by_side(JSON_TABLE, json_table, CSV_TABLE, csv_table, 5, 5)
    bad = INPUTS / "points_1000000_bad_row_987654.csv"
    if not bad.exists():  # data row 987,654 (index 987,653) has a negative performance
        pl.read_csv(INPUTS / "points_1000000.csv").with_columns(
            tflops=pl.when(pl.int_range(pl.len()) == 987_653).then(-2.0)
            .otherwise(pl.col("tflops"))).write_csv(bad)
    out = bench("plot 1000000 points, bad value in row 987654 (error)", plot_cmd(bad), 3,
                rc=1, warm_up=True)
    if "row 987654, column 'tflops'" not in out:
        raise SystemExit(f"the error does not name row 987654: {out}")
    bench("plot 10000000 points (Parquet)", plot_cmd(parquet), 3, warm_up=True)
    bench("plot 100000 points --connect --key",
          plot_cmd(INPUTS / "points_100000.csv", "--connect", "--key"), 5, warm_up=True)
    # The largest PyTorch trace of ../shared/data (issue 22: 60 MB, 239k events), if present.
    trace = REPO.parent / "shared/data/pytorch/tracelens-mi300x-xdit-sd3.5-239k"
    trace = trace / "profile_trace_rank_0.json.gz"
    if trace.exists():
        bench("plot PyTorch trace, 239k events", [rooflow, "plot", str(trace), "--hardware",
                                                  "mi300x", "-o", str(OUT / "trace.png")], 3,
              warm_up=True)
    jobs = []
    for files, flow in flows.items():
        out = bench(f"snakemake -n, {files} files", [snakemake, "-n", "--quiet", "rules"],
                    3 if files == 1000 else 1, flow)
        jobs.append({"case": f"dry run, {files} new files", **job_counts(out)})
    # Incremental cost of one new file: build the 10-file workflow, add one, dry-run.
    flow = flows[10]
    bench("snakemake --cores 2, full build of 10 files", [snakemake, "--cores", "2", "-q"],
          1, flow)
    (flow / "resources/roofline/new_sweep.csv").write_text(
        "series,label,ai,tflops\nkernel,x,12,3\n")
    out = bench("snakemake -n after adding 1 file", [snakemake, "-n", "--quiet", "rules"], 1,
                flow)
    jobs.append({"case": "one file added to a built workflow", **job_counts(out)})
    for name, code in IMPORTS.items():
        bench(f"job start: {name}", [sys.executable, "-c", code], 5)
    timings = pl.DataFrame(runs)
    timings.write_csv(OUT / "timings.csv")
    pl.DataFrame(jobs).fill_null(0).write_csv(OUT / "jobs.csv")
    (OUT / "README-table.md").write_text(table(timings, jobs, load_before, os.getloadavg()))
    print((OUT / "README-table.md").read_text())


POINTS = (2, 1_000, 100_000, 1_000_000)  # rows of the roofline CSVs plotted


def original_name(n: int) -> str:
    return f"original roofline.py, {n} points"


JSON_TABLE = "table 100000 rows --format json"
CSV_TABLE = "table 100000 rows --format csv"


# What a job's interpreter imports before it starts work: a batch job imports polars
# and the pipeline when it reads its points, matplotlib only when it draws. The other
# rows are the steps up to them; "points rule" and "draw rule" keep their names (the
# jobs they were before the batches) so the figures compare across runs.
DRAW_JOB = ("rooflow.workflow.rulescript, rooflow.workflow.draw, rooflow.escape, "
            "rooflow.workflow.failed, "
            "rooflow.pipeline, rooflow.points, rooflow.roofs, rooflow.selection, "
            "snakemake.script")
IMPORTS = {
    "python -c pass": "pass",
    "rooflow.pipeline + polars": "import rooflow.pipeline, polars",
    "+ snakemake.script": "import rooflow.pipeline, polars, snakemake.script",
    "+ matplotlib (once a draw job draws)": "import rooflow.pipeline, polars, "
                                            "snakemake.script, rooflow.plotting.roofline",
    "+ pandera.polars (points)": "import rooflow.pipeline, polars, snakemake.script, "
                                 "pandera.polars",
    "points rule (roofline adapter)": "import rooflow.adapters.roofline, rooflow.points, "
                                      "rooflow.workflow.rulescript, rooflow.workflow.failed, "
                                      "snakemake.script",
    "draw rule (before it draws)": f"import {DRAW_JOB}",
}


# Absolute targets (issues 23 and 33), on a 2-core machine.
# benchmark → (max wall s, max peak RSS MB or None)
TARGETS = {
    "plot 100000 points --connect --key": (1.5, None),
    "plot 10000000 points (Parquet)": (5, 1024),
    "plot PyTorch trace, 239k events": (30, 1536),  # issue 22
    "snakemake -n, 1000 files": (8, None),
    "snakemake -n, 10000 files": (60, None),
    "job start: points rule (roofline adapter)": (0.5, None),
    "job start: draw rule (before it draws)": (0.5, None),
}
# Ratios measured side by side (issue 33): benchmark → (the other side, its word in the
# table, least speedup wanted: other's median wall / this one's). Speedup 1/1.5: JSON may
# take up to 1.5× the CSV's time, and its peak RSS (MEMORY_RATIO) up to 1.5× as well.
SIDE_BY_SIDE = {
    "plot 2 points": (original_name(2), "≤ the original script", 1.0),
    "plot 1000 points": (original_name(1_000), "", None),
    "plot 1000000 points": (original_name(1_000_000), "≥ 10× faster than the original "
                            "script", 10.0),
    JSON_TABLE: (CSV_TABLE, "≤ 1.5× the CSV's time and peak RSS", 1 / 1.5),
}
MEMORY_RATIO = {JSON_TABLE: 1.5}  # benchmark → most peak RSS, × the other side's


def _met(yes: bool) -> str:
    return "yes" if yes else "no"


def _row(name: str, wall: float, rss: float, medians: dict[str, tuple[float, float]]
         ) -> tuple[str, str, str, str]:
    """(other side, ratio, target, met?) cells of benchmark ``name``."""
    if name in SIDE_BY_SIDE:
        other, want, least = SIDE_BY_SIDE[name]
        if other not in medians:
            return "not run (no original script)", "", want, "not measured" if want else ""
        other_wall, other_rss = medians[other]
        speedup = other_wall / wall
        if name in MEMORY_RATIO:  # JSON against CSV: its time and memory as × the CSV's
            ratio = f"{wall / other_wall:.2f}× time, {rss / other_rss:.2f}× RSS"
            met = speedup >= least and rss <= MEMORY_RATIO[name] * other_rss
        else:
            ratio, met = f"{speedup:.2f}× faster", least is not None and speedup >= least
        return (f"{other_wall:.2f} s, {other_rss:.0f} MB", ratio, want,
                _met(met) if least else "")
    if name not in TARGETS:
        return "", "", "", ""
    max_wall, max_rss = TARGETS[name]
    want = f"≤ {max_wall} s" + (f", ≤ {max_rss} MB" if max_rss else "")
    return "", "", want, _met(wall <= max_wall and (max_rss is None or rss <= max_rss))


def table(timings: pl.DataFrame, jobs: list[dict], load_before: tuple[float, ...],
          load_after: tuple[float, ...]) -> str:
    medians = timings.group_by("benchmark", maintain_order=True).agg(
        runs=pl.len(), wall=pl.col("wall_s").median(), rss=pl.col("peak_rss_mb").median(),
        load=pl.col("load_1min").median())
    by_name = {r["benchmark"]: (r["wall"], r["rss"]) for r in medians.iter_rows(named=True)}
    others = {other for other, _, _ in SIDE_BY_SIDE.values()}
    loads = ", ".join(f"{a:.2f} / {b:.2f}" for a, b in zip(load_before, load_after,
                                                            strict=True))
    lines = [f"Machine: {machine()}; load average (1, 5, 15 min) before / after the run: "
             f"{loads}.", "",
             *table_head("benchmark", "runs", "rooflow: median wall (s)",
                         "median peak RSS (MB)", "original script (CSV for JSON): median",
                         "ratio", "median load", "target", "met?")]
    for r in medians.filter(~pl.col("benchmark").is_in(others)).iter_rows(named=True):
        name = r["benchmark"]
        cells = _row(name, r["wall"], r["rss"], by_name)
        other = SIDE_BY_SIDE.get(name, ("",))[0]
        runs = f"{r['runs']} / {int(timings['benchmark'].eq(other).sum())}" if other in by_name \
            else str(r["runs"])
        lines.append(f"| {name} | {runs} | {r['wall']:.2f} | {r['rss']:.0f} | "
                     f"{' | '.join(cells[:2])} | {r['load']:.2f} | {' | '.join(cells[2:])} |")
    added = jobs[-1]
    total = sum(v for k, v in added.items() if k not in ("case", "all"))
    # The new file's own jobs (points, draw) and the per-preset aggregates (overview plot
    # and page per preset), the summary and the check that every dataset was read.
    expected = 2 + 2 * PRESETS + 2
    lines += ["", f"Jobs after adding one file to a built workflow ({PRESETS} presets): "
              + ", ".join(f"{k} {v}" for k, v in added.items() if k != "case")
              + f" = {total} (target: its own 2 and the aggregates 2×presets + 2 = "
              f"{expected}; met: {_met(total <= expected)})", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
