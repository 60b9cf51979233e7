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

from search.visit import warm_up

from .options import delay_command_clock

ANNOUNCE_AFTER = 0.5
"""Seconds of loading after which the user is told the kernels are being compiled."""
ANNOUNCEMENT = ("emissary: compiling the search kernels (once after install; later runs "
                "load them at once); the time limit starts after this...")


def load_kernels(first_edition: bool = False) -> None:
    """Load, or compile, the kernels a search needs: the visit kernel, and with
    ``first_edition`` the first edition's."""
    warm_up()
    if first_edition:
        from search.firstedition import FastFirstEditionSolver

        FastFirstEditionSolver().value(1, 2, 0, (0, 0, 0, 0))


def prepare_search(first_edition: bool = False) -> float:
    """Load the kernels before the command's clock runs: past :data:`ANNOUNCE_AFTER` seconds
    a line on stderr says they are being compiled, and the time they took is then left out
    of the command's time limit. Returns the seconds taken."""
    announced = threading.Event()

    def announce() -> None:
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
        delay_command_clock(seconds)
        _say(f"emissary: the search is ready ({seconds:.0f} s).")
    return seconds


def _say(line: str) -> None:
    """A line on stderr, if stderr takes it (it may be closed or full)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass
