"""The compiled search loaded before a command's clock starts (issue 38).

numba keeps the compiled kernels in a cache (:mod:`search.infra.jitcache`); loading them
takes a fraction of a second, but the first run after install compiles them, which takes
a minute or more. That must not eat a ``--time-limit``: a command loads the kernels it
needs first, says so on stderr when it is slow, and its time limit counts the compile out.
"""

from __future__ import annotations

import sys
import threading
import time

from search.visit import kernel_needs_compile, warm_up

from .options import CommandClock

ANNOUNCE_AFTER = 3.0
"""Seconds of loading after which the user is told the kernels are being compiled, where
numba's cache cannot say beforehand (loading takes well under this, even on a busy machine)."""
ANNOUNCEMENT = (
    "emissary: compiling the search kernels (once after install; later runs "
    "load them at once); the time limit starts after this..."
)


def load_kernels(first_edition: bool = False) -> None:
    """Load, or compile, the kernels a search needs: the visit kernel, and with
    ``first_edition`` the first edition's."""
    warm_up()
    if first_edition:
        load_first_edition_kernel()


def load_first_edition_kernel() -> None:
    """Load, or compile, the first edition's kernel."""
    from search.firstedition import FastFirstEditionSolver

    FastFirstEditionSolver().value(1, 2, 0, (0, 0, 0, 0))


def needs_compile(first_edition: bool = False) -> bool | None:
    """Whether loading the kernels a search needs means compiling them (numba's cache has no
    usable copy); None where the cache cannot tell."""
    answers = [kernel_needs_compile()]
    if first_edition:
        from search.firstedition import kernel_needs_compile as first_needs_compile

        answers.append(first_needs_compile())
    if any(answers):
        return True
    return None if None in answers else False


def prepare_search(clock: CommandClock | None = None, first_edition: bool = False) -> float:
    """Load the kernels before the command's clock runs. Where they must be compiled (numba's
    cache says so, or loading passes :data:`ANNOUNCE_AFTER` seconds) a line on stderr says
    so, and the time they took is left out of the command's time limit. Returns the seconds
    taken."""
    announced = threading.Event()
    if needs_compile(first_edition):
        announced.set()
        _say(ANNOUNCEMENT)

    def announce() -> None:
        if not announced.is_set():
            announced.set()
            _say(ANNOUNCEMENT)

    timer = threading.Timer(ANNOUNCE_AFTER, announce)
    timer.daemon = True
    started = time.perf_counter()
    timer.start()
    try:
        load_kernels(first_edition)
    finally:
        timer.cancel()
    seconds = time.perf_counter() - started
    if announced.is_set():
        if clock is not None:
            clock.delay(seconds)
        _say(f"emissary: the search is ready ({seconds:.0f} s).")
    return seconds


def _say(line: str) -> None:
    """A line on stderr, if stderr takes it (it may be closed or full)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass
