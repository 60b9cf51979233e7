"""One memo a trump for the exact cells of ``advise``, against one memo an ability set (issue 14).

An idea measured and not adopted. ``advise_visit`` solves every kingdom under each ability set
of its table, each (trump, abilities, pool) on its own memo. Once a drawing ability is spent
and nothing but Diplomacy is left, Military's, Commerce's and ♦♥♠'s subgames with one trump
are keyed alike, so one memo a trump could search them once for the whole table. This script
solves the exact columns (every column but the all-Jacks ones, which seldom finish) of the
first hand of seeded deals both ways, with no time limit, on one core, and prints the
seconds, the states stored and the ratio. On deal 5 the shared memos stored 1.6% fewer
states: the subgames after Military (8 + clubs cards) and after Commerce (8 cards, two out)
hardly meet, and ♦♥♠'s keep ♥ and ♠ up.

    python examples/bench_shared_memo.py                # deals 1-5
    python examples/bench_shared_memo.py --seeds 5,8
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game import Deal, TourConfig
from search.tours.advice import _cell_position, _solve_key
from search.visit import make_solver, root_options
from search.visit.solvers import warm_up

COLUMNS = ("none", "H", "S", "HS", "C", "D", "DHS")
"""The table's exactly solved ability sets (advise's order), the all-Jacks ones left out."""


TOLERANCE = 1e-12
"""Equivalent states share one memo entry, and which of them was searched first decides the
order of a sum: values may differ in the last bits, never more."""


def first_visit(seed: int):
    deal = Deal(seed, TourConfig())
    return deal.tour(), deal.hand(1)


def solve_cells(tour, hand, shared: bool) -> tuple[float, int, list]:
    """Seconds, states stored at the end (summed over memos) and each cell's need vector."""
    memos: dict = {}
    started = time.perf_counter()
    values = []
    for column in COLUMNS:
        for position in tour.unvisited:
            state = _cell_position(tour, hand, column, position)
            key = _solve_key(state)
            solver = memos.setdefault(key[0] if shared else key, make_solver())
            vectors = [value for _, value, _ in root_options(solver, state)]
            values.append(tuple(map(max, *vectors)) if len(vectors) > 1 else vectors[0])
    states = sum(s.state_count() for s in memos.values())
    return time.perf_counter() - started, states, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 3, 4, 5]
    )
    args = parser.parse_args()
    warm_up()
    print(
        f"{'deal':>4} {'per set s':>10} {'per trump s':>12} {'ratio':>6} {'states':>10} {'shared':>10}"
    )
    ratios = []
    for seed in args.seeds:
        tour, hand = first_visit(seed)
        alone, alone_states, alone_values = solve_cells(tour, hand, shared=False)
        shared, shared_states, shared_values = solve_cells(tour, hand, shared=True)
        gap = max(abs(a - b) for u, v in zip(alone_values, shared_values) for a, b in zip(u, v))
        if gap > TOLERANCE:
            raise SystemExit(f"deal {seed}: the shared memo changed a value by {gap:.2e}")
        ratios.append(shared / alone)
        print(
            f"{seed:>4} {alone:>10.2f} {shared:>12.2f} {shared / alone:>6.2f} "
            f"{alone_states:>10,} {shared_states:>10,}  largest gap {gap:.1e}",
            flush=True,
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
    print(
        f"median ratio {sorted(ratios)[len(ratios) // 2]:.2f}; values agree to 1e-12; "
        f"peak RSS {peak} MB"
    )


if __name__ == "__main__":
    main()
