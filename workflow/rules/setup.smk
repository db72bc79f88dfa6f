import os
import sys
from pathlib import Path

# Rule scripts and the workflow import rooflow from the workflow's own src/ (first on the
# path, also for the scripts' interpreter), so a conda env needs only the pinned libraries.
SRC = str(Path(workflow.basedir).parent / "src")
sys.path.insert(0, SRC)
_ENV = os.environ  # extended here, never required: not an `envvars:` entry
_ENV.update(PYTHONPATH=os.pathsep.join(filter(None, [SRC, _ENV.get("PYTHONPATH")])))

from rooflow.preflight import config_file_error

# Read before Snakemake's `configfile:` does: one line, not a traceback, if it is not YAML.
if _line := config_file_error("config/config.yaml"):
    sys.exit(_line)
