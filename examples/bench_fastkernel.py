"""Benchmark the compiled kernel (search.visit.kernel) against the reference kernel.

Not a test: it prints a table and never fails on timing. Hands: for i < 20,
``Stream(99, "hand", i).shuffle(CARDS)[:8]`` with trump ``Stream(99, "trump", i).below(4)``,
the rest of the deck unseen. For each ability set it reports median and p95 (nearest
rank) of seconds, memo states and child lookups per hand with a fresh solver, the
reference's seconds where it is feasible (and the median of per-hand speed-ups), and
the peak resident memory. Each ability set runs in its own process so that the peak
(``ru_maxrss``) is its own; every hand has a time cap.

    python examples/bench_fastkernel.py [--cap SECONDS] [--hands N] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

from search.game.cards import CARDS, FULL_MASK
from search.game.deal import Stream
from search.visit.kernel import FastKingdomSolver
from search.visit.reference import KingdomSolver, TimeLimitExceeded

POOL = (0, 1, 1, 2, 2, 3, 3)
# name: (ability counts ♣ ♦ ♥ ♠, whether the Python reference is timed too)
CONFIGS = {
    "none": ((0, 0, 0, 0), True),
    "H": ((0, 0, 1, 0), True),
    "S": ((0, 0, 0, 1), True),
    "C": ((1, 0, 0, 0), False),
    "D": ((0, 1, 0, 0), False),
    "CDHS": ((1, 1, 1, 1), False),
}


def hand_state(index: int, counts: tuple) -> tuple:
    hand = sum(card.bit for card in Stream(99, "hand", index).shuffle(CARDS)[:8])
    trump = Stream(99, "trump", index).below(4)
    pool = POOL if counts[3] else ()
    return hand, FULL_MASK & ~hand, 0, trump, counts, pool


def timed(solver, state: tuple, cap: float) -> tuple[float, bool]:
    solver.deadline = time.perf_counter() + cap
    started = time.perf_counter()
    try:
        solver.decide(*state)
    except TimeLimitExceeded:
        return time.perf_counter() - started, False
    return time.perf_counter() - started, True


def run_one(name: str, hands: int, cap: float) -> dict:
    """Every hand with one ability set, in this process."""
    counts, with_reference = CONFIGS[name]
    FastKingdomSolver(initial_bits=2).decide(*hand_state(0, (0, 0, 0, 0)))  # load, grow once
    rows = []
    for index in range(hands):
        state = hand_state(index, counts)
        solver = FastKingdomSolver()
        seconds, finished = timed(solver, state, cap)
        row = {
            "seconds": seconds,
            "finished": finished,
            "states": solver.state_count(),
            "lookups": solver.lookups,
        }
        if with_reference:
            reference = KingdomSolver()
            row["reference"], _ = timed(reference, state, cap)
        rows.append(row)
        del solver
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"name": name, "rows": rows, "peak_mb": peak}


def nearest_rank(values: list, q: float):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summary(result: dict) -> str:
    rows = result["rows"]
    done = [r for r in rows if r["finished"]]
    cells = [result["name"], f"{len(done)}/{len(rows)}"]
    if done:
        for key, fmt in (("seconds", "{:.3f}"), ("states", "{:,}"), ("lookups", "{:,}")):
            values = [r[key] for r in done]
            cells.append(
                fmt.format(nearest_rank(values, 0.5))
                + " / "
                + fmt.format(nearest_rank(values, 0.95))
            )
    else:
        reached = [r["states"] for r in rows]
        cells += [
            "-",
            f"(at cap: {nearest_rank(reached, 0.5):,} / {nearest_rank(reached, 0.95):,})",
            "-",
        ]
    if "reference" in rows[0]:
        values = [r["reference"] for r in rows]
        ratios = [r["reference"] / r["seconds"] for r in done]
        cells.append(f"{nearest_rank(values, 0.5):.3f} / {nearest_rank(values, 0.95):.3f}")
        cells.append(f"{nearest_rank(ratios, 0.5):.0f}x")
    else:
        cells += ["-", "-"]
    cells.append(f"{result['peak_mb']:.0f}")
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per hand")
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--only", choices=sorted(CONFIGS), action="append")
    parser.add_argument("--one", choices=sorted(CONFIGS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.hands, args.cap)))
        return
    print(
        "| abilities | finished | fast s (median / p95) | states | lookups | reference s | speed-up | peak MB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.only or CONFIGS:
        command = [
            sys.executable,
            __file__,
            "--one",
            name,
            "--hands",
            str(args.hands),
            "--cap",
            str(args.cap),
        ]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        print(summary(json.loads(output)), flush=True)


if __name__ == "__main__":
    main()
