"""Property tests: any subset of metrics, any values, shuffled or truncated exports give
points or one InputError, never another exception."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooflow.adapters.ncu.reader import ncu_points
from rooflow.errors import InputError
from rooflow.points import check_points

METRICS = [
    ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst"),
    ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst"),
    ("sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "inst"),
    ("Predicated-On DMUL Thread Instructions Executed Per Cycle", "inst/cycle"),
    ("sm__inst_executed_pipe_tensor.sum", "inst"),
    ("sm__ops_path_tensor_src_fp16_dst_fp32.sum", ""),
    ("sm__ops_path_tensor_src_int8.sum", ""),
    ("dram__bytes.sum", "byte"),
    ("lts__t_bytes.sum", "Mbyte"),
    ("DRAM Bandwidth", "Gbyte/second"),
    ("gpu__time_duration.sum", "usecond"),
    ("sm__cycles_elapsed.avg", "cycle"),
    ("SM Frequency", "cycle/nsecond"),
    ("Block Size", ""),
]
VALUES = st.one_of(
    st.sampled_from(["0", "1", "1,024", "3.00", "nan", "n/a", "", "-1", "x", "1e308",
                     "1e-300", "inf"]),
    st.floats(min_value=0, max_value=1e30, allow_nan=False).map(lambda v: f"{v:,.2f}"),
)
HEADER = ["ID", "Kernel Name", "CC", "Section Name", "Metric Name", "Metric Unit",
          "Metric Value", "Rule Name"]


@st.composite
def exports(draw) -> str:
    chosen = draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=len(METRICS),
                           unique=True))
    rows = []
    for launch in range(draw(st.integers(1, 3))):
        kernel = draw(st.sampled_from(["a", "b"]))
        rows += [[str(launch), kernel, draw(st.sampled_from(["7.0", "8.0", ""])), "s", name,
                  unit, draw(VALUES)] for name, unit in chosen]
    rows = draw(st.permutations(rows))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=draw(st.sampled_from(["\n", "\r\n"])))
    writer.writerow(HEADER)
    writer.writerows(rows)
    text = "==PROF== x\n" + out.getvalue()
    cut = draw(st.integers(0, len(text)))
    return text[:cut] if draw(st.booleans()) else text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=exports(), factor=st.sampled_from([None, {"default": 4096.0}]))
def test_any_export_gives_points_or_input_error(text: str, factor) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "e.csv"
        path.write_text(text, encoding="utf-8")
        try:
            points = ncu_points(path, tensor_flop_per_inst=factor, log=lambda _: None)
        except InputError as err:
            assert "\n" not in str(err)
            return
        check_points(points, str(path))
