"""Tour value: what a tour state is worth before the next 8 cards are drawn (docs/rules.md §7).

A visit's chance is not the whole story: a hand that suits kingdom 4 may be the only kind
that can ever win kingdom 1. The planner values every choice by the expected final score
it leads to (``objective="score"``) or the chance of a perfect tour (``"perfect"``).

The model (:class:`PlanningTable`). A visit's *planning chance* for a target is the best of
the exact chances of :data:`PLANNING_SETS`: Diplomacy and Politics together (Politics may
bring the suit of any other unvisited ruler), Commerce alone and Military alone, each for
that target. A player can always play as if the other Jacks were absent, so it is a proven
lower bound on the chance with every Jack, and it errs low. (♦♥♠ or every Jack at once
are out of reach at table scale: with a three-suit pool, 5 of 32 hands finished ♦♥♠
within :data:`PLANNING_WORK`.) A solve past :data:`PLANNING_WORK` kernel lookups is left
out of its hand's best. In the table supporters are kept, never spent: a won kingdom counts
2 points, its pledge and its supporter. The hand in view may count on one unused supporter as
an option that costs its point (:meth:`TourPlanner.after_choice`, the ``advisor`` planner).
The table holds the planning chance of :data:`TABLE_HANDS` seeded random hands for every
trump, every set of suits Politics may bring and every target, built once (``python -m search.tours.planning``, README) and shipped.

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

import time
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..game import CARDS, CardSet, Stream, TourState
from ..infra import (
    TimeLimitExceeded,
    UnreadableFileError,
    read_arrays,
    read_json,
    write_atomically,
)
from .hand_chances import MAX_WINS, HandChances, fresh_solver, solve_hand

TABLE_HANDS = 256
MAX_TABLE_BYTES = 64 << 20  # the packaged table takes under a megabyte
"""Sampled hands in a planning table: the bootstrap interval shrinks as one over its root."""

BOOTSTRAP = 40
"""Bootstrap resamples behind a tour value's interval."""

PLANNING_SETS = ((0, 0, 1, 1), (0, 1, 0, 0), (1, 0, 0, 0))
"""The ability sets (♣ ♦ ♥ ♠ uses) whose exact chances the planning chance takes the best of:
Diplomacy and Politics, Commerce alone, Military alone."""
PLANNING_WORK = 20_000_000
"""Kernel lookups one set's solve of one hand may take (about 1.5 s); past them the set is
left out of that hand's best, the same on any machine. Of 64 table hands, Commerce alone
finished all (median 3.4 M), Military alone 54 (median 2.4 M)."""
QUICK_SETS = ((0, 0, 1, 1),)
"""The quick model, Diplomacy and Politics only: the planning of the ``advisor-rule`` baseline
and of hindsight analysis, where a hand's solve must take milliseconds. Its parts are in the
shipped table too."""
MEMO_STATES = 4_000_000
"""A table's solver starts afresh before a hand once its memo holds this many states."""

SUPPORTER_OPTIONS = (2, 3)
"""The supporters the advisor's choice may count on: Diplomacy's and Politics's (♥ ♠), whose
solves take milliseconds. A ♣ or ♦ supporter's solve takes 0.7-2 s, and none of them was worth
its point at 60 random late standard choices (docs/tour-value.md), so they are left out."""

WIN_POINTS = 2  # a won kingdom: its pledge and its (unspent) supporter
HAND_LIMIT = 4  # the advisor weighs spending supporters once the hand is this small


class Objective(StrEnum):
    """What a tour value measures: the expected final score, or the chance of a perfect tour."""

    SCORE = "score"
    PERFECT = "perfect"


@dataclass(frozen=True)
class TourValue:
    """A tour value with its 95% bootstrap interval."""

    value: float
    low: float
    high: float
    objective: Objective
    spend: int | None = None
    """The suit of the supporter this value counts on, its point spent (None: every supporter kept)."""


def _pool(suits: frozenset[int], trump: int) -> tuple[int, ...]:
    """The Politics pool for the solver: each suit Politics may bring, once."""
    return tuple(sorted(s for s in suits if s != trump))


class PlanningTable:
    """Planning chances of sampled hands: ``chances(trump, pool suits)[hand, need]``, the best
    over ``sets`` of each set's exact chance."""

    def __init__(
        self,
        hands: int = TABLE_HANDS,
        seed: int = 0,
        sets=PLANNING_SETS,
        work: int | None = PLANNING_WORK,
    ) -> None:
        self.sets = tuple(tuple(jacks) for jacks in sets)
        self.work = work
        self.seed = seed
        self.hands = [
            CardSet(Stream(seed, "planning", i).shuffle(CARDS)[:8]).mask for i in range(hands)
        ]
        self._parts: dict[tuple, np.ndarray] = {}  # (set, trump, pool) -> [hand, need]
        self._chances: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self.hand_chances = HandChances()  # the chances of hands in play, asked by chance()

    @classmethod
    def from_sweep(cls, lookup, hands: int = TABLE_HANDS, seed: int = 0) -> PlanningTable:
        """A no-ability table whose chances come from a full sweep
        (:class:`search.sweep.lookup.SweepLookup`) instead of the solver: exactly the same
        values, looked up. Column 0 (no win wanted) is not in a sweep and is NaN."""
        table = cls(hands, seed, sets=((0, 0, 0, 0),))
        masks = np.array(table.hands, dtype=np.uint64)
        for trump in range(4):
            chances = np.full((hands, MAX_WINS + 1), np.nan)
            chances[:, lookup.targets] = lookup.chances(masks, trump)
            table._parts[((0, 0, 0, 0), trump, ())] = chances
        return table

    def parts(self) -> list[tuple]:
        """Every (set, trump, pool) the table can be asked for."""
        keys = []
        for trump in range(4):
            others = [s for s in range(4) if s != trump]
            for mask in range(8):
                suits = frozenset(s for i, s in enumerate(others) if mask >> i & 1)
                keys += [
                    (jacks, trump, _pool(suits, trump) if jacks[3] else ()) for jacks in self.sets
                ]
        return list(dict.fromkeys(keys))

    def fill(self, workers: int = 1) -> None:
        """Compute every part the table can be asked for, on ``workers`` processes (each part
        is solved alone, so the values do not depend on how they are shared out)."""
        missing = [key for key in self.parts() if key not in self._parts]
        if workers > 1 and len(missing) > 1:
            from ..infra import process_pool

            with process_pool(min(workers, len(missing)), "fork") as pool:
                solved = pool.map(self._solve_part, missing)
        else:
            solved = map(self._solve_part, missing)
        self._parts.update(zip(missing, solved))

    def save(self, path: Path, workers: int = 1) -> None:
        """Write the filled table (see :func:`default_table`), whole or not at all."""
        self.fill(workers)
        arrays = {_part_name(key): values for key, values in self._parts.items()}
        arrays["hands"] = np.array(self.hands, dtype=np.int64)
        arrays["meta"] = self._meta()
        write_atomically(path, lambda stream: np.savez_compressed(stream, **arrays))

    def load(self, path: Path) -> bool:
        """Take the chances from a file saved for this very table; False if it is not one."""
        columns = {"meta": (self._meta().dtype.kind, 1), "hands": ("i", 1)}
        columns.update({_part_name(key): ("f", 2) for key in self.parts()})
        try:  # every member's checksum and type checked (search.infra.read_arrays)
            data = read_arrays(path, "planning table", MAX_TABLE_BYTES, columns)
        except UnreadableFileError:
            return False
        if list(data["meta"]) != list(self._meta()) or list(data["hands"]) != self.hands:
            return False
        for key in self.parts():
            self._parts[key] = data[_part_name(key)]
        return True

    def _meta(self) -> np.ndarray:
        """What a saved table must share with this one (its parts are found by name, so a
        table of fewer sets loads from a file of more)."""
        return np.array([self.seed, self.work or 0], dtype=np.int64)

    def chances(self, trump: int, suits: frozenset[int]) -> np.ndarray:
        """Array ``[hand, need]``: chance of exactly ``need`` wins, ``need`` = 0..8."""
        key = (trump, _pool(suits, trump))
        known = self._chances.get(key)
        if known is None:
            parts = []
            for jacks in self.sets:
                part = (jacks, trump, key[1] if jacks[3] else ())
                if part not in self._parts:
                    self._parts[part] = self._solve_part(part)
                parts.append(self._parts[part])
            known = self._chances[key] = np.maximum.reduce(parts)
        return known

    def chance(
        self,
        hand: CardSet,
        trump: int,
        suits: frozenset[int],
        cheap: bool = False,
        supporter: int | None = None,
        deadline: float | None = None,
    ) -> tuple[float, ...]:
        """The planning chances of one hand (a vector over needs 0..8). With ``cheap``, the
        best of the sets without a drawing Jack only (milliseconds, a lower bound); with
        ``supporter``, a supporter of that suit joins the set that holds its suit's Jack (one
        more use of that ability). Past ``deadline`` a solve raises TimeLimitExceeded."""
        pool = _pool(suits, trump)
        vectors = []
        for jacks in self.sets:
            if cheap and _draws(jacks):
                continue
            if supporter is not None and jacks[supporter]:
                jacks = tuple(count + (suit == supporter) for suit, count in enumerate(jacks))
            vectors.append(
                self.hand_chances(
                    hand.mask, trump, jacks, pool if jacks[3] else (), self.work, deadline
                )
            )
        if not vectors:
            return (0.0,) * (MAX_WINS + 1)
        return tuple(map(max, *vectors)) if len(vectors) > 1 else vectors[0]

    @property
    def draws(self) -> bool:
        """Whether a set holds a drawing Jack (Military or Commerce: a solve of seconds)."""
        return any(map(_draws, self.sets))

    def joins(self, supporter: int) -> bool:
        """Whether a supporter of this suit adds to one of the table's sets (the set that holds
        its suit's Jack)."""
        return any(jacks[supporter] for jacks in self.sets)

    def _solve_part(self, part: tuple) -> np.ndarray:
        """One set's chances of every hand at one trump and pool. One solver, its memo shared
        by the hands in order (started afresh past :data:`MEMO_STATES`): the values and where
        the work limit falls depend on the part alone, not on what was asked before."""
        jacks, trump, pool = part
        solver = fresh_solver()
        rows = []
        for hand in self.hands:
            if solver.state_count() > MEMO_STATES:
                solver.reset()
            rows.append(solve_hand(solver, hand, trump, jacks, pool, self.work))
        return np.array(rows)


def _draws(jacks: tuple) -> bool:
    """Whether an ability set holds Military or Commerce."""
    return bool(jacks[0] or jacks[1])


def _part_name(key: tuple) -> str:
    jacks, trump, pool = key
    return f"j{''.join(map(str, jacks))}t{trump}p{''.join(map(str, pool))}"


TABLE_FILE = Path(__file__).parent.parent / "data" / "planning-table.npz"
"""The default table, computed in advance: ``python -m search.tours.planning``."""
UPLIFT_FILE = Path(__file__).parent.parent / "data" / "uplift-advisor.json"
"""The calibration of the full model against the advisor's play (docs/tour-value.md): fitted to
its visits of 200 short tours of seed 2026, the odd targets interpolated between the even ones."""


@lru_cache(maxsize=2)
def default_table(sets: tuple = PLANNING_SETS) -> PlanningTable:
    """The process's planning table of ``sets``: from :data:`TABLE_FILE` when it matches, else
    computed as its chances are asked for (a few ms a hand for Diplomacy and Politics, about
    half a second for each drawing Jack alone)."""
    table = PlanningTable(sets=sets)
    table.load(TABLE_FILE)
    return table


@dataclass(frozen=True)
class Uplift:
    """A calibration of the planning chance against a policy's play: chance = c + u (1 - c)
    for a kingdom of target t, ``u = shares[t][0]`` fitted to the policy's visits and
    ``shares[t][1:]`` its bootstrap resamples (``examples/calibration.py``). A target without
    a fit keeps c (u = 0)."""

    shares: dict[int, tuple[float, ...]]

    @classmethod
    def load(cls, path: Path) -> Uplift:
        """A fit saved by ``examples/calibration.py --fit``."""
        data = read_json(path, "uplift file", 1 << 20, 4)
        return cls(
            {int(t): tuple(float(u) for u in shares) for t, shares in data["shares"].items()}
        )

    def column(self, target: int) -> np.ndarray:
        """u for each column of :meth:`TourPlanner.values` (the fit, then one resample each)."""
        fitted = self.shares.get(target)
        if fitted is None:
            return np.zeros(BOOTSTRAP + 1)
        return np.resize(np.asarray(fitted, dtype=float), BOOTSTRAP + 1)


@lru_cache(maxsize=1)
def shipped_uplift() -> Uplift:
    """The calibration in :data:`UPLIFT_FILE`."""
    return Uplift.load(UPLIFT_FILE)


def advisor_planner(objective: Objective | str = Objective.SCORE) -> TourPlanner:
    """The planner ``advise``, the coach (and so its review) and the ``advisor`` policy plan
    with: the full model, its chances calibrated against the advisor's own play
    (:func:`shipped_uplift`), so that a tour value predicts what that play scores, and a
    choice may count on an unused supporter at the cost of its point."""
    return TourPlanner(
        objective=objective, uplift=shipped_uplift(), supporter_options=SUPPORTER_OPTIONS
    )


class TourPlanner:
    """Tour values over a set of unvisited kingdoms, from a :class:`PlanningTable`."""

    def __init__(
        self,
        table: PlanningTable | None = None,
        objective: Objective | str = Objective.SCORE,
        sets: tuple = PLANNING_SETS,
        uplift: Uplift | None = None,
        supporter_options: tuple[int, ...] = (),
    ) -> None:
        """``table``, or else the shipped one of ``sets`` (:data:`PLANNING_SETS`, or
        :data:`QUICK_SETS` for the quick model). ``uplift``: a calibration of the chances
        against a policy's play; its resamples then widen each value's interval by the fit's
        error beside the hands' sampling. ``supporter_options``: the suits of the unused
        supporters a choice may count on, at the cost of its point (:meth:`after_choice`)."""
        if objective not in tuple(Objective):
            raise ValueError(f"unknown objective {objective!r}: choose score or perfect")
        self.table = table or default_table(tuple(sets))
        self.objective = Objective(objective)
        self.uplift = uplift
        self.supporter_options = supporter_options
        self._values: dict[tuple, np.ndarray] = {}

    def _calibrated(self, chance: np.ndarray, target: int) -> np.ndarray:
        """``chance`` (columns as in :meth:`values`) with the uplift of ``target`` applied."""
        if self.uplift is None:
            return chance
        share = self.uplift.column(target).reshape((-1,) + (1,) * (chance.ndim - 1))
        return chance + share * (1 - chance)

    def calibrated_chance(self, chance: float, target: int) -> float:
        """A planning chance for ``target`` with the uplift's fit applied (itself without one)."""
        return float(self._calibrated(np.array([chance]), target)[0])

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
        if self.objective is Objective.PERFECT:
            values[0] = 1.0
        gain = 0.0 if self.objective is Objective.PERFECT else WIN_POINTS
        for subset in range(1, 1 << count):
            members = [i for i in range(count) if subset >> i & 1]
            best = None
            for i in members:
                trump, target = key[i]
                others = frozenset(key[j][0] for j in members if j != i)
                chance = self.table.chances(trump, others)[:, target][draws]  # [resample, hand]
                chance = self._calibrated(chance, target)
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
        self,
        tour: TourState,
        hand: CardSet,
        known: dict[int, float] | None = None,
        prune: bool = False,
        deadline: float | None = None,
    ) -> dict[int, tuple[float, TourValue]]:
        """For each unvisited kingdom: (its planning chance with ``hand``, the tour value of
        visiting it now). ``known``: planning chances already found by the caller, by
        kingdom (``advise`` takes them from its table's exact cells).

        With :attr:`supporter_options` (score objective), a kingdom is also valued counting on
        one unused supporter of those suits: its suit joins the set of its Jack
        (:meth:`PlanningTable.chance`) and its point is counted spent, used or not (a lower
        bound: a point kept is a point more); the later visits are valued keeping every supporter, a plan always open, so the
        value errs low there too. The better of the two, by the plain estimate, is the kingdom's
        value (its ``spend`` names the supporter) and chance. An option is solved only if it can
        beat what is known without it: its kingdom's value, or with ``prune`` (a player who only
        wants the best kingdom) the best kingdom's so far. With ``prune`` the drawing Jacks'
        solves are skipped likewise where even a sure win could not beat the best kingdom: such
        a kingdom keeps the value of its sets without them (a lower bound), and the best kingdom
        and its chance are the same as without ``prune``. Past ``deadline`` (a
        ``time.perf_counter()`` reading) no further supporter option is solved: the kingdoms
        left keep their value without one (a lower bound)."""
        terms = self._terms(tour)
        known = known or {}
        gain = 0.0 if self.objective is Objective.PERFECT else WIN_POINTS
        plain: dict[int, tuple] = {}  # position -> (chance, value column, supporter counted on)
        pending = []  # with prune: kingdoms valued by the cheap sets so far
        for position, (trump, target, others, rest) in terms.items():
            cheap = prune and self.table.draws and position not in known
            if position in known:
                chance = known[position]
            else:
                chance = self.table.chance(hand, trump, others, cheap)[target]
            plain[position] = (chance, self._column(chance, target, gain + rest), None)
            if cheap:
                pending.append(position)
        # The drawing sets' solves, the best value so far first, only where even a sure win
        # could beat the best value known (a kingdom's value may only rise).
        for position in sorted(pending, key=lambda p: (-plain[p][1][0], p)):
            trump, target, others, rest = terms[position]
            if gain + rest[0] < max(entry[1][0] for entry in plain.values()):
                continue  # it keeps the cheap sets' value: it cannot be the best
            chance = self.table.chance(hand, trump, others)[target]
            plain[position] = (chance, self._column(chance, target, gain + rest), None)
        best = dict(plain)
        for suit in self._held(tour):
            for position, (trump, target, others, rest) in terms.items():
                if deadline is not None and time.perf_counter() >= deadline:
                    break  # past the caller's clock: the options left keep their plain value
                bar = max(v[1][0] for v in best.values()) if prune else best[position][1][0]
                if gain + rest[0] - 1 <= bar:  # even a sure win would not pay for the point
                    continue
                try:
                    chance, column = self._counting_on(
                        hand, trump, target, others, rest, suit, deadline
                    )
                except TimeLimitExceeded:
                    break  # the option the clock stopped keeps its plain value, as those left
                if column[0] > best[position][1][0]:
                    best[position] = (chance, column, suit)
        base = 0 if self.objective is Objective.PERFECT else tour.score
        return {
            position: (chance, self._with_interval(column, base, spend))
            for position, (chance, column, spend) in best.items()
        }

    def supporter_option(
        self, tour: TourState, hand: CardSet, position: int, suit: int
    ) -> tuple[float, TourValue]:
        """(planning chance, tour value) of visiting ``position`` now counting on a supporter
        of ``suit``, its point spent (the option :meth:`after_choice` weighs)."""
        trump, target, others, rest = self._terms(tour)[position]
        chance, column = self._counting_on(hand, trump, target, others, rest, suit)
        return chance, self._with_interval(column, tour.score, suit)

    def _terms(self, tour: TourState) -> dict[int, tuple[int, int, frozenset[int], np.ndarray]]:
        """Each unvisited kingdom's (trump, target, the other kingdoms' suits, the value column
        of the rest of the tour once it is won), by position, in the order of :meth:`values`."""
        kingdoms = self.kingdoms_of(tour)
        values = self.values(kingdoms)
        full = (1 << len(kingdoms)) - 1
        terms = {}
        for rank, index in enumerate(sorted(range(len(kingdoms)), key=lambda i: kingdoms[i])):
            trump, target = kingdoms[index]
            others = frozenset(kingdoms[j][0] for j in range(len(kingdoms)) if j != index)
            terms[tour.unvisited[index]] = (trump, target, others, values[full & ~(1 << rank)])
        return terms

    def _counting_on(
        self,
        hand: CardSet,
        trump: int,
        target: int,
        others: frozenset[int],
        rest: np.ndarray,
        suit: int,
        deadline: float | None = None,
    ) -> tuple[float, np.ndarray]:
        """The planning chance with a supporter of ``suit`` and its value column, its point spent
        (TimeLimitExceeded past ``deadline``)."""
        chance = self.table.chance(hand, trump, others, supporter=suit, deadline=deadline)[target]
        return chance, self._column(chance, target, WIN_POINTS + rest) - 1

    def _column(self, chance: float, target: int, stake: np.ndarray) -> np.ndarray:
        """A visit's value column: its calibrated chance times what winning it is worth."""
        return self._calibrated(np.full(BOOTSTRAP + 1, chance), target) * stake

    def _held(self, tour: TourState) -> list[int]:
        """The suits of the unused supporters a choice may count on (none for a perfect tour,
        which a point spent rules out), each once, if a set of the table takes them."""
        if not self.supporter_options or self.objective is Objective.PERFECT:
            return []
        suits = sorted({ruler.suit.value for ruler in tour.unused_supporters})
        return [suit for suit in suits if suit in self.supporter_options and self.table.joins(suit)]

    def _with_interval(self, column: np.ndarray, score: int, spend: int | None = None) -> TourValue:
        base = 0 if self.objective is Objective.PERFECT else score
        low, high = np.percentile(column[1:], [2.5, 97.5])
        return TourValue(
            base + float(column[0]), base + float(low), base + float(high), self.objective, spend
        )


def main(argv: list[str] | None = None) -> None:
    """Build the shipped table: ``python -m search.tours.planning [--workers N]``."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Build the planning table shipped in search/data.")
    parser.add_argument("--workers", type=int, default=1, help="processes to share the parts")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    TABLE_FILE.parent.mkdir(exist_ok=True)
    table = PlanningTable()
    table.save(TABLE_FILE, workers=max(1, args.workers))
    print(
        f"wrote {TABLE_FILE}: {len(table.hands)} hands, {len(table.parts())} parts, "
        f"in {time.perf_counter() - started:.1f} s on {args.workers} worker(s)"
    )


if __name__ == "__main__":
    main()
