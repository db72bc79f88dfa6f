"""Nsight Compute ``ncu --csv`` exports: layouts, metric catalogue, passes.

Page layouts in :mod:`.pages`, the metric catalogue in :mod:`.metrics`, several passes of
one run merged in :mod:`.passes`. Achieved work and traffic become points in
:mod:`rooflow.adapters.ncu.reader`; the "Theoretical" peaks of the roofline sections become a
preset in :mod:`rooflow.roofs.ncu`.
"""
