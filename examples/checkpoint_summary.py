"""What a batch saved so far has measured: ``python examples/checkpoint_summary.py CHECKPOINT``.

A long ``emissary simulate --checkpoint FILE`` run (the 2,000-tour tables of the lookahead
advisor take hours) can be stopped and resumed with ``--resume``. This prints, for each policy,
the figures ``simulate`` would print for the tours finished so far: the mean score and the
perfect-tour rate with their 95% intervals, and each kingdom's hit rate when visited.

Only the longest run of finished tours from tour 0 counts. Chunks finish out of order on
several workers, and a chunk of short tours (early misses) finishes sooner; a prefix of the
seeded tours does not depend on how the chunks were timed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from search.tours.batch import BatchError, saved_result, saved_tours


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args(argv)
    try:
        params, saved = saved_tours(args.checkpoint)
    except (BatchError, OSError) as error:
        parser.exit(2, f"error: {error}\n")
    results = {name: saved_result(params, saved[name], name) for name in params["policies"]}
    if args.json:
        print(
            json.dumps(
                {name: None if r is None else r.to_json() for name, r in results.items()}, indent=2
            )
        )
        return 0
    for name, result in results.items():
        if result is None:
            print(f"{name}: no tour finished yet (of {params['tours']:,})")
            continue
        mean, low, high = result.mean_score
        rate, rate_low, rate_high = result.perfect_rate
        print(
            f"{name}: tours 0-{result.tours - 1} of {params['tours']:,} (seed {params['seed']}, "
            f"{'short' if params['short'] else 'standard'}): mean score {mean:.3f} ({low:.3f}-{high:.3f}), "
            f"perfect {100 * rate:.2f}% ({100 * rate_low:.2f}-{100 * rate_high:.2f}%)"
        )
        if result.visits is not None:
            for kingdom, (visits, hits, hit_rate, k_low, k_high) in enumerate(
                result.kingdom_rates(), 1
            ):
                print(
                    f"  kingdom {kingdom} (target {result.config.target(kingdom)}): {hits}/{visits} "
                    f"hit, {100 * hit_rate:.1f}% ({100 * k_low:.1f}-{100 * k_high:.1f}%)"
                )
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # a reader such as `| head -1` went away: stop quietly, as the CLI does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(141)
