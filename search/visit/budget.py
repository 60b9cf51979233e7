"""What one search may spend, and the solvers its steps share: one :class:`Budget` a command.

A command (``odds``, ``advise``, ``move``) or a step of the coach makes one :class:`Budget` and
passes it down. It carries the time limit, the moment the command started (its start-up counts
against its limit), the command's own end where that is sooner, and the rate at which kernel
lookups stand for seconds: where a step fixes its work from the limit (so that it repeats on
any machine), the clock is only the backstop. Each layer asks the budget for the end of its
share of the time (:meth:`Budget.share_end`), its work (:meth:`Budget.work`) and what is left
(:meth:`Budget.left`); the shares themselves are named here, once.

A solver stops at a deadline set only by :func:`clock_stops`, for the length of a block.

The budget's :class:`Memos` are the solvers a command's searches share (the estimates' solver,
and while a table's estimates run, its ♦♥♠ solvers). A coached game keeps one :class:`Memos`
for all its steps (:meth:`Budget.step`). Workers forked for the estimates take the budget as an
argument of their task, through the fork's memory (:func:`search.infra.fork_map`), not pickled.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum

from .reference import KingdomSolver
from .solvers import make_solver

LOOKUPS_PER_SECOND = 14_000_000
"""Kernel lookups a second of budget buys where work, not the clock, decides. Measured on this
project's 2-core machine under load: 7-27 M/s, about 13 M/s at the median (higher for
Commerce, lower for big Military memos). Set near it, so that a table is as exact as the
clock would let it be; on a slower or busy machine the clock stops some searches first, and
the table says so."""


class Search(StrEnum):
    """What a budget is for; each shares its time out in its own way (:data:`EXACT_FRACTIONS`)."""

    SOLVE = "solve"  # one position's chance (odds)
    RANKING = "ranking"  # every option at a position (move, the coach mid-visit)
    HOPELESS = "hopeless"  # a ranking whose exact search is hopeless in seconds
    TABLE = "table"  # every kingdom under every ability set (advise, the coach between visits)


EXACT_FRACTIONS = {
    Search.SOLVE: 0.5,
    Search.RANKING: 0.5,
    Search.HOPELESS: 0.15,
    Search.TABLE: 0.9,
}
"""The share of a search's time (after :data:`MARGINS`) its exact search may take; estimates
take the rest. A ranking is hopeless where Military and Commerce are both left on a hand of six
cards or more: such searches almost never finish in seconds (bench_kingdom: every Jack on a
fresh hand, 0 of 20 within 60 s), so the time goes to the restrictions and the estimates. The
table's 0.9 leaves the estimates what the exact solves do not use: on the 50 seeded first
hands at the default 3 s (``examples/table_counts.py``, one run after another on 2026-12-06) it
made 1,430 of the 1,600 single-Jack cells exact against 1,380 at 0.75 (Commerce 376 of 400
against 330; Military 254 against 250), and at 0.75 as at 0.9 no estimate reached a table (too
few playouts to show: every open cell showed its proven bound), nor at 10 s on deals 1-10."""
CERTAINTY_FRACTION = 0.1
"""The share of a table's time the certainty search (:func:`search.visit.certainty`) may use on
the cells the exact solves left open, before the estimates take what is left."""
MARGINS = {Search.SOLVE: 0.0, Search.RANKING: 0.05, Search.HOPELESS: 0.05, Search.TABLE: 0.05}
"""The share of a time limit kept back from the searches, for what follows them (a process
pool's start and end, the ranking, the tour values, the table)."""

SHARED_STATES = 2_000_000
"""The most states the shared solver carries from earlier rankings into a new one (about
250 MB). Past it the memo starts afresh: kept, it would soon double, and a doubling near
a gigabyte took 1.3 s of a 2 s coach step (issue 15) and left the coach at 1.25 GB."""


@contextmanager
def clock_stops(deadline: float | None, *solvers) -> Iterator[None]:
    """Inside the block each of ``solvers`` raises ``TimeLimitExceeded`` past ``deadline`` (a
    ``time.perf_counter()`` reading; None: no clock); after it, each has its deadline of before."""
    before = [solver.deadline for solver in solvers]
    for solver in solvers:
        solver.deadline = deadline
    try:
        yield
    finally:
        for solver, earlier in zip(solvers, before):
            solver.deadline = earlier


def scratch_of(solver: KingdomSolver) -> KingdomSolver:
    """The scratch solver (♥♠ and other quick restrictions) kept beside ``solver``: the runs
    that share a solver (the options of one ranking, the cells of one table) share its
    scratch memo too, rather than each solving ♥♠ afresh."""
    if solver.scratch is None:
        solver.scratch = type(solver)()
    return solver.scratch


def remember_roots(solver: KingdomSolver, state: tuple, waiting: int | None, roots: list) -> None:
    """Note that ``roots`` are the restrictions of ``state`` solved on ``solver`` (by a caller
    that gave them more time than its runs will have): runs from ``state`` on ``solver``, or on
    a process forked from it, take them as they are rather than try the others again."""
    solver.known_roots[state, waiting] = list(roots)


def known_roots(solver: KingdomSolver, state: tuple, waiting: int | None) -> list | None:
    """The restrictions :func:`remember_roots` noted for ``state`` with ``solver``, if any."""
    return solver.known_roots.get((state, waiting))


def forget_solver(solver: KingdomSolver) -> None:
    """Empty ``solver``'s memo and its scratch's, and the roots remembered on it: a shared
    solver starting afresh, its memory given back."""
    solver.reset()
    if solver.scratch is not None:
        solver.scratch.reset()
    solver.known_roots.clear()


class Memos:
    """The solvers whose memos a command's searches share. The estimates' exact sub-solves go
    to :meth:`shared` (its memo is a function of the state alone, so estimates of related
    positions share it); while a table's estimates run, those of a (trump, pool) start from that
    ♦♥♠ solver instead (:meth:`sharing_roots`)."""

    def __init__(self) -> None:
        self._shared: KingdomSolver | None = None
        self._roots: dict[tuple, KingdomSolver] = {}

    def shared(self) -> KingdomSolver:
        """The solver the estimates share (made on first use)."""
        if self._shared is None:
            self._shared = make_solver()
        return self._shared

    def fresh_shared(self) -> KingdomSolver:
        """:meth:`shared`, emptied first if it holds more than :data:`SHARED_STATES` states
        from earlier rankings."""
        solver = self.shared()
        if solver.state_count() > SHARED_STATES:
            forget_solver(solver)
        return solver

    def for_root(self, trump, pool: tuple) -> KingdomSolver:
        """The solver an estimate of (``trump``, ``pool``) starts from."""
        return self._roots.get((trump, pool)) or self.shared()

    @contextmanager
    def sharing_roots(self, solvers: dict[tuple, KingdomSolver]) -> Iterator[None]:
        """While the block runs, estimates of a (trump, pool) start from that solver's memo (a
        table's ♦♥♠ solves: finished or not, every entry is exact)."""
        self._roots = dict(solvers)
        try:
            yield
        finally:
            self._roots = {}


@dataclass(frozen=True)
class Budget:
    """One search's time: ``limit`` seconds (None: exact, however long) from ``started`` (a
    ``time.perf_counter()`` reading), ending at ``end_by`` if that is sooner (a command's own
    end, its start-up counted), with lookups counted at ``rate`` a second where work is fixed
    from the limit; and the :class:`Memos` its searches share."""

    limit: float | None = None
    search: Search = Search.SOLVE
    started: float = field(default_factory=lambda: time.perf_counter())  # the clock then
    end_by: float | None = None
    rate: float | None = None  # None: LOOKUPS_PER_SECOND as it is when work is asked
    memos: Memos = field(default_factory=Memos, compare=False)

    @property
    def exact(self) -> bool:
        """Whether the search may take as long as it needs."""
        return self.limit is None

    def share_end(self, share: float) -> float | None:
        """The moment ``share`` of the limit has passed since the start, or as long before
        the command's end ``end_by`` as the rest of the limit, if that is sooner (None: no
        limit)."""
        if self.limit is None:
            return None
        end = self.started + share * self.limit
        if self.end_by is None:
            return end
        return min(end, self.end_by - (1 - share) * self.limit)

    def exact_end(self) -> float | None:
        """The end of the exact search's share (:data:`EXACT_FRACTIONS`)."""
        return self.share_end(self._exact_share())

    def exact_work(self) -> float | None:
        """The kernel lookups standing for the exact search's share."""
        if self.limit is None:
            return None
        return EXACT_FRACTIONS[self.search] * self._searches() * self._rate()

    def certainty_end(self) -> float | None:
        """The end of the certainty search's share, from now (never past :meth:`search_end`)."""
        if self.limit is None:
            return None
        return min(time.perf_counter() + CERTAINTY_FRACTION * self.limit, self.search_end())

    def certainty_work(self) -> float | None:
        """The kernel lookups standing for the certainty search's share."""
        return self.work(CERTAINTY_FRACTION)

    def after_certainty_end(self) -> float | None:
        """The end of the certainty search's share where it follows the exact share at once
        (never past :meth:`search_end`): how long a second core's exact solves may run on
        while this one's certainty search runs."""
        if self.limit is None:
            return None
        return min(self.share_end(self._exact_share() + CERTAINTY_FRACTION), self.search_end())

    def search_end(self) -> float | None:
        """The end of the searches, exact and estimated (the limit less its margin)."""
        return self.share_end(1 - MARGINS[self.search])

    def search_left(self) -> float | None:
        """Seconds left before :meth:`search_end` (never below 0; None: no limit)."""
        return _seconds_until(self.search_end())

    def estimate_seconds(self) -> float | None:
        """The estimates' nominal share in seconds: what is left after the exact search's
        share and the margin (their work is fixed from it)."""
        if self.limit is None:
            return None
        return (1 - EXACT_FRACTIONS[self.search]) * self._searches()

    def _exact_share(self) -> float:
        return EXACT_FRACTIONS[self.search] * (1 - MARGINS[self.search])

    def _searches(self) -> float:
        """The seconds of the limit the searches share (the margin kept back)."""
        return (1 - MARGINS[self.search]) * self.limit

    def _rate(self) -> float:
        return LOOKUPS_PER_SECOND if self.rate is None else self.rate

    def end(self) -> float | None:
        """The moment the whole limit has passed."""
        return self.share_end(1.0)

    def left(self) -> float | None:
        """Seconds left before :meth:`end` (never below 0; None: no limit)."""
        return _seconds_until(self.end())

    def work(self, share: float) -> float | None:
        """Kernel lookups standing for ``share`` of the limit (None: no limit)."""
        return None if self.limit is None else share * self.limit * self._rate()

    def step(self, limit: float | None, search: Search) -> Budget:
        """A new step of a long session (the coach): ``limit`` seconds from now for ``search``,
        the same memos."""
        return Budget(limit=limit, search=search, rate=self.rate, memos=self.memos)


def _seconds_until(end: float | None) -> float | None:
    """Seconds from now until ``end`` (never below 0; None: no end)."""
    return None if end is None else max(0.0, end - time.perf_counter())
