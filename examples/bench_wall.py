"""Wall time of the one-shot commands a user waits for, as real processes (issue 14).

Each command runs as its own process (start-up, imports, the compiled kernel's load, the
search and the rendering all included), once untimed to warm the caches, then ``--repeats``
times. Printed per command: min, median and max seconds, the issue's target and
median / target (at most 1.00 meets it). The commands:

- ``odds`` on the README's set-up hand with no ability (target 0.8 s);
- ``odds --abilities D`` on the issue's Commerce hand, 2C 3C AD 2D 3D 4D 3H 8H, trump D,
  target 4 (target 1.5 s);
- ``advise`` for the fresh first hand of seeded deals (``emissary deal --seed N --json``;
  deal 5 is the README's example), target 3 s. ``advise`` answers within its
  ``--time-limit`` (default 3 s), counted from the command's start, so it runs at the default
  and at ``--time-limit 2.5``.

Before them, ``python -c "import advisor.cli"`` (the CLI's imports, nothing run) and
``python -c pass`` (the interpreter alone) are timed the same way.

    python examples/bench_wall.py                  # 5 timed runs of each
    python examples/bench_wall.py --repeats 3 --seeds 5
    python examples/bench_wall.py --only odds      # the odds commands only
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
ODDS_NONE = [
    "odds",
    "AC 6C 3H 8H 2D 5D 4S 7S",
    "--trump",
    "C",
    "--target",
    "4",
    "--abilities",
    "none",
]
ODDS_COMMERCE = [
    "odds",
    "2C 3C AD 2D 3D 4D 3H 8H",
    "--trump",
    "D",
    "--target",
    "4",
    "--abilities",
    "D",
]
TARGETS = {"import": None, "odds": 0.8, "odds D": 1.5, "advise": 3.0}


def emissary() -> list[str]:
    """The installed console script beside this Python, else ``python -m advisor``."""
    script = Path(PYTHON).parent / "emissary"
    return [str(script)] if script.exists() else [PYTHON, "-m", "advisor"]


def seeded_first_hand(seed: int) -> tuple[str, str]:
    """(hand, rulers) of a seeded deal's first visit, as ``advise`` takes them."""
    shown = subprocess.run(
        [*emissary(), "deal", "--seed", str(seed), "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    deal = json.loads(shown.stdout)
    return " ".join(deal["hand"]), " ".join(deal["rulers"])


def wall_seconds(command: list[str]) -> float:
    """Seconds from starting ``command`` to its exit; a failed run stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    return seconds


def measure(command: list[str], repeats: int) -> list[float]:
    """One untimed warm-up run, then ``repeats`` timed runs."""
    wall_seconds(command)
    return [wall_seconds(command) for _ in range(repeats)]


def code_state() -> str:
    """The commit measured, and the source files changed since (another hand may edit)."""
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    changed = subprocess.run(
        [*git, "diff", "--name-only", "HEAD", "--", "*.py"], capture_output=True, text=True
    ).stdout.split()
    return f"commit {commit.stdout.strip() or '?'}" + (
        f", uncommitted changes in {', '.join(changed)}" if changed else ""
    )


def row(name: str, times: list[float], target: float | None) -> str:
    median = statistics.median(times)
    shown = f"{name:34} {min(times):>6.2f} {median:>7.2f} {max(times):>6.2f}"
    if target is None:
        return shown
    verdict = "met" if median <= target else "missed"
    return shown + f" {target:>7.1f} {median / target:>7.2f}  {verdict}"


def cases(args: argparse.Namespace) -> list[tuple[str, list[str], float | None]]:
    """(label, command, target seconds) for every command to time."""
    chosen = []
    if "import" in args.only:
        chosen += [
            ("python -c pass", [PYTHON, "-c", "pass"], None),
            ("python -c 'import advisor.cli'", [PYTHON, "-c", "import advisor.cli"], None),
        ]
    if "odds" in args.only:
        chosen += [
            ("odds, no ability", [*emissary(), *ODDS_NONE], TARGETS["odds"]),
            ("odds --abilities D", [*emissary(), *ODDS_COMMERCE], TARGETS["odds D"]),
        ]
    if "advise" in args.only:
        for seed in args.seeds:
            hand, rulers = seeded_first_hand(seed)
            for limit in (None, args.short_limit):
                extra = [] if limit is None else ["--time-limit", f"{limit:g}"]
                label = f"advise, deal {seed}, " + (
                    "default limit" if limit is None else f"--time-limit {limit:g}"
                )
                chosen.append(
                    (
                        label,
                        [*emissary(), "advise", hand, "--rulers", rulers, *extra],
                        TARGETS["advise"],
                    )
                )
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each command")
    parser.add_argument(
        "--seeds",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[5, 1, 2, 3],
        help="seeded deals for advise, e.g. 5,1,2",
    )
    parser.add_argument(
        "--short-limit",
        type=float,
        default=2.5,
        help="the second --time-limit advise runs at (seconds)",
    )
    parser.add_argument(
        "--only", default="import,odds,advise", help="comma-separated: import, odds, advise"
    )
    args = parser.parse_args()
    args.only = set(args.only.split(","))
    print(f"wall seconds over {args.repeats} runs after one warm-up; {code_state()}")
    print(f"{'command':34} {'min':>6} {'median':>7} {'max':>6} {'target':>7} {'ratio':>7}")
    for label, command, target in cases(args):
        print(row(label, measure(command, args.repeats), target), flush=True)


if __name__ == "__main__":
    main()
