"""``make bench``: each workflow job's peak memory on a 5 M-row input beside its ``mem_mb``.

Builds a workflow copy (bench/generate.py) whose inputs are roofline CSVs of 1,000 and
5,000,000 rows (``points_frame``) and a quoted 5,000,000-row one with a negative
performance in row 4,900,000 (its ``points`` job takes the row-exact re-read path and
records the error), runs the jobs that read and draw each (``points``, then the one that
writes its tables, plots and pages on the config's presets) and those that draw all of
one preset (overview table, plot and page), one job at a time
(``--cores 1``), and writes results/benchmarks/memory.md: per job its input, the ``mem_mb``
Snakemake gave it,
its peak RSS (the ``peak RSS N MB`` line that rooflow.workflow.rulescript.run ends a job's log
with) and whether it stayed within, then the growth per MB of raw input (``points``) and
per million rows (the others) between the small and the big input: the factors of
rooflow.workflow.jobmemory's model.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
from generate import REPO, machine, points_frame, table_head, workflow_copy  # bench/ is on sys.path

OUT = REPO / "results" / "benchmarks"
PRESET = "h100-sxm"  # targets named on it; a dataset's job draws every preset of the config
ROWS = {"small": 1_000, "big": 5_000_000, "quoted_bad": 5_000_000}
BAD_ROW = 4_900_000  # 1-based data row of quoted_bad.csv with tflops -2


def inputs(flow: Path) -> dict[str, Path]:
    """The three roofline CSVs in ``flow``'s resources/roofline/."""
    folder = flow / "resources" / "roofline"
    paths = {name: folder / f"{name}.csv" for name in ROWS}
    points_frame(ROWS["small"]).write_csv(paths["small"])
    big = points_frame(ROWS["big"])
    big.write_csv(paths["big"])
    big.with_columns(tflops=pl.when(pl.int_range(pl.len()) == BAD_ROW - 1).then(-2.0)
                     .otherwise(pl.col("tflops"))).write_csv(paths["quoted_bad"],
                                                              quote_style="always")
    return paths


def targets() -> list[str]:
    """Points files; tables and pages on :data:`PRESET`, each dataset's and the overview's.

    The bad dataset has a points file only; the overview (``all``) holds the others.
    """
    files = [f"results/points/roofline/{name}.parquet" for name in ROWS]
    for name in ("small", "big"):
        files += [f"results/tables/{PRESET}/roofline-{name}.csv",
                  f"results/html/{PRESET}/roofline-{name}.html"]
    return files + [f"results/tables/{PRESET}/all.csv", f"results/html/{PRESET}/all.html"]


def jobs(output: str) -> list[dict[str, str]]:
    """Snakemake's job blocks (``rule NAME:`` then indented ``key: value`` lines)."""
    found: list[dict[str, str]] = []
    for line in output.splitlines():
        if match := re.fullmatch(r"(?:local)?rule (\w+):", line.strip()):
            found.append({"rule": match.group(1)})
        elif found and (match := re.fullmatch(r"\s+(\w+): (.*)", line)):
            found[-1].setdefault(match.group(1), match.group(2))
    return [job for job in found if "log" in job]


def mem_mb(job: dict[str, str]) -> int:
    """The ``mem_mb`` of a job's ``resources:`` line."""
    return int(re.search(r"\bmem_mb=(\d+)", job["resources"]).group(1))


def peak_rss_mb(log: Path) -> float | None:
    """The ``peak RSS N MB`` of a job's log; None when it has none (a job that failed)."""
    found = re.findall(r"^peak RSS (\d+) MB$", log.read_text(), re.M)
    return float(found[-1]) if found else None


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    flow = workflow_copy(OUT / "inputs" / "workflow_memory", 0)
    paths = inputs(flow)
    snakemake = str(Path(sys.executable).parent / "snakemake")
    start = time.monotonic()
    proc = subprocess.run([snakemake, "--cores", "1", *targets()], cwd=flow, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    if proc.returncode:
        raise SystemExit(f"snakemake exited {proc.returncode}:\n{proc.stdout[-3000:]}")
    rows = []
    built = ("small", "big")  # the overview's datasets: the bad one is left out
    for job in jobs(proc.stdout):
        found = re.search(r"roofline[/-](\w+)\.", job["output"])
        name = found.group(1) if found else "all"
        raw = sum(paths[n].stat().st_size for n in ((name,) if found else built)) / 2**20
        log = flow / job["log"].split(",")[0].strip()
        first = log.read_text().partition("\n")[0]
        rows.append({"job": job["rule"], "dataset": name,
                     "rows": ROWS[name] if found else sum(ROWS[n] for n in built),
                     "raw_mb": round(raw, 1), "mem_mb": mem_mb(job),
                     "peak_rss_mb": peak_rss_mb(log),
                     "error": first if first.startswith("rooflow: error") else ""})
    table = pl.DataFrame(rows).sort("job", "rows", "dataset")
    (OUT / "memory.md").write_text(report(table, wall))
    print((OUT / "memory.md").read_text())


def report(table: pl.DataFrame, wall: float) -> str:
    lines = [f"Machine: {machine()}; snakemake --cores 1, the config's presets, "
             f"{wall:.0f} s in all.", "",
             *table_head("job", "dataset", "rows", "raw input (MB)", "mem_mb declared",
                         "peak RSS (MB)", "within?", "error recorded")]
    for r in table.iter_rows(named=True):
        peak = r["peak_rss_mb"]
        within = "?" if peak is None else "yes" if peak <= r["mem_mb"] else "no"
        error = f"`{r['error'][:150]}`" if r["error"] else ""
        lines.append(f"| {r['job']} | {r['dataset']} | {r['rows']:,} | {r['raw_mb']} | "
                     f"{r['mem_mb']} | {'' if peak is None else f'{peak:.0f}'} | {within} | "
                     f"{error} |")
    lines += ["",
              "Growth from the small input to the big one (rooflow.workflow.jobmemory's factors):",
              ""]
    for job, by in table.filter(pl.col("dataset").is_in(["small", "big"])).group_by(
            "job", maintain_order=True):
        small = by.filter(pl.col("dataset") == "small").row(0, named=True)
        big = by.filter(pl.col("dataset") == "big").row(0, named=True)
        grow = big["peak_rss_mb"] - small["peak_rss_mb"]
        per = (f"{grow / (big['raw_mb'] - small['raw_mb']):.2f} MB per MB of raw input"
               if job[0] == "points" else
               f"{grow / ((big['rows'] - small['rows']) / 1e6):.0f} MB per million rows")
        lines.append(f"- {job[0]}: base (small input) {small['peak_rss_mb']:.0f} MB; {per}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
