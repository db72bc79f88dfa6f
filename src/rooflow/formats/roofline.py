"""The roofline CSV's column vocabulary: canonical column names and the aliases users write.

Shared by the content check (:func:`rooflow.formats.sniffing.roofline`) and the reader
(:mod:`rooflow.adapters.roofline`); aliases match case-insensitively.
"""

from __future__ import annotations

ALIASES: dict[str, tuple[str, ...]] = {
    "arithmetic_intensity": (
        "arithmetic_intensity",
        "ai",
        "intensity",
        "flop_per_byte",
        "flops_per_byte",
    ),
    "tflops": ("tflops", "perf", "performance", "throughput"),
    "gflops": ("gflops",),
    "series": ("series", "backend", "kind", "category", "engine"),
    "family": ("family", "group_color", "op", "kernel_family"),
    # The original Xe-Forge script read `name` as a label and `kernel` as a pair id: the
    # kernel's name was lost, and rows of two kernels with one label were one kernel.
    "kernel": ("kernel", "kernel name", "kernel_name", "name"),
    "label": ("label", "shape", "config"),
    "pair": ("pair", "group", "link"),
    "flop": ("flop", "flops", "total_flop", "total_flops"),
    "time_us": ("time_us", "us", "time", "latency_us"),
    "bytes": ("bytes", "bytes_moved", "mem_bytes", "memory_bytes"),
    "level": ("level", "memory_level"),
    "precision": ("precision", "compute_precision"),
    "device": ("device", "gpu"),
    "dims": ("dims",),
}
"""Canonical column → the header names (lower case) that mean it."""
CANONICAL = {alias: name for name, aliases in ALIASES.items() for alias in aliases}
"""Alias → canonical column."""
LEVEL_BYTES_PREFIX = "bytes_"
"""A ``bytes_<level>`` column: the bytes moved at that memory level."""
BASE_UNIT = {"tflops": 1e12, "gflops": 1e9}
"""Factor of a performance column to FLOP/s (a value must stay finite in FLOP/s too)."""
