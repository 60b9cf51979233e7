"""What a policy is, and the two baselines ``random`` and ``greedy``.

A policy chooses a kingdom for each drawn hand and an action at each decision.
These two are the yardsticks every stronger policy is measured against; the
others are named in :mod:`search.tours.registry`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from ..game import (
    Action,
    Answer,
    Card,
    CardSet,
    Debate,
    Discard,
    Phase,
    Stream,
    Suit,
    TourState,
    UseAbility,
    VisitState,
    wins_debate,
)


class PolicyName(StrEnum):
    """The policies that play whole tours (see the module docstring)."""

    RANDOM = "random"
    GREEDY = "greedy"
    ADVISOR = "advisor"
    ADVISOR_UNCALIBRATED = "advisor-uncalibrated"
    ADVISOR_QUICK = "advisor-quick"
    ADVISOR_RULE = "advisor-rule"
    ADVISOR_SPEND = "advisor-spend"
    HINDSIGHT = "hindsight"
    HINDSIGHT_PERFECT = "hindsight-perfect"


class Policy(Protocol):
    """Chooses kingdoms and actions; ``rng`` is its own seeded stream."""

    name: str

    def choose_kingdom(self, tour: TourState, hand: CardSet, rng: Stream) -> int:
        """The unvisited position to visit with ``hand``."""
        ...

    def choose_action(self, visit: VisitState, actions: list[Action], rng: Stream) -> Action:
        """One of the legal ``actions``."""
        ...


class RandomPolicy:
    """Uniform among unvisited kingdoms and among legal actions."""

    name = PolicyName.RANDOM

    def choose_kingdom(self, tour: TourState, hand: CardSet, rng: Stream) -> int:
        return rng.choice(tour.unvisited)

    def choose_action(self, visit: VisitState, actions: list[Action], rng: Stream) -> Action:
        return rng.choice(actions)

    def choose_turn_down(
        self, tour: TourState, visit: VisitState, choices: list, rng: Stream
    ) -> tuple:
        return rng.choice(choices)


def hand_strength(hand: CardSet, trump: Suit) -> float:
    """A rough count of the debates a hand wins: 0.85 a trump, rank/16 a side card.

    The figures are coarse averages: a trump wins against most reveals, a side
    card only when its suit turns up lower.
    """
    return sum(0.85 if card.suit == trump else card.rank / 16 for card in hand)


class GreedyPolicy:
    """A simple player: match the target to :func:`hand_strength`, then steer the wins.

    - Kingdom: the unvisited one whose target is closest to the hand's strength
      under its trump (ties to the leftmost).
    - Answer: while wins are still needed, win as cheaply as possible (lowest
      winning card), else throw the lowest card; once the target is reached, lose
      with the highest losing card, else win with the lowest.
    - Abilities (Jacks only, never supporters, never Politics): Diplomacy when the
      target is reached and trumps remain; Military when more wins are needed
      than debates remain; Commerce discards the strongest cards when no win is
      needed and the weakest otherwise.
    """

    name = PolicyName.GREEDY

    def choose_kingdom(self, tour: TourState, hand: CardSet, rng: Stream) -> int:
        def gap(position: int) -> float:
            trump = tour.rulers[position - 1].suit
            return abs(tour.config.target(position) - hand_strength(hand, trump))

        return min(tour.unvisited, key=gap)

    def choose_action(self, visit: VisitState, actions: list[Action], rng: Stream) -> Action:
        need = visit.target - visit.wins
        if visit.phase is Phase.ANSWER:
            return Answer(self._answer(visit, need))
        if visit.phase is Phase.DISCARD:
            ranked = sorted(visit.hand, key=lambda c: (c.suit == visit.trump, c.rank))
            count = min(2, len(ranked))
            chosen = ranked[-count:] if need <= 0 else ranked[:count]
            return Discard(CardSet(chosen))
        jack_uses = {a.suit: a for a in actions if isinstance(a, UseAbility) and a.source is None}
        if need <= 0 and Suit.HEARTS in jack_uses and visit.hand.has_suit(visit.trump):
            return jack_uses[Suit.HEARTS]
        if need > len(visit.hand) and Suit.CLUBS in jack_uses:
            return jack_uses[Suit.CLUBS]
        return Debate()

    @staticmethod
    def _answer(visit: VisitState, need: int) -> Card:
        ruler_card = visit.waiting
        legal = visit.hand.of_suit(ruler_card.suit) or visit.hand
        options = sorted(legal, key=lambda c: (c.suit == visit.trump, c.rank))
        winners = [c for c in options if wins_debate(ruler_card, c, visit.trump)]
        losers = [c for c in options if not wins_debate(ruler_card, c, visit.trump)]
        if need > 0:
            return winners[0] if winners else losers[0]
        return losers[-1] if losers else winners[0]
