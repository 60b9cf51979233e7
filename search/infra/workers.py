"""Process pools whose workers end with the process that started them.

A worker deep in a compiled search holds the GIL and reads nothing from its pool
for minutes, so when the parent is killed (SIGKILL, SIGTERM, a closed terminal)
it would solve on for nobody, holding a core that a ``--resume`` then competes
for. On Linux each worker asks the kernel (``prctl(PR_SET_PDEATHSIG)``) to kill
it the moment its parent exits. The parent must be the process that submits the
work, hence ``fork`` or ``spawn`` start methods: ``forkserver`` workers are
children of the fork server, which lives as long as they do. Strictly the signal
follows the *thread* that started the worker, so use a pool from a thread that
outlives it (every caller here uses it from the main thread).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import signal
import sys
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a process gets when its parent exits
START_METHODS = ("fork", "spawn")


def end_with_parent() -> None:
    """Pool initialiser: be killed when the parent process exits (Linux; a no-op elsewhere),
    and leave Ctrl-C to the parent, which stops the workers itself (:meth:`Pool.stop`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Pool(ProcessPoolExecutor):
    """A process pool that, left by an exception (Ctrl-C among them), kills its workers at
    once rather than waiting for the tasks they run and those queued behind them."""

    def stop(self) -> None:
        """Kill the workers and drop the queued tasks; returns at once."""
        # A worker deep in a compiled search reads no message, so it is killed, not asked.
        for process in list((getattr(self, "_processes", None) or {}).values()):
            try:
                process.kill()
            except (OSError, ValueError):  # already gone, or closed
                pass
        self.shutdown(wait=False, cancel_futures=True)

    def __exit__(self, exc_type, exc_value, traceback) -> bool:
        if exc_type is not None:
            self.stop()
            return False
        return super().__exit__(exc_type, exc_value, traceback)


def process_pool(workers: int, start_method: str = "fork") -> Pool:
    """A pool of ``workers`` processes that end with this one. ``fork`` shares what this
    process has loaded (compiled kernels); ``spawn`` starts each from a clean interpreter
    (needed once this process runs threads, e.g. a progress display)."""
    if start_method not in START_METHODS:
        raise ValueError(f"start method must be one of {START_METHODS}, got {start_method!r}")
    context = multiprocessing.get_context(start_method)
    return Pool(workers, mp_context=context, initializer=end_with_parent)
