"""Plumbing every layer shares: search budgets, statistics, atomic files, process pools, and the compiled
helpers of the kernels (loaded only when asked for, since they import numba)."""

from __future__ import annotations

from .budget import (
    BudgetExceeded,
    MemoryLimitExceeded,
    TimeLimitExceeded,
    WorkLimitExceeded,
    guard_interrupts,
    interrupt_pending,
    kernel_poll,
    kernel_polls_natively,
    kernel_running,
    memory_limit,
    parse_bytes,
    release,
    reserve,
    reserved_memory,
    set_memory_limit,
    wakeup_fd,
)
from .files import (
    CannotCreateError,
    UnreadableFileError,
    fsync_directory,
    leftover_temp_files,
    read_arrays,
    read_json,
    temp_files_of,
    write_atomically,
    write_temp,
)
from .jitcache import ensure_jit_cache, needs_compile
from .stats import mean_interval, wilson_interval
from .workers import WorkerDied, fork_map, process_pool

# Loaded on first use: these modules import numba, which takes most of a second, or numpy.
_JIT = {"lowbit_index", "monotonic_seconds", "pointer", "popcount", "prefetch", "sigint_in_pipe"}
_RECYCLE = {"POOL", "ArrayPool"}


def __getattr__(name: str):
    """A compiled module's name, or the array pool's, imported when first asked for."""
    if name in _JIT:
        from . import jit

        return getattr(jit, name)
    if name in _RECYCLE:
        from . import recycle

        return getattr(recycle, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "POOL",
    "ArrayPool",
    "BudgetExceeded",
    "CannotCreateError",
    "MemoryLimitExceeded",
    "TimeLimitExceeded",
    "UnreadableFileError",
    "WorkLimitExceeded",
    "WorkerDied",
    "ensure_jit_cache",
    "fork_map",
    "fsync_directory",
    "guard_interrupts",
    "interrupt_pending",
    "kernel_poll",
    "kernel_polls_natively",
    "kernel_running",
    "leftover_temp_files",
    "lowbit_index",
    "mean_interval",
    "memory_limit",
    "monotonic_seconds",
    "needs_compile",
    "parse_bytes",
    "pointer",
    "popcount",
    "prefetch",
    "process_pool",
    "read_arrays",
    "read_json",
    "release",
    "reserve",
    "reserved_memory",
    "set_memory_limit",
    "sigint_in_pipe",
    "temp_files_of",
    "wakeup_fd",
    "wilson_interval",
    "write_atomically",
    "write_temp",
]
