"""advise's exact solves (:func:`search.tours.advice.advise_visit`): one solve for each (trump,
abilities, pool), serving every kingdom of that trump, on one memo for a column's trumps,
within fixed work, in two lanes side by side.

The lanes. Commerce's column (:data:`SIDE_COLUMNS`) is solved in a forked worker while this
process solves the others, ♦♥♠ among them (its memos start the estimates, forked from this
process). Each lane's work is fixed, so the table is the same whether the lanes run side by
side or in turn (:data:`SIDE_BY_SIDE` off) where the clock lets them finish; on one core the
clock cuts the second lane (:data:`LANE_SHARE`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..game import Suit
from ..infra import MemoryLimitExceeded, process_pool
from ..visit import (
    BudgetExceeded,
    KingdomResult,
    KingdomSolver,
    Position,
    WorkLimitExceeded,
    clock_stops,
    make_solver,
    root_options,
    solve_exact,
)

Progress = Callable[[int, int, str, int], None]
"""Called as ``progress(done, total, column, position)`` before each step and once at the end."""

DHS_COUNTS = (0, 1, 1, 1)
"""♦♥♠'s ability counts: a solve of theirs past its work keeps its memo (it starts the estimates)."""


@dataclass
class Solve:
    """One solver for a (trump, abilities, pool), with what it has found."""

    solver: KingdomSolver | None  # None once no later cell can use its memo
    work: int | None = None  # kernel lookups it may still make (a budget the clock does not set)
    clock_end: float | None = None  # the clock's backstop: the end of the exact solves' share
    clock_cut: bool = False  # the backstop, not the work, stopped it
    used: int = 0  # kernel lookups made so far
    started: bool = False
    needs: tuple[float, ...] | None = None  # chance of j more wins, j = 0..8
    timed_out: bool = False
    memory_cut: bool = False  # the memory cap stopped it: its memo is freed
    results: dict[int, KingdomResult] = field(default_factory=dict)  # full results by target


SIDE_COLUMNS = ("D", "DS")  # Column.DIAMONDS, DIAMONDS_SPADES (search.tours.advice)
"""The columns :func:`~search.tours.advice.advise_visit` solves in a second process beside the
others (on a machine with two cores or more): Commerce's, the costliest single Jack (its four
trumps about 17 M lookups on deals 1 and 2), then ♦♠ on its memo, while this process solves the
rest, Military's before ♣♠ and ♦♥♠ (whose memos start the estimates, forked from this process).
With a 3 s table's work and the clock far off, deals 1-8: Commerce 64 of 64 cells exact,
Military 46 of 64; with Military beside Commerce, 38 and 46."""
SIDE_BY_SIDE = True
"""Whether the side lane runs in a second process (with two cores or more), else after the main one."""
ONE_MEMO_PER_COLUMN = True
"""Whether a column's solves for its four trumps share one solver (else one each; the memo is
keyed by the whole state, so the values are the same: ``examples/bench_column_memo.py``)."""
BIG_MEMOS = ((0, 1, 0, 0),)
"""The memo families (ability counts) whose memo starts at :data:`search.visit.HAND_MEMO_BITS`
slots rather than growing by doubling from small: Commerce's, whose four trumps fill about that
much. On the first hands of deals 1-30 at 3 s (two runs each way, alternated) it made 232 of
their 240 Commerce cells exact against 226 (Military's started big: 140 of 240 both ways, so
it grows from small as the cheap sets do)."""
LANE_SHARE = 0.9
"""Each lane's share of the exact solves' work: the lanes run side by side, one a core, so each
may work for most of the exact share's time. On one core the lanes run in turn, so the clock
cuts the second, and the table says so."""


def exact_lane(
    cells: list,
    states: dict,
    keys: dict,
    exact_end: float | None,
    work: float | None,
    progress: Progress | None = None,
    total: int = 0,
) -> tuple[dict, dict]:
    """Solve ``cells`` exactly in turn within ``work`` kernel lookups (None: no limit) and the
    clock's backstop ``exact_end``: each solve, when it starts, may use half the work left
    while solves of its tier wait to start (:func:`tier`), else all of it. An equal part each
    left every solve short where the work could finish some (a Commerce column's four trumps
    need about 17 M lookups, the 3 s table's whole side lane 27 M): half the work left made 62
    of the 128 Military and Commerce cells of deals 1-8 exact, against 34 (issue 37, item 4).
    A solve cut by its work keeps its memo for the column's later trumps (every entry is
    exact). Returns the chances found by cell and the solves by key."""
    left = work
    solves: dict[tuple, Solve] = {}
    memos: dict[tuple, KingdomSolver] = {}  # one solver for a column's trumps (below)
    found: dict[tuple[str, int], KingdomResult | float] = {}
    for done, cell in enumerate(cells):
        if progress:
            progress(done, total, *cell)
        key = keys[cell]
        family = memo_family(key)
        if key not in solves:
            # The memo is keyed by the whole state, trump and pool included, so one solver
            # serves a column's four trumps; their states meet deeper in the search (suits
            # are canonical): on deals 1 and 2, 1.2-1.5x fewer lookups for Commerce and
            # Military, 1.8-2x for Politics (issue 37, 2b).
            if memos.get(family) is None or not ONE_MEMO_PER_COLUMN:
                memos[family] = make_solver(whole_hand=family in BIG_MEMOS)
            solves[key] = Solve(memos[family])
        solve = solves[key]
        if not solve.started:
            solve.started = True
            if work is not None:
                waiting = {keys[c] for c in cells[done + 1 :] if tier(keys[c]) == tier(key)}
                waiting -= {k for k, s in solves.items() if s.started}
                solve.work = int(max(0.0, left) / (2 if waiting else 1))
                solve.clock_end = exact_end
        spent = solve.used
        value = exact_chance(solve, states[cell], full=cell[0] == "all")
        if left is not None:
            left -= solve.used - spent
        if value is not None:
            found[cell] = value
        if all(keys[c] != key for c in cells[done + 1 :]) and cell[0] != "DHS":
            solve.solver = None  # done with its memo; what it found stays
        later = (memo_family(keys[c]) for c in cells[done + 1 :])
        if solve.solver is None and (solve.memory_cut or family not in later):
            memos.pop(family, None)  # past the memory cap, or no later solve asks it
    return found, solves


@dataclass(frozen=True)
class Meanwhile:
    """What this process does once its own lane is done, while the side lane's solves run on
    (advise's certainty search): ``run(found)`` returns more cells found, given those found
    so far; the side lane may go on until ``end`` with ``work`` more lookups (None: no limit).
    With one core the lanes run in turn, the side lane with the same work (so the same table
    where the clock cuts nothing), and ``run`` comes after both with what the clock leaves."""

    run: Callable[[dict], dict]
    end: float | None
    work: float | None


def solve_cells(
    cells: list,
    states: dict,
    keys: dict,
    exact_end: float | None,
    work: float | None,
    progress: Progress | None = None,
    meanwhile: Meanwhile | None = None,
) -> tuple[dict, dict, int, int]:
    """Solve ``cells`` in the two lanes, :data:`SIDE_COLUMNS` beside the rest, each with
    :data:`LANE_SHARE` of ``work``, then run ``meanwhile`` while the side lane goes on with
    its time and work (the second core would otherwise wait: on the 3 s table Commerce's
    column, the side lane's, is cut by the clock where its four trumps need over about 28 M
    lookups). Returns the chances found by cell (``meanwhile``'s too), the main lane's solves
    by key (their memos stay here), and how many solves ran and how many of them the clock
    stopped, over both lanes."""
    side = [cell for cell in cells if cell[0] in SIDE_COLUMNS]
    main = [cell for cell in cells if cell[0] not in SIDE_COLUMNS]
    lane_work = None if work is None else LANE_SHARE * work
    side_end, side_work = exact_end, lane_work
    if meanwhile is not None:  # the same work side by side or in turn: the same table
        side_end = meanwhile.end
        side_work = (
            None if lane_work is None or meanwhile.work is None else lane_work + meanwhile.work
        )
    overlap = meanwhile is not None and bool(side) and side_by_side()
    with side_lane(side, states, keys, side_end, side_work) as side_result:
        found, solves = exact_lane(main, states, keys, exact_end, lane_work, progress, len(cells))
        if overlap:
            found.update(meanwhile.run(found))
        side_found, side_solved, side_cuts = side_result()
    found.update(side_found)
    if meanwhile is not None and not overlap:
        found.update(meanwhile.run(found))
    if progress:
        for done, cell in enumerate(side, start=len(main)):
            progress(done, len(cells), *cell)
    solved, cuts = counts(solves)
    return found, solves, solved + side_solved, cuts + side_cuts


def side_by_side() -> bool:
    """Whether the side lane runs in a second process, beside the main lane."""
    return SIDE_BY_SIDE and (os.cpu_count() or 1) >= 2


def counts(solves: dict) -> tuple[int, int]:
    """How many of ``solves`` ran, and how many of them the clock stopped."""
    return sum(s.needs is not None for s in solves.values()), sum(
        s.clock_cut for s in solves.values()
    )


def _side_solve(
    cells: list, states: dict, keys: dict, exact_end: float | None, work: float | None
) -> tuple[dict, int, int]:
    """:func:`exact_lane` of the side lane, as a worker returns it: the chances found and
    :func:`counts` of its solves."""
    found, solves = exact_lane(cells, states, keys, exact_end, work)
    return (found, *counts(solves))


@contextmanager
def side_lane(cells: list, states: dict, keys: dict, exact_end: float | None, work: float | None):
    """Start the side lane's solves in a forked worker (in this process, after the main lane,
    with one core); yields a function that waits for their result. The work of each lane is
    fixed, so the table is the same whether the lanes run side by side or in turn."""
    if not cells:
        yield lambda: ({}, 0, 0)
        return
    if not side_by_side():
        yield lambda: _side_solve(cells, states, keys, exact_end, work)
        return
    with process_pool(1, "fork") as pool:  # the worker inherits the loaded kernel
        future = pool.submit(_side_solve, cells, states, keys, exact_end, work)
        yield future.result


def tier(key: tuple) -> int:
    """How costly a solve is: 0 with no drawing ability, 1 with one draw alone, 2 with more or
    with Politics too (the bounds' ♣♠ and ♦♠ wait for the cells shown). A solve shares the
    exact time left with the solves of its tier not started yet: later tiers get what earlier
    ones leave."""
    counts = key[1]
    draws = counts[Suit.CLUBS] + counts[Suit.DIAMONDS]
    if draws == 0:
        return 0
    return 1 if draws == 1 and not counts[Suit.SPADES] else 2


def memo_family(key: tuple) -> tuple:
    """Which solver a solve shares (:func:`exact_lane`): a column's four trumps share one, and
    a drawing Jack with Politics shares its Jack's alone, whose states it meets once Politics is
    spent (♦♠ after ♦ on deals 1-12: 4.6 M lookups a trump at the median, against 20 M alone)."""
    counts = key[1]
    draws = counts[Suit.CLUBS] + counts[Suit.DIAMONDS]
    if draws == 1 and counts[Suit.SPADES] and not counts[Suit.HEARTS]:
        alone = list(counts)
        alone[Suit.SPADES] = 0
        return tuple(alone)
    return counts


def exact_chance(solve: Solve, position: Position, full: bool) -> KingdomResult | float | None:
    """The exact chance for this target (with ``full``, the full result: options and
    distribution), or None once the solve has passed its time limit."""
    if solve.timed_out:
        return None
    if not full and solve.needs is not None:
        return solve.needs[position.need]
    known = solve.results.get(position.target)
    if known is not None:
        return known if full else known.chance
    counts = position.abilities.counts
    draws = counts[Suit.CLUBS] + counts[Suit.DIAMONDS]
    if draws and solve.clock_end is not None and time.perf_counter() >= solve.clock_end:
        # Past the backstop a drawing solve is not started at all (its first clock reading
        # would come only after thousands of lookups); one with no drawing ability still runs,
        # as it is done in about that many.
        solve.timed_out = solve.clock_cut = True
        return None
    solver = solve.solver or make_solver()
    if solve.work is not None:
        solver.limit_work(max(1, solve.work - solve.used))
    before = solver.lookups
    try:
        with clock_stops(solve.clock_end if solve.work is not None else None, solver):
            if full:
                result = solve_exact(solver, position, time.perf_counter())
                solve.results[position.target] = result
                solve.needs = result.needs
                return result
            vectors = [value for _, value, _ in root_options(solver, position)]
        needs = tuple(map(max, *vectors)) if len(vectors) > 1 else vectors[0]
        solve.needs = tuple(float(v) for v in needs)
        return solve.needs[position.need]
    except BudgetExceeded as error:
        solve.timed_out = True  # never searched again here
        # The clock's backstop stopped it unless the work or the memory cap did; the clock
        # also stops a memo's doubling that would end past the deadline, before it is reached.
        solve.clock_cut = solve.clock_end is not None and not isinstance(
            error, (WorkLimitExceeded, MemoryLimitExceeded)
        )
        solve.memory_cut = isinstance(error, MemoryLimitExceeded)
        if solve.memory_cut or position.abilities.counts != DHS_COUNTS:
            solve.solver = None  # free its memo (a ♦♥♠ memo may start the estimates)
        return None
    finally:
        solve.used += solver.lookups - before
        if solve.work is not None:
            solver.limit_work(None)
