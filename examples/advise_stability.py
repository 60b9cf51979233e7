"""Does `advise` at its default budget name a kingdom that a long budget would not, unannounced?

Issue 38: where the recommendation at the default 3 s differs from `--time-limit 60`, the table
must say the kingdoms are too close to call. For each seeded first-visit deal this runs
`emissary advise --json` once at the default (one at a time, so it has the machine to itself)
and once at the long limit (``--jobs`` at a time), and prints per deal the two recommendations
and the default table's "too close to call" kingdoms; then the counts. A flip is *announced*
when the long budget's kingdom is among the default's too-close kingdoms.

    .venv/bin/python examples/advise_stability.py                 # README deals: 5, short 8
    .venv/bin/python examples/advise_stability.py --seeds 1-20 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

EMISSARY = str(Path(sys.executable).with_name("emissary"))


def _deal(seed: int, short: bool) -> tuple[list[str], list[str]]:
    args = [EMISSARY, "deal", "--seed", str(seed), "--json"] + (["--short"] if short else [])
    deal = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    return deal["rulers"], deal["hand"]


def _advise(rulers: list[str], hand: list[str], short: bool, limit: float | None) -> dict:
    args = [EMISSARY, "advise", " ".join(hand), "--rulers", " ".join(rulers), "--json"]
    args += (["--short"] if short else []) + ([] if limit is None else ["--time-limit", str(limit)])
    started = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    advice = json.loads(out)
    advice["wall"] = time.perf_counter() - started
    return advice


def _deals(text: str) -> list[tuple[int, bool]]:
    """'5,s8' or '1-20': seeds, an 's' before a seed for the short tour."""
    deals = []
    for part in text.split(","):
        short = part.startswith("s")
        part = part.removeprefix("s")
        first, _, last = part.partition("-")
        deals += [(seed, short) for seed in range(int(first), int(last or first) + 1)]
    return deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="5,s8", help="deals, e.g. 5,s8 or 1-20 (s = short)")
    parser.add_argument("--long", type=float, default=60.0, help="the long budget, seconds")
    parser.add_argument("--jobs", type=int, default=2, help="long runs at a time")
    args = parser.parse_args()
    deals = [(seed, short, *_deal(seed, short)) for seed, short in _deals(args.seeds)]
    default = [_advise(rulers, hand, short, None) for _, short, rulers, hand in deals]
    with ThreadPoolExecutor(args.jobs) as pool:
        long = list(pool.map(lambda d: _advise(d[2], d[3], d[1], args.long), deals))
    same = announced = unannounced = 0
    print(f"deal        default (wall)   too close   {args.long:g} s (wall)   verdict")
    for (seed, short, _, _), quick, slow in zip(deals, default, long):
        pick = quick["recommendation"]["position"]
        close = quick["recommendation"]["too_close_to_call"]
        sure = slow["recommendation"]["position"]
        if pick == sure:
            verdict, same = "same", same + 1
        elif sure in close:
            verdict, announced = "differs, announced", announced + 1
        else:
            verdict, unannounced = "DIFFERS, NOT ANNOUNCED", unannounced + 1
        name = f"{'short ' if short else ''}{seed}"
        print(
            f"{name:<11} {pick} ({quick['wall']:4.1f} s)      {close or '-'!s:<11} "
            f"{sure} ({slow['wall']:4.1f} s)      {verdict}"
        )
    print(
        f"{len(deals)} deals: same {same}, differs and announced {announced}, "
        f"differs unannounced {unannounced}"
    )


if __name__ == "__main__":
    main()
