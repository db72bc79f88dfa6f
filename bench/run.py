"""``make bench``: time the CLI and the workflow on synthetic inputs (bench/generate.py).

Writes results/benchmarks/timings.csv (every run, with the 1-minute load average before
it), jobs.csv (job counts) and README-table.md (medians against the targets of issue 23,
the machine's load before and after). Wall time and peak RSS of each run are measured by
GNU time around the command alone. A plot and the naive baseline it is compared with
(bench/naive.py) are run alternately, so a drift of the machine's speed hits both; every
plot command runs once untimed first, so no timed run reads its input or its libraries
from disk.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
from generate import REPO, machine, points_frame, table_head, workflow_copy  # bench/ is on sys.path

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
    load_before = os.getloadavg()
    INPUTS.mkdir(parents=True, exist_ok=True)
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

    def run_once(name: str, cmd: list[str], i: int, cwd: Path = REPO, rc: int = 0) -> str:
        load = os.getloadavg()[0]
        wall, rss, out = measure(cmd, cwd, rc)
        runs.append({"benchmark": name, "run": i + 1, "wall_s": round(wall, 3),
                     "peak_rss_mb": round(rss, 1), "load_1min": round(load, 2)})
        print(f"{name} run {i + 1}: {wall:.2f} s, {rss:.0f} MB (load {load:.2f})", flush=True)
        return out

    def warm(*cmds: list[str], rc: int = 0) -> None:
        """One untimed run of each: the input and the libraries in the page cache, so no
        timed run reads them from disk (the first of an alternation would, alone)."""
        for cmd in cmds:
            measure(cmd, REPO, rc)

    def bench(name: str, cmd: list[str], repeat: int, cwd: Path = REPO, rc: int = 0,
              warm_up: bool = False) -> str:
        """``repeat`` timed runs of ``cmd``, after one untimed (:func:`warm`) if ``warm_up``."""
        if warm_up:
            measure(cmd, cwd, rc)
        out = ""
        for i in range(repeat):
            out = run_once(name, cmd, i, cwd, rc)
        return out

    def plot_cmd(path: Path, *options: str) -> list[str]:
        return [rooflow, "plot", str(path), "--hardware", "h100-sxm", *options,
                "-o", str(OUT / "_".join([path.stem, *(o.strip("-") for o in options)]))
                + ".png"]

    parquet = INPUTS / "points_10000000.parquet"
    if not parquet.exists():
        points_frame(10_000_000).write_parquet(parquet)
    naive = str(Path(__file__).with_name("naive.py"))
    for n, repeat, naive_runs in ((2, 7, 7), (1_000, 5, 0), (1_000_000, 5, 3)):
        csv = INPUTS / f"points_{n}.csv"
        naive_cmd = [sys.executable, naive, str(csv), str(OUT / f"naive_{n}.png")]
        warm(plot_cmd(csv), *([naive_cmd] if naive_runs else []))
        for i in range(repeat):  # alternately with the naive baseline on the same file
            run_once(f"plot {n} points", plot_cmd(csv), i)
            if i < naive_runs:
                run_once(naive_name(n), naive_cmd, i)
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


def naive_name(n: int) -> str:
    return f"naive baseline {n} points (csv module + one scatter)"


# What a job's interpreter imports before it starts work: a `draw` job imports polars
# and the pipeline when it reads its points, matplotlib only when it draws. The other
# rows are the steps up to them.
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


# Issue 23's targets, on a 2-core machine. benchmark → (max wall s, max peak RSS MB or None)
TARGETS = {
    "plot 100000 points --connect --key": (1.5, None),
    "plot 10000000 points (Parquet)": (5, 1024),
    "plot PyTorch trace, 239k events": (30, 1536),  # issue 22
    "snakemake -n, 1000 files": (8, None),
    "snakemake -n, 10000 files": (60, None),
    "job start: points rule (roofline adapter)": (0.5, None),
    "job start: draw rule (before it draws)": (0.5, None),
}
# benchmark → how many times faster than the naive baseline on the same file (median wall)
FASTER = {"plot 2 points": 1, "plot 1000000 points": 10}


def _target(name: str, wall: float, rss: float, medians: dict[str, float]) -> str:
    if name in FASTER:
        naive = medians[naive_name(int(name.split()[1]))]
        want = "≤ the naive baseline" if FASTER[name] == 1 else f"≥ {FASTER[name]}× faster"
        return (f"{want} (same file, same run): naive {naive:.2f} s / {wall:.2f} s = "
                f"{naive / wall:.2f}× | {'yes' if naive / wall >= FASTER[name] else 'no'}")
    if name not in TARGETS:
        return " | "
    max_wall, max_rss = TARGETS[name]
    text = f"≤ {max_wall} s" + (f", ≤ {max_rss} MB" if max_rss else "")
    met = wall <= max_wall and (max_rss is None or rss <= max_rss)
    return f"{text} | {'yes' if met else 'no'}"


def table(timings: pl.DataFrame, jobs: list[dict], load_before: tuple[float, ...],
          load_after: tuple[float, ...]) -> str:
    medians = timings.group_by("benchmark", maintain_order=True).agg(
        runs=pl.len(), wall=pl.col("wall_s").median(), rss=pl.col("peak_rss_mb").median(),
        load=pl.col("load_1min").median())
    walls = dict(zip(medians["benchmark"], medians["wall"], strict=True))
    loads = ", ".join(f"{a:.2f} / {b:.2f}" for a, b in zip(load_before, load_after,
                                                            strict=True))
    lines = [f"Machine: {machine()}; load average (1, 5, 15 min) before / after the run: "
             f"{loads}.", "",
             *table_head("benchmark", "runs", "median wall (s)", "median peak RSS (MB)",
                         "median load", "target", "met?")]
    for r in medians.iter_rows(named=True):
        lines.append(f"| {r['benchmark']} | {r['runs']} | {r['wall']:.2f} | {r['rss']:.0f} | "
                     f"{r['load']:.2f} | {_target(r['benchmark'], r['wall'], r['rss'], walls)} |")
    added = jobs[-1]
    total = sum(v for k, v in added.items() if k not in ("case", "all"))
    # The new file's own jobs (points, draw) and the per-preset aggregates (overview plot
    # and page per preset), the summary and the check that every dataset was read.
    expected = 2 + 2 * PRESETS + 2
    lines += ["", f"Jobs after adding one file to a built workflow ({PRESETS} presets): "
              + ", ".join(f"{k} {v}" for k, v in added.items() if k != "case")
              + f" = {total} (target: its own 2 and the aggregates 2×presets + 2 = "
              f"{expected}; met: {'yes' if total <= expected else 'no'})", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
