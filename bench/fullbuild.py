"""Full-build throughput of the workflow against a shell loop of the original script.

A cold ``snakemake --cores 2`` (the workflow's default profile applies) in a fresh copy
of the workflow whose ``resources/`` hold only F small roofline CSVs (4 rows each,
:func:`generate.workflow_copy`), drawn on the config's presets; beside it, the original
Xe-Forge ``roofline.py`` (``../shared/baselines/xe-forge-scripts/``, run from a
throw-away venv with matplotlib, numpy and pyyaml, made by
:func:`baseline.original_python` as for ``run.py``) over the same files and presets, as a
shell loop would run it: one process per file and preset. The loop is estimated from
``--sample`` runs (the presets in turn, each on its own file): mean wall time × files ×
presets, said so in the output. Half the runs come right before the build, half right
after it, so a drift of the machine's speed while it builds hits both sides of the ratio
(this machine's speed moves by tens of per cent between hours); the output gives each
half's mean too.

Target (issue 33): F = 1,000 files × 4 presets in ≤ 300 s, and ≥ 10× faster than the
loop. Prints one Markdown table and writes it to ``results/benchmarks/fullbuild.md``.

    python fullbuild.py [--files 1000] [--sample 20] [--cores 2]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from baseline import ORIGINAL, original_python
from generate import REPO, machine, table_head, workflow_copy

TARGET_S = 300.0
TARGET_RATIO = 10.0


def original_args(preset: str, hardware: dict) -> list[str]:
    """The original script's roof for ``preset``: its own preset of that name, else the
    default compute and memory peaks of config/hardware.yaml (TFLOP/s, GB/s)."""
    if preset in ("arc-pro-b70", "arc-b580", "max-1550", "max-1100", "flex-170"):
        return ["--hardware", preset]
    entry = hardware[preset]
    return ["--peak-tflops", str(entry["compute"][entry["default_compute"]]),
            "--peak-bandwidth", str(entry["memory"][entry["default_memory"]])]


def children_cpu() -> float:
    """User + system CPU seconds of this program's finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def original_runs(python: Path, work: Path, presets: list[str], runs: range
                  ) -> tuple[list[float], float]:
    """Wall seconds of each original-script run (file, preset) of ``runs`` (run i: preset
    i mod presets, file i), and their CPU seconds together."""
    hardware = yaml.safe_load((REPO / "config/hardware.yaml").read_text())["presets"]
    files = sorted((work / "resources/roofline").glob("*.csv"))
    out = Path(tempfile.mkdtemp(prefix="fullbuild-original-"))
    times = []
    cpu = children_cpu()
    for i in runs:
        preset = presets[i % len(presets)]
        start = time.perf_counter()
        subprocess.run([python, str(ORIGINAL), str(files[i % len(files)]),
                        *original_args(preset, hardware), "-o", str(out / f"{i}.png")],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    cpu = children_cpu() - cpu
    shutil.rmtree(out)
    return times, cpu


def build(work: Path, cores: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of a cold build in ``work``, and the jobs Snakemake ran."""
    cpu = children_cpu()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", str(cores)],
                          cwd=work, capture_output=True, text=True)
    wall = time.perf_counter() - start
    (work / "fullbuild.log").write_text(proc.stdout + proc.stderr)
    done = re.findall(r"(\d+) of (\d+) steps \(100%\) done", proc.stdout + proc.stderr)
    if proc.returncode or not done:
        sys.exit(f"fullbuild: the build failed (exit {proc.returncode}); see "
                 f"{work / 'fullbuild.log'}")
    return wall, children_cpu() - cpu, int(done[-1][1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=20,
                        help="original-script runs the loop is estimated from")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the workflow copy (default: a temporary one)")
    args = parser.parse_args()
    python = original_python(REPO / "results/benchmarks/xf-venv")
    if python is None:
        sys.exit("fullbuild: the original script is missing: nothing to compare with")
    work = args.work or Path(tempfile.mkdtemp(prefix="fullbuild-"))
    workflow_copy(work, args.files)
    presets = yaml.safe_load((work / "config/config.yaml").read_text())["presets"]
    before, before_cpu = original_runs(python, work, presets, range(args.sample // 2))
    wall, cpu, jobs = build(work, args.cores)
    after, after_cpu = original_runs(python, work, presets,
                                     range(args.sample // 2, args.sample))
    per_run = sum(before + after) / args.sample
    per_run_cpu = (before_cpu + after_cpu) / args.sample
    halves = ", ".join(f"{name} {sum(t) / len(t):.2f} s" for name, t
                       in (("before the build", before), ("after", after)) if t)
    runs = args.files * len(presets)
    loop = per_run * runs
    ratio = loop / wall
    met = wall <= TARGET_S and ratio >= TARGET_RATIO
    lines = [f"Full build, {machine()}, {time.strftime('%Y-%m-%d %H:%M')}, load average "
             f"{os.getloadavg()[0]:.1f} at the end", "",
             *table_head("files", "presets", "jobs", "wall (s)", "CPU (s)",
                         "original loop estimate: wall (s)", "CPU (s)", "ratio: wall",
                         "CPU", "target met?"),
             f"| {args.files:,} | {len(presets)} | {jobs:,} | {wall:.0f} | {cpu:.0f} "
             f"| {loop:.0f} ({per_run:.2f} s × {args.files:,} × {len(presets)}, estimated "
             f"from {args.sample} runs: {halves}) | {per_run_cpu * runs:.0f} | {ratio:.1f}× "
             f"| {per_run_cpu * runs / cpu:.1f}× | {'yes' if met else 'no'} (≤ "
             f"{TARGET_S:.0f} s and ≥ {TARGET_RATIO:.0f}× by wall time) |"]
    text = "\n".join(lines) + "\n"
    print(text)
    out = REPO / "results/benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    (out / "fullbuild.md").write_text(text)
    if args.work is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
