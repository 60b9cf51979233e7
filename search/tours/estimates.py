"""Monte Carlo estimates for the advice (:mod:`.advice`, :mod:`.moves`): positions estimated
on a process pool, each option of a position on the same deck orders, and the shared solver
whose memo the estimates of related positions start from."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from ..game import Suit, legal_answers
from ..infra import process_pool
from ..visit import (
    BudgetExceeded,
    KingdomResult,
    KingdomSolver,
    LookaheadPolicy,
    Option,
    Position,
    estimate_kingdom,
    forget_solver,
    legal_discards_of,
    make_solver,
    option_of_label,
    remember_roots,
    root_state,
    scratch_of,
    solve_roots,
    swap_state,
)

ESTIMATE_WORKERS = 2
"""Processes that share advise_visit's estimates (no more than the machine's cores)."""


def estimate_all(
    positions: list[Position],
    seconds: float | None,
    forced: list | None = None,
    fixed_work: float | None = None,
    first: list[int] | None = None,
) -> list[KingdomResult]:
    """Monte Carlo estimates of ``positions`` sharing ``seconds`` of wall time (None: about
    a second each), on a process pool of up to
    :data:`ESTIMATE_WORKERS` workers; ``forced`` gives each estimate's first decision (see
    :func:`search.visit.estimate.play_policy`). With ``fixed_work`` (the estimates' nominal
    seconds, shared alike) the work of each is fixed and ``seconds`` only a backstop (see
    :func:`search.visit.estimate.estimate_kingdom`)."""
    if not positions:
        return []
    count = len(positions)
    workers = min(ESTIMATE_WORKERS, os.cpu_count() or 1, count)
    rounds = -(-count // workers)  # each worker's share of the estimates
    nominal = None if fixed_work is None else fixed_work / rounds
    args = (
        [None if seconds is None else seconds / rounds] * count,
        forced or [None] * count,
        [nominal] * count,
        first or [0] * count,
    )
    if workers == 1:
        return list(map(_estimate, positions, *args))
    with process_pool(workers, "fork") as pool:  # workers inherit the loaded kernel
        if fixed_work is None:
            return list(pool.map(_estimate, positions, *args))
        # Fixed work: worker w takes estimates w, w + workers, ... in order, so that what its
        # shared memo holds when each starts (and so where a work limit stops) is always the same.
        rows = list(zip(positions, *args))
        parts = list(pool.map(_estimate_each, [rows[w::workers] for w in range(workers)]))
        results: list = [None] * count
        for w, part in enumerate(parts):
            results[w::workers] = part
        return results


BORROW = 2.0
"""How many fair shares of a worker's time left one fixed-work estimate may run into before
the clock stops it (see :func:`_estimate_each`)."""


def _estimate_each(rows: list[tuple]) -> list[KingdomResult]:
    """:func:`_estimate` of each row, in order, in one process. The rows' seconds are pooled:
    each estimate's backstop is up to :data:`BORROW` fair shares of what is left of the
    pool, so an estimate slower than its nominal work borrows the time a quicker one left
    (the work, not the clock, decides on a machine near the nominal rates)."""
    if any(row[1] is None for row in rows):
        return [_estimate(*row) for row in rows]
    end = time.perf_counter() + sum(row[1] for row in rows)
    results = []
    for index, (position, _, *rest) in enumerate(rows):
        left = max(0.0, end - time.perf_counter())
        results.append(_estimate(position, min(left, BORROW * left / (len(rows) - index)), *rest))
    return results


def _estimate_discards(
    position: Position, seconds: float | None, fixed_work: float | None = None
) -> list[tuple[Option, KingdomResult]]:
    """Commerce's discards (R3) each estimated as the position it leaves, sharing ``seconds``;
    a discard that empties the hand ends the visit, and its chance is exact."""
    options, positions = [], []
    for pair in legal_discards_of(position.hand):
        options.append(Option("discard", cards=pair))
        positions.append(
            replace(
                position,
                hand=position.hand - pair,
                discard=position.discard | pair,
                discarding=False,
            )
        )
    playable = [p for p in positions if p.hand]
    estimates = iter(estimate_all(playable, seconds, fixed_work=fixed_work))
    results = []
    for option, after in zip(options, positions):
        if after.hand:
            results.append((option, next(estimates)))
        else:
            hit = float(after.need == 0)
            results.append(
                (option, KingdomResult(hit, None, (), option, ((option, hit),), (1.0,), 0, 0.0))
            )
    return results


def _estimate(
    position: Position,
    seconds: float | None,
    forced: tuple | None,
    fixed_work: float | None = None,
    first: int = 0,
) -> KingdomResult:
    abilities = position.abilities
    pool = abilities.pool if abilities.counts[Suit.SPADES] else ()
    solver = _ROOT_SOLVERS.get((position.trump, pool)) or _shared_solver()
    return estimate_kingdom(
        position,
        seconds=seconds,
        started=time.perf_counter(),
        forced=forced,
        solver=solver,
        fixed_work=fixed_work,
        first=first,
    )


_ROOT_SOLVERS: dict[tuple, KingdomSolver] = {}
"""advise_visit's ♦♥♠ solvers by (trump, pool), while its estimates run (see there)."""


@contextmanager
def sharing_root_solvers(solvers: dict[tuple, KingdomSolver]) -> Iterator[None]:
    """While the block runs, estimates of a (trump, pool) start from that solver's memo (the
    table's ♦♥♠ solves: finished or not, every entry is exact); forked workers inherit them."""
    _ROOT_SOLVERS.clear()
    _ROOT_SOLVERS.update(solvers)
    try:
        yield
    finally:
        _ROOT_SOLVERS.clear()


def solve_shared_roots(
    position: Position, seconds: float, work: int | None = None
) -> tuple[float, bool]:
    """Solve the lookahead policy's restrictions of ``position`` (not a pending discard) on
    this process's shared solver within ``seconds``, so that the estimates that follow (in
    this process or forked from it) start from them; returns the best one's exact chance, a
    proven lower bound on the position's chance, and whether the clock stopped a solve before
    ``work`` (kernel lookups, if given) was done."""
    state = root_state(position)
    waiting = position.waiting.index if position.waiting is not None else None
    solver = _shared_solver()
    if solver.state_count() > SHARED_STATES:  # a new ranking: forget the earlier ones'
        forget_solver(solver)
    cuts: list = []
    deadline = time.perf_counter() + seconds
    roots = solve_roots(solver, state, waiting, deadline, work=work, cuts=cuts)
    remember_roots(solver, state, waiting, roots)  # the estimates forked next do not retry them
    policy = LookaheadPolicy(solver, roots, scratch=scratch_of(solver))
    for one in (solver, policy.scratch):  # ♥♠ on a big hand is not instant: within the time too
        one.deadline = deadline
    try:
        bound = float(policy.base(state, position.need, waiting)[1])
        if waiting is None:  # ♥♠ after each option, for the estimates to inherit
            policy.scratch.option_worths(position.need, *swap_state(state))
        return bound, bool(cuts)
    except BudgetExceeded:
        return 0.0, True
    finally:
        for one in (solver, policy.scratch):
            one.deadline = None


_SHARED: list[KingdomSolver] = []
SHARED_STATES = 2_000_000
"""The most states the shared solver carries from earlier rankings into a new one (about
250 MB). Past it the memo starts afresh: kept, it would soon double, and a doubling near
a gigabyte took 1.3 s of a 2 s coach step (issue 15) and left the coach at 1.25 GB."""


def _shared_solver() -> KingdomSolver:
    """One solver per process for the estimates' exact sub-solves: its memo is a function of
    the state alone, so estimates of related positions (discards, options) share it."""
    if not _SHARED:
        _SHARED.append(make_solver())
    return _SHARED[0]


def estimate_options(
    position: Position,
    seconds: float | None,
    fixed_work: float | None = None,
    chosen: list[Option] | None = None,
    first: list[int] | None = None,
) -> list[tuple[Option, KingdomResult]]:
    """Every option open at ``position`` (not a pending discard) with a Monte Carlo estimate of
    its chance: the fallback policy after that first decision, each option given an equal
    share of ``seconds``. Playout i of every
    option sees the same deck order (common random numbers); options that draw cards play
    slower, so they get fewer playouts and wider intervals. ``fixed_work``: as for
    :func:`estimate_all`. ``chosen``: only these options (not discards), in that order, their
    playouts numbered from ``first`` (to continue earlier estimates of them)."""
    if position.discarding:
        return _estimate_discards(position, seconds, fixed_work)
    hand, deck, disc, trump, abil, pool = root_state(position)
    labelled: list[tuple[Option, tuple]] = []
    if position.waiting is not None:
        for card in legal_answers(position.hand, position.waiting):
            labelled.append((Option("answer", card=card), ("answer", card.index)))
    else:
        for label in make_solver().option_labels(hand, deck, disc, trump, abil, pool):
            labelled.append((option_of_label(label), label))
    if chosen is not None:
        labelled = [next(pair for pair in labelled if pair[0] == option) for option in chosen]
    positions, labels = [position] * len(labelled), [label for _, label in labelled]
    results = estimate_all(positions, seconds, labels, fixed_work, first)
    return [(option, result) for (option, _), result in zip(labelled, results)]
