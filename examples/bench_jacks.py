"""Every Jack at once: the search fallback against the best exactly solved restriction.

On seeded first-visit hands (trump uniform, Politics pool = the 7 other rulers, every
target 1..8) it solves ♦♥♠ exactly (one solve serves every target), then plays the search
fallback of :mod:`search.visit.estimate` with all four Jacks, and the old rule fallback, on
the same deck orders (common random numbers). It prints:

- the mean and worst shortfall of the search fallback against the exact ♦♥♠ chance (a
  policy that never uses Military; the search fallback improves on it where it uses one);
- how many (hand, target) pairs are significantly below it (the 95% interval of the
  success rate lies wholly below the exact chance);
- the mean gain over the rule fallback, with a paired 95% interval;
- the time per hand: the exact solve and the playouts.

Usage::

    python examples/bench_jacks.py                     # 100 hands, 200 playouts a target
    python examples/bench_jacks.py --hands 10 --playouts 100
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from search.game import FULL_MASK, Stream  # noqa: E402
from search.infra import wilson_interval  # noqa: E402
from search.visit import make_solver  # noqa: E402
from search.visit.estimate import RULE, SEARCH, play_policy  # noqa: E402

RULER_SUITS = (0, 0, 1, 1, 2, 2, 3, 3)  # a King and a Queen of each suit


def first_visit(index: int) -> tuple[int, int, tuple[int, ...]]:
    """Seeded hand ``index``: (hand mask, trump, Politics pool of the 7 other rulers)."""
    stream = Stream(2026, "bench-jacks", index)
    hand = 0
    for card in stream.shuffle(list(range(32)))[:8]:
        hand |= 1 << card
    trump = stream.shuffle([0, 1, 2, 3])[0]
    pool = list(RULER_SUITS)
    pool.remove(trump)
    return hand, trump, tuple(sorted(pool))


def bench_hand(index: int, playouts: int) -> dict:
    hand, trump, pool = first_visit(index)
    solver = make_solver()
    deck = FULL_MASK & ~hand
    started = time.perf_counter()
    exact = solver.decide(hand, deck, 0, trump, (0, 1, 1, 1), pool)  # ♦♥♠, every target
    solve_seconds = time.perf_counter() - started
    started = time.perf_counter()
    state = (hand, deck, 0, trump, (1, 1, 1, 1), pool)
    rows = []
    for target in range(1, 9):
        new, old = [], []
        for i in range(playouts):
            new.append(play_policy(solver, state, target, Stream(index, "bench", target, i), fallback=SEARCH) == target)
            old.append(play_policy(solver, state, target, Stream(index, "bench", target, i), fallback=RULE) == target)
        rows.append((target, exact[target], new, old))
    return {"rows": rows, "solve": solve_seconds, "play": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--playouts", type=int, default=200)
    args = parser.parse_args()
    make_solver().decide(1, 2, 0, 0, (1, 1, 1, 1), (1,))  # load the kernel outside the timings
    shortfalls, gains, below, solves, plays = [], [], 0, [], []
    worst = (0.0, None)
    for index in range(args.hands):
        result = bench_hand(index, args.playouts)
        solves.append(result["solve"])
        plays.append(result["play"])
        for target, exact, new, old in result["rows"]:
            rate = sum(new) / len(new)
            low, high = wilson_interval(sum(new), len(new))
            shortfall = exact - rate
            shortfalls.append(shortfall)
            gains.extend(n - o for n, o in zip(new, old))
            if high < exact:
                below += 1
            if shortfall > worst[0]:
                worst = (shortfall, (index, target, exact, rate, low, high))
        print(f"hand {index:3d}: solve {result['solve']:6.2f} s, playouts {result['play']:6.2f} s",
              flush=True)
    pairs = len(shortfalls)
    mean_gain = statistics.fmean(gains)
    half = 1.96 * statistics.stdev(gains) / len(gains) ** 0.5
    print()
    print(f"{args.hands} hands x 8 targets = {pairs} pairs, {args.playouts} playouts each")
    print(f"shortfall of the search fallback against exact ♦♥♠: mean "
          f"{100 * statistics.fmean(shortfalls):+.2f} pp, worst {100 * worst[0]:+.2f} pp "
          f"(hand, target, exact, rate, CI: {worst[1]})")
    print(f"pairs significantly below exact ♦♥♠: {below} of {pairs}")
    print(f"gain over the rule fallback: {100 * mean_gain:+.2f} pp (95% CI ±{100 * half:.2f})")
    print(f"time per hand: exact ♦♥♠ solve median {statistics.median(solves):.2f} s, "
          f"playouts median {statistics.median(plays):.2f} s "
          f"({16 * args.playouts} playouts a hand)")


if __name__ == "__main__":
    main()
