"""Robust at the table (issue 15): every failure ends in one line on stderr, never a traceback."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from advisor import tour_cli
from advisor.notation import QUOTE_LIMIT, NotationError, parse_card, parse_cards, parse_hand
from advisor.plays import parse_play
from advisor.review import review_view
from advisor.session import Session, load, save
from advisor.session_events import encode_action
from search.game.rules import legal_actions
from tests.conftest import (
    ERROR_PREFIX,
    assert_one_line_error,
    dead_pid,
    run_in_process,
    run_subprocess,
)

SEED = 20261130


def _explode(*_args, **_kwargs):
    raise KeyError("no such thing")


def test_unexpected_error_is_one_line_naming_its_type_and_logs_the_traceback(
    monkeypatch, capsys, tmp_path
) -> None:
    """main(): an unexpected exception prints its type on one line, exits 1, logs the traceback."""
    monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(tour_cli, "Deal", _explode)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert_one_line_error(code, out, err)
    assert code == 1
    assert "KeyError" in err and "--debug" in err
    log = tmp_path / "emissary" / "last-error.log"
    assert str(log) in err
    assert "Traceback" in log.read_text() and "_explode" in log.read_text()


def test_unwritable_error_log_is_said_on_the_same_line(monkeypatch, capsys, tmp_path) -> None:
    """main(): when the traceback log cannot be written the one line says so."""
    monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "state"))
    monkeypatch.setattr(tour_cli, "Deal", _explode)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert_one_line_error(code, out, err)
    assert "could not write the traceback" in err


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_debug_shows_the_traceback(monkeypatch, capsys, tmp_path, how: str) -> None:
    """main(): `--debug` first, or EMISSARY_DEBUG=1, lets the unexpected exception through."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(tour_cli, "Deal", _explode)
    args = ["deal", "--seed", "3"]
    if how == "flag":
        monkeypatch.delenv("EMISSARY_DEBUG", raising=False)
        args = ["--debug", *args]
    else:
        monkeypatch.setenv("EMISSARY_DEBUG", "1")
    with pytest.raises(KeyError):
        run_in_process(monkeypatch, capsys, args)


def test_debug_flag_is_stripped_before_typer_sees_it(monkeypatch, capsys) -> None:
    """main(): `--debug deal --seed 3` runs the deal as usual."""
    code, out, err = run_in_process(monkeypatch, capsys, ["--debug", "deal", "--seed", "3"])
    assert code == 0 and err == "" and out


def test_keyboard_interrupt_is_one_line_and_exit_130(monkeypatch, capsys) -> None:
    """main(): Ctrl-C prints 'interrupted' on one line and exits 130."""

    def interrupt(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tour_cli, "Deal", interrupt)
    code, out, err = run_in_process(monkeypatch, capsys, ["deal", "--seed", "3"])
    assert code == 130
    assert err.strip().splitlines() == ["emissary: interrupted"]
    assert "Traceback" not in out + err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_on_stdout_is_one_line(tmp_path) -> None:
    """main(): writing the output to a full device (ENOSPC) is one line, exit 1."""
    command = [sys.executable, "-m", "advisor", "deal", "--seed", "3"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            command, stdout=full, stderr=subprocess.PIPE, timeout=120, check=False
        )
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert len(err.splitlines()) == 1 and err.startswith(ERROR_PREFIX), err
    assert "No space left" in err


def test_closed_pipe_exits_quietly() -> None:
    """main(): a reader that went away (BrokenPipeError) ends the command without a word."""
    command = [sys.executable, "-m", "advisor", "deal", "--seed", "3"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        child.stdout.close()  # before the child has imported anything, let alone printed
        err = child.stderr.read().decode()
        code = child.wait(timeout=120)
    assert err == "", err
    assert code != 0


def test_missing_folder_is_one_line() -> None:
    """main(): a checkpoint in a folder that does not exist is one line, exit 1."""
    done = run_subprocess(["simulate", "--tours", "2", "--checkpoint", "nodir/x.json"])
    assert_one_line_error(done.returncode, done.stdout.decode(), done.stderr.decode())
    assert done.returncode == 1
    assert "nodir" in done.stderr.decode()


# --- notation: what error messages quote, and control characters ---------------------


@pytest.mark.parametrize(
    "text",
    ["1" * 130 + "C", "x" * 200, "AC " + "♥" * 300, "K" * 80],
    ids=["130-digit rank", "200 letters", "300 hearts", "80 Ks"],
)
def test_errors_quote_at_most_forty_characters_of_the_input(text: str) -> None:
    """Notation errors quote the offending text cut to 40 characters with '…'."""
    with pytest.raises(NotationError) as caught:
        parse_cards(text)
    message = str(caught.value)
    assert "…" in message
    assert len(message) < 40 + 120, message
    quoted = message.split("'")[1]
    assert len(quoted) == QUOTE_LIMIT


def test_long_hand_on_the_command_line_is_one_short_line(monkeypatch, capsys) -> None:
    """CLI: a 200-character token in --hand gives one short error line."""
    code, out, err = run_in_process(
        monkeypatch, capsys, ["odds", "--hand", "Z" * 200, "--abilities", "none"]
    )
    assert_one_line_error(code, out, err)
    assert len(err) < 200


@pytest.mark.parametrize(
    ("text", "escape"),
    [
        ("2D,4C,6H,7C,AD,AC\r", r"'\r'"),
        ("2D 4C\x00 6H", r"'\x00'"),
        ("\x1b[31m2D 4C 6H", r"'\x1b'"),
        ("2D 4C\x85 6H", r"'\x85'"),
        ("2D 4C\x7f", r"'\x7f'"),
    ],
    ids=["carriage return", "NUL", "escape", "C1 NEL", "DEL"],
)
def test_control_characters_are_refused_by_their_escape(text: str, escape: str) -> None:
    """Notation: a control character other than tab and newline is refused, named by escape."""
    with pytest.raises(NotationError) as caught:
        parse_cards(text)
    message = str(caught.value)
    assert escape in message and "control character" in message
    assert "\n" not in message and "\r" not in message and "\x1b" not in message


def test_tabs_and_newlines_separate_cards() -> None:
    """Notation: tabs and newlines are separators like spaces and commas."""
    assert parse_cards("AC\t7H\n3S") == parse_cards("AC 7H 3S")


def test_emoji_presentation_selector_after_a_suit_is_accepted() -> None:
    """Notation: '♥️' (heart + U+FE0F) reads as '♥', as the README says."""
    assert parse_card("7♥\ufe0f") == parse_card("7♥")
    assert parse_hand("A♥️ 2♣️ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠") == parse_hand("AH 2C 3S 4S 5S 6S 7S 8S")


# --- session files: validated before use -----------------------------------------------


def _played_session(advice: dict | None = None):
    """A seeded session a few steps in, its kingdom and action events carrying advice."""
    session = Session.new(mode="seeded", seed=SEED)
    while len(session.events) < 6:
        state = session.replay()
        if state.phase == "hand":
            event = {"type": "hand", "cards": session.next_hand()}
        elif state.phase == "card":
            event = {"type": "card", "card": session.next_chance_card()}
        elif state.phase == "kingdom":
            position = state.tour.unvisited[0]
            best = {"best": position, "chances": {str(position): 0.5}, "played": 0.5}
            event = {"type": "kingdom", "position": position, "advice": advice or best}
        else:
            action = encode_action(legal_actions(state.visit)[0])
            best = {"best": "debate", "chance": 0.5, "played": 0.25}
            event = {"type": "action", "action": action, "advice": advice or best}
        session = session.append(event)
    return session


def _session_text(session) -> str:
    return json.dumps(session.to_json(), indent=1)


def _corruptions(good: str) -> dict[str, bytes]:
    data = json.loads(good)
    kingdom = next(i for i, e in enumerate(data["events"]) if e["type"] == "kingdom")

    def with_event(index: int, **changes) -> bytes:
        copy = json.loads(good)
        copy["events"][index].update(changes)
        return json.dumps(copy).encode()

    return {
        "empty": b"",
        "not utf-8": b'{"format": "\xff\xfe"}',
        "truncated": good[: len(good) // 2].encode(),
        "a list": b"[1, 2, 3]",
        "a string": b'"emissary-coach"',
        "deep nesting": b"[" * 100_000 + b"]" * 100_000,
        "nested 50 deep": b'{"format": "emissary-coach", "x": ' + b"[" * 50 + b"]" * 50 + b"}",
        "NaN": good.replace('"seed": ' + str(SEED), '"seed": NaN').encode(),
        "Infinity": with_event(kingdom, position=0).replace(b": 0", b": Infinity", 1),
        "huge integer": good.replace(str(SEED), "9" * 5000).encode(),
        "negative seed": good.replace(str(SEED), "-5").encode(),
        "event type a list": with_event(0, type=["hand"]),
        "event type missing": json.dumps({**data, "events": [{"cards": []}]}).encode(),
        "event a string": json.dumps({**data, "events": ["hand"]}).encode(),
        "cards a number": with_event(0, cards=7),
        "card of 200 characters": with_event(0, cards=["7" * 200]),
        "position a string": with_event(kingdom, position="3"),
        "position huge": with_event(kingdom, position=10**30),
        "advice a list": with_event(kingdom, advice=[1]),
        "advice best a list": with_event(kingdom, advice={"best": [1]}),
        "advice chances a string": with_event(kingdom, advice={"best": 1, "chances": "x"}),
        "advice played a string": with_event(kingdom, advice={"best": 1, "played": "x"}),
        "advice chance true": with_event(kingdom + 1, advice={"best": "d", "chance": True}),
        "rulers a dict": json.dumps({**data, "rulers": {"a": 1}}).encode(),
        "config a list": json.dumps({**data, "config": []}).encode(),
        "mode a list": json.dumps({**data, "mode": ["seeded"]}).encode(),
        "markup in format": json.dumps({**data, "format": "[/red]"}).encode(),
    }


CORRUPTIONS = list(_corruptions(_session_text(_played_session())))


@pytest.mark.parametrize("case", CORRUPTIONS)
def test_corrupt_session_files_are_refused_in_one_line_and_left_unchanged(
    monkeypatch, capsys, tmp_path, case: str
) -> None:
    """review: a corrupt session file is one 'emissary: error:' line naming the file, exit 1."""
    path = tmp_path / "game[1].json"
    content = _corruptions(_session_text(_played_session()))[case]
    path.write_bytes(content)
    code, out, err = run_in_process(monkeypatch, capsys, ["review", str(path)])
    assert_one_line_error(code, out, err)
    assert code == 1
    assert str(path) in err
    assert len(err) < 400, err
    assert path.read_bytes() == content


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "folder", "sparse 1 GB"])
def test_special_files_are_refused_without_reading_them(
    monkeypatch, capsys, tmp_path, special: str
) -> None:
    """review: a device, a FIFO, a folder or a huge file is refused at once, exit 1."""
    if special == "/dev/zero":
        if not os.path.exists("/dev/zero"):
            pytest.skip("needs /dev/zero")
        path = Path("/dev/zero")
    elif special == "fifo":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)
    elif special == "folder":
        path = tmp_path
    else:
        path = tmp_path / "big.json"
        with open(path, "wb") as stream:
            stream.truncate(1 << 30)
    code, out, err = run_in_process(monkeypatch, capsys, ["review", str(path)])
    assert_one_line_error(code, out, err)
    assert code == 1 and str(path) in err


def test_advice_texts_are_shown_literally_not_as_markup(monkeypatch, capsys, tmp_path) -> None:
    """review: '[' and ']' in a session's texts print as typed, never as rich markup."""
    advice = {"best": "[/red] [bold]x[/bold] [link=file:///]", "chance": 0.5, "played": 0.5}
    session = _played_session()
    events = [
        {**event, "advice": advice} if event["type"] == "action" else event
        for event in session.events
    ]
    data = {**session.to_json(), "events": events}
    path = tmp_path / "[red]game.json"
    path.write_text(json.dumps(data))
    code, out, err = run_in_process(monkeypatch, capsys, ["review", str(path), "--ascii"])
    assert code == 0, err
    assert "[/red]" in out and "[bold]x[/bold]" in out


def test_review_of_a_turn_down_event_with_advice_does_not_crash() -> None:
    """review: advice on a turn_down event (first edition) shows the cards turned down."""
    session = _played_session()
    fake = Session(session.config, session.mode, session.seed, session.rulers, session.events)
    fake._replayed.append(session.replay())
    object.__setattr__(
        fake, "events", (*session.events, {"type": "turn_down", "cards": ["JC"], "advice": {}})
    )
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(review_view(fake, ascii=True))
    rows = [line.split("|") for line in console.export_text().splitlines() if "pay a miss" in line]
    # columns: #, decision, advice, played, cost, advice cost
    assert len(rows) == 1 and rows[0][3].strip() == "JC"  # the row's "played": the event's card


def test_parse_play_refuses_a_blank_play() -> None:
    """coach: a play of only commas is refused with a message, not an IndexError."""
    visit = _played_session().replay().visit
    with pytest.raises(ValueError, match="no play given"):
        parse_play(",,", visit)


# --- the coach's temp files and session paths ------------------------------------------


def _coach(tmp_path: Path, session: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "advisor", "coach", "--session", session, "--seed", "3"]
    command += ["--no-advice", "--ascii"]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        command,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("name", ["*", "a[xy].json", "?.json"])
def test_coach_removes_only_its_own_temp_files_and_quotes_the_resume_command(
    tmp_path: Path, name: str
) -> None:
    """coach: a session named with glob characters is taken literally; others' files stay."""
    dead = dead_pid()
    bystanders = [
        ".notes.backup.tmp",
        f".ax.json.{dead}.abc123xy.tmp",
        f".a.json.{dead}.abcdefgh.tmp",
        "notes",
        f".{name}.abcd1234.tmp",
    ]
    for bystander in bystanders:
        (tmp_path / bystander).write_text("keep me")
    own = tmp_path / f".{name}.{dead}.abcd1234.tmp"
    own.write_text("left by a killed save")
    done = _coach(tmp_path, name)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "Traceback" not in out + done.stderr.decode()
    for bystander in bystanders:
        assert (tmp_path / bystander).read_text() == "keep me", bystander
    assert not own.exists()
    assert (tmp_path / name).is_file()
    assert f"emissary coach --session {shlex.quote(name)}" in out


def test_coach_follows_a_symlinked_session_and_keeps_the_link(tmp_path: Path) -> None:
    """coach: a symlinked --session file is written through: the target grows, the link stays."""
    real = tmp_path / "real"
    real.mkdir()
    target = real / "game.json"
    save(Session.new(mode="seeded", seed=3), target)
    (tmp_path / "link.json").symlink_to(target)
    done = _coach(tmp_path, "link.json")
    assert done.returncode == 0, done.stderr.decode()
    assert (tmp_path / "link.json").is_symlink()
    assert load(target).events, "the dealt hand was saved to the target"
    assert not [p for p in real.iterdir() if p.name.endswith(".tmp")]


# --- simulate and analyse: folders and bounds ------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["simulate", "--tours", "10000001"], "10,000,000"),
        (["simulate", "--tours", "9" * 30], "10,000,000"),
        (["analyse", "--seed", "1", "--deals", "100001"], "100,000"),
    ],
)
def test_counts_beyond_the_bounds_are_usage_errors(monkeypatch, capsys, args, fragment) -> None:
    """simulate --tours stops at 10,000,000 and analyse --deals at 100,000: exit 2, one line."""
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert_one_line_error(code, out, err)
    assert code == 2 and fragment in err


def test_checkpoint_in_a_missing_folder_is_refused_before_any_tour(
    monkeypatch, capsys, tmp_path
) -> None:
    """simulate: --checkpoint nodir/x.json is one line naming the folder, exit 1, at once."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_in_process(
        monkeypatch, capsys, ["simulate", "--tours", "2", "--checkpoint", "nodir/x.json"]
    )
    assert_one_line_error(code, out, err)
    assert code == 1 and "nodir" in err
    assert list(tmp_path.iterdir()) == []


# --- sweep-report on broken folders ----------------------------------------------------

SUMMARY_EXAMPLE = Path(__file__).resolve().parent.parent / "sweeps" / "c-1000-summary.json"


def _summary_corruptions() -> dict[str, bytes]:
    good = json.loads(SUMMARY_EXAMPLE.read_text())

    def changed(change) -> bytes:
        copy = json.loads(json.dumps(good))
        change(copy)
        return json.dumps(copy).encode()

    return {
        "empty": b"",
        "not json": b"{",
        "a list": b"[]",
        "not utf-8": b"\xff",
        "deep nesting": b"[" * 100_000,
        "no parameters": changed(lambda d: d.pop("parameters")),
        "parameters a list": changed(lambda d: d.update(parameters=[])),
        "abilities markup": changed(lambda d: d["parameters"].update(abilities="[/red]")),
        "short missing": changed(lambda d: d["parameters"].pop("short")),
        "seed a string": changed(lambda d: d["parameters"].update(seed="x")),
        "mode unknown": changed(lambda d: d.update(mode="weird")),
        "hands a string": changed(lambda d: d.update(hands_per_trump="many")),
        "no results": changed(lambda d: d.pop("results")),
        "results empty": changed(lambda d: d.update(results=[])),
        "result a number": changed(lambda d: d.update(results=[1])),
        "entry without mean": changed(lambda d: d["results"][0].pop("mean")),
        "mean a string": changed(lambda d: d["results"][0].update(mean="x")),
        "mean 7": changed(lambda d: d["results"][0].update(mean=7)),
        "ci one bound": changed(lambda d: d["results"][0].update(mean_ci95=[0.1])),
        "ci null bounds": changed(lambda d: d["results"][0].update(mean_ci95=[None, None])),
        "histogram of strings": changed(lambda d: d["results"][0].update(histogram=["a"])),
        "histogram NaN": changed(lambda d: d["results"][0].update(histogram=[float("nan")])),
        "trumps markup": changed(lambda d: d["results"][0].update(trumps="[b]")),
        "target a list": changed(lambda d: d["results"][0].update(target=[1])),
    }


@pytest.mark.parametrize("case", list(_summary_corruptions()))
def test_sweep_report_names_the_broken_summary(monkeypatch, capsys, tmp_path, case) -> None:
    """sweep-report: a malformed summary.json is one line naming the file, exit 1."""
    (tmp_path / "summary.json").write_bytes(_summary_corruptions()[case])
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(tmp_path)])
    assert_one_line_error(code, out, err)
    assert code == 1 and "summary.json" in err


@pytest.mark.parametrize(
    "manifest", [b"", b"[]", b'{"chunks": "x"}', b"{}", b'{"chunks": -1}', b"\xff"]
)
def test_sweep_report_of_an_unfinished_sweep_with_a_broken_manifest(
    monkeypatch, capsys, tmp_path, manifest: bytes
) -> None:
    """sweep-report: no summary and a malformed manifest.json is one line, exit 1."""
    (tmp_path / "manifest.json").write_bytes(manifest)
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(tmp_path)])
    assert_one_line_error(code, out, err)
    assert code == 1 and str(tmp_path) in err


@pytest.mark.parametrize("where", ["missing", "summary a folder", "/dev/zero"])
def test_sweep_report_of_no_summary_at_all(monkeypatch, capsys, tmp_path, where: str) -> None:
    """sweep-report: a missing path, a folder named summary.json or a device: one line."""
    path = tmp_path / "nothing"
    if where == "summary a folder":
        (tmp_path / "summary.json").mkdir()
        path = tmp_path
    elif where == "/dev/zero":
        path = Path("/dev/zero")
        if not path.exists():
            pytest.skip("needs /dev/zero")
    code, out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(path)])
    assert_one_line_error(code, out, err)
    assert code == 1


def test_sweep_report_reads_every_summary_in_the_repository(monkeypatch, capsys) -> None:
    """sweep-report: the checks accept every summary the project ships."""
    for path in sorted(SUMMARY_EXAMPLE.parent.glob("*summary.json")):
        code, _out, err = run_in_process(monkeypatch, capsys, ["sweep-report", str(path)])
        assert code == 0, (path, err)
