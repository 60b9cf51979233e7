"""The memo's two speed settings against their off state, in one run: same play, less time.

- Prefetching (search/visit/kernel.py, ``PREFETCH_BITS``): seeded exact solves of one
  8-card hand with one drawing ability (as the planning solves them), with and without.
- Pooled arrays (search/infra/recycle.py) and prefetching together, on what the user waits
  for: the same seeded tours of the ``advisor`` policy played as before both and as now.

Rounds alternate between the settings, so a drifting machine slows both alike. Values,
lookups and every tour's visits must come out the same.

    python examples/bench_memo.py --solves 12 --tours 3 --short
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game import TourConfig
from search.infra import BudgetExceeded
from search.infra.recycle import POOL
from search.tours.batch import play_chunk
from search.tours.planning import default_table
from search.visit import kernel
from search.visit.solvers import warm_up

FULL_MASK = (1 << 32) - 1
SETS = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 1, 1, 1))  # Military, Commerce, ♦♥♠ (uses of ♣ ♦ ♥ ♠)
WORK = 40_000_000  # lookups a solve may take, as many with either setting
GROWING = [0.0]
PREFETCH_ON = kernel.PREFETCH_BITS  # the shipped threshold


def settings(pooled: bool, prefetching: bool) -> None:
    POOL.clear()
    POOL.share = 0.5 if pooled else 0.0  # a share of 0 holds nothing: every array is fresh
    kernel.PREFETCH_BITS = PREFETCH_ON if prefetching else 64  # 64: never


def problems(count: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    chosen = []
    for _ in range(count):
        hand = sum(1 << card for card in rng.sample(range(32), 8))
        jacks = rng.choice(SETS)
        chosen.append((hand, rng.randrange(4), jacks, (0, 1, 2) if jacks[3] else ()))
    return chosen


def solve_all(cases: list[tuple]) -> tuple[float, list]:
    """Seconds to solve every case on a fresh solver, and what each gave (values, lookups)."""
    results = []
    started = time.perf_counter()
    for hand, trump, jacks, pool in cases:
        solver = kernel.FastKingdomSolver()
        solver.limit_work(WORK)
        try:
            values = solver.decide(hand, FULL_MASK & ~hand, 0, trump, jacks, pool)
        except BudgetExceeded:
            values = None
        results.append((values, solver.lookups))
    return time.perf_counter() - started, results


def timed_growth(grow):
    def wrapper(self, status):
        started = time.perf_counter()
        try:
            grow(self, status)
        finally:
            GROWING[0] += time.perf_counter() - started

    return wrapper


def play(args) -> tuple[float, float, list[str]]:
    """Wall seconds of the tours, seconds growing memos, and the tours' visits."""
    default_table.cache_clear()  # each round's planner solves every hand itself
    GROWING[0] = 0.0
    started = time.perf_counter()
    _, visits = play_chunk(
        "advisor", TourConfig(short=args.short), args.seed, args.first, args.first + args.tours
    )
    return time.perf_counter() - started, GROWING[0], visits


def compare(label: str, rounds: int, run, before: tuple, after: tuple) -> None:
    """Alternate ``run`` under the settings ``before`` and ``after``; print the rounds and
    the ratio of their total seconds; exit if the two give different results."""
    totals, outcome = {before: 0.0, after: 0.0}, {}
    for round_ in range(rounds):
        for setting in (before, after):
            settings(*setting)
            seconds, *rest = run()
            totals[setting] += seconds
            outcome.setdefault(setting, rest[-1])
            if outcome[setting] != rest[-1] or outcome.get(before, rest[-1]) != rest[-1]:
                sys.exit(f"{label}: the two settings gave different results")
            extra = f"  ({rest[0]:.2f} s growing memos)" if len(rest) > 1 else ""
            print(f"  round {round_}  {name(setting):<22} {seconds:8.2f} s{extra}")
    print(
        f"  {label}: {name(before)} {totals[before]:.1f} s, {name(after)} {totals[after]:.1f} s: "
        f"{totals[before] / totals[after]:.2f}x, the same results"
    )


def name(setting: tuple) -> str:
    pooled, prefetching = setting
    return f"{'pooled' if pooled else 'fresh'}, {'prefetch' if prefetching else 'no prefetch'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solves", type=int, default=12, help="seeded hands solved (0: none)")
    parser.add_argument("--tours", type=int, default=3, help="advisor tours played (0: none)")
    parser.add_argument("--first", type=int, default=0, help="the first tour of the batch")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each setting, alternating")
    args = parser.parse_args()
    warm_up()
    if args.solves:
        cases = problems(args.solves, args.seed)
        print(
            f"{args.solves} seeded solves of one hand, one set each, {WORK // 10**6} M lookups at most:"
        )
        compare("solves", args.rounds, lambda: solve_all(cases), (True, False), (True, True))
    if args.tours:
        kernel.FastKingdomSolver._grow = timed_growth(kernel.FastKingdomSolver._grow)
        tour = "short" if args.short else "standard"
        print(f"{args.tours} {tour} advisor tours from tour {args.first} of seed {args.seed}:")
        compare("tours", args.rounds, lambda: play(args), (False, False), (True, True))


if __name__ == "__main__":
    main()
