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

A Ctrl-C that lands while the pool forks its workers would run its handler inside a
fork hook (logging's), whose exceptions Python prints and drops: the interrupt was
lost and the command waited on for its workers, which ignore Ctrl-C (seen in CI).
So the pool holds a Ctrl-C while it submits work (when it forks) and raises it after.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

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

    def submit(self, fn, /, *args, **kwargs):
        with interrupts_held():  # the first submit forks the workers
            return super().submit(fn, *args, **kwargs)

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


@contextmanager
def interrupts_held():
    """Hold a Ctrl-C (SIGINT) that arrives inside the block and act on it when the block ends,
    as the handler in place would have (``KeyboardInterrupt`` by default). In the main thread
    only (the one Python runs signal handlers in); elsewhere the block runs as it is."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield  # no handler of Python's to hold (ignored, or set outside Python)
        return
    held: list[tuple] = []
    signal.signal(signal.SIGINT, lambda number, frame: held.append((number, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:  # a Ctrl-C wins over an error the block raised
            previous(*held[0])


def process_pool(workers: int, start_method: str = "fork") -> Pool:
    """A pool of ``workers`` processes that end with this one. ``fork`` shares what this
    process has loaded (compiled kernels); ``spawn`` starts each from a clean interpreter
    (needed once this process runs threads, e.g. a progress display)."""
    if start_method not in START_METHODS:
        raise ValueError(f"start method must be one of {START_METHODS}, got {start_method!r}")
    context = multiprocessing.get_context(start_method)
    return Pool(workers, mp_context=context, initializer=end_with_parent)


class WorkerDied(RuntimeError):
    """A forked worker ended without sending its result (killed, or out of memory)."""


def fork_map(task, parts: list) -> list:
    """``task(part)`` for each of ``parts``, each in a process forked for it, side by side;
    their results in order. ``task`` and ``parts`` reach the workers through the fork's memory,
    not pickled, so a task may close over what this process holds (a search's budget, its
    solvers and their memos); only the results come back pickled. The workers end with this
    process and leave Ctrl-C to it; an error a task raises is raised here; left by an
    exception (Ctrl-C among them), the workers are killed at once."""
    context = multiprocessing.get_context("fork")
    workers = []
    try:
        with interrupts_held():  # a Ctrl-C while forking would be lost in a fork hook
            for part in parts:
                receive, send = context.Pipe(duplex=False)
                worker = context.Process(target=_run_forked, args=(task, part, send))
                worker.start()
                send.close()
                workers.append((worker, receive))
        results = []
        for worker, receive in workers:
            try:
                done, value = receive.recv()
            except EOFError:
                worker.join()
                raise WorkerDied(f"a worker ended with exit code {worker.exitcode}") from None
            worker.join()
            if not done:
                raise value
            results.append(value)
        return results
    finally:
        for worker, receive in workers:
            receive.close()
            if worker.is_alive():
                worker.kill()
                worker.join()


def _run_forked(task, part, send) -> None:
    """A forked worker's body: :func:`end_with_parent`, the task, and its result (or the error
    it raised) sent back."""
    end_with_parent()
    try:
        outcome = (True, task(part))
    except BaseException as error:  # noqa: BLE001 - sent to the parent, which raises it
        outcome = (False, error)
    try:
        send.send(outcome)
    except Exception as error:  # noqa: BLE001 - a result that cannot be pickled
        send.send((False, WorkerDied(f"a worker's result could not be sent back: {error}")))
    send.close()
