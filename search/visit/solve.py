"""The chance of a kingdom from what the player sees (docs/rules.md §7): the exact search, or
an estimate past the time limit.

:func:`solve_kingdom` returns a :class:`~search.visit.position.KingdomResult` with
the exact chance of finishing with exactly the target, every option's chance,
the best option and the distribution of wins under the policy that is optimal
for the target. With a time limit, an exact search that runs out of time gives
way to a Monte Carlo estimate, flagged as such, with its 95% interval.
"""

from __future__ import annotations

import time
from fractions import Fraction

from ..game import legal_answers, wins_debate
from ..infra import BudgetExceeded, MemoryLimitExceeded
from .budget import Budget, clock_stops
from .estimate import estimate_kingdom
from .position import (
    KingdomResult,
    Option,
    Position,
    legal_discards_of,
    option_of_label,
    root_state,
)
from .reference import KingdomSolver
from .solvers import make_solver, needs_whole_memo

QUICK_SECONDS = 0.3
"""How long the pure-Python solver may try a search with no drawing ability before the
compiled kernel takes over (loading numba and the kernel costs about 0.8 s)."""


def root_options(
    solver: KingdomSolver, position: Position
) -> list[tuple[Option, tuple, list | None]]:
    """Each option at the root: (option, value vector over needs, its outcomes or None).
    Between debates the options are valued by the solver (compiled, for floats) and their
    outcomes are not listed: the distribution is then asked of the root itself."""
    hand, deck, disc, trump, abil, pool = root_state(position)
    if position.discarding:
        result = []
        for pair in legal_discards_of(position.hand):
            state = (hand & ~pair.mask, deck, disc | pair.mask, trump, abil, pool)
            value = solver.child_value(False, *state, None)
            result.append((Option("discard", cards=pair), value, [(solver.one, [(False, state)])]))
        return result
    if position.waiting is not None:
        waiting = position.waiting
        result = []
        for card in legal_answers(position.hand, waiting):
            won = wins_debate(waiting, card, position.trump)
            lost_to = 0 if won else card.bit
            state = (hand & ~card.bit, deck, disc | waiting.bit | lost_to, trump, abil, pool)
            value = solver.child_value(won, *state, None)
            result.append((Option("answer", card=card), value, [(solver.one, [(won, state)])]))
        return result
    values = solver.option_values(hand, deck, disc, trump, abil, pool)
    return [(option_of_label(label), value, None) for label, value in values]


def solve_kingdom(
    position: Position,
    exact: bool = False,
    time_limit: float | None = None,
    solver: KingdomSolver | None = None,
    budget: Budget | None = None,
) -> KingdomResult:
    """Solve ``position`` exactly within the exact search's share of the budget (``budget``,
    else ``time_limit`` seconds from now; :data:`~search.visit.budget.EXACT_FRACTIONS`); past it
    (or the memory cap), estimate by Monte Carlo in the rest of the time."""
    position.validate()
    budget = budget or Budget(time_limit)
    started = time.perf_counter()
    deadline = budget.exact_end()
    if solver is None:
        counts = position.abilities.counts
        if not exact and not (counts[0] or counts[1]):  # nothing draws: usually small
            quick = _quick(position, started, deadline)
            if quick is not None:
                return quick
        solver = make_solver(exact, whole_hand=needs_whole_memo(len(position.hand), counts))
    try:
        with clock_stops(deadline, solver):
            return solve_exact(solver, position, started)
    except BudgetExceeded as error:
        if isinstance(error, MemoryLimitExceeded):
            solver.reset()  # the estimate needs the room
        return estimate_kingdom(position, seconds=budget.search_left(), started=started)


def _quick(position: Position, started: float, deadline: float | None) -> KingdomResult | None:
    """The result from the pure-Python reference solver if it finishes within
    :data:`QUICK_SECONDS`, else None: a small search is done before the compiled kernel
    would have loaded (numba and the kernel take about a second). Both give the same
    numbers (tests/test_fastkernel.py)."""
    limit = started + QUICK_SECONDS
    solver = KingdomSolver()
    try:
        with clock_stops(limit if deadline is None else min(limit, deadline), solver):
            return solve_exact(solver, position, started)
    except BudgetExceeded:
        return None


def solve_exact(solver: KingdomSolver, position: Position, started: float) -> KingdomResult:
    """The exact result with ``solver`` (its deadline may raise BudgetExceeded);
    ``started`` dates the reported seconds."""
    need = position.need
    evaluated = root_options(solver, position)
    best_index, best_score = 0, None
    vectors = []
    for index, (_, value, _) in enumerate(evaluated):
        score = solver.component(value, need)
        vectors.append(value)
        if best_score is None or score > best_score + solver.tie:
            best_index, best_score = index, score
    needs = tuple(map(max, *vectors)) if len(vectors) > 1 else vectors[0]
    outcomes = evaluated[best_index][2]
    if outcomes is None:  # between debates: the root's own distribution, same policy and ties
        part = solver.distribution(*root_state(position), need)
        distribution = _shifted(part, position.wins)
    else:
        distribution = _distribution(solver, outcomes, need, position.wins)
    chance = solver.component(needs, need)
    options = tuple((opt, float(solver.component(v, need))) for opt, v, _ in evaluated)
    return KingdomResult(
        chance=float(chance),
        chance_exact=chance if isinstance(chance, Fraction) else None,
        needs=tuple(float(v) for v in needs),
        best=evaluated[best_index][0],
        options=options,
        distribution=distribution,
        states=solver.state_count(),
        seconds=time.perf_counter() - started,
    )


def _distribution(solver: KingdomSolver, outcomes, need: int, wins: int) -> tuple[float, ...]:
    """P(final wins = j) when the best option's outcomes are played for ``need``."""
    total = [0.0] * (wins + 1)
    for weight, choices in outcomes:
        won, state = solver.best_choice(choices, need)
        part = solver.distribution(*state, need - won)
        offset = wins + won
        if len(total) < offset + len(part):
            total.extend([0.0] * (offset + len(part) - len(total)))
        for j, p in enumerate(part):
            total[offset + j] += float(weight * p)
    while len(total) > 1 and total[-1] == 0:
        total.pop()
    return tuple(total)


def _shifted(part: tuple, wins: int) -> tuple[float, ...]:
    """P(final wins = j) from P(j more wins) after ``wins`` already won."""
    total = [0.0] * wins + [float(p) for p in part]
    while len(total) > 1 and total[-1] == 0:
        total.pop()
    return tuple(total)
