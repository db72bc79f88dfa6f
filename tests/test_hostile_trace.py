"""PyTorch traces are untrusted JSON (issue 32, item 2).

Each case starts from the shipped trace (resources/pytorch/h100_llama_layer.json: 16
operators, 11 kernels, 9 points) or a small synthetic one, breaks it at test time, and
asserts what the user sees: a wrong type or a negative duration leaves that event out with
one note naming the file and the event (the other events still give points); a truncated
gzip, garbage after the JSON or nesting past the bound is one line naming the file, exit 1,
within bounded memory.
"""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from cli_run import run

from rooflow.adapters.pytorch.reader import pytorch_points

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "resources" / "pytorch" / "h100_llama_layer.json"
DOC = json.loads(EXAMPLE.read_text())
FIRST_OP = next(i for i, e in enumerate(DOC["traceEvents"])
                if e.get("cat") == "cpu_op" and e["args"].get("Input Dims"))
FIRST_KERNEL = next(i for i, e in enumerate(DOC["traceEvents"]) if e.get("cat") == "kernel")
FIRST_LAUNCH = next(i for i, e in enumerate(DOC["traceEvents"])
                    if e.get("cat") == "cuda_runtime")




def _broken(tmp_path: Path, index: int, change) -> Path:
    doc = copy.deepcopy(DOC)
    change(doc["traceEvents"][index])
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    return path


def _set(key, value):
    return lambda ev: ev.__setitem__(key, value)


def _set_arg(key, value):
    return lambda ev: ev["args"].__setitem__(key, value)


# (event, change, the note's words): one per field the reader keeps.
WRONG_TYPES = {
    "op dur a string": (FIRST_OP, _set("dur", "10"), "'dur' not a number of µs"),
    "op args a list": (FIRST_OP, _set("args", [1, 2]), "'args' not an object"),
    "op pid a list": (FIRST_OP, _set("pid", [1]), "'pid' not a string or number"),
    "op tid an object": (FIRST_OP, _set("tid", {"a": 1}), "'tid' not a string or number"),
    "op name an integer": (FIRST_OP, _set("name", 7), "'name' not a string"),
    "op ts a string": (FIRST_OP, _set("ts", "0"), "'ts' not a number of µs"),
    "op dims strings": (FIRST_OP, _set_arg("Input Dims", [["4", "4"]]),
                        "'args.Input Dims' not lists of numbers ≥ 0"),
    "op dims negative": (FIRST_OP, _set_arg("Input Dims", [[-4, 4]]),
                         "'args.Input Dims' not lists of numbers ≥ 0"),
    "op types numbers": (FIRST_OP, _set_arg("Input type", [1, 2]),
                         "'args.Input type' not a list of strings"),
    "op external id a list": (FIRST_OP, _set_arg("External id", [1]),
                              "'External id' not a string or number"),
    "kernel dur a list": (FIRST_KERNEL, _set("dur", [3]), "'dur' not a number of µs"),
    "kernel name an integer": (FIRST_KERNEL, _set("name", 5), "'name' not a string"),
    "kernel correlation an object": (FIRST_KERNEL, _set_arg("correlation", {"x": 1}),
                                     "'correlation' not a string or number"),
    "kernel device a list": (FIRST_KERNEL, _set_arg("device", [0]),
                             "'device' not a string or number"),
    "launch correlation a list": (FIRST_LAUNCH, _set_arg("correlation", [1]),
                                  "'correlation' not a string or number"),
    "launch pid a list": (FIRST_LAUNCH, _set("pid", [1]), "'pid' not a string or number"),
}


@pytest.mark.parametrize("case", list(WRONG_TYPES))
def test_a_wrong_type_leaves_out_its_event_with_one_note(tmp_path, case):
    index, change, words = WRONG_TYPES[case]
    path = _broken(tmp_path, index, change)
    said: list[str] = []
    points = pytorch_points(path, log=said.append)
    notes = [line for line in said if "skipped" in line]
    # One note: the file, the check, and the event (1-based index in traceEvents).
    assert len(notes) == 1, said
    assert notes[0].startswith(f"{path}: 1 event skipped, {words}: first event {index + 1}")
    assert points.height >= 7  # the other operators still give points (9 from the intact)


def test_wrong_types_through_the_command_line(capsys, tmp_path):
    path = _broken(tmp_path, FIRST_KERNEL, _set("dur", "fast"))
    code, lines = run(capsys, "table", path, "--hardware", "h100-sxm", "-o",
                      tmp_path / "t.csv")
    assert code == 0, lines
    assert any(f"first event {FIRST_KERNEL + 1}" in line and "'dur'" in line
               for line in lines), lines


def test_hostile_device_properties_are_ignored(tmp_path):
    doc = copy.deepcopy(DOC)
    doc["deviceProperties"] = [{"id": [0], "name": "x"}, {"id": 0, "name": "",
                                                         "totalGlobalMem": "lots"}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    points = pytorch_points(path, log=lambda _: None)
    assert set(points["device"]) == {"unnamed GPU (compute None.None, None SMs, 0 GiB)"}


def _negative(tmp_path: Path) -> Path:
    """One aten::mm (4×4 by 4×4, fp32) launching two kernels: 10 µs and -5 µs."""
    args = {"External id": 1, "Input Dims": [[4, 4], [4, 4]], "Input type": ["float", "float"]}
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0,
         "dur": 100, "args": args},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
         "ts": 10, "dur": 1, "args": {"correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 10,
         "args": {"correlation": 7, "device": 0}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
         "ts": 12, "dur": 1, "args": {"correlation": 8}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 40, "dur": -5,
         "args": {"correlation": 8, "device": 0}},
    ]
    path = tmp_path / "neg.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def test_a_negative_duration_is_refused_per_event(tmp_path):
    path = _negative(tmp_path)
    said: list[str] = []
    points = pytorch_points(path, log=said.append)
    # The 10 µs kernel alone: time_s = 10e-6 s (it was 10 - 5 = 5e-6 s, and shares of the
    # GPU time over 100 %). FLOP of a 4×4 by 4×4 mm: 2·M·N·K = 2·4·4·4 = 128.
    assert points["time_s"].to_list() == [pytest.approx(10e-6)]
    assert points["flop"].to_list() == [128]
    assert any(line == f"{path}: 1 event skipped, 'dur' a negative duration: first event 5 "
               "('gemm'): dur = -5" for line in said), said
    (share,) = [line for line in said if "GPU time" in line]
    assert "modelled 100.0 %" in share, share


@pytest.mark.parametrize("cut", ["gzip cut short", "gzip cut in its head", "garbage tail",
                                 "garbage tail gzip", "not gzip after the magic"])
def test_a_broken_file_is_one_line_naming_it(capsys, tmp_path, cut):
    raw = EXAMPLE.read_bytes()
    data = {
        "gzip cut short": gzip.compress(raw)[:-200],
        "gzip cut in its head": gzip.compress(raw)[:40],
        "garbage tail": raw + b"\x00garbage",
        "garbage tail gzip": gzip.compress(raw + b"]]]}"),
        "not gzip after the magic": b"\x1f\x8b" + b"\xff" * 200,
    }[cut]
    path = tmp_path / ("t.json.gz" if data[:2] == b"\x1f\x8b" else "t.json")
    path.write_bytes(data)
    code, lines = run(capsys, "table", path, "--kind", "pytorch", "--hardware", "h100-sxm",
                      "-o", tmp_path / "t.csv")
    assert code == 1, lines
    assert len(lines) == 1 and lines[0].startswith(f"rooflow: error: {path}"), lines
    assert not (tmp_path / "t.csv").exists()


_DEEP = """
import resource, sys
from pathlib import Path
from rooflow.errors import InputError
from rooflow.adapters.pytorch.trace import read_trace
try:
    read_trace(Path(sys.argv[1]))
except InputError as err:
    print(err)
with open("/proc/self/status") as status:
    print(next(int(l.split()[1]) // 1024 for l in status if l.startswith("VmHWM:")))
"""


@pytest.mark.parametrize("where", ["traceEvents", "an event's args", "deviceProperties"])
def test_deep_nesting_is_refused_in_bounded_memory(tmp_path, where):
    """128 KB of ``[`` took 10.3 GB and 17 s (ijson's prefixes grow with the depth)."""
    deep = b"[" * 131_072 + b"]" * 131_072
    data = {
        "traceEvents": b'{"traceEvents": ' + deep + b"}",
        "an event's args": b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "args": '
                           + deep + b"}]}",
        "deviceProperties": b'{"deviceProperties": ' + deep + b', "traceEvents": []}',
    }[where]
    path = tmp_path / "deep.json"
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-c", _DEEP, str(path)], capture_output=True,
                          text=True, timeout=120)
    line, peak_mb = done.stdout.splitlines()
    assert line.startswith(f"{path}") and "JSON nested deeper than 64 levels" in line
    # The interpreter with rooflow, ijson and polars imported is ~100 MB; the parser's
    # prefixes are bounded by the 2 KiB buffer (≈ 11 MB, see trace._BUF).
    assert int(peak_mb) < 400, peak_mb


def test_the_shipped_trace_is_unchanged_by_the_checks():
    said: list[str] = []
    points = pytorch_points(EXAMPLE, log=said.append)
    assert points.height == 9
    assert not any("skipped" in line for line in said)
    assert points.filter(pl.col("time_s") <= 0).height == 0


def test_a_gzipped_trace_declares_memory_by_its_uncompressed_bytes(tmp_path):
    """A trace's reader holds its events, not its gzip stream: a 10⁷-event trace of 86 MB
    gzip'd declared 1000 + 4.5 × 86 ≈ 1,400 MB and took more (bench/NOTES.md)."""
    from rooflow.workflow.jobmemory import file_bytes, input_bytes, points_mem_mb

    raw = EXAMPLE.read_bytes() * 200  # 22,473 B × 200 = 4,494,600 B of JSON text
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(raw))
    assert gz.stat().st_size < 200_000  # it compresses well over 20:1
    assert file_bytes(gz) == input_bytes([gz]) == 4_494_600
    # 1000 + 2.2 × 4,494,600 / 2²⁰ = 1000 + 2.2 × 4.286 = 1009.4 → 1100 MB
    assert points_mem_mb(input_bytes([gz]), "pytorch") == 1100
    # 10⁷ events of bench/pytorch_trace.py: 1,462,903,011 B of JSON (86,200,847 gzip'd)
    # = 1395.1 MB → 1000 + 2.2 × 1395.1 = 4069.3 → 4100 MB (it was 1000 + 4.5 × 82.2 =
    # 1369.9 → 1400 MB by the gzip'd bytes; its peak RSS is 2,235 MB, bench/NOTES.md).
    assert points_mem_mb(1_462_903_011, "pytorch") == 4100
    assert points_mem_mb(86_200_847) == 1400
    plain = tmp_path / "t.json"
    plain.write_bytes(raw)
    assert file_bytes(plain) == 4_494_600
    # A file that only starts like gzip and is too short for a trailer: its own size.
    stub = tmp_path / "stub.json.gz"
    stub.write_bytes(b"\x1f\x8b\x08")
    assert file_bytes(stub) == 3
