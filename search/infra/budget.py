"""What an exact search may spend: a time limit, a memory cap, and Ctrl-C honoured inside
compiled code.

A search past its deadline raises :class:`TimeLimitExceeded`; one whose memo would grow
past the process's memory cap raises :class:`MemoryLimitExceeded`. Both are
:class:`BudgetExceeded`, the one exception callers catch to turn an exact search into a
labelled estimate.

The cap covers every memo alive in the process (:func:`reserve` and :func:`release` keep
the count), and memory kept spare for later memos (:mod:`search.infra.recycle`), which is
dropped before a memo would pass the cap. It is ``EMISSARY_MAX_MEMORY`` (bytes, or with a
K/M/G suffix) when set, else :data:`DEFAULT_MEMORY_LIMIT`; :func:`set_memory_limit` changes it.

A compiled kernel cannot be interrupted by Python's default SIGINT handler (the exception
would be raised inside the kernel's clock read, which numba turns into a SystemError).
:func:`guard_interrupts` installs a handler that, while :func:`kernel_running`, only marks
the interrupt pending; the kernel polls for it with its clock, unwinds, and
``KeyboardInterrupt`` is raised once it is out. Where :func:`kernel_polls_natively`, the kernel
reads the clock and the signals the C handler wrote to the wakeup pipe (:func:`wakeup_fd`) by
libc calls; else (a replaced ``time.perf_counter``, as the slow-clock test runs) through numba's
object mode and :func:`interrupt_pending`.
"""

from __future__ import annotations

import _signal
import os
import signal
import threading
import time

DEFAULT_MEMORY_LIMIT = 3 << 29  # 1.5 GiB: memos stay well under the 2 GB a command may use
_SUFFIXES = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


class BudgetExceeded(Exception):
    """An exact search ran out of its budget (time or memory)."""


class TimeLimitExceeded(BudgetExceeded):
    """The exact search ran past its time budget."""


class WorkLimitExceeded(TimeLimitExceeded):
    """The exact search made the kernel lookups it was allowed: a budget that does not depend
    on the machine's speed, so unlike the clock it stops a search at the same place anywhere."""


class MemoryLimitExceeded(BudgetExceeded):
    """The exact search's memo would grow past the memory cap."""


def parse_bytes(text: str) -> int:
    """A size such as ``1500000000``, ``800M`` or ``1.5G`` in bytes; ValueError if not one."""
    text = text.strip().upper().removesuffix("B")
    scale = _SUFFIXES.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    try:
        size = float(number)
    except ValueError:
        raise ValueError(f"not a memory size: {text[:40]!r} (try 800M or 1.5G)") from None
    if not 0 < size * scale < 1 << 50:
        raise ValueError(f"memory size out of range: {text[:40]!r} (try 800M or 1.5G)")
    return int(size * scale)


def _initial_limit() -> int:
    text = os.environ.get("EMISSARY_MAX_MEMORY", "")
    try:
        return parse_bytes(text) if text else DEFAULT_MEMORY_LIMIT
    except ValueError:
        return DEFAULT_MEMORY_LIMIT


_limit = _initial_limit()
_reserved = 0
_lock = threading.RLock()  # re-entrant: a freed solver's finalizer may release inside reserve
_spares: list = []  # holders of spare memory: an ``nbytes`` and a ``clear()`` each


def memory_limit() -> int:
    """The cap on the bytes all memos of this process may hold together."""
    return _limit


def set_memory_limit(size: int) -> None:
    """Change the cap (bytes)."""
    global _limit
    if size <= 0:
        raise ValueError("the memory cap must be positive")
    _limit = int(size)


def reserved_memory() -> int:
    """The bytes memos hold now."""
    return _reserved


def count_spare(holder) -> None:
    """Count ``holder``'s spare memory (its ``nbytes``) under the cap: :func:`reserve`
    calls its ``clear()`` before memos and spares together would pass the cap."""
    _spares.append(holder)


def reserve(size: int) -> None:
    """Count ``size`` more bytes, or raise MemoryLimitExceeded if that passes the cap
    (dropping spare memory first if memos and spares together would)."""
    global _reserved
    with _lock:
        spare = 0
        for holder in _spares:
            spare += holder.nbytes
        if _reserved + size + spare > _limit:
            for holder in _spares:
                holder.clear()
        if _reserved + size > _limit:
            raise MemoryLimitExceeded(
                f"the search would need over {(_reserved + size) >> 20} MiB "
                f"(cap {_limit >> 20} MiB)"
            )
        _reserved += size


def release(size: int) -> None:
    """Give back ``size`` bytes counted by :func:`reserve`."""
    global _reserved
    with _lock:
        _reserved = max(0, _reserved - size)


def guard_interrupts() -> None:
    """Install the SIGINT handler compiled kernels need (from the main thread; again if
    something has replaced it since): inside a kernel Ctrl-C only marks an interrupt as
    pending, which the kernel polls with its clock and unwinds on; elsewhere the handler
    it replaced runs as before."""
    global _previous
    if threading.current_thread() is not threading.main_thread():
        return
    current = _signal.getsignal(signal.SIGINT)  # the C call: signal's wrapper costs ~10 µs
    if current is _on_interrupt or not callable(current):  # ours, or ignored at C level
        return
    _previous = current
    signal.signal(signal.SIGINT, _on_interrupt)
    # Numba's object mode runs no Python signal handler, so the kernel's poll reads the
    # signals the C handler wrote to this pipe.
    if _wakeup["read"] >= 0:
        return
    taken = signal.set_wakeup_fd(-1)
    if taken != -1:  # someone else's (asyncio's): give it back and rely on the handler
        signal.set_wakeup_fd(taken)
    else:
        read, write = os.pipe()
        os.set_blocking(read, False)
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        _wakeup["read"] = read


def _on_interrupt(signum, frame) -> None:
    if _kernel["depth"]:
        _kernel["pending"] = True
    else:
        _previous(signum, frame)


def interrupt_pending() -> bool:
    """Whether Ctrl-C came while a kernel ran (the kernels poll this with their clock)."""
    if _wakeup["read"] >= 0:
        try:
            signals = os.read(_wakeup["read"], 512)
        except (BlockingIOError, OSError):
            signals = b""
        if signal.SIGINT in signals and _kernel["depth"]:
            _kernel["pending"] = True
    return _kernel["pending"]


class _KernelRunning:
    """Around a kernel call: Ctrl-C inside is deferred until the kernel unwinds, then
    raised here as KeyboardInterrupt (once: the pending mark is cleared on the way out,
    whether the body raised or not). A class, not a generator: it wraps every kernel call."""

    def __enter__(self) -> None:
        if not _kernel["depth"]:
            guard_interrupts()
        _kernel["depth"] += 1

    def __exit__(self, exc_type, exc, traceback) -> None:
        _kernel["depth"] -= 1
        if not _kernel["depth"] and _kernel["pending"]:
            _kernel["pending"] = False
            if exc_type is None:
                raise KeyboardInterrupt


def kernel_polls_natively() -> bool:
    """Whether a kernel may read the clock and the wakeup pipe itself: ``time.perf_counter``
    is libc's monotonic clock (Linux) and has not been replaced (tests replace it with a
    faster one, which only object mode sees)."""
    return _NATIVE_CLOCK and time.perf_counter is _PERF_COUNTER


def wakeup_fd() -> int:
    """The read end of the pipe the C signal handler writes signal numbers to, or -1."""
    return _wakeup["read"]


def kernel_poll() -> tuple[int, int]:
    """How a kernel about to run polls, as its meta fields: (1, the wakeup pipe) where it may
    read them itself (:func:`kernel_polls_natively`; the pipe made first), else (0, -1): object
    mode and :func:`interrupt_pending`."""
    if not kernel_polls_natively():
        return 0, -1
    if _wakeup["read"] < 0:
        guard_interrupts()  # makes the pipe (from the main thread)
    return 1, _wakeup["read"]


def kernel_running() -> _KernelRunning:
    """The context of a kernel call (see :class:`_KernelRunning`)."""
    return _KERNEL_RUNNING


_previous = None
_kernel = {"depth": 0, "pending": False}
_wakeup = {"read": -1}
_PERF_COUNTER = time.perf_counter
_NATIVE_CLOCK = time.get_clock_info("perf_counter").implementation == (
    "clock_gettime(CLOCK_MONOTONIC)"
)
_KERNEL_RUNNING = _KernelRunning()
