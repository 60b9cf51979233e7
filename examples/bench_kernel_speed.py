"""The compiled kernel against an earlier commit's kernel, in the same run, hand by hand.

For each ability set (by default ♦ Commerce and ♣ Military) and each of ``--hands`` seeded
first-visit hands of ``bench_kingdom.py`` (same seeds, trump and pool), a fresh solver of each
kernel computes the root's value vector (every target at once, ``decide``), and the two
vectors must agree to 1e-12. Printed per set: each kernel's median time, the median of the
per-hand speed ratios (old / new: the same hand's cost, paired), the ratio of the medians, the
largest difference of values, and the median states and lookups of each.

The old kernel is the ``search`` package of ``--baseline`` (a git revision; by default the
commit before the leaner kernel), exported with ``git archive`` into a folder of the temp
folder and imported from there by its own worker process; numba caches its compiled kernel
in that folder, so only the first run compiles it (60-90 s). Exported rather than frozen under
``examples/``: the old kernel needs its whole package as it was (``reference``,
``suitpatterns``, ``infra``), which a copy would duplicate, while git holds it already and
names it exactly. The two workers run one solve at a time, the old one first on even hands
and second on odd ones, so that both see the same machine.

A hand whose solve passes ``--cap`` seconds in either kernel is left out of the ratios and
counted as capped.

    python examples/bench_kernel_speed.py --hands 100
    python examples/bench_kernel_speed.py --hands 20 --sets "Commerce (D)" --baseline main
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BASELINE = "45af434a45c903f76f78f1ef35391cbb4f5b09ba"  # main before the leaner kernel
TOLERANCE = 1e-12
DEFAULT_SETS = "Commerce (D),Military (C)"


def export(revision: str) -> Path:
    """The ``search`` package of ``revision`` in a folder of its own (made once)."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", f"{revision}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    folder = Path(tempfile.gettempdir()) / f"emissary-kernel-{commit[:12]}"
    if not (folder / "search" / "visit" / "kernel.py").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "search"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def start_worker(folder: str) -> None:
    """A worker's ``search`` comes from ``folder`` (checked: not the one beside this file)."""
    sys.path.insert(0, folder)
    import search

    assert Path(search.__file__).resolve().is_relative_to(Path(folder).resolve()), search.__file__


def solve(hand, trump, pool, abilities, cap):
    """(seconds or None past the cap, value vector, states, lookups) of one fresh solve."""
    from search.game.cards import FULL_MASK
    from search.infra import BudgetExceeded
    from search.visit.kernel import FastKingdomSolver

    solver = FastKingdomSolver()
    solver.deadline = time.perf_counter() + cap  # either kernel reads it; a benchmark's cap
    started = time.perf_counter()
    try:
        value = solver.decide(hand, FULL_MASK & ~hand, 0, trump, abilities, pool)
    except BudgetExceeded:
        return None, None, solver.state_count(), solver.lookups
    return time.perf_counter() - started, value, solver.state_count(), solver.lookups


def run_set(name: str, hands: int, cap: float, workers: dict) -> None:
    """Solve one ability set's hands with both kernels; print its line."""
    from bench_kingdom import ABILITY_SETS, seeded_hands

    abilities = ABILITY_SETS[name]
    deals = [(h, t, p if abilities[3] else ()) for h, t, p in seeded_hands(hands)]
    for worker in workers.values():  # load the kernel and read the clock once, untimed
        worker.apply(solve, (*deals[0], abilities, cap))
    results = {"old": [], "new": []}
    for index, deal in enumerate(deals):
        order = ("old", "new") if index % 2 == 0 else ("new", "old")
        for which in order:
            results[which].append(workers[which].apply(solve, (*deal, abilities, cap)))
    both = [
        (old, new)
        for old, new in zip(results["old"], results["new"])
        if old[0] is not None and new[0] is not None
    ]
    capped = len(deals) - len(both)
    worst = max((max(abs(a - b) for a, b in zip(old[1], new[1])) for old, new in both), default=0.0)
    ratios = [old[0] / new[0] for old, new in both]
    old_median = statistics.median(old[0] for old, _ in both)
    new_median = statistics.median(new[0] for _, new in both)
    print(
        f"{name:16} {len(both):>5} {capped:>6} {1000 * old_median:>10,.1f} "
        f"{1000 * new_median:>10,.1f} {statistics.median(ratios):>9.2f}x "
        f"{min(ratios):>6.2f}x {old_median / new_median:>9.2f}x {worst:>10.1e} "
        f"{'yes' if worst <= TOLERANCE else 'NO':>5} "
        f"{statistics.median(o[2] for o, _ in both):>11,.0f} "
        f"{statistics.median(o[3] for o, _ in both):>12,.0f} "
        f"{statistics.median(n[3] for _, n in both):>12,.0f}",
        flush=True,
    )


def main() -> None:
    # only here: a worker imports this module too, and must import ``search`` from its folder
    sys.path[:0] = [str(ROOT), str(ROOT / "examples")]
    from bench_kingdom import set_names

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--sets", default=DEFAULT_SETS, help="comma-separated names")
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the old kernel")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per solve")
    args = parser.parse_args()
    names = set_names(args.sets)
    old_folder = export(args.baseline)
    context = multiprocessing.get_context("spawn")
    workers = {
        "old": context.Pool(1, initializer=start_worker, initargs=(str(old_folder),)),
        "new": context.Pool(1, initializer=start_worker, initargs=(str(ROOT),)),
    }
    print(
        f"{args.hands} seeded hands; old kernel {args.baseline[:12]} (from {old_folder}), "
        f"new kernel {ROOT}; cap {args.cap:g} s a solve; times in ms for all 8 targets"
    )
    print(
        f"{'abilities':16} {'hands':>5} {'capped':>6} {'old med':>10} {'new med':>10} "
        f"{'speed-up':>10} {'min':>7} {'of medians':>10} {'max diff':>10} {'equal':>5} "
        f"{'states med':>11} {'old lookups':>12} {'new lookups':>12}"
    )
    try:
        for name in names:
            run_set(name, args.hands, args.cap, workers)
    finally:
        for worker in workers.values():
            worker.terminate()


if __name__ == "__main__":
    main()
