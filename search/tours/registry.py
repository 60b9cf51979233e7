"""The policies that play whole tours, by name: the baselines ``random`` and ``greedy``,
``advisor`` with the Jacks played by the lookahead policy and kingdoms planned with
Diplomacy and Politics, Commerce alone and Military alone, their chances calibrated against that
play (``search/data/uplift-advisor.json``; it plans as ``advise`` and the coach do),
``advisor-uncalibrated`` the same without the calibration (the ``advisor`` of the tables
measured before 2026-12-01), ``advisor-quick`` with the same play and the quick planning model
(Diplomacy and Politics only: the baseline of the planning model), ``advisor-rule`` and
``advisor-spend`` with the rule-of-thumb fallback and the quick planning model
(:mod:`search.tours.planning_policy`), and ``hindsight``, which knows the deal's eight hands in
advance (:mod:`search.tours.hindsight`; it has a ``start_tour(deal)`` hook).
"""

from __future__ import annotations

from collections.abc import Callable

from .policies import GreedyPolicy, Policy, PolicyName, RandomPolicy

# The factories import their policies when asked for: those load the solvers.


def _advisor() -> Policy:
    from .planning_policy import PlanningPolicy

    return PlanningPolicy(lookahead=True)  # the calibrated full model: planning.advisor_planner


def _advisor_uncalibrated() -> Policy:
    from .planning import TourPlanner
    from .planning_policy import PlanningPolicy

    policy = PlanningPolicy(TourPlanner(), lookahead=True)
    policy.name = PolicyName.ADVISOR_UNCALIBRATED
    return policy


def _advisor_quick() -> Policy:
    from .planning_policy import PlanningPolicy

    policy = PlanningPolicy(_quick_planner(), lookahead=True)
    policy.name = PolicyName.ADVISOR_QUICK
    return policy


def _advisor_rule() -> Policy:
    from .planning_policy import PlanningPolicy

    policy = PlanningPolicy(_quick_planner(), lookahead=False)
    policy.name = PolicyName.ADVISOR_RULE
    return policy


def _advisor_spend() -> Policy:
    from .planning_policy import PlanningPolicy

    policy = PlanningPolicy(_quick_planner(), spend_supporters=True, lookahead=False)
    policy.name = PolicyName.ADVISOR_SPEND
    return policy


def _quick_planner():
    from .planning import QUICK_SETS, TourPlanner

    return TourPlanner(sets=QUICK_SETS)


def _hindsight() -> Policy:
    from .hindsight import HindsightPolicy

    return HindsightPolicy()


def _hindsight_perfect() -> Policy:
    from .hindsight import HindsightPolicy
    from .planning import Objective

    return HindsightPolicy(objective=Objective.PERFECT)


def _first_edition_advisor() -> Policy:
    from ..firstedition import FirstEditionPolicy

    return FirstEditionPolicy()


POLICIES: dict[str, Callable[[], Policy]] = {
    PolicyName.RANDOM: RandomPolicy,
    PolicyName.GREEDY: GreedyPolicy,
    PolicyName.ADVISOR: _advisor,
    PolicyName.ADVISOR_UNCALIBRATED: _advisor_uncalibrated,
    PolicyName.ADVISOR_QUICK: _advisor_quick,
    PolicyName.ADVISOR_RULE: _advisor_rule,
    PolicyName.ADVISOR_SPEND: _advisor_spend,
    PolicyName.HINDSIGHT: _hindsight,
    PolicyName.HINDSIGHT_PERFECT: _hindsight_perfect,
}


# the first edition (R5-R7) needs its own advisor; the hindsight bounds are standard-only
FIRST_EDITION_POLICIES: dict[str, Callable[[], Policy]] = {
    PolicyName.RANDOM: RandomPolicy,
    PolicyName.GREEDY: GreedyPolicy,
    PolicyName.ADVISOR: _first_edition_advisor,
}


def make_policy(name: str, first_edition: bool = False) -> Policy:
    """The policy called ``name`` (for the first edition if asked); raises ``ValueError``
    listing the known ones."""
    try:
        factory = (FIRST_EDITION_POLICIES if first_edition else POLICIES)[name]
    except KeyError:
        known = ", ".join(sorted(POLICIES))
        raise ValueError(f"unknown policy {name!r}: choose one of {known}") from None
    return factory()
