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

from rooflow.adapters.roofline import read_roofline_csv
from rooflow.errors import InputError

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
    for perf in pts["performance"]:
        assert perf is None or (math.isfinite(perf) and perf > 0)


bench_cells = st.one_of(
    st.sampled_from(["2_BatchedMoE", "3_FusedMoE", "Nope", "bench-gpu", "bench-gpu-1", "ci",
                     "E=128,M=64,K=768,N=2048", "E=x", "K=0", "", "nan", "-1", "1e308"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=5),
)


@settings(
    max_examples=EXAMPLES // 2, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(rows=st.lists(st.lists(bench_cells, min_size=6, max_size=6), max_size=4))
def test_any_benchmark_csv_gives_points_or_one_line_error(tmp_path, repo, rows):
    from rooflow.adapters.benchmarks import benchmark_points
    from rooflow.models.families import load_families

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["family", "shape_key", "config", "baseline_us", "triton_us", "tflops"])
    writer.writerows(rows)
    path = tmp_path / "b.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    families = load_families(repo / "config/families.yaml")
    try:
        pts = benchmark_points(path, repo / "resources/specs", families)
    except InputError as err:
        assert str(path) in str(err) and "\n" not in str(err)
        return
    for ai in pts["arithmetic_intensity"]:
        assert math.isfinite(ai) and ai > 0


yaml_scalars = st.one_of(st.integers(-5, 10**20), st.sampled_from(["E*M", "__import__('os')",
                         "2**99", "M*", "x.y", "", "bfloat16", "float8_e4m3fn"]), st.none())


@settings(
    max_examples=EXAMPLES // 2, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(dims=st.dictionaries(st.sampled_from(["M", "N", "K", "E", "QUANT"]), yaml_scalars,
                            max_size=5),
       flop=yaml_scalars, dtype=yaml_scalars)
def test_any_spec_yaml_gives_points_or_one_line_error(tmp_path, repo, dims, flop, dtype):
    import yaml

    from rooflow.adapters.specs import spec_points
    from rooflow.models.families import load_families

    spec = {
        "inputs": {"A": {"shape": ["M", "K"], "dtype": "bfloat16"},
                   "B": {"shape": ["E", "N", "K"], "dtype": dtype}},
        "bench-gpu": [{"params": ["A", "B"], "dims": dims, "flop": flop}],
    }
    path = tmp_path / "9_Custom.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    try:
        pts = spec_points(path, load_families(repo / "config/families.yaml"))
    except InputError as err:
        assert str(path) in str(err) and "\n" not in str(err)
        return
    for ai in pts["arithmetic_intensity"]:
        assert math.isfinite(ai) and ai > 0
