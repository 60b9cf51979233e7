"""Tour value: what a tour state is worth before the next 8 cards are drawn (RULINGS.md §7).

A visit's chance is not the whole story: a hand that suits kingdom 4 may be the only kind
that can ever win kingdom 1. The planner values every choice by the expected final score
it leads to (``objective="score"``) or the chance of a perfect tour (``"perfect"``).

The model (:class:`PlanningTable`). A visit's *planning chance* is the exact chance with
the Jacks of Diplomacy and Politics (Politics may bring the suit of any other unvisited
ruler); the drawing Jacks and the supporters are left out, so it errs low, and a won
kingdom counts 2 points: its pledge and its supporter, never spent. The table holds the
planning chance of :data:`TABLE_HANDS` seeded random hands for every trump, every set of
suits Politics may bring and every target, computed once per process.

The value (:class:`TourPlanner`). For the set S of unvisited kingdoms,
``V(S) = mean over the table's hands of max over k in S of c_k * (2 + V(S - k))`` (score;
for "perfect", ``c_k * V(S - k)`` with ``V({}) = 1``): each visit the player sees the hand
and takes the kingdom that is best for the rest of the tour. It is a dynamic programme over
the subsets of S. Its uncertainty comes from the sampled hands: a bootstrap over them gives a
95% interval. Two more simplifications: Politics swaps are not followed (rulers stay where
they lie), and hands of later visits are independent draws.

:class:`~search.tours.planning_policy.PlanningPolicy` plays by this model.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..game import CARDS, FULL_MASK, CardSet, Stream, TourState
from ..infra import write_atomically

TABLE_HANDS = 256
"""Sampled hands in a planning table: the bootstrap interval shrinks as one over its root."""

BOOTSTRAP = 40
"""Bootstrap resamples behind a tour value's interval."""

PLANNING_JACKS = (0, 0, 1, 1)  # ♣ ♦ ♥ ♠ uses: Diplomacy and Politics

WIN_POINTS = 2  # a won kingdom: its pledge and its (unspent) supporter
HAND_LIMIT = 4  # the advisor weighs spending supporters once the hand is this small

MAX_WINS = 8


@dataclass(frozen=True)
class TourValue:
    """A tour value with its 95% bootstrap interval."""

    value: float
    low: float
    high: float
    objective: str


def _pool(suits: frozenset[int], trump: int) -> tuple[int, ...]:
    """The Politics pool for the solver: each suit Politics may bring, once."""
    return tuple(sorted(s for s in suits if s != trump))


class PlanningTable:
    """Planning chances of sampled hands: ``chances(trump, pool suits)[hand, need]``."""

    def __init__(self, hands: int = TABLE_HANDS, seed: int = 0, jacks=PLANNING_JACKS) -> None:
        self.jacks = tuple(jacks)
        self.seed = seed
        self.hands = [CardSet(Stream(seed, "planning", i).shuffle(CARDS)[:8]).mask for i in range(hands)]
        self._chances: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}

    @classmethod
    def from_sweep(cls, lookup, hands: int = TABLE_HANDS, seed: int = 0) -> PlanningTable:
        """A no-ability table whose chances come from a full sweep
        (:class:`search.sweep.lookup.SweepLookup`) instead of the solver: exactly the same
        values, looked up. Column 0 (no win wanted) is not in a sweep and is NaN."""
        table = cls(hands, seed, jacks=(0, 0, 0, 0))
        masks = np.array(table.hands, dtype=np.uint64)
        for trump in range(4):
            chances = np.full((hands, MAX_WINS + 1), np.nan)
            chances[:, lookup.targets] = lookup.chances(masks, trump)
            table._chances[(trump, ())] = chances
        return table

    def fill(self) -> None:
        """Compute every (trump, Politics pool) the table can be asked for."""
        for trump in range(4):
            others = [s for s in range(4) if s != trump]
            for mask in range(8):
                self.chances(trump, frozenset(s for i, s in enumerate(others) if mask >> i & 1))

    def save(self, path: Path) -> None:
        """Write the filled table (see :func:`default_table`), whole or not at all."""
        self.fill()
        arrays = {f"t{t}p{''.join(map(str, p))}": c for (t, p), c in self._chances.items()}
        arrays["hands"] = np.array(self.hands, dtype=np.int64)
        arrays["meta"] = np.array([self.seed, *self.jacks], dtype=np.int64)
        write_atomically(path, lambda stream: np.savez_compressed(stream, **arrays))

    def load(self, path: Path) -> bool:
        """Take the chances from a file saved for this very table; False if it is not one."""
        try:
            with np.load(path) as data:
                same = list(data["meta"]) == [self.seed, *self.jacks] and list(data["hands"]) == self.hands
                if not same:
                    return False
                for name in data.files:
                    if name.startswith("t"):
                        trump, pool = name[1:].split("p")
                        key = (int(trump), tuple(int(s) for s in pool))
                        self._chances[key] = data[name]
        except (OSError, KeyError, ValueError):
            return False
        return True

    def chances(self, trump: int, suits: frozenset[int]) -> np.ndarray:
        """Array ``[hand, need]``: chance of exactly ``need`` wins, ``need`` = 0..8."""
        pool = _pool(suits, trump) if self.jacks[3] else ()
        key = (trump, pool)
        known = self._chances.get(key)
        if known is None:
            # One solver a key, its memo shared by the hands in order: the values (to the
            # last bit) then depend on the key alone, not on what was asked before.
            solver = _fresh_solver()
            known = np.array([_solve(solver, hand, trump, self.jacks, pool) for hand in self.hands])
            self._chances[key] = known
        return known

    def chance(self, hand: CardSet, trump: int, suits: frozenset[int]) -> tuple[float, ...]:
        """The planning chances of one hand (a vector over needs 0..8)."""
        pool = _pool(suits, trump) if self.jacks[3] else ()
        return _hand_chances(hand.mask, trump, self.jacks, pool)


@lru_cache(maxsize=8192)
def _hand_chances(hand: int, trump: int, jacks: tuple, pool: tuple[int, ...]) -> tuple[float, ...]:
    """One hand's planning chances from a fresh solver, so the values depend on the
    arguments alone; cached, since a King and a Queen of one suit, and the same hand
    planned again at the next visit, ask the same question."""
    return _solve(_fresh_solver(), hand, trump, jacks, pool)


def _fresh_solver():
    from ..visit import make_solver

    return make_solver()


def _solve(solver, hand: int, trump: int, jacks: tuple, pool: tuple[int, ...]) -> tuple[float, ...]:
    return solver.decide(hand, FULL_MASK & ~hand, 0, trump, jacks, pool)


TABLE_FILE = Path(__file__).parent.parent / "data" / "planning-table.npz"
"""The default table, computed in advance: ``python -m search.tours.planning``."""


@lru_cache(maxsize=1)
def default_table() -> PlanningTable:
    """The process's planning table: from :data:`TABLE_FILE` when it matches, else computed
    as its chances are asked for (about 3 ms a hand and (trump, pool))."""
    table = PlanningTable()
    table.load(TABLE_FILE)
    return table


class TourPlanner:
    """Tour values over a set of unvisited kingdoms, from a :class:`PlanningTable`."""

    def __init__(self, table: PlanningTable | None = None, objective: str = "score") -> None:
        if objective not in ("score", "perfect"):
            raise ValueError(f"unknown objective {objective!r}: choose score or perfect")
        self.table = table or default_table()
        self.objective = objective
        self._values: dict[tuple, np.ndarray] = {}

    def kingdoms_of(self, tour: TourState) -> tuple[tuple[int, int], ...]:
        """The unvisited kingdoms as (trump, target) pairs, left to right."""
        return tuple((int(tour.rulers[p - 1].suit), tour.config.target(p)) for p in tour.unvisited)

    def values(self, kingdoms: tuple[tuple[int, int], ...]) -> np.ndarray:
        """``V`` of every subset of ``kingdoms`` (index: bitmask), one column per bootstrap
        resample after the first (the plain estimate)."""
        key = tuple(sorted(kingdoms))
        known = self._values.get(key)
        if known is not None:
            return known
        count, hands = len(key), len(self.table.hands)
        rng = np.random.default_rng(len(key))
        draws = np.vstack([np.arange(hands), rng.integers(0, hands, size=(BOOTSTRAP, hands))])
        values = np.zeros((1 << count, BOOTSTRAP + 1))
        if self.objective == "perfect":
            values[0] = 1.0
        gain = 0.0 if self.objective == "perfect" else WIN_POINTS
        for subset in range(1, 1 << count):
            members = [i for i in range(count) if subset >> i & 1]
            best = None
            for i in members:
                trump, target = key[i]
                others = frozenset(key[j][0] for j in members if j != i)
                chance = self.table.chances(trump, others)[:, target][draws]  # [resample, hand]
                value = chance * (gain + values[subset & ~(1 << i)][:, None])
                best = value if best is None else np.maximum(best, value)
            values[subset] = best.mean(axis=1)
        self._values[key] = values
        return values

    def value(self, kingdoms: tuple[tuple[int, int], ...], score: int = 0) -> TourValue:
        """The tour value of ``kingdoms`` still to visit, ``score`` already made."""
        column = self.values(kingdoms)[-1]
        return self._with_interval(column, score)

    def after_choice(
        self, tour: TourState, hand: CardSet
    ) -> dict[int, tuple[float, TourValue]]:
        """For each unvisited kingdom: (its planning chance with ``hand``, the tour value of
        visiting it now)."""
        kingdoms = self.kingdoms_of(tour)
        values = self.values(kingdoms)
        order = sorted(range(len(kingdoms)), key=lambda i: kingdoms[i])  # the index of values
        full = (1 << len(kingdoms)) - 1
        result = {}
        gain = 0.0 if self.objective == "perfect" else WIN_POINTS
        for rank, index in enumerate(order):
            position = tour.unvisited[index]
            trump, target = kingdoms[index]
            others = frozenset(kingdoms[j][0] for j in range(len(kingdoms)) if j != index)
            chance = self.table.chance(hand, trump, others)[target]
            rest = values[full & ~(1 << rank)]
            column = chance * (gain + rest)
            base = 0 if self.objective == "perfect" else tour.score
            result[position] = (chance, self._with_interval(column, base))
        return result

    def _with_interval(self, column: np.ndarray, score: int) -> TourValue:
        base = 0 if self.objective == "perfect" else score
        low, high = np.percentile(column[1:], [2.5, 97.5])
        return TourValue(base + float(column[0]), base + float(low), base + float(high), self.objective)


if __name__ == "__main__":
    import time

    started = time.perf_counter()
    TABLE_FILE.parent.mkdir(exist_ok=True)
    PlanningTable().save(TABLE_FILE)
    print(f"wrote {TABLE_FILE} in {time.perf_counter() - started:.1f} s")
