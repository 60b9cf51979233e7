"""The exact single-visit solver (docs/rules.md §7) against the reference values, an
independent brute force over the rules engine, and its own Monte Carlo playouts."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest

from search.game.cards import CardSet, Suit
from search.game.deal import Stream
from search.game.rules import (
    VisitState,
    apply_action_unchecked,
    apply_chance_unchecked,
    chance_outcomes,
    legal_actions,
)
from search.infra.stats import wilson_interval
from search.visit.estimate import play_policy
from search.visit.position import InvalidPositionError, Position, make_position, root_state
from search.visit.reference import Abilities, KingdomSolver
from search.visit.solve import solve_kingdom
from tests.conftest import engine_state, reference_cases, small_states, textbook_wilson


def case_position(case: dict) -> Position:
    hand = CardSet.parse(case["hand"])
    jacks = [Suit.from_letter(c) for c in case["abilities"]]
    pool = [Suit.from_letter(c) for c in case["politics_pool"]]
    return Position(
        hand, Suit.from_letter(case["trump"]), case["target"], Abilities.of(jacks, (), pool)
    )


@pytest.mark.parametrize(
    "case",
    reference_cases(),
    ids=lambda c: f"{c['hand']}|{c['trump']}{c['target']}|{c['abilities']}",
)
def test_chance_matches_reference_solver(case):
    """§7: every reference case (tests/data/kingdom_cases.json) matches to 1e-9."""
    result = solve_kingdom(case_position(case))
    assert result.chance == pytest.approx(case["p"], abs=1e-9)


def test_reference_kernel_matches_reference_solver_on_first_cases():
    """The pure-Python kernel alone matches the reference (one of each ability set)."""
    seen = set()
    for case in reference_cases():
        if case["abilities"] in seen:
            continue
        seen.add(case["abilities"])
        result = solve_kingdom(case_position(case), solver=KingdomSolver())
        assert result.chance == pytest.approx(case["p"], abs=1e-9)


def test_exact_mode_gives_the_same_chance_as_a_fraction():
    """--exact: the Fraction value equals the float value."""
    case = reference_cases()[0]
    exact = solve_kingdom(case_position(case), exact=True)
    assert isinstance(exact.chance_exact, Fraction)
    assert float(exact.chance_exact) == pytest.approx(case["p"], abs=1e-12)


def test_distribution_sums_to_one_and_holds_the_chance_at_the_target():
    """The wins distribution of the target-optimal policy sums to 1; its target entry is the chance."""
    for case in reference_cases()[:6] + reference_cases()[-6:]:
        result = solve_kingdom(case_position(case))
        assert sum(result.distribution) == pytest.approx(1.0, abs=1e-12)
        target = case["target"]
        at_target = result.distribution[target] if target < len(result.distribution) else 0.0
        assert at_target == pytest.approx(result.chance, abs=1e-12)


def test_best_action_has_the_highest_value_and_options_cover_every_ability():
    """The best option is the maximum; options list debate and each usable ability."""
    hand = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S")
    position = make_position(
        hand, Suit.CLUBS, 4, jacks=[Suit.HEARTS, Suit.SPADES], pool=[Suit.DIAMONDS]
    )
    result = solve_kingdom(position)
    kinds = [(o.kind, o.suit, o.new_trump) for o, _ in result.options]
    assert ("debate", None, None) in kinds
    assert ("ability", Suit.HEARTS, None) in kinds
    assert ("ability", Suit.SPADES, Suit.DIAMONDS) in kinds
    assert result.chance == max(v for _, v in result.options)
    assert dict(result.options)[result.best] == result.chance


# --- an independent brute force over the rules engine ---------------------------------


def brute_force(state: VisitState) -> Fraction:
    """Optimal chance of success straight from the engine: no keys, no symmetry (the memo
    forgets only the history fields that cannot change the future)."""
    return _brute_force(replace(state, abilities_used=(), reshuffles=0, used_supporters=()))


@cache
def _brute_force(state: VisitState) -> Fraction:
    if state.over:
        return Fraction(int(state.succeeded))
    if state.is_chance:
        return sum(
            p * brute_force(apply_chance_unchecked(state, c)) for c, p in chance_outcomes(state)
        )
    return max(brute_force(apply_action_unchecked(state, a)) for a in legal_actions(state))


def check_against_brute_force(states, max_draw_uses: int = 4) -> None:
    for hand, deck, disc, trump, jacks, supporters, pool in states:
        draw_uses = sum(1 for s in list(jacks) + supporters if s in (0, 1))
        if draw_uses > max_draw_uses:
            continue
        abilities = Abilities.of(jacks, supporters, pool)
        solver = KingdomSolver(exact=True)
        pool_key = abilities.pool if abilities.counts[3] else ()
        vector = solver.decide(hand, deck, disc, trump, abilities.counts, pool_key)
        for need in range(5):
            state = engine_state(hand, deck, disc, trump, jacks, supporters, pool, need)
            assert vector[need] == brute_force(state), (
                CardSet(hand),
                CardSet(deck),
                CardSet(disc),
                trump,
                jacks,
                supporters,
                pool,
                need,
            )


@pytest.mark.parametrize("seed", range(4))
def test_solver_equals_engine_brute_force_on_small_positions(seed):
    """The solver's exact values equal a brute force over the rules engine (all abilities, R1-R3;
    at most one use of a drawing ability, to stay quick)."""
    check_against_brute_force(small_states(10, seed), max_draw_uses=1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 20))
def test_solver_equals_engine_brute_force_on_larger_positions(seed):
    """As above with decks of up to 5 cards: slower, run with ``pytest -m slow``."""
    check_against_brute_force(small_states(12, seed, max_deck=5))


@pytest.mark.parametrize("seed", range(3))
def test_canonical_keys_and_target_vectors_change_nothing(seed):
    """Turning canonical keys and target vectors off (the naive baseline) gives the same values."""
    for hand, deck, disc, trump, jacks, supporters, pool in small_states(8, seed + 100):
        abilities = Abilities.of(jacks, supporters, pool)
        pool_key = abilities.pool if abilities.counts[3] else ()
        fast = KingdomSolver(exact=True).decide(hand, deck, disc, trump, abilities.counts, pool_key)
        for need in range(4):
            naive = KingdomSolver(exact=True, canonical=False, vectorise=False)
            value = naive.decide(hand, deck, disc, trump, abilities.counts, pool_key, need)
            assert value == (fast[need],)


# --- the solver's own policy, played out ---------------------------------------------


def test_playouts_of_the_solvers_policy_agree_with_its_value():
    """Monte Carlo playouts of the optimal policy land within the 99.9% interval of its value."""
    position = make_position(
        CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S"),
        Suit.CLUBS,
        4,
        jacks=[Suit.HEARTS, Suit.SPADES],
        pool=[Suit.DIAMONDS, Suit.DIAMONDS, Suit.HEARTS],
    )
    solver = KingdomSolver()
    value = solve_kingdom(position, solver=solver).chance
    runs = 1500
    hits = sum(
        play_policy(solver, root_state(position), 4, Stream(5, "check", i), fallback=False) == 4
        for i in range(runs)
    )
    low, high = wilson_interval(hits, runs, z=3.29)
    assert low <= value <= high


def test_playouts_with_drawing_abilities_agree_with_the_value():
    """Playouts of the optimal policy with Military and Commerce on a small position agree."""
    hand, deck = CardSet.parse("AC 5C 7H").mask, CardSet.parse("2C 3D 8D 4S 6H 8S").mask
    solver = KingdomSolver()
    state = (hand, deck, 0, Suit.CLUBS.value, (1, 1, 0, 0), ())
    value = solver.decide(*state)[2]
    runs = 1500
    hits = sum(
        play_policy(solver, state, 2, Stream(6, "draws", i), fallback=False) == 2
        for i in range(runs)
    )
    low, high = wilson_interval(hits, runs, z=3.29)
    assert low <= value <= high


# --- time limit and bad input -----------------------------------------------------------


def test_time_limit_returns_a_labelled_estimate_with_an_interval():
    """--time-limit: past the budget the answer is a Monte Carlo estimate with the Wilson
    interval of as many playouts as fit in the time left (one at least)."""
    hand = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S")
    position = make_position(hand, Suit.CLUBS, 4, jacks=[Suit.CLUBS, Suit.DIAMONDS])
    result = solve_kingdom(position, time_limit=0.05, solver=KingdomSolver())
    assert result.estimate and result.best is None
    low, high = result.interval
    assert result.playouts >= 1
    hits = round(result.chance * result.playouts)
    assert (low, high) == pytest.approx(textbook_wilson(hits, result.playouts), abs=1e-12)
    data = result.to_json()
    assert data["estimate"] is True and data["chance_ci"] == [low, high]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": 0}, "outside 1..8"),
        ({"target": 9}, "outside 1..8"),
        ({"hand": CardSet()}, "hand is empty"),
        ({"discard": CardSet.parse("AC")}, "both in your hand and in the discard pile"),
        ({"scoring": CardSet.parse("6C 2H")}, "both in your hand and in the scoring pile"),
    ],
)
def test_invalid_positions_get_a_one_line_reason(kwargs, message):
    """Impossible positions raise InvalidPositionError with a one-line message."""
    fields = {"hand": CardSet.parse("AC 6C 3H"), "trump": Suit.CLUBS, "target": 2}
    fields.update(kwargs)
    with pytest.raises(InvalidPositionError, match=message) as error:
        solve_kingdom(Position(**fields))
    assert "\n" not in str(error.value)


def test_too_many_rulers_of_a_suit_is_refused():
    """There are only a King and a Queen of each suit: supporters and pool cannot exceed that."""
    hand = CardSet.parse("AC 6C 3H 8H 2D 5D 4S 7S")
    with pytest.raises(InvalidPositionError, match="too many C rulers"):
        make_position(hand, Suit.CLUBS, 3, supporters=[Suit.CLUBS], pool=[Suit.CLUBS])


def test_position_from_an_engine_visit_offers_commerce_discards_and_answers():
    """Mid-visit positions from the rules engine: Commerce's discard choice, then the answers."""
    from search.game.deal import Deal
    from search.game.rules import Debate, Discard, UseAbility, apply_action, apply_chance
    from search.game.tour import start_visit
    from search.visit.position import position_from_visit

    deal = Deal(3)
    visit = start_visit(deal.tour(), deal.hand(1), 2)
    visit = replace(visit, jacks=frozenset({Suit.DIAMONDS, Suit.HEARTS}))  # keep the solves quick
    visit = apply_action(visit, UseAbility(Suit.DIAMONDS))
    dealer = deal.dealer(1)
    while visit.is_chance:
        visit = apply_chance(visit, dealer.next_card(visit))
    result = solve_kingdom(position_from_visit(visit), solver=KingdomSolver())
    assert {o.kind for o, _ in result.options} == {"discard"} and len(result.options) == 45
    visit = apply_action(visit, Discard(result.best.cards))
    visit = apply_chance(apply_action(visit, Debate()), dealer.next_card(visit))
    position = position_from_visit(visit)
    answers = solve_kingdom(position, solver=KingdomSolver())
    legal = position.hand.of_suit(visit.waiting.suit) or position.hand
    assert {o.card for o, _ in answers.options} == set(legal)
