"""Every Jack at once: the lookahead policy, compiled and in Python, against its exact base.

On seeded first-visit hands (trump uniform, Politics pool = the 7 other rulers, every target
1..8) it solves the policy's restrictions as the product does (:data:`~search.visit.lookahead.
ROOT_RESTRICTIONS` but every Jack, which never finishes on a whole hand: ♦♥♠, ♣, ♦ where ♦♥♠
did not finish, ♣♥♠ where cheap; :func:`~search.visit.lookahead.solve_roots`, all within
``--cap`` seconds, timed), then for each target:

- plays ``--playouts`` playouts of the compiled lookahead policy (:mod:`search.visit.fastplay`),
  each beside its base (exact play of the best solved restriction) on the same deck order, and
  times them: the policy's playouts per second on one core (the base's playouts are timed too,
  and reported apart);
- plays the same playouts with the baseline policy, the lookahead policy with only the
  restrictions it had before ♣♥♠ (♦♥♠ and ♣: ``BASELINE_ROOTS``), on a scratch memo of its
  own, and times them: the ratio of the two rates, and the paired difference of their success
  rates, measured in this run;
- on the first ``--python-hands`` hands, plays ``--python-playouts`` of them again with the
  Python policy (:mod:`search.visit.lookahead`) on the same deck orders, and times those too.

It prints per hand the solve time, both rates and the policy's work a playout (kernel lookups
in the roots' memo and the scratch memo, and new states the scratch memo kept: solves of
positions no root reached); at the end the median rates over the hands
(and their ratio, measured in this run), how many Python playouts ended with the same wins as
the compiled ones, the paired difference of their success rates with a 95% interval, and the
policy's mean gain over its exact base (a paired estimate, :func:`~search.visit.lookahead.
paired_estimate`).

Usage::

    python examples/bench_jacks.py                        # 20 hands, 200 playouts a target
    python examples/bench_jacks.py --hands 10 --python-hands 10 --python-playouts 25
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from search.game import FULL_MASK, Stream
from search.infra.budget import set_memory_limit
from search.visit import make_solver, scratch_of, warm_up
from search.visit.fastplay import MirroredPolicy, SplitMixStream, compiled_playouts, playout_seed
from search.visit.lookahead import (
    ROOT_RESTRICTIONS,
    LookaheadPolicy,
    paired_difference,
    paired_estimate,
    play_lookahead,
    solve_roots,
)

RULER_SUITS = (0, 0, 1, 1, 2, 2, 3, 3)  # a King and a Queen of each suit
ROOTS = tuple(r for r in ROOT_RESTRICTIONS if len(r) < 4)  # every Jack never finishes here
BASELINE_ROOTS = ((1, 2, 3), (0,), (1,))  # before ♣♥♠ (suits: 0 ♣, 1 ♦, 2 ♥, 3 ♠)
ALL = (1, 1, 1, 1)


def first_visit(index: int) -> tuple:
    """Seeded hand ``index`` as a solver state with every Jack."""
    stream = Stream(2026, "bench-jacks", index)
    hand = 0
    for card in stream.shuffle(list(range(32)))[:8]:
        hand |= 1 << card
    trump = stream.shuffle([0, 1, 2, 3])[0]
    pool = list(RULER_SUITS)
    pool.remove(trump)
    return (hand, FULL_MASK & ~hand, 0, trump, ALL, tuple(sorted(pool)))


def bench_hand(index: int, args) -> dict:
    """One hand's solve, compiled playouts and (perhaps) Python playouts. The Python policy
    plays on a solver of its own (its restrictions solved again, untimed), so that neither
    run finds states the other memoised; its rate is compared with the compiled policy's
    over the same first playouts of each target."""
    state = first_visit(index)
    solver = make_solver()
    started = time.perf_counter()
    roots = solve_roots(solver, state, None, started + args.cap, ROOTS)
    solved = time.perf_counter() - started
    scratch = scratch_of(solver)
    timed_python = index - args.start < args.python_hands
    if timed_python:
        python_solver = make_solver()
        python_roots = solve_roots(python_solver, state, None, None, roots)
        python_scratch = scratch_of(python_solver)
    work = [0, 0, 0]  # the policy's playouts' lookups in the roots' memo and the scratch memo,
    # and the states the scratch memo gained (it is emptied only at the memory cap)
    policy_seconds = base_seconds = head_seconds = python_seconds = 0.0
    gains, same, pairs = [], 0, ([], [])
    old_roots = [r for r in roots if r in BASELINE_ROOTS]
    old_scratch = type(solver)()  # the baseline's own: it finds none of the policy's states
    old_seconds, old_pairs = 0.0, ([], [])
    python_count = 0
    head = min(args.python_playouts, args.playouts) if timed_python else 0
    for target in range(1, 9):
        policy = LookaheadPolicy(solver, roots, seed=index, scratch=scratch)
        suits, base_value = policy.base(state, target)
        base = LookaheadPolicy(solver, [suits], seed=index, scratch=scratch, fixed=True)
        before = (solver.lookups, scratch.lookups, scratch.state_count())
        started = time.perf_counter()
        wins, _ = (
            compiled_playouts(policy, None, state, target, index, 0, head) if head else ([], [])
        )
        head_seconds += time.perf_counter() - started
        rest, _ = compiled_playouts(policy, None, state, target, index, head, args.playouts - head)
        wins += rest
        policy_seconds += time.perf_counter() - started
        after = (solver.lookups, scratch.lookups, scratch.state_count())
        work = [w + a - b for w, a, b in zip(work, after, before)]
        old = LookaheadPolicy(solver, old_roots, seed=index, scratch=old_scratch)
        started = time.perf_counter()
        old_wins, _ = compiled_playouts(old, None, state, target, index, 0, args.playouts)
        old_seconds += time.perf_counter() - started
        old_pairs[0].extend(w == target for w in wins)
        old_pairs[1].extend(w == target for w in old_wins)
        started = time.perf_counter()
        _, base_wins = compiled_playouts(
            LookaheadPolicy(solver, [suits], seed=index, scratch=scratch, fixed=True),
            base,
            state,
            target,
            index,
            0,
            args.playouts,
        )
        base_seconds += time.perf_counter() - started
        value, _ = paired_estimate(
            base_value, [(w == target, b == target) for w, b in zip(wins, base_wins)]
        )
        gains.append(value - base_value)
        if timed_python:
            mirrored = MirroredPolicy(
                python_solver, python_roots, seed=index, scratch=python_scratch
            )
            mirrored.tidy()  # as lookahead_playouts does between batches
            started = time.perf_counter()
            for i in range(head):
                won = play_lookahead(
                    mirrored, state, target, SplitMixStream(playout_seed(index, i))
                )
                same += won == wins[i]
                pairs[0].append(won == target)
                pairs[1].append(wins[i] == target)
            python_seconds += time.perf_counter() - started
            python_count += head
    return {
        "work": [round(x / (8 * args.playouts)) for x in work],
        "solve": solved,
        "roots": roots,
        "rate": 8 * args.playouts / policy_seconds,
        "base_rate": 8 * args.playouts / base_seconds,
        "old_rate": 8 * args.playouts / old_seconds,
        "old_pairs": old_pairs,
        "gains": gains,
        "same": same,
        "pairs": pairs,
        "python_rate": python_count / python_seconds if python_count else None,
        "head_rate": python_count / head_seconds if python_count else None,
        "python_count": python_count,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--start", type=int, default=0, help="first hand index")
    parser.add_argument("--playouts", type=int, default=200, help="compiled playouts a target")
    parser.add_argument("--python-hands", type=int, default=2, help="hands also played in Python")
    parser.add_argument("--python-playouts", type=int, default=10, help="Python playouts a target")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds for the restrictions")
    parser.add_argument(
        "--memory",
        type=float,
        default=6.0,
        help="GiB all memos may hold (two solvers a hand when timing Python)",
    )
    args = parser.parse_args()
    set_memory_limit(int(args.memory * (1 << 30)))
    warm_up()  # load the kernel, playouts included, outside the timings
    rates, base_rates, python_rates, head_rates, gains = [], [], [], [], []
    old_rates, old_pairs = [], ([], [])
    same = count = 0
    python_pairs: tuple[list, list] = ([], [])
    for index in range(args.start, args.start + args.hands):
        result = bench_hand(index, args)
        rates.append(result["rate"])
        base_rates.append(result["base_rate"])
        old_rates.append(result["old_rate"])
        old_pairs[0].extend(result["old_pairs"][0])
        old_pairs[1].extend(result["old_pairs"][1])
        gains.extend(result["gains"])
        line = (
            f"hand {index:3d}: roots {','.join(''.join('CDHS'[s] for s in r) for r in result['roots']):8} "
            f"solve {result['solve']:6.2f} s, compiled {result['rate']:8.0f} playouts/s "
            f"(baseline {result['old_rate']:7.0f}/s) "
            f"(base alone {result['base_rate']:8.0f}/s); a playout: lookups {result['work'][0]} "
            f"roots' memo, {result['work'][1]} scratch, {result['work'][2]} new states"
        )
        if result["python_rate"]:
            python_rates.append(result["python_rate"])
            head_rates.append(result["head_rate"])
            same += result["same"]
            count += result["python_count"]
            python_pairs[0].extend(result["pairs"][0])
            python_pairs[1].extend(result["pairs"][1])
            line += (
                f"; first {args.python_playouts} a target: compiled {result['head_rate']:6.1f}/s, "
                f"Python {result['python_rate']:6.1f}/s"
            )
        print(line, flush=True)
    print()
    print(f"{args.hands} hands x 8 targets, {args.playouts} compiled playouts a target")
    print(
        f"compiled lookahead policy: median {statistics.median(rates):.0f} playouts/s on one core "
        f"(min {min(rates):.0f}, max {max(rates):.0f}); baseline (♦♥♠ and ♣ only) median "
        f"{statistics.median(old_rates):.0f}/s; per hand, policy/baseline: median "
        f"{statistics.median(r / o for r, o in zip(rates, old_rates)):.2f}x"
    )
    difference, (low, high) = paired_difference(*old_pairs)
    print(
        f"success rate, policy - baseline, same deck orders: {100 * difference:+.2f} pp (95% CI "
        f"{100 * low:+.2f} to {100 * high:+.2f}) over {len(old_pairs[0])} playouts"
    )
    if python_rates:
        ratio = statistics.median(head_rates) / statistics.median(python_rates)
        difference, (low, high) = paired_difference(*python_pairs)
        print(
            f"first {args.python_playouts} playouts a target on {len(python_rates)} hands, each "
            f"from cold memos: compiled median {statistics.median(head_rates):.1f}/s, Python "
            f"{statistics.median(python_rates):.1f}/s; compiled/Python {ratio:.2f}x"
        )
        print(
            f"same deck orders: {same} of {count} playouts ended with the same wins; success "
            f"rate Python - compiled {100 * difference:+.2f} pp (95% CI {100 * low:+.2f} to "
            f"{100 * high:+.2f})"
        )
    print(
        f"gain of the policy over its exact base: mean {100 * statistics.fmean(gains):+.2f} pp over "
        f"{len(gains)} targets",
        flush=True,
    )


if __name__ == "__main__":
    main()
