import os
import sys
from pathlib import Path

# The rule scripts and this workflow import the installed rooflow package (pip install
# rooflow[workflow], or the conda environment of environment.yml): never a path of
# this checkout, so the workflow also runs as a Snakemake module from another folder.
try:
    from rooflow.workflow.preflight import config_file_error
    from rooflow.cli.program import release_freed_memory
except ImportError as _err:
    sys.exit(
        f"rooflow: error: the workflow needs the rooflow package installed ({_err}): "
        "pip install 'rooflow[workflow]', or see docs/workflow.md"
    )

# The jobs inherit this process's environment: polars' allocator in each of them gives
# freed pages back at once (rooflow.cli.program.release_freed_memory).
release_freed_memory()

# The jobs' conda environment under --sdm conda (a path from rules/), and the checkout it
# installs rooflow from (ROOFLOW_SOURCE, which pip expands in that file).
ROOFLOW_ENV = "../envs/rooflow.yaml"
os.environ.setdefault("ROOFLOW_SOURCE", str(Path(workflow.current_basedir).parents[1]))

# Read before Snakemake's `configfile:` does: one line, not a traceback, if it is not YAML.
if _line := config_file_error("config/config.yaml"):
    sys.exit(_line)
