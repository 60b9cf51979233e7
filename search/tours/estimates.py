"""Monte Carlo estimates for the advice (:mod:`.advice`, :mod:`.moves`): positions estimated
on forked processes, each option of a position on the same deck orders, their exact sub-solves
on the memos of the search's budget (:class:`search.visit.Budget`)."""

from __future__ import annotations

import os
import time
from dataclasses import replace

from ..game import Suit, legal_answers
from ..infra import fork_map
from ..visit import (
    Budget,
    BudgetExceeded,
    KingdomResult,
    LookaheadPolicy,
    Memos,
    Option,
    Position,
    clock_stops,
    estimate_kingdom,
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
    budget: Budget,
    forced: list | None = None,
    fixed_work: float | None = None,
    first: list[int] | None = None,
) -> list[KingdomResult]:
    """Monte Carlo estimates of ``positions`` sharing ``seconds`` of wall time (None: about
    a second each), on up to :data:`ESTIMATE_WORKERS` forked processes, their exact
    sub-solves on ``budget``'s memos; ``forced`` gives each estimate's first decision (see
    :func:`search.visit.estimate.play_policy`). With ``fixed_work`` (the estimates' nominal
    seconds, shared alike) the work of each is fixed and ``seconds`` only a backstop (see
    :func:`search.visit.estimate.estimate_kingdom`)."""
    if not positions:
        return []
    count = len(positions)
    workers = min(ESTIMATE_WORKERS, os.cpu_count() or 1, count)
    rounds = -(-count // workers)  # each worker's share of the estimates
    nominal = None if fixed_work is None else fixed_work / rounds
    rows = list(
        zip(
            positions,
            [None if seconds is None else seconds / rounds] * count,
            forced or [None] * count,
            [nominal] * count,
            first or [0] * count,
        )
    )

    def estimate_each(part: list[tuple]) -> list[KingdomResult]:
        return _estimate_each(part, budget.memos)

    if workers == 1:
        return estimate_each(rows)
    # Worker w takes estimates w, w + workers, ... in order, so that what its memos hold when
    # each starts (and so where a work limit stops) is always the same.
    parts = fork_map(estimate_each, [rows[w::workers] for w in range(workers)])
    results: list = [None] * count
    for w, part in enumerate(parts):
        results[w::workers] = part
    return results


BORROW = 2.0
"""How many fair shares of a worker's time left one fixed-work estimate may run into before
the clock stops it (see :func:`_estimate_each`)."""


def _estimate_each(rows: list[tuple], memos: Memos) -> list[KingdomResult]:
    """:func:`_estimate` of each row, in order, in one process. With fixed work the rows'
    seconds are pooled: each estimate's backstop is up to :data:`BORROW` fair shares of what
    is left of the pool, so an estimate slower than its nominal work borrows the time a quicker
    one left (the work, not the clock, decides on a machine near the nominal rates)."""
    if any(row[1] is None or row[3] is None for row in rows):
        return [_estimate(*row, memos) for row in rows]
    end = time.perf_counter() + sum(row[1] for row in rows)
    results = []
    for index, (position, _, *rest) in enumerate(rows):
        left = max(0.0, end - time.perf_counter())
        seconds = min(left, BORROW * left / (len(rows) - index))
        results.append(_estimate(position, seconds, *rest, memos))
    return results


def _estimate_discards(
    position: Position, seconds: float | None, budget: Budget, fixed_work: float | None = None
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
    estimates = iter(estimate_all(playable, seconds, budget, fixed_work=fixed_work))
    results = []
    for option, after in zip(options, positions):
        if after.hand:
            results.append((option, next(estimates)))
        else:
            hit = float(after.need == 0)
            result = KingdomResult(
                chance=hit,
                chance_exact=None,
                needs=(),
                best=option,
                options=((option, hit),),
                distribution=(1.0,),
                states=0,
                seconds=0.0,
            )
            results.append((option, result))
    return results


def _estimate(
    position: Position,
    seconds: float | None,
    forced: tuple | None,
    fixed_work: float | None,
    first: int,
    memos: Memos,
) -> KingdomResult:
    abilities = position.abilities
    pool = abilities.pool if abilities.counts[Suit.SPADES] else ()
    return estimate_kingdom(
        position,
        seconds=seconds,
        started=time.perf_counter(),
        forced=forced,
        solver=memos.for_root(position.trump, pool),
        fixed_work=fixed_work,
        first=first,
    )


def solve_shared_roots(
    position: Position, seconds: float, budget: Budget, work: int | None = None
) -> tuple[float, bool]:
    """Solve the lookahead policy's restrictions of ``position`` (not a pending discard) on
    ``budget``'s shared solver within ``seconds``, so that the estimates that follow (in
    this process or forked from it) start from them; returns the best one's exact chance, a
    proven lower bound on the position's chance, and whether the clock stopped a solve before
    ``work`` (kernel lookups, if given) was done."""
    state = root_state(position)
    waiting = position.waiting.index if position.waiting is not None else None
    solver = budget.memos.fresh_shared()  # a new ranking: past a size, the earlier ones go
    cuts: list = []
    deadline = time.perf_counter() + seconds
    roots = solve_roots(solver, state, waiting, deadline, work=work, cuts=cuts)
    remember_roots(solver, state, waiting, roots)  # the estimates forked next do not retry them
    policy = LookaheadPolicy(solver, roots, scratch=scratch_of(solver))
    try:  # ♥♠ on a big hand is not instant: within the time too
        with clock_stops(deadline, solver, policy.scratch):
            bound = float(policy.base(state, position.need, waiting)[1])
            if waiting is None:  # ♥♠ after each option, for the estimates to inherit
                policy.scratch.option_worths(position.need, *swap_state(state))
        return bound, bool(cuts)
    except BudgetExceeded:
        return 0.0, True


def estimate_options(
    position: Position,
    seconds: float | None,
    budget: Budget,
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
        return _estimate_discards(position, seconds, budget, fixed_work)
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
    results = estimate_all(positions, seconds, budget, labels, fixed_work, first)
    return [(option, result) for (option, _), result in zip(labelled, results)]
