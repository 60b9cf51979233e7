"""Hindsight analysis (search/hindsight.py): blind play, hands known, clairvoyant bound."""

from __future__ import annotations

import json

import pytest

from search.game.deal import Deal, Stream
from search.game.tour import TourConfig
from search.tours.hindsight import HindsightPolicy, analyse_deal, can_hit_target
from search.tours.planning_policy import PlanningPolicy
from search.tours.simulate import play_tour
from tests.conftest import assert_one_line_error, run_in_process

SHORT = TourConfig(short=True)


def _visits_won(deal: Deal, policy) -> list[tuple[int, int, bool]]:
    """(visit number, kingdom, won) for each visit the policy plays on ``deal``."""
    visited: list[int] = []
    final = play_tour(deal, policy, Stream(deal.seed, "policy"), visited)
    won = len(final.visited)
    return [(n + 1, p, n < won) for n, p in enumerate(visited)]


@pytest.mark.parametrize(  # CI plays seed 2 (6 s); 1 and 3 take 25 s more
    "seed", [pytest.param(1, marks=pytest.mark.slow), 2, pytest.param(3, marks=pytest.mark.slow)]
)
def test_a_visit_won_in_play_is_winnable_with_every_card_known(seed: int) -> None:
    """Whatever the advisor won with a hand, the clairvoyant search finds winnable: the
    advisor's own play is a witness (the same deck order, Jacks only)."""
    deal = Deal(seed, SHORT)
    tour = deal.tour()
    for number, position, won in _visits_won(deal, PlanningPolicy()):
        if won and number == 1:  # the first visit sees the starting layout
            assert can_hit_target(deal, number, tour, position)


@pytest.mark.parametrize("seed", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow)])  # 4: 10 s
def test_clairvoyant_play_bounds_both_others(seed: int) -> None:
    """On each deal the clairvoyant score is at least the blind and the hands-known scores
    (all three spend only the Jacks), and its plan visits distinct kingdoms."""
    result = analyse_deal(seed, SHORT, play="rule")
    assert result.clairvoyant >= max(result.blind, result.known)
    assert len(set(result.clairvoyant_kingdoms)) == len(result.clairvoyant_kingdoms)
    assert result.clairvoyant == 2 * len(result.clairvoyant_kingdoms)
    for number, position in enumerate(result.clairvoyant_kingdoms):
        assert position in result.winnable[number]


@pytest.mark.parametrize("objective", ["score", "perfect"])
def test_the_hindsight_plan_gives_each_hand_its_own_kingdom(objective: str) -> None:
    """HindsightPolicy.start_tour: one kingdom a visit, all different (the dynamic programme,
    or CP-SAT for the perfect-tour objective)."""
    policy = HindsightPolicy(objective=objective)
    policy.start_tour(Deal(9))
    assert sorted(policy.plan) == list(range(8)) and sorted(policy.plan.values()) == list(
        range(1, 9)
    )


@pytest.mark.slow  # 9 s; the default run keeps the per-visit hindsight checks
def test_analyse_json_reports_the_three_ways_for_each_deal(monkeypatch, capsys) -> None:
    code, out, err = run_in_process(
        monkeypatch,
        capsys,
        ["analyse", "--seed", "3", "--deals", "2", "--short", "--json", "--play", "rule"],
    )
    assert code == 0, err
    data = json.loads(out)
    assert [d["seed"] for d in data["deals"]] == [3, 4]
    for deal in data["deals"]:
        assert deal["clairvoyant"]["score"] >= deal["blind"]["score"]
        assert deal["play"] == "advisor-rule"
    assert data["summary"]["deals"] == 2
    code, out, err = run_in_process(
        monkeypatch, capsys, ["analyse", "--seed", "3", "--short", "--play", "rule"]
    )
    assert code == 0 and "clairvoyant" in out and "hands known" in out and "(advisor-rule)" in out


def test_the_advisor_play_of_analyse_is_the_shipped_advisors() -> None:
    """analyse's default players: blind is the advisor policy (the lookahead play, the
    calibrated full planning model with the supporter options), hands known plans from the same
    calibrated full model and plays the same way; --play rule keeps advisor-rule's."""
    from search.tours.hindsight import analysis_policies
    from search.tours.planning import PLANNING_SETS, QUICK_SETS, SUPPORTER_OPTIONS
    from search.tours.registry import make_policy

    blind, known = analysis_policies("advisor")
    shipped = make_policy("advisor")
    assert blind.lookahead and known.lookahead and shipped.lookahead
    assert (
        blind.planner.table.sets
        == shipped.planner.table.sets
        == known.planner.table.sets
        == PLANNING_SETS
    )
    assert blind.planner.uplift == shipped.planner.uplift == known.planner.uplift is not None
    assert blind.planner.supporter_options == SUPPORTER_OPTIONS
    blind, known = analysis_policies("rule")
    assert not (blind.lookahead or known.lookahead)
    assert (
        blind.planner.table.sets == known.planner.table.sets == QUICK_SETS
        and blind.planner.uplift is None
    )
    with pytest.raises(ValueError, match="unknown play"):
        analysis_policies("best")


@pytest.mark.slow
def test_analyse_plays_blind_and_hands_known_as_the_advisor_by_default() -> None:
    """By default both are played as the shipped advisor plays (the lookahead play of every
    Jack; blind plans with the calibrated full model, hands known assigns the hands by the same
    calibrated chances); the clairvoyant bound still holds. One short deal, about a minute
    (slow: CI plays analyse with --play rule)."""
    result = analyse_deal(3, SHORT)
    assert result.play == "advisor"
    assert result.clairvoyant >= max(result.blind, result.known)
    assert sorted(result.known_kingdoms) == sorted(set(result.known_kingdoms))


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["analyse"], "--seed"),
        (["analyse", "--seed", "-1"], "0 or more"),
        (["analyse", "--seed", "x"], "--seed"),
        (["analyse", "--seed", "1", "--deals", "0"], "at least 1 deal"),
        (["analyse", "--seed", "1", "--workers", "0"], "worker"),
        (["analyse", "--seed", "1", "--play", "best"], "choose advisor or rule"),
    ],
)
def test_bad_analyse_input_ends_with_one_error_line(monkeypatch, capsys, args, fragment) -> None:
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert fragment in err


def test_the_best_expected_score_plan_beats_every_order() -> None:
    """best_expected_score: its plan's expected score (2 points a kingdom won before the
    first miss) is the maximum over all orders of kingdoms, checked by brute force."""
    from itertools import permutations

    from search.game.cards import KINGS
    from search.tours.assign import Play
    from search.tours.hindsight import best_expected_score

    rng = Stream(4, "test-plans")
    for _ in range(20):
        plays = {
            Play(t, p, KINGS[p - 1]): rng.below(1001) / 1000 for t in range(4) for p in range(1, 5)
        }
        chance = {(play.hand, play.position): c for play, c in plays.items()}

        def worth(order, chance=chance) -> float:
            total, reach = 0.0, 1.0
            for visit, position in enumerate(order):
                reach *= chance[visit, position]
                total += 2 * reach
            return total

        plan = best_expected_score(plays, 4)
        assert worth([plan[v] for v in range(4)]) == pytest.approx(
            max(map(worth, permutations(range(1, 5))))
        )
