"""Kind ``pytorch``: PyTorch profiler traces → operator-level roofline points.

:mod:`.reader` reads them, :mod:`.sniff` tells them apart from other inputs (kept apart, so
kind detection imports no reader), :mod:`.extras` adds the trace's GPU time coverage to
the outputs.
"""

SERIES = "pytorch"
"""The ``series`` of a trace's points."""
