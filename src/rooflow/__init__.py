"""rooflow: validated GPU kernel measurements → roofline tables and plots."""

import os

# polars' allocator (jemalloc) keeps freed pages for 10 s by default; a command that
# reads 10⁷ rows, converts and drops them would hold every intermediate at once
# (10 M-point plot: 2.4 → 1.4 GB peak RSS). Read when polars is first imported.
os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")

__version__ = "0.1.0"
