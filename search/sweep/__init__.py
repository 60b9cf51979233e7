"""The exhaustive sweep: every hand class at every kingdom, in chunks written atomically,
on a process pool or a Dask cluster (:mod:`.runner`), its summary and lookup table."""

from __future__ import annotations

from .report import read_summary
from .runner import (
    DEFAULT_CHUNK_SIZE,
    SUMMARY,
    MissingExtraError,
    SweepError,
    SweepSpec,
    chunk_counts,
    open_executor,
    run_sweep,
)

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "SUMMARY",
    "MissingExtraError",
    "SweepError",
    "SweepSpec",
    "chunk_counts",
    "open_executor",
    "read_summary",
    "run_sweep",
]
