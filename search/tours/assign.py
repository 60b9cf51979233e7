"""Which hand visits which kingdom: a CP-SAT plan for hands known in advance (docs/rules.md §2–§5).

:func:`assign` takes the hands of the next visits in draw order, the unvisited kingdoms and
their rulers, and the caller's chance of each :class:`Play` (a hand at a kingdom, under a
ruler, with an :class:`Option`). It chooses one play for each hand to maximise an objective:
hand ``t`` makes visit ``t``, each kingdom is visited at most once, and a visit spends only
supporters won by an earlier visit of the plan, each once (§2.6, §4).

The model plans in hindsight and simplifies the tour; each simplification is the caller's to
reflect in the chances:

- Every hand is known before the first visit, so one plan covers them all. With more hands
  than kingdoms the extra hands make no visit; with fewer, the plan ends after the last hand.
- A chance depends on its play only: hand, kingdom, the ruler the visit is played under,
  the supporters spent and the swap. It cannot see the rest of the layout (such as what the
  Jack of Politics could bring), and Politics used inside a chance moves no ruler here.
- Politics (§4) moves rulers only as an option's swap, at most one a visit, made before the
  first debate: the ruler from kingdom ``swap`` comes here, the visit is played under it and
  wins it, and the ruler that was here goes to ``swap`` for a later visit. The two suits must
  differ (§4). Later chances see the moved rulers, since a play names its ruler. Whether
  the Jack of Politics or a ♠ supporter (listed in the option) makes the swap is the chance's.
- A supporter is a ruler won by an earlier visit of the plan; supporters held before the
  first hand are not modelled.
- A chance of 0 makes its play impossible, not a certain miss.

Chances enter the model as integers: each play's objective term is multiplied by
:data:`SCALE` and rounded to the nearest integer, so a plan's value is exact to within
``visits / (2 * SCALE)``; plans closer than that may be ranked either way.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ortools.sat.python import cp_model

from ..game import CardSet, Ruler

SCALE = 1_000_000
"""Objective terms are multiplied by this and rounded to integers for CP-SAT."""


class AssignObjective(StrEnum):
    """What the assignment of hands to kingdoms maximises (see :func:`assign`)."""

    PERFECT = "perfect"
    ALL_WON = "all_won"
    SCORE = "score"


OBJECTIVES: tuple[str, ...] = tuple(AssignObjective)


class AssignmentInputError(ValueError):
    """Hands, kingdoms or chances the model cannot take."""


class NoAssignmentError(RuntimeError):
    """The solver ended without a plan: none exists, or none was found in the time limit."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Option:
    """What a visit commits to besides its kingdom: supporters spent and a Politics swap."""

    supporters: frozenset[Ruler] = frozenset()
    swap: int | None = None  # the unvisited kingdom whose ruler comes here before the first debate

    def __post_init__(self) -> None:
        object.__setattr__(self, "supporters", frozenset(self.supporters))


@dataclass(frozen=True)
class Play:
    """Hand ``hand`` (0-based, draw order) visits kingdom ``position`` under ``ruler``.

    ``ruler`` is the ruler the visit is played under and wins: the one on the kingdom when
    the hand arrives, or with a swap the one brought from ``option.swap``.
    """

    hand: int
    position: int
    ruler: Ruler
    option: Option = Option()


@dataclass(frozen=True)
class Visit:
    """One visit of a plan: its play, its chance, and the ruler a swap sent away."""

    play: Play
    chance: float
    sent: Ruler | None = None  # the ruler found here, moved to play.option.swap


@dataclass(frozen=True)
class Assignment:
    """A plan: its visits in order, its objective value and the solve that found it."""

    visits: tuple[Visit, ...]
    objective: str
    value: float  # the objective, unscaled
    bound: float  # the solver's proven bound on the objective (== value when OPTIMAL)
    chance: float  # product of the visits' chances: every visit of the plan succeeds
    expected_score: float  # exact, for this plan (see expected_score)
    status: str  # "OPTIMAL" or "FEASIBLE"
    seconds: float = field(compare=False)  # wall time to build and solve

    @property
    def kingdoms(self) -> dict[int, int]:
        """Each hand's kingdom."""
        return {v.play.hand: v.play.position for v in self.visits}

    @property
    def supporters(self) -> dict[int, frozenset[Ruler]]:
        """Each hand's supporters spent."""
        return {v.play.hand: v.play.option.supporters for v in self.visits}

    @property
    def swaps(self) -> dict[int, tuple[int, int]]:
        """The hands that swap: hand -> (its kingdom, the kingdom swapped with)."""
        return {
            v.play.hand: (v.play.position, v.play.option.swap)
            for v in self.visits
            if v.play.option.swap is not None
        }


def expected_score(chances: Sequence[float], spent: Sequence[int]) -> float:
    """Expected kingdoms won plus unused supporters when visits succeed with ``chances`` in turn.

    ``spent[t]`` supporters are used at visit ``t``; a miss ends the tour (§2.6, §5).

    >>> expected_score([0.5, 1.0], [0, 1])
    1.5
    """
    total, reach = 0.0, 1.0  # reach: chance that visit t is made
    for chance, used in zip(chances, spent, strict=True):
        total -= used * reach  # a supporter is spent once its visit is made
        reach *= chance
        total += 2 * reach  # the kingdom and its ruler, a new unused supporter
    return total


def assign(
    hands: Sequence[CardSet],
    kingdoms: Mapping[int, Ruler],
    chances: Mapping[Play, float],
    objective: AssignObjective | str = AssignObjective.PERFECT,
    *,
    time_limit: float = 10.0,
    seed: int = 0,
) -> Assignment:
    """The plan that maximises ``objective`` over the plays in ``chances``; checked.

    With ``T = min(len(hands), len(kingdoms))`` visits and ``p_t`` the chance of visit ``t``:

    - ``"perfect"`` maximises ``sum_t ln p_t``: the chance that every visit succeeds with
      no supporter spent, i.e. a perfect tour so far (§5: a spent supporter scores 0).
      Plays that spend supporters are left out.
    - ``"all_won"`` maximises the same sum with supporters allowed: the chance that every
      visit succeeds.
    - ``"score"`` maximises ``2T - sum_t 2(T - t)(1 - p_t) - (supporters spent)``, a lower
      bound on the expected score (kingdoms won plus unused supporters) by the union bound
      ``P(visits 0..t succeed) >= 1 - sum_{j<=t} (1 - p_j)``; exact when every chance is 1,
      off by terms of second order in the miss chances. The result also reports the
      plan's exact :func:`expected_score`.

    A play absent from ``chances``, or with chance 0, is not an option. The solve runs on
    one worker with ``seed`` for at most ``time_limit`` seconds; only a solve that ends
    OPTIMAL is sure to repeat exactly. Raises :class:`NoAssignmentError` when no plan is
    found.
    """
    started = time.perf_counter()
    layout = _checked_layout(hands, kingdoms, chances, objective, time_limit)
    visits = min(len(hands), len(layout))
    plays = _candidate_plays(chances, visits, objective)
    built = _build(layout, visits, plays, objective)

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = time_limit
    status = solver.solve(built.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        name = solver.status_name(status)
        reason = {
            "INFEASIBLE": "no plan gives every hand a kingdom with a nonzero chance",
            "UNKNOWN": f"no plan found within the time limit of {time_limit} s",
        }.get(name, "the model is invalid")
        raise NoAssignmentError(name, f"CP-SAT found no assignment ({name}): {reason}")
    return _extract(solver, built, objective, solver.status_name(status), started)


def _checked_layout(
    hands: Sequence[CardSet],
    kingdoms: Mapping[int, Ruler],
    chances: Mapping[Play, float],
    objective: str,
    time_limit: float,
) -> dict[int, Ruler]:
    if objective not in OBJECTIVES:
        raise AssignmentInputError(f"objective {objective!r} is not one of {OBJECTIVES}")
    if not time_limit > 0:
        raise AssignmentInputError(f"time limit {time_limit!r} is not a positive number of seconds")
    layout = dict(kingdoms)
    if any(not isinstance(p, int) or p < 1 for p in layout):
        raise AssignmentInputError(f"kingdom positions {sorted(layout)!r} are not all 1 or more")
    if len(set(layout.values())) != len(layout):
        raise AssignmentInputError("each ruler can lie on only one kingdom")
    rulers = set(layout.values())
    for play, chance in chances.items():
        option = play.option
        if not 0.0 <= chance <= 1.0:
            problem = f"chance {chance!r} is not a probability"
        elif not 0 <= play.hand < len(hands):
            problem = f"there is no hand {play.hand} among {len(hands)}"
        elif play.position not in layout:
            problem = f"kingdom {play.position} is not unvisited"
        elif play.ruler not in rulers:
            problem = f"{play.ruler.ascii()} rules no unvisited kingdom"
        elif option.swap is not None and option.swap not in set(layout) - {play.position}:
            problem = f"kingdom {option.swap} is not another unvisited kingdom"
        elif not option.supporters <= rulers - {play.ruler}:
            problem = "a supporter must be another ruler of an unvisited kingdom"
        else:
            continue
        raise AssignmentInputError(f"{play!r}: {problem}")
    return layout


def _candidate_plays(
    chances: Mapping[Play, float], visits: int, objective: str
) -> list[tuple[Play, float]]:
    def allowed(play: Play, chance: float) -> bool:
        if chance == 0.0 or play.hand >= visits:
            return False
        # the first hand has no supporter won in the plan
        return not (
            play.option.supporters and (objective == AssignObjective.PERFECT or play.hand == 0)
        )

    # Sorted, so that the model, and with it the solve, does not depend on the dict's order.
    return sorted(
        ((play, chance) for play, chance in chances.items() if allowed(play, chance)),
        key=lambda item: _play_order(item[0]),
    )


def _play_order(play: Play) -> tuple:
    option = play.option
    return (
        play.hand,
        play.position,
        play.ruler.ascii(),
        sorted(r.ascii() for r in option.supporters),
        option.swap or 0,
    )


def _objective_term(play: Play, chance: float, visits: int, objective: str) -> int:
    if objective == AssignObjective.SCORE:
        misses = 2 * (visits - play.hand) * (1.0 - chance)
        return round(-SCALE * misses) - SCALE * len(play.option.supporters)
    return round(SCALE * math.log(chance))


@dataclass
class _Built:
    model: cp_model.CpModel
    plays: list[tuple[Play, float, cp_model.IntVar]]
    # at[t][(position, ruler)]: the ruler lies on that unvisited kingdom before visit t
    at: list[dict[tuple[int, Ruler], cp_model.IntVar]]


def _build(
    layout: dict[int, Ruler], visits: int, candidates: list[tuple[Play, float]], objective: str
) -> _Built:
    model = cp_model.CpModel()
    positions = sorted(layout)
    rulers = sorted(layout.values(), key=Ruler.ascii)
    at = [
        {(q, r): model.new_bool_var(f"at_{t}_{q}_{r.ascii()}") for q in positions for r in rulers}
        for t in range(visits + 1)
    ]
    plays = [
        (play, chance, model.new_bool_var(f"play_{n}"))
        for n, (play, chance) in enumerate(candidates)
    ]
    by_visit: list[list[tuple[Play, cp_model.IntVar]]] = [[] for _ in range(visits)]
    for play, _, var in plays:
        by_visit[play.hand].append((play, var))

    # The layout before the first visit.
    for (q, r), var in at[0].items():
        model.add(var == int(layout[q] == r))

    # A kingdom holds at most one ruler, a ruler lies on at most one kingdom (implied; helps).
    for t in range(1, visits + 1):
        for q in positions:
            model.add_at_most_one(at[t][q, r] for r in rulers)
        for r in rulers:
            model.add_at_most_one(at[t][q, r] for q in positions)

    # Hand t makes exactly one visit, visit t.
    for t in range(visits):
        model.add_exactly_one(var for _, var in by_visit[t])

    won: list[dict[Ruler, list[cp_model.IntVar]]] = []
    visited: dict[int, list[cp_model.IntVar]] = defaultdict(list)
    spent: dict[Ruler, list[cp_model.IntVar]] = defaultdict(list)
    for t in range(visits):
        before, after = at[t], at[t + 1]
        arrivals: dict[int, list[cp_model.IntVar]] = defaultdict(list)
        sources: dict[tuple[int, Ruler], list[cp_model.IntVar]] = defaultdict(list)
        swaps: dict[tuple[int, int], list[cp_model.IntVar]] = defaultdict(list)
        wins: dict[Ruler, list[cp_model.IntVar]] = defaultdict(list)
        uses: dict[Ruler, list[cp_model.IntVar]] = defaultdict(list)
        for play, var in by_visit[t]:
            swap = play.option.swap
            arrivals[play.position].append(var)
            sources[play.position if swap is None else swap, play.ruler].append(var)
            wins[play.ruler].append(var)
            for supporter in play.option.supporters:
                uses[supporter].append(var)
            if swap is not None:
                swaps[play.position, swap].append(var)
                # Politics swaps only with a ruler of another suit (§4).
                same_suit = [before[play.position, r] for r in rulers if r.suit == play.ruler.suit]
                model.add(var + sum(same_suit) <= 1)

        # The ruler played under lies where the play says: here, or on the swapped kingdom.
        for (q, r), vars_ in sources.items():
            model.add(sum(vars_) <= before[q, r])

        # A visited kingdom is unvisited when the hand arrives, and empty afterwards (implied).
        for q in positions:
            here = sum(arrivals[q])
            model.add(here <= sum(before[q, r] for r in rulers))
            for r in rulers:
                model.add(after[q, r] + here <= 1)
            visited[q].extend(arrivals[q])

        # Each ruler's flow: it stays put unless won where it lies, or sent by a swap from the
        # kingdom visited to the swapped one (the ruler found there when the hand arrives).
        sent_out: dict[tuple[int, Ruler], list[cp_model.IntVar]] = defaultdict(list)
        sent_in: dict[tuple[int, Ruler], list[cp_model.IntVar]] = defaultdict(list)
        for (p, m), vars_ in sorted(swaps.items()):
            sent = {r: model.new_bool_var(f"sent_{t}_{p}_{m}_{r.ascii()}") for r in rulers}
            model.add(sum(sent.values()) == sum(vars_))
            for r in rulers:
                model.add(sent[r] <= before[p, r])
                sent_out[p, r].append(sent[r])
                sent_in[m, r].append(sent[r])
        for q in positions:
            for r in rulers:
                model.add(
                    after[q, r]
                    == before[q, r] - sum(sources[q, r]) - sum(sent_out[q, r]) + sum(sent_in[q, r])
                )

        # A supporter is spent only once won by an earlier visit (§2.6, §4).
        for supporter, vars_ in uses.items():
            earlier = [var for step in won for var in step.get(supporter, [])]
            model.add(sum(vars_) <= sum(earlier))
            spent[supporter].extend(vars_)
        won.append(wins)

    # Each kingdom is visited at most once (implied by the layout; stated for propagation).
    for q in positions:
        model.add_at_most_one(visited[q])

    # Each supporter is spent at most once in the tour (§4).
    for vars_ in spent.values():
        model.add_at_most_one(vars_)

    offset = 2 * visits * SCALE if objective == AssignObjective.SCORE else 0
    model.maximize(
        sum(_objective_term(play, chance, visits, objective) * var for play, chance, var in plays)
        + offset
    )
    return _Built(model, plays, at)


def _extract(
    solver: cp_model.CpSolver, built: _Built, objective: str, status: str, started: float
) -> Assignment:
    chosen: list[Visit] = []
    for play, chance, var in built.plays:
        if not solver.boolean_value(var):
            continue
        sent = None
        if play.option.swap is not None:
            sent = _ruler_at(solver, built.at[play.hand], play.position)
        chosen.append(Visit(play, chance, sent))
    chosen.sort(key=lambda v: v.play.hand)
    chance_product = math.prod((v.chance for v in chosen), start=1.0)
    return Assignment(
        visits=tuple(chosen),
        objective=objective,
        value=solver.objective_value / SCALE,
        bound=solver.best_objective_bound / SCALE,
        chance=chance_product,
        expected_score=expected_score(
            [v.chance for v in chosen], [len(v.play.option.supporters) for v in chosen]
        ),
        status=status,
        seconds=time.perf_counter() - started,
    )


def _ruler_at(
    solver: cp_model.CpSolver, layout: dict[tuple[int, Ruler], cp_model.IntVar], position: int
) -> Ruler:
    return next(r for (q, r), var in layout.items() if q == position and solver.boolean_value(var))
