"""Where the repository's config and schemas are (rooflow is installed editable from it)."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_HARDWARE = REPO_ROOT / "config" / "hardware.yaml"
DEFAULT_FAMILIES = REPO_ROOT / "config" / "families.yaml"
