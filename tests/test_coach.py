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

import pytest

from advisor.session import load

COMMAND = [sys.executable, "-m", "advisor", "coach"]


def run_coach(
    args: list[str], lines: list[str], timeout: float = 120
) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        COMMAND + args,
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize("variant", ["standard", "first-edition"])
def test_seeded_tour_killed_mid_tour_resumes_to_the_same_end(tmp_path: Path, variant: str):
    """A kill -9 mid-tour loses nothing: resuming finishes exactly like an uninterrupted run
    (in the first edition too, whose misses are paid with face-up cards, R7)."""
    whole = tmp_path / "whole.json"
    done = run_coach(
        ["--session", str(whole), "--seed", "3", "--no-advice", "--variant", variant], [""] * 400
    )
    assert done.returncode == 0, done.stderr
    assert "final score" in done.stdout and "Traceback" not in done.stderr

    broken = tmp_path / "broken.json"
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    process = subprocess.Popen(
        COMMAND + ["--session", str(broken), "--seed", "3", "--no-advice", "--variant", variant],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
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
    if variant == "first-edition":
        assert any(e["type"] == "turn_down" for e in load(whole).events)
        assert load(whole).config.first_edition


def test_first_edition_turn_down_refuses_bad_cards(tmp_path: Path):
    """R7 at the prompt: a card not face up, too few cards or a non-card is refused in one
    line and the prompt repeats; then the default pays: the advisor's pick, ♦ first (its
    ability is worth least)."""
    args = ["--seed", "3", "--no-advice", "--variant", "first-edition"]
    first = tmp_path / "first.json"
    run_coach(["--session", str(first), *args], [""] * 400)
    events = load(first).events
    prompts = [e["type"] for e in events if e["type"] in ("kingdom", "action", "turn_down")]
    before = prompts.index("turn_down")  # Enter at every prompt before the first payment
    path = tmp_path / "fe.json"
    lines = [""] * before + ["KD", "JC JD", "xx", ""] + [""] * 400
    result = run_coach(["--session", str(path), *args], lines)
    assert result.returncode == 0 and "Traceback" not in result.stdout + result.stderr
    assert "turns down exactly 1" in result.stdout and "neither a Jack" in result.stdout
    paid = [e for e in load(path).events if e["type"] == "turn_down"]
    assert paid[0]["cards"] == ["JD"]


def test_first_edition_tour_coached_with_advice(tmp_path: Path):
    """The coach advises a whole first-edition tour by expected reputation: a kingdom table
    (cost, hit, misses) at each visit and a ranked list at each decision; Enter follows the
    advice to the end, and the review prices each choice in reputation."""
    path = tmp_path / "advised.json"
    args = [
        "--session",
        str(path),
        "--seed",
        "5",
        "--variant",
        "first-edition",
        "--time-limit",
        "0.2",
    ]
    result = run_coach(args, [""] * 400, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert (
        "first edition" in result.stdout
        and "expected cost" in result.stdout
        and "net" in result.stdout
    )
    assert "final score" in result.stdout
    events = load(path).events
    kingdoms = [e for e in events if e["type"] == "kingdom"]
    assert kingdoms and all(e["advice"]["best"] == e["position"] for e in kingdoms)
    actions = [e for e in events if e["type"] == "action"]
    assert actions and all(
        e["advice"]["played"] == pytest.approx(e["advice"]["cost"]) for e in actions
    )


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
        ["", "", "", "quit"],
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    events = load(path).events
    advised = [e for e in events if e.get("advice")]
    assert advised and advised[0]["type"] == "kingdom"
    review = subprocess.run(
        [sys.executable, "-m", "advisor", "review", str(path), "--ascii"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert review.returncode == 0 and "Review" in review.stdout


def _greedy_seeded_session(seed: int, short: bool):
    """A whole seeded tour played by the greedy policy, as a coach session's events."""
    from advisor.session import Session
    from advisor.session_events import encode_action
    from search.game.deal import Stream
    from search.game.rules import legal_actions
    from search.game.tour import TourConfig
    from search.tours.policies import GreedyPolicy

    policy, rng = GreedyPolicy(), Stream(seed, "test-greedy")
    session = Session.new(TourConfig(short=short), mode="seeded", seed=seed)
    while (state := session.replay()).phase != "over":
        if state.phase == "hand":
            event = {"type": "hand", "cards": session.next_hand()}
        elif state.phase == "card":
            event = {"type": "card", "card": session.next_chance_card()}
        elif state.phase == "kingdom":
            event = {
                "type": "kingdom",
                "position": policy.choose_kingdom(state.tour, state.hand, rng),
            }
        else:
            action = policy.choose_action(state.visit, legal_actions(state.visit), rng)
            event = {"type": "action", "action": encode_action(action)}
        session = session.append(event)
    return session


def _typed_lines(session) -> list[str]:
    """What a player at a real table types to the coach for the same tour."""
    from advisor.plays import describe
    from advisor.session_events import decode_action

    lines = [" ".join(session.rulers)]
    for event in session.events:
        kind = event["type"]
        if kind == "hand":
            lines.append(" ".join(event["cards"]))
        elif kind == "card":
            lines.append(event["card"])
        elif kind == "kingdom":
            lines.append(str(event["position"]))
        else:
            lines.append(describe(decode_action(event["action"])))
    return lines


def test_physical_tour_typed_card_by_card_ends_like_the_dealt_one(tmp_path: Path):
    """A whole physical tour through the real prompt loop: every ruler, hand, turned-up card,
    kingdom and play typed as a player would; the coach ends in the same state as the seeded
    tour it copies (several visits, abilities used, the review printed)."""
    dealt = next(
        session
        for session in (_greedy_seeded_session(seed, short=True) for seed in range(1, 200))
        if session.replay().tour.visits >= 3 and _uses_an_ability(session)
    )
    path = tmp_path / "physical.json"
    result = run_coach(
        ["--session", str(path), "--short", "--no-advice"], _typed_lines(dealt), timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "final score" in result.stdout
    typed = load(path)
    assert typed.mode == "physical"
    assert typed.replay().tour == dealt.replay().tour
    assert [e["type"] for e in typed.events] == [e["type"] for e in dealt.events]


def _uses_an_ability(session) -> bool:
    return any(e["type"] == "action" and e["action"]["kind"] == "ability" for e in session.events)


def _prompt_index(session, wanted: str) -> int:
    """The index of the first event answering a prompt of kind ``wanted``: hand, kingdom,
    decide (debate or ability), answer, reveal (a ruler's card) or draw (a drawn card)."""
    from advisor.session import Session

    part = Session.new(session.config, mode="seeded", seed=session.seed)
    for index, event in enumerate(session.events):
        state = part.replay()
        kind = state.phase
        if state.visit is not None and kind in ("decision", "card"):
            kind = {"DECIDE": "decide", "ANSWER": "answer", "REVEAL": "reveal", "DRAW": "draw"}.get(
                state.visit.phase.name, state.visit.phase.name.lower()
            )
        if kind == wanted and (wanted != "kingdom" or state.tour.visits > 0):
            return index
        part = part.append(event)
    raise AssertionError(f"no {wanted} prompt in the tour")


# At each prompt: bad answers, each with a fragment of its one-line reason.
BAD_INPUT = {
    "rulers": [("KC KC KH KS", "twice"), ("KC QH KS KD", "Kings"), ("KC KH KS", "4"), ("XX", "XX")],
    "hand": [
        ("AC 2C", "8"),
        ("AC AC 3C 4C 5C 6C 7C 8C", "twice"),
        ("JC 2C 3C 4C 5C 6C 7C 8C", "Jack"),
        ("hello", "hello"),
    ],
    "kingdom": [("9", "9"), ("x", "not a kingdom"), ("0", "0"), ("VISITED", "VISITED")],
    "decide": [("xyz", "not a play"), ("S 7", "7"), ("Q", "not a play")],
    "reveal": [("IN-HAND", "IN-HAND"), ("9S", "9"), ("zz", "zz")],
    "answer": [("NOT-HELD", "NOT-HELD"), ("d", "between debates"), ("ZZ", "ZZ"), ("2C", "suit")],
    "draw": [("IN-HAND", "IN-HAND"), ("QS", "Q")],
}


@pytest.mark.parametrize("prompt", list(BAD_INPUT))
def test_bad_input_at_every_prompt_is_refused_in_one_line_and_changes_nothing(
    tmp_path: Path, prompt: str
):
    """Each bad answer gets a one-line reason and the same prompt again; nothing is saved for
    it, and the tour goes on from the same state."""
    dealt = _dealt_tour()
    typed = _typed_lines(dealt)
    if prompt == "rulers":
        index, state = -1, None
    else:
        index = _prompt_index(dealt, prompt)
        state = _replayed_prefix(dealt, index)
    bad = [(_fill(text, state), _fill(fragment, state)) for text, fragment in BAD_INPUT[prompt]]
    path = tmp_path / "bad.json"
    lines = (
        typed[: index + 1]
        + [text for text, _ in bad]
        + ([typed[index + 1]] if index >= 0 else [])
        + ["quit"]
    )
    result = run_coach(["--session", str(path), "--short", "--no-advice"], lines)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    out = result.stdout.splitlines()
    for text, fragment in bad:
        reasons = [line for line in out if fragment.lower() in line.lower()]
        assert reasons, f"no reason mentioning {fragment!r} for {text!r}:\n{result.stdout}"
    if index >= 0:
        assert list(load(path).events) == list(dealt.events[: index + 1])


def _dealt_tour():
    return _greedy_seeded_session(3, short=True)


def _replayed_prefix(session, index: int):
    from advisor.session import Session

    part = Session.new(session.config, mode="seeded", seed=session.seed)
    for event in session.events[:index]:
        part = part.append(event)
    return part.replay()


def _fill(text: str, state) -> str:
    """Bad answers that depend on the state: a visited kingdom, a held card, one not held."""
    if state is None:
        return text
    if text == "VISITED":
        return str(min(state.tour.visited))
    hand = state.visit.hand if state.visit is not None else None
    if text == "IN-HAND":
        return next(iter(hand)).ascii()
    if text == "NOT-HELD":
        from search.game.cards import CARDS

        return next(c for c in CARDS if c not in hand and c != state.visit.waiting).ascii()
    return text


def test_a_suggested_ability_typed_back_is_that_ability_not_a_debate():
    """describe/parse_play round trip at a decision: 'JD' (Commerce) is not 'd' (debate), which
    the Enter key would once have turned a suggested Commerce into."""
    from advisor.plays import describe, parse_play
    from search.game.cards import KINGS, QUEENS, CardSet, Suit
    from search.game.rules import Debate, UseAbility
    from search.game.tour import new_tour, start_visit

    tour = new_tour(
        [KINGS[0], QUEENS[1], KINGS[2], KINGS[3], KINGS[1], QUEENS[0], QUEENS[2], QUEENS[3]]
    )
    visit = start_visit(tour, CardSet.parse("AC 3C 5C 7C 5D 8H 5S 7S"), 3)
    for action in (
        UseAbility(Suit.DIAMONDS),
        UseAbility(Suit.CLUBS),
        UseAbility(Suit.SPADES, None, 2),
        Debate(),
    ):
        assert parse_play(describe(action), visit) == action
    assert parse_play("d", visit) == Debate() and parse_play("JD", visit) == UseAbility(
        Suit.DIAMONDS
    )
    assert parse_play("C", visit) == UseAbility(Suit.CLUBS)
