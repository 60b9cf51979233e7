"""One hand's exact planning chances with one set of abilities (:mod:`.planning` asks them of
each hand it values), kept for later asks by the planning table that owns them: their values
depend on the arguments alone."""

from __future__ import annotations

import time

from ..game import FULL_MASK
from ..infra import BudgetExceeded, TimeLimitExceeded, WorkLimitExceeded
from ..visit import clock_stops, make_solver, needs_whole_memo

MAX_WINS = 8
"""The most debates a visit can win."""


class HandChances:
    """One hand's chances with one set from a fresh solver, so the values depend on the
    arguments alone; kept (the latest :data:`HAND_CHANCES_KEPT`), since a King and a Queen of
    one suit, and the same hand planned again at the next visit, ask the same question. Past
    ``deadline`` (a ``time.perf_counter()`` reading) a solve raises TimeLimitExceeded and
    nothing is kept."""

    def __init__(self) -> None:
        self._known: dict[tuple, tuple[float, ...]] = {}
        self.misses = 0

    def __call__(
        self,
        hand: int,
        trump: int,
        jacks: tuple,
        pool: tuple[int, ...],
        work: int | None,
        deadline: float | None = None,
    ) -> tuple[float, ...]:
        key = (hand, trump, jacks, pool, work)
        known = self._known.get(key)
        if known is not None:
            return known
        if deadline is not None and time.perf_counter() >= deadline:
            raise TimeLimitExceeded
        self.misses += 1
        solver = fresh_solver(hand, jacks)
        with clock_stops(deadline, solver):
            values = solve_hand(solver, hand, trump, jacks, pool, work)
        if len(self._known) >= HAND_CHANCES_KEPT:
            self._known.pop(next(iter(self._known)))
        self._known[key] = values
        return values

    def cache_clear(self) -> None:
        """Forget every hand's chances."""
        self._known.clear()
        self.misses = 0

    def cache_info(self) -> HandChances:
        """Its counts (``misses``: the solves run), as ``functools.lru_cache`` names them."""
        return self


HAND_CHANCES_KEPT = 8192


def fresh_solver(hand: int = 0, jacks: tuple = (0, 0, 0, 0)):
    """A solver with an empty memo, sized for ``hand`` with ``jacks`` (a whole hand with a
    drawing Jack starts big: :func:`search.visit.needs_whole_memo`)."""
    return make_solver(whole_hand=needs_whole_memo(hand.bit_count(), jacks))


def solve_hand(
    solver, hand: int, trump: int, jacks: tuple, pool: tuple[int, ...], work: int | None
) -> tuple[float, ...]:
    """The exact chances of j more wins with ``jacks``, j = 0..8; all 0 (no bound) past
    ``work`` lookups or the memory cap."""
    solver.limit_work(work)
    try:
        values = solver.decide(hand, FULL_MASK & ~hand, 0, trump, jacks, pool)
    except BudgetExceeded as error:
        solver.reset()  # a part-searched memo is exact, but its size is unknown
        if isinstance(error, TimeLimitExceeded) and not isinstance(error, WorkLimitExceeded):
            raise  # the caller's clock: no answer, rather than a wrong one
        return (0.0,) * (MAX_WINS + 1)
    finally:
        solver.limit_work(None)
    return tuple(values) + (0.0,) * (MAX_WINS + 1 - len(values))
