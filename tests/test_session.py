"""The coached-tour session: an event log replayed through the rules' checked doors."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.session import Session, create, load
from advisor.session_events import SessionError, encode_action
from search.game.deal import Deal
from search.game.rules import apply_action, apply_chance, legal_actions
from search.game.tour import TourConfig, finish_visit, start_visit

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261130


def next_event(session: Session) -> dict:
    """The simple loop's move: leftmost kingdom, first legal action, the deal's cards."""
    state = session.replay()
    if state.phase == "hand":
        return {"type": "hand", "cards": session.next_hand()}
    if state.phase == "kingdom":
        return {"type": "kingdom", "position": state.tour.unvisited[0], "advice": {"best": "x"}}
    if state.phase == "card":
        return {"type": "card", "card": session.next_chance_card()}
    return {"type": "action", "action": encode_action(legal_actions(state.visit)[0])}


def play_session(session: Session) -> Session:
    while session.replay().phase != "over":
        session = session.append(next_event(session))
    return session


def play_direct(deal: Deal):
    """The same loop played straight on the engine, simulate-style."""
    tour = deal.tour()
    while not tour.over:
        number = tour.visits + 1
        visit = start_visit(tour, deal.hand(number), tour.unvisited[0])
        dealer = deal.dealer(number)
        while not visit.over:
            if visit.is_chance:
                visit = apply_chance(visit, dealer.next_card(visit))
            else:
                visit = apply_action(visit, legal_actions(visit)[0])
        tour = finish_visit(tour, visit)
    return tour


@pytest.fixture
def seeded() -> Session:
    return Session.new(mode="seeded", seed=SEED)


@pytest.mark.parametrize("seed", [SEED, 7, 12345])
@pytest.mark.parametrize("short", [False, True])
def test_replayed_seeded_tour_equals_direct_play(seed: int, short: bool) -> None:
    """Replaying a seeded tour's log gives the tour that direct engine play gives."""
    config = TourConfig(short=short)
    session = play_session(Session.new(config, mode="seeded", seed=seed))
    assert session.replay().tour == play_direct(Deal(seed, config))
    # A fresh replay (as after loading) agrees with the incrementally built one.
    reloaded = Session.from_json(json.loads(json.dumps(session.to_json())))
    assert reloaded.replay().tour == session.replay().tour
    assert reloaded.replay().phase == "over"


def test_round_trip(tmp_path: Path, seeded: Session) -> None:
    """A saved session loads back equal, events and advice included."""
    for _ in range(12):
        seeded = seeded.append(next_event(seeded))
    path = tmp_path / "tour.json"
    create(path, seeded)
    loaded = load(path)
    assert loaded == seeded
    assert loaded.replay() == seeded.replay()
    assert loaded.events[1]["advice"] == {"best": "x"}


def test_resume_gives_the_same_cards(seeded: Session) -> None:
    """Resuming mid-visit from the log turns up exactly the cards an uninterrupted run would."""
    uninterrupted = play_session(seeded)
    session = seeded
    for index in range(len(uninterrupted.events)):
        if index % 7 == 0:  # "restart the program" now and then
            session = Session.from_json(json.loads(json.dumps(session.to_json())))
        session = session.append(next_event(session))
    assert session.events == uninterrupted.events


def test_undo_drops_the_last_event(seeded: Session) -> None:
    """Undo removes the last event and the state is the one before it."""
    before = seeded
    for _ in range(10):
        before = before.append(next_event(before))
    after = before.append(next_event(before))
    undone = after.undo()
    assert undone == before
    assert undone.replay() == before.replay()
    with pytest.raises(SessionError, match="nothing to undo"):
        Session.new(mode="physical", rulers=list(before.rulers)).undo()


def test_illegal_event_is_rejected_and_session_unchanged(seeded: Session) -> None:
    """An illegal event raises SessionError with the rules' reason; the session stays as it was."""
    session = seeded.append(next_event(seeded)).append({"type": "kingdom", "position": 1})
    events = session.events
    with pytest.raises(SessionError, match="no ruler card is waiting"):
        session.append({"type": "action", "action": {"kind": "answer", "card": "7H"}})
    with pytest.raises(SessionError, match="not due"):
        session.append({"type": "hand", "cards": session.rulers})
    with pytest.raises(SessionError, match="unknown event type"):
        session.append({"type": "bogus"})
    with pytest.raises(SessionError, match="not a deck card"):
        session.append({"type": "action", "action": {"kind": "answer", "card": "JH"}})
    assert session.events == events
    assert session.replay().phase == "decision"


def test_seeded_card_must_match_the_deal(seeded: Session) -> None:
    """In seeded mode a chance card other than the deal's is refused."""
    session = seeded
    while session.replay().phase != "card":
        session = session.append(next_event(session))
    due = session.next_chance_card()
    wrong = next(c for c in ("AC", "2C", "3C") if c != due)
    with pytest.raises(SessionError, match=f"turns up {due}"):
        session.append({"type": "card", "card": wrong})


def test_physical_mode_accepts_reported_cards() -> None:
    """A physical session takes any legal cards the player reports."""
    session = Session.new(mode="physical", rulers=["KC", "QH", "KS", "QD", "KH", "QC", "KD", "QS"])
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    session = session.append({"type": "hand", "cards": hand})
    session = session.append({"type": "kingdom", "position": 1})
    session = session.append({"type": "action", "action": {"kind": "debate"}})
    assert session.replay().phase == "card"
    session = session.append({"type": "card", "card": "AD"})
    with pytest.raises(SessionError, match="only a seeded session"):
        session.next_chance_card()
    assert session.replay().visit.waiting.ascii() == "AD"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def assert_one_line_error(path: Path, match: str) -> None:
    with pytest.raises(SessionError) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    assert match in message


def test_bad_files_raise_one_line_errors(tmp_path: Path, seeded: Session) -> None:
    """Missing, corrupt, foreign, newer or truncated files and bad logs are one-line errors."""
    for _ in range(15):
        seeded = seeded.append(next_event(seeded))
    good = seeded.to_json()
    text = json.dumps(good)
    assert_one_line_error(tmp_path / "missing.json", "no such session file")
    assert_one_line_error(write(tmp_path / "corrupt.json", "{not json"), "not valid JSON")
    assert_one_line_error(write(tmp_path / "empty.json", ""), "not valid JSON")
    truncated = write(tmp_path / "truncated.json", text[: len(text) // 2])
    assert_one_line_error(truncated, "not valid JSON")
    assert_one_line_error(
        write(tmp_path / "foreign.json", json.dumps({**good, "format": "other"})), "not an emissary"
    )
    assert_one_line_error(
        write(tmp_path / "newer.json", json.dumps({**good, "version": 3})), "newer"
    )
    events = [*good["events"], {"type": "card", "card": "AC"}]
    assert_one_line_error(
        write(tmp_path / "illegal.json", json.dumps({**good, "events": events})), "event 16"
    )


def test_create_refuses_to_overwrite(tmp_path: Path, seeded: Session) -> None:
    """create never replaces an existing file, foreign or corrupt."""
    path = write(tmp_path / "precious.txt", "not a session")
    with pytest.raises(SessionError, match="already exists"):
        create(path, seeded)
    assert path.read_text() == "not a session"
    assert [p.name for p in tmp_path.iterdir()] == ["precious.txt"]


CHILD = """
import sys
from advisor.session import Session, load, save
from tests.test_session import next_event
path = sys.argv[1]
session = load(path)
print("ready", flush=True)
while True:
    if session.replay().phase == "over":
        session = Session.new(session.config, mode="seeded", seed=session.seed)
    session = session.append(next_event(session))
    save(session, path)
"""


def test_save_survives_sigkill(tmp_path: Path, seeded: Session) -> None:
    """A writer killed at random moments always leaves a file that loads and replays."""
    path = tmp_path / "tour.json"
    create(path, seeded)
    rng = random.Random(SEED)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lengths = []
    for _ in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path)], cwd=ROOT, env=env, stdout=subprocess.PIPE
        )
        try:
            assert child.stdout.readline().strip() == b"ready"
            time.sleep(rng.uniform(0.02, 0.4))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            child.stdout.close()
        session = load(path)
        session.replay()
        lengths.append(len(session.events))
    assert max(lengths) > 0, lengths  # the writer did make progress


def test_leftover_temp_files_are_removed_and_the_session_kept(tmp_path):
    """A kill mid-save can leave a temp file beside the session; the coach clears it on start,
    by exact name (``.name.PID.XXXXXXXX.tmp``), and only if its writer has exited."""
    from advisor.session import remove_leftovers
    from tests.conftest import dead_pid

    path = tmp_path / "game.json"
    path.write_text("{}")
    killed = tmp_path / f".game.json.{dead_pid()}.abc123xy.tmp"  # mkstemp: 8 characters
    killed.write_text("partial")
    others = [
        f".game.json.{os.getppid()}.abc123xy.tmp",  # a save under way in a live process
        ".game.json.abc123xy.tmp",  # no writer's pid: not a name write_temp makes
        f".game.json.{dead_pid()}.abc123x.tmp",  # 7 random characters
        f".other.json.{dead_pid()}.abc123xy.tmp",  # another file's
    ]
    for name in others:
        (tmp_path / name).write_text("not ours")
    assert remove_leftovers(path) == 1
    assert path.read_text() == "{}" and not killed.exists()
    for name in others:
        assert (tmp_path / name).read_text() == "not ours", name


def test_temp_file_names_hold_the_writers_pid_and_never_collide(tmp_path):
    """write_temp: each temp file is new (created exclusively), named with this process's id."""
    from search.infra import write_temp

    made = [
        write_temp(tmp_path / "game.json", lambda stream: stream.write(b"x")) for _ in range(50)
    ]
    assert len(set(made)) == 50
    assert all(p.name.startswith(f".game.json.{os.getpid()}.") for p in made)
