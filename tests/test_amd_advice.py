"""AMD refusals name the counters of the file's own GPU and the command that collects them.

HBM counters per architecture (rocprof-compute ``0400_roofline.yaml`` per gfx target and
``derived_counters.xml``, module doc of :mod:`rooflow.adapters.amd.counters`): gfx90a
``TCC_EA_RDREQ_*``/``TCC_EA_WRREQ_*``; gfx942 ``TCC_EA0_*`` with ``TCC_BUBBLE``; gfx950
``TCC_EA0_*`` with the read-size buckets; RDNA GPUs and gfx11xx APUs, which rocprof's
roofline sets give no TCC_EA counters, the derived ``FETCH_SIZE``/``WRITE_SIZE``.
"""

from __future__ import annotations

import pytest

from rooflow.adapters.amd.counters import family, plan
from rooflow.errors import InputError

F64 = ["SQ_INSTS_VALU_ADD_F64", "SQ_INSTS_VALU_MUL_F64", "SQ_INSTS_VALU_TRANS_F64",
       "SQ_INSTS_VALU_FMA_F64"]


def refusal(arch: str, counters: list[str], tool: str = "rocprofv3") -> str:
    with pytest.raises(InputError) as err:
        plan(arch, counters, "run.csv", tool=tool)
    return str(err.value)


@pytest.mark.parametrize(("arch", "own", "foreign"), [
    ("gfx90a", ["TCC_EA_RDREQ_sum", "TCC_EA_RDREQ_32B_sum", "TCC_EA_WRREQ_sum",
                "TCC_EA_WRREQ_64B_sum"], "TCC_EA0_"),
    ("gfx942", ["TCC_BUBBLE_sum", "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum",
                "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum"], "TCC_EA_"),
    ("gfx950", ["TCC_EA0_RDREQ_128B_sum", "TCC_EA0_RDREQ_64B_sum", "TCC_EA0_RDREQ_32B_sum",
                "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum"], "TCC_EA_"),
    ("gfx1100", ["FETCH_SIZE", "WRITE_SIZE"], "TCC_"),
    ("gfx1151", ["FETCH_SIZE", "WRITE_SIZE"], "TCC_"),  # Strix Halo APU
])
def test_no_bytes_names_the_gpus_own_counters(arch: str, own: list[str], foreign: str) -> None:
    text = refusal(arch, F64)
    assert f"collect {arch}'s {' '.join(own)}" in text
    assert f"rocprofv3 --pmc {' '.join(own)}" in text and "--output-format csv -- ./app" in text
    assert foreign not in text


def test_rdna_is_asked_for_no_mfma_nor_cache_counters() -> None:
    text = refusal("gfx1100", [])
    assert "MFMA" not in text and "TCP_" not in text and "SQ_LDS" not in text
    assert "SQ_INSTS_VALU_FMA_F32" in text  # its VALU FLOP counters are asked for
    assert family("gfx1100") == family("gfx1151") == family("gfx1030") == "rdna"
    assert family("gfx90a:sramecc+:xnack-") == "gfx90a" and family("gfx906") is None


def test_incomplete_set_gives_the_missing_ones_and_the_tools_command() -> None:
    l2 = ["TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum"]  # one level complete
    text = refusal("gfx90a", [*F64, *l2, "TCC_EA_RDREQ_sum", "TCC_EA_WRREQ_sum"],
                   tool="rocprofv1")
    assert "collect gfx90a's missing counters" in text
    assert ("rocprof -i input.txt ./app, input.txt holding 'pmc: TCC_EA_RDREQ_32B_sum "
            "TCC_EA_WRREQ_64B_sum'") in text
    text = refusal("gfx942", [*F64, *l2, "TCC_EA0_RDREQ_sum"], tool="rocprof-compute")
    assert "rocprof-compute profile -n NAME -- ./app" in text and "TCC_BUBBLE_sum" in text
