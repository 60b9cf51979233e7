"""Spending supporters where they are worth their point (issue 5).

The advisor's play within a visit maximises the chance of the target with the Jacks; a
supporter's ability costs the supporter's point (§5), so whether to spend one is a trade
between chance and score. Late in a visit, when the exact search is small, the advisor
instead maximises the expected payoff (:class:`~search.visit.payoffs.PayoffSolver`) with Jacks and
supporters: success is worth the tour value after winning this kingdom, failure the score the
tour ends with, and each supporter spent costs a point.

The search is bounded by a count of expanded states, not by time, so that a seeded
simulation plays the same way on every machine.
"""

from __future__ import annotations

from ..game import CARDS, Action, Answer, CardSet, Discard, Phase, VisitState
from ..visit import (
    Abilities,
    Payoffs,
    PayoffSolver,
    action_of_label,
    best_answer,
    best_discard,
    choose_option,
    planning_state,
    position_from_visit,
)
from .planning import HAND_LIMIT, WIN_POINTS, advisor_planner

EXPANSIONS = 5_000  # states a decision may expand before the plain policy decides instead


class TooMuchWork(Exception):
    """The payoff search expanded more states than its budget."""


class BudgetedPayoffSolver(PayoffSolver):
    """A payoff search that stops after ``budget`` more expansions per question."""

    def __init__(self, payoffs: Payoffs, budget: int | None = None) -> None:
        super().__init__(payoffs)
        self.budget = EXPANSIONS if budget is None else budget
        self.limit = self.budget

    def ask(self) -> None:
        """Start a new question: ``budget`` expansions from now."""
        self.limit = self.stats.expansions + self.budget

    def decide(self, *args):
        if self.stats.expansions > self.limit:
            raise TooMuchWork
        return super().decide(*args)


def payoff_state(visit: VisitState) -> tuple[tuple, tuple[int, int, int, int]]:
    """The visit as solver masks with Jacks and supporters, and the supporters per suit."""
    position = position_from_visit(visit)
    abilities = position.abilities
    supporters = Abilities.of(supporters=[r.suit for r in visit.supporters]).counts
    state = (
        visit.hand.mask,
        visit.deck.mask,
        visit.discard.mask,
        int(visit.trump),
        abilities.counts,
        abilities.pool if abilities.counts[3] else (),
    )
    return state, supporters


def payoff_action(solver: BudgetedPayoffSolver, visit: VisitState) -> Action | None:
    """The action with the best expected payoff with Diplomacy and Politics (Jacks and
    supporters), or None when the search is over budget or the visit has already overshot
    its target. The drawing abilities (♣, ♦) are left to the plain policy: their draws make
    the search large, and late in a visit it seldom wants them. The choices are those of the
    plain policy's helpers (:mod:`search.visit.estimate`), asked of the payoff solver."""
    need = visit.target - visit.wins
    if need < 0:
        return None
    state = planning_state(payoff_state(visit)[0])  # no drawing ability
    solver.ask()
    try:
        if visit.phase is Phase.ANSWER:
            return Answer(
                CARDS[best_answer(solver, state, visit.waiting.index, need, fallback=False)]
            )
        if visit.phase is Phase.DISCARD:
            return Discard(CardSet(best_discard(solver, state, need, fallback=False)))
        label = choose_option(solver, state, need, first=False, fallback=False)
    except TooMuchWork:
        return None
    return action_of_label(visit, label)


def payoffs_for(success: float, failure: float, visit: VisitState) -> Payoffs:
    """Payoffs of this visit: a point per supporter spent."""
    _, supporters = payoff_state(visit)
    return Payoffs(success, failure, 1.0, supporters)


def score_best_action(tour, visit: VisitState, planner=None) -> Action | None:
    """For the coach: with a supporter face up and at most ``HAND_LIMIT`` cards left, the
    play best for the expected final score (payoffs from the tour value, a point a supporter
    spent), or None when that search does not apply or runs over its budget."""
    if not visit.supporters or len(visit.hand) > HAND_LIMIT or tour.config.first_edition:
        return None
    stake = visit_stake(tour, visit.position, planner)
    payoffs = payoffs_for(tour.score + stake, float(tour.score), visit)
    return payoff_action(BudgetedPayoffSolver(payoffs), visit)


def visit_stake(tour, position: int, planner=None) -> float:
    """What winning the visit to kingdom ``position`` is worth in expected final score over
    losing it (a lost visit ends the tour, §5): its points and the tour value of the kingdoms
    left after it. A play's cost in final score is this times the chance it gives up."""
    planner = planner or advisor_planner()
    kingdoms = planner.kingdoms_of(tour)
    index = tour.unvisited.index(position)
    return WIN_POINTS + planner.value(kingdoms[:index] + kingdoms[index + 1 :]).value


LEVEL = 1e-9
"""Two exact chances closer than this are level (float noise, not a difference)."""


def clearly_better(better, worse) -> bool:
    """Whether move ``better`` beats move ``worse`` beyond noise: ``worse``'s chance lies
    below ``better``'s 95% interval (its chance, less :data:`LEVEL`, when exact), and
    ``better``'s chance above ``worse``'s interval. Moves are
    :class:`~search.tours.moves.Move` (``chance``, ``interval``)."""
    low = better.interval[0] if better.interval is not None else better.chance
    high = worse.interval[1] if worse.interval is not None else worse.chance
    return worse.chance < low - LEVEL and high < better.chance - LEVEL


def gain_low(better, worse) -> float:
    """The least chance ``better`` adds over ``worse`` that their 95% intervals allow (the
    chances themselves where exact; a proven lower bound may be as high as 1)."""
    low = better.interval[0] if better.interval is not None else better.chance
    if worse.interval is not None:
        high = worse.interval[1]
    else:
        high = 1.0 if getattr(worse, "proven", False) else worse.chance
    return low - high


def worth_its_point(move, free, stake: float | None) -> bool:
    """Whether supporter option ``move`` is worth spending its point rather than playing free
    option ``free``: the chance it surely adds, times what winning the visit is worth in final
    score (``stake``), exceeds the point it costs (§5). Without a stake, a clear gain in
    chance (:func:`clearly_better`) is enough."""
    if stake is None:
        return clearly_better(move, free)
    return clearly_better(move, free) and gain_low(move, free) * stake > SUPPORTER_POINT


SUPPORTER_POINT = 1.0
"""A supporter spent is a point off the final score (§5)."""


def free_first(moves, stake: float | None = None) -> tuple:
    """``moves`` (best first) with no supporter's option above a free option unless it is
    worth its point against it (:func:`worth_its_point`): a gain within an estimate's noise,
    a tie, or a gain worth less than a point of final score is no reason to spend one. Each
    such option moves to just below the last free option it does not beat; the order is
    otherwise kept."""
    ranked = list(moves)
    for move in [m for m in ranked if m.source is not None]:
        at = ranked.index(move)
        level = [
            i
            for i in range(at + 1, len(ranked))
            if ranked[i].source is None and not worth_its_point(move, ranked[i], stake)
        ]
        if level:
            ranked.insert(level[-1] + 1, move)
            del ranked[at]
    return tuple(ranked)
