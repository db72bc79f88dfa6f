"""``make bench``: every workflow job's peak memory beside the ``mem_mb`` it declared.

Two workflow copies, each run by Snakemake one job at a time (``--cores 1``):

* ``shared``: the shipped examples (their comparison, projection and history, and a model
  check of the ncu example against the flash-attention one) and every real input of
  ../shared/data placed as tests/test_workflow_shared.py places them (the PyTorch traces,
  Nsight Compute CSVs and reports, rocprof folders and databases...), on one preset: the
  batch jobs (``datasets_on_…``: each reads and draws its datasets), ``aggregate``,
  ``html_overview``, ``compare``, ``project``, ``history``, ``model_check``, ``summary``,
  ``datasets_read``.
* ``big``: roofline CSVs of 1,000 and 10⁷ rows (:func:`generate.points_frame`), a quoted
  10⁷-row one with a negative performance in row 9,900,000 (its ``points`` job takes the
  row-exact re-read path and records the error), on the config's four presets: their
  batch jobs, one preset's ``aggregate`` and ``html_overview``,
  a ``compare`` (1,000 → 10⁷ rows), ``project`` and ``history`` of the 10⁷-row dataset,
  ``model_check`` of it against the small one (not ``summary``: it holds every preset's
  overview table at once, 10⁷ rows of 60 columns each); then, in a second run, the
  batch job of the 10⁷ rows as Parquet (the roofline kind's other form; its batch's other
  datasets are unchanged, so only it is read and drawn).

A job's measured peak is what a Slurm job's memory limit counts: its script's peak RSS
(``VmHWM``, the ``peak RSS N MB`` that rooflow.workflow.rulescript.run ends its log with) plus
Snakemake's own process beside it (its ``VmHWM``, read from /proc while it runs) and the
largest other process between them (the shell that starts the script). Each is a peak, so
their sum is an upper bound. Writes results/benchmarks/memory.md (per job: input, declared
``mem_mb``, measured MB, their ratio), prints it, and exits 1 if any job measured more
than it declared. ``--only shared|big`` runs one copy (both by default, one after the
other; each rewrites its own section of the file). ``--rules`` runs only those rules' jobs
of the big copy (with the jobs they need; ``summary`` and ``datasets_read`` only so), and
``--reuse`` keeps the big copy of an earlier run and runs those rules again.

A watchdog (:class:`Watch`) kills the run's process group once Snakemake and its jobs
together hold more than 16 GiB, or the machine has under 2 GiB available (it is shared,
and has no swap): the job then reads ``killed past 16 GB`` and the run's line says so.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import psutil
import yaml
from generate import REPO, machine, points_frame, table_head, workflow_copy  # bench/ on sys.path

from rooflow.workflow import jobmemory
from rooflow.workflow.batches import read_manifest

sys.path.insert(0, str(REPO / "tests"))
from test_workflow_shared import _place  # noqa: E402 - the shared data's layout, once
from workflow_copy import copy_workflow  # noqa: E402

OUT = REPO / "results" / "benchmarks"
SHARED_DATA = REPO.parent / "shared" / "data"
PRESET = "h100-sxm"  # the shared copy's one preset; the big copy's targets named on it
ROWS = {"small": 1_000, "big": 10_000_000, "quoted_bad": 10_000_000}
BAD_ROW = 9_900_000  # 1-based data row of quoted_bad.csv with tflops -2
SCENARIOS = ("shared", "big")


KILL_MB = 16 * 1024
"""The watchdog's limit: the RSS of Snakemake and its jobs together, MiB."""
KILL_AVAILABLE_MB = 2 * 1024
"""The watchdog also stops the run when the machine has less than this available (MiB):
the machine is shared, and it has no swap to slow a runaway job down first."""


class Watch:
    """The peak RSS (``VmHWM``, MiB) of a process and of each of its descendants, polled.

    A watchdog too: once their current RSS together passes :data:`KILL_MB`, or the
    machine's available memory falls under :data:`KILL_AVAILABLE_MB`, it kills the
    process group of ``pid`` (Snakemake started in a session of its own) and records the
    largest process then (``killed``).
    """

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.pid, self.every = pid, every
        self.peaks: dict[int, tuple[str, float]] = {}  # pid → (command line, MiB)
        self.killed: tuple[str, float] | None = None  # (command line, MiB) of the largest
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.wait(self.every):
            try:
                procs = [psutil.Process(self.pid)]
                procs += procs[0].children(recursive=True)
            except psutil.Error:
                return
            now: list[tuple[float, str]] = []  # (current RSS MiB, command line)
            for proc in procs:
                try:
                    with open(f"/proc/{proc.pid}/status") as status:
                        fields = dict(line.split(":", 1) for line in status if ":" in line)
                    hwm = int(fields["VmHWM"].split()[0]) / 1024
                    rss = int(fields["VmRSS"].split()[0]) / 1024
                    cmd = " ".join(proc.cmdline())
                except (OSError, KeyError, ValueError, psutil.Error):
                    continue
                now.append((rss, cmd))
                self.peaks[proc.pid] = (cmd, max(hwm, self.peaks.get(proc.pid, ("", 0))[1]))
            available = psutil.virtual_memory().available / 2**20
            if now and (sum(mb for mb, _ in now) > KILL_MB or available < KILL_AVAILABLE_MB):
                mb, cmd = max(now)
                self.killed = (cmd, mb)
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def snakemake_mb(self) -> float:
        """Snakemake's own process."""
        return self.peaks.get(self.pid, ("", 0.0))[1]

    def script_mb(self, script: str) -> float:
        """The largest process running the rule script ``script`` (``datasets.py``...)."""
        return max((mb for cmd, mb in self.peaks.values() if f".{script}" in cmd
                    and ".snakemake/scripts/" in cmd), default=0.0)

    def between_mb(self) -> float:
        """The largest process that is neither Snakemake's nor a rule script's."""
        return max((mb for pid, (cmd, mb) in self.peaks.items() if pid != self.pid
                    and ".snakemake/scripts/" not in cmd), default=0.0)


def run_snakemake(flow: Path, targets: list[str],
                  forcerun: list[str] = ()) -> tuple[str, Watch, float]:
    """Snakemake's output, its process watch and wall time; one job at a time.

    A run the watchdog stopped (:class:`Watch`) returns what it printed so far: the jobs
    it finished are measured, the one it killed is recorded as killed.
    """
    snakemake = str(Path(sys.executable).parent / "snakemake")
    # A job the watchdog killed left its outputs incomplete: rerun it, not refuse.
    cmd = [snakemake, "--cores", "1", "--keep-going", "--rerun-incomplete",
           *(["--forcerun", *forcerun] if forcerun else []), "--", *targets]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=flow, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    watch = Watch(proc.pid)
    output, _ = proc.communicate()
    watch.stop()
    wall = time.monotonic() - start
    if watch.killed:  # Snakemake killed too: its lock on the folder stays
        subprocess.run([snakemake, "--unlock"], cwd=flow, capture_output=True, check=True)
    failed = set(re.findall(r"Error in rule (\w+)", output))
    if proc.returncode and not watch.killed and (not failed or failed - {"datasets_read"}):
        raise SystemExit(f"snakemake exited {proc.returncode}:\n{output[-3000:]}")
    return output, watch, wall


def jobs(output: str) -> list[dict[str, str]]:
    """Snakemake's job blocks (``rule NAME:`` then indented ``key: value`` lines).

    Each gets ``wall``, seconds: from the ``[date]`` line before its block to the one
    before its ``Finished jobid: N`` line (one job at a time; 1 s resolution); absent
    for a job that did not finish.
    """
    found: list[dict[str, str]] = []
    stamp = None
    started: dict[str, float] = {}
    for line in output.splitlines():
        if match := re.fullmatch(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]", line.strip()):
            stamp = time.mktime(time.strptime(match.group(1), "%a %b %d %H:%M:%S %Y"))
        elif match := re.fullmatch(r"(?:local)?rule (\w+):", line.strip()):
            found.append({"rule": match.group(1), "local": str(line.strip().startswith("local"))})
            started[str(len(found) - 1)] = stamp or 0.0
        elif match := re.match(r"Finished jobid: (\d+)", line.strip()):
            for i, job in enumerate(found):
                if job.get("jobid") == match.group(1) and stamp is not None:
                    job.setdefault("wall", f"{stamp - started[str(i)]:.0f}")
        elif found and (match := re.fullmatch(r"\s+(\w+): (.*)", line)):
            found[-1].setdefault(match.group(1), match.group(2))
    return [job for job in found if "log" in job]


def mem_mb(job: dict[str, str]) -> int | None:
    """The ``mem_mb`` of a job's ``resources:`` line; None when it declares none."""
    found = re.search(r"\bmem_mb=(\d+)", job.get("resources", ""))
    return int(found.group(1)) if found else None


def peak_rss_mb(log: Path) -> float | None:
    """The ``peak RSS N MB`` of a job's log; None when it has none (a job that failed)."""
    found = re.findall(r"^peak RSS (\d+) MB$", log.read_text(), re.M)
    return float(found[-1]) if found else None


SCRIPTS = {"aggregate": "aggregate", "html_overview": "html"}
BATCH = "datasets_on_"
"""How the batch rules' names begin (rooflow.workflow.batches.group_name); their script
is datasets.py."""


def points_read(flow: Path, inputs: list[Path]) -> list[Path]:
    """The points files a job reads: its Parquet inputs, and those of the datasets in its
    batch manifests (the aggregates take the manifests as inputs, the points as params)."""
    on_disk = {f"{p.parent.name}-{p.stem}": p
               for p in (flow / "results" / "points").glob("*/*.parquet")}
    read = [p for p in inputs if p.suffix == ".parquet"]
    for manifest in (p for p in inputs if p.suffix == ".json" and p.parent.name == "datasets"):
        read += [on_disk[d] for d in read_manifest(str(manifest)) if d in on_disk]
    return read


def measure(flow: Path, output: str, watch: Watch, scenario: str) -> list[dict]:
    """One row per job of a run: its input, declared and measured memory."""
    rows = []
    for job in jobs(output):
        rule = job["rule"]
        inputs = [p.strip() for p in job.get("input", "").split(",") if p.strip()]
        paths = [flow / p for p in inputs]
        # Its first output; Snakemake marks an update() output "(update)".
        what = job["output"].split(",")[0].strip().removesuffix(" (update)")
        if rule.startswith(BATCH):  # the datasets of its batch (its manifest)
            made = read_manifest(str(flow / what))
            size = f"{len(made)} dataset{'s' if len(made) != 1 else ''}: " + ", ".join(
                sorted(made))[:100]
        else:
            rows_in = sum(jobmemory.points_rows(p) for p in points_read(flow, paths))
            size = f"{rows_in:,} rows"
        log = flow / job["log"].split(",")[0].strip()
        first = log.read_text().partition("\n")[0] if log.exists() else ""
        script = "datasets" if rule.startswith(BATCH) else SCRIPTS.get(rule, rule)
        logged = peak_rss_mb(log) if log.exists() else None
        own = logged if logged is not None else watch.script_mb(script)
        note = first if first.startswith("rooflow: error") else ""
        if logged is None and watch.killed and f".{script}" in watch.killed[0]:
            note = f"killed past {KILL_MB // 1024} GB"
        rows.append({"scenario": scenario, "job": rule, "output": what, "input": size,
                     "declared": mem_mb(job), "job_mb": own, "wall": job.get("wall", ""),
                     "measured": own + watch.snakemake_mb() + watch.between_mb(),
                     "note": note})
    return rows


def shared_flow() -> tuple[Path, list[str]]:
    """The examples and every shared input, one preset, a model check; target: all."""
    flow = OUT / "inputs" / "workflow_memory_shared"
    if flow.exists():
        import shutil

        shutil.rmtree(flow)
    copy_workflow(flow)
    config = flow / "config" / "config.yaml"
    settings = yaml.safe_load(config.read_text())
    settings["presets"] = [PRESET]
    settings["model_checks"] = {"dgemm": {"measured": "ncu-a100_dgemm_triad_hgemm",
                                          "model": "roofline-flash_attention",
                                          "map": {"^dgemm": "fa-72-2k"}}}
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    _place(SHARED_DATA, flow / "resources")
    return flow, []


def big_inputs(flow: Path) -> Path:
    """The three roofline CSVs in ``flow``'s resources/roofline/; the Parquet's path."""
    folder = flow / "resources" / "roofline"
    big = points_frame(ROWS["big"])
    points_frame(ROWS["small"]).write_csv(folder / "small.csv")
    big.write_csv(folder / "big.csv")
    big.with_columns(tflops=pl.when(pl.int_range(pl.len()) == BAD_ROW - 1).then(-2.0)
                     .otherwise(pl.col("tflops"))).write_csv(folder / "quoted_bad.csv",
                                                              quote_style="always")
    big.write_parquet(flow / "big.parquet")  # placed after the first run (below)
    return flow / "big.parquet"


BIG_RULES = ("datasets", "aggregate", "html_overview", "compare", "project", "history",
             "model_check", "summary", "datasets_read")
"""The big copy's rules ``--rules`` chooses from (their jobs run with those they need)."""


def big_targets() -> dict[str, list[str]]:
    """The big copy's targets, by the rule that makes them."""
    return {"datasets": [f"results/points/roofline/{name}.parquet" for name in ROWS]
            + [f"results/tables/{PRESET}/roofline-{name}.csv" for name in ("small", "big")],
            "aggregate": [f"results/tables/{PRESET}/all.csv"],
            "html_overview": [f"results/html/{PRESET}/all.html"],
            "compare": [f"results/compare/{PRESET}/scale.csv"],
            "project": ["results/project/scale.csv"], "history": ["results/history/scale.csv"],
            "model_check": [f"results/model/{PRESET}/scale.csv"],
            "summary": ["results/summary.md"], "datasets_read": ["results/datasets_read.txt"]}


def big_flow(rules: list[str] | None = None, reuse: bool = False) -> tuple[Path, list[str]]:
    """The 10⁷-row copy and its targets (the Parquet dataset's job runs after these).

    ``rules``: only their targets (default: all but ``summary`` and ``datasets_read``);
    ``reuse``: keep the copy of an earlier run, its inputs and results.
    """
    targets = big_targets()
    chosen = rules or [r for r in BIG_RULES if r not in ("summary", "datasets_read")]
    files = [f for rule in chosen for f in targets[rule]]
    flow = OUT / "inputs" / "workflow_memory"
    if reuse and (flow / "resources" / "roofline" / "big.csv").exists():
        import shutil

        shutil.copytree(REPO / "workflow", flow / "workflow", dirs_exist_ok=True)  # today's
        return flow, files
    flow = workflow_copy(flow, 0)
    config = flow / "config" / "config.yaml"
    settings = yaml.safe_load(config.read_text())
    settings["comparisons"] = {"scale": {"baseline": "roofline-small",
                                         "new": "roofline-big"}}
    settings["projections"] = {"scale": {"dataset": "roofline-big",
                                         "presets": [PRESET, "mi300x"]}}
    settings["history"] = {"scale": {"runs": ["roofline-small", "roofline-big"],
                                     "preset": PRESET}}
    settings["model_checks"] = {"scale": {"measured": "roofline-big",
                                          "model": "roofline-small",
                                          "map": {"^shape-p1$": "shape-p1"},
                                          "presets": [PRESET]}}
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    big_inputs(flow)
    return flow, files


def run_scenario(scenario: str, rules: list[str] | None = None,
                 reuse: bool = False) -> tuple[list[dict], str]:
    """The rows of one copy's jobs, and its line for the report.

    ``rules``, ``reuse``: the big copy's (:func:`big_flow`); a reused copy's chosen rules
    are run again (``--forcerun``).
    """
    flow, targets = shared_flow() if scenario == "shared" else big_flow(rules, reuse)
    forcerun = list(rules or []) if reuse and scenario == "big" else []
    output, watch, wall = run_snakemake(flow, targets, forcerun)
    (OUT / f"memory-{scenario}-snakemake.log").write_text(output)  # the job blocks measured
    rows = measure(flow, output, watch, scenario)
    note = (f"{wall:.0f} s; Snakemake's own process {watch.snakemake_mb():.0f} MB, "
            f"the largest between it and a script {watch.between_mb():.0f} MB")
    if rules:
        note += f"; the jobs of {', '.join(rules)} and those they need"
    if watch.killed:
        note += (f"; stopped by the watchdog past {KILL_MB // 1024} GB: "
                 f"{watch.killed[1]:.0f} MB in `{watch.killed[0][-80:]}`")
    elif scenario == "big" and (not rules or "datasets" in rules):  # the Parquet form, alone
        (flow / "big.parquet").rename(flow / "resources" / "roofline" / "parquet.parquet")
        output, watch, wall = run_snakemake(flow, ["results/points/roofline/parquet.parquet"])
        rows += measure(flow, output, watch, scenario)
        note += f"; the Parquet run {wall:.0f} s, Snakemake {watch.snakemake_mb():.0f} MB"
    return rows, note


def report(rows: list[dict], note: str, scenario: str) -> str:
    """The Markdown section of one copy."""
    lines = [f"## {scenario}", "", f"Machine: {machine()}; snakemake --cores 1; {note}.", "",
             *table_head("job", "output", "input", "declared mem_mb", "job alone (MB)",
                         "measured (MB)", "measured / declared", "wall (s)", "error recorded")]
    for r in sorted(rows, key=lambda r: (r["job"], r["output"])):
        declared = r["declared"]
        over = "> " if r["note"].startswith("killed") else ""  # a lower bound: still growing
        ratio = f"{over}{r['measured'] / declared:.2f}" if declared else "local (none)"
        error = f"`{r['note'][:120]}`" if r["note"] else ""
        lines.append(f"| {r['job']} | {r['output']} | {r['input']} | {declared or ''} | "
                     f"{over}{r['job_mb']:.0f} | {over}{r['measured']:.0f} | {ratio} | "
                     f"{r['wall']} | {error} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=SCENARIOS, action="append")
    parser.add_argument("--rules", choices=BIG_RULES, nargs="+",
                        help="the big copy: only these rules' jobs (and those they need); "
                             "summary and datasets_read run only when named")
    parser.add_argument("--reuse", action="store_true",
                        help="the big copy: keep an earlier run's copy, run --rules again")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    over = []
    for scenario in args.only or SCENARIOS:
        rows, note = run_scenario(scenario, args.rules, args.reuse)
        (OUT / f"memory-{scenario}.md").write_text(report(rows, note, scenario))
        over += [r for r in rows if r["declared"] and r["measured"] > r["declared"]]
    text = "\n".join((OUT / f"memory-{s}.md").read_text() for s in SCENARIOS
                     if (OUT / f"memory-{s}.md").exists())
    (OUT / "memory.md").write_text(text)
    print(text)
    for r in over:
        print(f"over: {r['job']} {r['output']}: {r['measured']:.0f} MB measured, "
              f"{r['declared']} declared", file=sys.stderr)
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
