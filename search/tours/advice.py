"""Advice from a tour under way: which kingdom to visit, and what to do mid-visit (docs/rules.md §7).

Which kingdom. :func:`advise_visit` takes the tour between visits and the cards just drawn
and gives every unvisited kingdom's chance of hitting its target under seven ability sets
(:data:`COLUMNS`): none, each Jack alone, all four Jacks, and all Jacks with the unused
supporters. It recommends by *tour value* (:mod:`search.tours.planning`): the expected final
score (or chance of a perfect tour) if the kingdom is visited now, which weighs what each
choice leaves for the later visits.

Solves are shared. A solve gives the chance of every target at once (its vector over wins
still needed), and a kingdom's Politics pool is the suits of the *other* unvisited rulers,
the same for two kingdoms whose rulers share a suit (K♣ and Q♣). So one solver serves every
kingdom with the same trump, ability counts and pool, and keeps its memo for all of them.
The time limit is the whole table's: exact solves first, cheap ability sets first, and what
they cannot finish in their share becomes a Monte Carlo estimate (flagged, with a 95%
interval, see :mod:`search.visit.estimate`); the other kingdoms a timed-out solve serves are then
estimated directly rather than searched again.

Mid-visit ranking is :mod:`search.tours.moves`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..game import CardSet, Ruler, Suit, TourState
from ..visit import (
    LOOKUPS_PER_SECOND,
    InvalidPositionError,
    KingdomResult,
    Position,
    make_position,
    warm_up,
)
from .certain_cells import certain_cells
from .estimates import estimate_all, sharing_root_solvers
from .exact_cells import Progress, solve_cells
from .planning import TourValue, advisor_planner

COLUMNS = ("none", "H", "C", "S", "D", "jacks", "all")
"""The ability sets of :func:`advise_visit`: none, each Jack alone (by suit letter), all four
Jacks, and all Jacks with the unused supporters."""

BOUND_COLUMNS = ("HS", "DHS")
"""Subsets of the Jacks solved exactly, beside :data:`COLUMNS`, only to bound the combined
cells from below: with every Jack a player can always play as if some were absent."""

# Cheap ability sets first, so that early progress is quick. "all" before "jacks": with no
# unused supporter they are one solve, and "all" needs the full result (its distribution).
_ORDER = ("none", "H", "S", "HS", "C", "D", "DHS", "all", "jacks")

SUBSETS = {
    "H": ("none",),
    "C": ("none",),
    "S": ("none",),
    "D": ("none",),
    "jacks": ("none", "H", "C", "S", "D", "HS", "DHS"),
    "all": ("none", "H", "C", "S", "D", "HS", "DHS", "jacks"),
}
"""For each combined column, the columns whose ability sets it contains: their exact chances
are proven lower bounds for it."""

EXACT_SHARE = 0.75
"""The share of advise_visit's time limit the exact solves may use; estimates get the rest.
Measured on the first hands of deals 2 and 5 at a 3 s limit: 0.75 solves as many cells as 0.5
did at 5 s; the estimates it leaves less time are mostly shown as the bounds beneath them."""
MARGIN = 0.05
"""The share of a time limit kept back from the searches, for what follows them (the
estimate pool's start and end, the tour values, the table)."""

PLANNING_SLACK = 1.1
"""The tour values (the supporters' options among them) must be done by this many times the
time limit; past it they are valued without the options left."""

FORCED_SECONDS = 0.5
"""The most seconds :func:`rank_moves` spends on a position with one legal answer: nothing
to rank, so it answers at once with what it learns of the chance in that time (issue 38)."""


@dataclass(frozen=True)
class Chance:
    """A chance of one of three kinds: ``exact``; a proven lower ``bound`` (the exact chance of
    a subset of the abilities, shown as "≥"); or a Monte Carlo ``estimate`` of a policy's
    success rate, with the 95% interval of that rate (the optimal chance is at least
    ``floor``, and at least what the policy achieves)."""

    value: float
    estimate: bool = False
    interval: tuple[float, float] | None = None  # an estimate's: the policy's success rate
    playouts: int = 0
    bound: bool = False  # value is a proven lower bound, not the exact chance
    floor: float = 0.0  # the best exact chance of a subset of the abilities
    policy: str = ""  # an estimate's fallback policy (search.visit.estimate)

    @property
    def kind(self) -> str:
        """``exact``, ``bound`` or ``estimate``."""
        return "estimate" if self.estimate else "bound" if self.bound else "exact"

    @classmethod
    def of(cls, result: KingdomResult) -> Chance:
        """The chance a solve reports."""
        return cls(
            result.chance,
            result.estimate,
            result.interval,
            result.playouts,
            floor=result.bound,
            policy=result.policy,
        )


@dataclass(frozen=True)
class KingdomAdvice:
    """One unvisited kingdom: its chance under each ability set of :data:`COLUMNS`."""

    position: int
    ruler: Ruler
    target: int
    chances: tuple[Chance, ...]  # in the order of COLUMNS
    distribution: tuple[float, ...]  # P(wins = j) under best play with every ability
    tour_value: TourValue | None = None  # the tour's worth if this kingdom is visited now

    @property
    def trump(self) -> Suit:
        """The ruler's suit."""
        return self.ruler.suit

    def chance(self, column: str) -> Chance:
        """The chance under one ability set, named as in :data:`COLUMNS`."""
        return self.chances[COLUMNS.index(column)]


@dataclass(frozen=True)
class VisitAdvice:
    """Every unvisited kingdom, left to right, and the one to visit: the best tour value
    (see :mod:`search.tours.planning`)."""

    hand: CardSet
    kingdoms: tuple[KingdomAdvice, ...]
    recommended: KingdomAdvice
    solves: int  # exact solves run (each serves every kingdom of its trump)
    estimates: int  # Monte Carlo estimates run
    seconds: float
    clock_cuts: int = 0  # searches and estimates the clock stopped before their work was done
    estimate_cuts: int = (
        0  # of clock_cuts, the estimates (the rest: exact solves, not counted in solves)
    )
    too_close: tuple[int, ...] = ()  # kingdoms the open cells leave able to pass the recommended
    time_limit: float | None = None  # the budget the table had (None: exact)


def column_abilities(
    column: str, unused: Sequence[Ruler]
) -> tuple[tuple[Suit, ...], tuple[Suit, ...]]:
    """The Jacks and supporter suits of one ability set of :data:`COLUMNS` or
    :data:`BOUND_COLUMNS`."""
    if column == "none":
        return (), ()
    if column == "jacks":
        return tuple(Suit), ()
    if column == "all":
        return tuple(Suit), tuple(r.suit for r in unused)
    return tuple(Suit.from_letter(letter) for letter in column), ()


def politics_pool(tour: TourState, position: int) -> tuple[Suit, ...]:
    """The suits Politics may bring to kingdom ``position``: the other unvisited rulers'."""
    return tuple(
        ruler.suit
        for index, ruler in enumerate(tour.rulers)
        if ruler is not None and index + 1 != position
    )


def advise_visit(
    tour: TourState,
    hand: CardSet,
    time_limit: float | None = None,
    progress: Progress | None = None,
    objective: str = "score",
    deadline: float | None = None,
) -> VisitAdvice:
    """Each unvisited kingdom's chance with ``hand`` under every ability set, its tour value
    (``objective``: expected final score or chance of a perfect tour), and the kingdom with
    the best tour value.

    ``time_limit`` is the whole table's budget in seconds (None: exact, however long). The
    exact solves share the first :data:`EXACT_SHARE` of it, in two lanes side by side (see
    :func:`~search.tours.exact_cells.solve_cells`), cheap ability sets first, each solve given an equal part of what is
    left in its lane when it starts (see :mod:`search.tours.exact_cells`); the cells
    still open then become Monte Carlo estimates sharing the rest on a process pool, their
    work fixed by that share (see :func:`estimate_all`). The work is set from ``time_limit``
    alone, so the table repeats; the clock only backstops it, at ``time_limit`` after loading
    the compiled kernel, or at ``deadline`` (a ``time.perf_counter()`` reading) if that is
    sooner: a command's own start-up counts against its limit.
    """
    warm_up()
    entered = time.perf_counter()
    if tour.over:
        raise InvalidPositionError("the tour is over: no kingdom is left to visit")
    planner = advisor_planner(objective)
    planner.values(planner.kingdoms_of(tour))  # from the shipped table: not budgeted
    started = time.perf_counter()
    clock = None  # the seconds the clock leaves the searches
    if time_limit is not None:
        end = entered + (1 - MARGIN) * time_limit
        if deadline is not None:
            end = min(end, deadline - MARGIN * time_limit)
        clock = max(0.0, end - started)
        time_limit = (1 - MARGIN) * time_limit  # what the work is set from
    positions = tour.unvisited
    cells = [(column, p) for column in _ORDER for p in positions]
    bounds_only = {cell for cell in cells if cell[0] in BOUND_COLUMNS}
    states = {cell: _cell_position(tour, hand, *cell) for cell in cells}
    keys = {cell: _solve_key(state) for cell, state in states.items()}
    exact_end = None if clock is None else started + EXACT_SHARE * clock
    # Work decides how much is exact (kernel lookups, from the time limit at a fixed rate), so
    # that the table repeats on any machine fast enough; the clock is only a backstop.
    work = None if time_limit is None else EXACT_SHARE * time_limit * LOOKUPS_PER_SECOND
    found, solves, solved, exact_cuts = solve_cells(cells, states, keys, exact_end, work, progress)
    found.update(certain_cells(cells, states, found, time_limit))  # 100% and 0% made exact
    total = len(cells)
    open_cells = [cell for cell in cells if cell not in found and cell not in bounds_only]
    queries: dict[tuple, list] = {}  # one estimate per (solve, target), shared by its cells
    for cell in open_cells:
        queries.setdefault((keys[cell], states[cell].target), []).append(cell)
    if progress and open_cells:
        progress(total - len(open_cells), total, "estimates", 0)
    seconds = None
    if clock is not None:
        seconds = max(0.0, started + clock - time.perf_counter())
    # The ♦♥♠ memos (finished or not, every entry is exact) start the lookahead policy of the
    # estimates with the same trump and pool: forked workers inherit them.
    roots = {
        (keys[cell][0], keys[cell][2]): solves[keys[cell]].solver
        for cell in cells
        if cell[0] == "DHS" and solves[keys[cell]].solver is not None
    }
    nominal = None if time_limit is None else (1 - EXACT_SHARE) * time_limit
    with sharing_root_solvers(roots):
        estimated = estimate_all(
            [states[group[0]] for group in queries.values()], seconds, fixed_work=nominal
        )
    for group, result in zip(queries.values(), estimated):
        for cell in group:
            found[cell] = result
    if progress:
        progress(total, total, "", 0)
    # The supporters' options are solves too: the clock bounds them (issue 38), within the
    # 10% over its limit a step may take; one it stops counts as a clock cut.
    planning_end = None
    if time_limit is not None:
        planning_end = entered + PLANNING_SLACK * time_limit / (1 - MARGIN)
        if deadline is not None:
            planning_end = min(planning_end, deadline + (PLANNING_SLACK - 1) * time_limit)
    values = planner.after_choice(
        tour, hand, {p: _planning_chance(found, p) for p in positions}, deadline=planning_end
    )
    planning_cut = int(planning_end is not None and time.perf_counter() >= planning_end)
    kingdoms = tuple(
        KingdomAdvice(
            position=p,
            ruler=tour.rulers[p - 1],
            target=tour.config.target(p),
            chances=_row_chances(found, p),
            distribution=found["all", p].distribution,
            tour_value=values[p][1],
        )
        for p in positions
    )
    best = kingdoms[0]
    for kingdom in kingdoms[1:]:  # ties go to the leftmost kingdom
        if kingdom.tour_value.value > best.tour_value.value:
            best = kingdom
    return VisitAdvice(
        hand=hand,
        kingdoms=kingdoms,
        recommended=best,
        solves=solved,
        estimates=len(queries),
        clock_cuts=exact_cuts + sum(r.clock_cut for r in estimated) + planning_cut,
        seconds=time.perf_counter() - entered,
        estimate_cuts=sum(r.clock_cut for r in estimated),
        too_close=could_pass(planner, tour, hand, found, kingdoms, best, planning_end),
        time_limit=None if time_limit is None else time_limit / (1 - MARGIN),
    )


def could_pass(
    planner,
    tour: TourState,
    hand: CardSet,
    found: dict,
    kingdoms,
    best,
    deadline: float | None = None,
) -> tuple[int, ...]:
    """The kingdoms whose tour value could pass ``best``'s once the cells the budget left to
    estimates are solved (issue 38: a recommendation must not flip with the budget
    unannounced). A kingdom's planning chance errs low where a planning cell is not exact
    (:func:`_planning_chance` leaves it out); each such cell is raised to the top of what the
    table knows of it (:func:`_cell_top`) and the kingdom's tour value compared with
    ``best``'s, which can only rise as its own cells are solved."""

    def unsolved(position: int) -> bool:
        return any(
            (c, position) not in found or _cell_chance(found[c, position]).estimate
            for c in PLANNING_COLUMNS
        )

    open_positions = [k.position for k in kingdoms if k is not best and unsolved(k.position)]
    if not open_positions:
        return ()
    known = {k.position: _planning_chance(found, k.position) for k in kingdoms}
    for position in open_positions:
        known[position] = max(_cell_top(found, c, position) for c in PLANNING_COLUMNS)
    values = planner.after_choice(tour, hand, known, deadline=deadline)
    return tuple(
        p for p in open_positions if values[p][1].value > best.tour_value.value + LEVEL_VALUE
    )


def _cell_top(found: dict, column: str, position: int) -> float:
    """The most a cell may be on what the table knows: its exact chance; an estimate's 95%
    interval's top (best play may do better than the policy estimated, so this is the
    plausible top, not a proof); an unsolved cell's, the exact chance with every ability
    where that was solved, else 1."""
    if (column, position) in found:
        cell = _cell_chance(found[column, position])
        if not cell.estimate:
            return cell.value
        if cell.interval is not None and not _says_little(cell):
            return max(cell.value, cell.interval[1])
    every = _cell_chance(found["all", position])
    return 1.0 if every.estimate else every.value


LEVEL_VALUE = 1e-9
"""Two tour values closer than this are level."""


PLANNING_COLUMNS = ("HS", "D", "C")
"""The table's columns whose ability sets are the planner's (:data:`~search.tours.planning.PLANNING_SETS`)."""


def _planning_chance(found: dict, position: int) -> float:
    """The hand's planning chance at a kingdom, from the table's cells: the best exact chance
    of :data:`PLANNING_COLUMNS` (a cell the budget left to an estimate is left out, so it
    errs low, as the model does)."""
    chances = (_cell_chance(found[c, position]) for c in PLANNING_COLUMNS if (c, position) in found)
    return max((chance.value for chance in chances if not chance.estimate), default=0.0)


def _cell_position(tour: TourState, hand: CardSet, column: str, position: int) -> Position:
    jacks, supporters = column_abilities(column, tour.unused_supporters)
    return make_position(
        hand,
        tour.rulers[position - 1].suit,
        tour.config.target(position),
        jacks=jacks,
        supporters=supporters,
        pool=politics_pool(tour, position),
    )


def _solve_key(position: Position) -> tuple:
    abilities = position.abilities
    pool = abilities.pool if abilities.counts[Suit.SPADES] else ()
    return (position.trump, abilities.counts, pool)


def _cell_chance(value: KingdomResult | float) -> Chance:
    return Chance.of(value) if isinstance(value, KingdomResult) else Chance(value)


def _row_chances(found: dict, position: int) -> tuple[Chance, ...]:
    """One kingdom's chances in the order of :data:`COLUMNS`. A cell that is not exact is never
    shown below an exact chance of the same row with fewer abilities (:data:`SUBSETS`; a Jack's
    column above the one with none): it is the larger of its estimate and that proven bound,
    and says which it is."""
    solved = {
        c: _cell_chance(found[c, position])
        for c in (*COLUMNS, *BOUND_COLUMNS)
        if (c, position) in found
    }
    cells = {c: solved[c] for c in COLUMNS}
    exact = {c: chance.value for c, chance in solved.items() if not chance.estimate}
    for column, subsets in SUBSETS.items():  # "all" contains "jacks": settle "jacks" first
        cell = cells[column]
        if not cell.estimate:
            continue
        floor = max((exact[c] for c in subsets if c in exact), default=cell.floor)
        floor = max(floor, cell.floor)  # the estimate's own base: an exactly solved restriction
        if column == "all" and cells["jacks"].kind != "estimate":
            floor = max(floor, cells["jacks"].value)
        if floor >= cell.value or _says_little(cell):
            cells[column] = Chance(floor, bound=True, floor=floor)
        else:
            cells[column] = replace(cell, floor=floor)
    return tuple(cells[c] for c in COLUMNS)


WIDEST_SHOWN = 0.5
"""An estimate whose 95% interval is wider than this says little (a handful of playouts when
the work ran short): its cell shows the proven bound beneath it instead (seen: ≈85% from 4
playouts, interval 1-100%, where the exact chance is 60%)."""
MIN_PLAYOUTS = 100
"""The fewest playouts an estimate shown as a chance rests on: with fewer, the proven bound
beneath it is shown instead, and it ranks by that bound (no headline rests on a handful)."""


def _says_little(cell: Chance) -> bool:
    if cell.interval is None:
        return False
    return cell.playouts < MIN_PLAYOUTS or cell.interval[1] - cell.interval[0] > WIDEST_SHOWN
