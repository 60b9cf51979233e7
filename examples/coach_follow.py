"""Follow a seeded coached tour to its end, taking the advice at every prompt (issue 15's bound
on the coach): run ``emissary coach --seed S --time-limit T`` as a real process with Enter at
every prompt, then print its exit code, its wall time, the step times the coach reports
against ``T`` + 10%, the peak resident memory of the coach or any of its workers, and how
often the coach refused its own default (0 in a sound run); from the session file, the
supporters spent and their expected gain in points, the next screens after a play that reveals
no card against the chance proven for it (issue 38), and the fewest playouts behind an estimate
ranked above another option, step by step (issue 37).

    python examples/coach_follow.py --seed 11 --time-limit 2

The coach's transcript is written beside the session file (``--out``, default a temporary
folder), so the steps can be read back.
"""

from __future__ import annotations

import argparse
import itertools
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTERS = 2000
"""Enter presses sent: more than any tour has prompts."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--short", action="store_true", help="a short tour")
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the session and transcript"
    )
    args = parser.parse_args()
    folder = args.out or Path(tempfile.mkdtemp(prefix="coach-follow-"))
    folder.mkdir(parents=True, exist_ok=True)
    session = folder / f"seed{args.seed}.json"
    session.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "advisor",
        "coach",
        "--seed",
        str(args.seed),
        "--session",
        str(session),
        "--time-limit",
        str(args.time_limit),
        "--ascii",
    ]
    if args.short:
        command.append("--short")
    started = time.perf_counter()
    run = subprocess.run(command, input="\n" * ENTERS, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # kB on Linux
    transcript = folder / f"seed{args.seed}.txt"
    transcript.write_text(run.stdout + "\n--- stderr\n" + run.stderr)
    steps = [float(x) for x in re.findall(r"\((\d+\.\d+) s\)", run.stdout)]  # move steps
    tables = [float(x) for x in re.findall(r"estimates?, (\d+\.\d+) s", run.stdout)]  # kingdoms
    allowed = 1.1 * args.time_limit
    over = sum(s > allowed for s in steps + tables)
    backstop = (
        1.1 * args.time_limit + 0.5
    )  # issue 38: a step's limit, start-up and rendering included
    beyond = sum(s > backstop for s in steps + tables)
    print(f"exit {run.returncode}; wall {wall:.1f} s; peak RSS {peak:,} kB")
    print(
        f"move steps: {len(steps)}, max {max(steps, default=0):.2f} s; kingdom tables: "
        f"{len(tables)}, max {max(tables, default=0):.2f} s; over {allowed:.2f} s: {over}; "
        f"over {backstop:.2f} s: {beyond}"
    )
    lines = run.stdout.splitlines()
    prompt = re.compile(r"^((?:Your play|Kingdom to visit|[A-Z][a-z ]+) \[[^\]]*\]: )")
    refused = sum(
        1
        for line, after in itertools.pairwise(lines)
        if (m := prompt.match(line)) and after.startswith(m.group(1))
    )
    print(f"defaults the coach refused (the same prompt again after Enter): {refused}")
    events = _events(session)
    if events is None:
        print("the session file could not be read: no supporter, next-screen or playout counts")
    else:
        print(supporters_line(events))
        print(next_screen_line(events))
        print(playouts_line(events))
    final = re.findall(r"Review: [^\n]*", run.stdout)
    print(final[-1] if final else "no review printed")
    print(f"transcript: {transcript}")


def supporters_line(events: list[dict]) -> str:
    """How many supporters the followed advice spent, and how many of them for less than the
    point each costs: the chance gained over the best free option times the visit's stake
    (issue 38)."""
    gains = []
    for event in events:
        advice = event.get("advice") or {}
        if advice.get("spends") and advice.get("played_spends"):
            free = advice.get("free_chance")
            gains.append(None if free is None else advice["stake"] * (advice["chance"] - free))
    cheap = sum(1 for gain in gains if gain is not None and gain <= 1.0)
    shown = ", ".join("?" if g is None else f"{g:.2f}" for g in gains) or "none"
    return (
        f"supporters spent on the advice: {len(gains)} (expected gain in points: {shown}); "
        f"for under 1 expected point: {cheap}"
    )


DETERMINED = ("answer", "discard")
"""Plays whose outcome the cards do not change (the answer settles the waiting debate; a
discard reveals nothing); Diplomacy and Politics too (see :func:`_determined`)."""


def _determined(action: dict) -> bool:
    """Whether a play reveals no card, so that the position after it is known in advance."""
    kind = action.get("kind")
    return kind in DETERMINED or (kind == "ability" and action.get("suit") in ("H", "S"))


def _events(session: Path) -> list[dict] | None:
    """The session file's events, or None if it cannot be read."""
    from advisor.session import SessionError, load

    try:
        return load(session).events
    except (OSError, SessionError):
        return None


def next_screen_line(events: list[dict]) -> str:
    """Issue 38: after a play that reveals no card, whose chance the screen proved (exact, or
    shown at its proven floor), the next screen's chance is never below it."""
    checked = below = 0
    for before, after in itertools.pairwise(events):
        if before.get("type") != "action" or after.get("type") != "action":
            continue
        advice, following = before.get("advice") or {}, after.get("advice") or {}
        played, shown = advice.get("played"), following.get("position_chance")
        interval = advice.get("played_interval")
        proven = interval is None or interval == [played, 1.0]
        if not _determined(before["action"]) or played is None or shown is None or not proven:
            continue
        checked += 1
        below += shown < played - 1e-9
    return (
        f"next screens after a proven play that reveals no card: {checked}; "
        f"below the chance proven for it: {below}"
    )


def playouts_line(events: list[dict]) -> str:
    """Issue 37: the fewest playouts behind an estimate ranked above another option, per
    estimated step, and the leader's paired lead where it has one."""
    steps = [e["advice"] for e in events if e.get("type") == "action" and e.get("advice")]
    fewest = [a["fewest_playouts_above"] for a in steps if a.get("fewest_playouts_above")]
    margins = [a["leader_margin"] for a in steps if a.get("leader_margin")]
    if not fewest:
        return f"steps ranked on estimates: 0 of {len(steps)}"
    thin = sum(count < 100 for count in fewest)
    listed = " ".join(str(count) for count in fewest)
    low = min(m[0] for m in margins) if margins else None
    lead = "" if low is None else f"; the lowest paired lead's low end {100 * low:+.1f} points"
    return (
        f"steps ranked on estimates: {len(fewest)} of {len(steps)}; fewest playouts behind an "
        f"estimate ranked above another: per step min {min(fewest)}, median "
        f"{sorted(fewest)[len(fewest) // 2]}; steps under 100: {thin}; leaders with a paired "
        f"interval: {len(margins)}{lead}\nfewest playouts per estimated step: {listed}"
    )


if __name__ == "__main__":
    main()
