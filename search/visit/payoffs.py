"""A visit valued by what it is worth to the tour: payoffs instead of a bare chance.

A supporter's ability costs its point (§5), so within a visit a decision trades the chance
of success against score. :class:`PayoffSolver` maximises the expected payoff

    success (exact target) or failure, minus ``supporter_cost`` per supporter used

for one target, with the payoffs taken from the tour value (:mod:`search.tours.planning`):
success = the expected final score after winning this kingdom, failure = the score the
tour ends with, cost = 1 point. With payoffs (1, 0, 0) it is the chance of
:class:`~search.visit.reference.KingdomSolver`.

Ability counts join a suit's Jack and its supporters; a Jack costs nothing and does what
a supporter of its suit does, so best play turns the Jack first, and the supporters spent
are ``max(0, supporters - uses left)`` of each suit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game import beaten_count, card_available, diplomacy_usable, refill
from .reference import HEARTS, KingdomSolver


@dataclass(frozen=True)
class Payoffs:
    """What a visit's end is worth, and the price of each supporter spent."""

    success: float = 1.0
    failure: float = 0.0
    supporter_cost: float = 0.0
    supporters: tuple[int, int, int, int] = (0, 0, 0, 0)  # supporters among the counts, ♣ ♦ ♥ ♠

    def spent(self, abil: tuple) -> int:
        """Supporters used once ``abil`` uses are left (Jacks go first)."""
        return sum(max(0, have - left) for have, left in zip(self.supporters, abil))

    def end(self, hit: bool, abil: tuple) -> float:
        """The payoff of a visit ended with ``abil`` left."""
        return (self.success if hit else self.failure) - self.supporter_cost * self.spent(abil)


class PayoffSolver(KingdomSolver):
    """Expected payoff under best play, one target at a time (``need`` = wins still wanted)."""

    def __init__(self, payoffs: Payoffs, **options) -> None:
        super().__init__(**options)
        self.payoffs = payoffs

    def value(
        self, hand: int, deck: int, disc: int, trump: int, abil: tuple, pool: tuple, need: int
    ) -> float:
        """The expected payoff of a DECIDE node for ``need`` more wins."""
        return self.worth(need, hand, deck, disc, trump, tuple(abil), tuple(pool))

    def worth(self, need, hand, deck, disc, trump, abil, pool):
        if need < 0:
            return self.overshot_value(abil)[0]
        return self.decide(hand, deck, disc, trump, abil, pool, need)[0]

    def option_worth(self, outcomes, need):
        return self.option_value(outcomes, need)[0]

    def terminal_value(self, need, abil=None) -> tuple:
        if need is None:
            raise ValueError("payoffs are solved one target at a time")
        return (self.payoffs.end(need == 0, abil),)

    def overshot_value(self, abil) -> tuple:
        return (self.payoffs.end(False, abil),)  # no ability is worth a point from here

    def last_card_value(self, hand, deck, disc, trump, abil, need):
        """A lone last card and no ability that draws or swaps: debate it (it wins against
        the share of unseen cards it beats), or throw a trump away with Diplomacy."""
        if need is None:
            raise ValueError("payoffs are solved one target at a time")
        if not card_available(deck, disc):
            return self.terminal_value(need, abil)  # R2
        deck, disc = refill(deck, disc)  # R1
        win = beaten_count(hand, deck, trump) / deck.bit_count()
        end = self.payoffs.end
        debate = win * end(need == 1, abil) + (1 - win) * end(need == 0, abil)
        if abil[HEARTS] and diplomacy_usable(hand, trump):
            rest = list(abil)
            rest[HEARTS] -= 1
            debate = max(debate, end(need == 0, tuple(rest)))
        return (debate,)
