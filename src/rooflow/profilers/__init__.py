"""Profiler adapters: Nsight Compute and rocprof/Omniperf exports → roofline points,
and empirical peak files (Omniperf ``roofline.csv``, ERT ``roofline.json``) → presets."""
