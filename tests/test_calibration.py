"""Calibration of the tour value (issue 17): a planner's prediction for a seeded batch's fresh
tours against the scores its policy made there (:mod:`search.tours.calibration`)."""

from __future__ import annotations

import numpy as np
import pytest

from search.game import TourConfig
from search.game.deal import Stream
from search.tours.batch import run_batch
from search.tours.calibration import Calibration, calibrate, fit_uplift
from search.tours.registry import make_policy
from search.tours.simulate import simulate


def calibration_of(
    policy: str, tours: int, short: bool, planner_of: str | None = None
) -> Calibration:
    """``policy``'s seeded batch (seed 2026) against the planner of ``planner_of`` (its own)."""
    config = TourConfig(short=short)
    played = simulate(tours, 2026, make_policy(policy), config)
    planner = make_policy(planner_of or policy).planner
    return calibrate(planner, 2026, dict(enumerate(played.tour_scores)), config)


@pytest.mark.parametrize(
    ("short", "tours"),
    [pytest.param(False, 60, marks=pytest.mark.slow), (True, 100)],  # standard: 17 s, slow
)
def test_the_quick_model_predicts_advisor_rules_seeded_batch_within_both_intervals(
    short, tours
) -> None:
    """The quick model is the planning model advisor-rule plans by: its mean predicted value
    lies within the realised interval and the other way round, and the paired error is within
    half a point."""
    found = calibration_of("advisor-rule", tours, short)
    assert found.tours == tours and found.agrees
    assert abs(found.difference[0]) < 0.5
    assert found.difference[1] < 0 < found.difference[2]


@pytest.mark.parametrize("short", [False, True])
def test_a_planner_is_not_calibrated_against_a_policy_that_does_not_play_by_it(short) -> None:
    """The greedy baseline scores far below what the advisor's planner expects of its own
    play: the two intervals are apart, so the check above can fail."""
    found = calibration_of("greedy", 60, short, planner_of="advisor-rule")
    assert not found.agrees
    assert found.difference[2] < -2


def test_the_uplift_fit_recovers_the_share_a_model_leaves_out() -> None:
    """Visits whose true chance is c + 0.5 (1 - c): the fit finds u near 0.5, and its
    bootstrap interval holds the true share."""
    rng = np.random.default_rng(7)
    chances = rng.uniform(0.0, 0.9, 2000)
    hits = rng.uniform(size=2000) < chances + 0.5 * (1 - chances)
    fitted, resampled = fit_uplift(list(zip(hits, chances)), resamples=100)
    low, high = np.percentile(resampled, [2.5, 97.5])
    assert abs(fitted - 0.5) < 0.05 and low <= 0.5 <= high and high - low < 0.15


def test_the_uplift_of_a_model_that_is_right_is_near_nothing() -> None:
    """Hits drawn at the planning chance itself: u is near 0."""
    stream = Stream(3, "calibration", 0)
    visits = [(stream.below(1000) < 1000 * c, c) for c in np.linspace(0.05, 0.95, 1500)]
    fitted, _ = fit_uplift(visits, resamples=10)
    assert fitted < 0.06


def test_calibration_needs_a_tour() -> None:
    with pytest.raises(ValueError, match="no tour"):
        calibrate(make_policy("advisor-rule").planner, 1, {}, TourConfig())


@pytest.mark.slow
def test_the_calibrated_planner_predicts_the_advisors_seeded_short_batch() -> None:
    """advisor's 24 short tours of seed 2026 (about 8 minutes on 2 workers): the
    calibrated prediction (its interval: the hands' sampling and the fit's error) and the
    realised mean score agree. README *Tour value* has the 200-tour figures."""
    config = TourConfig(short=True)
    played = run_batch(["advisor"], 24, 2026, config, workers=2)[0]
    planner = make_policy("advisor").planner
    found = calibrate(planner, 2026, dict(enumerate(played.tour_scores)), config)
    assert found.agrees, found


def test_a_checkpoints_tours_read_back_with_their_scores_and_visits(tmp_path) -> None:
    """batch.saved_tours: each finished tour of a checkpoint by index, its score as played and
    its visits as saved, the planning chance of each; a damaged file is one BatchError."""
    from search.tours.batch import BatchError, decoded_visits, saved_tours

    path = tmp_path / "batch.json"
    played = run_batch(["advisor-rule", "greedy"], 4, 9, TourConfig(short=True), checkpoint=path)
    params, tours = saved_tours(path)
    assert params["seed"] == 9 and sorted(tours) == ["advisor-rule", "greedy"]
    for result in played:
        mine = tours[result.policy]
        assert [mine[i][0] for i in range(4)] == list(result.tour_scores)
        assert [
            tuple((k, hit) for k, hit, _ in decoded_visits(mine[i][1])) for i in range(4)
        ] == list(result.visits)
    assert all(
        c is not None for _, v in tours["advisor-rule"].values() for _, _, c in decoded_visits(v)
    )
    path.write_text('{"format": "x"}', encoding="utf-8")
    with pytest.raises(BatchError):
        saved_tours(path)
