"""Synthetic, deterministic inputs for the benchmarks (``make bench``).

- ``points_<N>.csv``: a roofline CSV (series, label, pair, arithmetic_intensity, tflops,
  precision: the columns of the original Xe-Forge ``roofline.py`` too, which ignores
  precision) with N rows in N/2 Original → Optimized pairs, arithmetic intensity
  log-uniform in 0.1 … 10⁴ FLOP/byte, performance 1–100 % of the roof the benchmarks plot
  on (bench/baseline.py ``ROOF``: min(117 TFLOP/s, AI × 456 GB/s), the original script's
  ``arc-b580`` preset), so no point is above it (a benchmark of plotting, not of the
  above-roof warnings); precision fp16-tensor, stated (no roof is assumed for a point
  without one: it would be drawn unjudged).
- ``workflow_<F>/``: a copy of workflow/, config/ and environment.yml whose resources/
  hold only F small roofline CSVs (``resources/roofline/sweep_<i>.csv``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import polars as pl
import yaml

REPO = Path(__file__).resolve().parents[1]


def points_frame(n: int, seed: int = 0) -> pl.DataFrame:
    """``n`` roofline rows (n even): series, label, pair, arithmetic_intensity, tflops,
    precision."""
    rng = np.random.default_rng(seed)
    pairs = n // 2
    def roof(ai: np.ndarray) -> np.ndarray:  # TFLOP/s
        return np.minimum(117.0, ai * 0.456)

    ai = 10 ** rng.uniform(-1, 4, pairs)
    efficiency = 10 ** rng.uniform(-2, -0.5, pairs)
    ai_opt = ai * 10 ** rng.uniform(-0.3, 0.3, pairs)
    efficiency_opt = np.minimum(efficiency * 10 ** rng.uniform(0, 0.5, pairs), 1.0)
    pair_ids = "p" + pl.Series("pair", np.arange(pairs)).cast(pl.String)
    original = pl.DataFrame({"series": "Original", "pair": pair_ids,
                             "arithmetic_intensity": ai, "tflops": roof(ai) * efficiency})
    optimized = pl.DataFrame({"series": "Optimized", "pair": pair_ids,
                              "arithmetic_intensity": ai_opt,
                              "tflops": roof(ai_opt) * efficiency_opt})
    frame = pl.concat([original, optimized]).with_columns(label="shape-" + pl.col("pair"))
    return frame.select("series", "label", "pair", "arithmetic_intensity", "tflops",
                        precision=pl.lit("fp16-tensor"))


def machine() -> str:
    """This machine in the benchmarks' tables: ``2 cores (nproc), Python 3.11.7``."""
    return f"{len(os.sched_getaffinity(0))} cores (nproc), Python {sys.version.split()[0]}"


def table_head(*columns: str) -> list[str]:
    """The header and rule lines of a Markdown table of ``columns``."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def workflow_copy(dest: Path, files: int) -> Path:
    """A runnable workflow folder with ``files`` 4-row roofline CSVs as its only inputs."""
    if dest.exists():
        shutil.rmtree(dest)
    for sub in ("workflow", "config"):
        shutil.copytree(REPO / sub, dest / sub)
    shutil.copy(REPO / "environment.yml", dest)
    config = dest / "config" / "config.yaml"  # the examples' entries name absent datasets
    settings = yaml.safe_load(config.read_text())
    for section in ("comparisons", "model_checks", "projections", "history"):  # name the examples
        settings.pop(section, None)
    settings["datasets"] = {}
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    roofline = dest / "resources" / "roofline"
    roofline.mkdir(parents=True)
    for sub in ("specs", "benchmarks"):  # rules glob these folders; empty is fine
        (dest / "resources" / sub).mkdir()
    text = "series,label,pair,ai,tflops,precision\n" + "".join(
        f"{s},k{j},p{j},{10 * (j + 1)},{t},fp16-tensor\n" for j in range(2)
        for s, t in (("Original", 5), ("Optimized", 9)))
    for i in range(files):
        (roofline / f"sweep_{i:04d}.csv").write_text(text)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "results/benchmarks/inputs")
    parser.add_argument("--points", type=int, nargs="*", default=[2, 1_000, 100_000, 1_000_000])
    parser.add_argument("--files", type=int, nargs="*", default=[10, 100, 1000])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for n in args.points:
        path = args.out / f"points_{n}.csv"
        if not path.exists():
            points_frame(n).write_csv(path)
    for f in args.files:
        workflow_copy(args.out / f"workflow_{f}", f)


if __name__ == "__main__":
    main()
