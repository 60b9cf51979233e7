"""The lookahead policy with every Jack (search/visit/lookahead.py; docs/rules.md §4, §7)."""

from __future__ import annotations

import time

import pytest

from search.game import CardSet, Stream, Suit
from search.visit import make_position, make_solver
from search.visit.estimate import estimate_kingdom
from search.visit.fastplay import SplitMixStream, playout_seed
from search.visit.lookahead import (
    MILITARY_MARGIN,
    MILITARY_STAGES,
    LookaheadPolicy,
    military_ceiling,
    paired_estimate,
    play_lookahead,
    restricted,
)
from search.visit.lookahead import _with as with_counts  # the state with other ability counts
from search.visit.lookahead_runs import lookahead_playouts
from search.visit.playout import Playout
from search.visit.position import root_state
from tests.conftest import midway_every_jack, restriction_chances

# Mid-visit: 4 cards in hand, 14 in the deck, the rest won or gone; trump ♥, every Jack,
# Politics may bring ♣, ♦ or ♠. Small enough for the exact search with every Jack (about 1 s).
HAND = CardSet.parse("2C 6C 4D 7H").mask
DECK = CardSet.parse("AC 3C 8C AD 2D 3D AH 2H 3H 5H AS 2S 3S 4S").mask
STATE = (HAND, DECK, 0, int(Suit.HEARTS), (1, 1, 1, 1), (0, 1, 3))
# No clock: a search given fixed work runs to its end however busy the machine is.
NEVER = float("inf")


@pytest.fixture(scope="module")
def exact() -> tuple:
    """The exact chance of j more wins with every Jack, j = 0..8."""
    return make_solver().decide(*STATE)


def test_military_ceiling_bounds_the_final_test_whatever_the_draws_to_come() -> None:
    """Military's sampling may stop once its final statistic (the mean less the margin's
    standard errors over every draw of the last stage) cannot beat the best exact option:
    ``military_ceiling`` of the first draws is at least that statistic for any values of the
    draws still to sample (each in [0, 1]), and reached by some of them."""
    import random

    total = MILITARY_STAGES[-1]
    rng = random.Random(37)
    for _ in range(2000):
        values = [rng.choice((0.0, 1.0, rng.random())) for _ in range(total)]
        mean = sum(values) / total
        spread = sum((v - mean) ** 2 for v in values) / (total - 1)
        statistic = mean - MILITARY_MARGIN * (spread / total) ** 0.5
        count = rng.randint(1, total - 1)
        assert military_ceiling(values[:count]) >= statistic - 1e-12
    assert military_ceiling([1.0] * (total - 1)) == pytest.approx(1.0)
    assert military_ceiling([0.0] * 4) < 0.75  # four draws worth nothing: at most 12 of 16


def test_military_draws_at_a_position_are_the_same_for_every_target() -> None:
    """Military's sampled draws are seeded by the position's cards and trump, not by the wins
    still needed: the runs for every target value a position on the same draws (and find
    their subgames memoised)."""
    policy = LookaheadPolicy(make_solver(), [], seed=5)
    game = Playout(STATE, Stream(1))
    orders = {tuple(policy.military_stream(game, still).shuffle(range(32))) for still in (1, 3)}
    assert len(orders) == 1
    game.answer(game.next_card(), (game.hand & -game.hand).bit_length() - 1)  # a debate played
    assert tuple(policy.military_stream(game, 1).shuffle(range(32))) not in orders


def test_paired_estimate_adds_the_paired_difference_to_the_exact_base() -> None:
    pairs = [(True, True)] * 50 + [(True, False)] * 8 + [(False, True)] * 2 + [(False, False)] * 40
    value, (low, high) = paired_estimate(0.5, pairs)
    assert value == pytest.approx(0.5 + 6 / 100)
    assert low < value < high
    # No discordant pair: the interval still has width (the discordance rates are unknown).
    value, (low, high) = paired_estimate(0.3, [(True, True)] * 30 + [(False, False)] * 70)
    assert value == pytest.approx(0.3) and low < 0.3 < high


@pytest.mark.parametrize("need", [0, 5, 6, 7])
def test_where_every_ability_is_solved_the_policy_is_best_play(exact, need) -> None:
    """Fixed work: every restriction solved (no clock), then 24 playouts."""
    run = lookahead_playouts(make_solver(), STATE, need, 7, NEVER, None, playouts=24)
    assert len(run.pairs) == 24
    assert (0, 1, 2, 3) in run.roots  # the whole search finished: its base is best play
    assert run.base_value == pytest.approx(exact[need], abs=1e-12)
    value, (low, high) = paired_estimate(run.base_value, run.pairs)
    assert low <= exact[need] <= high
    assert value == pytest.approx(exact[need], abs=1e-12)  # it never leaves best play


@pytest.mark.parametrize("need", [5, 6])
def test_the_policy_is_never_below_its_solved_restrictions_nor_above_best_play(exact, need) -> None:
    solver = make_solver()
    for suits in ((1, 2, 3), (0,)):  # ♦♥♠ and ♣ solved; every Jack at once is not
        solver.decide(*STATE[:4], restricted(STATE[4], suits), STATE[5])
    policy = LookaheadPolicy(solver, [(1, 2, 3), (0,)], seed=3)
    base = LookaheadPolicy(
        solver, [policy.base(STATE, need)[0]], seed=3, scratch=policy.scratch, fixed=True
    )
    pairs = [
        (
            play_lookahead(policy, STATE, need, Stream(3, "t", i)) == need,
            play_lookahead(base, STATE, need, Stream(3, "t", i)) == need,
        )
        for i in range(400)
    ]
    floor = policy.base(STATE, need)[1]
    value, (low, high) = paired_estimate(floor, pairs)
    assert high >= floor  # never significantly below the best solved restriction
    assert low <= exact[need] + 1e-12  # never claims more than best play
    assert value >= floor  # here it improves on it: Military by sampled lookahead


def test_play_repeats_for_a_seed() -> None:
    first = lookahead_playouts(make_solver(), STATE, 5, 11, NEVER, None, batch=20, playouts=20)
    assert len(first.wins) == 20
    first_wins = first.wins
    solver = make_solver()  # one for the twenty: what its memo holds must not change a move
    again = [
        play_lookahead(
            LookaheadPolicy(solver, first.roots, seed=11),
            STATE,
            5,
            SplitMixStream(playout_seed(11, i)),
        )
        for i in range(20)
    ]
    assert again == first_wins


def test_an_estimate_with_every_jack_names_its_policy_and_its_proven_bound() -> None:
    """A lookahead estimate with every Jack, its work fixed below what every restriction needs:
    its proven bound is the exact chance of a restriction it solved, at least ♥♠'s; its
    interval reaches neither above best play with every Jack nor below that bound (the
    policy's chance lies between them), both exact chances from the solver."""
    position = midway_every_jack(need=5)
    result = estimate_kingdom(position, seconds=600.0, started=time.perf_counter(), fixed_work=1.0)
    assert result.estimate and result.policy == "lookahead"
    restrictions = restriction_chances(position, 5)
    assert any(result.bound == pytest.approx(v, abs=1e-12) for v in restrictions.values())
    assert result.bound >= restrictions[2, 3] - 1e-12  # ♥♠ is always there to fall back on
    best = make_solver().decide(*root_state(position))[5]
    low, high = result.interval
    assert low <= best + 1e-12 and high >= result.bound - 1e-12
    data = result.to_json()
    assert data["policy"] == "lookahead" and data["bound"] == result.bound


def test_a_work_limit_stops_a_search_at_the_same_place_on_any_machine() -> None:
    """The compiled solver's work limit (kernel lookups) stops a search as a deadline does
    (TimeLimitExceeded), but where it stops depends on the queries alone."""
    from search.game import FULL_MASK
    from search.infra import TimeLimitExceeded

    hand = CardSet.parse("3C 3D 2H 3H 6H AS 7S 8S").mask
    stops = []
    for _ in range(2):
        solver = make_solver()
        solver.limit_work(500_000)
        with pytest.raises(TimeLimitExceeded):
            solver.decide(hand, FULL_MASK & ~hand, 0, int(Suit.HEARTS), (1, 1, 1, 1), (0, 1, 3))
        stops.append((solver.lookups, solver.state_count()))
        solver.limit_work(None)
        assert solver.decide(HAND, DECK, 0, int(Suit.HEARTS), (0, 0, 1, 1), (0, 1, 3))  # lifted
    assert stops[0] == stops[1] and 500_000 <= stops[0][0] < 500_000 + 2 * 65_536


@pytest.mark.slow  # a minute; in CI the first edition's advisor batches repeat (test_first_edition)
def test_the_advisors_lookahead_tours_repeat_for_a_seed() -> None:
    """The advisor policy (issue 16): its restrictions are solved within a work
    limit, not a deadline, so a seed's tour is the same on every run."""
    from search.game import TourConfig
    from search.tours import run_batch

    first = run_batch(["advisor"], 1, 5, TourConfig(short=True))
    again = run_batch(["advisor"], 1, 5, TourConfig(short=True))
    assert first == again


@pytest.mark.parametrize("forced", [("debate",), ("H",), ("C",)])
def test_a_forced_first_decision_is_floored_by_the_restriction_that_plays_it_best(forced) -> None:
    """Issue 16 (move's options): with a forced first decision the base is the solved
    restriction (or ♥♠) whose exact value of that decision is highest; the policy's paired
    estimate after it never falls significantly below that floor, nor above the exact value
    of the decision with every Jack."""
    need = 5
    solver = make_solver()
    for suits in ((1, 2, 3), (0,)):
        solver.decide(*STATE[:4], restricted(STATE[4], suits), STATE[5])
    policy = LookaheadPolicy(solver, [(1, 2, 3), (0,)], seed=3)
    suits, floor = policy.option_base(STATE, need, forced)
    counts = restricted(STATE[4], suits)
    exact_option = dict(make_solver().option_worths(need, *STATE))[forced]
    assert floor == pytest.approx(
        dict(solver.option_worths(need, *with_counts(STATE, counts))).get(forced), abs=1e-12
    )
    assert forced[0] == "debate" or "CDHS".index(forced[0]) in suits  # it holds the ability
    assert floor <= exact_option + 1e-12
    # roots_end already past: the policy keeps the restrictions solved above; no clock after
    run = lookahead_playouts(
        solver, STATE, need, 5, NEVER, time.perf_counter(), forced=forced, playouts=150
    )
    assert run.base_value == pytest.approx(floor, abs=1e-12) and len(run.pairs) == 150
    _, (low, high) = paired_estimate(run.base_value, run.pairs)
    assert high >= floor and low <= exact_option + 1e-12


def test_a_new_ranking_starts_the_shared_solver_afresh_past_its_size(monkeypatch) -> None:
    """Issue 15: the shared solver kept every earlier ranking's states until one doubling
    of its memo took 1.3 s of a coach step. Past SHARED_STATES a new ranking forgets them."""
    from search.tours import estimates as advice
    from search.visit import Budget, forget_solver
    from search.visit import budget as budgets

    first = make_position(
        CardSet.parse("2C 6C 4D 7H 8H"),
        Suit.HEARTS,
        3,
        jacks=[Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES],
        pool=[Suit.CLUBS, Suit.DIAMONDS],
    )
    second = make_position(
        CardSet.parse("3C 5D 6D 2S 7S"),
        Suit.SPADES,
        2,
        jacks=[Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES],
        pool=[Suit.CLUBS, Suit.HEARTS],
    )
    budget = Budget()
    solver = budget.memos.shared()
    advice.solve_shared_roots(second, 30.0, budget)
    alone = solver.state_count()
    assert alone > 0
    monkeypatch.setattr(budgets, "SHARED_STATES", alone - 1)
    forget_solver(solver)
    advice.solve_shared_roots(first, 30.0, budget)
    assert solver.state_count() > alone - 1  # past the size: the next ranking forgets it
    bound = advice.solve_shared_roots(second, 30.0, budget)[0]
    assert solver.state_count() == alone
    monkeypatch.setattr(budgets, "SHARED_STATES", 10**9)  # below the size: kept and added to
    advice.solve_shared_roots(first, 30.0, budget)
    assert solver.state_count() > alone
    assert advice.solve_shared_roots(second, 30.0, budget)[0] == bound  # the same either way


def test_a_forced_draw_no_solved_restriction_holds_is_estimated_unpaired() -> None:
    """Seen in `move`: Military forced where ♣ was not solved had a base of ♥♠ valued 0 but
    played well, so base 0 + (policy - base) showed 0% beside an 83% hit rate. No restriction
    holds the decision: option_base says so (-1) and the run has no pairs, so the estimate is
    the policy's own success rate."""
    need = 5
    policy = LookaheadPolicy(make_solver(), [], seed=3)
    assert policy.option_base(STATE, need, ("C",))[1] == -1
    run = lookahead_playouts(
        make_solver(), STATE, need, 3, NEVER, None, forced=("C",), playouts=30, roots_work=1
    )
    assert run.wins and run.pairs == [] and run.base_value == 0.0
