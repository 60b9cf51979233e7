"""The lookahead policy compiled (search/visit/fastplay.py, the playouts at the end of
search/visit/kernel.py): the same plays as the Python policy on the same deck orders
(docs/rules.md §2–§4), and best play where every ability is solved."""

from __future__ import annotations

import pytest

from search.game import CardSet, Suit
from search.infra import wilson_interval
from search.visit import make_solver, scratch_of
from search.visit.fastplay import MirroredPolicy, SplitMixStream, compiled_playouts, playout_seed
from search.visit.kernel import FastKingdomSolver
from search.visit.lookahead import (
    ROOT_RESTRICTIONS,
    LookaheadPolicy,
    play_lookahead,
    solve_roots,
)

# Mid-visit, 5 cards in hand and every Jack; Politics may bring ♣, ♦ or ♠. The restrictions
# ♦♥♠ and ♣ solve in well under a second; every Jack at once is left out, so the policy must
# choose between restrictions, sample Military and pick Commerce's discards itself.
HAND = CardSet.parse("2C 6C 4D 7H 3S").mask
DECK = CardSet.parse("AC 3C 8C AD 2D 3D 6D AH 2H 3H 5H AS 2S 4S 5S 8S").mask
STATE = (HAND, DECK, 0, int(Suit.HEARTS), (1, 1, 1, 1), (0, 1, 3))
ROOTS = ((1, 2, 3), (0,))
SEED = 11
PLAYOUTS = 40


def _python_wins(solver, roots, need: int, playouts: int) -> tuple[list[int], list[int]]:
    """The Python policy's wins and its base's, on the compiled generator's deck orders."""
    policy = MirroredPolicy(solver, roots, seed=SEED, scratch=scratch_of(solver))
    suits, _ = policy.base(STATE, need)
    base = MirroredPolicy(solver, [suits], seed=SEED, scratch=policy.scratch, fixed=True)
    wins = [
        play_lookahead(policy, STATE, need, SplitMixStream(playout_seed(SEED, i)))
        for i in range(playouts)
    ]
    hits = [
        play_lookahead(base, STATE, need, SplitMixStream(playout_seed(SEED, i)))
        for i in range(playouts)
    ]
    return wins, hits


def _compiled_wins(solver, roots, need: int, playouts: int, first: int = 0, scratch=None):
    policy = LookaheadPolicy(solver, roots, seed=SEED, scratch=scratch or scratch_of(solver))
    suits, _ = policy.base(STATE, need)
    base = LookaheadPolicy(solver, [suits], seed=SEED, scratch=policy.scratch, fixed=True)
    return compiled_playouts(policy, base, STATE, need, SEED, first, playouts)


@pytest.fixture(scope="module")
def solved() -> tuple:
    """A compiled solver with ♦♥♠ and ♣ solved, and the roots it solved."""
    solver = make_solver()
    roots = solve_roots(solver, STATE, None, None, ROOTS)
    assert roots == [(1, 2, 3), (0,)]
    return solver, roots


@pytest.mark.parametrize("need", [2, 3, 4, 5])
def test_compiled_playouts_play_what_the_python_policy_plays(solved, need) -> None:
    """On the same deck orders the two make the same plays, so each playout ends alike."""
    solver, roots = solved
    assert _compiled_wins(solver, roots, need, PLAYOUTS) == _python_wins(
        solver, roots, need, PLAYOUTS
    )


def test_with_clubs_hearts_spades_solved_both_policies_play_alike_and_sample_less() -> None:
    """♣♥♠ among the restrictions (as the product solves them): Military is valued exactly
    after Politics where it was sampled, so the compiled playouts solve fewer fresh subgames,
    and the Python policy still makes the same plays."""
    restrictions = tuple(r for r in ROOT_RESTRICTIONS if len(r) < 4)
    assert (0, 2, 3) in restrictions
    solver = make_solver()
    roots = solve_roots(solver, STATE, None, None, restrictions)
    assert (0, 2, 3) in roots
    for need in (3, 4):
        assert _compiled_wins(solver, roots, need, PLAYOUTS) == _python_wins(
            solver, roots, need, PLAYOUTS
        )
    scratch_work = []
    for wanted in (ROOTS, roots):  # each on fresh memos, the same playouts
        fresh = make_solver()
        found = solve_roots(fresh, STATE, None, None, wanted)
        scratch = scratch_of(fresh)
        for need in (3, 4):
            _compiled_wins(fresh, found, need, PLAYOUTS)
        scratch_work.append(scratch.lookups)
    assert scratch_work[1] < scratch_work[0]


def test_a_run_continued_from_its_count_plays_the_same_deck_orders(solved) -> None:
    solver, roots = solved
    whole = _compiled_wins(solver, roots, 4, 30)
    first, rest = (
        _compiled_wins(solver, roots, 4, 12),
        _compiled_wins(solver, roots, 4, 18, first=12),
    )
    assert (first[0] + rest[0], first[1] + rest[1]) == whole


def test_memos_that_fill_up_mid_playout_grow_and_play_the_same() -> None:
    """A playout stopped by a full memo is played again once it has grown: nothing changes."""
    roomy = make_solver()
    roots = solve_roots(roomy, STATE, None, None, ROOTS)
    cramped = FastKingdomSolver(initial_bits=4, initial_stack=256, initial_depth=8)
    solve_roots(cramped, STATE, None, None, ROOTS)
    cramped.reset()  # its memo empty and small again: the playouts fill it
    scratch = FastKingdomSolver(initial_bits=4, initial_stack=256, initial_depth=8)
    assert _compiled_wins(cramped, roots, 5, 20, scratch=scratch) == _compiled_wins(
        roomy, roots, 5, 20
    )
    assert cramped.state_count() > 1 << 4 and scratch.state_count() > 1 << 4


def test_a_scratch_memo_at_the_memory_cap_is_emptied_and_play_goes_on(solved) -> None:
    """The scratch memo only saves work: at the memory cap it is emptied, the playout under
    way starts again, and every playout ends as with room to spare."""
    from search.infra import budget

    solver, roots = solved
    roomy = _compiled_wins(solver, roots, 5, 20)
    scratch = FastKingdomSolver(initial_bits=4, initial_stack=256, initial_depth=8)
    resets = []
    scratch.reset = lambda original=scratch.reset: (resets.append(1), original())[1]
    cap = budget.memory_limit()
    budget.set_memory_limit(budget.reserved_memory() + (3 << 20))
    try:
        cramped = _compiled_wins(solver, roots, 5, 20, scratch=scratch)
    finally:
        budget.set_memory_limit(cap)
    assert resets and cramped == roomy


def test_where_every_ability_is_solved_the_compiled_policy_wins_at_the_exact_rate() -> None:
    """With every Jack solved, the policy plays best play: over 2,000 playouts its success
    rate's 95% interval holds the exact chance, and it never parts from its base."""
    hand = CardSet.parse("2C 6C 4D 7H").mask
    deck = CardSet.parse("AC 3C 8C AD 2D 3D AH 2H 3H 5H AS 2S 3S 4S").mask
    state = (hand, deck, 0, int(Suit.HEARTS), (1, 1, 1, 1), (0, 1, 3))
    solver = make_solver()
    exact = solver.decide(*state)
    roots = solve_roots(solver, state, None, None, ((0, 1, 2, 3),))
    policy = LookaheadPolicy(solver, roots, seed=SEED, scratch=scratch_of(solver))
    base = LookaheadPolicy(solver, [(0, 1, 2, 3)], seed=SEED, scratch=policy.scratch, fixed=True)
    wins, base_wins = compiled_playouts(policy, base, state, 5, SEED, 0, 2000)
    assert wins == base_wins
    low, high = wilson_interval(sum(w == 5 for w in wins), len(wins))
    assert low <= exact[5] <= high
