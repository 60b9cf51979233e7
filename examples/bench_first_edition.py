"""Benchmark the first edition's compiled visit kernel against the pure-Python reference.

For each ability set, both solvers find the least expected reputation of every target
of one trump (one solve gives the whole vector) for seeded random 8-card hands on one
core, each hand from an empty memo; the reference runs on the first ``--reference-hands``
hands only (it takes about a minute a hand once ♦ is in play), and the ratio compares the
two on those same hands. Compilation is done before timing (the kernel is cached on disk).

    python examples/bench_first_edition.py                    # about 10 minutes
    python examples/bench_first_edition.py --hands 5 --reference-hands 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.firstedition.kernel import FastFirstEditionSolver
from search.firstedition.reference import FirstEditionSolver
from search.game.cards import CARDS, FULL_MASK, CardSet
from search.game.deal import Stream

# (abilities, cards a hand, reference hands): the reference with ♦ needs minutes for an
# 8-card hand (1 s for 4 cards), so Commerce is compared on 5-card hands too
CASES = {
    "none": ((0, 0, 0, 0), 8, 10),
    "C H": ((1, 0, 1, 0), 8, 5),
    "C H S": ((1, 0, 1, 1), 8, 3),
    "all four Jacks, 5 cards": ((1, 1, 1, 1), 5, 2),
    "all four Jacks": ((1, 1, 1, 1), 8, 0),
}


def hands(count: int, size: int = 8) -> list[int]:
    return [
        CardSet(Stream(2026, "bench-first-edition", i).shuffle(CARDS)[:size]).mask
        for i in range(count)
    ]


def timed(solver_class, hand: int, abil: tuple) -> tuple[float, int]:
    solver = solver_class()
    started = time.perf_counter()
    solver.value(hand, FULL_MASK & ~hand, 0, abil)
    seconds = time.perf_counter() - started
    states = solver.states if isinstance(solver, FastFirstEditionSolver) else len(solver.memo)
    return seconds, states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument(
        "--reference-hands",
        type=int,
        default=None,
        help="reference hands per case (default: 10, 5, 3, 2, none)",
    )
    args = parser.parse_args()
    timed(FastFirstEditionSolver, hands(1, 3)[0], (1, 1, 1, 1))  # load the compiled kernel
    print(f"{args.hands} seeded hands, trump clubs, every target at once, one core")
    print(
        f"{'abilities':28} {'kernel median':>13} {'p95':>8} {'states':>9} {'reference':>10} {'ratio':>7}"
    )
    for name, (abil, size, default_count) in CASES.items():
        sample = hands(args.hands, size)
        runs = [timed(FastFirstEditionSolver, hand, abil) for hand in sample]
        seconds = sorted(s for s, _ in runs)
        p95 = seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))]
        count = (
            default_count
            if args.reference_hands is None or not default_count
            else args.reference_hands
        )
        line = (
            f"{name:28} {1000 * statistics.median(seconds):10.1f} ms {1000 * p95:5.0f} ms "
            f"{int(statistics.median(st for _, st in runs)):9d}"
        )
        if count:
            reference = sum(timed(FirstEditionSolver, hand, abil)[0] for hand in sample[:count])
            kernel = sum(s for s, _ in runs[:count])
            line += f" {reference / count:8.2f} s {reference / kernel:6.0f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
