"""Large memo arrays kept after their memo is freed, for the next memo to grow into.

A memo doubles its table as it fills, and every solve starts a fresh memo, so a tour asks for
arrays of the same few sizes again and again. Fresh memory from the system costs page faults
(and, with transparent huge pages, stalls for compaction): measured at 0.1-0.3 s for a
2**22-slot table and its arena, 11% of an advisor's short tour. Refilling an array already
held costs a few milliseconds.

The pool is bounded twice: by its own limit, and by the memory cap of
:mod:`search.infra.budget`, which counts the pool as spare and empties it before a memo
would pass the cap. What a memo computes does not depend on the pool: an array taken from
it is filled exactly as a new one would be.
"""

from __future__ import annotations

import threading

import numpy as np

from . import budget

SMALLEST = 1 << 20  # smaller arrays come cheap from the allocator: not worth holding


class ArrayPool:
    """Arrays given back by freed memos, oldest first, taken again by shape and dtype."""

    def __init__(self, share: float = 0.5) -> None:
        """Hold at most ``share`` of the memory cap."""
        self.share = share
        self._arrays: list[np.ndarray] = []
        self._lock = threading.Lock()
        self.nbytes = 0

    def take(self, shape: tuple[int, ...], dtype, fill) -> np.ndarray:
        """An array of ``shape`` and ``dtype`` filled with ``fill``: a held one if there is one."""
        dtype = np.dtype(dtype)
        with self._lock:
            for index, array in enumerate(self._arrays):
                if array.shape == shape and array.dtype == dtype:
                    del self._arrays[index]
                    self.nbytes -= array.nbytes
                    break
            else:
                array = None
        if array is None:  # zeros come lazily from the system, page by page as the memo fills
            return _allocate(shape, dtype, fill, self)
        array.fill(fill)
        return array

    def give(self, array: np.ndarray) -> None:
        """Keep ``array`` for a later :meth:`take` if it is large and fits, dropping the
        oldest held arrays to make room under the pool's share of the cap."""
        if array.nbytes < SMALLEST or not array.flags.owndata:
            return
        room = min(
            int(self.share * budget.memory_limit()),
            budget.memory_limit() - budget.reserved_memory(),
        )
        if array.nbytes > room:
            return
        with self._lock:
            while self._arrays and self.nbytes + array.nbytes > room:
                self.nbytes -= self._arrays.pop(0).nbytes
            self._arrays.append(array)
            self.nbytes += array.nbytes

    def clear(self) -> None:
        """Drop every held array (their memory goes back to the system)."""
        with self._lock:
            self._arrays.clear()
            self.nbytes = 0


def _allocate(shape: tuple[int, ...], dtype, fill, pool: ArrayPool) -> np.ndarray:
    """A new array; if the system refuses it (a ``ulimit -v`` below the cap), the pool's
    arrays are let go and it is asked once more, then the search stops as it would at the
    cap (:class:`~search.infra.budget.MemoryLimitExceeded`): its caller gives the same
    bounded answer."""

    def make() -> np.ndarray:
        return np.zeros(shape, dtype) if fill == 0 else np.full(shape, fill, dtype)

    try:
        return make()
    except MemoryError:
        pool.clear()
    try:
        return make()
    except MemoryError:
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        raise budget.MemoryLimitExceeded(
            f"the system refused {size >> 20} MiB more for the search "
            f"(a memory limit below the cap of {budget.memory_limit() >> 20} MiB)"
        ) from None


POOL = ArrayPool()
"""The process's pool, shared by every compiled memo."""
budget.count_spare(POOL)
