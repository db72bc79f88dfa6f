"""AMD profilers: one module per input kind, sharing the counter formulas and checks.

=============  ==========================================  ====================
kind           file                                        module
=============  ==========================================  ====================
``rocprof``    rocprof-compute/Omniperf ``pmc_perf.csv``   :mod:`.rocprof`
``rocprofv1``  rocprof (v1) ``results.csv`` + counter runs  :mod:`.rocprofv1`
``rocprofv3``  rocprofv3 ``*_counter_collection.csv``      :mod:`.rocprofv3`
=============  ==========================================  ====================

:mod:`.counters` holds the FLOP and byte formulas per architecture, :mod:`.kernels` the
per-dispatch checks and the per-kernel breakdown, :mod:`.detect` which of the three a path is.
"""
