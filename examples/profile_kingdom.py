"""Where the kingdom solver's states go: a breakdown of its memo by abilities left.

Solves one seeded hand of ``bench_kingdom.py`` (same seeds, same trump and pool) with
the compiled kernel until it finishes or passes ``--cap`` seconds, then counts the
memo's states by which abilities were still unused in them, and by whether any
drawing or swapping ability (Military, Commerce, Politics) was left, which decides
the key (see :mod:`search.visit.kernel`). Lookups per state is the kernel's cost per
state.

    python examples/profile_kingdom.py --set "Military (C)" --hand 7
    python examples/profile_kingdom.py --set "all four Jacks" --hand 0 --cap 30
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_kingdom import ABILITY_SETS, make_fast_solver, seeded_hands

from search.game.cards import FULL_MASK, CardSet
from search.visit.kernel import K0_MASK, PLAIN_FLAG
from search.visit.reference import TimeLimitExceeded

SUIT_LETTERS = "CDHS"


def ability_label(packed: int) -> str:
    """'C D' style list of the abilities left in a packed 4-bits-a-suit count."""
    parts = [
        f"{SUIT_LETTERS[s]}{'' if (packed >> 4 * s) & 15 == 1 else (packed >> 4 * s) & 15}"
        for s in range(4)
        if (packed >> 4 * s) & 15
    ]
    return " ".join(parts) or "none"


def breakdown(solver) -> tuple[Counter, int]:
    """States by abilities left, and how many used the plain (no-draw) key."""
    used = solver._table[solver._table[:, 0] != -1]
    k0 = used[:, 0] & K0_MASK
    abilities = (k0 >> 19) & 0xFFFF
    plain = int(((used[:, 1] & PLAIN_FLAG) != 0).sum())
    return Counter(int(a) for a in abilities), plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="Military (C)", choices=list(ABILITY_SETS))
    parser.add_argument("--hand", type=int, default=0, help="index of the seeded hand")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds before stopping")
    args = parser.parse_args()
    hand, trump, pool = seeded_hands(args.hand + 1)[args.hand]
    abilities = ABILITY_SETS[args.set]
    pool = pool if abilities[3] else ()
    make_fast_solver(None).decide(1, 2, 0, 0, abilities, (0,) if abilities[3] else ())
    solver = make_fast_solver(time.perf_counter() + args.cap)
    started = time.perf_counter()
    finished = True
    try:
        solver.decide(hand, FULL_MASK & ~hand, 0, trump, abilities, pool)
    except TimeLimitExceeded:
        finished = False
    seconds = time.perf_counter() - started
    states = solver.state_count()
    counts, plain = breakdown(solver)
    print(
        f"hand {CardSet(hand)}  trump {SUIT_LETTERS[trump]}  abilities {args.set}  "
        f"{'finished' if finished else 'stopped at the cap'} in {seconds:.2f} s"
    )
    print(
        f"states {states:,}  lookups {solver.lookups:,} ({solver.lookups / max(states, 1):.1f} a state)  "
        f"{1e9 * seconds / max(solver.lookups, 1):.0f} ns a lookup  "
        f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB"
    )
    print(
        f"plain-key states (no Military, Commerce or Politics left): {plain:,} ({plain / max(states, 1):.0%})"
    )
    print(f"{'abilities left':16} {'states':>12} {'share':>7}")
    for packed, count in counts.most_common():
        print(f"{ability_label(packed):16} {count:>12,} {count / max(states, 1):>7.1%}")


if __name__ == "__main__":
    main()
