"""Presets of AMD Instinct compute partitions: a partition's share of its GPU's roofs.

An MI300-class GPU can run as several devices (compute partitions: DPX, TPX, QPX, CPX),
each a whole number of its XCDs (:data:`rooflow.formats.devices.SPX_XCDS`, rocprof-compute
``mi_gpu_spec.yaml``). A profile from one (sysinfo ``compute_partition``, or fewer XCDs in
sysinfo ``num_xcd`` / agent_info ``Num_Xcc``, :func:`rooflow.formats.devices.partition_names`)
is judged on the partition's preset, ``<preset>-<mode>`` (``mi300x-cpx``), never the whole
GPU's. The rule, per roof:

- **compute**: × XCDs of the partition / XCDs of the GPU. Every XCD has the same CUs (MI300X
  8 × 38, MI300A 6 × 38, MI350X/MI355X 8 × 32: CDNA 3 white paper; rocprof-compute
  ``mi_gpu_spec.yaml``) and the compute roofs are CUs × FLOP/clk × clock: MI300X CPX
  fp32 per instruction 38 × 128 × 2.1 GHz = 10.2 TFLOP/s = 81.7 / 8.
- **L2**: × the same share: each XCD has its own L2 (CDNA 3 white paper: 4 MB and 2 KB/clk
  per XCD, 34.4 TB/s for 8).
- **HBM**: the memory partition (NPS mode) decides. With one memory partition per compute
  partition (``<preset>-<mode>-nps<N>``: MI300X/MI325X QPX in NPS4, MI350X/MI355X DPX in
  NPS2), each partition owns 1/N of the stacks: HBM × 1/N ("Deep dive into the MI300 compute
  and memory partition modes", rocm.blogs.amd.com: NPS4 gives each quadrant's XCDs its two
  HBM stacks). Otherwise (NPS1: memory interleaved over all stacks and shared by every
  partition; CPX in NPS4: two partitions share a quadrant) the partition's share is not
  determinable: the preset keeps the whole GPU's HBM roof as an upper bound, and every point
  judged on it says so in ``roof_note`` (:attr:`~rooflow.roofs.preset.Preset.roof_notes`).

Memory partitions with one per compute partition (:data:`ALIGNED_NPS`): MI300X and MI325X
offer NPS1 and NPS4, MI350X and MI355X NPS1 and NPS2 (AMD GPU partitioning guides,
instinct.docs.amd.com; "DPX + NPS2"); MI300A NPS1 only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from rooflow.formats.devices import PARTITION_MODES, SPX_XCDS, mode_partitions
from rooflow.levels import canonical_level
from rooflow.roofs.preset import Preset

ALIGNED_NPS = {"MI300X": 4, "MI325X": 4, "MI350X": 2, "MI355X": 2}
"""GPU → the NPS mode whose memory partitions match its compute partitions one to one."""

PER_XCD_LEVELS = ("L2", "L1", "LDS")
"""Memory levels each XCD (L2) or CU (vL1D, LDS) has its own of: scaled with the XCDs.
DRAM follows the NPS rule; any other level (a shared cache) is kept whole, with a note."""


def partition_chip(preset: Preset) -> str | None:
    """The GPU of :data:`PARTITION_MODES` that ``preset`` is, by its ``devices``, or None."""
    if preset.empirical:
        return None
    return next((chip for name in preset.devices
                 if (chip := name.upper().split("_")[0]) in PARTITION_MODES), None)


def partition_presets(presets: Mapping[str, Preset]) -> dict[str, Preset]:
    """The partition presets of every partitionable GPU in ``presets`` (module doc).

    Keys ``<preset>-<mode>`` (``mi300x-cpx``) and, where a memory partition matches each
    compute partition, ``<preset>-<mode>-nps<N>``; a key ``presets`` already has is left
    to it. Each lists the names :func:`rooflow.formats.devices.partition_names` gives a
    profile of that partition (``MI300X CPX``, ``MI300X QPX NPS4``).
    """
    out: dict[str, Preset] = {}
    for key, preset in presets.items():
        chip = partition_chip(preset)
        if chip is None:
            continue
        for mode in PARTITION_MODES[chip]:
            parts = mode_partitions(chip, mode)
            variants = [None] + ([parts] if ALIGNED_NPS.get(chip) == parts else [])
            for nps in variants:
                name = f"{key}-{mode.lower()}" + (f"-nps{nps}" if nps else "")
                if name not in presets:
                    out[name] = partition_preset(preset, chip, mode, nps)
    return out


def partition_preset(preset: Preset, chip: str, mode: str, nps: int | None = None) -> Preset:
    """``preset``'s share for one ``mode`` partition of ``chip`` (module doc).

    ``nps``: the memory partitions when they match the compute partitions one to one (HBM
    × 1/``nps``), else None (the whole GPU's HBM, an upper bound said in ``roof_notes``).
    """
    spx = SPX_XCDS[chip]
    parts = mode_partitions(chip, mode)
    xcds = spx // parts
    share = xcds / spx
    memory, notes = {}, {}
    for level, value in preset.memory.items():
        if canonical_level(level) in PER_XCD_LEVELS:
            memory[level] = value * share
        elif canonical_level(level) == "DRAM" and nps:
            memory[level] = value / nps
        else:
            memory[level] = value
            notes[level] = (f"{level} roof is the whole {chip}'s {value / 1e9:g} GB/s, an "
                            f"upper bound: a {mode} partition's share is not determinable "
                            "(shared with the other partitions)")
    hbm = (f"HBM x 1/{nps} (NPS{nps}: one memory partition per compute partition)" if nps
           else "HBM: the whole GPU's, an upper bound (the partition's share is not "
                "determinable: NPS1 interleaves all stacks among all partitions)")
    label = f"{mode}" + (f" NPS{nps}" if nps else "")
    return replace(
        preset,
        key=f"{preset.key}-{mode.lower()}" + (f"-nps{nps}" if nps else ""),
        name=f"{preset.name}, one {label} partition ({xcds} of {spx} XCDs)",
        source=(f"{preset.key}'s roofs x {xcds}/{spx} XCDs ({mode}: {parts} partitions of "
                f"{xcds} XCD{'s' if xcds > 1 else ''}, rocprof-compute mi_gpu_spec.yaml); "
                f"L2 per XCD x {xcds}/{spx}; {hbm}. {preset.key}: {preset.source}"),
        compute={k: v * share for k, v in preset.compute.items()},
        memory=memory,
        sources={**{k: f"{preset.key}'s x {xcds}/{spx}: {v}" for k, v in preset.sources.items()},
                 **notes},
        devices=(f"{chip} {label}",),
        roof_notes=notes,
        overridden=(),
    )
