"""Spending supporters where they are worth their point (issue 5).

The advisor's play within a visit maximises the chance of the target with the Jacks; a
supporter's ability costs the supporter's point (§5), so whether to spend one is a trade
between chance and score. Late in a visit, when the exact search is small, the advisor
instead maximises the expected payoff (:class:`~search.payoffs.PayoffSolver`) with Jacks and
supporters: success is worth the tour value after winning this kingdom, failure the score the
tour ends with, and each supporter spent costs a point.

The search is bounded by a count of expanded states, not by time, so that a seeded
simulation plays the same way on every machine.
"""

from __future__ import annotations

from .kingdom import _all_pairs, discard_pairs
from .payoffs import Payoffs, PayoffSolver
from .rules import Action, Answer, Debate, Discard, Phase, UseAbility, VisitState
from .cards import CARDS, CardSet, Suit, iter_bits

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
    counts = [0, 0, 0, 0]
    supporters = [0, 0, 0, 0]
    for suit in visit.jacks:
        counts[int(suit)] += 1
    for ruler in visit.supporters:
        counts[int(ruler.suit)] += 1
        supporters[int(ruler.suit)] += 1
    pool = tuple(sorted(int(r.suit) for p, r in enumerate(visit.rulers, 1) if r is not None and p != visit.position))
    state = (visit.hand.mask, visit.deck.mask, visit.discard.mask, int(visit.trump), tuple(counts),
             pool if counts[3] else ())
    return state, tuple(supporters)


def payoff_action(solver: BudgetedPayoffSolver, visit: VisitState) -> Action | None:
    """The action with the best expected payoff with Diplomacy and Politics (Jacks and
    supporters), or None when the search is over budget or the visit has already overshot
    its target. The drawing abilities (♣, ♦) are left to the plain policy: their draws make
    the search large, and late in a visit it seldom wants them."""
    need = visit.target - visit.wins
    if need < 0:
        return None
    state, _ = payoff_state(visit)
    hand, deck, disc, trump, abil, pool = state
    abil = (0, 0, abil[2], abil[3])
    state = (hand, deck, disc, trump, abil, pool)
    solver.ask()
    try:
        if visit.phase is Phase.ANSWER:
            return _best_answer(solver, visit, state, need)
        if visit.phase is Phase.DISCARD:
            return _best_discard(solver, state, need)
        best, best_value = None, None
        for label, outcomes in solver.options(hand, deck, disc, trump, abil, pool):
            value = solver.option_value(outcomes, need)[0]
            if best_value is None or value > best_value:
                best, best_value = label, value
    except TooMuchWork:
        return None
    return _action(visit, best)


def _best_answer(solver, visit: VisitState, state: tuple, need: int) -> Answer:
    hand, deck, disc, trump, abil, pool = state
    card = visit.waiting.index
    same = hand & (0xFF << (8 * (card >> 3)))
    best, best_value = None, None
    for answer in iter_bits(same or hand):
        won = (answer > card) if same else (answer >> 3 == trump and card >> 3 != trump)
        spent = disc | (1 << card) | (0 if won else 1 << answer)
        value = solver._child(won, hand & ~(1 << answer), deck, spent, trump, abil, pool, need)[0]
        if best_value is None or value > best_value:
            best, best_value = answer, value
    return Answer(CARDS[best])


def _best_discard(solver, state: tuple, need: int) -> Discard:
    hand, deck, disc, trump, abil, pool = state
    if hand.bit_count() <= 2:
        return Discard(CardSet(hand))
    pairs = _all_pairs(hand) if solver._reshuffle_possible(hand, deck, disc, abil) else discard_pairs(hand, deck | disc)
    best = max(pairs, key=lambda pair: solver.decide(hand & ~pair, deck, disc | pair, trump, abil, pool, need)[0])
    return Discard(CardSet(best))


def _action(visit: VisitState, label: tuple) -> Action:
    """The engine action of an option label: a Jack when one is face up, else a supporter."""
    if label[0] == "debate":
        return Debate()
    suit = Suit.from_letter(label[0])
    source = None if suit in visit.jacks else next(r for r in visit.supporters if r.suit is suit)
    target = None
    if suit is Suit.SPADES:
        target = next(p for p, r in enumerate(visit.rulers, 1)
                      if r is not None and p != visit.position and int(r.suit) == label[1])
    return UseAbility(suit, source, target)


def payoffs_for(success: float, failure: float, visit: VisitState) -> Payoffs:
    """Payoffs of this visit: a point per supporter spent."""
    _, supporters = payoff_state(visit)
    return Payoffs(success, failure, 1.0, supporters)


def score_best_action(tour, visit: VisitState, planner=None) -> Action | None:
    """For the coach: with a supporter face up and at most ``HAND_LIMIT`` cards left, the
    play best for the expected final score (payoffs from the tour value, a point a supporter
    spent), or None when that search does not apply or runs over its budget."""
    from .planning import HAND_LIMIT, WIN_POINTS, TourPlanner

    if not visit.supporters or len(visit.hand) > HAND_LIMIT or tour.config.first_edition:
        return None
    planner = planner or TourPlanner()
    kingdoms = planner.kingdoms_of(tour)
    index = tour.unvisited.index(visit.position)
    rest = planner.value(kingdoms[:index] + kingdoms[index + 1:]).value
    payoffs = payoffs_for(tour.score + WIN_POINTS + rest, float(tour.score), visit)
    return payoff_action(BudgetedPayoffSolver(payoffs), visit)
