"""Benchmark the kingdom solver on seeded random hands, beside a naive baseline.

For each ability set (none, each single Jack, all four Jacks) the solver computes
the chance of every target of one trump at once (one solve gives the vector over
targets) for each of ``--hands`` seeded random 8-card hands, on one core. The
naive baseline is the same solver with canonical keys and target vectors turned
off, solving the 8 targets one by one; it runs on the first ``--baseline-hands``
hands of each set and the ratio compares the two on those same hands. Each
ability set runs in its own process so that its peak memory (max RSS) is its own.

Beside the kernel's own search (``decide`` on the root), the *product path* is timed on the
same hand: :func:`search.visit.solve_exact` as ``odds``, ``advise`` and ``move`` call it (every
root option's value, the best one and the distribution of wins for one target, 1 to 8 by
hand), with a fresh solver; ``product/kernel`` is the median ratio of the two per hand (the
same hand's cost, paired), ``of medians`` the product path's median over the kernel's.

A hand whose solve passes ``--cap`` seconds is stopped and counted as taking
more than the cap (the medians and p95 then are lower bounds, marked ``>``). So is one
whose memo would pass the process's memory cap (``--max-memory`` of the CLI, default 1.5G,
or ``EMISSARY_MAX_MEMORY``): ``capped`` counts both, ``mem`` (kernel) and ``prod mem``
(product path) those stopped by memory.

    python examples/bench_kingdom.py                 # the full run (long)
    python examples/bench_kingdom.py --hands 10 --cap 5
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game.cards import CARDS, FULL_MASK, CardSet
from search.game.deal import Stream
from search.infra import BudgetExceeded, MemoryLimitExceeded
from search.visit.reference import KingdomSolver

ABILITY_SETS = {
    "none": (0, 0, 0, 0),
    "Diplomacy (H)": (0, 0, 1, 0),
    "Military (C)": (1, 0, 0, 0),
    "Commerce (D)": (0, 1, 0, 0),
    "Politics (S)": (0, 0, 0, 1),
    "DHS, first pool": (0, 1, 1, 1),  # ♦♥♠ with the first visit's Politics pool
    "all four Jacks": (1, 1, 1, 1),
}


def seeded_hands(count: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """(hand mask, trump, Politics pool) for ``count`` seeded random first visits."""
    hands = []
    for index in range(count):
        stream = Stream(2026, "bench", index)
        hand = CardSet(stream.shuffle(CARDS)[:8]).mask
        trump = stream.below(4)
        rulers = [s for s in range(4) for _ in range(2)]
        rulers.remove(trump)  # the visited ruler; the other 7 are the pool
        hands.append((hand, trump, tuple(rulers)))
    return hands


def make_fast_solver(deadline: float | None) -> KingdomSolver:
    from search.visit.kernel import FastKingdomSolver

    solver = FastKingdomSolver()
    solver.deadline = deadline  # a benchmark's cap, for the whole solve
    return solver


def time_solve(hand, trump, pool, abilities, cap, kernel, naive=False):
    """Seconds for one hand (all targets), or None past the cap or the memory cap; the
    states used; and whether the memory cap stopped it."""
    deadline = time.perf_counter() + cap
    pool = pool if abilities[3] else ()
    started = time.perf_counter()
    try:
        if naive:
            solver = KingdomSolver(canonical=False, vectorise=False)
            solver.deadline = deadline
            for target in range(1, 9):
                solver.decide(hand, FULL_MASK & ~hand, 0, trump, abilities, pool, target)
        else:
            solver = make_fast_solver(deadline) if kernel == "fast" else KingdomSolver()
            solver.deadline = deadline
            solver.decide(hand, FULL_MASK & ~hand, 0, trump, abilities, pool)
    except BudgetExceeded as stopped:
        return None, solver.state_count(), isinstance(stopped, MemoryLimitExceeded)
    return time.perf_counter() - started, solver.state_count(), False


def time_product(index, hand, trump, pool, abilities, cap):
    """Seconds for the product path on one hand (one target), or None past the cap or the
    memory cap; and whether the memory cap stopped it."""
    from search.game import CardSet, Suit
    from search.visit import make_position, solve_exact

    counts = dict(zip((Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES), abilities))
    jacks = [suit for suit, n in counts.items() if n]
    position = make_position(
        CardSet(hand),
        Suit(trump),
        1 + index % 8,
        jacks=jacks,
        pool=[Suit(s) for s in pool] if abilities[3] else (),
    )
    solver = make_fast_solver(time.perf_counter() + cap)
    started = time.perf_counter()
    try:
        solve_exact(solver, position, started)
    except BudgetExceeded as stopped:
        return None, isinstance(stopped, MemoryLimitExceeded)
    return time.perf_counter() - started, False


def run_set(name: str, hands: int, baseline_hands: int, cap: float, kernel: str) -> dict:
    """Solve one ability set on every hand; runs in a child process."""
    abilities = ABILITY_SETS[name]
    if kernel == "fast":  # compile outside the timings
        make_fast_solver(None).decide(1, 2, 0, 0, abilities, (0,) if abilities[3] else ())
    times, states, naive_times, paired, products, ratios = [], [], [], [], [], []
    over_memory = {"kernel": 0, "product": 0}
    for index, (hand, trump, pool) in enumerate(seeded_hands(hands)):
        seconds, count, memory = time_solve(hand, trump, pool, abilities, cap, kernel)
        times.append(seconds)
        states.append(count)
        over_memory["kernel"] += memory
        if kernel == "fast":
            product, memory = time_product(index, hand, trump, pool, abilities, cap)
            products.append(product)
            over_memory["product"] += memory
            if seconds is not None and product is not None:
                ratios.append(product / seconds)
        if index < baseline_hands:
            naive, _, _ = time_solve(hand, trump, pool, abilities, cap, kernel, naive=True)
            naive_times.append(naive)
            if seconds is not None and naive is not None:
                paired.append((naive, seconds))
    return {
        "name": name,
        "times": times,
        "states": states,
        "naive": naive_times,
        "paired": paired,
        "products": products,
        "ratios": ratios,
        "over_memory": over_memory,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def summarise(values: list[float | None], cap: float) -> tuple[str, str]:
    """Median and p95 in ms; a value past the cap counts as the cap and is marked '>'."""
    finished = [v if v is not None else cap for v in values]
    if not finished:
        return "-", "-"
    ordered = sorted(finished)
    median = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

    def show(v: float) -> str:
        return (">" if v >= cap else "") + f"{1000 * v:,.1f}"

    return show(median), show(p95)


def set_names(text: str) -> list[str]:
    """The ability sets named in ``text``, comma-separated; a name may hold a comma itself
    ("DHS, first pool")."""
    names, pending = [], ""
    for part in text.split(","):
        pending = f"{pending}, {part.strip()}" if pending else part.strip()
        if pending in ABILITY_SETS:
            names.append(pending)
            pending = ""
    if pending:
        raise SystemExit(f"unknown ability set {pending!r}; known: {'; '.join(ABILITY_SETS)}")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--baseline-hands", type=int, default=10)
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per hand and solve")
    parser.add_argument("--kernel", choices=["fast", "python"], default="fast")
    parser.add_argument("--sets", default=",".join(ABILITY_SETS), help="comma-separated names")
    args = parser.parse_args()
    names = set_names(args.sets)
    context = multiprocessing.get_context("spawn")
    print(
        f"{args.hands} seeded hands, kernel {args.kernel}, cap {args.cap:g} s a solve, "
        f"baseline on the first {args.baseline_hands}; times in ms for all 8 targets"
    )
    header = (
        f"{'abilities':16} {'median':>10} {'p95':>10} {'capped':>7} {'mem':>4} {'states med':>11} "
        f"{'peak MB':>8} {'naive med':>11} {'speed-up':>9} {'product med':>12} {'prod mem':>9} "
        f"{'product/kernel':>15} {'of medians':>11}"
    )
    print(header)
    for name in names:
        with context.Pool(1) as pool:
            result = pool.apply(
                run_set, (name, args.hands, args.baseline_hands, args.cap, args.kernel)
            )
        median, p95 = summarise(result["times"], args.cap)
        capped = sum(t is None for t in result["times"])
        naive_median, _ = summarise(result["naive"], args.cap)
        if result["paired"]:
            ratio = statistics.median(n / s for n, s in result["paired"])
            speedup = f"{ratio:,.1f}x"
        else:
            speedup = "n/a"
        states = statistics.median(result["states"])
        product_median, _ = summarise(result["products"], args.cap)
        ratio = f"{statistics.median(result['ratios']):.2f}x" if result["ratios"] else "n/a"
        kernel_s = [t if t is not None else args.cap for t in result["times"]]
        product_s = [t if t is not None else args.cap for t in result["products"]]
        of_medians = (
            f"{statistics.median(product_s) / statistics.median(kernel_s):.2f}x"
            if product_s
            else "n/a"
        )
        memory = result["over_memory"]
        print(
            f"{name:16} {median:>10} {p95:>10} {capped:>7} {memory['kernel']:>4} {states:>11,.0f} "
            f"{result['peak_mb']:>8,.0f} {naive_median:>11} {speedup:>9} {product_median:>12} "
            f"{memory['product']:>9} {ratio:>15} {of_medians:>11}",
            flush=True,
        )


if __name__ == "__main__":
    main()
