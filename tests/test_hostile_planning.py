"""Files opened at planning are checked before they are opened (issue 32, item 9).

A FIFO beside ncu passes, as a rocprof workload's ``sysinfo.csv`` or as a rocprofv3
``agent_info`` hung ``snakemake -n`` forever at "Building DAG": the GPU of each dataset is
read at planning (:mod:`rooflow.formats.devices`), and those reads opened files without
the checks top-level inputs get.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_copy import copy_workflow, snakemake

CONFIG = "hardware: config/hardware.yaml\nfamilies: config/families.yaml\npresets: {}\n"


def _fifo_tree(res: Path) -> None:
    """A FIFO where planning reads: beside ncu passes, as sysinfo.csv and as agent_info."""
    (res / "ncu/run").mkdir(parents=True)
    (res / "ncu/run/a.csv").write_text('"ID","Kernel Name","Metric Name","Metric Value"\n')
    os.mkfifo(res / "ncu/run/0pass.csv")  # sorted first: the pass read for the GPU
    (res / "rocprof/w").mkdir(parents=True)
    (res / "rocprof/w/pmc_perf.csv").write_text("Dispatch_ID,Kernel_Name\n0,k\n")
    os.mkfifo(res / "rocprof/w/sysinfo.csv")
    (res / "rocprofv3").mkdir()
    (res / "rocprofv3/q_counter_collection.csv").write_text("Agent_Id,Kernel_Name\n1,k\n")
    os.mkfifo(res / "rocprofv3/q_agent_info.csv")


def test_planning_opens_no_fifo(tmp_path):
    # In a child with a time limit: before, Plan blocked forever in open() of a FIFO.
    res = tmp_path / "resources"
    _fifo_tree(res)
    script = ("import json; from rooflow.defaults import config_defaults, plot_defaults; "
              "from rooflow.workflow.planning import Plan; from rooflow.roofs.datasheet import "
              "load_hardware; p = Plan({**config_defaults(), 'plot_defaults': "
              "plot_defaults(), 'presets': ['h100-sxm']}, load_hardware()); "
              "print(json.dumps([sorted(p.datasets), p.gpus, p.warnings]))")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    datasets, gpus, warnings = json.loads(proc.stdout)
    assert datasets == ["ncu-run", "rocprof-w", "rocprofv3-q"] and gpus == {}
    assert warnings == ["skipped 'resources/ncu/run/0pass.csv': not a regular file (a FIFO, "
                        "socket or device)"]


@pytest.mark.workflow
def test_snakemake_dry_run_finishes_beside_fifos(tmp_path):
    work = copy_workflow(tmp_path / "w", resources=False)
    (work / "config/config.yaml").write_text(CONFIG.format("[h100-sxm]"))
    _fifo_tree(work / "resources")
    proc = snakemake(work, "-n", timeout=300)  # subprocess.TimeoutExpired: the old hang
    assert "points" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr

