"""Pooled memo arrays against fresh memory, on the advisor's tours: same play, less time.

Plays the same seeded tours of the ``advisor`` policy with the array pool off and on
(search/infra/recycle.py), alternating, in one process, and prints each round's wall time,
the time spent growing memos, and the ratio. Both modes must play every tour identically.

    python examples/bench_recycle.py --tours 4 --short
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game import TourConfig
from search.infra.recycle import POOL
from search.tours import planning
from search.tours.batch import play_chunk
from search.visit import kernel
from search.visit.solvers import warm_up

GROWING = [0.0]


def timed_growth(grow):
    def wrapper(self, status):
        started = time.perf_counter()
        try:
            grow(self, status)
        finally:
            GROWING[0] += time.perf_counter() - started
    return wrapper


def run(pooled: bool, args) -> tuple[float, float, list[str]]:
    """One round: wall seconds, seconds growing memos, the tours' visits."""
    POOL.clear()
    POOL.share = 0.5 if pooled else 0.0  # a share of 0 holds nothing: every array is fresh
    planning._hand_chances.cache_clear()  # each round solves every hand itself
    GROWING[0] = 0.0
    started = time.perf_counter()
    _, visits = play_chunk("advisor", TourConfig(short=args.short), args.seed, args.first, args.first + args.tours)
    return time.perf_counter() - started, GROWING[0], visits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tours", type=int, default=4)
    parser.add_argument("--first", type=int, default=0, help="the first tour of the batch")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each mode, alternating")
    args = parser.parse_args()
    warm_up()
    kernel.FastKingdomSolver._grow = timed_growth(kernel.FastKingdomSolver._grow)
    print(f"{args.tours} {'short' if args.short else 'standard'} advisor tours from tour {args.first}, seed {args.seed}")
    print(f"{'round':>5}  {'arrays':<7} {'wall s':>8} {'growing s':>10}")
    totals = {False: [0.0, 0.0], True: [0.0, 0.0]}
    played = {}
    for round_ in range(args.rounds):
        for pooled in (False, True):
            wall, growing, visits = run(pooled, args)
            totals[pooled][0] += wall
            totals[pooled][1] += growing
            played.setdefault(pooled, visits)
            if visits != played[pooled] or visits != played.get(not pooled, visits):
                sys.exit("the pooled and the fresh rounds played differently")
            print(f"{round_:>5}  {'pooled' if pooled else 'fresh':<7} {wall:>8.1f} {growing:>10.2f}")
    (fresh_wall, fresh_grow), (pooled_wall, pooled_grow) = totals[False], totals[True]
    print(f"total  fresh {fresh_wall:.1f} s ({fresh_grow:.1f} s growing), pooled {pooled_wall:.1f} s "
          f"({pooled_grow:.1f} s growing): {fresh_wall / pooled_wall:.3f}x; every tour played the same")


if __name__ == "__main__":
    main()
