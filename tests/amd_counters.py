"""The counters a synthetic AMD workload needs, for the tests that write one."""

from __future__ import annotations

from rooflow.adapters.amd.counters import (
    _HBM,
    _L1,
    _L2,
    _LDS,
    FAMILIES,
    _flop_counters,
    gfx_target,
)


def roofline_counters(arch: str | None) -> list[str]:
    """Counters a full roofline of ``arch`` reads: FLOP (VALU, MFMA) and HBM, L2, L1, LDS.

    Integer and FP8/FP6 counters are optional and not listed; None → gfx950's set.
    """
    family = FAMILIES.get(gfx_target(arch) or "") if arch else None
    return [*_flop_counters(family), *_HBM[family][0].weights, *_L2.weights, *_L1.weights,
            *_LDS.weights]
