"""Which subsets of the Jacks bound the all-Jacks chance best for their cost (issue 37).

With every Jack a player can always play as if some were absent, so the exact chance of any
subset of the Jacks is a proven lower bound on the all-Jacks chance. ``advise`` solves some such
subsets beside its columns only to bound the all-Jacks cells (``BOUND_COLUMNS`` in
``search/tours/advice.py``). This script solves, on the first hand of each seeded deal and for
each trump (the first visit's Politics pool), every subset below from a fresh solver within
``--cap`` kernel lookups, and prints:

- each subset's cost (kernel lookups: median and 90th percentile, solves past the cap);
- for each choice of extra subsets, how far it lifts the bound over the best of the single Jacks
  and ♥♠ (what ``advise`` had before), over every kingdom of every deal, counting a capped solve
  as no bound.

Usage::

    .venv/bin/python examples/bound_columns.py               # deals 1-12, two processes
    .venv/bin/python examples/bound_columns.py --deals 1-4 --cap 20000000
"""

from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game import Suit
from search.game.deal import Deal
from search.tours.advice import politics_pool
from search.visit import BudgetExceeded, make_position, make_solver, root_options

SUBSETS = ("H", "C", "S", "D", "HS", "DH", "CH", "CS", "DS", "DHS")
BASE = ("H", "C", "S", "D", "HS")  # what the table bounded the all-Jacks cells with before
EXTRAS = (("DH",), ("CH",), ("CS",), ("DS",), ("CS", "DS"), ("DHS",), ("CS", "DS", "DHS"))


def solve_deal(seed: int, cap: int) -> list[dict]:
    """Each subset's value vector (None past ``cap``) and lookups, for each trump of deal
    ``seed``'s first hand, with the targets of that trump's kingdoms."""
    deal = Deal(seed)
    tour, hand = deal.tour(), deal.hand(1)
    rows = []
    for trump in Suit:
        places = [p for p in tour.unvisited if tour.rulers[p - 1].suit == trump]
        for subset in SUBSETS:
            position = make_position(
                hand,
                trump,
                tour.config.target(places[0]),
                jacks=tuple(Suit.from_letter(letter) for letter in subset),
                pool=politics_pool(tour, places[0]),  # the same for both kingdoms of a trump
            )
            solver = make_solver()
            solver.limit_work(cap)
            try:
                vectors = [value for _, value, _ in root_options(solver, position)]
                vector = [max(values) for values in zip(*vectors)]
            except BudgetExceeded:
                vector = None
            rows.append(
                {
                    "seed": seed,
                    "trump": trump,
                    "subset": subset,
                    "lookups": solver.lookups,
                    "vector": vector,
                    "targets": [tour.config.target(p) for p in places],
                }
            )
    return rows


def bound(by_subset: dict, subsets: tuple, target: int) -> float:
    """The best exact chance of ``target`` among ``subsets`` (0 where none finished)."""
    values = [by_subset[s]["vector"][target] for s in subsets if by_subset[s]["vector"]]
    return max(values, default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-12", help="seeds, e.g. 1-12")
    parser.add_argument("--cap", type=int, default=60_000_000, help="kernel lookups a solve")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    first, _, last = args.deals.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    with ProcessPoolExecutor(args.workers) as pool:
        rows = [
            row for part in pool.map(solve_deal, seeds, [args.cap] * len(seeds)) for row in part
        ]
    print(f"{len(seeds)} deals, first hands, every trump; cap {args.cap:,} lookups a solve")
    for subset in SUBSETS:
        costs = sorted(r["lookups"] for r in rows if r["subset"] == subset)
        capped = sum(r["vector"] is None for r in rows if r["subset"] == subset)
        print(
            f"  {subset:4} lookups median {costs[len(costs) // 2] / 1e6:6.2f} M, "
            f"90th percentile {costs[int(0.9 * len(costs))] / 1e6:6.2f} M, past the cap {capped}"
        )
    by_trump: dict = {}
    for row in rows:
        by_trump.setdefault((row["seed"], row["trump"]), {})[row["subset"]] = row
    print("lift of the all-Jacks bound over the single Jacks and ♥♠, over every kingdom:")
    for extra in EXTRAS:
        lifts = [
            bound(subsets, BASE + extra, target) - bound(subsets, BASE, target)
            for subsets in by_trump.values()
            for target in subsets["H"]["targets"]
        ]
        print(
            f"  + {' '.join(extra):10} mean {100 * statistics.mean(lifts):5.2f} points; "
            f"{sum(lift > 0.05 for lift in lifts)} of {len(lifts)} kingdoms lifted over 5 points"
        )


if __name__ == "__main__":
    main()
