"""The coach through its real prompt loop: a seeded tour via stdin, killed and resumed, and a
physical tour from typed cards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from advisor.session import load

COMMAND = [sys.executable, "-m", "advisor", "coach"]


def run_coach(args: list[str], lines: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        COMMAND + args, input="\n".join(lines) + "\n", capture_output=True, text=True,
        env=env, timeout=timeout, check=False,
    )


def test_seeded_tour_killed_mid_tour_resumes_to_the_same_end(tmp_path: Path):
    """A kill -9 mid-tour loses nothing: resuming finishes exactly like an uninterrupted run."""
    whole = tmp_path / "whole.json"
    done = run_coach(["--session", str(whole), "--seed", "3", "--no-advice"], [""] * 400)
    assert done.returncode == 0, done.stderr
    assert "final score" in done.stdout and "Traceback" not in done.stderr

    broken = tmp_path / "broken.json"
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    process = subprocess.Popen(
        COMMAND + ["--session", str(broken), "--seed", "3", "--no-advice"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, env=env,
    )
    for _ in range(8):  # a few answers, then the stdin pipe stays open: the coach waits mid-tour
        process.stdin.write("\n")
    process.stdin.flush()
    deadline = time.time() + 60
    while time.time() < deadline:
        if broken.exists() and len(json.loads(broken.read_text())["events"]) >= 8:
            break
        time.sleep(0.1)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    middle = load(broken)
    assert 0 < len(middle.events) < len(load(whole).events)

    resumed = run_coach(["--session", str(broken), "--no-advice"], [""] * 400)
    assert resumed.returncode == 0, resumed.stderr
    assert "Resuming" in resumed.stdout
    assert load(broken).events == load(whole).events
    assert load(broken).replay().tour == load(whole).replay().tour


def test_physical_tour_from_typed_cards_with_bad_input_rejected(tmp_path: Path):
    """A physical game: typed rulers, hand and cards; bad input repeats the prompt, state unchanged."""
    path = tmp_path / "table.json"
    lines = [
        "KC QH KS QD",  # short tour: only Kings rule, so this is refused
        "KC KH KS KD",
        "AC 2C 3C 4C 5C 6C 7C 9C",  # a 9 is not a deck card
        "AC 2C 3C 4C 5C 6C 7C 8C",
        "9",  # no such kingdom
        "1",
        "d",
        "AC",  # AC is in the hand: it cannot turn up
        "AD",
        "8C",  # void in diamonds: any card; the trump 8C wins
        "quit",
    ]
    result = run_coach(["--session", str(path), "--short", "--no-advice"], lines)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "only Kings" in result.stdout or "Kings" in result.stdout
    assert "9C" in result.stdout and "kingdom 9" in result.stdout
    assert "not in the deck" in result.stdout
    session = load(path)
    state = session.replay()
    assert state.visit is not None and state.visit.wins == 1 and len(state.visit.hand) == 7
    assert "Saved" in result.stdout


def test_advice_is_shown_and_recorded_for_review(tmp_path: Path):
    """With advice on, each decision shows the options and the review lists what each cost."""
    path = tmp_path / "advised.json"
    result = run_coach(
        ["--session", str(path), "--seed", "8", "--short", "--time-limit", "2", "--ascii"],
        ["", "", "", "quit"], timeout=300,
    )
    assert result.returncode == 0, result.stderr
    events = load(path).events
    advised = [e for e in events if e.get("advice")]
    assert advised and advised[0]["type"] == "kingdom"
    review = subprocess.run(
        [sys.executable, "-m", "advisor", "review", str(path), "--ascii"],
        capture_output=True, text=True, check=False,
    )
    assert review.returncode == 0 and "Review" in review.stdout
