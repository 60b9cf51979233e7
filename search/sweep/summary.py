"""A sweep's summary: for each trump case and target, how the chance spreads over hands.

Every figure is weighted by the hands a row stands for, and leaves capped rows
out (their share is reported). For each target: the mean chance, the share of
hands with chance exactly 0 and exactly 1 (within 1e-12), and a histogram of
chances in 10 bins of width 0.1 (the last one closed). A sampled sweep adds
95% intervals (:mod:`search.infra.stats`): normal for means, Wilson for shares.
With more than one trump case, ``trumps: "any"`` entries mix the cases in
proportion to the trumps they stand for: a kingdom's trump is uniform.
"""

from __future__ import annotations

import numpy as np

from ..infra import mean_interval, wilson_interval

SCHEME = 1  # bump when a figure changes meaning
BINS = 10
ZERO = 1e-12
DIGITS = 12


def summarise(spec, rows: dict[str, np.ndarray], hands_per_trump: int) -> dict:
    """The summary of a finished sweep of ``spec`` from its joined chunk ``rows``."""
    cases = spec.trump_cases()
    sampled = spec.sample is not None
    results = []
    for case in cases:
        chosen = rows["trump"] == case.trump
        for column, target in enumerate(spec.targets):
            chance = rows["chance"][chosen, column]
            entry = _spread(chance, rows["weight"][chosen].astype(np.float64))
            if sampled:
                entry.update(_case_intervals(chance))
            results.append(
                {"abilities": spec.label, "trumps": case.stands_for, "target": target, **entry}
            )
    if len(cases) > 1:
        shares = {case.trump: case.share for case in cases}
        mix = np.array([shares[trump] for trump in rows["trump"].tolist()])
        for column, target in enumerate(spec.targets):
            chance = rows["chance"][:, column]
            entry = _spread(chance, rows["weight"] * mix)
            if sampled:
                entry.update(_mixed_intervals(chance, mix, len(cases)))
            results.append({"abilities": spec.label, "trumps": "any", "target": target, **entry})
    return {
        "scheme": SCHEME,
        "measure": "chance of exactly `target` wins from an 8-card hand at a visit's start, "
        "optimal play (docs/rules.md §7)",
        "parameters": spec.parameters(),
        "mode": "sample" if sampled else "all hands",
        "hands_per_trump": hands_per_trump,
        "rows": len(rows["mask"]),
        "capped_rows": int(rows["capped"].sum()),
        "results": results,
        "timing": {"solve_seconds": round(float(rows["seconds"].sum()), 3)},
    }


def _spread(chance: np.ndarray, weight: np.ndarray) -> dict:
    solved = ~np.isnan(chance)
    value, mass = chance[solved], weight[solved]
    total = mass.sum()
    if total == 0:
        return {
            "mean": None,
            "share_zero": None,
            "share_one": None,
            "histogram": None,
            "capped_share": 1.0,
        }
    histogram, _ = np.histogram(value, bins=BINS, range=(0.0, 1.0), weights=mass)
    return {
        "mean": _round((value * mass).sum() / total),
        "share_zero": _round(mass[value <= ZERO].sum() / total),
        "share_one": _round(mass[value >= 1 - ZERO].sum() / total),
        "histogram": [_round(h / total) for h in histogram],
        "capped_share": _round(weight[~solved].sum() / weight.sum()),
    }


def _case_intervals(chance: np.ndarray) -> dict:
    value = chance[~np.isnan(chance)]
    _, low, high = mean_interval(value.tolist())
    count = len(value)
    return {
        "mean_ci95": [_round(low), _round(high)],
        "share_zero_ci95": [_round(x) for x in wilson_interval(int((value <= ZERO).sum()), count)],
        "share_one_ci95": [
            _round(x) for x in wilson_interval(int((value >= 1 - ZERO).sum()), count)
        ],
    }


def _mixed_intervals(chance: np.ndarray, mix: np.ndarray, cases: int) -> dict:
    """Intervals over sampled hands, each hand's figure mixed over its trump cases (rows of
    one hand are adjacent, one a case); hands capped at any case are left out."""
    by_hand = chance.reshape(-1, cases)
    weights = mix.reshape(-1, cases)
    whole = ~np.isnan(by_hand).any(axis=1)
    by_hand, weights = by_hand[whole], weights[whole]
    intervals = {}
    for name, figure in (
        ("mean_ci95", by_hand),
        ("share_zero_ci95", by_hand <= ZERO),
        ("share_one_ci95", by_hand >= 1 - ZERO),
    ):
        _, low, high = mean_interval((figure * weights).sum(axis=1).tolist())
        intervals[name] = [_round(max(0.0, low)), _round(min(1.0, high))]
    return intervals


def _round(value: float) -> float:
    return round(float(value), DIGITS)
