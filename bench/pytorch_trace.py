"""A synthetic PyTorch profiler trace of N events, for the ``points`` job's memory (issue 32).

Usage: ``python bench/pytorch_trace.py N OUT.json.gz`` (write it outside the repository).

Each step is five events as Kineto writes them (libkineto/src/output_json.cpp): an
``aten::mm`` ``cpu_op`` with Input Dims/Input type/Concrete Inputs, its
``cudaLaunchKernel`` runtime event, the ``kernel`` with its correlation, and the ``ac2g``
flow start and end; operators' shapes cycle through 64 sizes, so the trace has 64 points.
"""

from __future__ import annotations

import gzip
import json
import sys

STEP_EVENTS = 5


def steps(n_events: int):
    """The events, a step at a time, as JSON text (one line each)."""
    for i in range(n_events // STEP_EVENTS):
        ts = i * 10.0
        size = 128 * (1 + i % 64)
        corr = i + 1
        op = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ts,
              "dur": 8.0, "args": {"External id": corr, "Input Dims": [[size, size],
                                                                        [size, size]],
                                   "Input type": ["float", "float"],
                                   "Concrete Inputs": ["", ""]}}
        launch = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                  "tid": 1, "ts": ts + 1, "dur": 2.0, "args": {"correlation": corr}}
        kernel = {"ph": "X", "cat": "kernel", "name": "sgemm_128x128", "pid": 0, "tid": 7,
                  "ts": ts + 4, "dur": 5.0, "args": {"correlation": corr, "device": 0,
                                                     "External id": corr}}
        start = {"ph": "s", "cat": "ac2g", "id": corr, "pid": 1, "tid": 1, "ts": ts + 1}
        end = {"ph": "f", "cat": "ac2g", "id": corr, "pid": 0, "tid": 7, "ts": ts + 4,
               "bp": "e"}
        for ev in (op, launch, kernel, start, end):
            yield json.dumps(ev)


def main(n_events: int, out: str) -> None:
    with gzip.open(out, "wt", compresslevel=6) as fh:
        fh.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 '
                 '80GB HBM3", "totalGlobalMem": 85017755648, "computeMajor": 9, '
                 '"computeMinor": 0, "numSms": 132}], "traceEvents": [\n')
        first = True
        for line in steps(n_events):
            fh.write(line if first else ",\n" + line)
            first = False
        fh.write("\n]}\n")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
