"""Property-based tests: any roofline CSV gives correct points or one clear error line.

Bounded example counts keep `make test` fast.
"""

from __future__ import annotations

import csv
import io
import math
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooflow.errors import InputError
from rooflow.roofline_csv import read_roofline_csv

cells = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["", "nan", "inf", "-0", "1e400", "abc", " 3 ", "1,5", "\"q\""]),
    st.text(max_size=6),
)
headers = st.lists(
    st.sampled_from(["ai", "tflops", "gflops", "series", "label", "flop", "bytes", "time_us",
                     "pair", "family", "level", "intensity", "bytes_l2", "extra"]),
    min_size=1, max_size=6, unique=True,
)


@st.composite
def roofline_csvs(draw):
    header = draw(headers)
    rows = draw(st.lists(st.lists(cells, min_size=len(header), max_size=len(header)),
                         min_size=0, max_size=6))
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


# ROOFLOW_HYPOTHESIS_EXAMPLES raises the count for a longer local search.
EXAMPLES = int(os.environ.get("ROOFLOW_HYPOTHESIS_EXAMPLES", "150"))


@settings(
    max_examples=EXAMPLES, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=roofline_csvs())
def test_any_csv_gives_valid_points_or_one_line_error(tmp_path, text):
    path = tmp_path / "p.csv"
    path.write_text(text, encoding="utf-8")
    try:
        pts = read_roofline_csv(path)
    except InputError as err:
        message = str(err)
        assert str(path) in message and "\n" not in message
        return
    for ai in pts["arithmetic_intensity"]:
        assert ai is not None and math.isfinite(ai) and ai > 0
    for perf in pts["flop_per_s"]:
        assert perf is None or (math.isfinite(perf) and perf > 0)
