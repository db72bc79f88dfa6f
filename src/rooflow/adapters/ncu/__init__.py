"""Kind ``ncu``: Nsight Compute exports and reports → canonical points.

:mod:`.reader` reads them, :mod:`.sniff` tells them apart from other inputs (kept apart, so
kind detection imports no reader), :mod:`.quantities` holds the formulas.
"""
