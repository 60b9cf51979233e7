"""Seeded deals: one integer seed fixes the ruler layout and every shuffle.

Randomness comes from :class:`Stream`, BLAKE2b (``hashlib``, part of Python
since 3.6 and specified by RFC 7693) in counter mode, keyed by the seed and a
path naming what is shuffled. Nothing depends on Python's ``random`` module, a
third-party RNG or the platform, so a seed deals the same cards on every machine
and Python version; changing the scheme below changes every deal and must bump
:data:`DEAL_SCHEME`.

- the layout uses path ``("layout",)``;
- visit *v* (1-based) shuffles all 32 cards with path ``("visit", v)`` and draws
  the first 8;
- the *r*-th mid-visit reshuffle of visit *v* (R1) shuffles the discard pile,
  sorted by card index, with path ``("reshuffle", v, r)``.

None of these depends on the player's decisions, so a deal's 8 hands are the
same however it is played.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from .cards import CARDS, Card, CardSet
from .rules import VisitState
from .tour import HAND_SIZE, TourConfig, TourState, new_tour

DEAL_SCHEME = 1
T = TypeVar("T")


class Stream:
    """A deterministic stream of random integers for one (seed, path)."""

    def __init__(self, seed: int, *path: object) -> None:
        text = "/".join(str(part) for part in (DEAL_SCHEME, seed, *path))
        self._key = hashlib.blake2b(text.encode(), digest_size=32).digest()
        self._counter = 0
        self._buffer = 0
        self._bits = 0

    def _refill(self) -> None:
        block = hashlib.blake2b(self._counter.to_bytes(8, "little"), key=self._key).digest()
        self._counter += 1
        self._buffer = int.from_bytes(block, "little")
        self._bits = 8 * len(block)

    def bits(self, count: int) -> int:
        """``count`` fresh random bits as an integer."""
        while self._bits < count:
            block, size = self._buffer, self._bits
            self._refill()
            self._buffer = block | (self._buffer << size)
            self._bits += size
        value = self._buffer & ((1 << count) - 1)
        self._buffer >>= count
        self._bits -= count
        return value

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``, without modulo bias (rejection sampling)."""
        if bound < 1:
            raise ValueError(f"no integer lies in [0, {bound})")
        if bound == 1:
            return 0
        width = (bound - 1).bit_length()
        while True:
            value = self.bits(width)
            if value < bound:
                return value

    def random(self) -> float:
        """A uniform float in [0, 1) with 53 random bits."""
        return self.bits(53) / (1 << 53)

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy of ``items`` (Fisher–Yates)."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def choice(self, items: Sequence[T]) -> T:
        """One element of ``items``, uniformly."""
        return items[self.below(len(items))]


def derive_seed(seed: int, *path: object) -> int:
    """A 63-bit seed derived from ``seed`` and a path (e.g. tour i of a batch)."""
    return Stream(seed, "derive", *path).bits(63)


@dataclass
class Deal:
    """The deal fixed by ``seed``: ruler layout, each visit's shuffle, each reshuffle."""

    seed: int
    config: TourConfig = field(default_factory=TourConfig)

    def layout(self) -> tuple:
        """The rulers on positions 1..n."""
        return tuple(Stream(self.seed, "layout").shuffle(self.config.ruler_cards))

    def tour(self) -> TourState:
        """A fresh tour with this deal's layout."""
        return new_tour(self.layout(), self.config)

    def visit_order(self, visit: int) -> list[Card]:
        """All 32 cards in visit ``visit``'s shuffled order, top first."""
        return Stream(self.seed, "visit", visit).shuffle(CARDS)

    def hand(self, visit: int) -> CardSet:
        """The 8 cards drawn at the start of visit ``visit``."""
        return CardSet(self.visit_order(visit)[:HAND_SIZE])

    def hands(self) -> list[CardSet]:
        """The hand of every visit of the tour, whatever is played."""
        return [self.hand(v) for v in range(1, self.config.kingdoms + 1)]

    def dealer(self, visit: int) -> Dealer:
        """The source of the cards turning up during visit ``visit``."""
        return Dealer(self.seed, visit, self.visit_order(visit)[HAND_SIZE:])


class Dealer:
    """Turns up the deck's top card for one visit of a seeded deal.

    The order is fixed when the deck is shuffled; after the r-th reshuffle (R1)
    the new deck's order comes from path ``("reshuffle", visit, r)``.
    """

    def __init__(self, seed: int, visit: int, order: list[Card]) -> None:
        self.seed = seed
        self.visit = visit
        self._order = order
        self._reshuffles = 0
        self._next = 0

    def next_card(self, state: VisitState) -> Card:
        """The card that turns up now in ``state`` (a chance step)."""
        if state.reshuffles != self._reshuffles:
            self._reshuffles = state.reshuffles
            stream = Stream(self.seed, "reshuffle", self.visit, state.reshuffles)
            self._order = stream.shuffle(list(state.deck))
            self._next = 0
        while self._order[self._next] not in state.deck:
            self._next += 1
        card = self._order[self._next]
        self._next += 1
        return card
