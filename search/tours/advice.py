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

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..game import CardSet, Ruler, Suit, TourState
from ..infra import process_pool
from ..visit import (
    LOOKUPS_PER_SECOND,
    BudgetExceeded,
    InvalidPositionError,
    KingdomResult,
    KingdomSolver,
    LookaheadPolicy,
    Option,
    Position,
    estimate_kingdom,
    forget_solver,
    legal_discards_of,
    make_position,
    make_solver,
    option_of_label,
    remember_roots,
    root_state,
    scratch_of,
    solve_roots,
    swap_state,
    warm_up,
)
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

ESTIMATE_WORKERS = 2
"""Processes that share advise_visit's estimates (no more than the machine's cores)."""


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
        return cls(result.chance, result.estimate, result.interval, result.playouts,
                   floor=result.bound, policy=result.policy)


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
    estimate_cuts: int = 0  # of clock_cuts, the estimates (the rest: exact solves, not counted in solves)
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
    _ROOT_SOLVERS.clear()
    for cell in cells:
        if cell[0] == "DHS" and solves[keys[cell]].solver is not None:
            trump, _, pool = keys[cell]
            _ROOT_SOLVERS[trump, pool] = solves[keys[cell]].solver
    nominal = None if time_limit is None else (1 - EXACT_SHARE) * time_limit
    try:
        estimated = estimate_all([states[group[0]] for group in queries.values()], seconds,
                                 fixed_work=nominal)
    finally:
        _ROOT_SOLVERS.clear()
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
    values = planner.after_choice(tour, hand, {p: _planning_chance(found, p) for p in positions},
                                  deadline=planning_end)
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


def could_pass(planner, tour: TourState, hand: CardSet, found: dict, kingdoms, best,
               deadline: float | None = None) -> tuple[int, ...]:
    """The kingdoms whose tour value could pass ``best``'s once the cells the budget left to
    estimates are solved (issue 38: a recommendation must not flip with the budget
    unannounced). A kingdom's planning chance errs low where a planning cell is not exact
    (:func:`_planning_chance` leaves it out); each such cell is raised to the top of what the
    table knows of it (:func:`_cell_top`) and the kingdom's tour value compared with
    ``best``'s, which can only rise as its own cells are solved."""
    def unsolved(position: int) -> bool:
        return any((c, position) not in found or _cell_chance(found[c, position]).estimate
                   for c in PLANNING_COLUMNS)

    open_positions = [k.position for k in kingdoms if k is not best and unsolved(k.position)]
    if not open_positions:
        return ()
    known = {k.position: _planning_chance(found, k.position) for k in kingdoms}
    for position in open_positions:
        known[position] = max(_cell_top(found, c, position) for c in PLANNING_COLUMNS)
    values = planner.after_choice(tour, hand, known, deadline=deadline)
    return tuple(p for p in open_positions
                 if values[p][1].value > best.tour_value.value + LEVEL_VALUE)


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


def estimate_all(
    positions: list[Position],
    seconds: float | None,
    forced: list | None = None,
    fixed_work: float | None = None,
    first: list[int] | None = None,
) -> list[KingdomResult]:
    """Monte Carlo estimates of ``positions`` sharing ``seconds`` of wall time (None: about
    a second each), on a process pool of up to
    :data:`ESTIMATE_WORKERS` workers; ``forced`` gives each estimate's first decision (see
    :func:`search.visit.estimate.play_policy`). With ``fixed_work`` (the estimates' nominal
    seconds, shared alike) the work of each is fixed and ``seconds`` only a backstop (see
    :func:`search.visit.estimate.estimate_kingdom`)."""
    if not positions:
        return []
    count = len(positions)
    workers = min(ESTIMATE_WORKERS, os.cpu_count() or 1, count)
    rounds = -(-count // workers)  # each worker's share of the estimates
    nominal = None if fixed_work is None else fixed_work / rounds
    args = ([None if seconds is None else seconds / rounds] * count, forced or [None] * count,
            [nominal] * count, first or [0] * count)
    if workers == 1:
        return list(map(_estimate, positions, *args))
    with process_pool(workers, "fork") as pool:  # workers inherit the loaded kernel
        if fixed_work is None:
            return list(pool.map(_estimate, positions, *args))
        # Fixed work: worker w takes estimates w, w + workers, ... in order, so that what its
        # shared memo holds when each starts (and so where a work limit stops) is always the same.
        rows = list(zip(positions, *args))
        parts = list(pool.map(_estimate_each, [rows[w::workers] for w in range(workers)]))
        results: list = [None] * count
        for w, part in enumerate(parts):
            results[w::workers] = part
        return results


BORROW = 2.0
"""How many fair shares of a worker's time left one fixed-work estimate may run into before
the clock stops it (see :func:`_estimate_each`)."""


def _estimate_each(rows: list[tuple]) -> list[KingdomResult]:
    """:func:`_estimate` of each row, in order, in one process. The rows' seconds are pooled:
    each estimate's backstop is up to :data:`BORROW` fair shares of what is left of the
    pool, so an estimate slower than its nominal work borrows the time a quicker one left
    (the work, not the clock, decides on a machine near the nominal rates)."""
    if any(row[1] is None for row in rows):
        return [_estimate(*row) for row in rows]
    end = time.perf_counter() + sum(row[1] for row in rows)
    results = []
    for index, (position, _, *rest) in enumerate(rows):
        left = max(0.0, end - time.perf_counter())
        results.append(_estimate(position, min(left, BORROW * left / (len(rows) - index)), *rest))
    return results


def _estimate_discards(position: Position, seconds: float | None,
                       fixed_work: float | None = None) -> list[tuple[Option, KingdomResult]]:
    """Commerce's discards (R3) each estimated as the position it leaves, sharing ``seconds``;
    a discard that empties the hand ends the visit, and its chance is exact."""
    options, positions = [], []
    for pair in legal_discards_of(position.hand):
        options.append(Option("discard", cards=pair))
        positions.append(
            replace(position, hand=position.hand - pair, discard=position.discard | pair, discarding=False)
        )
    playable = [p for p in positions if p.hand]
    estimates = iter(estimate_all(playable, seconds, fixed_work=fixed_work))
    results = []
    for option, after in zip(options, positions):
        if after.hand:
            results.append((option, next(estimates)))
        else:
            hit = float(after.need == 0)
            results.append((option, KingdomResult(hit, None, (), option, ((option, hit),), (1.0,), 0, 0.0)))
    return results


def _estimate(position: Position, seconds: float | None, forced: tuple | None,
              fixed_work: float | None = None, first: int = 0) -> KingdomResult:
    abilities = position.abilities
    pool = abilities.pool if abilities.counts[Suit.SPADES] else ()
    solver = _ROOT_SOLVERS.get((position.trump, pool)) or _shared_solver()
    return estimate_kingdom(
        position, seconds=seconds, started=time.perf_counter(), forced=forced,
        solver=solver, fixed_work=fixed_work, first=first,
    )


_ROOT_SOLVERS: dict[tuple, KingdomSolver] = {}
"""advise_visit's ♦♥♠ solvers by (trump, pool), while its estimates run (see there)."""


def solve_shared_roots(position: Position, seconds: float, work: int | None = None) -> tuple[float, bool]:
    """Solve the lookahead policy's restrictions of ``position`` (not a pending discard) on
    this process's shared solver within ``seconds``, so that the estimates that follow (in
    this process or forked from it) start from them; returns the best one's exact chance, a
    proven lower bound on the position's chance, and whether the clock stopped a solve before
    ``work`` (kernel lookups, if given) was done."""
    state = root_state(position)
    waiting = position.waiting.index if position.waiting is not None else None
    solver = _shared_solver()
    if solver.state_count() > SHARED_STATES:  # a new ranking: forget the earlier ones'
        forget_solver(solver)
    cuts: list = []
    deadline = time.perf_counter() + seconds
    roots = solve_roots(solver, state, waiting, deadline, work=work, cuts=cuts)
    remember_roots(solver, state, waiting, roots)  # the estimates forked next do not retry them
    policy = LookaheadPolicy(solver, roots, scratch=scratch_of(solver))
    for one in (solver, policy.scratch):  # ♥♠ on a big hand is not instant: within the time too
        one.deadline = deadline
    try:
        bound = float(policy.base(state, position.need, waiting)[1])
        if waiting is None:  # ♥♠ after each option, for the estimates to inherit
            policy.scratch.option_worths(position.need, *swap_state(state))
        return bound, bool(cuts)
    except BudgetExceeded:
        return 0.0, True
    finally:
        for one in (solver, policy.scratch):
            one.deadline = None


_SHARED: list[KingdomSolver] = []
SHARED_STATES = 2_000_000
"""The most states the shared solver carries from earlier rankings into a new one (about
250 MB). Past it the memo starts afresh: kept, it would soon double, and a doubling near
a gigabyte took 1.3 s of a 2 s coach step (issue 15) and left the coach at 1.25 GB."""


def _shared_solver() -> KingdomSolver:
    """One solver per process for the estimates' exact sub-solves: its memo is a function of
    the state alone, so estimates of related positions (discards, options) share it."""
    if not _SHARED:
        _SHARED.append(make_solver())
    return _SHARED[0]


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


def estimate_options(position: Position, seconds: float | None, fixed_work: float | None = None,
                     chosen: list[Option] | None = None,
                     first: list[int] | None = None) -> list[tuple[Option, KingdomResult]]:
    """Every option open at ``position`` (not a pending discard) with a Monte Carlo estimate of
    its chance: the fallback policy after that first decision, each option given an equal
    share of ``seconds``. Playout i of every
    option sees the same deck order (common random numbers); options that draw cards play
    slower, so they get fewer playouts and wider intervals. ``fixed_work``: as for
    :func:`estimate_all`. ``chosen``: only these options (not discards), in that order, their
    playouts numbered from ``first`` (to continue earlier estimates of them)."""
    if position.discarding:
        return _estimate_discards(position, seconds, fixed_work)
    hand, deck, disc, trump, abil, pool = root_state(position)
    labelled: list[tuple[Option, tuple]] = []
    if position.waiting is not None:
        for card in position.hand.of_suit(position.waiting.suit) or position.hand:
            labelled.append((Option("answer", card=card), ("answer", card.index)))
    else:
        for label in make_solver().option_labels(hand, deck, disc, trump, abil, pool):
            labelled.append((option_of_label(label), label))
    if chosen is not None:
        labelled = [next(pair for pair in labelled if pair[0] == option) for option in chosen]
    positions, labels = [position] * len(labelled), [label for _, label in labelled]
    results = estimate_all(positions, seconds, labels, fixed_work, first)
    return [(option, result) for (option, _), result in zip(labelled, results)]
