"""The chance of a kingdom from what the player sees (RULINGS.md §7): the exact search, or
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

from ..game import wins_debate
from ..infra import BudgetExceeded, MemoryLimitExceeded
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
from .solvers import make_solver


def root_options(solver: KingdomSolver, position: Position) -> list[tuple[Option, tuple, list]]:
    """Each option at the root: (option, value vector over needs, its outcomes or None)."""
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
        follow = position.hand.of_suit(waiting.suit) or position.hand
        for card in follow:
            won = wins_debate(waiting, card, position.trump)
            lost_to = 0 if won else card.bit
            state = (hand & ~card.bit, deck, disc | waiting.bit | lost_to, trump, abil, pool)
            value = solver.child_value(won, *state, None)
            result.append((Option("answer", card=card), value, [(solver.one, [(won, state)])]))
        return result
    result = []
    for label, outcomes in solver.options(hand, deck, disc, trump, abil, pool):
        result.append((option_of_label(label), solver.option_value(outcomes, None), outcomes))
    return result



def solve_kingdom(
    position: Position,
    exact: bool = False,
    time_limit: float | None = None,
    solver: KingdomSolver | None = None,
) -> KingdomResult:
    """Solve ``position`` exactly; past ``time_limit`` seconds, estimate by Monte Carlo."""
    position.validate()
    started = time.perf_counter()
    deadline = started + time_limit if time_limit is not None else None
    if solver is None:
        solver = make_solver(exact, deadline)
    else:
        solver.deadline = deadline
    try:
        return solve_exact(solver, position, started)
    except BudgetExceeded as error:
        if isinstance(error, MemoryLimitExceeded):
            solver.reset()  # the estimate needs the room
        return estimate_kingdom(position, seconds=time_limit, started=started)
    finally:
        solver.deadline = None


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
        if best_score is None or score > best_score:
            best_index, best_score = index, score
    needs = tuple(map(max, *vectors)) if len(vectors) > 1 else vectors[0]
    distribution = _distribution(solver, evaluated[best_index][2], need, position.wins)
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
