"""The visit solver with payoffs (issue 5): success, failure and a price per supporter used."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from search.game.cards import CardSet, Suit
from search.game.rules import (
    VisitState,
    apply_action_unchecked,
    apply_chance_unchecked,
    chance_outcomes,
    legal_actions,
)
from search.visit.payoffs import Payoffs, PayoffSolver
from search.visit.reference import Abilities, KingdomSolver
from tests.conftest import engine_state, small_states


def engine_payoff(state: VisitState, payoffs: Payoffs) -> float:
    """Independent brute force over the rules engine: the best expected payoff, each
    supporter the engine records as used costing ``supporter_cost`` (Jacks cost nothing)."""
    return _engine_payoff(
        replace(state, abilities_used=(), reshuffles=0, used_supporters=()), payoffs
    )


@cache
def _engine_payoff(state: VisitState, payoffs: Payoffs) -> float:
    if state.over:
        hit = payoffs.success if state.succeeded else payoffs.failure
        return hit - payoffs.supporter_cost * len(state.used_supporters)
    if state.is_chance:
        return sum(
            float(p) * _engine_payoff(apply_chance_unchecked(state, c), payoffs)
            for c, p in chance_outcomes(state)
        )
    return max(
        _engine_payoff(apply_action_unchecked(state, a), payoffs) for a in legal_actions(state)
    )


def _supporter_counts(supporters: list) -> tuple:
    counts = [0, 0, 0, 0]
    for suit in supporters:
        counts[suit] += 1
    return tuple(counts)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("cost", [0.0, 0.3, 1.0])
def test_payoff_solver_equals_an_engine_brute_force(seed: int, cost: float) -> None:
    """On small positions with Jacks, a supporter and Politics, the solver's expected payoff
    (success 5, failure 2, ``cost`` per supporter used) equals the brute force for every
    target; a supporter is then used only where it is worth its point."""
    for hand, deck, disc, trump, jacks, supporters, pool in small_states(10, seed + 40):
        if sum(1 for s in [*jacks, *supporters] if s in (0, 1)) > 1:
            continue  # one drawing ability at most, to stay quick
        abilities = Abilities.of(jacks, supporters, pool)
        payoffs = Payoffs(5.0, 2.0, cost, _supporter_counts(supporters))
        solver = PayoffSolver(payoffs)
        for need in range(4):
            state = engine_state(hand, deck, disc, trump, jacks, supporters, pool, need)
            expected = engine_payoff(state, payoffs)
            got = solver.value(hand, deck, disc, trump, abilities.counts, abilities.pool, need)
            assert got == pytest.approx(expected, abs=1e-12), (
                CardSet(hand),
                jacks,
                supporters,
                need,
            )


def test_unit_payoffs_give_the_chance() -> None:
    """Payoffs (1, 0, 0) are the bare chance of hitting the target."""
    for hand, deck, disc, trump, jacks, supporters, pool in small_states(6, 7):
        abilities = Abilities.of(jacks, supporters, pool)
        pool_key = abilities.pool if abilities.counts[3] else ()
        chances = KingdomSolver().decide(hand, deck, disc, trump, abilities.counts, pool_key)
        solver = PayoffSolver(Payoffs())
        for need in range(4):
            value = solver.value(hand, deck, disc, trump, abilities.counts, abilities.pool, need)
            assert value == pytest.approx(chances[need], abs=1e-12)


def test_a_supporter_worth_less_than_its_point_stays_unused() -> None:
    """3♥ alone, hearts trump, no win wanted: the trump loses only to 4♥-8♥ (5 of the 31
    unseen), so a debate succeeds with 5/31; a ♥ supporter throws it away and succeeds for
    sure. Success 10, failure 4: at a price of 1 the supporter is spent (9 against
    4 + 6 * 5/31 = 4.97); at a price of 7 it is kept (3 against 4.97)."""
    hand = CardSet.parse("3H").mask
    deck = ((1 << 32) - 1) & ~hand
    cheap = PayoffSolver(Payoffs(10.0, 4.0, 1.0, (0, 0, 1, 0))).value(
        hand, deck, 0, 2, (0, 0, 1, 0), (), 0
    )
    dear = PayoffSolver(Payoffs(10.0, 4.0, 7.0, (0, 0, 1, 0))).value(
        hand, deck, 0, 2, (0, 0, 1, 0), (), 0
    )
    beaten = 5 / 31
    assert cheap == pytest.approx(10.0 - 1.0)
    assert dear == pytest.approx(beaten * 10.0 + (1 - beaten) * 4.0)


# --- the advisor spends supporters by payoff (search/supporters.py) ------------------------


def _last_trump_visit(supporter: str = "QH"):
    """3♥ alone in hand with hearts trump, no win wanted, the Jacks turned this visit and a
    ♥ supporter face up."""
    from search.game.cards import Ruler
    from search.game.rules import new_visit
    from tests.conftest import STANDARD_LAYOUT

    layout = list(STANDARD_LAYOUT)
    ruler = Ruler(supporter[0], Suit.from_letter(supporter[1]))
    layout[layout.index(ruler)] = None
    position = next(p for p, r in enumerate(layout, 1) if r is not None and r.suit.letter == "H")
    visit = new_visit(CardSet.parse("3H"), position, 0, tuple(layout), supporters=(ruler,))
    return replace(visit, jacks=frozenset())


@pytest.mark.parametrize(("success", "failure", "spends"), [(10.0, 4.0, True), (4.5, 4.0, False)])
def test_payoff_action_spends_a_supporter_only_when_worth_its_point(
    success, failure, spends
) -> None:
    """With the ♥ supporter the visit succeeds for sure at the price of a point; debating
    succeeds with 5/31. 10/4: 9 against 4.97, spend; 4.5/4: 3.5 against 4.08, debate."""
    from search.game.rules import Debate, UseAbility
    from search.tours.supporters import BudgetedPayoffSolver, payoff_action, payoffs_for

    visit = _last_trump_visit()
    action = payoff_action(BudgetedPayoffSolver(payoffs_for(success, failure, visit)), visit)
    if spends:
        assert action == UseAbility(Suit.HEARTS, visit.supporters[0])
    else:
        assert action == Debate()


def test_payoff_action_gives_way_past_its_budget() -> None:
    """A search that would expand more states than its budget returns None (the plain policy
    then decides), the same way on every machine."""
    from search.tours.supporters import BudgetedPayoffSolver, payoff_action, payoffs_for

    visit = replace(_last_trump_visit(), hand=CardSet.parse("3H 5C 7D 2S"), jacks=frozenset(Suit))
    visit = replace(visit, deck=CardSet.full() - visit.hand, target=2)
    assert (
        payoff_action(BudgetedPayoffSolver(payoffs_for(10.0, 4.0, visit), budget=10), visit) is None
    )


def test_odds_with_payoffs(monkeypatch, capsys) -> None:
    """odds --payoffs: 3♥ alone, hearts trump, target 1, a ♥ supporter: the debate wins
    unless 4♥-8♥ turn up, 4 + 6 * 26/31; Diplomacy would throw the card away (a sure
    failure, less a point: 3). A malformed --payoffs is refused in one line."""
    import json

    from tests.conftest import assert_one_line_error, run_in_process

    args = [
        "odds",
        "3H",
        "--trump",
        "H",
        "--target",
        "1",
        "--abilities",
        "none",
        "--supporters",
        "H",
    ]
    code, out, err = run_in_process(monkeypatch, capsys, [*args, "--payoffs", "10,4,1", "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["expected_payoff"] == pytest.approx(4 + 6 * 26 / 31)
    assert data["best_action"] == "debate" and data["options"]["H"] == pytest.approx(3.0)
    assert_one_line_error(*run_in_process(monkeypatch, capsys, [*args, "--payoffs", "10,4"]))


def test_the_coach_spends_a_supporter_to_save_the_tour() -> None:
    """score_best_action (the coach's advice for the final score): the last card 3♥ with
    hearts trump and the target already reached, the Jacks turned, Q♥ won earlier and face up:
    debating fails unless 4♥-8♥ turn up (5/31), ending the tour; Diplomacy with Q♥ keeps the
    whole rest of the tour for a point, so it is the advice."""
    from search.game.cards import Ruler
    from search.game.rules import UseAbility, new_visit
    from search.game.tour import tour_between_visits
    from search.tours.supporters import score_best_action
    from tests.conftest import STANDARD_LAYOUT

    queen = Ruler("Q", Suit.HEARTS)
    layout = [None if r == queen else r for r in STANDARD_LAYOUT]
    tour = tour_between_visits(layout, unused=[queen])
    position = next(p for p, r in enumerate(layout, 1) if r is not None and r.suit is Suit.HEARTS)
    hand = CardSet.parse("3H")
    scoring = CardSet(list(CardSet.full() - hand)[:position])
    visit = new_visit(hand, position, position, tuple(layout), supporters=(queen,))
    visit = replace(visit, jacks=frozenset(), scoring=scoring, deck=CardSet.full() - hand - scoring)
    assert score_best_action(tour, visit) == UseAbility(Suit.HEARTS, queen)
    assert score_best_action(tour, replace(visit, supporters=())) is None
