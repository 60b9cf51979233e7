"""Play seeded tours with a policy and summarise the scores.

Tour *i* of a batch with seed *S* plays the deal ``derive_seed(S, i)`` and the
policy draws from ``Stream(S, "policy", i)``: a batch is reproducible, and any
single tour can be replayed with ``emissary deal --seed`` on its derived seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..game import (
    Deal,
    Dealer,
    Stream,
    TourConfig,
    TourState,
    VisitState,
    apply_action_unchecked,
    apply_chance_unchecked,
    derive_seed,
    finish_visit,
    legal_actions,
    start_visit,
    turn_down_choices,
)
from ..infra import mean_interval, wilson_interval
from .policies import Policy


def play_visit(visit: VisitState, policy: Policy, dealer: Dealer, rng: Stream) -> VisitState:
    """Play one visit to its end, cards turning up from ``dealer``."""
    while not visit.over:
        if visit.is_chance:
            visit = apply_chance_unchecked(visit, dealer.next_card(visit))
        else:
            visit = apply_action_unchecked(
                visit, policy.choose_action(visit, legal_actions(visit), rng)
            )
    return visit


def play_tour(
    deal: Deal,
    policy: Policy,
    rng: Stream,
    visited: list[int] | None = None,
    hits: list[bool] | None = None,
    chances: list | None = None,
) -> TourState:
    """Play a whole tour of ``deal``; returns the final tour state and appends each visit's
    kingdom to ``visited``, whether it hit its target to ``hits`` and the planning chance the
    policy chose it by (its ``chosen_chance``, None without one) to ``chances``. A policy with
    a ``start_tour`` method is shown the deal first (the hindsight bound)."""
    if hasattr(policy, "start_tour"):
        policy.start_tour(deal)
    tour = deal.tour()
    while not tour.over:
        number = tour.visits + 1
        hand = deal.hand(number)
        position = policy.choose_kingdom(tour, hand, rng)
        if visited is not None:
            visited.append(position)
        if chances is not None:
            chances.append(getattr(policy, "chosen_chance", None))
        visit = play_visit(start_visit(tour, hand, position), policy, deal.dealer(number), rng)
        if hits is not None:
            hits.append(visit.succeeded)
        tour = finish_visit(tour, visit, choose_turn_down(policy, tour, visit, rng))
    return tour


def choose_turn_down(policy: Policy, tour: TourState, visit: VisitState, rng: Stream) -> tuple:
    """First edition (R7): the cards the policy turns down for a miss it can pay for (its
    ``choose_turn_down`` if it has one, else the first choice: Jacks before supporters)."""
    choices = turn_down_choices(tour, visit)
    if not choices:
        return ()
    chooser = getattr(policy, "choose_turn_down", None)
    return chooser(tour, visit, choices, rng) if chooser else choices[0]


@dataclass(frozen=True)
class SimulationResult:
    """Score distribution of a batch of tours with 95% confidence intervals."""

    tours: int
    policy: str
    seed: int
    config: TourConfig
    scores: tuple[int, ...]  # scores[k] = tours scoring k, k = 0..perfect
    visits: tuple[tuple[tuple[int, bool], ...], ...] | None = None
    """Each tour's visits in order, (kingdom, hit its target); None when not recorded (a
    checkpoint saved before they were)."""
    tour_scores: tuple[int, ...] | None = None
    """Each tour's score, tour 0 first (what :mod:`.calibration` pairs with its prediction)."""

    def kingdom_rates(self) -> list[tuple[int, int, float, float, float]]:
        """Per kingdom 1..n: (visits, hits, hit rate, its 95% Wilson interval): the chance of
        winning the kingdom when it is visited."""
        counts = [[0, 0] for _ in range(self.config.kingdoms)]
        for tour in self.visits or ():
            for position, hit in tour:
                counts[position - 1][0] += 1
                counts[position - 1][1] += hit
        return [(n, h, h / n if n else 0.0, *wilson_interval(h, n)) for n, h in counts]

    def visit_order(self) -> list[list[int]]:
        """``order[k][v]``: the tours whose visit v + 1 went to kingdom k + 1."""
        kingdoms = self.config.kingdoms
        order = [[0] * kingdoms for _ in range(kingdoms)]
        for tour in self.visits or ():
            for number, (position, _) in enumerate(tour):
                order[position - 1][number] += 1
        return order

    @property
    def mean_score(self) -> tuple[float, float, float]:
        """Mean score and its 95% interval (normal approximation)."""
        values = [k for k, n in enumerate(self.scores) for _ in range(n)]
        return mean_interval(values)

    @property
    def perfect(self) -> int:
        """Tours with the perfect score."""
        return self.scores[self.config.perfect_score]

    @property
    def perfect_rate(self) -> tuple[float, float, float]:
        """Perfect-tour rate and its 95% Wilson interval."""
        low, high = wilson_interval(self.perfect, self.tours)
        return (self.perfect / self.tours if self.tours else 0.0, low, high)

    def to_json(self) -> dict:
        """The figures as plain JSON-ready values."""
        mean, mean_low, mean_high = self.mean_score
        rate, rate_low, rate_high = self.perfect_rate
        return {
            "tours": self.tours,
            "policy": self.policy,
            "seed": self.seed,
            "short": self.config.short,
            "published_rules": self.config.published_rules,
            "first_edition": self.config.first_edition,
            "mean_score": round(mean, 6),
            "mean_score_ci": [round(mean_low, 6), round(mean_high, 6)],
            "perfect_rate": round(rate, 6),
            "perfect_rate_ci": [round(rate_low, 6), round(rate_high, 6)],
            "scores": {str(k): n for k, n in enumerate(self.scores)},
            "kingdoms": None
            if self.visits is None
            else [
                {
                    "kingdom": k,
                    "target": self.config.target(k),
                    "visits": n,
                    "hits": h,
                    "hit_rate": round(rate, 6),
                    "hit_rate_ci": [round(low, 6), round(high, 6)],
                    "visited_at": visited_at,
                }
                for k, (n, h, rate, low, high), visited_at in zip(
                    range(1, self.config.kingdoms + 1), self.kingdom_rates(), self.visit_order()
                )
            ],
        }


def simulate(
    tours: int,
    seed: int,
    policy: Policy,
    config: TourConfig = TourConfig(),
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Play ``tours`` seeded tours; ``progress`` is called with each finished count."""
    scores = [0] * (config.perfect_score + 1)
    visits, played = [], []
    for index in range(tours):
        deal = Deal(derive_seed(seed, index), config)
        visited, hits = [], []
        final = play_tour(deal, policy, Stream(seed, "policy", index), visited, hits)
        scores[final.score] += 1
        played.append(final.score)
        visits.append(tuple(zip(visited, hits)))
        if progress is not None:
            progress(index + 1)
    return SimulationResult(
        tours, policy.name, seed, config, tuple(scores), tuple(visits), tuple(played)
    )
