"""Calibration of the tour value (issue 17): the value the planner predicts at the start of
each tour of a batch against the score the policy then made.

Reads a ``simulate --checkpoint`` file (its deals are ``derive_seed(seed, i)``, see
:mod:`search.tours.simulate`). For every finished tour of ``--policy`` it prices the fresh
tour of that deal's layout with the planner the policy plans with (``--planner`` names another
registered policy's), before any hand is seen, and prints (:mod:`search.tours.calibration`):

- the mean predicted value with the 95% interval of its sampling error (the bootstrap over the
  table's hands, averaged over the tours: the error every tour shares);
- the mean realised score with its 95% interval over the tours;
- the mean paired difference (realised less predicted) with its 95% interval: the model's
  error, which the two intervals above do not contain if it is larger than they are;
- with visit records (checkpoints from 2026-12-01 on), per kingdom: how often it was visited,
  its hit rate when visited (95% Wilson interval) and, for a planning policy, the mean planning
  chance it chose those visits by: the model's error visit by visit.

    python examples/calibration.py CHECKPOINT --policy advisor-quick
    python examples/calibration.py OLD_CHECKPOINT --policy advisor --planner advisor-uncalibrated
    python examples/calibration.py CHECKPOINT --policy advisor-uncalibrated --fit uplift.json \
        --pool OTHER_CHECKPOINT:advisor
    python examples/calibration.py OTHER_CHECKPOINT --policy advisor --uplift uplift.json

``--fit`` pools the visits by target, so a short tour's (targets 2, 4, 6, 8) and a standard
tour's (1-8) fit one calibration.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.game import TourConfig
from search.infra import wilson_interval, write_atomically
from search.tours.batch import decoded_visits, saved_tours
from search.tours.calibration import calibrate, fit_uplift
from search.tours.planning import BOOTSTRAP, PLANNING_SETS, TourPlanner, Uplift
from search.tours.registry import make_policy


def uplift(visits: list[tuple[bool, float]]) -> tuple[float, float, float]:
    """The fitted uplift of ``visits`` (hit, planning chance) with its 95% bootstrap interval."""
    fitted, resampled = fit_uplift(visits)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return fitted, float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--policy", required=True)
    parser.add_argument(
        "--fit",
        type=Path,
        help="write each target's uplift (fit and bootstrap resamples) to this file, for --uplift",
    )
    parser.add_argument(
        "--uplift",
        type=Path,
        help="predict with the planning chances "
        "calibrated by this fit (interval: hands' sampling and the fit's error)",
    )
    parser.add_argument(
        "--pool",
        action="append",
        default=[],
        metavar="CHECKPOINT:POLICY",
        help="more visits for --fit: POLICY's in CHECKPOINT (repeatable)",
    )
    parser.add_argument(
        "--planner",
        help="the registered policy whose planner predicts "
        "(default: --policy; name one for a policy saved under a former name, "
        "e.g. advisor-calibrated, now advisor)",
    )
    args = parser.parse_args()
    params, saved = saved_tours(args.checkpoint)
    config = TourConfig(short=params["short"], published_rules=params["published_rules"])
    tours = saved.get(args.policy, {})
    if not tours:
        raise SystemExit(f"{args.checkpoint}: no finished tour of {args.policy}")
    planner = make_policy(args.planner or args.policy).planner
    if args.uplift:
        planner = TourPlanner(sets=planner.table.sets, uplift=Uplift.load(args.uplift))
    full = planner.table.sets == PLANNING_SETS
    found = calibrate(planner, params["seed"], {i: tours[i][0] for i in tours}, config)
    count = found.tours
    model = ("full" if full else "quick") + (" calibrated" if planner.uplift else "")
    print(
        f"{args.policy}, {count} {'short' if config.short else 'standard'} tours of seed "
        f"{params['seed']}, {model} planning model"
    )
    error = "the hands' sampling and the fit's error" if planner.uplift else "the hands' sampling"
    mean, low, high = found.predicted
    print(f"predicted  {mean:.3f} (95% CI of {error}: {low:.3f}-{high:.3f})")
    mean, low, high = found.realised
    print(f"realised   {mean:.3f} (95% CI {low:.3f}-{high:.3f})")
    mean, low, high = found.difference
    print(f"difference {mean:+.3f} (95% CI {low:+.3f} to {high:+.3f}), realised less predicted")
    recorded = [tours[i][1] for i in sorted(tours) if tours[i][1] is not None]
    if len(recorded) < count:
        print(f"visit records: {len(recorded)} of {count} tours (older checkpoints have none)")
    if recorded:
        by_kingdom: dict[int, list[tuple[bool, float | None]]] = {}
        for visits in recorded:
            for kingdom, hit, chance in decoded_visits(visits):
                by_kingdom.setdefault(kingdom, []).append((hit, chance))
        for kingdom in range(1, config.kingdoms + 1):
            rows = by_kingdom.get(kingdom, [])
            hits = sum(hit for hit, _ in rows)
            low, high = wilson_interval(hits, len(rows))
            rate = (
                f"{100 * hits / len(rows):5.1f}% ({100 * low:.1f}-{100 * high:.1f}%)"
                if rows
                else "-"
            )
            line = f"kingdom {kingdom} (target {config.target(kingdom)}): {len(rows)} visits, hit {rate}"
            chosen = [(hit, chance) for hit, chance in rows if chance is not None]
            if chosen:  # the model's chance of the visits it chose, against what they did
                share, low, high = uplift(chosen)
                line += (
                    f"; planning chance {100 * statistics.mean(c for _, c in chosen):.1f}% on "
                    f"average; uplift {share:.3f} ({low:.3f}-{high:.3f})"
                )
            print(line)
        print(
            "uplift u: the fit of chance = c + u (1 - c) to the visits, c the planning chance "
            "(maximum likelihood; 95% interval from 200 bootstrap resamples of the visits)"
        )
        if args.fit:
            by_target: dict[int, list] = {}
            for kingdom, rows in by_kingdom.items():
                by_target.setdefault(config.target(kingdom), []).extend(
                    (hit, chance) for hit, chance in rows if chance is not None
                )
            sources = [f"{args.checkpoint}:{args.policy}"]
            for pooled in args.pool:
                path, _, policy = pooled.rpartition(":")
                other_params, other = saved_tours(Path(path))
                other_config = TourConfig(
                    short=other_params["short"], published_rules=other_params["published_rules"]
                )
                for _, visits in other.get(policy, {}).values():
                    for kingdom, hit, chance in decoded_visits(visits or ""):
                        if chance is not None:
                            by_target.setdefault(other_config.target(kingdom), []).append(
                                (hit, chance)
                            )
                sources.append(pooled)
            shares = {}
            for target, visits in sorted(by_target.items()):
                fitted, resampled = fit_uplift(visits)
                shares[str(target)] = [fitted, *resampled[:BOOTSTRAP]]
            text = json.dumps(
                {
                    "policy": args.policy,
                    "model": "full" if full else "quick",
                    "checkpoints": sources,
                    "tours": count,
                    "visits": {t: len(v) for t, v in sorted(by_target.items())},
                    "shares": shares,
                },
                indent=1,
            )
            write_atomically(args.fit, lambda stream: stream.write((text + "\n").encode()))
            print(f"wrote {args.fit}: the uplift of targets {', '.join(shares)}")


if __name__ == "__main__":
    main()
