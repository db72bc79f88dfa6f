"""PyTorch 1.8–1.10 traces: the 2021 Kineto categories read as today's (issue 35, item 3).

The events below follow the 2021 writer, pytorch/kineto @ cbae6007
``libkineto/src/output_json.cpp``: ``Operator`` (``External id``, ``Input Dims``),
``Runtime`` (``cbid``, ``correlation``, ``external id``, ``external ts``), ``Kernel``
(``queued``, ``device``, ``context``, ``stream``, ``correlation``, ``external id``), flows
``cat`` ``async`` ``name`` ``launch``, all in integer µs. ../shared/data/pytorch holds no
trace of that era (SOURCES.md: every file there uses ``cpu_op`` / ``kernel``), so the test
is synthetic.
"""

from __future__ import annotations

import json
from pathlib import Path

from rooflow.adapters.pytorch.reader import pytorch_table
from rooflow.adapters.pytorch.trace import link, read_trace

M, K, N = 64, 32, 16
KERNEL_US = 8


def _trace_2021(tmp_path: Path) -> Path:
    op = {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 4242, "tid": 4242,
          "ts": 100, "dur": 20,
          "args": {"Device": 4242, "External id": 5, "Trace name": "PyTorch Profiler",
                   "Trace iteration": 0, "Input Dims": [[M, K], [K, N]],
                   "Input type": ["float", "float"]}}
    launch = {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 4242,
              "tid": 4242, "ts": 105, "dur": 6,
              "args": {"cbid": 211, "correlation": 42, "external id": 5, "external ts": 100}}
    kernel = {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_32x32_sliced1x4_nn",
              "pid": 0, "tid": "stream 7", "ts": 120, "dur": KERNEL_US,
              "args": {"queued": 0, "device": 0, "context": 1, "stream": 7,
                       "correlation": 42, "external id": 5, "registers per thread": 64,
                       "shared memory": 8192, "grid": [1, 2, 1], "block": [128, 1, 1]}}
    flows = [{"ph": "s", "id": 42, "pid": 4242, "tid": 4242, "ts": 105, "cat": "async",
              "name": "launch"},
             {"ph": "f", "id": 42, "pid": 0, "tid": "stream 7", "ts": 120, "cat": "async",
              "name": "launch", "bp": "e"}]
    path = tmp_path / "trace_2021.json"
    path.write_text(json.dumps({"schemaVersion": 1,
                                "traceEvents": [op, launch, kernel, *flows]}))
    return path


def test_2021_categories_and_lower_case_external_id_are_read(tmp_path):
    trace = read_trace(_trace_2021(tmp_path))
    link(trace)
    assert [(o.name, o.ext) for o in trace.ops] == [("aten::mm", 5)]
    assert trace.launches == {42: ((4242, 4242), 105.0)}
    (work,) = trace.work
    # the lower-case "external id" names the operator, and the launch at 105 µs lies in
    # its [100, 120]: linked by id
    assert (work.category, work.ext, work.op, work.method) == ("kernel", 5, 0, "id")


def test_mm_of_a_2021_trace(tmp_path):
    (row,) = pytorch_table(_trace_2021(tmp_path)).operators.iter_rows(named=True)
    # aten::mm A [64, 32] · B [32, 16]: 2·M·N·K = 2·64·16·32 = 65,536 FLOP
    # (operators.yaml "mm", a multiply-add = 2 FLOP); fp32 bytes
    # (M·K + K·N + M·N)·4 = (2,048 + 512 + 1,024)·4 = 14,336
    assert (row["op"], row["flop"], row["bytes"]) == ("aten::mm", 65_536, 14_336)
    # its one kernel ran 8 µs (integer µs): 8e-6 s
    assert row["time_s"] == KERNEL_US * 1e-6
    assert (row["launches"], row["kernels"], row["status"]) == (1, 1, "modelled")


def test_2021_names_give_the_table_of_todays_names(tmp_path):
    old = _trace_2021(tmp_path)
    today = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Kernel": "kernel"}
    doc = json.loads(old.read_text())
    for ev in doc["traceEvents"]:
        ev["cat"] = today.get(ev["cat"], ev["cat"])
        args = ev.get("args", {})
        if "external id" in args:
            args["External id"] = args.pop("external id")
    new = tmp_path / "trace_today.json"
    new.write_text(json.dumps(doc))
    assert pytorch_table(old).operators.equals(pytorch_table(new).operators)


def test_2021_memcpy_and_memset_are_gpu_work(tmp_path):
    # output_json.cpp @ cbae6007 writes them as "Memcpy" / "Memset" with the kernel's ids
    def event(cat: str, name: str, corr: int) -> dict:
        return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": "stream 7", "ts": 1,
                "dur": 2, "args": {"device": 0, "context": 1, "stream": 7,
                                   "correlation": corr, "external id": 9, "bytes": 4096}}
    path = tmp_path / "copies.json"
    path.write_text(json.dumps({"traceEvents": [
        event("Memcpy", "Memcpy HtoD (Pageable -> Device)", 1),
        event("Memset", "Memset (Device)", 2)]}))
    assert [(w.category, w.correlation, w.ext) for w in read_trace(path).work] == [
        ("gpu_memcpy", 1, 9), ("gpu_memset", 2, 9)]
