"""AMD: the FETCH_SIZE fallback's note per architecture; partitions judged on their share."""

from __future__ import annotations

from rooflow.adapters.amd.counters import plan

FETCH = ["FETCH_SIZE", "WRITE_SIZE"]


def test_fetch_size_fallback_says_how_it_miscounts_per_architecture():
    # gfx942: ROCm/rocprofiler counts a non-32-byte read as 64 B, rocprofiler-sdk @8ab1ed78 as
    # 128 B (derived_counters.xml gfx940 block; counter_defs.yaml): a 128-byte read is
    # undercounted by the first, a 64-byte one overcounted by the second.
    notes = " ".join(plan("gfx942", FETCH, "x.csv").notes)
    assert "FETCH_SIZE" in notes and "undercounted" in notes and "overcounted" in notes
    # gfx950: FETCH_SIZE is the gfx942 TCC_BUBBLE formula (rocm-systems @1b1610fc), not its
    # 32/64/128-byte read buckets: undercounted.
    notes = " ".join(plan("gfx950", FETCH, "x.csv").notes)
    assert "gfx942 TCC_BUBBLE formula" in notes and "undercounted" in notes
    # gfx90a: FETCH_SIZE is its own TCC_EA formula, exact: no note about it.
    assert not any("FETCH_SIZE" in n for n in plan("gfx90a", FETCH, "x.csv").notes)
