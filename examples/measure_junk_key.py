"""Measure one idea of issue 14 before building it: a stronger key for the post-draw subgames.

Once no ability is left, a non-trump suit whose cards are all in the hand (none in the deck or
discards) is junk: it is never led, so its cards are played only on a suit the hand lacks, and
they all lose there. Junk of two suits is then interchangeable, and a key could count it across
suits. This solves seeded bench hands (those of ``bench_kingdom.py``) with one drawing Jack,
reads the compiled memo's plain keys back (signature ids of the three non-trump suits, see
:mod:`search.visit.kernel`) and counts how many states such a key would merge.

    python examples/measure_junk_key.py --jack C --hands 0,1,4,7
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_kingdom import make_fast_solver, seeded_hands

from search.game.cards import FULL_MASK
from search.visit.kernel import K0_MASK, PLAIN_FLAG

OFFSETS = np.cumsum([0] + [3**k for k in range(9)])  # the first id of each signature length
ID_BITS = (1 << 14) - 1
JACKS = {"C": (1, 0, 0, 0), "D": (0, 1, 0, 0)}


def junk_length(signature: int) -> int:
    """The number of cards of a suit held whole in the hand (its signature is all hand), else 0."""
    for length in range(1, 9):
        if signature == OFFSETS[length]:
            return length
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jack", choices=sorted(JACKS), default="C")
    parser.add_argument("--hands", default="0,1,4,7", help="bench hand indices, comma-separated")
    args = parser.parse_args()
    for index in (int(i) for i in args.hands.split(",")):
        hand, trump, _ = seeded_hands(index + 1)[index]
        solver = make_fast_solver(time.perf_counter() + 120)
        solver.decide(hand, FULL_MASK & ~hand, 0, trump, JACKS[args.jack], ())
        table = solver._table  # the compiled memo's slots: (k0 | row << 35, k1)
        used = table[:, 0] != -1
        plain = (table[used, 1] & PLAIN_FLAG) != 0
        merged, junk_suits = set(), [0, 0, 0]
        for k0, k1 in zip(
            (table[used, 0] & K0_MASK)[plain].tolist(), table[used, 1][plain].tolist()
        ):
            ids = [(k1 >> shift) & ID_BITS for shift in (0, 14, 28)]
            lengths = [junk_length(i) if i else 0 for i in ids]
            junk_suits[min(2, sum(1 for n in lengths if n))] += 1
            kept = tuple(sorted(i for i, n in zip(ids, lengths) if not n))
            merged.add((k0, kept, sum(lengths), k1 >> 42))
        total = int(plain.sum())
        print(
            f"{args.jack} hand {index}: {solver.state_count():,} states, {total:,} plain; "
            f"with junk counted across suits {len(merged):,} ({100 * (1 - len(merged) / total):.2f}% "
            f"fewer); plain states with 0, 1, 2+ junk suits: {junk_suits}"
        )


if __name__ == "__main__":
    main()
