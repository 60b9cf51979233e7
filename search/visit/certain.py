"""Which targets are certain: 100% or 0% exactly, for any ability set (issue 37, item 3).

An exact chance with every Jack needs 10^8-10^9 states, but two yes/no questions about the
same game tree are much cheaper, and each settles a chance exactly (docs/rules.md §7):

- **sure**: is there a policy that ends the visit with exactly the target against *every*
  deck order? Then the chance is exactly 1. Player choices are an OR, chance outcomes an AND.
- **possible**: is there *any* deck order and play that ends with exactly the target? If not,
  the chance is exactly 0 (a policy can copy any one line of play, which has a positive
  probability, so "possible" is "chance above 0"). Both are an OR.

By induction over the tree, "sure" holds exactly where the expectimax of
:mod:`search.visit.reference` gives 1 and "possible" exactly where it gives more than 0, so
with no work limit a verdict is never wrong and never missing (``tests/test_certainty.py``
checks both against the exact solvers). The answers for every number of wins still needed
(0..8) form a bitmask; the compiled search (``_certain`` in :mod:`.kernel`, on the kernel's
own keys, options and work stack, so no rule is stated again) asks each child only for the
bits still open and stops a node once they are settled: an option as soon as one outcome
misses every bit still wanted (sure), a node as soon as an option hits them all.

:func:`certainty` gives a :class:`Certainty`: ``sure`` (100%), ``impossible`` (0%), ``open``
(neither: the chance is strictly between) or ``unknown`` (the work limit, the deadline or the
memory cap stopped it first). :class:`ReferenceCertainty` is the same in pure Python over the
reference's options, with no short cuts, for the tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..game import legal_answers, wins_debate
from ..infra import BudgetExceeded
from .budget import clock_stops
from .position import Position, legal_discards_of, root_state
from .reference import MAX_NEED, SPADES, KingdomSolver

SURE, IMPOSSIBLE, OPEN, UNKNOWN = "sure", "impossible", "open", "unknown"
"""The verdicts: the chance is exactly 1, exactly 0, strictly between, or not settled."""
ALL_NEEDS = (1 << (MAX_NEED + 1)) - 1
"""Bits 0..8: every number of wins still needed."""


@dataclass(frozen=True)
class Certainty:
    """The certainty search's verdict on one position's target, and what it cost."""

    verdict: str
    lookups: int = 0
    seconds: float = 0.0

    @property
    def decided(self) -> bool:
        """Whether the chance is known exactly (``sure`` or ``impossible``)."""
        return self.verdict in (SURE, IMPOSSIBLE)

    @property
    def chance(self) -> float | None:
        """The exact chance where decided (1.0 or 0.0), else None."""
        return {SURE: 1.0, IMPOSSIBLE: 0.0}.get(self.verdict)


class CertaintySearch:
    """The compiled search's two memos (sure, possible), shared by every query asked of it:
    keys hold the abilities and trump, so one search serves any positions."""

    def __init__(self) -> None:
        from .kernel import POSSIBLE_MODE, SURE_MODE, CertaintyMemo

        self.sure = CertaintyMemo(SURE_MODE)
        self.possible = CertaintyMemo(POSSIBLE_MODE)

    @property
    def lookups(self) -> int:
        """Lookups made so far by both memos."""
        return self.sure.lookups + self.possible.lookups

    def masks(
        self,
        choices: list[tuple[int, tuple]],
        wanted: int,
        work: int | None = None,
        deadline: float | None = None,
    ) -> tuple[int, int]:
        """(sure bits, possible bits) of ``wanted`` for a choice among ``choices`` (``(won,
        state)``: the root's options, or a waiting card's answers). Sure first: a sure bit is
        possible and needs no second search. Raises BudgetExceeded past ``work`` lookups
        (both searches together) or ``deadline``."""
        limit = None if work is None else self.lookups + work
        sure = self._ask(self.sure, choices, wanted, limit, deadline)
        possible = sure | self._ask(self.possible, choices, wanted & ~sure, limit, deadline)
        return sure, possible

    def _ask(self, memo, choices, wanted, limit, deadline) -> int:
        found = 0
        for won, state in choices:
            ask = (wanted & ~found) >> won
            if not ask:
                continue
            memo.limit_work(None if limit is None else max(1, limit - self.lookups))
            try:
                with clock_stops(deadline, memo):
                    found |= memo.ask(state, ask) << won
            finally:
                memo.limit_work(None)
        return found


def root_choices(position: Position) -> list[tuple[int, tuple]]:
    """The root as a choice of ``(won, state)``: between debates the DECIDE node itself; with a
    ruler card waiting, each legal answer (§2.3); while Commerce discards, each pair (R3)."""
    hand, deck, disc, trump, abil, pool = root_state(position)
    if position.discarding:
        return [
            (0, (hand & ~pair.mask, deck, disc | pair.mask, trump, abil, pool))
            for pair in legal_discards_of(position.hand)
        ]
    if position.waiting is not None:
        waiting = position.waiting
        choices = []
        for card in legal_answers(position.hand, waiting):
            won = wins_debate(waiting, card, position.trump)
            lost_to = 0 if won else card.bit
            state = (hand & ~card.bit, deck, disc | waiting.bit | lost_to, trump, abil, pool)
            choices.append((int(won), state))
        return choices
    return [(0, (hand, deck, disc, trump, abil, pool))]


def certainty(
    position: Position,
    work: int | None = None,
    deadline: float | None = None,
    search: CertaintySearch | None = None,
) -> Certainty:
    """Whether ``position``'s target is hit for sure, or cannot be hit at all, with its
    abilities (any: every Jack and supporter included), within ``work`` lookups and before
    ``deadline`` (a ``time.perf_counter()`` reading); ``search`` keeps its memos for the
    next query."""
    position.validate()
    started = time.perf_counter()
    search = CertaintySearch() if search is None else search
    before = search.lookups
    need = position.need
    verdict = IMPOSSIBLE  # a target already overshot is missed whatever follows
    if 0 <= need <= MAX_NEED:
        try:
            sure, possible = search.masks(root_choices(position), 1 << need, work, deadline)
        except BudgetExceeded:
            verdict = UNKNOWN
        else:
            verdict = SURE if sure else OPEN if possible else IMPOSSIBLE
    return Certainty(verdict, search.lookups - before, time.perf_counter() - started)


class ReferenceCertainty:
    """The same questions in pure Python over :meth:`KingdomSolver.options` (the reference's
    tree), every bit of every node searched, memoised by the plain state: the tests' oracle."""

    def __init__(self) -> None:
        self.solver = KingdomSolver()  # floats: only which outcomes exist matters here
        self.memo: dict = {}

    def masks(self, hand, deck, disc, trump, abil, pool) -> tuple[int, int]:
        """(sure bits, possible bits) over 0..8 wins still needed at a DECIDE node."""
        solver = self.solver
        if not hand:
            return 1, 1
        if not (abil[0] or abil[1] or abil[SPADES]) and not hand & (hand - 1):
            value = solver.last_card_value(hand, deck, disc, trump, abil, None)
            return _bits(v == 1.0 for v in value), _bits(v > 0.0 for v in value)
        if disc and not solver.reshuffle_possible(hand, deck, disc, abil):
            disc = 0
        if not abil[SPADES]:
            pool = ()
        key = (hand, deck, disc, trump, abil, pool)
        if key in self.memo:
            return self.memo[key]
        sure = possible = 0
        for _, outcomes in solver.options(hand, deck, disc, trump, abil, pool):
            every, some = ALL_NEEDS, 0
            for _, choices in outcomes:
                best_sure = best_possible = 0
                for won, state in choices:
                    child_sure, child_possible = self.masks(*state)
                    best_sure |= (child_sure << won) & ALL_NEEDS
                    best_possible |= (child_possible << won) & ALL_NEEDS
                every &= best_sure
                some |= best_possible
            sure |= every
            possible |= some
        self.memo[key] = sure, possible
        return sure, possible

    def verdict(self, position: Position) -> str:
        """The verdict on ``position``'s target (never unknown)."""
        need = position.need
        if not 0 <= need <= MAX_NEED:
            return IMPOSSIBLE
        sure = possible = 0
        for won, state in root_choices(position):
            child_sure, child_possible = self.masks(*state)
            sure |= child_sure << won
            possible |= child_possible << won
        bit = 1 << need
        return SURE if sure & bit else OPEN if possible & bit else IMPOSSIBLE


def _bits(flags) -> int:
    return sum(1 << k for k, flag in enumerate(flags) if flag)
