"""rooflow: validated GPU kernel measurements → roofline tables and plots."""

import os

# polars' allocator (jemalloc) keeps freed pages for 0.5–1 s (polars' own setting, which
# a parent process that imported polars passes on); a command that reads 10⁷ rows,
# converts and drops them would hold every intermediate at once (figures: bench/NOTES.md).
# A value the user set is kept. Read when polars is imported.
_POLARS_DEFAULT = "dirty_decay_ms:500,muzzy_decay_ms:1000"
if os.environ.get("_RJEM_MALLOC_CONF", _POLARS_DEFAULT) == _POLARS_DEFAULT:
    os.environ["_RJEM_MALLOC_CONF"] = "dirty_decay_ms:0,muzzy_decay_ms:0"

__version__ = "0.1.0"
