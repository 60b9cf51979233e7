"""Whole tours: the tour value (:mod:`.planning`), the policies that play tours
(:mod:`.registry`), advice for a kingdom (:mod:`.advice`) or a move (:mod:`.moves`), simulation and
batches, hindsight bounds and the CP-SAT assignment of hands to kingdoms."""

from __future__ import annotations

from .advice import COLUMNS, Chance, Column, VisitAdvice, advise_visit
from .batch import BatchError, BatchInterrupted, run_batch
from .moves import (
    AmbiguousPilesError,
    Move,
    MoveAdvice,
    fewest_playouts_above,
    leader_margin,
    place_seen,
    rank_moves,
    visit_abilities,
    visit_position,
)
from .planning import Objective
from .policies import PolicyName
from .registry import FIRST_EDITION_POLICIES, POLICIES, make_policy
from .simulate import SimulationResult
from .supporters import free_first, score_best_action, visit_stake

_LAZY = {"DealAnalysis": "hindsight", "analyse_deal": "hindsight"}
"""Names loaded on first use: hindsight loads CP-SAT, which no one-shot question needs."""


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "COLUMNS",
    "FIRST_EDITION_POLICIES",
    "POLICIES",
    "AmbiguousPilesError",
    "BatchError",
    "BatchInterrupted",
    "Chance",
    "Column",
    "DealAnalysis",
    "Move",
    "MoveAdvice",
    "Objective",
    "PolicyName",
    "SimulationResult",
    "VisitAdvice",
    "advise_visit",
    "analyse_deal",
    "fewest_playouts_above",
    "free_first",
    "leader_margin",
    "make_policy",
    "place_seen",
    "rank_moves",
    "run_batch",
    "score_best_action",
    "visit_abilities",
    "visit_position",
    "visit_stake",
]
