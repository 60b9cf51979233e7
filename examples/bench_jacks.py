"""Every Jack at once: the lookahead policy against the best exactly solved restriction.

On seeded first-visit hands (trump uniform, Politics pool = the 7 other rulers, every target
1..8) it solves the restrictions none, ♥♠, ♦, ♣ and ♦♥♠ exactly (one solve serves every target;
a solve past ``--cap`` seconds or the memory cap is left out), then plays, on the same deck
orders (common random numbers):

- the lookahead policy of :mod:`search.visit.lookahead` with all four Jacks, built on the
  solved ♦♥♠ and ♣;
- its base: exact play of the best solved restriction for the target;
- the old rule fallback of :mod:`search.visit.estimate`.

The policy's chance is estimated as the base's exact chance plus the paired difference of
successes (:func:`search.visit.lookahead.paired_estimate`), with a 95% interval. It prints:

- the mean and worst shortfall of the policy against the best exactly solved restriction;
- how many (hand, target) pairs are significantly below it (the interval wholly below);
- the mean gain over the rule fallback, with a paired 95% interval;
- the time per hand: the exact solves and the playouts.

Usage::

    python examples/bench_jacks.py                     # 100 hands, 100 paired playouts a target
    python examples/bench_jacks.py --hands 10 --playouts 50
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from search.game import FULL_MASK, Stream  # noqa: E402
from search.infra import BudgetExceeded  # noqa: E402
from search.visit import make_solver  # noqa: E402
from search.visit.estimate import RULE, play_policy  # noqa: E402
from search.visit.lookahead import LookaheadPolicy, paired_estimate, play_lookahead, restricted  # noqa: E402

RULER_SUITS = (0, 0, 1, 1, 2, 2, 3, 3)  # a King and a Queen of each suit
RESTRICTIONS = {"none": (), "HS": (2, 3), "D": (1,), "C": (0,), "DHS": (1, 2, 3)}
"""The restrictions solved exactly (suits: 0 ♣, 1 ♦, 2 ♥, 3 ♠)."""
ROOTS = ("DHS", "C")
"""The solved restrictions the lookahead policy plays from (the others are subsets of these)."""
ALL = (1, 1, 1, 1)


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


def solve_restrictions(solver, hand: int, trump: int, pool: tuple, cap: float) -> dict[str, tuple]:
    """Each restriction's exact vector over needs, for those that finish within ``cap``."""
    deck = FULL_MASK & ~hand

    def solve(name: str) -> tuple:
        abil = restricted(ALL, RESTRICTIONS[name])
        return solver.decide(hand, deck, 0, trump, abil, pool if abil[3] else ())

    exact = {}
    for name in RESTRICTIONS:
        solver.deadline = time.perf_counter() + cap
        try:
            exact[name] = solve(name)
        except BudgetExceeded:
            solver.reset()  # an incomplete memo (or one over the cap): the others afresh
            solver.deadline = None
            exact = {n: solve(n) for n in exact}
        finally:
            solver.deadline = None
    return exact


def bench_hand(index: int, playouts: int, cap: float) -> dict:
    hand, trump, pool = first_visit(index)
    solver = make_solver()
    started = time.perf_counter()
    exact = solve_restrictions(solver, hand, trump, pool, cap)
    solve_seconds = time.perf_counter() - started
    started = time.perf_counter()
    policy = LookaheadPolicy(solver, [RESTRICTIONS[n] for n in ROOTS if n in exact], seed=index)
    state = (hand, FULL_MASK & ~hand, 0, trump, ALL, pool)
    rows = []
    for target in range(1, 9):
        best_name = max(exact, key=lambda n: exact[n][target])
        suits, base_value = policy.base(state, target)
        base_abil = restricted(ALL, suits)
        base_state = (hand, FULL_MASK & ~hand, 0, trump, base_abil, pool if base_abil[3] else ())
        pairs, rule_pairs = [], []
        for i in range(playouts):
            stream = (index, "bench", target, i)
            new = play_lookahead(policy, state, target, Stream(*stream)) == target
            base = play_policy(solver, base_state, target, Stream(*stream), fallback=False) == target
            old = play_policy(solver, state, target, Stream(*stream), fallback=RULE) == target
            pairs.append((new, base))
            rule_pairs.append((new, old))
        value, interval = paired_estimate(base_value, pairs)
        rows.append((target, best_name, exact[best_name][target], value, interval, rule_pairs))
    return {"rows": rows, "solve": solve_seconds, "play": time.perf_counter() - started,
            "solved": sorted(exact)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--playouts", type=int, default=100, help="paired playouts a target")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds per exact solve")
    parser.add_argument("--start", type=int, default=0, help="first hand index")
    parser.add_argument("--every", type=int, default=10, help="print the summary every so many hands")
    args = parser.parse_args()
    make_solver().decide(1, 2, 0, 0, ALL, (1,))  # load the kernel outside the timings
    shortfalls, gains, below, solves, plays = [], [], [], [], []
    worst = (float("-inf"), None)
    for index in range(args.start, args.start + args.hands):
        result = bench_hand(index, args.playouts, args.cap)
        gc.collect()
        solves.append(result["solve"])
        plays.append(result["play"])
        for target, best_name, exact, value, (low, high), rule_pairs in result["rows"]:
            shortfall = exact - value
            shortfalls.append(shortfall)
            gains.extend(int(n) - int(o) for n, o in rule_pairs)
            if high < exact - 1e-12:
                below.append((index, target, best_name, exact, value, low, high))
            if shortfall > worst[0]:
                worst = (shortfall, (index, target, best_name, round(exact, 4), round(value, 4)))
        gain_here = [exact - value for _, _, exact, value, _, _ in result["rows"]]
        print(f"hand {index:3d}: solved {','.join(result['solved']):18} solve {result['solve']:6.2f} s, "
              f"playouts {result['play']:6.2f} s, mean gain over best exact "
              f"{-100 * statistics.fmean(gain_here):+.2f} pp", flush=True)
        if (index - args.start + 1) % args.every == 0 or index == args.start + args.hands - 1:
            summarise(index - args.start + 1, args.playouts, shortfalls, worst, below, gains, solves, plays)


def summarise(hands, playouts, shortfalls, worst, below, gains, solves, plays) -> None:
    """Print the figures so far (a run stopped early still reports what it measured)."""
    pairs = len(shortfalls)
    mean_gain = statistics.fmean(gains)
    half = 1.96 * statistics.stdev(gains) / len(gains) ** 0.5
    print()
    print(f"{hands} hands x 8 targets = {pairs} pairs, {playouts} paired playouts each")
    print(f"shortfall of the lookahead policy against the best exactly solved restriction: mean "
          f"{100 * statistics.fmean(shortfalls):+.2f} pp, worst {100 * worst[0]:+.2f} pp "
          f"(hand, target, restriction, exact, estimate: {worst[1]})")
    print(f"pairs significantly below it: {len(below)} of {pairs} {below if below else ''}")
    print(f"gain over the rule fallback: {100 * mean_gain:+.2f} pp (95% CI ±{100 * half:.2f})")
    print(f"time per hand: exact solves median {statistics.median(solves):.2f} s, "
          f"playouts median {statistics.median(plays):.2f} s ({8 * 3 * playouts} playouts a hand)",
          flush=True)

if __name__ == "__main__":
    main()
