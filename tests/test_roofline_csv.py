"""Roofline CSV adapter: aliases, derivation, levels and one error per failure mode."""

from __future__ import annotations

import math

import pytest

from rooflow.adapters.roofline import read_roofline_csv
from rooflow.errors import InputError


def write(tmp_path, text, name="r.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_example_rows_and_defaults(repo):
    pts = read_roofline_csv(repo / "resources/roofline/flash_attention.csv")
    assert pts.height == 4
    assert pts["series"].to_list() == ["Original", "Optimized", "Original", "Optimized"]
    # 74 TFLOP/s = 7.4e13 FLOP/s
    assert pts["performance"][1] == pytest.approx(7.4e13)
    assert pts["arithmetic_intensity"].to_list() == [900, 900, 1500, 1500]
    assert set(pts["family"]) == {""} and set(pts["level"]) == {"DRAM"}


def test_aliases_bom_case_and_defaults(tmp_path):
    path = write(tmp_path, "\ufeff AI , GFLOPS ,Backend,Name\n10,2500,triton,k1\n20,,triton,k2\n")
    pts = read_roofline_csv(path)
    # gflops / 1000 = tflops: 2500 GFLOP/s = 2.5e12 FLOP/s
    assert pts["performance"][0] == pytest.approx(2.5e12)
    # a row without performance is theoretical: null performance
    assert pts["performance"][1] is None
    assert pts["series"].to_list() == ["triton", "triton"]
    # `name` names the kernel (the original script took it for a label)
    assert pts["kernel"].to_list() == ["k1", "k2"] and pts["label"].to_list() == ["", ""]
    assert pts["family"].to_list() == ["", ""]


def test_derived_from_flop_bytes_time(tmp_path):
    # flop 2e9, bytes 1e8 → AI 20 FLOP/byte; 2e9 FLOP / 100 µs = 2e13 FLOP/s = 20 TFLOP/s
    path = write(tmp_path, "total_flops,bytes_moved,latency_us\n2e9,1e8,100\n")
    pts = read_roofline_csv(path)
    assert pts["arithmetic_intensity"][0] == pytest.approx(20.0)
    assert pts["performance"][0] == pytest.approx(2e13)
    assert pts["time_s"][0] == pytest.approx(1e-4)


def test_bytes_per_level_columns_give_one_point_per_level(tmp_path):
    # flop 1e9: AI L3 = 1e9/1e8 = 10, SLM = 1e9/4e8 = 2.5, DRAM = 1e9/2e7 = 50
    path = write(
        tmp_path, "kernel,flop,bytes_l3,bytes_slm,bytes_dram,gflops\nk,1e9,1e8,4e8,2e7,100\n"
    )
    pts = read_roofline_csv(path)
    got = dict(zip(pts["level"], pts["arithmetic_intensity"], strict=True))
    assert got == {"L3": 10.0, "LDS": 2.5, "DRAM": 50.0}  # SLM is LDS
    # `kernel` names the kernel; its levels are one row's, of one series: no pair
    assert set(pts["kernel"]) == {"k"} and set(pts["pair"]) == {""}


def test_level_column(tmp_path):
    path = write(tmp_path, "name,level,ai,tflops\nk,CARM,1.5,2\nk,dram,9,2\n")
    assert read_roofline_csv(path)["level"].to_list() == ["CARM", "DRAM"]


def test_precision_device_and_level_columns_are_read(tmp_path):
    # Aliases and any case: compute_precision FP32 → fp32, gpu → device, memory_level.
    path = write(tmp_path, "name,ai,tflops,Compute_Precision,GPU,memory_level\n"
                 "sgemm,1000,9.75,FP32,A100, l2\nhgemm,1000,9.75,,A100,hbm\n")
    pts = read_roofline_csv(path)
    assert pts["precision"].to_list() == ["fp32", ""]
    assert pts["device"].to_list() == ["A100", "A100"]
    assert pts["level"].to_list() == ["L2", "DRAM"]


def test_a_row_is_judged_against_the_roof_of_its_precision(tmp_path):
    from rooflow.analysis import analyze
    from rooflow.roofs import load_preset

    # a100-sxm: fp32 19.5 TFLOP/s (A100 datasheet, 2021); HBM 2,039 GB/s. AI 1,000 →
    # memory roof 2,039 TFLOP/s, so compute binds: fp32 9.75 / 19.5 = 50 % of roof. The
    # row without precision meets no roof (not the default fp16-tensor 312, which would
    # say 3.125 %): not judged, and the note says why.
    path = write(tmp_path, "name,ai,tflops,precision\nsgemm,1000,9.75,fp32\nk,1000,9.75,\n")
    table = analyze(read_roofline_csv(path), load_preset("a100-sxm"))
    assert table["compute_roof"].to_list() == [19.5e12, None]
    assert table["pct_of_roof"].to_list() == [pytest.approx(50.0), None]
    assert table["bound"].to_list() == ["compute", None]
    assert table["roof_note"].to_list() == ["", "precision not given"]


@pytest.mark.parametrize("exact", [False, True])
def test_unknown_precision_is_one_line_naming_the_vocabulary(tmp_path, exact):
    from rooflow.points import PRECISIONS

    # exact: a quoted field and an empty last cell send the file to the row-exact reader.
    label = '"a, b"' if exact else "a"
    path = write(tmp_path, f"label,ai,precision,tflops\n{label},10,fp32,\nb,10,float16,1\n")
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    assert (err.value.row, err.value.column, err.value.value) == (2, "precision", "float16")
    message = str(err.value)
    assert "\n" not in message and all(p in message for p in PRECISIONS)


def test_points_csv_round_trip(tmp_path, repo):
    from rooflow.io import write_csv

    pts = read_roofline_csv(repo / "resources/roofline/flash_attention.csv")
    out = tmp_path / "points.csv"
    write_csv(pts, out)
    again = read_roofline_csv(out)
    assert again.drop("source").equals(pts.drop("source"))


def test_points_csv_keeps_every_column_and_reads_bandwidth_only_rows(tmp_path):
    import polars as pl

    from rooflow.io import write_csv
    from rooflow.points import to_points

    # A measured fp8 point (performance 26,113,192,000,000: not round-tripped through
    # TFLOP/s), a bandwidth-only copy (flop 0, no intensity) and a theoretical point.
    pts = to_points(pl.DataFrame({
        "series": ["Optimized", "copy", "spec"], "kernel": ["w8a8", "memcpy", "v"],
        "level": ["DRAM", "L2", "DRAM"], "precision": ["fp8-tensor", "", "bf16-tensor"],
        "precision_mix": ["", "", ""], "flop": [5e10, 0.0, 1e9], "bytes": [8e8, 1e6, 1e7],
        "time_s": [1.9737e-3, 1e-6, None], "arithmetic_intensity": [62.5, None, 100.0],
        "performance": [26_113_192_000_000.0, 0.0, None],
        "bytes_model": ["family", "measured", "inputs-only"], "source": ["bench.csv"] * 3,
        "row": [3, 7, 2], "device": ["NVIDIA H100", "NVIDIA H100", ""]}))
    out = tmp_path / "points.csv"
    write_csv(pts, out)
    assert read_roofline_csv(out).equals(pts)
    text = out.read_text().replace("fp8-tensor", "fp9")
    with pytest.raises(InputError) as err:  # the file's row, not the source's row 3
        read_roofline_csv(write(tmp_path, text, name="bad.csv"))
    assert (err.value.row, err.value.column, err.value.value) == (1, "precision", "fp9")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("series,tflops\na,1\n", "no arithmetic intensity"),  # missing column
        ("ai,tflops\n10,fast\n", "row 1, column 'tflops': not a number"),  # non-numeric
        # Columns and values as written: the header 'ai', not 'arithmetic_intensity'.
        ("ai,tflops\n10,1\n0,1\n", "row 2, column 'ai'"),  # zero
        ("ai,tflops\n10,-3\n", "row 1, column 'tflops'"),  # negative
        ("ai,tflops\nnan,1\n", "column 'ai'"),  # NaN
        ("ai,tflops\n10,inf\n", "column 'tflops'"),  # inf
        ("ai,intensity,tflops\n1,1,1\n", "columns 'ai' and 'intensity' both mean"),  # conflict
        ("ai,tflops\n10\n", "row 1: has 1 fields, header has 2"),  # ragged
        ("", "file is empty"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, text, fragment):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    message = str(err.value)
    assert fragment in message
    assert str(path) in message and "\n" not in message


def test_error_names_offending_value(tmp_path):
    path = write(tmp_path, "ai,tflops\n10,1\n10,-3\n")
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    assert err.value.row == 2 and err.value.column == "tflops"
    assert math.isclose(float(err.value.value), -3.0)


def test_bad_value_in_a_big_file_is_named_with_its_row(tmp_path):
    import polars as pl

    n = 1_000_000
    frame = pl.DataFrame({"ai": pl.repeat(10.0, n, eager=True),
                          "tflops": pl.repeat(1.0, n, eager=True)})
    # data row 987,654 (1-based) is index 987,653
    frame = frame.with_columns(tflops=pl.when(pl.int_range(n) == 987_653).then(-2.0)
                               .otherwise(pl.col("tflops")))
    path = tmp_path / "big.csv"
    frame.write_csv(path)
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    assert err.value.row == 987_654 and err.value.column == "tflops"
    assert float(err.value.value) == -2.0


def test_fast_path_matches_exact_reader(tmp_path):
    from rooflow.adapters.roofline import _from_frame
    from rooflow.validate import read_csv_text

    path = write(tmp_path, "series,label,ai,tflops\nA, k1 ,10,1\nB,k2,20,\n")
    fast = read_roofline_csv(path)
    exact = _from_frame(read_csv_text(path), path, exact=True)
    assert fast.equals(exact)
    assert fast["label"].to_list() == ["k1", "k2"]  # cells stripped as the exact reader does


def test_parquet_inputs(tmp_path, repo):
    import polars as pl

    raw = tmp_path / "raw.parquet"
    pl.DataFrame({"ai": [10.0, 20.0], "tflops": [1.0, 2.0], "series": ["a", "b"]}).write_parquet(
        raw)
    pts = read_roofline_csv(raw)
    assert pts["performance"].to_list() == [1e12, 2e12]  # TFLOP/s × 1e12
    canonical = tmp_path / "points.parquet"
    read_roofline_csv(repo / "resources/roofline/flash_attention.csv").write_parquet(canonical)
    assert read_roofline_csv(canonical).height == 4
    bad = tmp_path / "bad.parquet"
    pl.DataFrame({"ai": [10.0, 0.0], "tflops": [1.0, 2.0]}).write_parquet(bad)
    with pytest.raises(InputError) as err:
        read_roofline_csv(bad)
    assert err.value.row == 2 and err.value.column == "ai"  # as written
    with pytest.raises(InputError, match="not a Parquet file"):
        read_roofline_csv(write(tmp_path, "x", name="junk.parquet"))


def test_parquet_text_columns_read_as_the_csv_reads_them(tmp_path):
    """Precision, family, device and series of a Parquet file (cast to Categoricals as
    read, precision mapped once per distinct value) give what the CSV of the same rows
    gives: precision stripped and lower-cased, a missing one "" (not given)."""
    import polars as pl

    rows = pl.DataFrame({
        "label": ["a", "b", "c", "d"], "ai": [10.0, 20.0, 30.0, 40.0],
        "tflops": [1.0, 2.0, 3.0, 4.0], "series": ["x", "y", "x", "y"],
        "precision": [" FP32", "fp16-Tensor", None, " FP32"],
        "family": ["gemm", "attn", "gemm", None], "gpu": ["A100", "A100", "H100", "A100"]})
    rows.write_parquet(tmp_path / "r.parquet")
    rows.write_csv(tmp_path / "r.csv")
    pts = read_roofline_csv(tmp_path / "r.parquet")
    assert pts["precision"].to_list() == ["fp32", "fp16-tensor", "", "fp32"]
    assert pts["family"].to_list() == ["gemm", "attn", "gemm", ""]
    assert pts["device"].to_list() == ["A100", "A100", "H100", "A100"]
    assert pts.drop("source").equals(read_roofline_csv(tmp_path / "r.csv").drop("source"))


@pytest.mark.parametrize("ai", [10.0, 0.0])
def test_parquet_unknown_precision_names_its_first_row(tmp_path, ai):
    """The first row of an unknown precision, its value lower-cased as judged; ``ai`` 0
    (row 1 out of range) sends the file to the row-exact reader, which reads the text
    columns back as text and names that row first."""
    import polars as pl

    path = tmp_path / "bad.parquet"
    pl.DataFrame({"ai": [ai, 20.0, 30.0, 40.0], "tflops": [1.0, 2.0, 3.0, 4.0],
                  "series": ["x", "y", "x", "y"],
                  "precision": ["fp32", "FP17", "fp32", "fp9"]}).write_parquet(path)
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    want = (1, "ai", 0.0) if ai == 0 else (2, "precision", "fp17")
    assert (err.value.row, err.value.column, err.value.value) == want


class _Seen(list):
    """What the exact reader was given; ``frames``: the height of each streamed frame."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[int] = []


@pytest.fixture
def part_spy(monkeypatch):
    """Records what the exact reader is given: a part's line count, or the records it
    streams ("rows FIRST-LAST", "rows 1-end"), in frames of at most 100 rows.

    The whole file is never read as one text (``rooflow.validate.read_text`` fails the
    test).
    """
    import rooflow.adapters.roofline as rc
    import rooflow.validate

    seen = _Seen()
    real_text, real_batches = rc.read_csv_text, rc.csv_batches

    def text_spy(path, *, text=None):
        seen.append("whole file" if text is None else len(text.splitlines()))
        return real_text(path, text=text)

    def batches_spy(path, *, first=1, last=None):
        seen.append(f"rows {first}-{last or 'end'}")
        for offset, frame in real_batches(path, 100, first=first, last=last):
            seen.frames.append(frame.height)
            yield offset, frame

    def no_whole_file(path, what=""):
        raise AssertionError(f"{path} read whole")

    monkeypatch.setattr(rc, "read_csv_text", text_spy)
    monkeypatch.setattr(rc, "csv_batches", batches_spy)
    monkeypatch.setattr(rooflow.validate, "read_text", no_whole_file)
    monkeypatch.setattr(rc, "PART_ROWS", 10)
    return seen


def _lines(n: int, bad: dict[int, str]) -> str:
    """A roofline CSV of ``n`` data rows "10,1", row r (1-based) replaced by bad[r]."""
    return "ai,tflops\n" + "".join(bad.get(r, "10,1") + "\n" for r in range(1, n + 1))


@pytest.mark.parametrize(("bad", "row", "column", "value"), [
    ({4321: "10,abc"}, 4321, "tflops", "abc"),  # polars cannot parse it
    ({4321: "10,-1"}, 4321, "tflops", "-1"),  # parsed, fails the check
    ({4321: "0,1", 4400: "10,-1"}, 4321, "ai", "0"),  # the first of two, as written
    # A cell that is not a number is named before any value check, as the whole-file
    # reader does (it coerces every column before checking values).
    ({4321: "0,1", 4400: "10,abc"}, 4400, "tflops", "abc"),
    ({4321: "10"}, 4321, None, "10"),  # ragged: one field
])
def test_exact_reader_rereads_only_the_part_from_the_first_bad_row(tmp_path, part_spy, bad,
                                                                   row, column, value):
    path = write(tmp_path, _lines(5000, bad))
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    assert (err.value.row, err.value.column) == (row, column)
    assert str(err.value.value) == value or float(err.value.value) == float(value)
    assert part_spy == [11]  # the header and 10 lines, not the 5,000


def test_blank_lines_above_the_part_are_not_counted(tmp_path, part_spy):
    # Lines 3 and 6 are blank: the exact reader skips them, so line 9's row is the 7th
    # data row. polars reads blank lines as null rows: line 3 is its first suspect row.
    text = _lines(20, {3: "", 6: " , ", 9: "10,-5"})
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    assert err.value.row == 7 and err.value.column == "tflops"
    assert part_spy == [11]  # header + lines 3 … 12


def test_a_part_without_error_falls_back_to_the_whole_file(tmp_path, part_spy):
    path = write(tmp_path, _lines(30, {3: ""}))  # one blank line: points, no error
    points = read_roofline_csv(path)
    assert points.height == 29 and points["row"].to_list() == list(range(1, 30))
    assert part_spy == [11, "rows 1-end"] and part_spy.frames == [29]


def test_quoted_file_is_streamed_from_the_bad_row(tmp_path, part_spy):
    # 5,000 rows, each with a quoted label holding a comma; a newline inside the label of
    # row 2 makes the file's lines one more than its rows. Row 4,321 has tflops -1: the
    # csv module counts 4,320 records to reach it and reads the 10 from there.
    rows = ['"a, b\nc",10,1'] + ['"a, b",10,1'] * 4998
    rows.insert(4320, '"x, y",10,-1')
    path = write(tmp_path, "label,ai,tflops\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError) as err:
        read_roofline_csv(path)
    assert (err.value.row, err.value.column, err.value.value) == (4321, "tflops", "-1")
    assert part_spy == ["rows 4321-4330"] and part_spy.frames == [10]


def test_quoted_file_the_fast_path_cannot_check_is_streamed_whole(tmp_path, part_spy):
    # Row 2's label spans two lines and row 3 has no tflops (a theoretical point): with a
    # quote in the file, the fast path cannot tell an empty last cell from a short row, so
    # the exact reader reads all 250 rows, in frames of 100, 100 and 50, rows counted
    # across them.
    rows = ['"a, b",10,1', '"c\nd",10,1', '"e",10,'] + ['"f, g",10,2'] * 247
    path = write(tmp_path, "label,ai,tflops\n" + "\n".join(rows) + "\n")
    points = read_roofline_csv(path)
    assert part_spy == ["rows 1-end"] and part_spy.frames == [100, 100, 50]
    assert points["row"].to_list() == list(range(1, 251))
    assert points["label"][1] == "c\nd" and points["performance"][2] is None
    assert points["performance"][249] == 2e12  # 2 TFLOP/s


def test_csv_batches_count_data_rows_not_blank_lines_or_line_breaks(tmp_path):
    from rooflow.validate import csv_batches

    # Records after the header: 1 "1,2", 2 blank, 3 "3,4", 4 a label over two lines, 5
    # "6,7". Data rows (blank lines not counted): 1,2 → 1; 3,4 → 2; x/y → 3; 6,7 → 4.
    path = write(tmp_path, 'a,b\n1,2\n\n3,4\n"x\ny",5\n6,7\n')
    got = [(offset, frame.rows()) for offset, frame in csv_batches(path, 2)]
    assert got == [(0, [("1", "2"), ("3", "4")]), (2, [("x\ny", "5"), ("6", "7")])]
    # records 3 … 4: one data row above them (record 1)
    got = [(offset, frame.rows()) for offset, frame in csv_batches(path, 2, first=3, last=4)]
    assert got == [(1, [("3", "4"), ("x\ny", "5")])]


def test_a_file_name_with_glob_characters_is_read_as_it_is(tmp_path):
    # polars expands * ? [ in a path by default: "a[1].csv" would read a1.csv instead.
    (tmp_path / "a1.csv").write_text("ai,tflops\n1,1\n2,2\n")
    named = tmp_path / "a[1].csv"
    named.write_text("ai,tflops\n10,5\n")
    points = read_roofline_csv(named)
    assert points["arithmetic_intensity"].to_list() == [10.0]
    assert points["source"].to_list() == [str(named)]


# --- the headers mean what they say (issue 31, item 9) -----------------------------------


@pytest.mark.parametrize("header", ["kernel", "Kernel Name", "name", "kernel_name"])
def test_kernel_columns_name_the_kernel(tmp_path, header):
    path = write(tmp_path, f"{header},label,ai,tflops\nsgemm_128,M=64,10,2\n")
    pts = read_roofline_csv(path)
    assert (pts["kernel"][0], pts["label"][0], pts["pair"][0]) == ("sgemm_128", "M=64", "")


def test_original_and_optimized_rows_of_one_kernel_pair_up(tmp_path):
    from rooflow.analysis import analyze
    from rooflow.roofs.preset import custom_preset

    # fa at M=64 and M=128, each Original and Optimized; gemm measured twice (one series:
    # repeats, no pair). Pair speedups: fa M=64 8 / 4 = 2, fa M=128 9 / 3 = 3.
    path = write(tmp_path, "kernel,label,series,ai,tflops\n"
                 "fa,M=64,Original,10,4\nfa,M=64,Optimized,10,8\n"
                 "fa,M=128,Original,20,3\nfa,M=128,Optimized,20,9\n"
                 "gemm,,kernel,30,5\ngemm,,kernel,30,6\n")
    pts = read_roofline_csv(path)
    assert pts["pair"].to_list() == ["fa M=64"] * 2 + ["fa M=128"] * 2 + ["", ""]
    table = analyze(pts, custom_preset(100, 1000))
    assert table["pair_speedup"].to_list() == [2.0, 2.0, 3.0, 3.0, None, None]
    # An explicit pair column is taken as written.
    path = write(tmp_path, "kernel,pair,series,ai,tflops\nfa,p1,Original,10,4\n"
                 "fa,p2,Optimized,10,8\n")
    assert read_roofline_csv(path)["pair"].to_list() == ["p1", "p2"]


def test_two_kernels_of_one_label_are_two_kernels_for_the_gate(tmp_path):
    from rooflow.analysis import analyze
    from rooflow.check import check_runs
    from rooflow.roofs.preset import custom_preset

    # Two kernels at one shape (label M=64). Read as the original script's aliases had it
    # (label = name, kernel = pair id), both were kernel "M=64": the gate named neither,
    # and without a pair id to tell them apart pooled them into one kernel of 2 calls.
    csv = "kernel,label,flop,bytes,time_us\nk1,M=64,1e6,1e5,1\nk2,M=64,1e6,1e5,{}\n"
    preset = custom_preset(100, 1000)
    base = analyze(read_roofline_csv(write(tmp_path, csv.format(1), "a.csv")), preset)
    new = analyze(read_roofline_csv(write(tmp_path, csv.format(2), "b.csv")), preset)
    result = check_runs(base, new)
    rows = {r["kernel"]: r for r in result.table.iter_rows(named=True)}
    assert sorted(rows) == ["k1", "k2"]
    assert (rows["k1"]["calls_baseline"], rows["k2"]["calls_new"]) == (1, 1)
    # k2: 2 µs / 1 µs − 1 = 100 % slower: regressed; k1 unchanged
    assert rows["k2"]["slowdown_pct"] == pytest.approx(100.0)
    assert (rows["k1"]["status"], rows["k2"]["status"]) == ("ok", "regressed")


@pytest.mark.parametrize("quoted", [False, True])
def test_an_unknown_column_is_carried_as_a_dim_and_named_in_one_note(tmp_path, caplog,
                                                                      quoted):
    import logging

    # quoted: a quoted cell sends the file to the row-exact reader; the same points.
    label = '"fa, causal"' if quoted else "fa"
    path = write(tmp_path, f"kernel,SeqLen,dims,Seq Len,ai,tflops\n{label},2048,NS=1,x,10,2\n"
                 f"{label},4096,,y,20,3\n{label},n/a,,z,30,4\n")
    with caplog.at_level(logging.WARNING, logger="rooflow.roofline"):
        pts = read_roofline_csv(path)
    # SeqLen's number cells join the dims column's; "n/a" is no number: no SeqLen there.
    assert pts["dims"].cast(str).to_list() == ["NS=1,SeqLen=2048", "SeqLen=4096", ""]
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: not roofline CSV columns: column SeqLen kept in dims where a cell is a "
        "number (a trajectory dim: --trajectory SeqLen); column 'Seq Len' not kept "
        "(no dim name)"]


def test_a_file_of_known_columns_has_no_note(tmp_path, caplog):
    import logging

    with caplog.at_level(logging.WARNING, logger="rooflow.roofline"):
        read_roofline_csv(write(tmp_path, "kernel,ai,tflops\nk,10,2\n"))
    assert caplog.records == []


def test_performance_header_of_a_roofline_csv_is_tflops(tmp_path):
    """``performance`` in a roofline CSV is an alias of ``tflops``, even beside the other
    canonical points' names: 2.5 TFLOP/s = 2.5e12 FLOP/s, not 2.5 FLOP/s. Canonical points
    (``rooflow convert``) also carry ``bytes_model`` and ``source``."""
    path = write(tmp_path, "kernel,arithmetic_intensity,performance,level\ngemm,10,2.5,DRAM\n")
    assert read_roofline_csv(path)["performance"].to_list() == [2.5e12]
