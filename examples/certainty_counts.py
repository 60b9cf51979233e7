"""How many all-Jacks cells the certainty search settles (issue 37, item 3).

For the 50 seeded first-visit deals (``emissary deal --seed 1..50``: the ruler layout and the
first 8 cards), every kingdom's ``jacks`` cell (all four Jacks) and ``all`` cell (every Jack and
the unused supporters; none on a first visit, so the same position, answered from the memo)
is asked of :func:`search.visit.certainty` within ``--work`` lookups and ``--seconds`` each,
one search (one memo) per deal. It prints how many cells are sure (exactly 100%), impossible
(exactly 0%), open (strictly between) or unknown (cut), and the lookups and seconds a cell took
(median, 95th percentile, max).

Usage::

    python examples/certainty_counts.py                 # 50 deals, 2,000,000 lookups a cell
    python examples/certainty_counts.py --deals 10 --work 20000000
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from search.game import Deal, Suit, TourConfig
from search.visit import (
    IMPOSSIBLE,
    OPEN,
    SURE,
    UNKNOWN,
    CertaintySearch,
    certainty,
    make_position,
    warm_up,
)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--work", type=int, default=2_000_000, help="lookups a cell")
    parser.add_argument("--seconds", type=float, default=2.0, help="the clock's backstop a cell")
    args = parser.parse_args()
    warm_up()
    counts: dict[str, Counter] = {"jacks": Counter(), "all": Counter()}
    lookups: dict[str, list] = {"jacks": [], "all": []}
    seconds: dict[str, list] = {"jacks": [], "all": []}
    for seed in range(1, args.deals + 1):
        deal = Deal(seed, TourConfig())
        layout, hand = deal.layout(), deal.hand(1)
        search = CertaintySearch()
        for place, ruler in enumerate(layout, 1):
            pool = [r.suit for i, r in enumerate(layout, 1) if i != place]
            for column in ("jacks", "all"):
                supporters = ()  # "all" adds the unused supporters: none before the first visit
                position = make_position(
                    hand, ruler.suit, place, jacks=tuple(Suit), supporters=supporters, pool=pool
                )
                result = certainty(
                    position,
                    work=args.work,
                    deadline=time.perf_counter() + args.seconds,
                    search=search,
                )
                counts[column][result.verdict] += 1
                lookups[column].append(result.lookups)
                seconds[column].append(result.seconds)
    cells = args.deals * 8
    print(f"{args.deals} first-visit deals, {cells} cells a column, {args.work:,} lookups a cell")
    for column in ("jacks", "all"):
        c = counts[column]
        print(
            f"{column:>5}: sure {c[SURE]}, impossible {c[IMPOSSIBLE]}, open {c[OPEN]}, "
            f"unknown {c[UNKNOWN]}; decided {c[SURE] + c[IMPOSSIBLE]} of {cells}, "
            f"settled (not unknown) {cells - c[UNKNOWN]} of {cells}"
        )
        for name, values, unit in (
            ("lookups", lookups[column], "{:,.0f}"),
            ("seconds", seconds[column], "{:.3f}"),
        ):
            print(
                f"       {name}: median "
                + unit.format(statistics.median(values))
                + ", p95 "
                + unit.format(percentile(values, 0.95))
                + ", max "
                + unit.format(max(values))
            )


if __name__ == "__main__":
    main()
