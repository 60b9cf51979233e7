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
from enum import StrEnum

from ..game import CardSet, Ruler, Suit, TourState
from ..visit import (
    Budget,
    InvalidPositionError,
    KingdomResult,
    Position,
    Search,
    make_position,
    warm_up,
)
from .certain_cells import certain_cells
from .estimates import estimate_all
from .exact_cells import Meanwhile, Progress, solve_cells
from .planning import Objective, TourPlanner, TourValue, advisor_planner


class Column(StrEnum):
    """An ability set of :func:`advise_visit`'s table: none, a Jack alone (by suit letter), two
    or three Jacks, all four Jacks, all Jacks with the unused supporters."""

    NONE = "none"
    HEARTS = "H"
    CLUBS = "C"
    SPADES = "S"
    DIAMONDS = "D"
    HEARTS_SPADES = "HS"
    CLUBS_SPADES = "CS"
    DIAMONDS_SPADES = "DS"
    DHS = "DHS"
    JACKS = "jacks"
    ALL = "all"


COLUMNS = (
    Column.NONE,
    Column.HEARTS,
    Column.CLUBS,
    Column.SPADES,
    Column.DIAMONDS,
    Column.JACKS,
    Column.ALL,
)
"""The columns shown, in order: none, each Jack alone, all four Jacks, and all Jacks with the
unused supporters."""

BOUND_COLUMNS = (Column.HEARTS_SPADES, Column.CLUBS_SPADES, Column.DIAMONDS_SPADES, Column.DHS)
"""Subsets of the Jacks solved exactly, beside :data:`COLUMNS`, only to bound the combined
cells from below: with every Jack a player can always play as if some were absent. Military
or Commerce with Politics costs little more on its single Jack's memo (a solve's states once
Politics is spent are that Jack's, trumps included) and lifts the bound most for its cost: on
the first hands of deals 1-12, all four trumps solved (``examples/bound_columns.py``), adding
♣♠ raised the all-Jacks bound by 6.5 points on average over the single Jacks and ♥♠, ♦♠ by 7.9,
both by 9.6, where ♦♥♠ alone gives 11.1 but finished in none of 160 rows of a 3 s table."""

# Cheap ability sets first, so that early progress is quick. "all" before "jacks": with no
# unused supporter they are one solve, and "all" needs the full result (its distribution).
_ORDER = (
    Column.NONE,
    Column.HEARTS,
    Column.SPADES,
    Column.HEARTS_SPADES,
    Column.CLUBS,
    Column.DIAMONDS,
    Column.CLUBS_SPADES,
    Column.DIAMONDS_SPADES,
    Column.DHS,
    Column.ALL,
    Column.JACKS,
)

_SUBSETS_OF_JACKS = (
    Column.NONE,
    Column.HEARTS,
    Column.CLUBS,
    Column.SPADES,
    Column.DIAMONDS,
    Column.HEARTS_SPADES,
    Column.CLUBS_SPADES,
    Column.DIAMONDS_SPADES,
    Column.DHS,
)
SUBSETS = {
    Column.HEARTS: (Column.NONE,),
    Column.CLUBS: (Column.NONE,),
    Column.SPADES: (Column.NONE,),
    Column.DIAMONDS: (Column.NONE,),
    Column.JACKS: _SUBSETS_OF_JACKS,
    Column.ALL: (*_SUBSETS_OF_JACKS, Column.JACKS),
}
"""For each combined column, the columns whose ability sets it contains: their exact chances
are proven lower bounds for it."""

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

    def chance(self, column: Column | str) -> Chance:
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
    column: Column, unused: Sequence[Ruler]
) -> tuple[tuple[Suit, ...], tuple[Suit, ...]]:
    """The Jacks and supporter suits of one ability set of :data:`COLUMNS` or
    :data:`BOUND_COLUMNS`."""
    column = Column(column)
    if column is Column.NONE:
        return (), ()
    if column is Column.JACKS:
        return tuple(Suit), ()
    if column is Column.ALL:
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
    objective: Objective | str = Objective.SCORE,
    deadline: float | None = None,
    budget: Budget | None = None,
) -> VisitAdvice:
    """Each unvisited kingdom's chance with ``hand`` under every ability set, its tour value
    (``objective``: expected final score or chance of a perfect tour), and the kingdom with
    the best tour value.

    ``budget`` is the whole table's (else ``time_limit`` seconds from when the kernel is
    loaded, ending by ``deadline``, a ``time.perf_counter()`` reading, if that is sooner: a
    command's own start-up counts against its limit; no limit: exact, however long). Four
    steps: the cells to fill (:func:`_plan_cells`); the exact solves, within the first
    share of it (:data:`~search.visit.budget.EXACT_FRACTIONS`) in two lanes side by side, cheap
    ability sets first (:func:`~search.tours.exact_cells.solve_cells`), then the certainty
    search's 100% and 0% here while Commerce's lane goes on (:mod:`.certain_cells`); the
    cells still open, as Monte Carlo estimates in the rest on forked processes
    (:func:`_estimate_cells`); and the tour values (:func:`_value_kingdoms`). The work is set
    from the limit alone, so the table repeats; the clock only backstops it.
    """
    warm_up()
    budget = budget or Budget(time_limit, Search.TABLE, end_by=deadline)
    if tour.over:
        raise InvalidPositionError("the tour is over: no kingdom is left to visit")
    planner = advisor_planner(objective)
    planner.values(planner.kingdoms_of(tour))  # from the shipped table: not budgeted
    plan = _plan_cells(tour, hand)
    # Work decides how much is exact (kernel lookups, from the time limit at a fixed rate), so
    # that the table repeats on any machine fast enough; the clock is only a backstop.
    # The certainty search (100% and 0% made exact) runs while Commerce's lane goes on.
    certainty = Meanwhile(
        run=lambda known: certain_cells(plan.cells, plan.states, known, budget),
        end=budget.after_certainty_end(),
        work=budget.certainty_work(),
    )
    found, solves, solved, exact_cuts = solve_cells(
        plan.cells,
        plan.states,
        plan.keys,
        budget.exact_end(),
        budget.exact_work(),
        progress,
        certainty,
    )
    estimated = _estimate_cells(plan, found, solves, budget, progress)
    return _value_kingdoms(tour, hand, planner, plan, found, budget, solved, exact_cuts, estimated)


@dataclass(frozen=True)
class _CellPlan:
    """The cells of a table, (column, kingdom), in the order they are solved; those only there
    to bound others; each one's position and the key of the solve that serves it."""

    cells: list
    bounds_only: set
    states: dict
    keys: dict


def _plan_cells(tour: TourState, hand: CardSet) -> _CellPlan:
    """Every cell of the table, cheap ability sets first (:data:`_ORDER`)."""
    cells = [(column, p) for column in _ORDER for p in tour.unvisited]
    states = {cell: _cell_position(tour, hand, *cell) for cell in cells}
    return _CellPlan(
        cells=cells,
        bounds_only={cell for cell in cells if cell[0] in BOUND_COLUMNS},
        states=states,
        keys={cell: _solve_key(state) for cell, state in states.items()},
    )


def _estimate_cells(
    plan: _CellPlan, found: dict, solves: dict, budget: Budget, progress: Progress | None
) -> list[KingdomResult]:
    """The cells the exact solves left open, as Monte Carlo estimates (one for each solve and
    target, shared by its cells; added to ``found``) in what is left of the searches' share of
    ``budget``; the estimates run."""
    total = len(plan.cells)
    open_cells = [c for c in plan.cells if c not in found and c not in plan.bounds_only]
    queries: dict[tuple, list] = {}
    for cell in open_cells:
        queries.setdefault((plan.keys[cell], plan.states[cell].target), []).append(cell)
    if progress and open_cells:
        progress(total - len(open_cells), total, "estimates", 0)
    seconds = budget.search_left()
    # The ♦♥♠ memos (finished or not, every entry is exact) start the lookahead policy of the
    # estimates with the same trump and pool: forked workers inherit them.
    roots = {
        (plan.keys[cell][0], plan.keys[cell][2]): solves[plan.keys[cell]].solver
        for cell in plan.cells
        if cell[0] is Column.DHS and solves[plan.keys[cell]].solver is not None
    }
    nominal = budget.estimate_seconds()
    with budget.memos.sharing_roots(roots):
        estimated = estimate_all(
            [plan.states[group[0]] for group in queries.values()],
            seconds,
            budget,
            fixed_work=nominal,
        )
    for group, result in zip(queries.values(), estimated):
        for cell in group:
            found[cell] = result
    if progress:
        progress(total, total, "", 0)
    return estimated


def _value_kingdoms(
    tour: TourState,
    hand: CardSet,
    planner: TourPlanner,
    plan: _CellPlan,
    found: dict,
    budget: Budget,
    solved: int,
    exact_cuts: int,
    estimated: list[KingdomResult],
) -> VisitAdvice:
    """Each kingdom's row and tour value, and the one to visit (ties to the leftmost). The
    supporters' options are solves too: the clock bounds them (issue 38), within the 10% over
    its limit a step may take; one it stops counts as a clock cut."""
    positions = tour.unvisited
    planning_end = budget.share_end(PLANNING_SLACK)
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
            distribution=found[Column.ALL, p].distribution,
            tour_value=values[p][1],
        )
        for p in positions
    )
    best = kingdoms[0]
    for kingdom in kingdoms[1:]:  # ties go to the leftmost kingdom
        if kingdom.tour_value.value > best.tour_value.value:
            best = kingdom
    estimate_cuts = sum(r.clock_cut for r in estimated)
    return VisitAdvice(
        hand=hand,
        kingdoms=kingdoms,
        recommended=best,
        solves=solved,
        estimates=len(estimated),
        clock_cuts=exact_cuts + estimate_cuts + planning_cut,
        seconds=time.perf_counter() - budget.started,
        estimate_cuts=estimate_cuts,
        too_close=could_pass(planner, tour, hand, found, kingdoms, best, planning_end),
        time_limit=budget.limit,
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
    plausible top, not a proof); an unsolved cell's, the top of the cell with every ability
    (no subset of the abilities does better), else 1."""
    if (column, position) in found:
        top = _plausible_top(_cell_chance(found[column, position]))
        if top is not None:
            return top
    every = _plausible_top(_cell_chance(found[Column.ALL, position]))
    return 1.0 if every is None else every


def _plausible_top(cell: Chance) -> float | None:
    """An exact chance; an estimate's interval top where the interval says something."""
    if not cell.estimate:
        return cell.value
    if cell.interval is not None and not _says_little(cell):
        return max(cell.value, cell.interval[1])
    return None


LEVEL_VALUE = 1e-9
"""Two tour values closer than this are level."""


PLANNING_COLUMNS = (Column.HEARTS_SPADES, Column.DIAMONDS, Column.CLUBS)
"""The table's columns whose ability sets are the planner's (:data:`~search.tours.planning.PLANNING_SETS`)."""


def _planning_chance(found: dict, position: int) -> float:
    """The hand's planning chance at a kingdom, from the table's cells: the best exact chance
    of :data:`PLANNING_COLUMNS` (a cell the budget left to an estimate is left out, so it
    errs low, as the model does)."""
    chances = (_cell_chance(found[c, position]) for c in PLANNING_COLUMNS if (c, position) in found)
    return max((chance.value for chance in chances if not chance.estimate), default=0.0)


def _cell_position(tour: TourState, hand: CardSet, column: Column, position: int) -> Position:
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
        if column is Column.ALL and cells[Column.JACKS].kind != "estimate":
            floor = max(floor, cells[Column.JACKS].value)
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
