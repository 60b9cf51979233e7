"""Tour value from the exhaustive sweep's table against the solver: same values, speed-up.

The no-ability planning table (every hand's chance at every trump and target) can be solved
hand by hand or looked up in a finished full no-ability sweep (search/sweep/lookup.py). This
script builds both for the same seeded hands, checks they agree, times them, and shows what
the cheap lookups buy: a table of many more hands and so a narrower interval on a tour value.

    emissary sweep --abilities none --out sweeps/none --workers 2   # once, about 30 s
    python examples/bench_planning.py --hands 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game.deal import Deal
from search.sweep.lookup import SweepLookup
from search.tours.planning import PlanningTable, TourPlanner

NO_JACKS = (0, 0, 0, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument(
        "--big", type=int, default=50_000, help="hands in the large looked-up table"
    )
    parser.add_argument("--sweep", default="sweeps/none")
    args = parser.parse_args()
    PlanningTable(hands=1, sets=(NO_JACKS,)).fill()  # load the compiled kernel outside the timings

    started = time.perf_counter()
    solved = PlanningTable(hands=args.hands, sets=(NO_JACKS,))
    solved.fill()
    solve_seconds = time.perf_counter() - started

    started = time.perf_counter()
    lookup = SweepLookup(Path(args.sweep))
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    looked_up = PlanningTable.from_sweep(lookup, hands=args.hands)
    lookup_seconds = time.perf_counter() - started

    gap = max(
        float(
            np.nanmax(
                np.abs(
                    solved.chances(t, frozenset())[:, 1:] - looked_up.chances(t, frozenset())[:, 1:]
                )
            )
        )
        for t in range(4)
    )
    print(f"{args.hands} hands x 4 trumps x 8 targets, no ability")
    print(f"  solved:    {solve_seconds:8.2f} s")
    print(f"  looked up: {lookup_seconds:8.3f} s  (+ {load_seconds:.1f} s to load the sweep once)")
    print(
        f"  speed-up:  {solve_seconds / lookup_seconds:8.0f}x  ({solve_seconds / (lookup_seconds + load_seconds):.1f}x with the load)"
    )
    print(f"  largest difference: {gap:.1e}")

    kingdoms = TourPlanner(solved).kingdoms_of(Deal(5).tour())
    for name, table in (("solved", solved), ("looked up", looked_up)):
        value = TourPlanner(table).value(kingdoms)
        print(
            f"  tour value of deal 5's layout, {name:9}: {value.value:.4f} (95% CI {value.low:.4f}-{value.high:.4f})"
        )
    started = time.perf_counter()
    big = PlanningTable.from_sweep(lookup, hands=args.big)
    value = TourPlanner(big).value(kingdoms)
    print(
        f"  from {args.big} looked-up hands ({time.perf_counter() - started:.1f} s): {value.value:.4f} "
        f"(95% CI {value.low:.4f}-{value.high:.4f})"
    )


if __name__ == "__main__":
    main()
