"""Playing the first edition (R5-R7) by the least-reputation solver.

The solver (:mod:`search.firstedition.kernel`) values states as masks; this module maps a
live :class:`~search.game.rules.VisitState` onto them, ranks every legal action by the
expected reputation it leads to spend, and builds the ``advisor`` policy on that.

How a decision is scored (the issue asks us to say): within a visit, by expected
reputation spent alone — abilities used plus the final miss (R6, R7); a chance of hitting
the target counts only through the misses it avoids. Between visits the advisor picks the
kingdom with the least *expected net loss*: the expected cost, minus the chance of a hit
(a hit brings a new supporter, R5), plus, for each kingdom still to come, the chance that
the miss ends the tour (R7).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ..game import (
    CARDS,
    Action,
    Answer,
    CardSet,
    Debate,
    Discard,
    Phase,
    Stream,
    Suit,
    TourState,
    UseAbility,
    VisitState,
    ability_sources,
    legal_answers,
)
from ..visit import Abilities, Budget, BudgetExceeded, clock_stops, legal_discards_of
from .kernel import FastFirstEditionSolver
from .reference import OFFSET, shift_wins

MEMO_LIMIT = 2_000_000  # states kept across visits before the memo starts afresh
TURN_DOWN_WORTH = {Suit.DIAMONDS: 0.0, Suit.SPADES: 1.0, Suit.HEARTS: 2.0, Suit.CLUBS: 2.0}
SPARE_WORTH = 0.5  # a second card of a suit already face up


def ability_counts(jacks, supporters, commerce: bool = True) -> tuple[int, int, int, int]:
    """Face-up Jacks and unused supporters per suit (♣ ♦ ♥ ♠); without ♦ if not ``commerce``."""
    counts = list(Abilities.of(jacks, [r.suit for r in supporters]).counts)
    if not commerce:
        counts[int(Suit.DIAMONDS)] = 0
    return tuple(min(n, 3) for n in counts)


@dataclass(frozen=True)
class RankedAction:
    """A legal action and the expected reputation the rest of the visit spends after it."""

    action: Action
    cost: float
    then: Answer | None = None  # for ♣/♥ on a waiting card: the answer to play with it


def rank_actions(
    solver: FastFirstEditionSolver, visit: VisitState, commerce: bool = True
) -> list[RankedAction]:
    """Every legal action at ``visit``'s decision, cheapest first (ties keep the order
    debate, ♦, ♠; answers low to high, each alone before ♣ and ♥)."""
    hand, deck, trump = visit.hand.mask, visit.deck.mask, int(visit.trump)
    abil = ability_counts(visit.jacks, visit.supporters, commerce)
    index = visit.target - visit.wins + OFFSET
    ranked: list[RankedAction] = []
    if visit.phase is Phase.ANSWER:
        if visit.verdict is not None:  # ♣ or ♥ already settled this debate (R6)
            for card in sorted(legal_answers(visit.hand, visit.waiting)):
                child = solver.value(hand & ~card.bit, deck, trump, abil)
                ranked.append(RankedAction(Answer(card), shift_wins(child, visit.verdict)[index]))
        else:
            for (kind, answer), vector in solver.answers(
                hand, deck, trump, abil, visit.waiting.bit
            ):
                card = CARDS[answer.bit_length() - 1]
                if kind == "answer":
                    ranked.append(RankedAction(Answer(card), vector[index]))
                else:
                    suit = Suit.CLUBS if kind == "C" else Suit.HEARTS
                    ranked.append(RankedAction(_use(visit, suit), vector[index], Answer(card)))
    elif visit.phase is Phase.DISCARD:
        for pair in legal_discards_of(visit.hand):
            vector = solver.value(hand & ~pair.mask, deck, trump, abil)
            ranked.append(RankedAction(Discard(pair), vector[index]))
    else:
        for (label, *_), vector in solver.options(hand, deck, trump, abil):
            action = Debate() if label == "debate" else _use(visit, Suit.from_letter(label))
            ranked.append(RankedAction(action, vector[index]))
    return sorted(ranked, key=lambda r: r.cost)  # stable: ties keep the listed order


def _use(visit: VisitState, suit: Suit) -> UseAbility:
    """Turn down the Jack of ``suit`` if it is face up, else a supporter of that suit."""
    return UseAbility(suit, ability_sources(visit, suit)[0])


@dataclass(frozen=True)
class KingdomCost:
    """What visiting one kingdom with a hand is expected to cost."""

    position: int
    cost: float  # expected reputation spent (abilities and miss)
    chance: float  # P(exact target) under the least-cost play
    miss: tuple[float, ...]  # P(miss = m)
    commerce: bool = True  # False: ♦ was face up but not searched (cost is then an upper bound)

    def ending(self, reputation: int) -> float:
        """P(the miss is at least ``reputation``): a miss the face-up cards cannot pay (R7)."""
        return sum(self.miss[reputation:])

    def net_loss(self, reputation: int, later: int) -> float:
        """Expected cost, less the supporter a hit brings, plus ``later`` kingdoms lost
        with the chance the tour ends here."""
        return self.cost - self.chance + later * self.ending(reputation)


def kingdom_cost(
    solver: FastFirstEditionSolver, tour: TourState, hand: CardSet, position: int, abil: tuple
) -> KingdomCost:
    """Visiting kingdom ``position`` with ``hand`` and abilities ``abil``."""
    trump = int(tour.rulers[position - 1].suit)
    result = solver.solve(hand.mask, trump, abil, tour.config.target(position))
    return KingdomCost(position, result.cost, result.chance, result.miss)


def kingdom_costs(
    solver: FastFirstEditionSolver, tour: TourState, hand: CardSet, commerce: bool = True
) -> dict[int, KingdomCost]:
    """Each unvisited kingdom's expected cost with ``hand`` and the tour's face-up cards."""
    abil = ability_counts(tour.jacks, tour.unused_supporters, commerce)
    return {p: kingdom_cost(solver, tour, hand, p, abil) for p in tour.unvisited}


def net_losses(tour: TourState, costs: dict[int, KingdomCost]) -> dict[int, float]:
    """Each kingdom's net loss (:meth:`KingdomCost.net_loss`) at ``tour``'s reputation."""
    later = len(tour.unvisited) - 1
    return {p: k.net_loss(tour.reputation, later) for p, k in costs.items()}


def least_net_loss(tour: TourState, costs: dict[int, KingdomCost]) -> int:
    """The kingdom to visit: the least net loss (ties to the leftmost)."""
    losses = net_losses(tour, costs)
    return min(tour.unvisited, key=lambda p: (losses[p], p))


@dataclass(frozen=True)
class FirstEditionAdvice:
    """The kingdom table of ``advise --variant first-edition``."""

    kingdoms: dict[int, KingdomCost]
    recommended: int
    reputation: int
    seconds: float

    @property
    def exact(self) -> bool:
        """Whether every cost searched every face-up ability (♦ included)."""
        return all(k.commerce for k in self.kingdoms.values())


def advise_first_edition(
    tour: TourState, hand: CardSet, time_limit: float | None = 5.0
) -> FirstEditionAdvice:
    """Each unvisited kingdom's expected cost, chance and misses; the least net loss first.

    Every kingdom is solved without Commerce first (milliseconds); then, while the time limit
    lasts, the trumps are solved again with ♦ in play. A kingdom whose ♦ search did not
    finish keeps the first figures, flagged: they are an upper bound on the least cost.
    """
    started = time.perf_counter()
    solver = FastFirstEditionSolver()
    costs = kingdom_costs(solver, tour, hand, commerce=False)
    abil = ability_counts(tour.jacks, tour.unused_supporters)
    if abil[int(Suit.DIAMONDS)]:
        costs = {p: replace(k, commerce=False) for p, k in costs.items()}
        full = FastFirstEditionSolver()
        with clock_stops(Budget(time_limit, started=started).end(), full):
            for trump in dict.fromkeys(tour.rulers[p - 1].suit for p in tour.unvisited):
                group = [p for p in tour.unvisited if tour.rulers[p - 1].suit is trump]
                try:
                    for position in group:
                        costs[position] = kingdom_cost(full, tour, hand, position, abil)
                except BudgetExceeded:
                    break
    best = least_net_loss(tour, costs)
    return FirstEditionAdvice(costs, best, tour.reputation, time.perf_counter() - started)


class VisitSearch:
    """The two solvers a visit's decisions share (with ♦ and without), so that each ranking
    after the first mostly looks up what the earlier ones solved."""

    def __init__(self) -> None:
        self.full = FastFirstEditionSolver()
        self.plain = FastFirstEditionSolver()


def rank_first_edition(
    visit: VisitState, time_limit: float | None = 5.0, search: VisitSearch | None = None
) -> tuple[list[RankedAction], bool]:
    """Every legal action ranked by expected cost, and whether ♦ was searched: with a
    face-up ♦ the search tries it within ``time_limit`` and ranks without it past that
    (the costs are then upper bounds, and Commerce itself is not listed). ``search`` carries
    the memo from one decision of a visit to the next."""
    search = search or VisitSearch()
    try:
        with clock_stops(Budget(time_limit).end(), search.full):
            return rank_actions(search.full, visit), True
    except BudgetExceeded:
        return rank_actions(search.plain, visit, commerce=False), False


class FirstEditionPolicy:
    """The first-edition ``advisor``: the kingdom with the least expected net loss, then
    least-cost play. It plans without Commerce: an exact search with ♦ takes seconds a hand
    (docs/first-edition.md) and, measured, saves at most a few hundredths of a card, so the
    policy never spends its ♦ (the card stays face up as reputation)."""

    name = "advisor"

    def __init__(self) -> None:
        self.solver = FastFirstEditionSolver()

    def choose_kingdom(self, tour: TourState, hand: CardSet, rng: Stream) -> int:
        if self.solver.states > MEMO_LIMIT:
            self.solver = FastFirstEditionSolver()
        return least_net_loss(tour, kingdom_costs(self.solver, tour, hand, commerce=False))

    def choose_action(self, visit: VisitState, actions: list[Action], rng: Stream) -> Action:
        best = rank_actions(self.solver, visit, commerce=False)[0]
        return best.action

    def choose_turn_down(
        self, tour: TourState, visit: VisitState, choices: list, rng: Stream
    ) -> tuple:
        return turn_down_choice(visit, choices)


def turn_down_choice(visit: VisitState, choices: list) -> tuple:
    """The cards to pay a miss with (R7), keeping the abilities worth most: ♣ and ♥ steer
    wins, ♠ less, ♦ least; a second card of a suit is worth less than the first."""
    face_up = [*visit.jacks, *(r.suit for r in visit.supporters)]

    def kept_worth(choice: tuple) -> float:
        left = list(face_up)
        for card in choice:
            left.remove(card if isinstance(card, Suit) else card.suit)
        return sum(TURN_DOWN_WORTH[s] + SPARE_WORTH * (left.count(s) - 1) for s in set(left))

    return max(choices, key=kept_worth)
