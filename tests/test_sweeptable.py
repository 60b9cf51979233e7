"""Looking chances up in the exhaustive sweep (search/sweeptable.py) instead of solving."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from search.game.cards import CARDS, FULL_MASK, CardSet
from search.game.deal import Stream
from search.sweep.handclasses import permute_masks
from search.sweep.lookup import SweepError, SweepLookup, canonical_masks
from search.tours.planning import PlanningTable
from search.visit.solvers import make_solver

SWEEP = Path(__file__).resolve().parents[1] / "sweeps" / "none"
HANDS = np.array(
    [CardSet(Stream(5, "lookup", i).shuffle(CARDS)[:8]).mask for i in range(300)], dtype=np.uint64
)


@pytest.mark.parametrize("trump", range(4))
def test_a_hand_and_its_suit_renamings_share_one_class(trump: int) -> None:
    """Renaming the non-trump suits never changes the class; the class of a hand with trump
    ♠ is its smallest renaming, itself a fixed point."""
    classes = canonical_masks(HANDS, trump)
    others = [s for s in range(4) if s != trump]
    for order in ([others[1], others[0], others[2]], [others[2], others[0], others[1]]):
        perm = list(range(4))
        for old, new in zip(others, order):
            perm[old] = new
        assert (canonical_masks(permute_masks(HANDS, tuple(perm)), trump) == classes).all()
    assert (canonical_masks(classes, 3) == classes).all()
    if trump == 3:
        assert (classes <= HANDS).all()


def test_a_folder_without_chunks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match="no sweep chunks"):
        SweepLookup(tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not SWEEP.exists(), reason="needs the full no-ability sweep in sweeps/none")
def test_looked_up_chances_equal_solved_ones() -> None:
    """With the full sweep run (README, Exhaustive sweep): every looked-up chance equals the
    solver's for 300 seeded hands at every trump, and a planning table built from lookups
    equals one built by solving."""
    lookup = SweepLookup(SWEEP)
    solver = make_solver()
    for trump in range(4):
        solved = np.array(
            [
                solver.decide(int(h), FULL_MASK & ~int(h), 0, trump, (0, 0, 0, 0), ())[1:9]
                for h in HANDS
            ]
        )
        assert np.abs(lookup.chances(HANDS, trump) - solved).max() < 1e-12
    looked_up = PlanningTable.from_sweep(lookup, hands=50)
    solved_table = PlanningTable(hands=50, sets=((0, 0, 0, 0),))
    for trump in range(4):
        a, b = looked_up.chances(trump, frozenset()), solved_table.chances(trump, frozenset())
        assert np.abs(a[:, 1:] - b[:, 1:]).max() < 1e-12
