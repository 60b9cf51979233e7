"""One memo for a column's four trumps in advise's exact solves (issue 37, 2b), against one each.

For the seeded first-visit deals it builds advise's table (:func:`search.tours.advise_visit`)
twice in one process, with :data:`search.tours.exact_cells.ONE_MEMO_PER_COLUMN` off, then on:
with the work of the default 3 s table and the clock's backstop far off, so the work alone
decides what is exact (the same on any machine). It prints per deal the exact cells each way
and the seconds each table took, then the totals. Values must agree wherever both are exact.

    .venv/bin/python examples/bench_column_memo.py --deals 1-10
"""

from __future__ import annotations

import argparse
import time

from search.game import Deal, TourConfig
from search.tours import advise_visit, exact_cells
from search.visit import Budget, Search, budget

SECONDS = 3.0  # the table's default time limit: its work is what is compared
BACKSTOP = 600.0  # the clock's backstop, far off


def table(seed: int, shared: bool) -> tuple[dict, float]:
    """Deal ``seed``'s first table: {(position, column): (kind, value)}, and its seconds."""
    exact_cells.ONE_MEMO_PER_COLUMN = shared
    deal = Deal(seed, TourConfig())
    started = time.perf_counter()
    advice = advise_visit(deal.tour(), deal.hand(1), budget=Budget(BACKSTOP, Search.TABLE))
    seconds = time.perf_counter() - started
    cells = {
        (k.position, column): (chance.kind, chance.value)
        for k in advice.kingdoms
        for column, chance in zip(("none", "H", "C", "S", "D", "jacks", "all"), k.chances)
    }
    return cells, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-10", help="seeds, e.g. 1-10")
    args = parser.parse_args()
    first, _, last = args.deals.partition("-")
    # the work of a 3 s table, the clock 600 s away (as tests/conftest.py's fixed_work)
    scale = SECONDS / BACKSTOP
    budget.LOOKUPS_PER_SECOND *= scale
    from search.visit import estimate

    estimate.LOOKUPS_PER_SECOND *= scale
    estimate.PLAYOUTS_PER_SECOND *= scale
    totals = {False: [0, 0.0], True: [0, 0.0]}
    print("deal  exact cells: one memo a trump -> one a column   seconds: before -> after")
    for seed in range(int(first), int(last or first) + 1):
        runs = {shared: table(seed, shared) for shared in (False, True)}
        (old, old_s), (new, new_s) = runs[False], runs[True]
        for cell in old:
            if old[cell][0] == new[cell][0] == "exact":
                assert abs(old[cell][1] - new[cell][1]) < 1e-12, (seed, cell)
        exact = {s: sum(kind == "exact" for kind, _ in runs[s][0].values()) for s in runs}
        for shared in runs:
            totals[shared][0] += exact[shared]
            totals[shared][1] += runs[shared][1]
        print(
            f"{seed:>4}  {exact[False]:>3} -> {exact[True]:>3} of {len(old)}"
            f"   {old_s:6.2f} -> {new_s:6.2f}"
        )
    print(
        f"total exact cells {totals[False][0]} -> {totals[True][0]}; "
        f"seconds {totals[False][1]:.1f} -> {totals[True][1]:.1f}"
    )


if __name__ == "__main__":
    main()
