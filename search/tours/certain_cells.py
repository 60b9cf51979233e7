"""advise's all-Jacks and every-ability cells made exact where they are 100% or 0% (issue 37).

No exact solve of these cells fits the table's time, but the certainty search
(:func:`search.visit.certainty`) can prove a target sure (exactly 1) or impossible (exactly 0)
in a fraction of a second. :func:`certain_cells` asks it of each such cell the exact solves left
open, within fixed work (a share of the time limit at the kernel's rate, split equally over the
cells still to ask, so the table repeats) and the clock as a backstop; a decided cell becomes an
exact result and needs no estimate. A cell cut by its work, the clock or the memory cap stays open.
"""

from __future__ import annotations

import time
from fractions import Fraction

from ..visit import (
    SURE,
    Budget,
    CertaintySearch,
    KingdomResult,
    Position,
    certainty,
)

COLUMNS = ("jacks", "all")
"""The cells asked: those no exact solve fits in the table's time."""
SUBSETS = ("DHS", "HS", "D", "C", "S", "H", "none")
"""Exact cells whose distribution an impossible cell shows (any policy's: all hit the target
with chance 0, so a subset's best play, open to a player with more abilities, is one of them)."""


def certain_cells(
    cells: list, states: dict[tuple, Position], found: dict, budget: Budget
) -> dict[tuple, KingdomResult]:
    """The cells of :data:`COLUMNS` not exact in ``found`` that are exactly 100% or 0%, as exact
    results; ``budget``'s share for it sets the work (none: no limit), and the clock backstops
    it (:meth:`~search.visit.Budget.certainty_end`)."""
    todo = [cell for cell in cells if cell[0] in COLUMNS and not _exact_in(found, cell)]
    if not todo:
        return {}
    end, work = budget.certainty_end(), budget.certainty_work()
    search = CertaintySearch()
    decided = {}
    asked: dict = {}  # "all" is "jacks" when no supporter is unused: asked once
    for cell in todo:
        asked.setdefault(states[cell], []).append(cell)
    for index, (position, group) in enumerate(asked.items()):
        if end is not None and time.perf_counter() >= end:
            break  # past the clock: the cells left stay open (each would search until its poll)
        share = None if work is None else int(work / (len(asked) - index))
        result = certainty(position, work=share, deadline=end, search=search)
        if work is not None:
            work = max(0, work - result.lookups)
        if result.decided:
            for cell in group:
                decided[cell] = _exact(result.verdict == SURE, position, found, cell[1], result)
    return decided


def _exact_in(found: dict, cell: tuple) -> bool:
    result = found.get(cell)
    return result is not None and not (isinstance(result, KingdomResult) and result.estimate)


def _exact(sure: bool, position: Position, found: dict, place: int, result) -> KingdomResult:
    if sure:  # the sure policy ends on the target every time
        distribution = (0.0,) * (position.wins + position.need) + (1.0,)
    else:
        subsets = (found[c, place] for c in SUBSETS if (c, place) in found)
        exact = (r for r in subsets if isinstance(r, KingdomResult) and not r.estimate)
        distribution = next((r.distribution for r in exact), (1.0,))
    return KingdomResult(
        chance=1.0 if sure else 0.0,
        chance_exact=Fraction(int(sure)),
        needs=(),
        best=None,
        options=(),
        distribution=distribution,
        states=result.lookups,
        seconds=result.seconds,
    )
