"""rocprofv3 dispatches whose timestamps give no time: the time from cycles (issue 19, item 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooflow.adapters.amd.rocprofv3 import DURATION, read_collection
from rooflow.errors import InputError

COUNTERS = {"SQ_INSTS_VALU_FMA_F64": 10, "SQ_INSTS_VALU_ADD_F64": 0, "SQ_INSTS_VALU_MUL_F64": 0,
            "SQ_INSTS_VALU_TRANS_F64": 0, "TCC_BUBBLE_sum": 4, "TCC_EA0_RDREQ_sum": 6,
            "TCC_EA0_RDREQ_32B_sum": 0, "TCC_EA0_WRREQ_sum": 2, "TCC_EA0_WRREQ_64B_sum": 2}
AGENT = ("Node_Id,Logical_Node_Id,Agent_Type,Gfx_Target_Version,Device_Id,Name,Product_Name,"
         "Num_Xcc,Max_Engine_Clk_Fcompute\n0,0,CPU,0,0,EPYC,EPYC,1,0\n"
         "1,1,GPU,90402,29857,gfx942,AMD Instinct MI300X,{xcc},{clock}\n")


def _write(folder: Path, ends: tuple[int, int], cycles: bool = True, xcc: str = "8",
           clock: str = "2100", agent: str | None = AGENT) -> None:
    """Two dispatches (k1, k2), each with COUNTERS and GRBM_GUI_ACTIVE 4,200,000."""
    counters = {**COUNTERS, **({"GRBM_GUI_ACTIVE": 4_200_000} if cycles else {})}
    rows = ["Dispatch_Id,Agent_Id,Kernel_Name,Counter_Name,Counter_Value,Start_Timestamp,"
            "End_Timestamp"]
    for d, end in zip((1, 2), ends, strict=True):
        rows += [f"{d},Agent 1,k{d},{name},{value},100,{end}" for name, value in counters.items()]
    (folder / "run_counter_collection.csv").write_text("\n".join(rows) + "\n")
    info = folder / "run_agent_info.csv"
    if agent is None:
        info.unlink(missing_ok=True)
    else:
        info.write_text(agent.format(xcc=xcc, clock=clock))


def test_equal_timestamps_take_the_time_from_cycles_by_hand(tmp_path: Path) -> None:
    # An MI300X agent (Device_Id 29857, gfx942) of 8 XCCs at 2100 MHz. Dispatch 2 has
    # End = Start, so every dispatch's time comes from its busy cycles, summed over XCCs:
    #   time = GRBM_GUI_ACTIVE / Num_Xcc / Max_Engine_Clk_Fcompute
    #        = 4,200,000 / 8 / 2100 MHz = 525,000 cycles / 2.1 GHz = 250,000 ns
    #   (dispatch 1: its timestamps' 1,000 ns are not mixed with cycle times)
    #   fp64 = 64·2·10 = 1,280 FLOP; HBM = 128·4 + 64·(6 − 2) ... = 768 byte (as
    #   test_amd_formats' rocprofv3 case) → 1,280 FLOP / 250 µs = 5.12 MFLOP/s
    _write(tmp_path, (1100, 100))
    w = read_collection(tmp_path)
    k1, k2 = w.kernels().iter_rows(named=True)
    assert (k1["kernel"], k1["flop"], k1["bytes_dram"]) == ("k1", 1_280, 768)
    assert k1["time_s"] == pytest.approx(250_000e-9) and k2["time_s"] == pytest.approx(250e-6)
    points = w.points("rocprofv3")
    assert points["performance"][0] == pytest.approx(5.12e6)
    (note,) = [n for n in w.notes if "cycles" in n or "GRBM" in n]
    assert "1 of 2 dispatches have End_Timestamp = Start_Timestamp (first: row 11)" in note
    assert "GRBM_GUI_ACTIVE / Num_Xcc 8 / Max_Engine_Clk_Fcompute 2100 MHz" in note
    # One XCC (a CPX partition, or an MI200 GCD): 4,200,000 / 2100 MHz = 2,000,000 ns.
    _write(tmp_path, (100, 100), xcc="1")
    assert read_collection(tmp_path).kernels()["time_s"][0] == pytest.approx(2e-3)
    # Timestamps that give a time are kept as they are: 1,000 ns.
    _write(tmp_path, (1100, 1100))
    w = read_collection(tmp_path)
    assert w.kernels()["time_s"][0] == pytest.approx(1_000e-9)
    assert not any("GRBM" in n for n in w.notes)


@pytest.mark.parametrize(
    ("options", "missing"),
    [
        ({"cycles": False}, "no GRBM_GUI_ACTIVE counter in run_counter_collection.csv"),
        ({"clock": ""}, "no Max_Engine_Clk_Fcompute in run_agent_info.csv"),
        ({"xcc": "0"}, "no Num_Xcc in run_agent_info.csv"),
        ({"agent": None},
         "no run_agent_info.csv beside it (Max_Engine_Clk_Fcompute, Num_Xcc)"),
    ],
)
def test_equal_timestamps_without_cycles_or_clock_is_one_clear_error(
    tmp_path: Path, options: dict, missing: str,
) -> None:
    _write(tmp_path, (1100, 100), **options)
    with pytest.raises(InputError) as err:
        read_collection(tmp_path)
    text = str(err.value)
    assert missing in text and "gives no time" in text and "\n" not in text
    # Dispatch 2's first data row: after dispatch 1's 9 counters (10 with the cycles).
    first = 1 + len(COUNTERS) + options.get("cycles", True)
    assert (err.value.column, err.value.row) == (DURATION, first)
