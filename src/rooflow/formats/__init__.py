"""Vendor file layouts, the layer below the adapters and the roof readers.

What a profiler's files look like and how to read them into tables: content checks that
tell the kinds apart (:mod:`.sniffing`), unit conversion (:mod:`.units`) and Nsight
Compute's export layouts, metric catalogue and passes (:mod:`.ncu`). Both
:mod:`rooflow.adapters` (points) and :mod:`rooflow.roofs` (peaks) use them; nothing here
makes points or roofs.
"""
