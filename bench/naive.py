"""Naive baseline for ``make bench``: the csv module and one matplotlib scatter, no checks.

Usage: ``python naive.py POINTS.csv OUT.png`` (columns ai, tflops as bench/generate.py
writes them). Timed beside ``rooflow plot`` so the ratio is measured in the same run.
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
x = [float(r["ai"]) for r in rows]
y = [float(r["tflops"]) for r in rows]
fig, ax = plt.subplots(figsize=(11, 6.5))
ax.scatter(x, y, s=4)
ax.set_xscale("log")
ax.set_yscale("log")
fig.savefig(sys.argv[2], dpi=200)
