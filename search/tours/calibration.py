"""Calibration of the tour value (issue 17): what a planner predicts for the fresh tours of a
seeded batch, before any hand is seen, against the scores the policy then made.

Two intervals are compared, and they answer different questions:

- the **predicted** interval is the planner's own: the bootstrap over its table's hands (the
  sampling error every tour shares) and, for a calibrated planner, the resamples of its
  uplift fit (the model's error), averaged over the batch's layouts;
- the **realised** interval is the mean score's, over the tours played.

They agree when they overlap. The paired difference (realised less predicted, tour by tour)
and its interval say how large the model's error is, whatever the intervals.

The uplift fit (:func:`fit_uplift`) is how a planner is calibrated: chance = c + u (1 - c) per
target, c the planning chance of the visits a policy chose, u fitted to whether they hit, by
maximum likelihood, with bootstrap resamples for its error (:class:`~.planning.Uplift`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import Deal, TourConfig, derive_seed
from ..infra import mean_interval
from .planning import TourPlanner

FIT_GRID = np.linspace(0.0, 1.0, 1001)
"""The values of u the maximum likelihood fit tries."""


@dataclass(frozen=True)
class Calibration:
    """A batch's predicted and realised mean score, each a (mean, low, high) with its 95%
    interval, and their paired difference (realised less predicted)."""

    tours: int
    predicted: tuple[float, float, float]
    realised: tuple[float, float, float]
    difference: tuple[float, float, float]

    @property
    def agrees(self) -> bool:
        """Whether the predicted and realised intervals overlap."""
        return self.predicted[1] <= self.realised[2] and self.realised[1] <= self.predicted[2]


def predicted_values(planner: TourPlanner, seed: int, indices, config: TourConfig) -> list:
    """The planner's value (a TourValue) of the fresh tour of each batch deal in ``indices``
    (tour i of seed S plays the deal ``derive_seed(S, i)``, as :mod:`.simulate`)."""
    values = []
    for index in indices:
        tour = Deal(derive_seed(seed, index), config).tour()
        values.append(planner.value(planner.kingdoms_of(tour)))
    return values


def calibrate(
    planner: TourPlanner, seed: int, scores: dict[int, int], config: TourConfig
) -> Calibration:
    """The calibration of ``planner`` against ``scores`` (tour index -> score) of batch ``seed``."""
    if not scores:
        raise ValueError("no tour to calibrate against")
    indices = sorted(scores)
    values = predicted_values(planner, seed, indices, config)
    realised = [scores[i] for i in indices]
    predicted = (
        float(np.mean([v.value for v in values])),
        float(np.mean([v.low for v in values])),
        float(np.mean([v.high for v in values])),
    )
    return Calibration(
        tours=len(indices),
        predicted=predicted,
        realised=mean_interval(realised),
        difference=mean_interval([r - v.value for r, v in zip(realised, values)]),
    )


def fit_uplift(
    visits: list[tuple[bool, float]], resamples: int = 200, seed: int = 0
) -> tuple[float, list[float]]:
    """The share u of the chance a model leaves out, fitted to ``visits`` (hit, planning
    chance) by maximum likelihood of hit ~ Bernoulli(c + u (1 - c)), and ``resamples``
    bootstrap resamples of it (the fit's error)."""
    hits = np.array([hit for hit, _ in visits], dtype=float)
    chances = np.clip(np.array([c for _, c in visits], dtype=float), 0.0, 1.0)
    fitted = _most_likely(hits, chances)
    rng = np.random.default_rng(seed)
    drawn = []
    for _ in range(resamples):
        pick = rng.integers(0, len(hits), len(hits))
        drawn.append(_most_likely(hits[pick], chances[pick]))
    return fitted, drawn


def _most_likely(hits: np.ndarray, chances: np.ndarray) -> float:
    """The u of :data:`FIT_GRID` under which ``hits`` are likeliest."""
    p = np.clip(chances[None, :] + FIT_GRID[:, None] * (1 - chances[None, :]), 1e-9, 1 - 1e-9)
    likelihood = (hits * np.log(p) + (1 - hits) * np.log(1 - p)).sum(axis=1)
    return float(FIT_GRID[int(np.argmax(likelihood))])
