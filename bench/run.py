"""``make bench``: time the CLI and the workflow on synthetic inputs (bench/generate.py).

Writes results/benchmarks/timings.csv (every run), jobs.csv (job counts) and
README-table.md (medians against their targets). Wall time and peak RSS of each run are
measured by GNU time around the command alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
from generate import REPO, points_frame, workflow_copy  # bench/ is on sys.path

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
    """``snakemake -n --quiet rules`` output → {rule: jobs}."""
    counts = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
            counts[parts[0]] = int(parts[1])
    return counts


def main() -> None:
    INPUTS.mkdir(parents=True, exist_ok=True)
    # Bytecode as any normal install has it (a wheel is compiled at install; an editable
    # one on first import): a machine with PYTHONDONTWRITEBYTECODE would otherwise time
    # the compilation of rooflow's modules in every command.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=True)
    for n in (1_000, 100_000, 1_000_000):
        path = INPUTS / f"points_{n}.csv"
        if not path.exists():
            points_frame(n).write_csv(path)
    flows = {f: workflow_copy(INPUTS / f"workflow_{f}", f) for f in (10, 100, 1000, 10_000)}
    rooflow, snakemake = str(BIN / "rooflow"), str(BIN / "snakemake")
    runs: list[dict] = []

    def bench(name: str, cmd: list[str], repeat: int, cwd: Path = REPO, rc: int = 0) -> str:
        out = ""
        for i in range(repeat):
            wall, rss, out = measure(cmd, cwd, rc)
            runs.append({"benchmark": name, "run": i + 1, "wall_s": round(wall, 3),
                         "peak_rss_mb": round(rss, 1)})
            print(f"{name} run {i + 1}: {wall:.2f} s, {rss:.0f} MB", flush=True)
        return out

    png = OUT / "plot.png"
    parquet = INPUTS / "points_10000000.parquet"
    if not parquet.exists():
        points_frame(10_000_000).write_parquet(parquet)
    for n in (1_000, 100_000, 1_000_000):
        bench(f"plot {n} points", [rooflow, "plot", str(INPUTS / f"points_{n}.csv"),
                                   "--hardware", "h100-sxm", "-o", str(png)], 5)
    bad = INPUTS / "points_1000000_bad_row_987654.csv"
    if not bad.exists():  # data row 987,654 (index 987,653) has a negative performance
        pl.read_csv(INPUTS / "points_1000000.csv").with_columns(
            tflops=pl.when(pl.int_range(pl.len()) == 987_653).then(-2.0)
            .otherwise(pl.col("tflops"))).write_csv(bad)
    out = bench("plot 1000000 points, bad value in row 987654 (error)",
                [rooflow, "plot", str(bad), "--hardware", "h100-sxm", "-o", str(png)], 3,
                rc=1)
    if "row 987654, column 'tflops'" not in out:
        raise SystemExit(f"the error does not name row 987654: {out}")
    bench("naive baseline 1000000 points (csv module + one scatter)",
          [sys.executable, str(Path(__file__).with_name("naive.py")),
           str(INPUTS / "points_1000000.csv"), str(OUT / "naive.png")], 3)
    bench("plot 10000000 points (Parquet)", [rooflow, "plot", str(parquet), "--hardware",
                                             "h100-sxm", "-o", str(png)], 3)
    bench("plot 100000 points --connect --key",
          [rooflow, "plot", str(INPUTS / "points_100000.csv"), "--hardware", "h100-sxm",
           "--connect", "--key", "-o", str(png)], 5)
    # The largest PyTorch trace of ../shared/data (issue 22: 60 MB, 239k events), if present.
    trace = REPO.parent / "shared/data/pytorch/tracelens-mi300x-xdit-sd3.5-239k"
    trace = trace / "profile_trace_rank_0.json.gz"
    if trace.exists():
        bench("plot PyTorch trace, 239k events", [rooflow, "plot", str(trace), "--hardware",
                                                  "mi300x", "-o", str(png)], 3)
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
    imports = {
        "python -c pass": "pass",
        "rooflow.pipeline + polars": "import rooflow.pipeline, polars",
        "+ snakemake.script": "import rooflow.pipeline, polars, snakemake.script",
        "+ matplotlib (report)": "import rooflow.pipeline, polars, snakemake.script, "
                                 "rooflow.plotting.roofline",
        "+ pandera.polars (points)": "import rooflow.pipeline, polars, snakemake.script, "
                                     "pandera.polars",
        "points rule (roofline adapter)": "import rooflow.adapters.roofline, "
                                          "rooflow.points, snakemake.script",
        "report rule (pipeline + plotting)": "import rooflow.pipeline, rooflow.analysis, "
                                             "rooflow.plotting.roofline, snakemake.script",
    }
    for name, code in imports.items():
        bench(f"job start: {name}", [sys.executable, "-c", code], 5)
    timings = pl.DataFrame(runs)
    timings.write_csv(OUT / "timings.csv")
    pl.DataFrame(jobs).fill_null(0).write_csv(OUT / "jobs.csv")
    (OUT / "README-table.md").write_text(table(timings, jobs))
    print((OUT / "README-table.md").read_text())


# benchmark → (max wall s, max peak RSS MB or None)
TARGETS = {  # on a 2-core machine
    "plot 1000000 points": (1.7, 400),
    "plot 100000 points --connect --key": (2, 1024),
    "plot 10000000 points (Parquet)": (10, 1500),
    "plot PyTorch trace, 239k events": (30, 1536),
    "snakemake -n, 1000 files": (15, None),
    "snakemake -n, 10000 files": (60, None),
    "job start: points rule (roofline adapter)": (0.5, None),
    "job start: report rule (pipeline + plotting)": (0.5, None),
}


def _target(name: str, wall: float, rss: float) -> str:
    if name not in TARGETS:
        return " | "
    max_wall, max_rss = TARGETS[name]
    text = f"≤ {max_wall} s" + (f", ≤ {max_rss} MB" if max_rss else "")
    met = wall <= max_wall and (max_rss is None or rss <= max_rss)
    return f"{text} | {'yes' if met else 'no'}"


def table(timings: pl.DataFrame, jobs: list[dict]) -> str:
    medians = timings.group_by("benchmark", maintain_order=True).agg(
        runs=pl.len(), wall=pl.col("wall_s").median(), rss=pl.col("peak_rss_mb").median())
    lines = [f"Machine: {len(os.sched_getaffinity(0))} cores (nproc), "
             f"Python {sys.version.split()[0]}.", "",
             "| benchmark | runs | median wall (s) | median peak RSS (MB) | target | met? |",
             "|---|---|---|---|---|---|"]
    for r in medians.iter_rows(named=True):
        lines.append(f"| {r['benchmark']} | {r['runs']} | {r['wall']:.2f} | {r['rss']:.0f} | "
                     f"{_target(r['benchmark'], r['wall'], r['rss'])} |")
    added = jobs[-1]
    total = sum(v for k, v in added.items() if k not in ("case", "all"))
    # The new file's own jobs (points; report and html page per preset) and the
    # per-preset aggregates (overview plot and page per preset; the summary).
    expected = 1 + 2 * PRESETS + 2 * PRESETS + 1
    naive = medians.filter(pl.col("benchmark").str.starts_with("naive"))["wall"]
    ours = medians.filter(pl.col("benchmark") == "plot 1000000 points")["wall"]
    if naive.len() and ours.len():
        lines += ["", f"1 M points: rooflow plot {naive[0] / ours[0]:.1f}× faster than the naive "
                  "baseline (same run, median wall)"]
    lines += ["", f"Jobs after adding one file to a built workflow ({PRESETS} presets): "
              + ", ".join(f"{k} {v}" for k, v in added.items() if k != "case")
              + f" = {total} (target: its own 1 + 2×presets and the aggregates "
              f"2×presets + 1 = {expected}; met: {'yes' if total <= expected else 'no'})", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
