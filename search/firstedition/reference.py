"""First edition (2019): the visit policy that spends the least reputation (docs/rules.md §6, R5-R7).

In the first edition a visit's cost is the reputation it spends: one card per ability used
and, at the end, one per debate the wins miss the target by (R7). This module computes, for
a visit from its start, the least *expected* cost under best play, and under that policy
the chance of hitting the target exactly and the distribution of the miss. A decision that
trades chance against reputation is scored by expected reputation alone; ties go to the
first option listed (debate before abilities).

Values are vectors over the wins still wanted, ``need`` = -8..8 (index ``need + 8``): one
search serves every target. The deck never runs out in this edition (no Military; at most
three Commerce draws of 2 beside 8 reveals), so the discard pile never matters.

Abilities (R6), each costing 1: ♣ makes the waiting debate a win, ♥ a loss (only while a
ruler's card waits; a legal card is still played); ♦ draws 2 and discards 2 (R3: the whole
hand if it holds two or fewer); ♠ makes spades trump for the rest of the visit.

A pure-Python reference: fast enough for a hand with a Jack or two; with all four Jacks,
hands of eight cards take long (see docs/first-edition.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from math import comb

from ..game import debate_won, legal_answer_mask
from ..infra import TimeLimitExceeded
from ..visit import bits_of, draw_combinations, signature

OFFSET = 8
WIDTH = 2 * OFFSET + 1
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
BYTE = 0xFF
SUIT_MASKS = tuple(BYTE << (8 * s) for s in range(4))


def _wins(ruler_card: int, answer: int, trump: int) -> bool:
    """Who wins a debate, for cards given as bits (:func:`search.game.debate_won`)."""
    return debate_won(ruler_card.bit_length() - 1, answer.bit_length() - 1, trump)


def shift_wins(vector: tuple, won: bool) -> tuple:
    """The vector of a child reached with a win: need n here is need n - 1 there."""
    if not won:
        return vector
    return (vector[0] + 1,) + vector[:-1]  # below -8 wins cannot happen; keep the cost finite


EPS = 1e-12  # costs closer than this are a tie: the first option in the order above wins
TERMINAL = tuple(float(abs(n - OFFSET)) for n in range(WIDTH))


@dataclass(frozen=True)
class VisitCost:
    """The least expected reputation a visit spends, and what its best policy gives."""

    cost: float  # expected reputation spent: abilities used plus the miss
    chance: float  # P(wins == target) under that policy
    miss: tuple[float, ...]  # P(miss == m), m = 0, 1, ...
    states: int
    seconds: float = 0.0


class FirstEditionSolver:
    """Expectimax (minimising expected cost) over a first-edition visit, memoised. Past its
    ``deadline`` (a ``time.perf_counter()`` reading, set for a block by
    :func:`search.visit.clock_stops`) a search raises :class:`~search.infra.TimeLimitExceeded`."""

    deadline: float | None = None

    def __init__(self) -> None:
        self.memo: dict = {}
        self.miss_memo: dict = {}

    def _key(self, hand: int, deck: int, trump: int, abil: tuple) -> tuple:
        """Each suit's interleaving of hand and deck; suits of one role sorted (trump; spades
        while ♠ can still make them trump; the rest)."""
        special = SPADES if abil[SPADES] and trump != SPADES else -1
        rest = []
        fixed = []
        for s in range(4):
            sig = signature((hand >> 8 * s) & BYTE, (deck >> 8 * s) & BYTE)
            if s == trump or s == special:
                fixed.append((s == trump, sig))
            else:
                rest.append(sig)
        return (tuple(sorted(fixed)), tuple(sorted(rest)), abil)

    def value(self, hand: int, deck: int, trump: int, abil: tuple) -> tuple:
        """Expected cost for each need -8..8 at a decision between debates."""
        if not hand:
            return TERMINAL
        key = self._key(hand, deck, trump, abil)
        known = self.memo.get(key)
        if known is not None:
            return known
        if (
            self.deadline is not None
            and len(self.memo) % 64 == 0
            and time.perf_counter() > self.deadline
        ):
            raise TimeLimitExceeded
        best = None
        for _, value in self.options(hand, deck, trump, abil):
            best = value if best is None else tuple(map(min, best, value))
        self.memo[key] = best
        return best

    def options(self, hand: int, deck: int, trump: int, abil: tuple) -> list[tuple[tuple, tuple]]:
        """(label, cost vector) of every option between debates: debate, ♦, ♠."""
        result = [(("debate",), self._debate(hand, deck, trump, abil))]
        if abil[DIAMONDS]:
            rest = _less(abil, DIAMONDS)
            total = comb(deck.bit_count(), 2)
            acc = [0.0] * WIDTH
            for drawn, ways in draw_combinations(hand, deck, 0, 2):
                grown = hand | drawn
                if grown.bit_count() <= 2:
                    value = TERMINAL
                else:
                    value = None
                    for pair in _pairs(grown):
                        child = self.value(grown & ~pair, deck & ~drawn, trump, rest)
                        value = child if value is None else tuple(map(min, value, child))
                weight = ways / total
                acc = [a + weight * v for a, v in zip(acc, value)]
            result.append((("D",), tuple(1.0 + a for a in acc)))
        if abil[SPADES] and trump != SPADES:
            child = self.value(hand, deck, SPADES, _less(abil, SPADES))
            result.append((("S",), tuple(1.0 + v for v in child)))
        return result

    def _debate(self, hand: int, deck: int, trump: int, abil: tuple) -> tuple:
        size = deck.bit_count()
        acc = [0.0] * WIDTH
        for revealed in bits_of(deck):
            value = self.answer_value(hand, deck & ~revealed, trump, abil, revealed)
            acc = [a + v / size for a, v in zip(acc, value)]
        return tuple(acc)

    def answers(self, hand: int, deck: int, trump: int, abil: tuple, revealed: int) -> list:
        """(label, cost vector) of every answer to ``revealed``, alone or with ♣ or ♥."""
        legal = legal_answer_mask(hand, revealed.bit_length() - 1)
        result = []
        for answer in bits_of(legal):
            child_hand = hand & ~answer
            won = _wins(revealed, answer, trump)
            result.append(
                (("answer", answer), shift_wins(self.value(child_hand, deck, trump, abil), won))
            )
            for ability, forced in ((CLUBS, True), (HEARTS, False)):
                if abil[ability]:
                    child = self.value(child_hand, deck, trump, _less(abil, ability))
                    label = ("C" if forced else "H", answer)
                    result.append((label, tuple(1.0 + v for v in shift_wins(child, forced))))
        return result

    def answer_value(self, hand: int, deck: int, trump: int, abil: tuple, revealed: int) -> tuple:
        best = None
        for _, value in self.answers(hand, deck, trump, abil, revealed):
            best = value if best is None else tuple(map(min, best, value))
        return best

    def solve(self, hand: int, trump: int, abil: tuple, target: int) -> VisitCost:
        """A visit's start: 8 (or fewer) cards, everything else unseen."""
        started = time.perf_counter()
        deck = ((1 << 32) - 1) & ~hand
        cost = self.value(hand, deck, trump, abil)[target + OFFSET]
        miss = self._miss(hand, deck, trump, abil, target)
        seconds = time.perf_counter() - started
        return VisitCost(cost, miss[0] if miss else 0.0, tuple(miss), len(self.memo), seconds)

    def _miss(self, hand: int, deck: int, trump: int, abil: tuple, need: int) -> list[float]:
        """P(final |miss| = m) when the cost-minimising policy for ``need`` is played."""
        if not hand:
            return [0.0] * abs(need) + [1.0]
        key = (self._key(hand, deck, trump, abil), need)
        known = self.miss_memo.get(key)
        if known is not None:
            return known
        options = self.options(hand, deck, trump, abil)
        label, _ = _first_best(options, need)
        total: list[float] = []
        if label[0] == "debate":
            size = deck.bit_count()
            for revealed in bits_of(deck):
                rest = deck & ~revealed
                answers = self.answers(hand, rest, trump, abil, revealed)
                (kind, answer), _ = _first_best(answers, need)
                won = kind == "C" or (kind == "answer" and _wins(revealed, answer, trump))
                child_abil = (
                    _less(abil, CLUBS if kind == "C" else HEARTS) if kind in ("C", "H") else abil
                )
                _add(
                    total, self._miss(hand & ~answer, rest, trump, child_abil, need - won), 1 / size
                )
        elif label[0] == "S":
            _add(total, self._miss(hand, deck, SPADES, _less(abil, SPADES), need), 1.0)
        else:
            rest_abil = _less(abil, DIAMONDS)
            draws = draw_combinations(hand, deck, 0, 2)
            count = comb(deck.bit_count(), 2)
            for drawn, ways in draws:
                grown = hand | drawn
                if grown.bit_count() <= 2:
                    _add(total, [0.0] * abs(need) + [1.0], ways / count)
                    continue
                discards = [
                    (p, self.value(grown & ~p, deck & ~drawn, trump, rest_abil))
                    for p in _pairs(grown)
                ]
                pair, _ = _first_best(discards, need)
                _add(
                    total,
                    self._miss(grown & ~pair, deck & ~drawn, trump, rest_abil, need),
                    ways / count,
                )
        self.miss_memo[key] = total
        return total


def _first_best(options: list[tuple], need: int) -> tuple:
    """The first (label, vector) whose cost for ``need`` is within ``EPS`` of the least:
    values computed in another order may differ by rounding, and ties must go the same way."""
    least = min(vector[need + OFFSET] for _, vector in options)
    return next(o for o in options if o[1][need + OFFSET] <= least + EPS)


def _add(total: list[float], part: list[float], weight: float) -> None:
    if len(total) < len(part):
        total.extend([0.0] * (len(part) - len(total)))
    for m, p in enumerate(part):
        total[m] += weight * p


def _pairs(hand: int) -> list[int]:
    cards = bits_of(hand)
    return [a | b for i, a in enumerate(cards) for b in cards[i + 1 :]]


def _less(abil: tuple, suit: int) -> tuple:
    counts = list(abil)
    counts[suit] -= 1
    return tuple(counts)
