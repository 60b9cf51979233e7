"""What kind of number `advise` shows at its default budget (issue 37, item 4).

For the seeded first-visit deals (``emissary deal --seed 1..50``) it runs ``emissary advise
--json`` as a player would (one process a deal, one at a time, the default time limit) and
counts, over every kingdom of every deal:

- the single-Jack cells (♥, ♣, ♠, ♦) that are exact, bounds or estimates;
- the all-Jacks cells that are exact, estimated by the every-Jack (lookahead) play, estimated by
  a fallback policy, or a subset's bound;
- all-Jacks cells below the best exact cell of their row (there should be none);
- all-Jacks estimates whose 95% interval is wider than 8 points;
- the all-Jacks cells' mean, and how many stand above every single-Jack cell of their row (a
  bound from two or three Jacks, or better).

It prints the counts beside the issue's bars, and the wall time of each command (median, max).

Usage::

    .venv/bin/python examples/table_counts.py                # deals 1-50, the default 3 s
    .venv/bin/python examples/table_counts.py --deals 1-10 --time-limit 5
    .venv/bin/python examples/table_counts.py --deals 11-12 --per-deal   # each deal's counts too
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

EMISSARY = str(Path(sys.executable).with_name("emissary"))
SINGLE = ("H", "C", "S", "D")
WIDE = 0.08  # the widest all-Jacks interval the issue allows


def advise(seed: int, limit: float | None) -> tuple[dict, float]:
    """``emissary advise --json`` on deal ``seed``'s first hand, and its wall seconds."""
    deal = json.loads(_run([EMISSARY, "deal", "--seed", str(seed), "--json"]))
    args = [EMISSARY, "advise", " ".join(deal["hand"]), "--rulers", " ".join(deal["rulers"])]
    args += ["--json"] + ([] if limit is None else ["--time-limit", str(limit)])
    started = time.perf_counter()
    out = _run(args)
    return json.loads(out), time.perf_counter() - started


def _run(args: list[str]) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def jacks_kind(kingdom: dict) -> str:
    """The all-Jacks cell's kind, an estimate named by the policy its interval describes."""
    kind = kingdom["kind"]["jacks"]
    if kind != "estimate":
        return kind
    of = kingdom["estimates"]["jacks"]["ci_of"]
    return "estimate (every-Jack play)" if of.startswith("the lookahead") else "estimate (fallback)"


def count(advices: list[dict]) -> tuple[Counter, Counter, int, int, int, list[float], int]:
    """Single-Jack kinds, all-Jacks kinds, all-Jacks cells below their row's best exact cell,
    all-Jacks estimates wider than :data:`WIDE`, the all-Jacks estimates, the all-Jacks cells'
    values, and how many of them stand above every single-Jack cell of their row."""
    single, jacks = Counter(), Counter()
    below = wide = estimates = above = 0
    values = []
    for advice in advices:
        for kingdom in advice["kingdoms"]:
            single.update(kingdom["kind"][c] for c in SINGLE)
            single.update(f"{c} {kingdom['kind'][c]}" for c in SINGLE)
            jacks[jacks_kind(kingdom)] += 1
            exact = [
                kingdom["chance"][c]
                for c in kingdom["kind"]
                if c not in ("jacks", "all") and kingdom["kind"][c] == "exact"
            ]
            if exact and kingdom["chance"]["jacks"] < max(exact) - 1e-12:
                below += 1
            values.append(kingdom["chance"]["jacks"])
            singles = max(kingdom["chance"][c] for c in ("none", *SINGLE))
            above += kingdom["chance"]["jacks"] > singles + 1e-12
            if kingdom["kind"]["jacks"] == "estimate":
                estimates += 1
                low, high = kingdom["estimates"]["jacks"]["ci"]
                wide += high - low > WIDE
    return single, jacks, below, wide, estimates, values, above


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f}%)" if whole else "0 of 0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-50", help="seeds, e.g. 1-50")
    parser.add_argument("--time-limit", type=float, default=None, help="default: advise's own")
    parser.add_argument(
        "--per-deal", action="store_true", help="also each deal's exact cells by column, and wall"
    )
    args = parser.parse_args()
    runs = [advise(seed, args.time_limit) for seed in _seeds(args.deals)]
    if args.per_deal:
        for seed, (advice, wall) in zip(_seeds(args.deals), runs):
            exact = {c: sum(k["kind"][c] == "exact" for k in advice["kingdoms"]) for c in SINGLE}
            print(f"deal {seed}: exact {exact}, wall {wall:.2f} s")
    advices, walls = [a for a, _ in runs], [w for _, w in runs]
    single, jacks, below, wide, estimates, values, above = count(advices)
    cells = sum(single[kind] for kind in ("exact", "bound", "estimate"))
    rows = sum(jacks.values())
    print(f"{len(advices)} deals, {rows} kingdoms; advise at {args.time_limit or 'its default'}")
    print(f"wall per command: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s")
    print(f"single-Jack cells exact: {_share(single['exact'], cells)}  (bar: >= 90%)")
    for column in SINGLE:
        kinds = {k: single[f"{column} {k}"] for k in ("exact", "bound", "estimate")}
        print(f"  {column}: {kinds}")
    shown = jacks["exact"] + jacks["estimate (every-Jack play)"]
    print(
        f"all-Jacks cells exact or every-Jack estimates: {_share(shown, rows)}  (bar: >= 90%)  "
        f"{dict(jacks)}"
    )
    print(f"all-Jacks cells below their row's best exact cell: {below}  (bar: 0)")
    print(f"all-Jacks estimates wider than 8 points: {wide} of {estimates}  (bar: 0)")
    print(
        f"all-Jacks cells: mean {100 * statistics.mean(values):.2f}%; "
        f"above every single-Jack cell of their row: {_share(above, rows)}"
    )


if __name__ == "__main__":
    main()
